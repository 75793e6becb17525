"""What ``predict`` answers for several labels per node, chosen on held-out decisions.

The labels' probabilities (:class:`LabelCalibrator`, Platt curves), their F1 thresholds
(:func:`label_thresholds`), and the answers compared on the folds for the scorer
(:data:`ANSWERS`, :func:`choose_answer`): learnt ones (thresholds, a shared probability
threshold) and the trivial ones (every label; the most probable label alone), which a
learnt answer must beat by ``SelectionPolicy.trivial_margin``; and the groups of
exclusive labels (:func:`label_groups`), which are fitted one single-label selection per
group instead (:mod:`~._groups`).
"""

import warnings

import numpy as np
from scipy.special import expit

__all__ = ["ANSWERS", "LabelCalibrator", "answer_of", "choose_answer", "force_most_probable",
           "label_groups", "label_thresholds", "rule_of"]

#: Scores of a multi-label selection, by name: the ``average`` of ``f1_score``.
MULTILABEL_SCORES = {"f1_micro": "micro", "f1_macro": "macro", "f1_samples": "samples",
                     "f1_weighted": "weighted"}


class LabelCalibrator:
    """One logistic curve per label on its decision value (Platt scaling), fitted on the
    labelled nodes' out-of-fold decisions: the probabilities of a merge without its own
    (the mean of the views).

    The curves are those of scikit-learn's ``LogisticRegression(C=1.0)`` on each label's
    decision (the slope penalised by half its square, the intercept free), fitted for
    all labels at once by Newton's method on their ``2 x 2`` systems: a fit costs a few
    passes over the ``(m, n_labels)`` decisions, not one solver run per label.

    Examples
    --------
    >>> decision = np.array([[2.0, -1.0], [1.0, 0.5], [-1.0, 1.5], [-2.0, -2.0]])
    >>> Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    >>> proba = LabelCalibrator().fit(decision, Y).predict_proba(decision)
    >>> (proba[:2, 0] > 0.5).all() and (proba[2:, 0] < 0.5).all()
    np.True_
    """

    def fit(self, decision, Y, n_iter=50):
        decision = np.asarray(decision, dtype=np.float64)
        target = np.asarray(Y, dtype=np.float64)
        slope = np.zeros(target.shape[1])
        intercept = np.zeros(target.shape[1])
        for _ in range(n_iter):
            p = expit(decision * slope + intercept)
            residual, curvature = p - target, np.maximum(p * (1.0 - p), 1e-12)
            g_slope = (residual * decision).sum(axis=0) + slope
            g_intercept = residual.sum(axis=0)
            h_ss = (curvature * decision ** 2).sum(axis=0) + 1.0
            h_si = (curvature * decision).sum(axis=0)
            h_ii = curvature.sum(axis=0)
            det = h_ss * h_ii - h_si ** 2
            step_slope = (h_ii * g_slope - h_si * g_intercept) / det
            step_intercept = (h_ss * g_intercept - h_si * g_slope) / det
            slope -= np.clip(step_slope, -10.0, 10.0)
            intercept -= np.clip(step_intercept, -10.0, 10.0)
            if max(np.abs(step_slope).max(), np.abs(step_intercept).max()) < 1e-10:
                break
        constant = target.min(axis=0) == target.max(axis=0)   # every node has it, or none
        self.coef_ = np.where(constant, 0.0, slope)
        self.intercept_ = intercept
        self.constant_ = np.where(constant, target[0], np.nan)
        return self

    def predict_proba(self, decision):
        """The probability of each label (n, n_labels)."""
        proba = expit(np.asarray(decision) * self.coef_ + self.intercept_)
        return np.where(np.isnan(self.constant_), proba, self.constant_)


def label_thresholds(decision, Y):
    """One threshold per label (L,): predicting the label where ``decision`` exceeds it
    gives the label's best F1 on these held-out decisions (m, L) and 0/1 labels ``Y``
    (midway between the last decision predicted and the next; ``inf`` for a label no
    node has).

    Examples
    --------
    >>> label_thresholds(np.array([[0.9], [0.4], [-0.2], [-0.5]]), np.array([[1], [1], [0], [0]]))
    array([0.1])
    """
    m, n_labels = decision.shape
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
    """Held-out predictions: each fold's decisions at thresholds chosen on the others."""
    predicted = np.zeros(Y.shape, dtype=int)
    everything = np.arange(Y.shape[0])
    for held in folds:
        train = np.setdiff1d(everything, held)
        predicted[held] = decision[held] > label_thresholds(decision[train], Y[train])
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
    ``proba``."""
    grid = np.unique(np.quantile(proba, np.linspace(0.5, 0.999, 40)))
    top = answer_of("most probable label", np.zeros(proba.shape, dtype=int), proba) > 0
    values = [_score(Y, (proba > t) | top, average) for t in grid]
    return float(grid[int(np.argmax(values))])


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


def choose_answer(decision, Y, folds, stacked, scoring, policy):
    """The answer of ``predict`` chosen on held-out decisions for ``scoring`` (one of
    :data:`ANSWERS`; the shared probability threshold where the probabilities are a
    :class:`LabelCalibrator`'s, not a stacker's). Returns ``(name, scores by answer)``.
    Where the best learnt answer does not beat the better trivial answer by
    ``policy.trivial_margin``, the trivial answer is chosen, with a warning that names
    the scorer and the trivial score."""
    average = MULTILABEL_SCORES[scoring]
    proba = decision if stacked else _held_out_proba(decision, Y, folds)
    thresholded = _thresholded(decision, Y, folds)
    found = {}
    for name in ANSWERS:
        if name == "probability" and not stacked:
            found[name] = _score(Y, _probability_answer(proba, Y, folds, average), average)
        elif name != "probability":
            found[name] = _score(Y, answer_of(name, thresholded, proba), average)
    best = max(found, key=lambda name: (found[name], -ANSWERS.index(name)))
    trivial = max(ANSWERS[-2:], key=lambda name: found[name])
    if found[best] < found[trivial] + policy.trivial_margin:
        # A learnt answer that beats a trivial one by less than the margin on held-out
        # folds may not beat it on new nodes.
        learnt = max(value for name, value in found.items() if name not in ANSWERS[-2:])
        best = trivial
        warnings.warn(
            f"several labels: on held-out folds the best learnt answer scores {scoring} "
            f"{learnt:.4f}, not {policy.trivial_margin} above the trivial answer "
            f"'{trivial}' ({scoring} {found[trivial]:.4f}): predict answers '{trivial}'. "
            f"The graph's structure tells these labels apart little.", UserWarning,
            stacklevel=2)
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
