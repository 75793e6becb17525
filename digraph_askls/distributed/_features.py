"""Node attributes held by a dask cluster, and the attribute kernel propagated on it.

:class:`DaskFeatures` wraps a ``dask.array.Array`` of node attributes chunked by rows.
Passed to :meth:`NodeClassifier.fit <digraph_askls.NodeClassifier.fit>` (or a plain
dask array, which is wrapped with the current client), the attribute kernels are built
on the workers: the features are scaled to unit rows and propagated hop by hop there,
each row block of a one-step operator times the previous hop (the blocks of the hop
travel from worker to worker, never through the client). The one-step operators are
built there too, row block by row block, from the links of each block's nodes (their
indices alone: the client sends the pattern of the adjacency and of its transpose, about
a third of the bytes of the undirected operator, and builds none). What stays on the
workers is the explicit maps of every node, ``U`` and ``V`` of ``K = U V^T``
(:class:`DaskPropagatedKernel`), row block by row block. What reaches the client is
small: the rows of the labelled nodes (``m x D``, which the selection decomposes exactly
as the local kernel's, :func:`~digraph_askls.models._decomposition.thin_route`), the
products ``V[C]^T Z`` (``D x k``) and the scores of the nodes asked (``n x k``).
The labelled rows are gathered for the decomposition that asks for them and not kept
(the decomposition keeps its own factors).

Every block is the result of a task, not a scattered object: a worker lost during a fit
takes only copies with it, and dask computes the lost blocks again from the inputs it
still holds (the user's dask array and the operator blocks in the task specs).

The numbers are the local kernel's: a row of a sparse product, a unit row and a row's
scale are computed row by row, so a row block gives the same bits as the whole matrix.
"""

import numbers

import numpy as np
from scipy import sparse

from ..kernels._attributes import _mean_operator
from ..kernels._operator import KernelOperator
from ..kernels._propagated import _inverse_norms
from ._lazy import import_optional

__all__ = ["DaskFeatures", "DaskPropagatedKernel", "is_dask_array"]

#: The links each step averages over: the out-links (the adjacency's rows), the in-links
#: (its transpose's rows), or both.
_LINKS = {"out": ("out",), "in": ("in",), "undirected": ("out", "in")}


def is_dask_array(value):
    """Whether ``value`` is a ``dask.array.Array`` (without importing dask).

    Examples
    --------
    >>> import numpy as np
    >>> is_dask_array(np.ones((2, 2)))
    False
    """
    return (hasattr(value, "__dask_graph__") and hasattr(value, "chunks")
            and hasattr(value, "ndim"))


def current_client():
    """The client of the current ``distributed.Client``, or an error that says so."""
    distributed = import_optional("dask.distributed")
    try:
        return distributed.default_client()
    except ValueError as error:
        raise ValueError(
            "node attributes given as a dask array are propagated on the cluster of the "
            "current dask.distributed.Client, but no client is running: start one "
            "(Client(LocalCluster(...)) or Client('tcp://scheduler:8786')), or pass "
            "DaskFeatures(X, client=client), or numpy features") from error


# ---- tasks (run on the workers) --------------------------------------------------------

def _count_not_finite(chunk):
    return int(np.size(chunk) - np.count_nonzero(np.isfinite(chunk)))


def _unit_rows(chunk):
    from sklearn.preprocessing import normalize

    return normalize(np.ascontiguousarray(chunk, dtype=np.float64), norm="l2")


def _identity(value):
    return value


def _pattern_rows(pattern, start, stop):
    """The links of nodes ``start:stop`` of a CSR pattern: ``(indptr, indices)``."""
    first, last = pattern.indptr[start], pattern.indptr[stop]
    return (np.asarray(pattern.indptr[start:stop + 1] - first),
            np.asarray(pattern.indices[first:last]))


def _step_rows(start, n, self_loops, *patterns):
    """Rows ``start:`` of the mean operator over the links of every pattern given (the
    out-links, the in-links, or both for the undirected step): the rows of
    :func:`~digraph_askls.kernels._attributes._mean_operator` of the whole graph."""
    links = None
    for indptr, indices in patterns:
        block = sparse.csr_array((np.ones(indices.size), indices, indptr),
                                 shape=(indptr.size - 1, n))
        links = block if links is None else links + block
    return _mean_operator(links, self_loops, start)


def _hop(step_rows, *chunks):
    """One hop of a row block: its rows of the one-step operator times the whole
    previous hop (its blocks, in order)."""
    return np.asarray(step_rows @ np.vstack(chunks))


def _map_block(pieces, weights, renormalize):
    """The rows of one map on a row block: each block of the map weighted (and scaled to
    unit rows where asked), side by side, as the local kernel's ``factors``."""
    out = []
    for index, (piece, weight) in enumerate(zip(pieces, weights)):
        if renormalize and index:
            piece = piece * _inverse_norms(piece)[:, None]
        out.append(weight * piece)
    return np.hstack(out)


