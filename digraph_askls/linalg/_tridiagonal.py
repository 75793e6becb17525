"""AsK-LS of a symmetric training kernel for every gamma, from one tridiagonal reduction.

With a symmetric kernel AsK-LS is the LS-SVM (the paper's Proposition 2): both views
carry the dual coefficients ``alpha`` of ``(K + I/g) alpha + b 1 = Y``, ``1^T alpha = 0``.
The selection needs that system's out-of-fold scores at several gammas. A full symmetric
eigendecomposition serves every gamma, but most of its cost is not needed: with the
reduction ``K = Q T Q^T`` (``T`` tridiagonal, ``Q`` orthogonal; LAPACK's ``dsytrd`` and
the explicit ``Q``), ``C^-1 = (K + I/g)^-1 = Q (T + I/g)^-1 Q^T``, and every product with
``(T + I/g)^-1`` is a tridiagonal solve, ``O(m)`` per column. The reduction and ``Q``
cost about two thirds of the decomposition on one core (``docs/results/speed.md``).

Per gamma, with ``u = C^-1 1`` and ``s = 1^T u``, the system's inverse on the ``alpha``
unknowns is ``C^-1 - u u^T / s``. Removing a fold's unknowns ``F`` from the solution
(``alpha - (M^-1)_{:F} c`` with ``c = ((M^-1)_FF)^-1 alpha_F``, as in
:mod:`~digraph_askls.linalg._spectral_folds`) gives the fold model, which scores its
held-out samples at ``Y_F - c``. The blocks ``(C^-1)_FF = Q_F (T + I/g)^-1 Q_F^T`` cost
``2 m |F|^2`` each, ``2 m^2 |F|`` for all folds; the mean of the fold models is one more
product with ``C^-1``.

Error weights (``K + diag(1 / (g w))`` in place of ``K + I/g``) keep all of this: with
``D = diag(sqrt(w))``, ``C = D^-1 (D K D + I/g) D^-1``, so ``C^-1 = D (D K D + I/g)^-1 D``
from the reduction of ``D K D``; the solution and folds above need only ``C^-1``.

A gamma is refused where the AsK-LS system is (numerically) singular, by the rule of
:class:`~digraph_askls.linalg.SpectralAsKLS` on the eigenvalues of ``T`` (those of ``K``,
``O(m^2)`` from the tridiagonal form): the same gammas are scored either way.
"""

import numpy as np
import scipy.linalg as sla

from .._memory import check_dense_allocation
from ._dense import _one_blas_thread
from ._lssvm_folds import lssvm_fold_scores, lssvm_solution
from ._result import SingularSystemError
from ._spectral import _decomposition_threads, checked_gamma, label_block
from ._spectral_folds import _check_folds

__all__ = ["TridiagonalLSSVM"]


