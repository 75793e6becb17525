"""The AsK-LS and LS-SVM dual systems in their label-free form, as operators.

With ``a~ = y * alpha`` and ``b~ = y * beta`` (elementwise), the AsK-LS dual system of
the paper (its eq. ``linear_system``) becomes::

    [ 0  0  1^T  0   ] [b1]   [0]
    [ 0  0  0    1^T ] [b2] = [0]
    [ 1  0  I/g  K   ] [a~]   [y]
    [ 0  1  K^T  I/g ] [b~]   [y]

The matrix no longer depends on the labels, so every one-vs-rest problem of a task is
one more right-hand side of the same matrix. The matrix is symmetric and, once
``g * s_max(K) > 1``, indefinite.
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, aslinearoperator

from .._memory import check_dense_allocation

__all__ = ["AsKLSSystem", "LSSVMSystem", "check_error_weights", "check_kernel_matrix"]


def check_error_weights(weights, n_train):
    """Per-sample error weights as a float array of ``n_train`` positive finite entries,
    or None (every weight 1); anything else is a clear error."""
    if weights is None:
        return None
    try:
        weights = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"weights must be a numeric array of {n_train} positive numbers, "
                        f"got {type(weights).__name__}") from exc
    if weights.shape != (n_train,):
        raise ValueError(f"weights must have shape ({n_train},) (one per training sample), "
                         f"got {weights.shape}")
    if not np.all(np.isfinite(weights)) or np.any(weights <= 0):
        raise ValueError("weights must be positive finite numbers, got "
                         f"min {weights.min():g}, max {weights.max():g}")
    return weights


def check_kernel_matrix(K, name="K", square=True):
    """Validate a kernel given as an array, a sparse matrix or a LinearOperator.

    Returns the kernel unchanged (dense inputs as float64 arrays, sparse inputs as CSR).
    """
    if isinstance(K, LinearOperator):
        shape = K.shape
    elif sp.issparse(K):
        K = sp.csr_matrix(K, dtype=np.float64)
        shape = K.shape
        if not np.all(np.isfinite(K.data)):
            raise ValueError(f"{name} must contain only finite values, got NaN or inf")
    else:
        try:
            K = np.asarray(K, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{name} must be a numeric array, a sparse matrix or a LinearOperator, "
                f"got {type(K).__name__}"
            ) from exc
        if K.ndim != 2:
            raise ValueError(f"{name} must be 2-dimensional, got shape {K.shape}")
        if not np.all(np.isfinite(K)):
            raise ValueError(f"{name} must contain only finite values, got NaN or inf")
        shape = K.shape
    if square and shape[0] != shape[1]:
        raise ValueError(f"{name} must be square (n_train, n_train), got shape {shape}")
    if shape[0] == 0:
        raise ValueError(f"{name} must have at least one row, got shape {shape}")
    return K


def _diagonal(K):
    if isinstance(K, LinearOperator):
        # Operators that know their structure (e.g. a distributed sparse kernel) say so.
        return K.diagonal() if hasattr(K, "off_diagonal_counts") else None
    if sp.issparse(K):
        return K.diagonal()
    return np.diag(K).copy()


def _off_diagonal_counts(K):
    """Number of non-zero off-diagonal entries in each row and each column."""
    if isinstance(K, LinearOperator):
        return K.off_diagonal_counts()
    if sp.issparse(K):
        coo = K.tocoo()
        off = (coo.row != coo.col) & (coo.data != 0)
        n = K.shape[0]
        rows = np.bincount(coo.row[off], minlength=n)
        cols = np.bincount(coo.col[off], minlength=n)
        return rows, cols
    nz = K != 0
    np.fill_diagonal(nz, False)
    return nz.sum(axis=1), nz.sum(axis=0)


class _SaddleSystem:
    """Common parts of the symmetric saddle-point systems solved by the library."""

    n_bias = 0
    n_blocks = 1   # copies of the training samples among the unknowns

    def __init__(self, K, gamma=1.0, weights=None):
        self.K = check_kernel_matrix(K)
        gamma = float(gamma)
        if not np.isfinite(gamma) or gamma <= 0:
            raise ValueError(f"gamma must be a positive finite number, got {gamma!r}")
        self.gamma = gamma
        self.n_train = self.K.shape[0]
        self.weights = check_error_weights(weights, self.n_train)
        self.size = self.n_blocks * self.n_train + self.n_bias
        self._op = aslinearoperator(self.K) if isinstance(self.K, LinearOperator) else None

    @property
    def error_scale(self):
        """``gamma * w`` per training sample, (n_train,): the diagonal of the error block
        is its inverse, ``1 / (gamma * w_i)`` (``1 / gamma`` without weights)."""
        if self.weights is None:
            return np.full(self.n_train, self.gamma)
        return self.gamma * self.weights

    def _divide_by_scale(self, V):
        """``V / (gamma * w)`` row by row (``V / gamma`` exactly, without weights)."""
        if self.weights is None:
            return V / self.gamma
        scale = self.gamma * self.weights
        return V / (scale if V.ndim == 1 else scale[:, None])

    def _label_block(self, Y):
        """Labels as a float block of shape (n_train, k), checked against the kernel."""
        Y = np.asarray(Y, dtype=np.float64)
        if Y.ndim == 1:
            Y = Y[:, None]
        if Y.shape[0] != self.n_train:
            raise ValueError(
                f"labels must have {self.n_train} rows (one per training sample), "
                f"got {Y.shape[0]}"
            )
        return Y

    @property
    def shape(self):
        return (self.size, self.size)

    def as_operator(self, dtype=np.float64):
        """The system matrix as a :class:`scipy.sparse.linalg.LinearOperator`."""
        return LinearOperator(
            self.shape, matvec=self.matmat, matmat=self.matmat, rmatvec=self.matmat,
            rmatmat=self.matmat, dtype=dtype,
        )

    def normal_matmat(self, X, damp2):
        """``(M^T M + damp2 I) X``: the damped normal equations (``M`` is symmetric)."""
        return self.matmat(self.matmat(X)) + damp2 * X

    def _check_dense(self, copies):
        check_dense_allocation(
            (copies, self.size, self.size),
            what=f"the dense {self.name} system matrix ({self.size} unknowns)",
            remedy="solve it with solver='batched' (products with the kernel only)")

    def to_dense(self):
        """The system matrix as a dense array (for small problems and tests)."""
        self._check_dense(2)   # the identity and the product
        return self.matmat(np.eye(self.size))

    def decoupled_singular_count(self, rtol=1e-8):
        """Lower bound on the nullity of the system found from the kernel's structure.

        Returns ``(nullity, n_decoupled)``. The default is 0: no structural check.
        """
        return 0, 0


class AsKLSSystem(_SaddleSystem):
    """The label-free AsK-LS dual system for a kernel ``K`` and regularisation ``gamma``.

    Parameters
    ----------
    K : ndarray, sparse matrix or LinearOperator of shape (n_train, n_train)
        The asymmetric kernel ``K[i, j] = K(x_i, x_j)`` on the training samples.
    gamma : float
        The regularisation coefficient ``g`` of the paper (> 0).
    weights : array-like of shape (n_train,), optional
        Error weights ``w_i > 0`` of the weighted least-squares SVM: the error term of
        sample ``i`` is weighted by ``w_i``, so that the diagonal ``I / g`` of both
        blocks becomes ``diag(1 / (g w))``. Weights that depend on a sample's class only
        keep the matrix independent of the one-vs-rest problem. None: all 1.

    Notes
    -----
    The unknown vector is ``[b1, b2, a~, b~]`` of length ``2 * n_train + 2``.

    Examples
    --------
    >>> import numpy as np
    >>> system = AsKLSSystem(np.array([[1.0, 0.5], [0.0, 1.0]]), gamma=2.0)
    >>> system.size
    6
    >>> bool(np.allclose(system.to_dense(), system.to_dense().T))
    True
    """

    n_bias = 2
    n_blocks = 2
    name = "AsK-LS"
    singular_cause = "gamma * s_i(K) = 1 for a singular value s_i(K) of the training kernel"

    def __init__(self, K, gamma=1.0, weights=None):
        super().__init__(K, gamma, weights)
        # K^T in row-major storage: a CSR product with a block is about twice as fast as
        # the CSC product K.T @ X, for the price of a second copy of the nnz entries.
        self._KT = self.K.T.tocsr() if sp.issparse(self.K) else None

    def _K_dot(self, X):
        return self._op.matmat(X) if self._op is not None else self.K @ X

    def _KT_dot(self, X):
        if self._op is not None:
            return self._op.rmatmat(X)
        return self._KT @ X if self._KT is not None else self.K.T @ X

    def matmat(self, X):
        """Apply the system matrix to a block of vectors ``X`` of shape (size, k)."""
        X = np.asarray(X)
        vector = X.ndim == 1
        if vector:
            X = X[:, None]
        m = self.n_train
        out = np.empty(X.shape, dtype=np.result_type(X.dtype, np.float64))
        ones = np.ones(m, dtype=X.dtype)
        out[0] = ones @ X[2:2 + m]   # a BLAS product: faster than a strided sum over axis 0
        out[1] = ones @ X[2 + m:]
        self.inner_matmat(X[2:], out=out[2:])
        out[2:2 + m] += X[0]
        out[2 + m:] += X[1]
        return out[:, 0] if vector else out

    def inner_matmat(self, V, out=None):
        """``H V`` for the block ``H = [[I/g, K], [K^T, I/g]]`` without the bias rows.

        ``V`` has shape (2 n_train, k); :func:`~digraph_askls.linalg.solve_system`
        eliminates the two intercepts and iterates on ``H`` alone, which is symmetric
        positive definite when ``g * s_max(K) < 1``. ``out``: written in place if given.
        """
        m = self.n_train
        a, b = V[:m], V[m:]
        pair = getattr(self.K, "matmat_pair", None)   # K b and K^T a in one pass
        if pair is not None:
            top, bottom = pair(b, a)
        else:
            top, bottom = self._K_dot(b), self._KT_dot(a)
        top += self._divide_by_scale(a)
        bottom += self._divide_by_scale(b)
        if out is None:
            return np.vstack([top, bottom])
        out[:m], out[m:] = top, bottom
        return out

    def bias_columns(self):
        """The columns ``E`` that couple the intercepts to the inner block: ``[1; 0], [0; 1]``."""
        m = self.n_train
        E = np.zeros((2 * m, 2))
        E[:m, 0] = 1.0
        E[m:, 1] = 1.0
        return E

    def rhs(self, Y):
        """Right-hand sides ``[0; 0; y; y]`` for a block ``Y`` of +-1 labels (n_train, k)."""
        Y = self._label_block(Y)
        R = np.zeros((self.size, Y.shape[1]))
        R[2:2 + self.n_train] = Y
        R[2 + self.n_train:] = Y
        return R

    def split(self, x):
        """Split solutions ``x`` (size, k) into ``intercepts`` (2, k) and ``dual`` (2, m, k)."""
        m = self.n_train
        intercepts = x[:2]
        dual = np.stack([x[2:2 + m], x[2 + m:]])
        return intercepts, dual

    def to_dense(self):
        """The system matrix as a dense array, assembled block by block."""
        if self._op is not None:
            return super().to_dense()
        self._check_dense(2 if sp.issparse(self.K) else 1)
        m = self.n_train
        K = self.K.toarray() if sp.issparse(self.K) else np.asarray(self.K)
        A = np.zeros((self.size, self.size))
        A[0, 2:2 + m] = A[2:2 + m, 0] = 1.0
        A[1, 2 + m:] = A[2 + m:, 1] = 1.0
        A[2:2 + m, 2 + m:] = K
        A[2 + m:, 2:2 + m] = K.T
        index = np.arange(2, self.size)
        A[index, index] = np.tile(1.0 / self.error_scale, 2)
        return A

    def decoupled_singular_count(self, rtol=1e-8):
        """Nullity found from training samples the kernel leaves on their own.

        A training sample ``i`` whose kernel row and column are zero apart from the
        diagonal ``K[i, i] = c`` gives the 2x2 block ``[[1/g, c], [c, 1/g]]``, with the
        eigenvalue ``1/g - |c|``: zero when ``g * |c| = 1``, that is when
        ``g * s_i(K) = 1`` for the singular value ``s_i(K) = |c|`` (``g w_i |c| = 1`` with
        error weights). Each such sample gives
        the null vector ``[e_i; -sign(c) e_i]`` of the inner block; the two bias rows remove
        at most two of them (one when all signs agree).
        """
        diag = _diagonal(self.K)
        if diag is None:
            return 0, 0
        rows, cols = _off_diagonal_counts(self.K)
        decoupled = (rows == 0) & (cols == 0)
        hit = decoupled & (np.abs(1.0 - self.error_scale * np.abs(diag)) <= rtol)
        count = int(hit.sum())
        if count == 0:
            return 0, 0
        signs = np.unique(np.sign(diag[hit]))
        rank = 1 if signs.size == 1 else 2
        return max(count - rank, 0), count


class LSSVMSystem(_SaddleSystem):
    """The label-free classical LS-SVM dual system ``[[0, 1^T], [1, I/g + K]]``.

    With ``a~ = y * alpha`` the system reads ``[[0, 1^T], [1, I/g + K]] [b; a~] = [0; y]``
    and the decision function is ``f(x) = K(x, X) a~ + b``.

    Examples
    --------
    >>> import numpy as np
    >>> LSSVMSystem(np.eye(3), gamma=1.0).size
    4
    """

    n_bias = 1
    name = "LS-SVM"
    singular_cause = "the training kernel has the eigenvalue -1/gamma"


    def matmat(self, X):
        """Apply the system matrix to a block of vectors ``X`` of shape (size, k)."""
        X = np.asarray(X)
        vector = X.ndim == 1
        if vector:
            X = X[:, None]
        a = X[1:]
        out = np.empty(X.shape, dtype=np.result_type(X.dtype, np.float64))
        out[0] = a.sum(axis=0)
        self.inner_matmat(a, out=out[1:])
        out[1:] += X[0]
        return out[:, 0] if vector else out

    def inner_matmat(self, V, out=None):
        """``(K + I/g) V``: the block without the bias row (positive definite for a PSD K)."""
        KV = self._op.matmat(V) if self._op is not None else self.K @ V
        return np.add(np.asarray(KV), self._divide_by_scale(V), out=out)

    def bias_columns(self):
        """The column ``E = 1`` that couples the intercept to the inner block."""
        return np.ones((self.n_train, 1))

    def to_dense(self):
        """The system matrix as a dense array, assembled block by block."""
        if self._op is not None:
            return super().to_dense()
        self._check_dense(2 if sp.issparse(self.K) else 1)
        K = self.K.toarray() if sp.issparse(self.K) else np.asarray(self.K)
        A = np.zeros((self.size, self.size))
        A[0, 1:] = A[1:, 0] = 1.0
        A[1:, 1:] = K
        index = np.arange(1, self.size)
        A[index, index] += 1.0 / self.error_scale
        return A

    def rhs(self, Y):
        """Right-hand sides ``[0; y]`` for a block ``Y`` of +-1 labels (n_train, k)."""
        Y = self._label_block(Y)
        return np.vstack([np.zeros((1, Y.shape[1])), Y])

    def split(self, x):
        """Split solutions ``x`` (size, k) into ``intercepts`` (1, k) and ``dual`` (1, m, k)."""
        return x[:1], x[1:][None]
