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

- ``calibrated only at a gain of z standard error(s)``: the default, answered uncalibrated (lambda
  = 0) unless the cross-fit's gain in log-loss at ``lambda*`` (per held-out label, the
  log of the pooled probability of its class less that of the identity) is at least
  ``z`` standard errors above zero, for z = 1, 1.64, 2: "no calibration when the folds
  do not show a gain", stricter than ``lambda*`` alone.

Two rows are not calibrations: the default's family and the temperature alone, each
fitted on the test labels themselves (``cross_fit=False``), what the maps' shapes allow
where the level is known (in-sample, so no calibration fitted on labelled nodes can
expect as little).

The second table is about the level: every calibration answers some mean confidence
``L`` on the test nodes, and the binned error is at least ``|accuracy - L|`` (the bins'
weighted gaps sum to the overall gap, and the mean of absolute values is at least the
absolute value of the mean), so a level estimator's mean ``|accuracy - L|`` over the
draws is a lower bound of the per-draw error of any calibration that answers it. Its
rows (``levels``), each from what a user has (the labelled nodes, the graph, the
unlabelled nodes' predictions) unless marked:

- the merge's and the default's mean confidence on the test nodes;
- the winner's held-out accuracy on the labelled nodes
  (``selection_["held_out_accuracy"]``) and the selection's estimate corrected for the
  choice (``selection_["accuracy"]``, bootstrap bias-corrected);
- the held-out accuracy of each class weighted by the unlabelled nodes' predicted
  class shares (the labelled nodes are 20 per class, the test nodes are not);
- the held-out accuracy re-weighted to the test nodes' distance to the labels: each
  labelled node in one of three cells (another labelled node among its neighbours,
  else within two hops, else neither; links read both ways), each cell weighted by its
  share of the test nodes (covariate shift in the one quantity a label-reading kernel
  sees of the split);
- the mean of the merge's confidence and the corrected estimate;
- the held-out accuracy post-stratified on agreement with the PageRank vote
  (``PeerClassifier()``, scikit-network's personalised PageRank per class, links read
  both ways): the share
  of held-out labels decided right among those where the winner and the vote agree,
  and among those where they do not (the vote also held out, by 5 stratified folds of
  the labelled nodes), weighted by the test nodes' shares of agreement;
- not an estimator (it reads the test labels' class counts): the held-out accuracy of
  each class weighted by the true test class shares;
- not an estimator: the expected ``|error|`` of the best a stratified sample of the
  labelled nodes' size can do without selection or folds, ``sqrt(2 / pi)`` times the
  standard error ``sqrt(sum_j pi_j^2 r_j (1 - r_j) / m_j)`` of the class-weighted
  accuracy, with the test nodes' class shares ``pi_j`` and the fitted model's own test
  recalls ``r_j``, ``m_j`` labelled nodes of class ``j``.

Below the tables, per draw: the winner's held-out accuracy against its test accuracy,
and the per-draw difference of the default's error and the merge's (mean and standard
error over the draws).
"""

import argparse
import textwrap
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from digraph_askls import NodeClassifier
from digraph_askls.datasets import load_dataset
from digraph_askls.metrics import expected_calibration_error
from digraph_askls.model_selection import class_splits
from digraph_askls.models import _calibration
from digraph_askls.models._calibration import TemperatureCalibrator, log_proba
from digraph_askls.models._folds import kfold_splits
from digraph_askls.models.selection import _select
from digraph_askls.peers import PeerClassifier

from bench_calibration import commit      # the script's own folder is on the path

N_BINS = 15
N_DRAWS = 10
GRAPHS = ("cora", "citeseer")
GATES = (1.0, 1.64, 2.0)


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


@contextmanager
def cross_fit_record(found):
    """Records in ``found["right"]`` the cross-fit's probabilities of each held-out
    label's class (the identity's, the map's fitted without its fold)."""
    held_out_right = _calibration._held_out_right

    def recorded(*args):
        found["right"] = held_out_right(*args)
        return found["right"]

    _calibration._held_out_right = recorded
    try:
        yield found
    finally:
        _calibration._held_out_right = held_out_right


def gain_z(calibrator, right):
    """The cross-fit's gain in log-loss at ``lambda*`` over the identity, per held-out
    label, in standard errors of its mean (0 where ``lambda* = 0``)."""
    lam = calibrator.shrinkage_
    gain = np.log(right[0] + lam * (right[1] - right[0])) - np.log(right[0])
    spread = gain.std(ddof=1) / np.sqrt(gain.size)
    return float(gain.mean() / spread) if lam > 0 and spread > 0 else 0.0


def variants(held_out, codes, proba, test_codes):
    """Test probabilities under each variant (the module's docstring)."""
    z, zt = log_proba(held_out), log_proba(proba)
    k = proba.shape[1]
    shares = proba.mean(axis=0) / (np.bincount(codes, minlength=k) / codes.size)
    weights = shares[codes] * codes.size / shares[codes].sum()
    with cross_fit_record({}) as record:
        default = TemperatureCalibrator().fit(z, codes)
    found = {"merge": proba, "default": default.predict_proba(zt)}
    for name, calibrator, weight in (
            ("temperature only", TemperatureCalibrator(norm_scaling=False), None),
            ("no cross-fit", TemperatureCalibrator(cross_fit=False), None),
            ("prior weight 2", TemperatureCalibrator(pseudo_count=2), None),
            ("prior weight 5", TemperatureCalibrator(pseudo_count=5), None),
            ("prior weight 10", TemperatureCalibrator(pseudo_count=10), None),
            ("class-weighted", TemperatureCalibrator(), weights)):
        found[name] = calibrator.fit(z, codes, sample_weight=weight).predict_proba(zt)
    significance = gain_z(default, record["right"])
    for gate in GATES:
        found[f"calibrated only at a gain of {gate:g} standard error(s)"] = (
            found["default"] if significance >= gate else found["merge"])
    for name, calibrator in (
            ("on the test labels: default's family", TemperatureCalibrator(cross_fit=False)),
            ("on the test labels: temperature alone", TemperatureCalibrator(norm_scaling=False,
                                                               cross_fit=False))):
        found[name] = calibrator.fit(zt, test_codes).predict_proba(zt)
    return found


def label_distance(adjacency, train):
    """Per node: 2 with another labelled node among its neighbours, 1 with one within
    two hops, 0 neither (links read both ways)."""
    links = sp.csr_matrix(adjacency, dtype=np.float64)
    links = ((links + links.T) != 0).astype(np.float64)
    links.setdiag(0)
    links.eliminate_zeros()
    labelled = np.zeros(links.shape[0])
    labelled[train] = 1.0
    near = links @ labelled                   # labelled neighbours (never itself)
    degree = np.asarray(links.sum(axis=1)).ravel()
    second = links @ near - degree * labelled  # two-link walks, less those back home
    return np.where(near > 0, 2, np.where(second > 0, 1, 0))


def post_stratified(right, cells, test_cells, values):
    """The held-out share right in each cell of ``values``, weighted by the test nodes'
    share of the cell (cells without a labelled node left out)."""
    return float(sum(np.mean(test_cells == cell) * right[cells == cell].mean()
                     for cell in values if np.any(cells == cell)))


def vote_agreement(graph, order, codes, test, held_out, proba):
    """Whether the winner and the PageRank vote agree on each labelled node (the vote
    held out by 5 stratified folds) and on each test node."""
    classes = np.unique(graph.labels[order])
    vote = np.empty(order.size, dtype=np.int64)
    for inside, outside in kfold_splits(codes, 5, 0):
        known = np.full(graph.n_nodes, -1)
        known[order[inside]] = graph.labels[order[inside]]
        found = PeerClassifier().fit(graph.adjacency, known).predict(order[outside])
        vote[outside] = np.searchsorted(classes, found)
    known = np.full(graph.n_nodes, -1)
    known[order] = graph.labels[order]
    test_vote = np.searchsorted(classes, PeerClassifier().fit(graph.adjacency, known)
                                .predict(np.asarray(test)))
    return held_out.argmax(axis=1) == vote, proba.argmax(axis=1) == test_vote


def level_estimates(graph, train, test, held_out, codes, proba, calibrated, test_codes,
                    selection):
    """The levels of the module's docstring, and the test accuracy."""
    k = proba.shape[1]
    right = held_out.argmax(axis=1) == codes
    per_class = np.array([right[codes == j].mean() for j in range(k)])
    test_share = np.bincount(test_codes, minlength=k) / test_codes.size
    order = np.sort(train)                    # the held-out rows are in node order
    distance = label_distance(graph.adjacency, order)
    by_distance = post_stratified(right, distance[order], distance[np.asarray(test)],
                                  range(3))
    agree, test_agree = vote_agreement(graph, order, codes, test, held_out, proba)
    by_agreement = post_stratified(right, agree, test_agree, (True, False))
    merge_level = float(proba.max(axis=1).mean())
    decided = proba.argmax(axis=1) == test_codes
    recall = np.array([decided[test_codes == j].mean() for j in range(k)])
    counts = np.bincount(codes, minlength=k)
    spread = np.sqrt(np.sum(test_share ** 2 * recall * (1 - recall) / counts))
    return float(decided.mean()), {
        "merge's mean confidence": merge_level,
        "default's mean confidence": float(calibrated.max(axis=1).mean()),
        "winner's held-out accuracy": selection["held_out_accuracy"],
        "selection's corrected estimate": selection["accuracy"],
        "held-out, at the predicted class shares": float(
            per_class @ (proba.mean(axis=0))),
        "held-out, at the test nodes' distance to labels": by_distance,
        "mean of the merge's confidence and the corrected estimate": (
            merge_level + selection["accuracy"]) / 2,
        "held-out, post-stratified on agreement with the PageRank vote": by_agreement,
        "not an estimator: held-out at the true class shares": float(
            per_class @ test_share),
    }, float(np.sqrt(2 / np.pi) * spread)


def measure(name, data_home):
    """Per variant the errors of every draw and pooled; per draw the held-out and test
    accuracy of the winner, the levels and the sampling floor."""
    graph = load_dataset(name, data_home=data_home, download=False)
    per_draw, pooled, truth, accuracy, levels, floors = {}, {}, [], [], {}, []
    for _, train, test in class_splits(graph.labels, 20, N_DRAWS, 0):
        held_out, codes, proba, test_codes, selection = fitted_draw(graph, train, test)
        truth.append(test_codes)
        found = variants(held_out, codes, proba, test_codes)
        for variant, mapped in found.items():
            per_draw.setdefault(variant, []).append(
                expected_calibration_error(test_codes, mapped, N_BINS))
            pooled.setdefault(variant, []).append(mapped)
        test_accuracy, draw_levels, floor = level_estimates(
            graph, train, test, held_out, codes, proba, found["default"], test_codes,
            selection)
        accuracy.append((selection["held_out_accuracy"], test_accuracy))
        floors.append(floor)
        for level, value in draw_levels.items():
            levels.setdefault(level, []).append(value)
    y = np.concatenate(truth)
    errors = {variant: (float(np.mean(per_draw[variant])),
                        expected_calibration_error(y, np.vstack(pooled[variant]), N_BINS))
              for variant in per_draw}
    difference = np.array(per_draw["default"]) - np.array(per_draw["merge"])
    return dict(errors=errors, accuracy=np.array(accuracy),
                levels={level: np.array(values) for level, values in levels.items()},
                floor=float(np.mean(floors)), difference=difference)


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
    for variant in next(iter(results.values()))["errors"]:
        lines.append(f"| {variant} | " + " | ".join(
            f"{found['errors'][variant][0]:.4f} ({found['errors'][variant][1]:.4f})"
            for found in results.values()) + " |")
    levels = textwrap.fill(
        "The level: for each estimate L of the test accuracy, its mean over the draws of "
        "L less the test accuracy (bias) and of |L - test accuracy|, which no calibration "
        "answering a mean confidence of L can measure below, per draw (the binned error "
        "is at least the gap of the means); then the correlation of L with the test "
        "accuracy over the draws. The last line is the expected |error| of the best that "
        "as many labelled nodes can do, without selection or folds.", 100)
    lines += ["", levels, "", "| level L | " + " | ".join(
        f"{name}: bias, mean abs, correlation" for name in results) + " |",
              "|---|" + "---|" * len(results)]
    for level in next(iter(results.values()))["levels"]:
        cells = []
        for found in results.values():
            gap = found["levels"][level] - found["accuracy"][:, 1]
            correlation = np.corrcoef(found["levels"][level], found["accuracy"][:, 1])[0, 1]
            cells.append(f"{gap.mean():+.3f}, {np.abs(gap).mean():.3f}, {correlation:+.2f}")
        lines.append(f"| {level} | " + " | ".join(cells) + " |")
    lines.append("| expected abs error of a stratified sample of 20 per class | "
                 + " | ".join(f"{found['floor']:.3f}" for found in results.values()) + " |")
    lines += ["", "The winner's held-out accuracy on the labelled nodes against its test "
              "accuracy, per draw, and the default's error less the merge's:", ""]
    for name, found in results.items():
        levels, difference = found["accuracy"], found["difference"]
        gap = levels[:, 0] - levels[:, 1]
        lines.append(f"- {name}: " + ", ".join(f"{a:.3f} / {b:.3f}" for a, b in levels)
                     + f"; held-out less test {gap.mean():+.3f} on average, standard "
                     f"deviation {gap.std(ddof=1):.3f}; correlation "
                     f"{np.corrcoef(levels.T)[0, 1]:+.2f}. Default less merge, per draw: "
                     f"{difference.mean():+.4f} on average, standard error "
                     f"{difference.std(ddof=1) / np.sqrt(difference.size):.4f}")
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
