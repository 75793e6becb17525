"""How the two views become one prediction, and how well each way predicts held-out nodes.

A merge maps the view scores of a node (source and target, one column per class) to
class probabilities: ``"average"`` (the paper's mean of the views, through a softmax whose
temperature is fitted on the labelled nodes), ``"joint"`` (one multinomial logistic
regression on both views of all classes), ``"blend"`` (half of each), ``"stack"`` (the
authors' logistic regression per class) or one view alone. The stackers learn from
out-of-fold scores (:mod:`~digraph_askls.models._folds`); their accuracy on nodes they
did not learn from is measured by cross-validation over the same folds
(:func:`merge_estimates`), which is what ``selection_["accuracy"]`` reports.
"""

import numpy as np

from ..linalg._dense import _one_blas_thread
from ._stackers import (BlendedStacker, fit_temperature, joint_logistic_regression,
                        softmax_rows, unpenalized_logistic_regression, view_logits)

__all__ = ["AUTO_MERGES", "merge_estimates", "merge_probabilities", "ranking_score"]

#: Merges that ``merge="auto"`` compares at the winning kernel.
AUTO_MERGES = ("joint", "blend", "average")

#: Ridge penalty (per sample) of the least-squares stacker that ranks candidates.
STACKER_RIDGE = 1e-3


def _views(scores, merge):
    """The views a merge reads, (n_views, n, k)."""
    if merge == "source":
        return scores[:1]
    if merge == "target":
        return scores[1:]
    return scores


def _columns(proba, present, n_classes):
    """Probabilities over all ``n_classes`` codes from a model that saw ``present``."""
    full = np.zeros((proba.shape[0], n_classes))
    full[:, present] = proba
    return full


def merge_probabilities(merge, train_scores, train_codes, test_scores, n_classes):
    """Class probabilities of the nodes ``test_scores`` under a merge fitted on the nodes
    ``train_scores`` (both (n_views, n, k) view scores), columns ``0 .. n_classes - 1``.

    Returns None when the merge cannot be fitted on these nodes (the per-class stackers
    need both sides of every one-vs-rest column).
    """
    train_scores, test_scores = _views(train_scores, merge), _views(test_scores, merge)
    n_views, m, k = train_scores.shape
    flat_train = train_scores.transpose(1, 0, 2).reshape(m, -1)
    flat_test = test_scores.transpose(1, 0, 2).reshape(test_scores.shape[1], -1)
    present = np.unique(train_codes)
    if merge in ("average", "source", "target"):
        logits = view_logits(flat_train, n_views)
        temperature, scale = fit_temperature(logits, train_codes)
        proba = softmax_rows(temperature * view_logits(flat_test, n_views) / scale)
        return proba if proba.shape[1] == n_classes else _columns(proba[:, present], present,
                                                                  n_classes)
    with _one_blas_thread():
        if merge in ("joint", "blend"):
            if present.size < 2:
                return None
            model = (BlendedStacker(n_views) if merge == "blend"
                     else joint_logistic_regression()).fit(flat_train, train_codes)
            return _columns(model.predict_proba(flat_test), model.classes_, n_classes)
        if merge == "stack":
            return _stack_probabilities(train_scores, train_codes, test_scores, n_classes)
    raise ValueError(f"no cross-validated estimate for merge {merge!r}")


def _stack_probabilities(train_scores, train_codes, test_scores, n_classes):
    k = train_scores.shape[2]
    columns = []
    for column in range(k):
        target = (train_codes == column).astype(int) if k > 1 else (train_codes == 1).astype(int)
        if target.min() == target.max():
            return None
        model = unpenalized_logistic_regression().fit(train_scores[:, :, column].T, target)
        columns.append(model.predict_proba(test_scores[:, :, column].T)[:, 1])
    proba = np.column_stack(columns)
    if k == 1:
        return np.column_stack([1.0 - proba[:, 0], proba[:, 0]])
    total = proba.sum(axis=1, keepdims=True)
    return proba / np.where(total > 0, total, 1.0)


