"""K-fold refits of AsK-LS from the SVD of the whole training kernel.

Leaving a block of samples out is the leave-one-out of
:class:`~digraph_askls.linalg.SpectralAsKLS` with a larger index set. For the held-out
samples ``I`` of a fold, let ``J`` hold their unknowns ``a~_I, b~_I``. The model trained on
the other samples is ``x_f = x + M^-1 E_J t`` with ``t = -((M^-1)_{JJ})^-1 x_J`` (the
entries ``J`` of ``x_f`` vanish, and every other row of the system holds), and it scores
the held-out samples at ``[f_s; f_t]_I = [y_I; y_I] + t``. ``(M^-1)_{JJ}`` is a
``2p x 2p`` block that the SVD gives in ``O(p^2 r)``; all the folds cost ``O(m^2 r / K)``.

The mean of the fold models, ``x + M^-1 (sum_f E_{J_f} t_f) / K``, is one more solve with
``k`` right-hand sides: fold stacking predicts new samples with it (the view scores are
linear in the coefficients, so the mean model scores a sample at the mean of the fold
models' scores).

Out-of-fold scores, unlike leave-one-out ones, carry no trace of the held-out sample's own
label through the intercepts: with a strongly regularised model (scores near the class
shares of the training labels) removing one sample lowers its own class's intercept, and
leave-one-out scores then point *away* from the true class, an artefact that a stacker
learns and that new samples do not show. Stratified folds leave the class shares of each
fold's training set as they are.
"""

import warnings

import numpy as np
import scipy
import scipy.linalg as sla
from sklearn.utils.fixes import parse_version

from ._dense import _one_blas_thread
from ._result import SingularSystemError

# SciPy solves stacks of systems in one call from 1.15 on (one LAPACK call per system).
_BATCHED_SOLVE = parse_version(scipy.__version__) >= parse_version("1.15")

__all__ = ["spectral_fold_scores"]


def spectral_fold_scores(spectral, Y, gamma, folds):
    """Out-of-fold view scores and the mean fold model, from one decomposition.

    Parameters
    ----------
    spectral : SpectralAsKLS
    Y : ndarray of shape (m,) or (m, k)
        Label columns (``+1`` / ``-1``).
    gamma : float
    folds : sequence of ndarray of int
        The held-out samples of each fold: disjoint, covering ``0 .. m - 1``.

    Returns
    -------
    scores : ndarray of shape (2, m, k)
        ``scores[0, i]`` and ``scores[1, i]``: source and target view scores of sample
        ``i`` under the model trained without its fold.
    mean_model : tuple (intercepts (2, k), dual (2, m, k))
        The coefficients of the mean of the fold models (zero-padded on their folds).

    Raises
    ------
    SingularSystemError
        When the full system, or the system of some fold, is singular at ``gamma``.
    ValueError
        When ``folds`` do not partition the samples.
    """
    Y = spectral._labels(Y)
    m, k = Y.shape
    _check_folds(folds, m)
    # Many small products: one BLAS thread (threaded BLAS slows them down by an order of
    # magnitude when another process holds a core).
    with _one_blas_thread():
        return _fold_scores(spectral, Y, gamma, folds)


def _fold_scores(spectral, Y, gamma, folds):
    m, k = Y.shape
    coefficients = spectral._coefficients(gamma)
    (ZEa, ZEb, S), intercepts, dual = spectral._solve_rhs(coefficients, Y, Y)
    g, c_minus_g, e = coefficients
    S_inverse = np.linalg.inv(S)
    scores = np.empty((2, m, k))
    shift = np.zeros((2, m, k))
    rank = spectral.rank
    signed_copy = getattr(spectral, "_signed_copy", False)
    # Folds of one size are refitted together: their blocks stacked, one batched product
    # per term and one batched solve, the same LAPACK call on every fold as one at a time
    # (so the same numbers), without the Python work of many small calls.
    for held in _same_size_groups(folds):
        p = held.shape[1]
        Z = np.concatenate([ZEa[held], ZEb[held]], axis=1)
        x_held = np.concatenate([dual[0][held], dual[1][held]], axis=1)
        if 2 * rank + 2 < 2 * p:
            # The rows of one fold at a time: the rows of every fold at once are copies
            # of P and Q as large as they are.
            t = -np.stack([_solve_low_rank(coefficients, spectral.P[rows], spectral.Q[rows],
                                           Z[i], S_inverse, x_held[i])
                           for i, rows in enumerate(held)])
        else:
            P, Q = spectral.P[held], spectral.Q[held]
            # (H^-1)_{JJ}, then the intercepts' rank-2 correction (H^-1 E)_J S^-1 (H^-1 E)_J^T.
            identity = g * np.eye(p)
            upper_left = (P * c_minus_g) @ P.transpose(0, 2, 1) + identity
            # A symmetric kernel's Q is P with signed columns: the same block (the sign
            # products are exact, so the two are equal to the last bit).
            lower_right = upper_left if signed_copy \
                else (Q * c_minus_g) @ Q.transpose(0, 2, 1) + identity
            off = (P * e) @ Q.transpose(0, 2, 1)
            block = np.empty((len(held), 2 * p, 2 * p))
            block[:, :p, :p], block[:, :p, p:] = upper_left, off
            block[:, p:, :p], block[:, p:, p:] = off.transpose(0, 2, 1), lower_right
            block -= Z @ S_inverse @ Z.transpose(0, 2, 1)
            t = -_solve_symmetric(block, x_held, p)
        for i, rows in enumerate(held):
            shift[0, rows], shift[1, rows] = t[i, :p], t[i, p:]
            scores[0, rows], scores[1, rows] = Y[rows] + t[i, :p], Y[rows] + t[i, p:]
    _, extra_intercepts, extra_dual = spectral._solve_rhs(
        coefficients, shift[0] / len(folds), shift[1] / len(folds), keep=False)
    # With error weights everything above is in the rescaled unknowns and rows.
    unscale_dual = getattr(spectral, "_unscaled_dual", lambda dual: dual)
    unscale_scores = getattr(spectral, "_unscaled_scores", lambda scores: scores)
    return unscale_scores(scores), (intercepts + extra_intercepts,
                                    unscale_dual(dual + extra_dual))