def _map_block_task(weights, renormalize, *pieces):
    return _map_block(pieces, weights, renormalize)


def _rows_times(block, local, W):
    return block[local] @ W


def _rows_transposed_times(block, local, Z):
    return block[local].T @ Z


def _rows(block, local):
    return block[local]


def _dot(chunk, vector):
    return np.asarray(chunk @ vector, dtype=np.float64).ravel()


class DaskFeatures:
    """Node attributes on a dask cluster, for
    :meth:`NodeClassifier.fit(features=...) <digraph_askls.NodeClassifier.fit>`.

    Parameters
    ----------
    X : dask.array.Array of shape (n_nodes, n_features)
        Numbers (bool, int or float), in node order, chunked by rows (chunks along the
        features are joined first). Its row chunks are the row blocks of every
        propagation.
    client : dask.distributed.Client, optional
        The cluster; the current client by default.

    Attributes
    ----------
    shape : tuple
    bounds : ndarray of int
        Row block ``b`` holds nodes ``bounds[b]:bounds[b + 1]``.

    Notes
    -----
    The attributes are checked on the workers (finite values); nothing of size
    ``n_nodes x n_features`` comes to the client. Only the attribute kernels
    (:class:`~digraph_askls.kernels.AttributeKernel`) are built from them: a fit leaves
    any other candidate out, with a warning, and refuses a kernel named by the user
    that is not one.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from dask.distributed import Client
    >>> from digraph_askls.distributed import DaskFeatures
    >>> with Client(processes=False, n_workers=1, dashboard_address=None) as client:
    ...     features = DaskFeatures(da.ones((6, 2), chunks=(3, 2)))
    ...     keys = features @ np.array([1.0, 2.0])
    >>> features.shape, features.bounds.tolist(), keys.tolist()
    ((6, 2), [0, 3, 6], [3.0, 3.0, 3.0, 3.0, 3.0, 3.0])
    """

    def __init__(self, X, client=None):
        if not is_dask_array(X):
            raise TypeError(f"X must be a dask.array.Array, got {type(X).__name__}")
        if X.ndim != 2:
            raise ValueError(f"X must be 2-d (n_nodes, n_features), got shape {X.shape}")
        if np.dtype(X.dtype).kind not in "biuf":
            raise TypeError(f"features must hold numbers (bool, int or float), got dtype "
                            f"{X.dtype}")
        self.client = current_client() if client is None else client
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        self.shape = tuple(int(size) for size in X.shape)
        self.bounds = np.concatenate([[0], np.cumsum(X.chunks[0])]).astype(np.int64)
        self._chunks = self.client.compute(list(X.to_delayed()[:, 0]))
        bad = sum(self.client.gather([self.client.submit(_count_not_finite, chunk)
                                      for chunk in self._chunks]))
        if bad:
            raise ValueError(f"features must be finite, got {bad} NaN or infinite entries")

    @property
    def n_blocks(self):
        return len(self._chunks)

    def __matmul__(self, vector):
        """``X @ vector`` of a vector (n_features,), computed by the workers."""
        vector = np.asarray(vector, dtype=np.float64)
        return np.concatenate(self.client.gather(
            [self.client.submit(_dot, chunk, vector) for chunk in self._chunks]))

    def unit_rows(self):
        """The features scaled to unit rows, one future per row block."""
        return [self.client.submit(_unit_rows, chunk) for chunk in self._chunks]

    def propagated_kernel(self, adjacency, chains, self_loops, hops, self_weight,
                          renormalize):
        """The attribute kernel of these features, built on the workers (the arguments
        of :class:`DaskPropagatedKernel`)."""
        return DaskPropagatedKernel(self, adjacency, chains, self_loops, hops,
                                    self_weight, renormalize)

    def __repr__(self):
        return (f"<DaskFeatures {self.shape[0]}x{self.shape[1]} in {self.n_blocks} row "
                f"blocks>")


