"""What ``predict`` answers for several labels per node, chosen on held-out decisions.

The labels' probabilities (:class:`LabelCalibrator`, one Platt curve for all labels),
their F1 thresholds (:func:`label_thresholds`), and the answers compared on the folds
for the scorer (:data:`ANSWERS`, :func:`choose_answer`): learnt ones (thresholds, a
shared probability threshold) and the trivial ones (every label; the most probable
label alone); ``fit`` warns where no learnt answer beats them by
``SelectionPolicy.trivial_margin``; and the groups of exclusive labels
(:func:`label_groups`), which are fitted one single-label selection per group instead
(:mod:`~._groups`).
"""

import warnings

import numpy as np
from scipy.special import expit

from .._calibration import LabelCalibrator

__all__ = ["ANSWERS", "LabelCalibrator", "answer_of", "answer_scores", "best_answer",
           "choose_answer", "force_most_probable", "label_groups", "label_thresholds",
           "rule_of"]

#: Scores of a multi-label selection, by name: the ``average`` of ``f1_score``.
MULTILABEL_SCORES = {"f1_micro": "micro", "f1_macro": "macro", "f1_samples": "samples",
                     "f1_weighted": "weighted"}


def label_thresholds(decision, Y, order=None):
    """One threshold per label (L,): predicting the label where ``decision`` exceeds it
    gives the label's best F1 on these held-out decisions (m, L) and 0/1 labels ``Y``
    (midway between the last decision predicted and the next; ``inf`` for a label no
    node has). ``order``: the stable sort of ``-decision`` along the nodes, where the
    caller has it.

    Examples
    --------
    >>> label_thresholds(np.array([[0.9], [0.4], [-0.2], [-0.5]]), np.array([[1], [1], [0], [0]]))
    array([0.1])
    """
    m, n_labels = decision.shape
    if order is None:
        order = np.argsort(-decision, axis=0, kind="stable")
    ranked = np.take_along_axis(decision, order, axis=0)
    hits = np.cumsum(np.take_along_axis(Y, order, axis=0), axis=0)
    positives = Y.sum(axis=0)
    f1 = 2.0 * hits / (np.arange(1, m + 1)[:, None] + positives)
    last = np.argmax(f1, axis=0)                 # the last node predicted, in order
    columns = np.arange(n_labels)
    after = ranked[np.minimum(last + 1, m - 1), columns]
    thresholds = np.where(last + 1 < m, (ranked[last, columns] + after) / 2, -np.inf)
    return np.where(positives > 0, thresholds, np.inf)


def _thresholded(decision, Y, folds):
    """Held-out predictions: each fold's decisions at thresholds chosen on the others.
    The decisions are sorted once: a fold's order of the other nodes is the full order
    with the fold's nodes taken out (ties stay in node order, as a sort of them would
    leave them)."""
    predicted = np.zeros(Y.shape, dtype=int)
    everything = np.arange(Y.shape[0])
    columns = np.argsort(-decision, axis=0, kind="stable").T       # (L, m)
    for held in folds:
        train = np.setdiff1d(everything, held)
        kept = np.ones(Y.shape[0], dtype=bool)
        kept[held] = False
        position = np.cumsum(kept) - 1                 # a kept node's row among train
        order = position[columns[kept[columns]].reshape(len(columns), -1).T]
        predicted[held] = decision[held] > label_thresholds(decision[train], Y[train],
                                                            order)
    return predicted


#: The answers :func:`choose_answer` compares, in the order a tie keeps: the labels'
#: thresholds, the same with at least the most probable label, the labels of a
#: probability above one threshold shared by all (at least the most probable), then the
#: trivial ones (the last two).
ANSWERS = ("thresholds", "thresholds, at least one", "probability", "most probable label",
           "every label")