class TridiagonalLSSVM:
    """The AsK-LS system of one symmetric training kernel, for any gamma, from ``K = Q T Q^T``.

    Gives what :class:`~digraph_askls.linalg.SpectralAsKLS` gives for a symmetric kernel
    (:meth:`solve`, :meth:`fold_scores`), up to rounding, for less.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Symmetric training kernel (only its lower triangle is read).
    weights : array-like of shape (m,), optional
        Error weights of the weighted system (see the module's docstring). None: all 1.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.linalg import SpectralAsKLS, TridiagonalLSSVM
    >>> K = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 1.0]])
    >>> Y = np.array([1.0, -1.0, 1.0])
    >>> b1, a1 = TridiagonalLSSVM(K).solve(Y, gamma=0.5)
    >>> b2, a2 = SpectralAsKLS(K).solve(Y, gamma=0.5)
    >>> bool(np.allclose(a1, a2) and np.allclose(b1, b2))
    True
    """

    def __init__(self, K, weights=None):
        K = np.asarray(K, dtype=np.float64)
        if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
            raise ValueError(f"K must be a non-empty square matrix, got shape {K.shape}")
        if not np.all(np.isfinite(K)):
            raise ValueError("K must contain only finite values, got NaN or inf")
        m = K.shape[0]
        self._root = None
        if weights is not None:
            from ._system import check_error_weights

            self._root = np.sqrt(check_error_weights(weights, m))
            K = self._root[:, None] * K * self._root[None, :]
        check_dense_allocation((3, m, m), what=f"the tridiagonal reduction of a {m} x {m} "
                                               f"training kernel")
        self.n_train = m
        if m == 1:
            self.Q, self.diagonal, self.off = np.ones((1, 1)), K[0].copy(), np.zeros(0)
        else:
            with _decomposition_threads():
                lwork = int(sla.lapack.dsytrd_lwork(m, lower=1)[0])
                reduced, diagonal, off, tau, info = sla.lapack.dsytrd(K, lower=1,
                                                                      lwork=lwork)
                if info != 0:
                    raise np.linalg.LinAlgError(f"dsytrd failed (info={info})")
                # The reflectors below the subdiagonal are those of a QR factorisation
                # of reduced[1:, :-1]: Q = diag(1, Q').
                lwork = int(sla.lapack.dorgqr_lwork(m - 1, m - 1, m - 1)[0]) \
                    if hasattr(sla.lapack, "dorgqr_lwork") else 64 * m
                inner, _, info = sla.lapack.dorgqr(reduced[1:, :-1], tau, lwork=lwork)
                if info != 0:
                    raise np.linalg.LinAlgError(f"dorgqr failed (info={info})")
            del reduced
            self.Q = np.zeros((m, m))
            self.Q[0, 0] = 1.0
            self.Q[1:, 1:] = inner
            self.diagonal, self.off = diagonal, off
        self.eigenvalues = sla.eigvalsh_tridiagonal(self.diagonal, self.off) if m > 1 \
            else self.diagonal.copy()
        self._projected = None

    # ---- C^-1 ----------------------------------------------------------------------
    def _check_gamma(self, gamma):
        """``1/gamma``, or an error by :class:`SpectralAsKLS`'s rule."""
        return 1.0 / checked_gamma(gamma, np.abs(self.eigenvalues))

    def _tridiagonal_solve(self, ridge, B):
        """``(T + ridge I)^-1 B``, from one LU factorisation of ``T + ridge I`` per ridge
        (LAPACK's ``dgttrf``, kept for the next call at the same ridge)."""
        if self.n_train <= 2:
            # SciPy's dgttrf wrapper refuses n = 2 (its du2 has n - 2 entries): dense.
            T = np.diag(self.diagonal + ridge) + np.diag(self.off, 1) + np.diag(self.off, -1)
            try:
                return np.linalg.solve(T, B)
            except np.linalg.LinAlgError:
                raise SingularSystemError(
                    f"T + I/gamma is singular at gamma = {1 / ridge:g}") from None
        cached = getattr(self, "_factor", None)
        if cached is None or cached[0] != ridge:
            factor = sla.lapack.dgttrf(self.off, self.diagonal + ridge, self.off)
            if factor[-1] != 0:
                raise SingularSystemError(f"T + I/gamma is singular at gamma = {1 / ridge:g}")
            cached = self._factor = (ridge, factor[:-1])
        solved, info = sla.lapack.dgttrs(*cached[1], np.asfortranarray(B))
        if info != 0:
            raise SingularSystemError(f"the tridiagonal solve failed (info={info})")
        return solved

    def _inverse_times(self, ridge, B, projected=None):
        """``C^-1 B`` (``projected``: ``Q^T D B`` where known)."""
        projected = self.Q.T @ self._scaled(B) if projected is None else projected
        return self._scaled(self.Q @ self._tridiagonal_solve(ridge, projected))

    def _scaled(self, B):
        """``D B``: the rows times ``sqrt(w)`` (``B`` itself without weights)."""
        return B if self._root is None else self._root[:, None] * B

    def _labels(self, Y):
        return label_block(Y, self.n_train)

    def _solve(self, Y, ridge):
        """``alpha`` (m, k), the intercepts (k,), ``u = C^-1 1`` and ``s = 1^T u``."""
        right = np.hstack([Y, np.ones((self.n_train, 1))])
        cached = self._projected
        if cached is not None and np.array_equal(cached[0], right):
            projected = cached[1]
        else:
            projected = self.Q.T @ self._scaled(right)
            self._projected = (right, projected)
        return lssvm_solution(self._inverse_times(ridge, right, projected))

    # ---- what the selection asks ---------------------------------------------------
    def solve(self, Y, gamma):
        """Intercepts ``[b1; b2]`` (2, k) and dual coefficients ``[a~; b~]`` (2, m, k), the
        layout of :meth:`SpectralAsKLS.solve`."""
        Y = self._labels(Y)
        ridge = self._check_gamma(gamma)
        with _one_blas_thread():
            alpha, intercepts, _, _ = self._solve(Y, ridge)
        return np.tile(intercepts, (2, 1)), np.stack([alpha, alpha])

    def fold_scores(self, Y, gamma, folds):
        """Out-of-fold view scores (2, m, k) and the mean of the fold models
        ``(intercepts (2, k), dual (2, m, k))``, as
        :func:`~digraph_askls.linalg._spectral_folds.spectral_fold_scores` gives them.

        Raises :class:`SingularSystemError` where the system of every sample or of a fold
        is singular at ``gamma``.
        """
        Y = self._labels(Y)
        m, k = Y.shape
        _check_folds(folds, m)
        ridge = self._check_gamma(gamma)
        with _one_blas_thread():
            solution = self._solve(Y, ridge)

            def block_of(held):
                Q_held = self.Q[held]
                if self._root is not None:
                    Q_held = self._root[held, None] * Q_held
                return Q_held @ self._tridiagonal_solve(ridge, Q_held.T)

            return lssvm_fold_scores(Y, folds, solution, block_of,
                                     lambda B: self._inverse_times(ridge, B))
