"""Step 6 of the selection: the winner's merge, and the fitted estimator assembled from
its folds.

A merge maps the view scores of a node (source and target, one column per class) to
class probabilities (:mod:`~digraph_askls.models._merge`). The stackers learn from
out-of-fold scores; their accuracy on nodes they did not learn from is measured by
cross-validation over the same folds (:func:`merge_estimates`), which is what
``selection_["held_out_accuracy"]`` reports (``selection_["accuracy"]`` corrects it for
the choice, :mod:`~._estimate`).
"""

from typing import NamedTuple

import numpy as np

from ...linalg._dense import _one_blas_thread
from .._askls import AsKLSClassifier
from .._calibration import fit_merge_calibrator
from .._merge import Merge, as_merge
from .._mergers import JointMerger, MeanMerger, OneSidedColumn, merger_for
from ._ranking import _views, quality, ranking_score, selection_optimism
from ._scoring import decide, held_out_rows

__all__ = ["MergeChoice", "assemble", "calibrate", "choose_merge", "merge_estimates",
           "merge_probabilities"]


def _columns(proba, present, n_classes):
    """Probabilities over all ``n_classes`` codes from a model that saw ``present``."""
    full = np.zeros((proba.shape[0], n_classes))
    full[:, present] = proba
    return full


def merge_probabilities(merge, train_scores, train_codes, test_scores, n_classes,
                        fitted=None, sample_weight=None):
    """Class probabilities of the nodes ``test_scores`` under a merge fitted on the nodes
    ``train_scores`` (both (n_views, n, k) view scores), columns ``0 .. n_classes - 1``.

    Returns None when the merge cannot be fitted on these nodes (the per-class stackers
    need both sides of every one-vs-rest column). ``merge``: a
    :class:`~digraph_askls.models._merge.Merge` or its name. ``fitted``: a dict shared by
    calls on the same training nodes, where the joint stacker, which the joint and the
    blended merges both fit, is kept by the first and read by the second.
    ``sample_weight``: the class weights of the training nodes (None: unweighted).
    """
    merge = as_merge(merge)
    train_scores = _views(train_scores, merge.combine).transpose(1, 0, 2)
    test_scores = _views(test_scores, merge.combine).transpose(1, 0, 2)
    present = np.unique(train_codes)
    if not merge.stacking:
        proba = MeanMerger().fit(train_scores, train_codes,
                                 sample_weight=sample_weight).predict_proba(test_scores)
        return proba if proba.shape[1] == n_classes else _columns(proba[:, present], present,
                                                                  n_classes)
    if merge.joint and present.size < 2:
        return None
    fitted = {} if fitted is None else fitted
    with _one_blas_thread():
        try:
            if merge.joint and "joint" not in fitted:    # the joint and blended merges'
                fitted["joint"] = JointMerger().fit(
                    train_scores, train_codes, sample_weight=sample_weight).models_[0]
            merger = merger_for(merge).fit(train_scores, train_codes,
                                           sample_weight=sample_weight,
                                           **({"joint": fitted["joint"]} if merge.joint
                                              else {}))
        except OneSidedColumn:
            return None
        proba = merger.predict_proba(test_scores)
    return proba if merge.combine == "stack" else _columns(proba, merger.classes_, n_classes)


def merge_estimates(scores, codes, folds, merges, scoring=None, weights=None):
    """Cross-validated quality of each merge on out-of-fold view scores.

    For each fold the merge is fitted on the other folds' nodes and predicts the fold's
    nodes; every labelled node is predicted once by a merge that did not learn from it,
    from view scores of a model that did not learn from it.

    Parameters
    ----------
    scores : ndarray of shape (2, m, k)
        Out-of-fold view scores.
    codes : ndarray of int, shape (m,)
    folds : list of ndarray of int
        The held-out nodes of each fold (those that made ``scores``).
    merges : sequence of Merge
    scoring : Scoring, optional
        The criterion (:class:`~._scoring.Scoring`); None: the accuracy.
    weights : ndarray of shape (m,), optional
        The class weights of the labelled nodes, the stackers' sample weights.

    Returns
    -------
    dict
        merge -> ``(score, accuracy, proba)``: one minus the Brier score of the held-out
        predictions, their accuracy (their score under ``scoring``) and the held-out
        class probabilities (m, n_classes); merges that could not be fitted on some fold
        are left out.
    """
    n_classes = int(codes.max()) + 1
    targets = np.zeros((codes.size, n_classes))
    targets[np.arange(codes.size), codes] = 1.0
    everything = np.arange(codes.size)
    estimates = {}
    fitted = [{} for _ in folds]        # the joint stacker of each fold, fitted once
    for merge in merges:
        proba = np.empty((codes.size, n_classes))
        for held, kept in zip(folds, fitted):
            train = np.setdiff1d(everything, held)
            fold = merge_probabilities(merge, scores[:, train], codes[train], scores[:, held],
                                       n_classes, fitted=kept, sample_weight=None
                                       if weights is None else weights[train])
            if fold is None:
                break
            proba[held] = fold
        else:
            estimates[merge] = (*quality(targets, proba, codes, scoring), proba)
    return estimates


