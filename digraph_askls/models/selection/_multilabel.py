"""The selection for a multi-label target: several labels per node.

AsK-LS's system does not depend on the labels: a multi-label target is one ``+1`` /
``-1`` column per label (``2 Y - 1``), solved with the same matrix as every other
column. Each candidate kernel's labelled block is decomposed once
(:func:`~digraph_askls.models._decomposition.decompose`) and every gamma of its grid
gives the out-of-fold view scores of every label from it. The folds deal the labelled
nodes at random (a node has several labels: there is no class to stratify by). Each
(kernel, gamma, merge) is scored by the micro-averaged F1 of its held-out predictions
(``scoring="f1_macro"``, ``"f1_samples"`` or ``"f1_weighted"`` otherwise): the mean
of the views and the per-label stacker (one logistic regression per label on that
label's two view scores, cross-validated on the out-of-fold scores); the best is
fitted. A label is predicted where its decision value exceeds the label's threshold,
the one that maximises the label's F1 on held-out decisions (:func:`label_thresholds`):
a rare label's decision is seldom positive, so a threshold of 0 would hardly ever
predict it. In the score each fold's thresholds are chosen on the other folds; the
fitted model's on every labelled node.
"""

import time

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score

from ...kernels import restrict_kernel
from ...kernels._specs import gamma_grid
from ...linalg import NotPositiveDefinite, SingularSystemError
from .._askls import AsKLSClassifier
from .._decomposition import decompose
from .._folds import coarsen_folds, make_folds
from .._mergers import OneSidedColumn, StackMerger
from ._results import RANK_TIES, ResultsTable, selection_record

__all__ = ["LabelCalibrator", "MULTILABEL_MERGES", "MULTILABEL_SCORES", "label_thresholds",
           "multilabel_scoring", "select_multilabel"]

#: The merges defined for a multi-label target (the joint and blended stackers are
#: multinomial: one distribution over classes, not one probability per label).
MULTILABEL_MERGES = ("average", "stack", "source", "target")

#: Scores of a multi-label selection, by name: the ``average`` of ``f1_score``.
MULTILABEL_SCORES = {"f1_micro": "micro", "f1_macro": "macro", "f1_samples": "samples",
                     "f1_weighted": "weighted"}


def multilabel_scoring(scoring):
    """The name of the F1 score a multi-label selection ranks by: ``"f1_micro"`` for the
    default (``"accuracy"``, which has no single meaning over several labels), else one
    of :data:`MULTILABEL_SCORES`, or a clear error."""
    if scoring == "accuracy":
        return "f1_micro"
    if isinstance(scoring, str) and scoring in MULTILABEL_SCORES:
        return scoring
    raise ValueError(f"a multi-label target is scored by one of "
                     f"{sorted(MULTILABEL_SCORES)} (the default: 'f1_micro'), got "
                     f"scoring={scoring!r}")


class LabelCalibrator:
    """One logistic curve per label on its decision value (Platt scaling), fitted on the
    labelled nodes' out-of-fold decisions: the probabilities of a merge without its own
    (the mean of the views)."""

    def fit(self, decision, Y):
        self.models_ = []
        for column in range(Y.shape[1]):
            target = Y[:, column]
            if target.min() == target.max():      # a label every node has, or none
                self.models_.append(float(target[0]))
                continue
            self.models_.append(LogisticRegression(C=1.0).fit(decision[:, [column]], target))
        return self

    def predict_proba(self, decision):
        """The probability of each label (n, n_labels)."""
        return np.column_stack([
            np.full(decision.shape[0], model) if isinstance(model, float)
            else model.predict_proba(decision[:, [column]])[:, 1]
            for column, model in enumerate(self.models_)])


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


def _decisions(scores, name):
    """The merge ``name``'s decision values (m, L) of view scores (2, m, L) without a
    stacker."""
    if name == "source":
        return scores[0]
    if name == "target":
        return scores[1]
    return scores.mean(axis=0)


