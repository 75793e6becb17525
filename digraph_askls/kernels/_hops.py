"""Sparse products of a graph's in-links and out-links, in threads, into given arrays.

A walk ``W = D^-1 (A + beta A^T + I)`` (row ``i`` of ``A`` lists the nodes linking to
``i``) is never assembled: every step of it, forwards (``W X``) or backwards
(``W^T Y``), is a product with ``A`` and one with ``A^T`` added into one output. The
graph's own matrix (row = source) *is* ``A^T``: only its values are held again, in the
precision of the hops, and ``A`` is its one transposed copy. Both matrices are cut into
the same row blocks, balanced by their stored entries, and each thread adds the
products of its rows (SciPy's sparse product releases the interpreter lock but runs on
one core).
"""

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import sparse
from scipy.sparse import _sparsetools

__all__ = ["LinkProducts", "block_width", "default_n_threads", "threaded_product"]


def default_n_threads():
    """Threads of the sparse products: ``OMP_NUM_THREADS`` if set, else the usable CPUs.

    joblib's process workers set ``OMP_NUM_THREADS`` to their share of the cores, so
    products inside parallel trials do not oversubscribe the machine.
    """
    value = os.environ.get("OMP_NUM_THREADS", "")
    if value.strip().isdigit() and int(value) > 0:
        return int(value)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # not on Linux
        return os.cpu_count() or 1


def _csr(matrix, dtype):
    """``matrix`` as CSR in ``dtype``, sharing its index arrays (a copy of the values only
    when the precision differs), with index arrays of one integer type."""
    matrix = sparse.csr_array(matrix)
    if matrix.indptr.dtype != matrix.indices.dtype:
        index = np.result_type(matrix.indptr, matrix.indices)
        matrix = sparse.csr_array((matrix.data, matrix.indices.astype(index, copy=False),
                                   matrix.indptr.astype(index, copy=False)),
                                  shape=matrix.shape, copy=False)
    if matrix.data.dtype != dtype:
        matrix = sparse.csr_array((matrix.data.astype(dtype), matrix.indices, matrix.indptr),
                                  shape=matrix.shape, copy=False)
    return matrix


class LinkProducts:
    """The pair ``(A, A^T)`` of a square sparse matrix and its products in threads.

    Parameters
    ----------
    forward : sparse matrix of shape (n, n)
        ``A``.
    backward : sparse matrix, optional
        ``A^T`` when already at hand (e.g. the graph's own matrix); else transposed once.
    dtype : numpy dtype
        Precision of the stored values and of the products.
    n_threads : int, optional
        Default :func:`default_n_threads`.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.kernels._hops import LinkProducts
    >>> links = LinkProducts(sparse.csr_array(np.array([[0.0, 1.0], [2.0, 0.0]])))
    >>> out = np.zeros((2, 1))
    >>> links.accumulate(out, np.ones((2, 1)), np.ones((2, 1)))   # out += A x + A^T x
    >>> out.ravel().tolist()
    [3.0, 3.0]
    """

    #: Below this many stored entries one thread is cheaper than starting more.
    min_nnz = 200_000

    def __init__(self, forward, backward=None, dtype=np.float64, n_threads=None):
        self.dtype = np.dtype(dtype)
        self.forward = _csr(forward, self.dtype)
        if backward is None:
            backward = self.forward.T.tocsr()
        self.backward = _csr(backward, self.dtype)
        if self.forward.shape[0] != self.forward.shape[1] or (
                self.backward.shape != self.forward.shape):
            raise ValueError(f"the links must be square and of one shape, got "
                             f"{self.forward.shape} and {self.backward.shape}")
        self.shape = self.forward.shape
        self.n_threads = default_n_threads() if n_threads is None else int(n_threads)
        self.blocks = self._cut()

    def _cut(self):
        """Row ranges of about equal work (stored entries of both matrices)."""
        n = self.shape[0]
        work = self.forward.indptr.astype(np.int64) + self.backward.indptr
        if self.n_threads <= 1 or work[-1] < self.min_nnz:
            return [(0, n)]
        cuts = np.searchsorted(work, np.linspace(0, work[-1], self.n_threads + 1))
        cuts[0], cuts[-1] = 0, n
        cuts = np.unique(cuts)
        return list(zip(cuts[:-1].tolist(), cuts[1:].tolist()))

    def __getstate__(self):
        return dict(forward=self.forward, backward=self.backward, dtype=self.dtype,
                    n_threads=self.n_threads)

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.shape = self.forward.shape
        self.blocks = self._cut()

    @property
    def nbytes(self):
        """Memory held by the two matrices (shared index arrays counted once)."""
        seen, total = set(), 0
        for matrix in (self.forward, self.backward):
            for array in (matrix.data, matrix.indices, matrix.indptr):
                base = array.base if array.base is not None else array
                if id(base) not in seen:
                    seen.add(id(base))
                    total += array.nbytes
        return total

    def run(self, work):
        """Call ``work(lo, hi)`` on every row block, in threads when there are several."""
        if len(self.blocks) == 1:
            work(*self.blocks[0])
            return
        with ThreadPoolExecutor(len(self.blocks)) as pool:
            for future in [pool.submit(work, lo, hi) for lo, hi in self.blocks]:
                future.result()

    @staticmethod
    def _add_product(matrix, lo, hi, X, out):
        """``out[lo:hi] += matrix[lo:hi] @ X`` in place (C-contiguous ``X`` and ``out``)."""
        if hi <= lo or X.shape[1] == 0:
            return
        _sparsetools.csr_matvecs(hi - lo, matrix.shape[1], X.shape[1],
                                 matrix.indptr[lo:hi + 1], matrix.indices, matrix.data,
                                 X.reshape(-1), out[lo:hi].reshape(-1))

    def add_rows(self, lo, hi, out, X=None, Y=None):
        """``out[lo:hi] += A[lo:hi] @ X + A^T[lo:hi] @ Y`` (either may be None)."""
        if X is not None:
            self._add_product(self.forward, lo, hi, X, out)
        if Y is not None:
            self._add_product(self.backward, lo, hi, Y, out)

    def accumulate(self, out, X=None, Y=None):
        """``out += A @ X + A^T @ Y`` in threads; all arrays C-contiguous in ``dtype``."""
        for array in (out, X, Y):
            if array is not None and (array.dtype != self.dtype
                                      or not array.flags.c_contiguous):
                raise ValueError(f"blocks must be C-contiguous {self.dtype}, got "
                                 f"{array.dtype} (contiguous: {array.flags.c_contiguous})")
        self.run(lambda lo, hi: self.add_rows(lo, hi, out, X, Y))


