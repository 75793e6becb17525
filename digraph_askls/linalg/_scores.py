"""AsK-LS solved by CG whose products also give the view scores of every other sample.

A product with the inner block ``H = [[I/g, K], [K^T, I/g]]`` needs ``K b`` and
``K^T a`` on the training samples. When the kernel is known on a larger set (a graph's
walk kernel on all its nodes), these products come as ``K(all, train) b`` and
``K(train, all)^T a`` on every sample at no extra cost. CG's solution is a sum of its
search directions, ``x = sum_j alpha_j p_j``, so the same sums of those products are
the view scores ``f_s = K(all, train) b~ + b1`` and ``f_t = K(train, all)^T a~ + b2``
of every sample: the model predicts without one more product.

The two intercepts are eliminated by projection: CG runs on vectors whose ``a~`` and
``b~`` parts sum to zero (the system's first two rows), and the intercepts follow from
the residual. No extra columns are carried for them.
"""

from typing import NamedTuple

import numpy as np

from ._result import SolverResult

__all__ = ["ViewSolution", "solve_with_scores"]


class ViewSolution(NamedTuple):
    """What :func:`solve_with_scores` returns.

    Attributes
    ----------
    intercepts : ndarray of shape (2, k)
        ``b1`` and ``b2``.
    dual : ndarray of shape (2, m, k)
        ``a~`` and ``b~``.
    source, target : ndarray of shape (n_all, k)
        ``K(all, train) b~`` and ``K(train, all)^T a~``: the view scores of every
        sample without their intercepts (in the products' precision; add
        ``intercepts[0]`` and ``intercepts[1]``).
    result : SolverResult
        ``x`` in the layout of :class:`AsKLSSystem` (``[b1, b2, a~, b~]``).
    """

    intercepts: np.ndarray
    dual: np.ndarray
    source: np.ndarray
    target: np.ndarray
    result: SolverResult


class NotPositiveDefinite(np.linalg.LinAlgError):
    """The inner block is not positive definite on the constraint space (``g s_max >= 1``)."""


#: Largest number of entries of a CG block held in double precision.
LARGE_BLOCK = 2 ** 25


def _add_scaled(Y, a, X):
    """``Y += a * X`` for a vector ``a`` of column weights, one column at a time (no
    temporary of the size of ``X``)."""
    for j in np.flatnonzero(a):
        Y[:, j] += a[j] * X[:, j]


def _centre(V, m):
    """Subtract the mean of each column of the ``a~`` and the ``b~`` part, in place."""
    V[:m] -= V[:m].mean(axis=0)
    V[m:] -= V[m:].mean(axis=0)
    return V


