"""What a selection reports, written here alone: ``selection_`` (:func:`selection_record`)
and ``cv_results_`` (:class:`ResultsTable`), with one schema whatever the target, the
scorer or the split.

``selection_`` always holds the keys of :data:`SELECTION_KEYS` and ``cv_results_`` the
columns of :data:`CV_COLUMNS`; a value that does not apply is None (NaN in a numeric
column of ``cv_results_``):

=====================  =============================================================
key                    meaning
=====================  =============================================================
``kernel``             the chosen kernel recipe
``gamma``              its regularisation coefficient
``merge``              the merge of the two views of the fitted model
``engine``             how the candidates were judged: ``"spectral"``, ``"walk"``,
                       ``"solved"`` (folds), ``"validation"`` (``valid=`` nodes) or
                       ``"fixed"`` (one configuration fitted as given, no estimate)
``n_folds``            the folds that judged the winner (None on validation nodes)
``n_valid``            the validation nodes that judged it (None with folds)
``scoring``            the name of the criterion (``"accuracy"``, ``"f1_micro"`` ...)
``score``              the ranking criterion of the winner
``held_out_score``     its raw held-out score under ``scoring``
``score_estimate``     that score corrected for the choice (BBC-CV), and
``score_interval``     its 90 % interval;
``score_reliable``     whether the interval is narrower than the policy's maximum
``held_out_accuracy``  the raw held-out accuracy of the same predictions
``accuracy``,          the accuracy's estimate, interval and reliability: those of the
``accuracy_interval``, score under the accuracy, None under another scorer (nothing
``accuracy_reliable``  chose by accuracy, so no estimate of it is corrected)
``optimism``           how much choosing the best may flatter the raw figure
``weights_screen``     on a graph whose edges do not all weigh the same, under
                       ``kernel="auto"``: the held-out accuracy of the walk kernel's
                       votes under each reading of the weights (``"raw"``,
                       ``"log1p"``, ``"binary"``); the best is every candidate's
``label_groups``       several labels per node that split into groups of which every
                       labelled node has exactly one label (independent partitions):
                       the groups (tuples of columns of ``classes_``), each chosen by
                       its own single-label selection; ``kernel``, ``gamma``,
                       ``merge``, ``engine``, ``n_folds`` and ``weights_screen`` then
                       hold one entry per group, ``score`` and ``held_out_score`` the
                       held-out score of one label per group, ``score_estimate`` the
                       groups' estimates combined as the score combines them
=====================  =============================================================

``cv_results_``'s ``label_group`` column is the position in ``label_groups`` of the
group whose selection tried the row (ranked among that group's rows), else None.
"""

import logging
from typing import NamedTuple

import numpy as np
from scipy.stats import rankdata

__all__ = ["CV_COLUMNS", "GROUP_SCORES", "RANK_TIES", "ResultsTable", "SELECTION_KEYS",
           "SearchResult", "grouped_columns", "grouped_record", "rank_order",
           "selection_record"]

logger = logging.getLogger(__name__)

#: The keys of ``selection_`` (see the module).
SELECTION_KEYS = ("kernel", "gamma", "merge", "engine", "n_folds", "n_valid", "scoring",
                  "score", "held_out_score", "score_estimate", "score_interval",
                  "score_reliable", "held_out_accuracy", "accuracy", "accuracy_interval",
                  "accuracy_reliable", "optimism", "weights_screen", "label_groups")

#: The columns of ``cv_results_``, one entry per configuration tried.
CV_COLUMNS = ("kernel", "gamma", "engine", "mean_test_score", "cv_accuracy", "merge",
              "fit_time", "scored_on", "label_group", "rank_test_score")

#: How each split ranks equal scores in ``rank_test_score``: folds in the order of the
#: rows (``"stable"``: the candidate order decides), validation nodes sharing the best
#: rank among them (``"min"``, as scikit-learn's searches report them).
RANK_TIES = {"folds": "stable", "validation": "min"}