#: Bytes of one block of columns of a wide dense factor in :func:`threaded_product`.
PRODUCT_BLOCK_BYTES = 4 << 20

#: Stored entries per row of the dense factor from which :func:`threaded_product` goes
#: through it in blocks of columns: below, each row is read a few times only and the
#: blocks' copies cost more than the cache saves (CiteSeer's links, 3.7 per row).
BLOCK_REUSE = 8


def block_width(n_rows, itemsize, n_columns, block_bytes=None, min_width=16):
    """Columns per block of an ``n_rows``-row dense factor: about ``block_bytes``
    (default :data:`PRODUCT_BLOCK_BYTES`), at least ``min_width`` (fewer would read the
    sparse matrix once per few columns), at most ``n_columns``.

    >>> block_width(3312, 8, 3703), block_width(100_000, 8, 128), block_width(50, 8, 10)
    (158, 16, 10)
    """
    block_bytes = PRODUCT_BLOCK_BYTES if block_bytes is None else block_bytes
    return int(min(n_columns, max(min_width, block_bytes // max(1, n_rows * itemsize))))


def threaded_product(matrix, X, n_threads=None):
    """``matrix @ X`` for a CSR matrix and a dense block, in threads over row blocks.

    Each row is summed by the same loop as SciPy's product, so the result is the same
    to the last bit; below :attr:`LinkProducts.min_nnz` stored entries it is SciPy's.
    A wide ``X`` whose rows the product reads many times (at least
    :data:`BLOCK_REUSE` stored entries per row of ``X``), or that is not C-contiguous,
    goes through in blocks of columns (:func:`block_width`): the rows of a block stay in
    cache between their reads, where all the columns at once read whole rows of ``X``
    from memory for every stored entry (and copy a transposed ``X`` whole first). One
    core: Squirrel's attributes propagated over its links, a block of 2,000 labelled
    nodes, 4.4 s -> 3.0 s; the same numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.kernels._hops import threaded_product
    >>> threaded_product(sparse.csr_array(np.array([[1.0, 2.0], [0.0, 3.0]])), np.ones((2, 1)))
    array([[3.],
           [3.]])
    """
    X = np.asarray(X)
    if sparse.issparse(matrix) and matrix.format == "csr" and X.ndim == 2 and (
            matrix.nnz >= BLOCK_REUSE * X.shape[0] or not X.flags.c_contiguous):
        width = block_width(X.shape[0], X.dtype.itemsize, X.shape[1])
        if width < X.shape[1]:
            out = np.empty((matrix.shape[0], X.shape[1]),
                           dtype=np.result_type(matrix.dtype, X.dtype))
            for first in range(0, X.shape[1], width):
                out[:, first:first + width] = _rows_product(
                    matrix, np.ascontiguousarray(X[:, first:first + width]), n_threads)
            return out
    return _rows_product(matrix, X, n_threads)


def _rows_product(matrix, X, n_threads):
    """:func:`threaded_product` on all the columns of ``X`` at once."""
    n_threads = default_n_threads() if n_threads is None else int(n_threads)
    if (not sparse.issparse(matrix) or matrix.format != "csr" or X.ndim != 2
            or n_threads <= 1 or matrix.nnz < LinkProducts.min_nnz):
        return matrix @ X
    matrix = _csr(matrix, np.result_type(matrix.dtype, X.dtype))
    X = np.ascontiguousarray(X, dtype=matrix.dtype)
    out = np.zeros((matrix.shape[0], X.shape[1]), dtype=matrix.dtype)
    cuts = np.unique(np.concatenate([[0], np.searchsorted(
        matrix.indptr, np.linspace(0, matrix.nnz, n_threads + 1)[1:-1]), [matrix.shape[0]]]))
    with ThreadPoolExecutor(len(cuts) - 1) as pool:
        for future in [pool.submit(LinkProducts._add_product, matrix, lo, hi, X, out)
                       for lo, hi in zip(cuts[:-1].tolist(), cuts[1:].tolist())]:
            future.result()
    return out