def solve_with_scores(products, rows, n_all, Y, gamma, *, rtol=1e-4, maxiter=None):
    """Solve the label-free AsK-LS system and score every sample from the same products.

    Parameters
    ----------
    products : callable
        ``products(B, A)`` returns ``(K(all, train) @ B, K(train, all)^T @ A)``, both of
        shape (n_all, k), for blocks ``B`` and ``A`` of shape (m, k) on the training
        samples.
    rows : ndarray of int, shape (m,)
        Positions of the training samples among all samples (no repeats).
    n_all : int
        Number of all samples.
    Y : ndarray of shape (m, k)
        Labels in {-1, +1}, one column per one-vs-rest problem.
    gamma : float
    rtol : float, default=1e-4
        Stop when ``||r - M x|| <= rtol ||r||`` for the whole saddle system ``M`` in every
        column (the constraint rows hold exactly). Near the solution the relative error of
        ``a~, b~``, and so of the scores' kernel parts, is about this residual, whatever
        the size of ``gamma``.
    maxiter : int, optional
        Default ``10 * m``.

    Returns
    -------
    ViewSolution

    Raises
    ------
    NotPositiveDefinite
        When CG breaks down (``gamma * s_max(K) >= 1``); solve with
        :func:`solve_system` instead.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.linalg import AsKLSSystem, solve_system
    >>> from digraph_askls.linalg._scores import solve_with_scores
    >>> rng = np.random.default_rng(0)
    >>> K_all = rng.random((6, 6)) / 6          # a kernel on 6 samples, 4 of them training
    >>> rows = np.array([0, 2, 3, 5])
    >>> def products(B, A):
    ...     return K_all[:, rows] @ B, K_all[rows, :].T @ A
    >>> Y = np.array([[1.0], [1.0], [-1.0], [-1.0]])
    >>> solution = solve_with_scores(products, rows, 6, Y, gamma=0.5, rtol=1e-12)
    >>> reference = solve_system(AsKLSSystem(K_all[np.ix_(rows, rows)], 0.5), Y, rtol=1e-12)
    >>> bool(np.allclose(solution.result.x, reference.x))
    True
    """
    Y = np.asarray(Y, dtype=np.float64)
    rows = np.asarray(rows)
    m, k = Y.shape
    g = float(gamma)
    limit = 10 * m if maxiter is None else int(maxiter)
    norms = np.sqrt(2.0 * np.einsum("ij,ij->j", Y, Y))          # ||[0; 0; y; y]||
    target = rtol * norms
    # Four blocks of 2m x k live through the iteration: on millions of training samples
    # they are held in single precision (a relative rounding of 1e-7; the tolerances
    # are 1e-4 and the kernels' products are single precision there too).
    dtype = np.float64 if 2 * m * k <= LARGE_BLOCK else np.float32

    def apply(P):
        """``Pi H P`` and the products on all rows (the caller's to modify)."""
        forward, backward = products(P[m:], P[:m])        # K(all, T) b, K(T, all)^T a
        HP = P / dtype(g)
        HP[:m] += forward[rows]
        HP[m:] += backward[rows]
        return _centre(HP, m), forward, backward

    X = np.zeros((2 * m, k), dtype=dtype)
    R = np.empty((2 * m, k), dtype=dtype)
    R[:m], R[m:] = Y, Y
    _centre(R, m)
    P = R.copy()
    rr = np.einsum("ij,ij->j", R, R, dtype=np.float64)
    source = target_scores = None
    n_iter, info = 0, 0
    active = np.sqrt(rr) > target
    while active.any():
        if n_iter >= limit:
            info = n_iter
            break
        n_iter += 1
        Q, forward, backward = apply(P)
        pq = np.einsum("ij,ij->j", P, Q, dtype=np.float64)
        if np.any(active & (pq <= 0)):
            raise NotPositiveDefinite(
                f"CG on the inner block broke down (p^T H p = {pq[active].min():.3e}): "
                f"gamma * s_max(K) >= 1")
        alpha = np.where(active, rr / np.where(pq > 0, pq, 1.0), 0.0)
        _add_scaled(X, alpha, P)
        _add_scaled(R, -alpha, Q)
        del Q
        forward *= alpha.astype(forward.dtype)
        backward *= alpha.astype(backward.dtype)
        if source is None:
            source, target_scores = forward, backward
        else:
            source += forward
            target_scores += backward
        del forward, backward
        rr, rr_old = np.einsum("ij,ij->j", R, R, dtype=np.float64), rr
        active &= np.sqrt(rr) > target
        if not active.any():
            break
        beta = np.where(active, rr / np.where(rr_old > 0, rr_old, 1.0), 0.0)
        P *= beta.astype(dtype)
        P += R
    del P, R
    if source is None:       # zero labels: nothing to solve
        source, target_scores = np.zeros((n_all, k)), np.zeros((n_all, k))
    # Rows a~/g + K b~ + b1 = y: the intercepts make the residual's mean vanish.
    y_mean = Y.mean(axis=0)
    intercepts = np.vstack([y_mean - source[rows].mean(axis=0, dtype=np.float64),
                            y_mean - target_scores[rows].mean(axis=0, dtype=np.float64)])
    x = np.empty((2 + 2 * m, k))
    x[:2], x[2:] = intercepts, X
    del X
    residual = np.sqrt(rr) / np.where(norms > 0, norms, 1.0)
    result = SolverResult(x, info, n_iter, residual, "cg-scores")
    return ViewSolution(intercepts, x[2:].reshape(2, m, k), source, target_scores, result)