def merge_estimates(scores, codes, folds, merges):
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
    merges : sequence of str

    Returns
    -------
    dict
        merge -> ``(score, accuracy, proba)``: one minus the Brier score of the held-out
        predictions, their accuracy and the held-out class probabilities (m, n_classes);
        merges that could not be fitted on some fold are left out.
    """
    n_classes = int(codes.max()) + 1
    targets = np.zeros((codes.size, n_classes))
    targets[np.arange(codes.size), codes] = 1.0
    everything = np.arange(codes.size)
    estimates = {}
    for merge in merges:
        proba = np.empty((codes.size, n_classes))
        for held in folds:
            train = np.setdiff1d(everything, held)
            fold = merge_probabilities(merge, scores[:, train], codes[train], scores[:, held],
                                       n_classes)
            if fold is None:
                break
            proba[held] = fold
        else:
            estimates[merge] = (
                1.0 - float(np.mean(np.sum((targets - proba) ** 2, axis=1))),
                float(np.mean(np.argmax(proba, axis=1) == codes)), proba)
    return estimates


def _ridge_loo_predictions(scores, codes, ridge):
    """One-hot targets and the leave-one-out predictions of the least-squares stacker."""
    n_views, m, k = scores.shape
    Z = scores.transpose(1, 0, 2).reshape(m, n_views * k)
    Z = Z - Z.mean(axis=0)
    spread = Z.std(axis=0)
    Z = np.divide(Z, spread, out=np.zeros_like(Z), where=spread > 1e-12 * (1 + spread.max()))
    Z = np.hstack([Z, np.ones((m, 1))])
    n_classes = int(codes.max()) + 1
    T = np.zeros((m, n_classes))
    T[np.arange(m), codes] = 1.0
    penalty = ridge * m * np.ones(Z.shape[1])
    penalty[-1] = 0.0                                    # the intercept is not penalised
    inverse = np.linalg.pinv(Z.T @ Z + np.diag(penalty))
    W = inverse @ (Z.T @ T)
    leverage = np.einsum("ij,jk,ik->i", Z, inverse, Z)
    residual = (T - Z @ W) / np.maximum(1.0 - leverage, 1e-12)[:, None]
    return T, T - residual


def _quality(T, P, codes):
    return 1.0 - float(np.mean(np.sum((T - P) ** 2, axis=1))), float(
        np.mean(np.argmax(P, axis=1) == codes))


def ranking_score(scores, codes, merges, ridge=STACKER_RIDGE, return_predictions=False):
    """The score that ranks candidate (kernel, gamma) pairs: a held-out accuracy.

    Cheap stand-ins for the merges, on out-of-fold scores: a least-squares stacker on
    the standardised scores of all views and classes, left out one node at a time in
    closed form (PRESS residuals ``e_i / (1 - h_ii)``), for the stacking merges; the
    mean view (its arg-max) for ``"average"``; their half-half blend, the mean view
    through a softmax whose temperature is fitted on the same scores, for ``"blend"``.
    The best of ``merges`` counts. The score is the accuracy of those predictions plus
    a tie-breaker below the accuracy's resolution: ``(1 - Brier) / (m + 1)``. Brier alone
    would prefer a model that hedges (near-uniform probabilities, barely above chance)
    to one that is right more often but sometimes confidently wrong.

    Returns
    -------
    score, accuracy, merge : float, float, str
    predictions : ndarray of shape (m, n_classes)
        With ``return_predictions``: the held-out predictions of the best merge.
    """
    m = codes.size
    n_classes = int(codes.max()) + 1
    T = np.zeros((m, n_classes))
    T[np.arange(m), codes] = 1.0
    results, predictions = {}, {}
    stacked = None
    if any(merge in ("joint", "stack", "blend") for merge in merges):
        stacked = _ridge_loo_predictions(scores, codes, ridge)[1]
        for merge in ("joint", "stack"):
            if merge in merges:
                results[merge], predictions[merge] = _quality(T, stacked, codes), stacked
    for merge in ("average", "source", "target", "blend"):
        if merge not in merges:
            continue
        views = _views(scores, "average" if merge == "blend" else merge)
        flat = views.transpose(1, 0, 2).reshape(m, -1)
        logits = view_logits(flat, views.shape[0])
        temperature, scale = fit_temperature(logits, codes)
        calibrated = softmax_rows(temperature * logits / scale)
        if merge == "blend":
            calibrated = 0.5 * (stacked + calibrated)
        results[merge], predictions[merge] = _quality(T, calibrated, codes), calibrated
    ranked = {merge: accuracy + brier / (m + 1) for merge, (brier, accuracy) in results.items()}
    best = max(ranked, key=ranked.get)
    if return_predictions:
        return ranked[best], results[best][1], best, predictions[best]
    return ranked[best], results[best][1], best