def _stacked_decisions(scores, Y, folds):
    """Held-out decisions of the per-label stacker, cross-validated over ``folds`` on
    the out-of-fold scores; None where a fold leaves a label one-sided."""
    features = scores.transpose(1, 0, 2)
    decision = np.empty(Y.shape)
    everything = np.arange(Y.shape[0])
    for held in folds:
        train = np.setdiff1d(everything, held)
        try:
            merger = StackMerger().fit(features[train], None, columns=Y[train] > 0)
        except OneSidedColumn:
            return None
        decision[held] = merger.decision_function(features[held])
    return decision


def _merge_scores(scores, Y, folds, merges, average):
    """``{merge: (F1, held-out decisions)}`` of each merge that could be fitted."""
    found = {}
    for name in merges:
        decision = (_stacked_decisions(scores, Y, folds) if name == "stack"
                    else _decisions(scores, name))
        if decision is not None:
            found[name] = (float(f1_score(Y, _thresholded(decision, Y, folds),
                                          average=average, zero_division=0)), decision)
    return found


def select_multilabel(recipes, adjacency, features, Y, train, gammas, *, merge, max_folds,
                      settings, policy, scoring):
    """Choose the kernel, gamma and merge of a multi-label target ``Y`` (m, n_labels) of
    0 and 1 on the labelled nodes ``train``, and fit them.

    Returns ``(kernel, estimator, selection, cv_results, calibrator, thresholds)``: the
    chosen kernel on all nodes, the fitted :class:`~digraph_askls.AsKLSClassifier`, what
    was chosen, one row per (kernel, gamma, merge) tried, the :class:`LabelCalibrator`
    of a merge without probabilities of its own (None for the stacker) and the
    thresholds of the labels' decision values (:func:`label_thresholds`).
    """
    m = train.size
    average = MULTILABEL_SCORES[scoring]
    merges = MULTILABEL_MERGES[:2] if merge == "auto" else (merge,)
    folds = make_folds(np.zeros(m, dtype=int), min(max_folds, m), settings.random_state)
    merge_folds = coarsen_folds(folds, policy.merge_folds)
    targets = 2.0 * Y - 1.0
    rows = ResultsTable()
    best = None
    for recipe in recipes:
        start = time.perf_counter()
        kernel = recipe.make(adjacency, features)
        decomposition = decompose(restrict_kernel(kernel, train, train), for_folds=True)
        for gamma in (gamma_grid(recipe) if gammas is None else np.atleast_1d(gammas)):
            try:
                scores, mean_model = decomposition.fold_scores(targets, gamma, folds)
            except (SingularSystemError, NotPositiveDefinite):
                continue
            for name, (value, decision) in _merge_scores(scores, Y, merge_folds, merges,
                                                         average).items():
                rows.add(recipe, gamma, "spectral", value, np.nan, name,
                         time.perf_counter() - start, m)
                if best is None or value > best[0]:
                    best = (value, recipe, kernel, decomposition, float(gamma), name,
                            scores, mean_model, decision)
    if best is None:
        raise ValueError("no candidate kernel and gamma gave a solvable system on the "
                         "labelled nodes; pass another kernel or gamma")
    return _fit_best(best, Y, targets, folds, settings, scoring, rows)


def _fit_best(best, Y, targets, folds, settings, scoring, rows):
    """The fitted estimator of the best candidate, its record and its calibrator."""
    value, recipe, kernel, decomposition, gamma, name, scores, mean_model, decision = best
    full = decomposition.solve(targets, gamma)
    stacking = name == "stack"
    estimator = AsKLSClassifier.from_solution(
        Y, full, mean_model, None, stacking_scores=scores.transpose(1, 0, 2)
        if stacking else None, view_scores=scores, **settings.estimator_params(
            gamma=gamma, merge=name, n_folds=len(folds)))
    calibrator = None if stacking else LabelCalibrator().fit(decision, Y)
    selection = selection_record(recipe, gamma, score=value, estimate=None, interval=None,
                                 held_out=value, optimism=None, engine="spectral",
                                 merge=name, n_folds=len(folds), scoring=scoring)
    return (kernel, estimator, selection, rows.columns(RANK_TIES["folds"]), calibrator,
            label_thresholds(decision, Y))