def label_groups(Y, max_steps=20_000):
    """The groups of labels of which every labelled node has exactly one (independent
    partitions of the nodes written as one 0/1 target), or None where the labels
    ``Y`` (m, L) do not split so into at least two groups of two labels or more.

    Every node then has as many labels as there are groups, and the labels of a group
    never meet on a node: a group is a set of labels whose nodes split the labelled
    nodes. The groups are searched as an exact cover of the nodes (the labels taken in
    column order, the first that fit kept: deterministic), so that two labels of
    different groups that happen never to meet on the few labelled nodes do not merge
    their groups; a search longer than ``max_steps`` labels tried gives None.

    Examples
    --------
    >>> Y = np.array([[1, 0, 0, 1], [0, 1, 1, 0], [1, 0, 1, 0], [0, 1, 0, 1]])
    >>> [group.tolist() for group in label_groups(Y)]
    [[0, 1], [2, 3]]
    >>> Y = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]])   # 0 and 3 never meet
    >>> [group.tolist() for group in label_groups(Y)]
    [[0, 1], [2, 3]]
    >>> label_groups(np.array([[1, 1, 0], [0, 1, 1], [1, 0, 0]])) is None
    True
    """
    Y = np.asarray(Y) > 0
    counts = Y.sum(axis=1)
    if Y.shape[1] < 4 or counts.min() < 2 or counts.min() != counts.max() or \
            not Y.any(axis=0).all():
        return None
    meet = (Y.T.astype(np.int64) @ Y.astype(np.int64)) > 0
    budget = [max_steps]
    try:
        groups = _partition(Y, meet, list(range(Y.shape[1])), budget)
    except _TooLong:
        return None
    if groups is None or any(len(group) < 2 for group in groups):
        return None
    return tuple(np.array(group) for group in groups)


class _TooLong(Exception):
    """The search for groups of labels ran past its steps."""


def _partition(Y, meet, labels, budget):
    """Groups (lists of columns) of ``labels`` that each cover every row of ``Y``
    exactly once, or None."""
    if not labels:
        return []
    first, rest = labels[0], labels[1:]
    for group in _covers(Y, meet, [first], Y[:, first].copy(), rest, budget):
        others = _partition(Y, meet, [label for label in rest if label not in group],
                            budget)
        if others is not None:
            return [group] + others
    return None


def _covers(Y, meet, chosen, covered, candidates, budget):
    """Every group holding ``chosen`` (labels that never meet) whose labels cover each
    row once, drawn from ``candidates``: the first row left takes each candidate of
    it in turn."""
    if covered.all():
        yield sorted(chosen)
        return
    row = int(np.argmin(covered))
    for label in candidates:
        if Y[row, label] and not meet[label, chosen].any():
            budget[0] -= 1
            if budget[0] < 0:
                raise _TooLong
            yield from _covers(Y, meet, chosen + [label], covered | Y[:, label],
                               [other for other in candidates if other != label], budget)


def _held_out_proba(decision, Y, folds):
    """Held-out probabilities of the labels: each fold's :class:`LabelCalibrator` fitted
    on the other folds, as the fitted model's is on every labelled node."""
    proba = np.empty(Y.shape)
    everything = np.arange(Y.shape[0])
    for held in folds:
        train = np.setdiff1d(everything, held)
        proba[held] = LabelCalibrator().fit(decision[train], Y[train]).predict_proba(
            decision[held])
    return proba


def force_most_probable(predicted, proba, groups):
    """``predicted`` (n, L) with each node's most probable label of every group in
    ``groups`` (column arrays) set; None: as it is."""
    rows = np.arange(len(predicted))
    for group in groups or ():
        predicted[rows, group[np.argmax(proba[:, group], axis=1)]] = 1
    return predicted


