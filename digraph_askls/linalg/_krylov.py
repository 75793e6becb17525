"""Block Krylov iterations: every right-hand side advances with one shared product.

Each column is an independent CG or MINRES run with its own scalars; only the operator
products are shared, so ``k`` right-hand sides cost one block product ``A @ X`` (with
``k`` columns) per iteration instead of ``k`` matrix-vector products. The iterations
follow the textbook recurrences (Hestenes-Stiefel CG; Paige-Saunders MINRES, in the
preconditioned form of Choi's thesis) written for blocks of columns.

The CG recurrence is written once, in :class:`BlockCG`, a state advanced one product at
a time: :func:`batched_cg` drives it with an operator, and the scores solver
(:mod:`digraph_askls.linalg._scores`) drives one state per training set from products
shared between them.
"""

import numpy as np

__all__ = ["batched_cg", "batched_minres"]

_TINY = np.finfo(np.float64).tiny


def _columns_norm(X):
    return np.sqrt(np.einsum("ij,ij->j", X, X))


def _prepare(B, x0, maxiter):
    B = np.asarray(B, dtype=np.float64)
    if B.ndim == 1:
        B = B[:, None]
    X = np.zeros_like(B) if x0 is None else np.array(x0, dtype=np.float64).reshape(B.shape)
    if maxiter is None:
        maxiter = 10 * B.shape[0]
    return B, X, int(maxiter)


def _dots(X, Y):
    """Column inner products ``x_j^T y_j``, accumulated in double precision."""
    return np.einsum("ij,ij->j", X, Y, dtype=np.float64)


#: Rows of a block of :func:`_add_scaled`: its temporary is this many rows of ``X``.
SCALED_ROWS = 1 << 14


def _add_scaled(Y, a, X):
    """``Y += a * X`` for a vector ``a`` of column weights, in blocks of
    :data:`SCALED_ROWS` rows (no temporary of the size of ``X``; the columns of weight
    zero are left untouched). Each entry is the same sum as one column at a time gives,
    but a block reads each row once where a column reads every row of the block (ten
    columns of a CG block read it ten times)."""
    columns = np.flatnonzero(a)
    if columns.size < a.size:
        for j in columns:
            Y[:, j] += a[j] * X[:, j]
        return
    for lo in range(0, Y.shape[0], SCALED_ROWS):
        Y[lo:lo + SCALED_ROWS] += a * X[lo:lo + SCALED_ROWS]


def _not_positive_definite(pap, active):
    return np.linalg.LinAlgError(
        "CG broke down: the operator is not positive definite "
        f"(p^T A p = {pap[active & (pap <= 0)].min():.3e})"
    )


