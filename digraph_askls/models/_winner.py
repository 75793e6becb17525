"""The winner's merge, and the fitted estimator assembled from its folds."""

import numpy as np

from ._askls import AsKLSClassifier
from ._folds import label_columns
from ._merges import merge_estimates, ranking_score
from ._stackers import fit_temperature, view_logits

__all__ = ["MERGE_CV_MAX", "STACKING", "assemble", "choose_merge"]

#: Up to this many labelled nodes the winner's merges are compared by cross-validation;
#: above, the joint stacker is kept (it reads patterns across classes, and with this
#: many nodes it no longer overfits) and its estimate comes from the ranking score.
MERGE_CV_MAX = 2000

#: The merges that fit stackers on the out-of-fold scores.
STACKING = ("joint", "blend", "stack")


def choose_merge(scores, codes, folds, merges):
    """The merge to fit, and the class codes its held-out predictions give the labelled
    nodes.

    Up to :data:`MERGE_CV_MAX` labelled nodes the merges themselves are cross-validated
    on the out-of-fold scores, and the one of the best held-out accuracy wins, its Brier
    score breaking ties (the accuracy is what is reported, and what the Brier score does
    not always follow: a mean view whose probabilities are poorly calibrated can still
    rank the classes best). Above :data:`MERGE_CV_MAX` nodes the joint stacker is kept
    and its least-squares stand-in gives the predictions.
    """
    if codes.size <= MERGE_CV_MAX:
        estimates = merge_estimates(scores, codes, folds, merges)
        if estimates:
            chosen = max(estimates, key=lambda name: (estimates[name][1], estimates[name][0]))
            return chosen, np.argmax(estimates[chosen][2], axis=1)
    chosen = merges[0] if len(merges) == 1 else "joint"
    predictions = ranking_score(scores, codes, (chosen,), return_predictions=True)[3]
    return chosen, np.argmax(predictions, axis=1)


def assemble(best, merge, classes, codes, params):
    """The fitted :class:`AsKLSClassifier` of the winner, from its folds: the stackers
    learn the out-of-fold scores, the mean fold model scores new nodes for them, the
    model on all labelled nodes (where there is one) for the mean view."""
    oof = best["oof"]
    m = codes.size
    estimator = AsKLSClassifier(kernel="precomputed", **dict(
        params, gamma=best["gamma"], merge=merge, n_folds=len(best["folds"])))
    estimator._validate_params()
    estimator.classes_ = classes
    estimator.shape_fit_ = (m, m)
    full = oof.full_model if oof.full_model is not None else oof.mean_model
    estimator._set_coefficients(*full)
    estimator.stack_folds_ = [(np.arange(m), *oof.mean_model)]
    estimator.solver_result_ = oof.result
    estimator.n_iter_ = 0 if oof.result is None else oof.result.n_iter
    if merge in STACKING:
        estimator._fit_stackers(oof.scores.transpose(1, 0, 2), codes, label_columns(codes))
    else:
        views = oof.scores if merge == "average" else oof.scores[[int(merge == "target")]]
        mean = views.mean(axis=0)
        estimator.view_temperature_ = fit_temperature(view_logits(mean, 1), codes)
    return estimator