class DaskPropagatedKernel(KernelOperator):
    """The attribute kernel ``K = U V^T`` of features propagated on a dask cluster.

    The maps of every node stay on the workers, one row block per block of the features;
    the operator is what :func:`~digraph_askls.kernels.get_attribute_kernel` returns for
    :class:`DaskFeatures`. Its blocks (:meth:`restrict`) bring back the rows they are
    asked for: the labelled nodes' maps for the decomposition (:meth:`factors` of a
    block), the products with a few columns for the scores.

    Parameters
    ----------
    features : DaskFeatures
    adjacency : scipy.sparse.csr_array of shape (n_nodes, n_nodes)
        Canonical (:func:`~digraph_askls.graph.get_adjacency`): every stored entry a link.
    chains : sequence of (str, str)
        The steps of the source and target maps, each ``"undirected"``, ``"out"`` or
        ``"in"`` (:func:`~digraph_askls.kernels.get_attribute_kernel`'s chains).
    self_loops, hops, self_weight, renormalize
        As :func:`~digraph_askls.kernels.get_attribute_kernel`.

    Attributes
    ----------
    n_features : int
        Columns of each map (``D``).
    nbytes : int
        Bytes of the maps held by the workers.
    """

    def __init__(self, features, adjacency, chains, self_loops, hops, self_weight,
                 renormalize):
        if not isinstance(hops, numbers.Integral) or isinstance(hops, bool) or hops < 0:
            raise ValueError(f"hops must be an integer >= 0, got {hops!r}")
        n, d = features.shape
        super().__init__((n, n))
        self.features, self.client = features, features.client
        self.chains = [tuple(chain) for chain in chains]
        unknown = {step for chain in self.chains for step in chain} - set(_LINKS)
        if unknown:
            raise ValueError(f"unknown steps {sorted(unknown)}; choose from {list(_LINKS)}")
        self.self_loops = bool(self_loops)
        self.hops, self.self_weight = int(hops), float(self_weight)
        self.renormalize = bool(renormalize)
        blocks = [(self.self_weight, None, 0)] + [
            (1.0, c, h) for c in range(len(self.chains)) for h in range(1, self.hops + 1)]
        scale = 1.0 / np.sqrt(len(blocks))
        self._weights = [w * scale for w, _, _ in blocks]
        self._layout = [(c, h) for _, c, h in blocks]
        self.n_features = d * len(blocks)
        self.nbytes = 8 * n * self.n_features * (1 if self.is_symmetric else 2)
        self._maps = self._propagate(adjacency)

    @property
    def is_symmetric(self):
        return all(left == right for left, right in self.chains)

    @property
    def feature_names(self):
        d = self.features.shape[1]
        return [f"x:{j}" if c is None else f"c{c}h{h}:{j}"
                for c, h in self._layout for j in range(d)]

    def _propagate(self, adjacency):
        """The futures of the maps' row blocks: ``[source blocks, target blocks]`` (one
        list for a symmetric kernel)."""
        client, bounds = self.client, self.features.bounds
        unit = self.features.unit_rows()
        hops_of = {}                        # one propagation per distinct step
        for name, rows in self._steps(adjacency).items():
            current, hops = unit, []
            for _ in range(self.hops):
                current = [client.submit(_hop, block, *current, pure=False)
                           for block in rows]
                hops.append(current)
            hops_of[name] = hops
        maps = []
        for side in ((0,) if self.is_symmetric else (0, 1)):
            side_maps = []
            for b in range(len(unit)):
                pieces = [unit[b]] + [hops_of[self.chains[c][side]][h - 1][b]
                                      for c, h in self._layout[1:]]
                side_maps.append(client.submit(_map_block_task, self._weights,
                                               self.renormalize, *pieces, pure=False))
            maps.append(side_maps)
        return maps

    def _steps(self, adjacency):
        """The futures of each step's row blocks (none without hops), built on the
        workers from the links of each block's nodes.

        The links travel as patterns (``indptr``, ``indices``): each the result of a task,
        computed again if its worker is lost, and read by every step that needs it.
        """
        names = {step for chain in self.chains for step in chain} if self.hops else set()
        if not names:
            return {}
        client, bounds, n = self.client, self.features.bounds, self.shape[0]
        pattern = sparse.csr_array((np.ones(adjacency.nnz, dtype=bool), adjacency.indices,
                                    adjacency.indptr), shape=adjacency.shape)
        wanted = {links for name in names for links in _LINKS[name]}
        patterns = {}
        for links in sorted(wanted):
            matrix = pattern if links == "out" else sparse.csr_array(pattern.T)
            patterns[links] = [client.submit(_identity, _pattern_rows(matrix, start, stop),
                                             pure=False)
                               for start, stop in zip(bounds[:-1], bounds[1:])]
            del matrix
        return {name: [client.submit(_step_rows, int(start), n, self.self_loops,
                                     *[patterns[links][b] for links in _LINKS[name]],
                                     pure=False)
                       for b, start in enumerate(bounds[:-1])]
                for name in sorted(names)}

    def _side(self, side):
        return self._maps[0 if self.is_symmetric else side]

    def _by_block(self, index):
        """For each row block: the mask of ``index`` entries it holds and their rows in
        it."""
        bounds = self.features.bounds
        out = []
        for b, (start, stop) in enumerate(zip(bounds[:-1], bounds[1:])):
            mask = (index >= start) & (index < stop)
            if mask.any():
                out.append((b, mask, index[mask] - start))
        return out

    def rows(self, side, index):
        """Rows ``index`` of the source (0) or target (1) map, gathered (each block let
        go once placed: the client holds the rows once, not twice)."""
        index = np.asarray(index, dtype=np.int64)
        parts = self._by_block(index)
        blocks = self.client.gather([self.client.submit(
            _rows, self._side(side)[b], local, pure=False) for b, _, local in parts])
        out = np.empty((index.size, self.n_features))
        for position, (_, mask, _) in enumerate(parts):
            out[mask], blocks[position] = blocks[position], None
        return out

    def rows_times(self, side, index, W):
        """``map[index] @ W`` (``|index| x k``), computed by the workers."""
        index = np.asarray(index, dtype=np.int64)
        parts = self._by_block(index)
        blocks = self.client.gather([self.client.submit(
            _rows_times, self._side(side)[b], local, W, pure=False)
            for b, _, local in parts])
        out = np.empty((index.size, W.shape[1]))
        for (_, mask, _), block in zip(parts, blocks):
            out[mask] = block
        return out

    def transpose_times(self, side, index, Z):
        """``map[index]^T @ Z`` (``D x k``): a partial product per row block on the
        workers, added on the client in block order."""
        index = np.asarray(index, dtype=np.int64)
        parts = self._by_block(index)
        partials = self.client.gather([self.client.submit(
            _rows_transposed_times, self._side(side)[b], local, Z[mask], pure=False)
            for b, mask, local in parts])
        return sum(partials[1:], partials[0])

    def restrict(self, rows, cols):
        """The block ``K[rows][:, cols]`` (:class:`DaskKernelBlock`)."""
        return DaskKernelBlock(self, np.arange(self.shape[0])[rows],
                               np.arange(self.shape[1])[cols])

    def _apply(self, Z, transpose):
        everyone = np.arange(self.shape[0])
        return DaskKernelBlock(self, everyone, everyone)._apply(Z, transpose)

    def _adjoint(self):
        raise NotImplementedError("the transpose of a distributed attribute kernel")

    def close(self):
        """Release the maps held by the workers."""
        for side in self._maps:
            for future in side:
                future.release()
        self._maps = []

    def __repr__(self):
        return (f"<DaskPropagatedKernel {self.shape[0]}x{self.shape[1]} with "
                f"{self.n_features} features per map in {self.features.n_blocks} row "
                f"blocks>")