def answer_of(name, above, proba):
    """The 0/1 predictions (n, L) of the answer ``name`` (one of :data:`ANSWERS`) from
    where the labels are above their thresholds (``above``) and the labels'
    probabilities ``proba``.

    Examples
    --------
    >>> above = np.array([[0, 0, 0], [1, 1, 0]])
    >>> proba = np.array([[0.2, 0.5, 0.1], [0.9, 0.3, 0.4]])
    >>> answer_of("thresholds, at least one", above, proba).tolist()
    [[0, 1, 0], [1, 1, 0]]
    >>> answer_of("most probable label", above, proba).tolist()
    [[0, 1, 0], [1, 0, 0]]
    """
    if name == "every label":
        return np.ones(above.shape, dtype=int)
    predicted = (np.zeros(above.shape, dtype=int) if name == "most probable label"
                 else np.asarray(above, dtype=int).copy())
    return force_most_probable(predicted, proba, _forced(name, above.shape[1]))


def _forced(name, n_labels):
    """The groups whose most probable label the answer ``name`` always gives: all the
    labels as one (None: none)."""
    if name in ("thresholds", "every label"):
        return None
    return (np.arange(n_labels),)


def _ratio(top, bottom):
    return np.divide(top, bottom, out=np.zeros(np.shape(top)), where=bottom > 0)


def _score(Y, predicted, average):
    """scikit-learn's ``f1_score(Y, predicted, average=average, zero_division=0)`` of 0/1
    arrays, counted directly (the answers' grids score it many times).

    Examples
    --------
    >>> Y, P = np.array([[1, 0], [1, 1], [0, 0]]), np.array([[1, 1], [0, 1], [0, 0]])
    >>> [round(_score(Y, P, average), 4) for average in ("micro", "macro", "samples")]
    [0.6667, 0.6667, 0.4444]
    """
    Y, predicted = np.asarray(Y) > 0, np.asarray(predicted) > 0
    axis = 1 if average == "samples" else 0
    hits = (Y & predicted).sum(axis=axis)
    given, true = predicted.sum(axis=axis), Y.sum(axis=axis)
    if average == "micro":
        return float(_ratio(2.0 * hits.sum(), given.sum() + true.sum()))
    f1 = _ratio(2.0 * hits, given + true)
    if average == "weighted":
        return float(_ratio((true * f1).sum(), true.sum()))
    return float(f1.mean())


def shared_threshold(proba, Y, average):
    """The probability above which every label is answered (with at least the most
    probable) that scores best on these nodes; a grid of the upper quantiles of
    ``proba``. Every threshold of the grid is scored at once, from counts of the
    (node, label) pairs by the grid's interval they fall in."""
    grid = np.unique(np.quantile(proba, np.linspace(0.5, 0.999, 40)))
    top = answer_of("most probable label", np.zeros(proba.shape, dtype=int), proba) > 0
    Y = np.asarray(Y) > 0
    axis = 1 if average == "samples" else 0
    hits = (Y & top).sum(axis=axis)[:, None] + _counts_above(proba, Y & ~top, grid, axis)
    given = top.sum(axis=axis)[:, None] + _counts_above(proba, ~top, grid, axis)
    true = Y.sum(axis=axis)[:, None]
    if average == "micro":
        values = _ratio(2.0 * hits.sum(axis=0), given.sum(axis=0) + true.sum())
    else:
        f1 = _ratio(2.0 * hits, given + true)
        # one threshold a row, summed as _score sums one answer's (the same rounding)
        values = (_ratio(np.ascontiguousarray((true * f1).T).sum(axis=1), true.sum())
                  if average == "weighted" else np.ascontiguousarray(f1.T).mean(axis=1))
    return float(grid[int(np.argmax(values))])


def _counts_above(values, mask, grid, axis):
    """``(k, len(grid))``: how many entries of ``values`` where ``mask`` holds exceed
    each value of the increasing ``grid``, summed along ``axis`` (k: the other axis's
    length)."""
    rows, columns = np.nonzero(mask)
    kept = columns if axis == 0 else rows
    width = grid.size + 1
    bins = np.searchsorted(grid, values[rows, columns], side="left")   # grid values below
    table = np.bincount(kept * width + bins, minlength=mask.shape[1 - axis] * width)
    above = np.cumsum(table.reshape(-1, width)[:, ::-1], axis=1)[:, ::-1]
    return above[:, 1:]


