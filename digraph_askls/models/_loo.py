"""Exact leave-one-out view scores: the out-of-sample features of the stackers, for free.

Once the training kernel is decomposed (:class:`~digraph_askls.linalg.SpectralAsKLS`),
the leave-one-out scores of both views cost ``O(m r)`` per class: they replace the
``n_folds`` solves of fold stacking, and the same numbers score a candidate kernel and
gamma during selection.
"""

import numpy as np
from scipy import sparse

from ..kernels import dense_block
from ..linalg import SpectralAsKLS
from ._stackers import fit_temperature, softmax_rows, view_logits

__all__ = ["blend_score", "loo_accuracy", "spectral_of", "stacking_score"]

#: Ridge penalty (per sample) of the least-squares stacker that scores candidates.
STACKER_RIDGE = 1e-3


def spectral_of(K):
    """Decompose a training kernel for :class:`SpectralAsKLS`, the cheaper way.

    Explicit feature maps with fewer features than samples go through a thin SVD of
    the maps (``O(m d^2)``); anything else is formed densely (memory-guarded) and
    decomposed whole (``O(m^3)``).
    """
    m = K.shape[0]
    factors = getattr(K, "factors", None)
    if callable(factors) and getattr(K, "n_features", m) < m:
        return SpectralAsKLS(factors=factors())
    if isinstance(K, np.ndarray):
        return SpectralAsKLS(K)
    if sparse.issparse(K):
        return SpectralAsKLS(K.toarray())
    return SpectralAsKLS(dense_block(K, np.arange(m), np.arange(K.shape[1])))


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


def _brier(T, P, codes):
    return 1.0 - float(np.mean(np.sum((T - P) ** 2, axis=1))), float(
        np.mean(np.argmax(P, axis=1) == codes))


def stacking_score(scores, codes, ridge=STACKER_RIDGE):
    """Leave-one-out quality of a least-squares stacker on out-of-sample view scores.

    The stacker maps the standardised scores of all views and classes to one-hot
    targets by ridge regression; its leave-one-out residuals are closed-form
    (``e_i / (1 - h_ii)``, the PRESS residuals). It stands in for the logistic stackers,
    whose refits would cost far more, when candidate kernels and gammas are compared:
    scores that are uncalibrated across classes (small gamma) still rank well once
    stacked.

    Parameters
    ----------
    scores : ndarray of shape (n_views, m, k)
        Out-of-sample scores (leave-one-out or out-of-fold).
    codes : ndarray of int, shape (m,)
        Class codes.

    Returns
    -------
    score : float
        ``1 - mean_i ||t_i - t_hat_(-i)||^2``, one minus the Brier score of the
        leave-one-out predictions (higher is better). A proper score varies less from
        sample to sample than the 0/1 accuracy, which matters on small training sets.
    accuracy : float
        The leave-one-out accuracy of the stacker's arg-max.
    """
    T, P = _ridge_loo_predictions(scores, codes, ridge)
    return _brier(T, P, codes)


def blend_score(scores, codes, ridge=STACKER_RIDGE):
    """:func:`stacking_score` of the blend: half the stacker, half the calibrated mean view.

    The mean view's softmax temperature is the one of least log-loss on the same
    scores (one parameter), as :class:`~digraph_askls.models._stackers.BlendedStacker`
    fits it.
    """
    n_views, m, k = scores.shape
    T, P = _ridge_loo_predictions(scores, codes, ridge)
    flat = scores.transpose(1, 0, 2).reshape(m, -1)
    logits = view_logits(flat, n_views)
    temperature, scale = fit_temperature(logits, codes)
    calibrated = softmax_rows(temperature * logits / scale)
    return _brier(T, 0.5 * (P + calibrated), codes)


def loo_accuracy(scores, codes, binary):
    """Leave-one-out accuracy of the averaged view scores (arg-max, or sign if binary).

    Returned twice, as ``(score, accuracy)`` like :func:`stacking_score`.
    """
    mean = scores.mean(axis=0)
    if binary:
        predicted = (mean[:, 0] > 0).astype(int)
    else:
        predicted = np.argmax(mean, axis=1)
    accuracy = float(np.mean(predicted == codes))
    return accuracy, accuracy