def rank_order(scores, ties="stable"):
    """Ranks of ``scores``, 1 the best (see :data:`RANK_TIES`).

    Examples
    --------
    >>> rank_order([0.5, 0.9, 0.5]), rank_order([0.5, 0.9, 0.5], ties="min")
    ([2, 1, 3], [2, 1, 2])
    """
    scores = np.asarray(scores, dtype=np.float64)
    if ties == "min":
        return [int(r) for r in rankdata(-scores, method="min")]
    return [int(r) for r in np.argsort(np.argsort(-scores, kind="stable")) + 1]


class ResultsTable:
    """The rows of ``cv_results_`` as a selection writes them: one per configuration
    tried, every column of :data:`CV_COLUMNS`, ranked once they are all in.

    Examples
    --------
    >>> table = ResultsTable()
    >>> table.add("k", 1.0, "spectral", 0.8, 0.8, "joint", 0.1, 10)
    >>> table.add("k", 0.1, "spectral", 0.9, 0.9, "joint", 0.1, 10)
    >>> table.update(0, mean_test_score=0.95)
    >>> table.columns()["rank_test_score"]
    [1, 2]
    """

    def __init__(self):
        self._rows = {key: [] for key in CV_COLUMNS if key != "rank_test_score"}

    def __len__(self):
        return len(self._rows["kernel"])

    def add(self, kernel, gamma, engine, score, accuracy, merge, elapsed, scored_on):
        """Append one configuration (``score`` None: fitted alone, not ranked)."""
        for key, value in (("kernel", kernel), ("gamma", float(gamma)), ("engine", engine),
                           ("mean_test_score", score), ("cv_accuracy", accuracy),
                           ("merge", getattr(merge, "name", merge)),
                           ("fit_time", elapsed), ("scored_on", scored_on),
                           ("label_group", None)):
            self._rows[key].append(value)
        logger.info("selection %r gamma=%g: %s (%.2f s)", kernel, gamma,
                    "alone, not ranked" if score is None else f"{score:.4f}", elapsed)

    def update(self, row, **values):
        """Set columns of one row (a finalist scored again, on more nodes)."""
        for key, value in values.items():
            self._rows[key][row] = value

    def row_of(self, kernel, gamma):
        """The row of the configuration (``kernel`` the same object, ``gamma`` equal)."""
        return next(row for row, (k, g) in enumerate(zip(self._rows["kernel"],
                                                         self._rows["gamma"]))
                    if k is kernel and g == gamma)

    def column(self, key):
        return self._rows[key]

    def columns(self, ties="stable"):
        """``cv_results_``: the columns, ranked by ``mean_test_score``."""
        rows = {key: list(values) for key, values in self._rows.items()}
        rows["rank_test_score"] = rank_order(rows["mean_test_score"], ties) if len(self) \
            else []
        return rows


def selection_record(kernel, gamma, *, score, estimate, interval, held_out, optimism,
                     engine, merge, n_folds, interval_max=np.inf, scoring=None,
                     held_out_accuracy=None, n_valid=None):
    """``selection_``: every key of :data:`SELECTION_KEYS` (see the module).

    ``scoring``: the :class:`~._scoring.Scoring` (None: the accuracy) or the name of a
    multi-label F1; ``held_out``: the raw held-out score under it; ``estimate`` and
    ``interval``: that score corrected for the choice. Under the accuracy,
    ``held_out_accuracy`` defaults to ``held_out``.

    Examples
    --------
    >>> record = selection_record("k", 1, score=0.9, estimate=0.85, interval=(0.8, 0.9),
    ...                           held_out=0.9, optimism=0.01, engine="spectral",
    ...                           merge="joint", n_folds=5)
    >>> record["accuracy"], record["score_estimate"], record["scoring"], record["n_valid"]
    (0.85, 0.85, 'accuracy', None)
    """
    reliable = None if interval is None else bool(interval[1] - interval[0] <= interval_max)
    name = getattr(scoring, "name", scoring) or "accuracy"
    # the plain accuracy of arg-max decisions (not under class weights' costs)
    by_accuracy = getattr(scoring, "is_accuracy", scoring is None)
    if by_accuracy and held_out_accuracy is None:
        held_out_accuracy = held_out
    record = dict(kernel=kernel, gamma=float(gamma), merge=merge, engine=engine,
                  n_folds=n_folds, n_valid=n_valid, scoring=name, score=score,
                  held_out_score=held_out, score_estimate=estimate,
                  score_interval=interval, score_reliable=reliable,
                  held_out_accuracy=held_out_accuracy,
                  accuracy=estimate if by_accuracy else None,
                  accuracy_interval=interval if by_accuracy else None,
                  accuracy_reliable=reliable if by_accuracy else None,
                  optimism=optimism, weights_screen=None, label_groups=None)
    return record


