"""A sparse kernel partitioned by row blocks over the workers of a dask cluster.

The kernel never returns to the client: each worker keeps its CSR row blocks ``K_b``
and only blocks of vectors travel. For ``Y = K X`` every block computes its rows
``K_b X``; for ``Y = K^T X`` every block computes ``K_b^T X_b`` (``X_b`` the rows of
``X`` matching the block) and the client adds the partial sums in block order. The
Krylov iteration stays on the client, so the operator plugs into
:class:`digraph_askls.linalg.AsKLSSystem` and every solver of
:func:`digraph_askls.linalg.solve_system` unchanged.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from ._lazy import import_optional
from ._lost import run_on_copies

__all__ = ["DaskKernelOperator", "row_block_bounds", "INLINE_BYTES"]

#: Vector blocks up to this size are sent inside the tasks (one message fewer per
#: product); larger ones are scattered to the workers first.
INLINE_BYTES = 2**20


def row_block_bounds(n_rows, n_blocks, indptr=None):
    """Boundaries of ``n_blocks`` contiguous row blocks, balanced by rows or by non-zeros.

    Parameters
    ----------
    n_rows : int
        Number of rows.
    n_blocks : int
        Number of blocks (at most ``n_rows``).
    indptr : ndarray, optional
        CSR row pointer; when given the blocks hold about the same number of non-zeros.

    Returns
    -------
    ndarray of int of shape (n_blocks + 1,)
        Block ``b`` holds rows ``bounds[b]:bounds[b + 1]``.

    Examples
    --------
    >>> row_block_bounds(10, 3).tolist()
    [0, 4, 7, 10]
    """
    if not isinstance(n_blocks, numbers.Integral) or not 1 <= n_blocks <= max(n_rows, 1):
        raise ValueError(f"n_blocks must be an integer in [1, {n_rows}], got {n_blocks!r}")
    if indptr is None or indptr[-1] == 0:
        return np.array([(n_rows * b + n_blocks - 1) // n_blocks if b < n_blocks else n_rows
                         for b in range(n_blocks + 1)], dtype=np.int64)
    targets = indptr[-1] * np.arange(1, n_blocks) / n_blocks
    inner = np.searchsorted(indptr, targets)
    # Keep every block non-empty and the boundaries increasing.
    inner = np.maximum(inner, np.arange(1, n_blocks))
    inner = np.minimum(inner, n_rows - n_blocks + np.arange(1, n_blocks))
    inner = np.maximum.accumulate(inner)
    return np.concatenate([[0], inner, [n_rows]]).astype(np.int64)


def _block_structure(block, start):
    """Diagonal, off-diagonal row counts and column counts of rows ``start:`` of a kernel."""
    coo = block.tocoo()
    rows = coo.row + start
    diagonal_entry = rows == coo.col
    diagonal = np.zeros(block.shape[0])
    np.add.at(diagonal, coo.row[diagonal_entry], coo.data[diagonal_entry])
    off = ~diagonal_entry & (coo.data != 0)
    row_counts = np.bincount(coo.row[off], minlength=block.shape[0])
    col_counts = np.bincount(coo.col[off], minlength=block.shape[1])
    return diagonal, row_counts, col_counts


def _block_matmat(block, X):
    return block @ X


def _block_rmatmat(block, X):
    return block.T @ X


class DaskKernelOperator(LinearOperator):
    """A sparse kernel held by row blocks on a dask cluster, as a ``LinearOperator``.

    Parameters
    ----------
    K : sparse matrix of shape (n_rows, n_cols)
        The kernel, e.g. the graph kernel restricted to the training nodes. It is cut
        into CSR row blocks that are scattered to the workers (round robin); the
        operator keeps only their futures.
    client : dask.distributed.Client
        The cluster that holds the blocks and computes the products.
    n_blocks : int, optional
        Number of row blocks; the default is the number of workers. Blocks hold about
        the same number of non-zeros.
    transpose : {"store", "reduce"}, default="store"
        How ``K^T X`` is computed. ``"store"``: row blocks of ``K^T`` are kept as well
        (twice the memory) and ``K^T X`` is gathered by rows like ``K X``: bit for bit
        the local product, and ``n_cols * k`` floats in all come back. ``"reduce"``:
        only ``K`` is kept; each row block returns ``K_b^T X_b`` (``n_cols * k``
        floats per block) and the client adds them in block order, so the solver's
        iterates drift from the local ones by amplified rounding errors.
    replicas : int, default=1
        Workers holding a copy of each row block. Scattered blocks live only in their
        workers' memory: with one copy, a worker lost during a solve takes its blocks
        with it and the solve stops with :class:`WorkerLostError`; with two or more, a
        product whose copy was lost runs again on the next copy, and the solve completes
        with the same answer (``replicas - 1`` losses of a block's workers are survived,
        at ``replicas`` times the memory).

    Attributes
    ----------
    bounds : ndarray of int
        Block ``b`` holds rows ``bounds[b]:bounds[b + 1]``.
    nnz : int
        Stored entries of the kernel.

    Notes
    -----
    A product with a block of ``k`` vectors sends ``X`` (``n_cols * k`` floats) to every
    worker and brings back ``n_rows * k`` floats for ``K X``; for ``K^T X`` each block
    receives its ``X_b`` and returns ``n_cols * k`` floats. Products are exact block by
    block: ``K X`` equals the local product bit for bit, ``K^T X`` up to the order of
    the final sum over blocks.

    Examples
    --------
    Without a cluster at hand the products can be checked on an in-process one
    (``Client(processes=False)``)::

        >>> import numpy as np, scipy.sparse as sp
        >>> from dask.distributed import Client
        >>> from digraph_askls.distributed import DaskKernelOperator
        >>> K = sp.random(50, 50, density=0.1, format="csr", random_state=0)
        >>> with Client(processes=False, n_workers=1, dashboard_address=None) as client:
        ...     op = DaskKernelOperator(K, client, n_blocks=3)
        ...     X = np.ones((50, 2))
        ...     ok = np.allclose(op @ X, K @ X) and np.allclose(op.T @ X, K.T @ X)
        >>> ok
        True
    """

    def __init__(self, K, client, n_blocks=None, transpose="store", replicas=1):
        import_optional("dask.distributed")
        if transpose not in ("reduce", "store"):
            raise ValueError(f"transpose must be 'reduce' or 'store', got {transpose!r}")
        if not sp.issparse(K):
            raise TypeError(f"K must be a scipy sparse matrix, got {type(K).__name__}")
        K = sp.csr_matrix(K, dtype=np.float64)
        workers = sorted(client.scheduler_info()["workers"])
        if not workers:
            raise ValueError("the dask client has no workers, got 0")
        if (not isinstance(replicas, numbers.Integral) or isinstance(replicas, bool)
                or not 1 <= replicas <= len(workers)):
            raise ValueError(f"replicas must be an integer in [1, {len(workers)}] (the "
                             f"workers of the cluster), got {replicas!r}")
        self.replicas = int(replicas)
        if n_blocks is None:
            n_blocks = min(len(workers), K.shape[0])
        super().__init__(dtype=np.float64, shape=K.shape)
        self.client = client
        self.nnz = int(K.nnz)
        self._structure_cache = None
        self.bounds = row_block_bounds(K.shape[0], n_blocks, K.indptr)
        self._holders = [[workers[(b + r) % len(workers)] for r in range(self.replicas)]
                         for b in range(n_blocks)]
        self.transpose = transpose
        self._blocks = self._scatter_rows(K, self.bounds)
        self._transposed_blocks = None
        if transpose == "store":
            KT = K.T.tocsr()
            self.transposed_bounds = row_block_bounds(K.shape[1], min(n_blocks, K.shape[1]),
                                                      KT.indptr)
            self._transposed_blocks = self._scatter_rows(KT, self.transposed_bounds)

    def _scatter_rows(self, K, bounds):
        """The copies ``[(future, worker), ...]`` of each row block, one key per copy."""
        return [[(self.client.scatter(K[start:stop], workers=[worker], hash=False), worker)
                 for worker in holders]
                for start, stop, holders in zip(bounds[:-1], bounds[1:], self._holders)]

    @property
    def n_blocks(self):
        """Number of row blocks."""
        return len(self._blocks)

    def _structure(self):
        if self._structure_cache is None:
            parts = run_on_copies(self.client, _block_structure, self._blocks,
                                  lambda b: (self.bounds[b],), "the kernel's structure")
            self._structure_cache = (np.concatenate([p[0] for p in parts]),
                                     np.concatenate([p[1] for p in parts]),
                                     sum(p[2] for p in parts))
        return self._structure_cache

    def diagonal(self):
        """The diagonal of a square kernel, computed by the workers.

        Together with :meth:`off_diagonal_counts` it lets
        :class:`digraph_askls.linalg.AsKLSSystem` find structurally singular systems
        (decoupled samples with ``gamma * |K_ii| = 1``) before iterating, as for a
        local sparse kernel.
        """
        if self.shape[0] != self.shape[1]:
            raise ValueError(f"the diagonal needs a square kernel, got shape {self.shape}")
        return self._structure()[0]

    def off_diagonal_counts(self):
        """Non-zero off-diagonal entries of each row and of each column."""
        if self.shape[0] != self.shape[1]:
            raise ValueError(f"off-diagonal counts need a square kernel, got shape "
                             f"{self.shape}")
        return self._structure()[1:]

    def _send(self, X, workers, broadcast=False):
        """Small blocks travel inside the task; large ones are scattered once first (to
        every worker when blocks have copies: a task may run again on another)."""
        if X.nbytes <= INLINE_BYTES:
            return X
        if self.replicas > 1:
            return self.client.scatter(X, broadcast=True, hash=False)
        return self.client.scatter(X, workers=sorted(set(workers)), broadcast=broadcast,
                                   hash=False)

    def _as_block(self, X):
        X = np.asarray(X, dtype=np.float64)
        return X[:, None] if X.ndim == 1 else X

    def _matmat(self, X):
        return self._row_products(self._blocks, X)

    def _row_products(self, blocks, X):
        X = np.ascontiguousarray(self._as_block(X))
        workers = sorted({holders[0] for holders in self._holders})
        shared = self._send(X, workers, broadcast=True)
        return np.vstack(run_on_copies(self.client, _block_matmat, blocks, lambda b: (shared,),
                                       "a product with the kernel"))

    def _rmatmat(self, X):
        if self._transposed_blocks is not None:
            return self._row_products(self._transposed_blocks, X)
        X = self._as_block(X)
        parts = [self._send(np.ascontiguousarray(X[start:stop]), self._holders[b][:1])
                 for b, (start, stop) in enumerate(zip(self.bounds[:-1], self.bounds[1:]))]
        total = None
        for partial in run_on_copies(self.client, _block_rmatmat, self._blocks,
                                     lambda b: (parts[b],),
                                     "a product with the kernel's transpose"):
            total = partial if total is None else total + partial
        return total

    def _matvec(self, x):
        return self._matmat(x).ravel()

    def _rmatvec(self, x):
        return self._rmatmat(x).ravel()

    def close(self):
        """Release the blocks held by the workers."""
        for copies in self._blocks + (self._transposed_blocks or []):
            for block, _ in copies:
                block.release()
        self._blocks, self._transposed_blocks = [], None

    def __repr__(self):
        return (f"<DaskKernelOperator {self.shape[0]}x{self.shape[1]} nnz={self.nnz} "
                f"in {self.n_blocks} row blocks>")

