"""Other calibrations of the same fits, and what limits the error per draw.

Cora and CiteSeer with 20 labelled nodes per class, the development draws (seed 0,
``class_splits(labels, 20, 10, 0)``); ``NodeClassifier(random_state=0)`` is fitted once
per draw, and every variant below reads the same held-out probabilities of the labelled
nodes (those ``calibrator_`` is fitted on, recorded as the fit hands them over) and maps
the same uncalibrated test probabilities. Expected calibration error with 15
equal-width bins of the top class's confidence, per draw (mean of the 10 draws) and
pooled::

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/calibration_variants.py \\
        --data-home ../shared/datasets --out docs/results

writes ``calibration-variants.md``. Variants fitted on the labelled nodes:

- ``merge``: the merge's probabilities (no calibration);
- ``default``: ``TemperatureCalibrator()``, what ``calibrator_`` is;
- ``temperature only``: ``norm_scaling=False``;
- ``no cross-fit``: ``cross_fit=False`` (the map fitted on every label, lambda = 1);
- ``prior weight a``: ``pseudo_count=a``, for a = 2, 5, 10;
- ``class-weighted``: each labelled node weighted by its class's share among the
  unlabelled nodes' predicted probabilities over its share among the labelled nodes
  (the labelled nodes are 20 per class, the test nodes are not).

Two rows are not calibrations: the default's family and the temperature alone, each
fitted on the test labels themselves (``cross_fit=False``), what the maps' shapes allow
where the level is known (in-sample, so no calibration fitted on labelled nodes can
expect as little). Below the table, per draw: the winner's held-out
accuracy on the labelled nodes (``selection_["held_out_accuracy"]``) against its test
accuracy: the level every calibration fitted on the labelled nodes learns from.
"""

import argparse
import textwrap
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from digraph_askls import NodeClassifier
from digraph_askls.datasets import load_dataset
from digraph_askls.metrics import expected_calibration_error
from digraph_askls.model_selection import class_splits
from digraph_askls.models import _calibration
from digraph_askls.models._calibration import TemperatureCalibrator, log_proba
from digraph_askls.models.selection import _select

from bench_calibration import commit      # the script's own folder is on the path

N_BINS = 15
N_DRAWS = 10
GRAPHS = ("cora", "citeseer")


@contextmanager
def recording(found):
    """Records in ``found`` the held-out probabilities and class codes of the labelled
    nodes that each fit's calibrator is fitted on."""
    calibrate = _select.calibrate

    def recorded(estimator, oof, codes):
        found["held_out"] = _calibration.held_out_merge_proba(
            estimator, oof.scores.transpose(1, 0, 2), codes, None)
        found["codes"] = np.asarray(codes)
        return calibrate(estimator, oof, codes)

    _select.calibrate = recorded
    try:
        yield found
    finally:
        _select.calibrate = calibrate


def fitted_draw(graph, train, test):
    """Held-out probabilities and codes of the labelled nodes, the uncalibrated test
    probabilities, the test codes and the selection's record."""
    known = np.full(graph.n_nodes, -1)
    known[train] = graph.labels[train]
    with warnings.catch_warnings(), recording({}) as found:
        warnings.simplefilter("ignore")
        clf = NodeClassifier(random_state=0).fit(graph.adjacency, known,
                                                 features=graph.features)
    clf.calibrator_ = None
    codes = np.searchsorted(clf.classes_, graph.labels[test])
    return (found["held_out"], found["codes"], clf.predict_proba()[test], codes,
            clf.selection_)


