"""Multi-hop walk kernels applied through sparse products, never formed.

The kernels are truncated personalised-PageRank series of a row-normalised walk on the
graph with self-loops. Each product with the kernel (or its transpose) costs ``n_hops``
sparse products with the walk matrix: memory and time are ``O(nnz * n_hops)`` per
column, and many columns are pushed through at once.
"""

import numbers
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import LinearOperator

from digraph_askls._memory import check_dense_allocation
from digraph_askls.graph import get_adjacency

__all__ = ["WalkSeriesKernel", "default_n_threads", "get_walk_matrix", "get_ppr_kernel"]


def get_walk_matrix(adjacency, beta=1.0):
    """Return the row-normalised walk ``W = D^{-1} (A + beta A^T + I)``.

    ``A[i, j] = adjacency[j, i]`` is the weight of the edge ``j -> i``: row ``i`` of
    ``A`` lists the in-links of node ``i``, as in the paper's in-degree kernel.

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
        ``adjacency[i, j]`` = weight of the edge ``i -> j``.
    beta : float, default=1.0
        Weight of the reverse (out-link) direction: ``0`` walks along in-links only,
        ``1`` ignores directions, other values weigh the two directions unequally.

    Returns
    -------
    W : scipy.sparse.csr_array of shape (n_nodes, n_nodes)
        Row-stochastic.

    Examples
    --------
    >>> from digraph_askls.kernels import get_walk_matrix
    >>> get_walk_matrix([(0, 1)], beta=0.0).toarray()
    array([[1. , 0. ],
           [0.5, 0.5]])
    """
    return _walk_and_degrees(adjacency, beta)[0]


def _walk_and_degrees(adjacency, beta):
    links, degrees = _links_and_degrees(adjacency, beta)
    walk = sparse.csr_array(links + sparse.eye_array(links.shape[0], format="csr"))
    walk.sum_duplicates()
    # Row scaling on the stored entries: a sparse diagonal product costs a full pass more.
    walk.data /= np.repeat(degrees, np.diff(walk.indptr))
    walk.sort_indices()
    return walk, degrees


def _links_and_degrees(adjacency, beta):
    """``M = A + beta A^T`` (no self-loops added) and the degrees of ``M + I``."""
    if not isinstance(beta, numbers.Real) or not np.isfinite(beta) or beta < 0:
        raise ValueError(f"beta must be a finite number >= 0, got {beta!r}")
    adjacency, _ = get_adjacency(adjacency)
    A = sparse.csr_array(adjacency.T, dtype=np.float64)
    reverse = sparse.csr_array(adjacency, dtype=np.float64)
    if beta != 1:
        reverse = float(beta) * reverse
    links = sparse.csr_array(A + reverse)
    links.sum_duplicates()
    links.eliminate_zeros()
    degrees = links.sum(axis=1) + 1.0
    return links, np.asarray(degrees, dtype=np.float64).ravel()


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


class _RowBlocks:
    """A CSR matrix cut into row blocks of equal nnz, multiplied in threads.

    SciPy's sparse-dense product runs in C without the interpreter lock but on one core;
    the blocks share the matrix's arrays (no copy) and their products run concurrently.
    On 2 cores a product of the 1M-node SBM's ``A + A^T`` (2.0e7 entries) with 10-40
    float32 columns takes 0.30-0.62 s against 0.52-1.28 s in one call
    (``benchmarks/bench_threads.py``).
    """

    #: Below this many stored entries a single call is cheaper than starting threads.
    min_nnz = 200_000

    def __init__(self, matrix, n_threads=None):
        self.matrix = matrix
        self.shape = matrix.shape
        self.n_threads = default_n_threads() if n_threads is None else int(n_threads)
        self.blocks = None
        if self.n_threads > 1 and matrix.nnz >= self.min_nnz:
            targets = np.linspace(0, matrix.nnz, self.n_threads + 1)
            cuts = np.unique(np.searchsorted(matrix.indptr, targets))
            cuts[0], cuts[-1] = 0, matrix.shape[0]
            cuts = np.unique(cuts)
            self.blocks = [(lo, hi, self._view(lo, hi)) for lo, hi in zip(cuts[:-1], cuts[1:])]

    def __getstate__(self):
        # The blocks are views of the matrix: pickled, they would be copies of it.
        return dict(matrix=self.matrix, n_threads=self.n_threads)

    def __setstate__(self, state):
        self.__init__(state["matrix"], state["n_threads"])

    def _view(self, lo, hi):
        m = self.matrix
        start, stop = m.indptr[lo], m.indptr[hi]
        block = sparse.csr_array((m.data[start:stop], m.indices[start:stop],
                                  m.indptr[lo:hi + 1] - start),
                                 shape=(hi - lo, m.shape[1]), copy=False)
        # SciPy copies a slice much smaller than its base ("pruning"): put the views back.
        block.data, block.indices = m.data[start:stop], m.indices[start:stop]
        block.indptr = block.indptr.astype(block.indices.dtype, copy=False)
        block.has_sorted_indices = m.has_sorted_indices
        return block

    def __matmul__(self, X):
        if self.blocks is None or len(self.blocks) == 1:
            return self.matrix @ X
        out = np.empty((self.shape[0],) + X.shape[1:], dtype=np.result_type(self.matrix, X))

        def work(item):
            lo, hi, block = item
            out[lo:hi] = block @ X

        with ThreadPoolExecutor(len(self.blocks)) as pool:
            list(pool.map(work, self.blocks))
        return out