class MergeChoice(NamedTuple):
    """What :func:`choose_merge` returns (``proba``: the held-out class probabilities of
    the chosen merge, or its stand-in's predictions, (m, n_classes))."""

    merge: Merge
    held_out: np.ndarray
    optimism: float
    rows: object
    chosen_row: int
    proba: object = None


def _costs(scoring):
    return None if scoring is None else scoring.costs


def choose_merge(scores, codes, folds, merges, merge_cv_max, scoring=None, weights=None):
    """The merge to fit, the class codes its held-out predictions give the labelled nodes,
    the optimism of choosing it (:func:`~._ranking.selection_optimism`), the held-out
    rows of each merge compared (:func:`~._scoring.held_out_rows`: whether each predicts
    each labelled node right, (n_merges, m), or its probabilities under another scorer)
    and the row of the chosen merge.

    Up to ``merge_cv_max`` labelled nodes (:class:`~._policy.SelectionPolicy`) the
    merges themselves are cross-validated
    on the out-of-fold scores, and the one of the best held-out accuracy (or score under
    ``scoring``) wins, its Brier score breaking ties (the accuracy is what is reported,
    and what the Brier score does not always follow: a mean view whose probabilities are
    poorly calibrated can still rank the classes best). Above ``merge_cv_max`` nodes the
    joint stacker is kept and its least-squares stand-in gives the predictions.
    ``weights``: the class weights of the labelled nodes (the stackers' sample weights).
    """
    if codes.size <= merge_cv_max:
        estimates = merge_estimates(scores, codes, folds, merges, scoring, weights)
        if estimates:
            names = list(estimates)
            chosen = max(names, key=lambda name: (estimates[name][1], estimates[name][0]))
            rows = held_out_rows([estimates[name][2] for name in names], codes, scoring)
            return MergeChoice(chosen, decide(estimates[chosen][2], _costs(scoring)),
                               selection_optimism(rows, names.index(chosen), folds), rows,
                               names.index(chosen), estimates[chosen][2])
    chosen = merges[0] if len(merges) == 1 else as_merge("joint")
    predictions = ranking_score(scores, codes, (chosen,), return_predictions=True)[3]
    held_out = decide(predictions, _costs(scoring))
    return MergeChoice(chosen, held_out, 0.0, held_out_rows([predictions], codes, scoring), 0,
                       predictions)


def assemble(best, merge, train_codes, settings, joint=None):
    """The fitted :class:`AsKLSClassifier` of the winner ``best`` (a
    :class:`~._ranking.Scored`) under the :class:`~digraph_askls.models._merge.Merge`
    ``merge``, from its folds: the stackers learn the out-of-fold
    scores, the mean fold model scores new nodes for them, the model on all labelled
    nodes (where there is one) for the mean view. ``joint``: the joint stacker that the
    other of the joint and blended merges fitted on the same scores, reused."""
    oof = best.oof
    full = oof.full_model if oof.full_model is not None else oof.mean_model
    return AsKLSClassifier.from_solution(
        train_codes, full, oof.mean_model, oof.result,
        stacking_scores=oof.scores.transpose(1, 0, 2) if merge.stacking else None,
        view_scores=oof.scores, joint=joint, **settings.estimator_params(
            gamma=best.gamma, merge=merge.name, n_folds=len(best.folds)))


def calibrate(estimator, oof, codes):
    """The :class:`~digraph_askls.models._calibration.TemperatureCalibrator` of the
    fitted estimator's probabilities, learnt from its merge's probabilities of the
    labelled nodes' out-of-fold view scores (``oof``; ``codes``: their class codes,
    ``0 ..``): a temperature that grows with the logits' length, blended with the
    merge's own probabilities by a weight that cross-fitted labels choose (none where
    they show no gain), and mixed with the class prior only as far as keeps a handful
    of labels from certainty.

    Each node's view scores come from fold models that did not learn it; the merge read
    them as it reads new nodes' (a stacker fitted on them, the mean view's temperature
    fitted on them). Two other sources were measured on the development draws (seed 0:
    Cora and CiteSeer with 20 labelled nodes per class, five draws each; Texas's ten
    fixed splits pooled) and did not do better: the chosen merge's probabilities held
    out a second time (each fold's merge fitted on the other folds' scores, from the
    merge's cross-validation), and the stackers refitted on five folds of the scores
    (:func:`~digraph_askls.models._calibration.held_out_merge_proba`). Figures on the
    calibration results page.
    """
    return fit_merge_calibrator(estimator, oof.scores.transpose(1, 0, 2), codes,
                                n_folds=None)
