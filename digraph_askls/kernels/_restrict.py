"""Sub-blocks ``K[rows][:, cols]`` of kernels given as arrays, sparse matrices or operators."""

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import LinearOperator

from digraph_askls._memory import check_dense_allocation

__all__ = ["dense_block", "restrict_kernel", "views_pair_product"]


def restrict_kernel(K, rows, cols):
    """Return the block ``K[rows][:, cols]`` of a kernel, e.g. ``K(test, train)``.

    Parameters
    ----------
    K : numpy.ndarray, sparse matrix or scipy.sparse.linalg.LinearOperator
        Kernel of shape ``(n_rows, n_cols)``.
    rows, cols : array-like of int or of bool
        Indices (repeats allowed) or boolean masks of the rows and columns to keep.

    Returns
    -------
    numpy.ndarray, sparse CSR or LinearOperator
        Same kind as ``K`` (a sparse input gives CSR of the same family, array or
        matrix). A kernel with a ``restrict(rows, cols)`` method (such as
        :class:`FactoredKernel`) gives its own block. For a ``LinearOperator`` the block is never formed: a product scatters
        the vector into a full-size one (adding repeated columns), applies ``K`` and
        gathers the rows; ``matmat``, ``rmatvec`` and ``rmatmat`` work the same way.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.sparse.linalg import aslinearoperator
    >>> from digraph_askls.kernels import restrict_kernel
    >>> K = np.arange(9.0).reshape(3, 3)
    >>> restrict_kernel(K, [2, 0], [1])
    array([[7.],
           [1.]])
    >>> block = restrict_kernel(aslinearoperator(K), [2, 0], [1])
    >>> block.shape, block @ np.ones(1)
    ((2, 1), array([7., 1.]))
    """
    shape = getattr(K, "shape", None)
    if shape is None or len(shape) != 2:
        raise ValueError(f"K must be a 2-D matrix or operator, got shape {shape}")
    rows = _check_index(rows, shape[0], "rows")
    cols = _check_index(cols, shape[1], "cols")
    if isinstance(K, _RestrictedKernel):
        # A block of a block is a block of the kernel: one scatter and one gather per
        # product instead of two of each.
        return _RestrictedKernel(K.K, K.rows[rows], K.cols[cols])
    if callable(getattr(K, "restrict", None)):
        # Kernels that know their blocks (explicit feature maps, row-wise profiles).
        return K.restrict(rows, cols)
    if isinstance(K, LinearOperator):
        return _RestrictedKernel(K, rows, cols)
    if sparse.issparse(K):
        return K.tocsr()[rows][:, cols]
    if isinstance(K, np.ndarray):
        check_dense_allocation((rows.size, cols.size), K.dtype,
                               what="the dense kernel block K[rows][:, cols]",
                               remedy="pass the kernel as a sparse matrix or a LinearOperator")
        return K[np.ix_(rows, cols)]
    raise TypeError(
        f"K must be a numpy array, a sparse matrix or a LinearOperator, got {type(K).__name__}"
    )


def dense_block(K, rows, cols):
    """Return the block ``K[rows][:, cols]`` as a dense array, however ``K`` is given.

    A kernel that knows its blocks builds it (``restrict(...).to_dense()``); a sparse
    matrix is sliced; an operator is applied to the columns of the identity, one product
    with ``len(cols)`` columns (for a walk kernel: ``n_hops`` sparse products). The
    allocation is checked against the memory available.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.sparse.linalg import aslinearoperator
    >>> from digraph_askls.kernels import dense_block
    >>> dense_block(aslinearoperator(np.arange(9.0).reshape(3, 3)), [2, 0], [1])
    array([[7.],
           [1.]])
    """
    from digraph_askls._memory import check_dense_allocation

    rows = _check_index(rows, K.shape[0], "rows")
    cols = _check_index(cols, K.shape[1], "cols")
    if isinstance(K, np.ndarray):
        return np.asarray(K[np.ix_(rows, cols)], dtype=np.float64)
    check_dense_allocation((len(rows), len(cols)), what="a dense block of the kernel",
                           remedy="use explicit feature maps or the iterative solvers")
    block = restrict_kernel(K, rows, cols)
    if sparse.issparse(block):
        return block.toarray()
    if callable(getattr(block, "to_dense", None)):
        return np.asarray(block.to_dense(), dtype=np.float64)
    if isinstance(K, LinearOperator):
        check_dense_allocation((K.shape[0], len(cols)), what="the columns of an operator "
                               "kernel", remedy="use fewer training nodes or the iterative "
                               "solvers")
        return np.asarray(block.matmat(np.eye(len(cols))), dtype=np.float64)
    return np.asarray(block, dtype=np.float64)


def _check_index(index, size, what):
    index = np.asarray(index)
    if index.dtype == bool:
        if index.shape != (size,):
            raise ValueError(f"boolean {what} must have shape ({size},), got {index.shape}")
        return np.flatnonzero(index)
    if index.ndim != 1 or (index.size and not np.issubdtype(index.dtype, np.integer)):
        raise TypeError(
            f"{what} must be a 1-D array of integer indices or a boolean mask, got "
            f"{index.dtype} of shape {index.shape}"
        )
    index = index.astype(np.intp)
    if index.size and (index.min() < -size or index.max() >= size):
        raise ValueError(
            f"{what} must be indices in [0, {size}), got values in "
            f"[{index.min()}, {index.max()}]"
        )
    return np.where(index < 0, index + size, index)