class WalkSeriesKernel(LinearOperator):
    """The operator ``K = sum_{k=1..n_hops} c^(k-1) W^k`` of a square sparse walk ``W``.

    Products are evaluated by Horner's scheme, ``K x = W (x + c W (x + c W (... W x)))``,
    and ``K^T x`` the same way with ``W^T``: ``n_hops`` sparse products each, the dense
    kernel is never formed. The sparse products run in ``n_threads`` threads on row
    blocks of the walk.

    Parameters
    ----------
    walk : sparse matrix of shape (n, n)
        The one-step walk ``W``.
    c : float, default=0.85
        Damping (continuation probability) of the series.
    n_hops : int, default=10
        Number of terms.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        Precision of the stored walk and of the hops. Products are returned in float64
        either way. float32 halves the memory of the walk and makes a product with a
        block of 10-20 columns 1.1-1.9x faster (measured on a 1M-node graph); its
        rounding, about 1e-7 relative, is far below the solver tolerances used here.
    n_threads : int, optional
        Threads of the sparse products; default :func:`default_n_threads`.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.kernels import WalkSeriesKernel
    >>> W = sparse.csr_array(np.array([[0.5, 0.5], [0.0, 1.0]]))
    >>> K = WalkSeriesKernel(W, c=0.5, n_hops=2)  # W + 0.5 W^2
    >>> K @ np.eye(2)
    array([[0.625, 0.875],
           [0.   , 1.5  ]])
    """

    def __init__(self, walk, c=0.85, n_hops=10, dtype=np.float64, n_threads=None):
        if not sparse.issparse(walk) or walk.ndim != 2 or walk.shape[0] != walk.shape[1]:
            raise ValueError(f"walk must be a square sparse matrix, got "
                             f"{type(walk).__name__} of shape {getattr(walk, 'shape', None)}")
        self._check_series(c, n_hops, dtype, n_threads)
        super().__init__(dtype=np.dtype(np.float64), shape=walk.shape)
        walk = sparse.csr_array(walk, dtype=self.hop_dtype)
        # W x = walk x; W^T y = walk^T y (stored as CSR: a row-major product is faster).
        self._forward = (_RowBlocks(walk, n_threads), None, None)
        self._backward = (_RowBlocks(sparse.csr_array(walk.T), n_threads), None, None)
        self._symmetric = False
        self._transposed = False

    def _check_series(self, c, n_hops, dtype, n_threads):
        if not isinstance(c, numbers.Real) or not 0 <= c <= 1:
            raise ValueError(f"c must be a number in [0, 1], got {c!r}")
        if not isinstance(n_hops, numbers.Integral) or n_hops < 1:
            raise ValueError(f"n_hops must be an integer >= 1, got {n_hops!r}")
        self.hop_dtype = np.dtype(dtype)
        if self.hop_dtype not in (np.dtype(np.float64), np.dtype(np.float32)):
            raise ValueError(f"dtype must be float64 or float32, got {self.hop_dtype}")
        if n_threads is not None and (not isinstance(n_threads, numbers.Integral)
                                      or n_threads < 1):
            raise ValueError(f"n_threads must be an integer >= 1 or None, got {n_threads!r}")
        self.c = float(c)
        self.n_hops = int(n_hops)
        self.n_threads = n_threads

    @classmethod
    def from_links(cls, links, degrees, c=0.85, n_hops=10, dtype=np.float64, n_threads=None,
                   symmetric=False):
        """The series of the walk ``W = D^{-1} (M + I)`` given ``M`` and ``D``'s diagonal.

        ``M`` is stored once (twice if not ``symmetric``, as ``M^T`` too) and the
        self-loop and the row scaling are applied to the dense blocks:
        ``W x = D^-1 (M x + x)``, ``W^T y = (M^T + I) D^-1 y``, so no walk matrix with
        the identity added is ever assembled. With ``symmetric`` (``M = M^T``, the
        undirected walk), :meth:`matmat_pair` pushes ``K X`` and ``K^T Y`` through one
        product with ``M`` per hop.
        """
        self = cls.__new__(cls)
        self._check_series(c, n_hops, dtype, n_threads)
        LinearOperator.__init__(self, dtype=np.dtype(np.float64), shape=links.shape)
        links = sparse.csr_array(links, dtype=self.hop_dtype)
        inverse = (1.0 / np.asarray(degrees, dtype=np.float64)).astype(self.hop_dtype)[:, None]
        forward = _RowBlocks(links, n_threads)
        backward = forward if symmetric else _RowBlocks(sparse.csr_array(links.T), n_threads)
        self._forward = (forward, inverse, "left")
        self._backward = (backward, inverse, "right")
        self._symmetric = bool(symmetric)
        self._transposed = False
        return self

    @staticmethod
    def _step(step, X):
        """One hop ``W X`` (or ``W^T X``) for a block ``X`` in the hop dtype."""
        matrix, inverse, side = step
        if side is None:
            return matrix @ X
        if side == "left":                # D^-1 (M X + X)
            out = matrix @ X
            out += X
            out *= inverse
            return out
        scaled = inverse * X              # (M^T + I) D^-1 X
        out = matrix @ scaled
        out += scaled
        return out

    def matmat_pair(self, X, Y):
        """Return ``(K @ X, K^T @ Y)``.

        For the undirected walk in float32, as :func:`get_ppr_kernel` builds it, both
        series run through one sparse product with the symmetric ``M`` per hop on the
        joined block ``[X, D^-1 Y]``: a product with twice the columns costs far less
        than two (1.3-1.5 s against 2 x 1.1 s for 10 + 10 float32 columns on a 1M-node
        graph). Otherwise two separate series.
        """
        if not self._symmetric:
            return self._matmat(X), self._rmatmat(Y)
        forward, backward = self._pair_hops(np.asarray(X, dtype=self.hop_dtype),
                                            np.asarray(Y, dtype=self.hop_dtype))
        return (forward.astype(np.float64, copy=False),
                backward.astype(np.float64, copy=False))

    def _pair_hops(self, X, Y):
        """:meth:`matmat_pair` of the undirected walk on blocks already in the hop dtype.

        Returns the two blocks in the hop dtype (views of one array), so that callers
        that keep only some rows convert only those.
        """
        if self._transposed:
            backward, forward = self._adjoint()._pair_hops(Y, X)
            return forward, backward
        matrix, inverse, _ = self._forward
        k = X.shape[1]
        # Joined block Z = [u, v] with u the forward state before scaling by D^-1 and
        # v the backward state already scaled: one product (M + I) Z per hop.
        start = np.empty((X.shape[0], k + Y.shape[1]), dtype=self.hop_dtype)
        start[:, :k] = X
        np.multiply(inverse, Y, out=start[:, k:])
        joined = matrix @ start
        joined += start
        del start
        for _ in range(self.n_hops - 1):
            joined[:, :k] *= inverse       # u -> W-applied forward state
            joined *= self.c
            joined[:, :k] += X
            joined[:, k:] += Y
            joined[:, k:] *= inverse
            nxt = matrix @ joined
            nxt += joined
            joined = nxt
        joined[:, :k] *= inverse
        return joined[:, :k], joined[:, k:]

    def _horner(self, forward, X):
        X = np.asarray(X, dtype=self.hop_dtype)
        step = self._forward if forward else self._backward
        out = self._step(step, X)
        for _ in range(self.n_hops - 1):
            out *= self.c
            out += X
            out = self._step(step, out)
        return out.astype(np.float64, copy=False)

    def _matvec(self, x):
        return self._horner(True, np.ravel(x)[:, None])[:, 0]

    def _rmatvec(self, x):
        return self._horner(False, np.ravel(x)[:, None])[:, 0]

    def _matmat(self, X):
        return self._horner(True, X)

    def _rmatmat(self, X):
        return self._horner(False, X)

    def _adjoint(self):
        adjoint = WalkSeriesKernel.__new__(WalkSeriesKernel)
        adjoint.__dict__.update(self.__dict__)
        LinearOperator.__init__(adjoint, dtype=self.dtype, shape=self.shape[::-1])
        adjoint._forward, adjoint._backward = self._backward, self._forward
        adjoint._transposed = not self._transposed
        return adjoint

    _transpose = _adjoint   # a real operator

    def to_dense(self):
        """Form the dense kernel (for tests on small graphs only)."""
        check_dense_allocation(
            (3,) + self.shape, what=f"the dense walk kernel of {self.shape[0]} nodes",
            remedy="use the kernel as an operator (its products), or restrict_kernel to "
                   "the nodes needed first")
        return self._matmat(np.eye(self.shape[1]))


