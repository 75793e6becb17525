"""Table 1 protocol: KL-kernel classifiers on synthetic divergences and the CLI."""

import numpy as np
import pytest

from experiments._cli import main
from experiments import evaluate_kl_kernel, format_table1

N_CLASSES, PER_CLASS = 3, 20
FAST = dict(n_trials=1, test_size=0.25, cv=3, scales=(1.0, 3.0), gammas=(0.1, 10.0),
            Cs=(1.0, 10.0), verbose=False)


def _labels():
    return np.repeat(np.arange(N_CLASSES), PER_CLASS)


def _clustered_divergences(seed=0):
    """Asymmetric divergences, small within a class and large across classes."""
    rng = np.random.default_rng(seed)
    labels = _labels()
    noise = rng.random((labels.size, labels.size))
    divergences = 1.0 + 3.0 * (labels[:, None] != labels) + 2.0 * noise
    np.fill_diagonal(divergences, 0.0)
    return divergences, labels


def _row_coded_divergences(seed=0):
    """Divergences whose row ``i`` tells the class of ``i`` but whose column ``j`` is noise.

    ``KL[i, j] = R[class(i), j] + noise``: the rows of one class share a random pattern,
    while a column only depends on the row classes, not on its own class. Only the view
    that reads a sample's row (the source view, ``K[test][:, train]``) can classify it.
    """
    rng = np.random.default_rng(seed)
    labels = _labels()
    patterns = 4.0 * rng.random((N_CLASSES, labels.size))
    divergences = patterns[labels] + 0.5 * rng.random((labels.size,) * 2)
    np.fill_diagonal(divergences, 0.0)
    return divergences, labels


def test_all_methods_well_above_chance_on_clustered_divergences():
    divergences, labels = _clustered_divergences()
    rows = evaluate_kl_kernel(divergences, labels, **FAST)
    assert [row["method"] for row in rows] == ["SVM", "LS-SVM", "AsK-LS", "AsK-LS (stack)"]
    for row in rows:
        assert len(row["micro_f1"]) == FAST["n_trials"]
        assert row["micro_mean"] > 0.8, row
        assert row["macro_mean"] > 0.8, row
        assert row["scale"][0] in FAST["scales"]


@pytest.mark.parametrize("transpose", [False, True])
def test_askls_reads_the_view_that_holds_the_class(transpose):
    # With the class in the rows only the source view K[test][:, train] can classify;
    # transposed, only the target view K[train][:, test] can. A mixed-up restriction of
    # either view leaves AsK-LS at chance (1/3) in one of the two cases.
    divergences, labels = _row_coded_divergences()
    if transpose:
        divergences = divergences.T
    rows = evaluate_kl_kernel(divergences, labels, methods=["AsK-LS (stack)"], **FAST)
    assert rows[0]["micro_mean"] > 0.8, rows[0]


def test_same_seed_same_results():
    divergences, labels = _clustered_divergences()
    first, again = (evaluate_kl_kernel(divergences, labels, methods=["SVM"], **FAST)
                    for _ in range(2))
    assert first == [dict(again[0], seconds=first[0]["seconds"])]


def test_bad_input_is_rejected():
    divergences, labels = _clustered_divergences()
    with pytest.raises(ValueError, match=r"expected shape \(60, 60\), got \(60, 59\)"):
        evaluate_kl_kernel(divergences[:, 1:], labels)
    with pytest.raises(ValueError, match="unknown methods"):
        evaluate_kl_kernel(divergences, labels, methods=["SVM", "kNN"])


def test_format_table1_puts_paper_numbers_beside_ours():
    rows = [dict(method="SVM", micro_mean=0.8, micro_std=0.01, macro_mean=0.79,
                 macro_std=0.02, paper_micro=[0.83, 0.0], paper_macro=[0.822, 0.0]),
            dict(method="AsK-LS (stack)", micro_mean=0.9, micro_std=0.0, macro_mean=0.9,
                 macro_std=0.0, paper_micro=None, paper_macro=None)]
    lines = format_table1(rows).splitlines()
    assert lines[2] == ("| SVM | 0.800 ± 0.010 | 0.830 ± 0.000 | 0.790 ± 0.020 | "
                        "0.822 ± 0.000 |")
    assert lines[3].count("–") == 2


def test_cli_table1_reports_a_missing_folder(tmp_path, capsys):
    assert main(["table1", "--corel-dir", str(tmp_path / "absent"), "--quiet"]) == 2
    assert "table1" in capsys.readouterr().err