class BlockCG:
    """The state of a block CG run, advanced by its caller one product at a time.

    This is the one CG recurrence of the package: :func:`batched_cg` drives it with an
    operator ``matmat``, and the solvers that share products between several systems
    (:func:`~digraph_askls.linalg._scores.solve_many_with_scores`) drive one state per
    system from the same product, with what that product gives besides ``A @ P``.

    The blocks ``X``, ``R`` and ``P`` keep the precision of the ``X`` and ``R`` given
    (single precision on very large blocks); the scalars of each column (inner products,
    step lengths) are double precision.

    Parameters
    ----------
    X : ndarray of shape (n, k)
        Starting guess, updated in place.
    R : ndarray of shape (n, k)
        Its residual ``B - A X``, updated in place.
    threshold : ndarray of shape (k,) or float
        Column ``j`` stops when ``||r_j|| <= threshold_j``.
    M : callable, optional
        Symmetric positive definite preconditioner.
    breakdown : callable, optional
        ``breakdown(pap, active)`` returns the exception raised when ``p^T A p <= 0`` on
        an active column.

    Attributes
    ----------
    P : ndarray of shape (n, k)
        The search directions: the caller's next product is ``A @ P``.
    rr : ndarray of shape (k,)
        ``||r_j||^2`` of the current residuals.
    active : ndarray of bool, shape (k,)
        The columns that have not converged.
    """

    def __init__(self, X, R, threshold, *, M=None, breakdown=_not_positive_definite):
        self.X, self.R, self.M = X, R, M
        self.threshold = threshold
        self.breakdown = breakdown
        self.rr = _dots(R, R)
        self.active = np.sqrt(self.rr) > threshold
        Z = M(R) if M is not None else R
        self.P = Z.copy()
        self.rz = self.rr if M is None else _dots(R, Z)

    def advance(self, AP):
        """``X += alpha P`` and ``R -= alpha A P`` from the product ``AP = A @ P``;
        updates ``rr`` and ``active`` and returns the step lengths ``alpha`` (zero on the
        columns that had converged)."""
        P, active = self.P, self.active
        pap = _dots(P, AP)
        if np.any(active & (pap <= 0)):
            raise self.breakdown(pap, active)
        alpha = np.where(active, self.rz / np.where(pap > 0, pap, 1.0), 0.0)
        _add_scaled(self.X, alpha, P)
        _add_scaled(self.R, -alpha, AP)
        self.rr = _dots(self.R, self.R)
        active &= np.sqrt(self.rr) > self.threshold
        return alpha

    def next_direction(self):
        """``P = M(R) + beta P``: the directions of the next product."""
        R, M = self.R, self.M
        Z = M(R) if M is not None else R
        rz_new = self.rr if M is None else _dots(R, Z)
        beta = np.where(self.active, rz_new / np.where(self.rz > 0, self.rz, 1.0), 0.0)
        self.rz = rz_new
        self.P *= beta.astype(self.P.dtype)
        self.P += Z


def batched_cg(matmat, B, *, x0=None, rtol=1e-10, atol=0.0, maxiter=None, M=None,
               callback=None, return_residual=False):
    """Conjugate gradients for a symmetric positive definite operator, many columns at once.

    Parameters
    ----------
    matmat : callable
        ``matmat(X)`` returns ``A @ X`` for a block ``X`` of shape (n, k).
    B : ndarray of shape (n, k)
        Right-hand sides.
    x0 : ndarray of shape (n, k), optional
        Starting guess (warm start).
    rtol, atol : float
        Column ``j`` stops when ``||b_j - A x_j|| <= max(rtol * ||b_j||, atol)``.
    maxiter : int, optional
        Maximum number of iterations (default ``10 * n``).
    M : callable, optional
        Symmetric positive definite preconditioner: ``M(R)`` approximates ``A^{-1} R``.
    callback : callable, optional
        Called as ``callback(X)`` after each iteration.
    return_residual : bool, default=False
        Also return the residual block ``R`` updated by the recurrence (``B - A X`` up to
        rounding), which costs no product.

    Returns
    -------
    X : ndarray of shape (n, k)
    info : int
        0 when every column converged, else the number of iterations done.
    n_iter : int
    R : ndarray of shape (n, k)
        Only with ``return_residual``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[4.0, 1.0], [1.0, 3.0]])
    >>> X, info, n_iter = batched_cg(lambda V: A @ V, np.eye(2))
    >>> bool(np.allclose(A @ X, np.eye(2))), info
    (True, 0)
    """
    B, X, maxiter = _prepare(B, x0, maxiter)
    R = B - matmat(X) if x0 is not None else B.copy()
    cg = BlockCG(X, R, np.maximum(rtol * _columns_norm(B), atol), M=M)
    if not cg.active.any():
        return (X, 0, 0, R) if return_residual else (X, 0, 0)
    n_iter = 0
    for n_iter in range(1, maxiter + 1):
        cg.advance(matmat(cg.P))
        if callback is not None:
            callback(X)
        if not cg.active.any():
            return (X, 0, n_iter, R) if return_residual else (X, 0, n_iter)
        cg.next_direction()
    info = max(n_iter, 1)   # not converged, even when no iteration was allowed
    return (X, info, n_iter, R) if return_residual else (X, info, n_iter)


