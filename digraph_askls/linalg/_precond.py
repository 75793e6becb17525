"""Preconditioners of the AsK-LS saddle system, built from the kernel without densifying it.

Two families:

* ``"jacobi"``: a symmetric positive definite 2x2-block-diagonal matrix, one block per
  training sample ``i`` (its pair ``(a~_i, b~_i)``) plus one entry per bias. For the exact
  system (MINRES) the blocks are the absolute values ``|B_i|`` of the system's own blocks
  ``B_i = [[1/g, K_ii], [K_ii, 1/g]]``; for the damped normal equations
  ``M^2 + lambda I`` (CG) they are the exact 2x2 diagonal blocks of that matrix,
  ``[[1 + 1/g^2 + ||K[i, :]||^2 + lambda, 2 K_ii / g], [2 K_ii / g,
  1 + 1/g^2 + ||K[:, i]||^2 + lambda]]``, read from the kernel's row and column norms.
  Setup is ``O(nnz(K))`` and one application is ``O(size * k)``.
* ``"ilu"``: an incomplete LU factorisation (:func:`scipy.sparse.linalg.spilu`) of the
  sparse saddle matrix, for GMRES on the exact system. It needs a sparse kernel and is
  not symmetric, so MINRES and CG cannot use it.
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, spilu

__all__ = ["make_preconditioner", "PRECONDITIONERS", "saddle_matrix"]

#: Names accepted by ``solve_system(..., preconditioner=...)``.
PRECONDITIONERS = ("jacobi", "ilu")


def _kernel_diagonal_and_norms(K):
    """``diag(K)``, squared row norms and squared column norms of an explicit kernel."""
    if sp.issparse(K):
        squared = K.multiply(K)
        return (K.diagonal(), np.asarray(squared.sum(axis=1)).ravel(),
                np.asarray(squared.sum(axis=0)).ravel())
    if isinstance(K, np.ndarray):
        return np.diag(K).copy(), np.einsum("ij,ij->i", K, K), np.einsum("ij,ij->j", K, K)
    raise TypeError(f"the 'jacobi' preconditioner needs K as an array or a sparse matrix, "
                    f"got {type(K).__name__}")


class _BlockJacobi:
    """Apply the inverse of an SPD matrix with 2x2 blocks on the pairs ``(2+i, 2+m+i)``.

    ``p, q, r`` hold the blocks ``[[p_i, r_i], [r_i, q_i]]``; ``bias`` the two bias entries.
    """

    def __init__(self, p, q, r, bias):
        det = p * q - r * r
        self.n_train = p.size
        # Inverse of each block, stored as three vectors.
        self.ip, self.iq, self.ir = q / det, p / det, -r / det
        self.ibias = 1.0 / np.asarray(bias, dtype=np.float64)

    def __call__(self, R):
        R = np.asarray(R)
        vector = R.ndim == 1
        if vector:
            R = R[:, None]
        m = self.n_train
        a, b = R[2:2 + m], R[2 + m:]
        out = np.empty_like(R)
        out[:2] = self.ibias[:, None] * R[:2]
        out[2:2 + m] = self.ip[:, None] * a + self.ir[:, None] * b
        out[2 + m:] = self.ir[:, None] * a + self.iq[:, None] * b
        return out[:, 0] if vector else out


def _jacobi(system, lam):
    m = system.n_train
    # 1 / g, or 1 / (g w_i) per sample with error weights.
    inverse = 1.0 / getattr(system, "error_scale", np.full(m, system.gamma))
    diag, rows, cols = _kernel_diagonal_and_norms(system.K)
    if lam == 0:
        # |B_i| for B_i = [[1/g, c], [c, 1/g]]: eigenvalues 1/g +- c on (1, +-1)/sqrt(2).
        floor = 1e-8 * inverse
        plus = np.maximum(np.abs(inverse + diag), floor)
        minus = np.maximum(np.abs(inverse - diag), floor)
        p = q = (plus + minus) / 2
        r = (plus - minus) / 2
        # Bias entries: the magnitude of their Schur complement 1^T |B|^{-1} 1 per view.
        ip = q / (p * q - r * r)
        bias = [ip.sum(), ip.sum()]
        return _BlockJacobi(p, q, r, bias)
    base = 1.0 + inverse ** 2 + lam
    p = base + rows
    q = base + cols
    r = 2.0 * diag * inverse
    bias = [m + lam, m + lam]
    return _BlockJacobi(p, q, r, bias)


def saddle_matrix(system, format="csc"):
    """The AsK-LS system matrix as a sparse matrix (needs a sparse or dense kernel).

    Parameters
    ----------
    system : AsKLSSystem
    format : str, default="csc"
        Sparse format of the result.

    Returns
    -------
    scipy.sparse matrix of shape (size, size)

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.linalg import AsKLSSystem
    >>> system = AsKLSSystem(np.array([[1.0, 0.5], [0.0, 1.0]]), gamma=2.0)
    >>> bool(np.allclose(saddle_matrix(system).toarray(), system.to_dense()))
    True
    """
    K = system.K
    if isinstance(K, LinearOperator):
        raise TypeError("a sparse saddle matrix needs K as an array or a sparse matrix, "
                        "got a LinearOperator")
    K = sp.csr_matrix(K)
    m = system.n_train
    ones = sp.csr_matrix(np.ones((1, m)))
    zero_row = sp.csr_matrix((1, m))
    identity = sp.diags(1.0 / system.error_scale, format="csr")
    top = sp.hstack([sp.csr_matrix((2, 2)), sp.vstack([ones, zero_row]),
                     sp.vstack([zero_row, ones])])
    left = sp.vstack([sp.hstack([ones.T, sp.csr_matrix((m, 1))]),
                      sp.hstack([sp.csr_matrix((m, 1)), ones.T])])
    inner = sp.bmat([[identity, K], [K.T, identity]])
    return sp.bmat([[top], [sp.hstack([left, inner])]], format=format)


def _ilu(system, lam, drop_tol=1e-4, fill_factor=10):
    if lam != 0:
        raise ValueError("the 'ilu' preconditioner is for the exact system (GMRES), got "
                         f"regularization={lam!r}; use 'jacobi' for the damped problem")
    if not (sp.issparse(system.K) or isinstance(system.K, np.ndarray)):
        raise TypeError(f"the 'ilu' preconditioner needs a sparse kernel, got "
                        f"{type(system.K).__name__}")
    factor = spilu(saddle_matrix(system), drop_tol=drop_tol, fill_factor=fill_factor)

    def apply(R):
        R = np.asarray(R)
        return factor.solve(R) if R.ndim == 1 else np.column_stack(
            [factor.solve(R[:, j]) for j in range(R.shape[1])])

    apply.symmetric = False
    return apply


def make_preconditioner(system, name, regularization=0.0):
    """Build a named preconditioner ``M(R) ~ A^{-1} R`` for an AsK-LS system.

    Parameters
    ----------
    system : AsKLSSystem
        The system; its kernel must be explicit (array or sparse).
    name : {"jacobi", "ilu"}
        ``"jacobi"``: symmetric positive definite 2x2-block diagonal, valid for MINRES on
        the exact system (``regularization=0``) and for CG on the damped normal equations
        ``M^2 + lambda I``. ``"ilu"``: incomplete LU of the sparse saddle matrix, for GMRES
        on the exact system only.
    regularization : float, default=0.0
        ``lambda`` of the damped normal equations the preconditioner is for (0: exact).

    Returns
    -------
    callable
        ``M(R)`` for a vector or a block of columns ``R`` of shape (size, k).

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.linalg import AsKLSSystem
    >>> system = AsKLSSystem(np.array([[1.0, 0.5], [0.0, 1.0]]), gamma=0.5)
    >>> M = make_preconditioner(system, "jacobi", regularization=1.0)
    >>> M(np.ones((6, 2))).shape
    (6, 2)
    """
    if getattr(system, "n_bias", None) != 2:
        raise TypeError(f"preconditioners are built for AsKLSSystem, got "
                        f"{type(system).__name__}")
    lam = float(regularization)
    if name == "jacobi":
        return _jacobi(system, lam)
    if name == "ilu":
        return _ilu(system, lam)
    raise ValueError(f"unknown preconditioner {name!r}; choose from "
                     f"{[None, *PRECONDITIONERS]}")