class DaskKernelBlock(KernelOperator):
    """A block ``K[rows][:, cols]`` of a :class:`DaskPropagatedKernel`.

    ``factors()`` gathers its rows of the maps (the labelled nodes' block, which the
    selection decomposes); products go through the workers: ``K Z = U[rows] (V[cols]^T Z)``.
    """

    def __init__(self, kernel, rows, cols):
        super().__init__((rows.size, cols.size))
        self.kernel, self.rows, self.cols = kernel, rows, cols

    @property
    def n_features(self):
        return self.kernel.n_features

    @property
    def feature_names(self):
        return self.kernel.feature_names

    @property
    def is_symmetric(self):
        return self.kernel.is_symmetric and np.array_equal(self.rows, self.cols)

    def restrict(self, rows, cols):
        return DaskKernelBlock(self.kernel, self.rows[rows], self.cols[cols])

    def factors(self):
        """The explicit maps ``(U, V)`` of the block's rows and columns, gathered."""
        U = self.kernel.rows(0, self.rows)
        if self.is_symmetric:
            return U, U
        return U, self.kernel.rows(1, self.cols)

    def to_dense(self):
        """The block, formed from its maps (small blocks: the labelled nodes')."""
        U, V = self.factors()
        d = self.kernel.features.shape[1]
        out = np.zeros(self.shape)
        for start in range(0, self.n_features, d):
            out += U[:, start:start + d] @ V[:, start:start + d].T
        return out

    def maps_transpose_dot(self, Z, side="source"):
        """``U^T Z`` (``side="source"``) or ``V^T Z``: the primal weights of dual ``Z``."""
        position = 0 if side == "source" else 1
        return self.kernel.transpose_times(position, self.rows if position == 0
                                           else self.cols, np.asarray(Z, dtype=np.float64))

    def _apply(self, Z, transpose):
        Z = np.asarray(Z, dtype=np.float64)
        out_side, in_side = (1, 0) if transpose else (0, 1)
        out_index, in_index = (self.cols, self.rows) if transpose else (self.rows, self.cols)
        W = self.kernel.transpose_times(in_side, in_index, Z)
        return self.kernel.rows_times(out_side, out_index, W)

    def _adjoint(self):
        return _Transposed(self)


class _Transposed(KernelOperator):
    def __init__(self, block):
        super().__init__(block.shape[::-1])
        self.block = block

    def _apply(self, Z, transpose):
        return self.block._apply(Z, not transpose)

    def _adjoint(self):
        return self.block