#: How the score of one label per group combines the groups' own scores (``None``:
#: the mean; ``"size"``: weighted by the group's number of labels), by multi-label score:
#: with one true and one predicted label per group, micro- and sample-averaged F1 are
#: the mean of the groups' accuracies, weighted F1 the mean of theirs, macro-F1 the
#: mean over labels of the groups' macro-F1.
GROUP_SCORES = {"f1_micro": ("accuracy", None), "f1_samples": ("accuracy", None),
                "f1_weighted": ("f1_weighted", None), "f1_macro": ("f1_macro", "size")}


def grouped_record(groups, selections, *, scoring, held_out):
    """``selection_`` of several labels answered one per group: ``selections`` the
    groups' own, ``held_out`` the held-out score of one label per group under the
    multi-label ``scoring`` (see the module)."""
    sizes = np.array([len(group) for group in groups], dtype=float)
    weights = sizes / sizes.sum() if GROUP_SCORES[scoring][1] == "size" else \
        np.full(len(groups), 1.0 / len(groups))
    estimates = [selection["score_estimate"] for selection in selections]
    estimate = None if any(value is None for value in estimates) else \
        float(np.dot(weights, estimates))
    screens = tuple(selection["weights_screen"] for selection in selections)
    record = selection_record(0.0, 0.0, score=held_out, estimate=estimate, interval=None,
                              held_out=held_out, optimism=None, engine=None, merge=None,
                              n_folds=None, scoring=scoring)
    for key in ("kernel", "gamma", "merge", "engine", "n_folds"):
        record[key] = tuple(selection[key] for selection in selections)
    record.update(weights_screen=None if all(screen is None for screen in screens)
                  else screens,
                  label_groups=tuple(tuple(int(c) for c in group) for group in groups))
    return record


def grouped_columns(tables):
    """``cv_results_`` of several labels answered one per group: the rows of each
    group's own ``tables`` in turn, ``label_group`` naming the group."""
    columns = {key: [] for key in CV_COLUMNS}
    for position, table in enumerate(tables):
        for key in CV_COLUMNS:
            values = table[key] if key != "label_group" else [position] * len(table["kernel"])
            columns[key].extend(values)
    return columns


class SearchResult(NamedTuple):
    """What :func:`~._search.search` returns: the winning ``kernel`` on all nodes, the fitted
    ``estimator`` (:class:`~digraph_askls.AsKLSClassifier`), ``selection`` and
    ``cv_results`` (:mod:`~._results`), every node's view scores where the solve gave
    them (``node_scores``), the probability ``calibrator`` and, for several labels, the
    labels' decision ``thresholds`` and the groups of labels of which every node is
    answered at least the most probable (``label_groups``, None: none); the winner's
    held-out class probabilities of the labelled nodes (``held_out_proba``, (m,
    n_classes), columns its estimator's ``classes_``; a stand-in's predictions above
    ``SelectionPolicy.merge_cv_max`` nodes) where the folds route chose it, else None."""

    kernel: object
    estimator: object
    selection: dict
    cv_results: dict
    node_scores: object = None
    calibrator: object = None
    thresholds: object = None
    label_groups: object = None
    held_out_proba: object = None
