"""The selection for a multi-label target: several labels per node.

AsK-LS's system does not depend on the labels: a multi-label target is one ``+1`` /
``-1`` column per label (``2 Y - 1``), solved with the same matrix as every other
column. Each candidate kernel's labelled block is decomposed once
(:func:`~digraph_askls.models._decomposition.decompose`) and every gamma of its grid
gives the out-of-fold view scores of every label from it. The folds deal the labelled
nodes at random (a node has several labels: there is no class to stratify by). Each
(kernel, gamma, merge) is scored by the micro-averaged F1 (``scoring="f1_macro"``,
``"f1_samples"`` or ``"f1_weighted"`` otherwise) of the best answer ``predict`` could
give from its held-out decisions (the labels' thresholds, a shared probability
threshold, the most probable label, ...: :func:`~._answers.answer_scores`), the merges
being the mean of the views and the per-label stacker (one logistic regression per
label on that label's two view scores, cross-validated on the out-of-fold scores); the
best is fitted. What ``predict`` answers is then chosen again on the winner's held-out
decisions on new folds (:mod:`~._answers`). Labels that split into groups of exclusive labels never come here:
each group is a single-label selection (:mod:`~._groups`).
"""

import time

import numpy as np

from ...kernels import restrict_kernel
from ...kernels._specs import gamma_grid
from ...linalg import NotPositiveDefinite, SingularSystemError
from .._askls import AsKLSClassifier
from .._decomposition import decompose
from .._folds import coarsen_folds, make_folds
from .._mergers import OneSidedColumn, StackMerger
from ._answers import (MULTILABEL_SCORES, LabelCalibrator, answer_scores, best_answer,
                       choose_answer, label_thresholds, rule_of)
from ._results import RANK_TIES, ResultsTable, selection_record

__all__ = ["LabelCalibrator", "MULTILABEL_MERGES", "MULTILABEL_SCORES", "label_thresholds",
           "multilabel_scoring", "select_multilabel"]

#: The merges defined for a multi-label target (the joint and blended stackers are
#: multinomial: one distribution over classes, not one probability per label).
MULTILABEL_MERGES = ("average", "stack", "source", "target")



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
    """``{merge: (F1, held-out decisions)}`` of each merge that could be fitted: the F1
    of the best answer ``predict`` could give from its held-out decisions
    (:func:`~._answers.answer_scores`), the score the candidate is judged by."""
    found = {}
    for name in merges:
        stacked = name == "stack"
        decision = (_stacked_decisions(scores, Y, folds) if stacked
                    else _decisions(scores, name))
        if decision is not None:
            answers = answer_scores(decision, Y, folds, stacked, average)
            found[name] = (answers[best_answer(answers)], decision)
    return found


def _merges_of(scores, merges, merge):
    """The merges compared on view scores (2, m, L): under ``merge="auto"`` the stacker
    only where the two views differ (a symmetric kernel's are one, and a stacker of one
    score twice over costs a regression per label and fold for nothing)."""
    if merge == "auto" and np.allclose(scores[0], scores[1]):
        return tuple(name for name in merges if name != "stack")
    return merges


def select_multilabel(recipes, adjacency, features, Y, train, gammas, *, merge, max_folds,
                      settings, policy, scoring):
    """Choose the kernel, gamma and merge of a multi-label target ``Y`` (m, n_labels) of
    0 and 1 on the labelled nodes ``train``, and fit them.

    Returns ``(kernel, estimator, selection, cv_results, calibrator, rule)``: the
    chosen kernel on all nodes, the fitted :class:`~digraph_askls.AsKLSClassifier`, what
    was chosen, one row per (kernel, gamma, merge) tried, the :class:`LabelCalibrator`
    of a merge without probabilities of its own (None for the stacker) and the rule of
    ``predict``, ``(thresholds, groups)``: the thresholds of the labels' decision
    values (:func:`label_thresholds`; all ``-inf`` where every label is answered, all
    ``inf`` where the most probable ones alone are) and the groups of labels of which
    every node is answered at least the most probable (None, or all the labels as one
    group; :func:`choose_answer`).
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
            for name, (value, decision) in _merge_scores(
                    scores, Y, merge_folds, _merges_of(scores, merges, merge),
                    average).items():
                rows.add(recipe, gamma, "spectral", value, np.nan, name,
                         time.perf_counter() - start, m)
                if best is None or value > best[0]:
                    best = (value, recipe, kernel, decomposition, float(gamma), name,
                            scores, mean_model, decision)
    if best is None:
        raise ValueError("no candidate kernel and gamma gave a solvable system on the "
                         "labelled nodes; pass another kernel or gamma")
    return _fit_best(best, Y, targets, folds, settings, scoring, rows, policy)


def _fresh_answer(decomposition, targets, Y, gamma, name, n_folds, settings, scoring,
                  policy):
    """The answer of ``predict`` (:func:`~._answers.choose_answer`) chosen on held-out
    decisions of new folds: the winner was chosen among the candidates on the selection's
    folds, whose decisions flatter it against the trivial answers."""
    seed = settings.random_state
    if isinstance(seed, (int, np.integer)):
        seed = int(seed) + 1                    # other folds than the selection's
    folds = make_folds(np.zeros(Y.shape[0], dtype=int), n_folds, seed)
    scores, _ = decomposition.fold_scores(targets, gamma, folds)
    decision = (_stacked_decisions(scores, Y, folds) if name == "stack"
                else _decisions(scores, name))
    if decision is None:                        # a fold left a label one-sided
        decision, name = _decisions(scores, "average"), "average"
    return choose_answer(decision, Y, folds, name == "stack", scoring, policy)[0]


def _fit_best(best, Y, targets, folds, settings, scoring, rows, policy):
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
    answer = _fresh_answer(decomposition, targets, Y, gamma, name,
                           min(len(folds), policy.merge_folds), settings, scoring, policy)
    proba = None if calibrator is None else calibrator.predict_proba(decision)
    return (kernel, estimator, selection, rows.columns(RANK_TIES["folds"]), calibrator,
            rule_of(answer, label_thresholds(decision, Y), calibrator, proba, Y,
                         MULTILABEL_SCORES[scoring]))