def _probability_answer(proba, Y, folds, average):
    """Held-out predictions of the shared probability threshold (each fold's chosen on
    the others)."""
    predicted = np.zeros(Y.shape, dtype=int)
    everything = np.arange(Y.shape[0])
    for held in folds:
        train = np.setdiff1d(everything, held)
        t = shared_threshold(proba[train], Y[train], average)
        predicted[held] = answer_of("probability", proba[held] > t, proba[held])
    return predicted


def answer_scores(decision, Y, folds, stacked, average):
    """``{answer: held-out score}`` of every answer of :data:`ANSWERS` on held-out
    decisions (m, L) for the ``average`` of F1: each fold's thresholds and
    probabilities fitted on the other folds (the shared probability threshold only where
    the probabilities are a :class:`LabelCalibrator`'s, not a stacker's)."""
    proba = decision if stacked else _held_out_proba(decision, Y, folds)
    thresholded = _thresholded(decision, Y, folds)
    found = {}
    for name in ANSWERS:
        if name == "probability" and not stacked:
            found[name] = _score(Y, _probability_answer(proba, Y, folds, average), average)
        elif name != "probability":
            found[name] = _score(Y, answer_of(name, thresholded, proba), average)
    return found


def best_answer(found):
    """The answer of the best held-out score in ``found``: a tie keeps a trivial answer
    (nothing learnt is then worth its risk on new nodes), else the earlier of
    :data:`ANSWERS`."""
    return max(found, key=lambda name: (found[name], name in ANSWERS[-2:],
                                        -ANSWERS.index(name)))


def choose_answer(decision, Y, folds, stacked, scoring, policy):
    """The answer of ``predict`` chosen on held-out decisions for ``scoring``: the best
    of :data:`ANSWERS` there (:func:`answer_scores`). Returns ``(name, scores by
    answer)``. Where the best learnt answer does not beat the better trivial answer by
    ``policy.trivial_margin``, ``fit`` warns, naming the scorer and the trivial score:
    a lead that small on held-out folds may not hold on new nodes."""
    found = answer_scores(decision, Y, folds, stacked, MULTILABEL_SCORES[scoring])
    best = best_answer(found)
    trivial = max(ANSWERS[-2:], key=lambda name: found[name])
    learnt = max(value for name, value in found.items() if name not in ANSWERS[-2:])
    if learnt < found[trivial] + policy.trivial_margin:
        warnings.warn(
            f"several labels: on held-out folds the best learnt answer scores {scoring} "
            f"{learnt:.4f}, not {policy.trivial_margin} above the trivial answer "
            f"'{trivial}' ({scoring} {found[trivial]:.4f}): predict answers '{best}', "
            f"the best of them there. The graph's structure tells these labels apart "
            f"little.", UserWarning, stacklevel=2)
    return best, found


def rule_of(name, thresholds, calibrator, proba, Y, average):
    """``(thresholds, groups)`` of ``predict`` answering ``name``: each label's
    threshold of its decision value (the shared probability threshold's, through the
    calibrator) and the groups whose most probable label is always given (None: none;
    else all the labels as one)."""
    groups = _forced(name, Y.shape[1])
    if name == "every label":
        return np.full_like(thresholds, -np.inf), groups
    if name == "most probable label":
        return np.full_like(thresholds, np.inf), groups
    if name == "probability":
        t = shared_threshold(proba, Y, average)
        logit = np.log(t) - np.log1p(-t)
        slope = calibrator.coef_
        level = np.where(np.isnan(calibrator.constant_), expit(calibrator.intercept_),
                         calibrator.constant_)
        flat = np.where(level > t, -np.inf, np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(slope > 0, (logit - calibrator.intercept_) / slope, flat), groups
    return thresholds, groups