def batched_minres(matmat, B, *, x0=None, rtol=1e-10, atol=0.0, maxiter=None, M=None,
                   callback=None):
    """MINRES for a symmetric (possibly indefinite) operator, many columns at once.

    Parameters are those of :func:`batched_cg`; ``M`` must be symmetric positive
    definite. Convergence is judged on the residual in the ``M^{-1}`` norm estimated by
    the recurrence, and confirmed on the true residual at the end.

    Returns
    -------
    X : ndarray of shape (n, k)
    info : int
        0 when every column converged, else the number of iterations done.
    n_iter : int

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 2.0], [2.0, -1.0]])   # symmetric indefinite
    >>> X, info, n_iter = batched_minres(lambda V: A @ V, np.eye(2))
    >>> bool(np.allclose(A @ X, np.eye(2)))
    True
    """
    B, X, maxiter = _prepare(B, x0, maxiter)
    precond = M if M is not None else (lambda V: V)
    R1 = B - matmat(X) if x0 is not None else B.copy()
    Yv = precond(R1)
    beta1 = np.sqrt(np.maximum(np.einsum("ij,ij->j", R1, Yv), 0.0))
    bnorm = np.sqrt(np.maximum(np.einsum("ij,ij->j", B, precond(B)), 0.0))
    threshold = np.maximum(rtol * bnorm, atol)
    active = beta1 > threshold
    if not active.any():
        return X, 0, 0
    k = B.shape[1]
    zeros = np.zeros(k)
    oldb, beta, dbar, epsln = zeros.copy(), beta1.copy(), zeros.copy(), zeros.copy()
    phibar, cs, sn = beta1.copy(), -np.ones(k), zeros.copy()
    W = np.zeros_like(B)
    W2 = np.zeros_like(B)
    R2 = R1.copy()
    tnorm2 = zeros.copy()
    least_squares = np.zeros(k, dtype=bool)
    n_iter = 0
    for n_iter in range(1, maxiter + 1):
        s = np.where(beta > _TINY, 1.0 / np.where(beta > _TINY, beta, 1.0), 0.0)
        V = s * Yv
        Yv = matmat(V)
        if n_iter >= 2:
            Yv -= np.where(oldb > _TINY, beta / np.where(oldb > _TINY, oldb, 1.0), 0.0) * R1
        alfa = np.einsum("ij,ij->j", V, Yv)
        Yv -= np.where(beta > _TINY, alfa / np.where(beta > _TINY, beta, 1.0), 0.0) * R2
        R1, R2 = R2, Yv
        Yv = precond(R2)
        oldb = beta
        beta = np.sqrt(np.maximum(np.einsum("ij,ij->j", R2, Yv), 0.0))
        tnorm2 += alfa ** 2 + oldb ** 2 + beta ** 2
        oldeps = epsln
        delta = cs * dbar + sn * alfa
        gbar = sn * dbar - cs * alfa
        epsln = sn * beta
        dbar = -cs * beta
        # ||A r|| / (||A|| ||r||): tiny while ||r|| is not means a least-squares solution
        # of a singular, inconsistent system; the column stops there (not converged).
        ls_test = np.hypot(gbar, dbar) / np.maximum(np.sqrt(tnorm2), _TINY)
        gamma = np.maximum(np.hypot(gbar, beta), _TINY)
        cs = gbar / gamma
        sn = beta / gamma
        phi = cs * phibar
        phibar = sn * phibar
        W1, W2 = W2, W
        W = (V - oldeps * W1 - delta * W2) / gamma
        X += np.where(active, phi, 0.0) * W
        least_squares |= active & (ls_test <= rtol) & (np.abs(phibar) > threshold)
        active &= (np.abs(phibar) > threshold) & (beta > _TINY) & ~least_squares
        if callback is not None:
            callback(X)
        if not active.any():
            break
    # Confirm on the true residual (the recurrence can drift in finite precision).
    residual = _columns_norm(B - matmat(X))
    true_threshold = np.maximum(rtol * _columns_norm(B), atol)
    converged = bool(np.all(residual <= 10 * true_threshold + 1e-300))
    info = 0 if converged and not active.any() and not least_squares.any() else n_iter
    return X, info, n_iter
