"""The winner's merge, and the fitted estimator assembled from its folds."""

import numpy as np

from ._askls import AsKLSClassifier
from ._folds import label_columns
from ._merges import merge_estimates, ranking_score
from ._stackers import fit_temperature, view_logits

__all__ = ["MERGE_CV_MAX", "STACKING", "assemble", "choose_merge", "selection_optimism"]

#: Up to this many labelled nodes the winner's merges are compared by cross-validation;
#: above, the joint stacker is kept (it reads patterns across classes, and with this
#: many nodes it no longer overfits) and its estimate comes from the ranking score.
MERGE_CV_MAX = 2000

#: The merges that fit stackers on the out-of-fold scores.
STACKING = ("joint", "blend", "stack")


def choose_merge(scores, codes, folds, merges):
    """The merge to fit, the class codes its held-out predictions give the labelled nodes,
    and the optimism of choosing it (:func:`selection_optimism`).

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
            names = list(estimates)
            chosen = max(names, key=lambda name: (estimates[name][1], estimates[name][0]))
            hits = np.array([np.argmax(estimates[name][2], axis=1) == codes for name in names])
            return (chosen, np.argmax(estimates[chosen][2], axis=1),
                    selection_optimism(hits, names.index(chosen), folds))
    chosen = merges[0] if len(merges) == 1 else "joint"
    predictions = ranking_score(scores, codes, (chosen,), return_predictions=True)[3]
    return chosen, np.argmax(predictions, axis=1), 0.0


def selection_optimism(hits, chosen, folds):
    """How much choosing the best of several configurations by held-out accuracy flatters
    it (Tibshirani and Tibshirani, "A bias correction for the minimum error rate in
    cross-validation", Annals of Applied Statistics 2009): the mean over the folds of the
    best configuration's accuracy on the fold less the chosen one's.

    Parameters
    ----------
    hits : ndarray of bool, shape (n_configurations, m)
        Whether each configuration's held-out prediction of each node is right.
    chosen : int
        The configuration chosen on all the folds.
    folds : list of ndarray of int
        Held-out nodes of each fold.

    Returns
    -------
    float
        The optimism, at least 0; 0 with one configuration.

    Examples
    --------
    >>> import numpy as np
    >>> hits = np.array([[1, 1, 0, 0], [0, 0, 1, 1]], dtype=bool)   # each wins a fold
    >>> float(selection_optimism(hits, 0, [np.array([0, 1]), np.array([2, 3])]))
    0.5
    """
    if len(hits) < 2:
        return 0.0
    per_fold = np.array([hits[:, fold].mean(axis=1) for fold in folds if fold.size])
    return float(np.mean(per_fold.max(axis=1) - per_fold[:, chosen]))


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