def _same_size_groups(folds):
    """The folds as (n_folds_of_that_size, size) index arrays, one per size, in order."""
    sizes = {}
    for held in folds:
        sizes.setdefault(len(held), []).append(np.asarray(held))
    return [np.stack(group) for group in sizes.values()]


def _solve_low_rank(coefficients, P, Q, Z, S_inverse, rhs):
    """``((M^-1)_{JJ})^-1 rhs`` when the rank ``r`` of the kernel is below the fold size.

    ``(M^-1)_{JJ} = g I + W D W^T`` with ``W = [diag(P_I, Q_I), Z]`` (``2p x (2r + 2)``)
    and ``D`` the block diagonal of ``[[diag(c - g), diag(e)], [diag(e), diag(c - g)]]``
    and ``-S^-1``; by the Woodbury identity (in the form that never inverts ``D``) its
    inverse is ``(I - W D (g I + W^T W D)^-1 W^T) / g``: ``O(p r^2)`` instead of
    ``O(p^3)``.
    """
    g, c_minus_g, e = coefficients
    p, r = P.shape
    W = np.zeros((2 * p, 2 * r + 2))
    W[:p, :r], W[p:, r:2 * r], W[:, 2 * r:] = P, Q, Z
    D = np.zeros((2 * r + 2, 2 * r + 2))
    diagonal = np.arange(r)
    D[diagonal, diagonal] = D[r + diagonal, r + diagonal] = c_minus_g
    D[diagonal, r + diagonal] = D[r + diagonal, diagonal] = e
    D[2 * r:, 2 * r:] = -S_inverse
    inner = g * np.eye(2 * r + 2) + (W.T @ W) @ D
    with warnings.catch_warnings():
        warnings.simplefilter("error", sla.LinAlgWarning)
        try:
            correction = sla.solve(inner, W.T @ rhs)
        except (np.linalg.LinAlgError, sla.LinAlgError, sla.LinAlgWarning):
            raise SingularSystemError(
                f"the system of a fold is singular: leaving {p} training samples out "
                "leaves a singular system") from None
    return (rhs - W @ (D @ correction)) / g


def _solve_symmetric(block, rhs, p):
    """``block^-1 rhs`` for a stack of symmetric blocks (n, 2p, 2p) and rhs (n, 2p, k)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", sla.LinAlgWarning)
        try:
            if _BATCHED_SOLVE:
                return sla.solve(block, rhs, assume_a="sym")
            return np.stack([sla.solve(b, r, assume_a="sym") for b, r in zip(block, rhs)])
        except (np.linalg.LinAlgError, sla.LinAlgError, sla.LinAlgWarning):
            raise SingularSystemError(
                f"the system of a fold is singular: leaving {p} training samples out "
                "leaves a singular system") from None


def _check_folds(folds, m):
    seen = np.zeros(m, dtype=int)
    for held in folds:
        held = np.asarray(held)
        if held.ndim != 1 or held.size == 0 or not np.issubdtype(held.dtype, np.integer):
            raise ValueError(f"each fold must be a non-empty 1-d array of sample indices, "
                             f"got {held.dtype} of shape {held.shape}")
        if held.min() < 0 or held.max() >= m:
            raise ValueError(f"fold indices must lie in [0, {m}), got [{held.min()}, "
                             f"{held.max()}]")
        np.add.at(seen, held, 1)
    if len(folds) < 2 or not np.all(seen == 1):
        raise ValueError(f"folds must split the {m} samples into at least 2 disjoint parts "
                         f"that cover them all; {int(np.sum(seen == 0))} left out, "
                         f"{int(np.sum(seen > 1))} in several folds")