def get_ppr_kernel(adjacency, alpha=0.9, beta=2.0, n_hops=20, dtype=np.float64,
                   n_threads=None):
    """Return the truncated personalised-PageRank kernel of a directed graph as an operator.

    ``K = sum_{k=1..n_hops} alpha^(k-1) W^k`` with ``W = D^{-1} (A + beta A^T + I)``
    (see :func:`get_walk_matrix`). ``K[i, j]`` is large when a short damped walk from
    ``i`` against the edges (and, with weight ``beta``, along them) reaches ``j``. The
    kernel is asymmetric unless ``beta = 1`` on a graph whose degrees are all equal.

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
        ``adjacency[i, j]`` = weight of the edge ``i -> j``.
    alpha : float, default=0.9
        Damping of the series (PageRank's continuation probability).
    beta : float, default=2.0
        Weight of the reverse direction (0: in-walk, 1: undirected walk; the default walks
        out-links twice as readily as in-links, an asymmetric kernel).
    n_hops : int, default=20
        Number of terms of the series.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        Precision of the hops (see :class:`WalkSeriesKernel`); the ``"float32"`` string
        works too.
    n_threads : int, optional
        Threads of the sparse products (default :func:`default_n_threads`: all usable
        cores, or ``OMP_NUM_THREADS``).

    Returns
    -------
    WalkSeriesKernel
        A ``LinearOperator`` of shape ``(n_nodes, n_nodes)``.

    Notes
    -----
    The defaults were chosen on 3 random 60/40 splits with the NodeClassifier default
    (joint stacking, gamma = 0.01): against ``alpha=0.85, beta=1, n_hops=10`` they give
    micro-F1 Cora 0.860 (0.857), CiteSeer 0.707 (0.703), Pubmed 0.832 (0.826) and 0.998
    (0.996) on a 20,000-node directed SBM with one-way flows.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import get_graph_kernel
    >>> K = get_graph_kernel("ppr", [(0, 1), (1, 2)], alpha=0.5, beta=0.0, n_hops=3)
    >>> (K @ np.ones(3)).round(3)  # each row of W sums to 1: 1 + 0.5 + 0.25
    array([1.75, 1.75, 1.75])
    """
    if beta != 1 or np.dtype(dtype) != np.float32:
        # The joined product pays off in float32 only: in float64 it measured no faster
        # on the 1M-node graph and 1.6x slower on Pubmed (3 classes: narrow blocks).
        return WalkSeriesKernel(get_walk_matrix(adjacency, beta=beta), c=alpha,
                                n_hops=n_hops, dtype=dtype, n_threads=n_threads)
    # W = D^-1 (M + I) with M = A + A^T symmetric: M alone is stored, once.
    links, degrees = _links_and_degrees(adjacency, 1.0)
    return WalkSeriesKernel.from_links(links, degrees, c=alpha, n_hops=n_hops, dtype=dtype,
                                       n_threads=n_threads, symmetric=True)


def _ppr_in(adjacency, alpha=0.9, n_hops=20, dtype=np.float64, n_threads=None):
    return get_ppr_kernel(adjacency, alpha=alpha, beta=0.0, n_hops=n_hops, dtype=dtype,
                          n_threads=n_threads)


def _ppr_out(adjacency, alpha=0.9, n_hops=20, dtype=np.float64, n_threads=None):
    # Walk along the out-links only: the in-walk of the reversed graph.
    adjacency, _ = get_adjacency(adjacency)
    return get_ppr_kernel(sparse.csr_array(adjacency.T), alpha=alpha, beta=0.0,
                          n_hops=n_hops, dtype=dtype, n_threads=n_threads)