def variants(held_out, codes, proba, test_codes):
    """Test probabilities under each variant (the module's docstring)."""
    z, zt = log_proba(held_out), log_proba(proba)
    k = proba.shape[1]
    shares = proba.mean(axis=0) / (np.bincount(codes, minlength=k) / codes.size)
    weights = shares[codes] * codes.size / shares[codes].sum()
    found = {"merge": proba}
    for name, calibrator, weight in (
            ("default", TemperatureCalibrator(), None),
            ("temperature only", TemperatureCalibrator(norm_scaling=False), None),
            ("no cross-fit", TemperatureCalibrator(cross_fit=False), None),
            ("prior weight 2", TemperatureCalibrator(pseudo_count=2), None),
            ("prior weight 5", TemperatureCalibrator(pseudo_count=5), None),
            ("prior weight 10", TemperatureCalibrator(pseudo_count=10), None),
            ("class-weighted", TemperatureCalibrator(), weights)):
        found[name] = calibrator.fit(z, codes, sample_weight=weight).predict_proba(zt)
    for name, calibrator in (
            ("on the test labels: default's family", TemperatureCalibrator(cross_fit=False)),
            ("on the test labels: temperature alone", TemperatureCalibrator(norm_scaling=False,
                                                               cross_fit=False))):
        found[name] = calibrator.fit(zt, test_codes).predict_proba(zt)
    return found


def measure(name, data_home):
    """Per variant the errors of every draw and pooled, and per draw the held-out and
    test accuracy of the winner."""
    graph = load_dataset(name, data_home=data_home, download=False)
    per_draw, pooled, truth, levels = {}, {}, [], []
    for _, train, test in class_splits(graph.labels, 20, N_DRAWS, 0):
        held_out, codes, proba, test_codes, selection = fitted_draw(graph, train, test)
        truth.append(test_codes)
        levels.append((selection["held_out_accuracy"],
                       float(np.mean(proba.argmax(axis=1) == test_codes))))
        for variant, found in variants(held_out, codes, proba, test_codes).items():
            per_draw.setdefault(variant, []).append(
                expected_calibration_error(test_codes, found, N_BINS))
            pooled.setdefault(variant, []).append(found)
    y = np.concatenate(truth)
    errors = {variant: (float(np.mean(per_draw[variant])),
                        expected_calibration_error(y, np.vstack(pooled[variant]), N_BINS))
              for variant in per_draw}
    return errors, np.array(levels)


def page(results, revision):
    about = textwrap.fill(
        f"Written by `benchmarks/calibration_variants.py` at commit `{revision}` (its "
        "docstring defines each row). Expected calibration error, 15 equal-width bins of "
        "the top class's confidence, of the test nodes of 10 draws of 20 labelled nodes "
        "per class: mean of the draws (pooled in brackets). The two rows *on the test "
        "labels* are fitted on the test labels themselves: what the maps' shapes allow "
        "where the level is known, not a calibration.", 100)
    lines = ["# Calibration variants on the development draws (seed 0)", "", about, "",
             "| variant | " + " | ".join(results) + " |",
             "|---|" + "---|" * len(results)]
    for variant in next(iter(results.values()))[0]:
        lines.append(f"| {variant} | " + " | ".join(
            f"{errors[variant][0]:.4f} ({errors[variant][1]:.4f})"
            for errors, _ in results.values()) + " |")
    lines += ["", "The winner's held-out accuracy on the labelled nodes against its test "
              "accuracy, per draw:", ""]
    for name, (_, levels) in results.items():
        gap = levels[:, 0] - levels[:, 1]
        lines.append(f"- {name}: " + ", ".join(f"{a:.3f} / {b:.3f}" for a, b in levels)
                     + f"; held-out less test {gap.mean():+.3f} on average, standard "
                     f"deviation {gap.std(ddof=1):.3f}; correlation "
                     f"{np.corrcoef(levels.T)[0, 1]:+.2f}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--graphs", nargs="+", default=list(GRAPHS))
    parser.add_argument("--out", default=None, help="folder for calibration-variants.md")
    args = parser.parse_args(argv)
    revision = commit()
    results = {name: measure(name, args.data_home) for name in args.graphs}
    text = page(results, revision)
    print(text)
    if args.out:
        (Path(args.out) / "calibration-variants.md").write_text(text)


if __name__ == "__main__":
    main()
