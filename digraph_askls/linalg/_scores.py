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

Error weights (the weighted least-squares SVM, ``diag(1 / (g w))`` in place of ``I / g``)
change only the diagonal of ``H`` and the intercepts, whose rows now read
``b1 = mean(y - a~ / (g w) - K b~)``: the projection onto the constraints is the same.
"""

from typing import NamedTuple

import numpy as np

from ._krylov import BlockCG
from ._result import NotPositiveDefinite, SolverResult

__all__ = ["ViewSolution", "solve_many_with_scores", "solve_with_scores"]


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


#: Largest number of entries of a CG block held in double precision.
LARGE_BLOCK = 2 ** 25


def _centre(V, m):
    """Subtract the mean of each column of the ``a~`` and the ``b~`` part, in place."""
    V[:m] -= V[:m].mean(axis=0)
    V[m:] -= V[m:].mean(axis=0)
    return V


def solve_with_scores(products, rows, n_all, Y, gamma, *, rtol=1e-4, maxiter=None,
                      weights=None):
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
    weights : ndarray of shape (m,), optional
        Error weights of the training samples (see :class:`AsKLSSystem`).

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
    return solve_many_with_scores(lambda blocks: [products(*blocks[0][1:])],
                                  [(rows, Y, weights)], n_all, gamma, rtol=rtol,
                                  maxiter=maxiter)[0]


def _breakdown(pq, active):
    return NotPositiveDefinite(
        f"CG on the inner block broke down (p^T H p = {pq[active].min():.3e}):"
        f" gamma * s_max(K) >= 1")


class _Problem:
    """One training set: projected CG (:class:`BlockCG`) on its inner block, and the
    scores gathered from the products of its directions."""

    def __init__(self, rows, Y, rtol, weights=None):
        self.rows = np.asarray(rows)
        self.Y = np.asarray(Y, dtype=np.float64)
        self.m, self.k = self.Y.shape
        self.weights = None
        if weights is not None:
            from ._system import check_error_weights

            self.weights = check_error_weights(weights, self.m)
        self.norms = np.sqrt(2.0 * np.einsum("ij,ij->j", self.Y, self.Y))   # ||[0; 0; y; y]||
        # Four blocks of 2m x k live through the iteration: on millions of training
        # samples they are held in single precision (a relative rounding of 1e-7; the
        # tolerances are 1e-4 and the kernels' products are single precision there too).
        self.dtype = np.float64 if 2 * self.m * self.k <= LARGE_BLOCK else np.float32
        m = self.m
        X = np.zeros((2 * m, self.k), dtype=self.dtype)
        R = np.empty((2 * m, self.k), dtype=self.dtype)
        R[:m], R[m:] = self.Y, self.Y
        _centre(R, m)
        self.cg = BlockCG(X, R, rtol * self.norms, breakdown=_breakdown)
        self.source = self.target_scores = None

    def directions(self):
        """``(rows, B, A)``: the blocks whose products the next step needs."""
        P = self.cg.P
        return self.rows, P[self.m:], P[:self.m]

    def step(self, forward, backward, g):
        """One CG step from the products of the direction; False when converged."""
        m, cg = self.m, self.cg
        if self.weights is None:
            Q = cg.P / self.dtype(g)                           # Pi H P
        else:
            scale = (g * np.concatenate([self.weights, self.weights])).astype(self.dtype)
            Q = cg.P / scale[:, None]
        Q[:m] += forward[self.rows]
        Q[m:] += backward[self.rows]
        _centre(Q, m)
        alpha = cg.advance(Q)
        del Q
        # The solution is the sum of alpha_j p_j, and so are its scores.
        forward *= alpha.astype(forward.dtype)
        backward *= alpha.astype(backward.dtype)
        if self.source is None:
            self.source, self.target_scores = forward, backward
        else:
            self.source += forward
            self.target_scores += backward
        if not cg.active.any():
            return False
        cg.next_direction()
        return True

    def solution(self, n_all, n_iter, info, gamma=None):
        m, k, rows = self.m, self.k, self.rows
        if self.source is None:       # zero labels: nothing to solve
            self.source, self.target_scores = np.zeros((n_all, k)), np.zeros((n_all, k))
        # Rows a~/g + K b~ + b1 = y: the intercepts make the residual's mean vanish.
        y_mean = self.Y.mean(axis=0)
        intercepts = np.vstack([
            y_mean - self.source[rows].mean(axis=0, dtype=np.float64),
            y_mean - self.target_scores[rows].mean(axis=0, dtype=np.float64)])
        if self.weights is not None:    # a~ sums to 0, a~ / (g w) need not
            scale = (gamma * self.weights)[:, None]
            intercepts[0] -= (self.cg.X[:m] / scale).mean(axis=0)
            intercepts[1] -= (self.cg.X[m:] / scale).mean(axis=0)
        x = np.empty((2 + 2 * m, k))
        x[:2], x[2:] = intercepts, self.cg.X
        residual = np.sqrt(self.cg.rr) / np.where(self.norms > 0, self.norms, 1.0)
        self.cg = None
        result = SolverResult(x, info, n_iter, residual, "cg-scores")
        return ViewSolution(intercepts, x[2:].reshape(2, m, k), self.source,
                            self.target_scores, result)


def solve_many_with_scores(products, problems, n_all, gamma, *, rtol=1e-4, maxiter=None):
    """:func:`solve_with_scores` for several training sets that share every product.

    The training sets (e.g. the folds of a stacking) are independent systems; each
    iteration pushes the directions of all of them through one product, so that a
    kernel whose product costs the same for a few more columns (a walk's steps) solves
    them together at little more than the price of one.

    Parameters
    ----------
    products : callable
        ``products(blocks)`` takes a list ``[(rows_f, B_f, A_f), ...]`` of blocks on some
        of the training sets and returns the list of
        ``(K(all, train_f) @ B_f, K(train_f, all)^T @ A_f)``, each of shape (n_all, k).
    problems : list of (rows, Y) or (rows, Y, weights)
        Each training set's positions among all samples, its labels and, optionally,
        its samples' error weights (see :class:`AsKLSSystem`).
    n_all, gamma, rtol, maxiter
        As in :func:`solve_with_scores`; the iteration limit holds for every set.

    Returns
    -------
    list of ViewSolution
        One per training set.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.linalg._scores import solve_many_with_scores, solve_with_scores
    >>> rng = np.random.default_rng(1)
    >>> K = rng.random((8, 8)) / 8
    >>> folds = [np.array([0, 1, 2, 3]), np.array([4, 5, 6, 7])]
    >>> Y = np.array([[1.0], [-1.0], [1.0], [-1.0]])
    >>> def products(blocks):
    ...     return [(K[:, r] @ B, K[r, :].T @ A) for r, B, A in blocks]
    >>> both = solve_many_with_scores(products, [(r, Y) for r in folds], 8, 0.5, rtol=1e-12)
    >>> alone = solve_with_scores(lambda B, A: products([(folds[1], B, A)])[0], folds[1], 8,
    ...                           Y, 0.5, rtol=1e-12)
    >>> bool(np.allclose(both[1].source, alone.source))
    True
    """
    g = float(gamma)
    states = [_Problem(*problem[:2], rtol, *problem[2:]) for problem in problems]
    limit = (10 * max(state.m for state in states) if maxiter is None else int(maxiter))
    n_iter, info = 0, 0
    running = [state for state in states if state.cg.active.any()]
    while running:
        if n_iter >= limit:
            info = n_iter
            break
        n_iter += 1
        outputs = products([state.directions() for state in running])
        running = [state for state, (forward, backward) in zip(running, outputs)
                   if state.step(forward, backward, g)]
    return [state.solution(n_all, n_iter, info, g) for state in states]
