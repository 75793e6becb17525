"""The BlogCatalog page: both protocols, paired tests over draws, top-k predictions."""

import importlib.util
from pathlib import Path

import numpy as np

from digraph_askls.metrics import top_k_f1

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "blogcatalog_table.py"
_SPEC = importlib.util.spec_from_file_location("blogcatalog_table", _PATH)
table = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(table)


def _cells(differences, draws=4):
    """The default and the spectral embedding on ``draws`` draws per fraction, the
    default's figures above the other's by ``differences[fraction]`` plus a little noise."""
    rng = np.random.default_rng(0)
    cells = {}
    for fraction, difference in differences.items():
        for draw in range(draws):
            base = 0.4 + 0.01 * rng.standard_normal()
            for method, shift in ((table.METHODS[0], difference), (table.METHODS[1], 0.0)):
                value = base + shift + 0.002 * rng.standard_normal()
                cell = {"method": method, "fraction": fraction, "seed": 1, "draw": draw,
                        "micro_f1": value, "macro_f1": value - 0.15,
                        "predict_micro_f1": value - 0.02, "predict_macro_f1": value - 0.2,
                        "seconds": 10.0, "config": {}, "commit": "abcdef0123"}
                if method == table.METHODS[0]:
                    cell["config"] = {"kernel": "K()", "gamma": 1.0, "merge": "average",
                                      "warned": draw == 0}
                    cell["trivial"] = {"most_probable": [0.39, 0.24],
                                       "every_label": [0.07, 0.07]}
                cells[method, fraction, 1, draw] = cell
    return cells


def test_the_page_gives_both_protocols_and_paired_tests_over_draws():
    from scipy import stats

    cells = _cells({0.1: 0.0, 0.5: 0.03})
    text = table.page(cells, 1)
    assert "## Top-k: each test node given its true number of labels" in text
    assert "## Realistic: each method's own answer" in text
    assert "on commit abcdef0" in text and "DeepWalk's macro-F1 as its own authors" in text
    assert "| 50% | most probable label (default's) | 4 | 0.390 ± 0.000 | 0.240 ± 0.000 | |" \
        in text
    assert any(line.startswith("| 10% | AsK-LS default | 4 |") and line.endswith("| 1 |")
               for line in text.splitlines())                    # warned in 1 draw of 4
    tests = table.paired_tests({key[:2][::-1]: [c for k, c in cells.items() if k[:2] == key[:2]]
                                for key in cells})
    assert len(tests) == 8                        # 2 fractions x 4 figures, one peer
    # Holm's correction recomputed from the raw p-values
    raw = np.array([t[4] for t in tests])
    order = np.argsort(raw)
    expected = np.maximum.accumulate(np.minimum(1, (len(raw) - np.arange(len(raw)))
                                                * raw[order]))
    np.testing.assert_allclose(np.array([t[5] for t in tests])[order], expected)
    mine = [cells[table.METHODS[0], 0.5, 1, d]["micro_f1"] for d in range(4)]
    theirs = [cells[table.METHODS[1], 0.5, 1, d]["micro_f1"] for d in range(4)]
    row = next(t for t in tests if t[0] == 0.5 and t[2] == "micro_f1")
    assert np.isclose(row[4], stats.ttest_rel(mine, theirs).pvalue)
    assert np.isclose(row[3], np.mean(mine) - np.mean(theirs))
    # the +0.03 fraction is ahead on every figure, the level one level
    assert "| top-k micro-F1 | 1 | 1 | 0 |" in text


def test_the_digested_predictions_are_those_top_k_f1_scores():
    rng = np.random.default_rng(0)
    truth = (rng.random((50, 6)) < 0.3).astype(int)
    truth[truth.sum(axis=1) == 0, 0] = 1
    scores = rng.random((50, 6))
    predicted = table.top_k(truth, scores)
    assert np.array_equal(predicted.sum(axis=1), truth.sum(axis=1))
    micro = (predicted & truth).sum() / truth.sum()
    assert np.isclose(micro, top_k_f1(truth, scores)[0])