def _has_repeats(index, size):
    """Whether ``index`` (valid, non-negative) repeats a value; O(size), no sort."""
    seen = np.zeros(size, dtype=bool)
    seen[index] = True
    return int(np.count_nonzero(seen)) < index.size


class _RestrictedKernel(LinearOperator):
    """The operator ``x -> K[rows][:, cols] @ x`` that never forms the block."""

    def __init__(self, K, rows, cols):
        dtype = K.dtype if K.dtype is not None else np.dtype(np.float64)
        super().__init__(dtype=dtype, shape=(len(rows), len(cols)))
        self.K = K
        self.rows = rows
        self.cols = cols
        self._rows_repeat = _has_repeats(rows, K.shape[0])
        self._cols_repeat = _has_repeats(cols, K.shape[1])

    @staticmethod
    def _scatter(values, index, size, repeat, dtype=None):
        dtype = np.result_type(values, np.float64) if dtype is None else dtype
        full = np.zeros((size,) + values.shape[1:], dtype=dtype)
        if repeat:
            np.add.at(full, index, values)  # repeated indices add up, as in K[:, cols] @ x
        else:
            full[index] = values
        return full

    def _matvec(self, x):
        x = np.asarray(x).reshape(len(self.cols))
        full = self._scatter(x, self.cols, self.K.shape[1], self._cols_repeat)
        return np.asarray(self.K.matvec(full)).reshape(-1)[self.rows]

    def _rmatvec(self, x):
        x = np.asarray(x).reshape(len(self.rows))
        full = self._scatter(x, self.rows, self.K.shape[0], self._rows_repeat)
        return np.asarray(self.K.rmatvec(full)).reshape(-1)[self.cols]

    def _matmat(self, X):
        full = self._scatter(np.asarray(X), self.cols, self.K.shape[1], self._cols_repeat)
        return np.asarray(self.K.matmat(full))[self.rows]

    def _rmatmat(self, X):
        full = self._scatter(np.asarray(X), self.rows, self.K.shape[0], self._rows_repeat)
        return np.asarray(self.K.rmatmat(full))[self.cols]

    def matmat_pair(self, X, Y):
        """Return ``(block @ X, block^T @ Y)``, in one pass when the kernel can."""
        return _scattered_pair(self.K, (X, self.cols, self._cols_repeat, self.rows),
                               (Y, self.rows, self._rows_repeat, self.cols))

    def _adjoint(self):
        return _RestrictedKernel(self.K.H, self.cols, self.rows)


def views_pair_product(source, target, X, Y):
    """``(source @ X, target^T @ Y)`` in one pass of the kernel when both are its blocks.

    For a square kernel (``K`` of the samples with themselves), both products scatter
    their coefficients onto ``cols`` and read the rows ``rows`` of ``K x`` and ``K^T y``.

    ``source = K[rows][:, cols]`` and ``target = K[cols][:, rows]`` (the two views of the
    same samples) are both read from ``K`` by its ``matmat_pair``: one joined walk instead
    of two. Returns None when the blocks are not of that form.
    """
    if not (isinstance(source, _RestrictedKernel) and isinstance(target, _RestrictedKernel)):
        return None
    if (source.K is not target.K or getattr(source.K, "matmat_pair", None) is None
            or source.K.shape[0] != source.K.shape[1]
            or not np.array_equal(source.rows, target.cols)
            or not np.array_equal(source.cols, target.rows)):
        return None
    return _scattered_pair(source.K, (X, source.cols, source._cols_repeat, source.rows),
                           (Y, source.cols, source._cols_repeat, source.rows))


def _scattered_pair(K, forward, backward):
    """``(K x)[rows_x]`` and ``(K^T y)[rows_y]`` for coefficients scattered onto columns.

    ``forward`` and ``backward`` are ``(values, cols, cols_repeat, rows)``. The kernel's
    ``matmat_pair`` runs both in one pass when it has one; a walk kernel
    (``pair_hops``) takes the scattered blocks in its hop precision, and only the rows
    kept are converted back to float64.
    """
    (X, x_cols, x_repeat, x_rows), (Y, y_cols, y_repeat, y_rows) = forward, backward
    hops = getattr(K, "pair_hops", None)
    dtype = K.hop_dtype if hops is not None else None
    scatter = _RestrictedKernel._scatter
    full_x = scatter(np.asarray(X), x_cols, K.shape[1], x_repeat, dtype)
    full_y = scatter(np.asarray(Y), y_cols, K.shape[0], y_repeat, dtype)
    if hops is not None:
        out_x, out_y = hops(full_x, full_y)
    elif getattr(K, "matmat_pair", None) is not None:
        out_x, out_y = K.matmat_pair(full_x, full_y)
    else:
        out_x, out_y = K.matmat(full_x), K.rmatmat(full_y)
    return (np.asarray(out_x)[x_rows].astype(np.float64, copy=False),
            np.asarray(out_y)[y_rows].astype(np.float64, copy=False))
