"""Node features smoothed by a personalised-PageRank diffusion: one map, few weights.

The attribute kernels of :mod:`~digraph_askls.kernels._attributes` keep each hop of
propagation as a block of its own, so a linear model weighs every feature once per hop:
flexible, and right when many nodes are labelled. With a few labelled nodes per class
those weights are too many to learn. Smoothing the features by the personalised
PageRank of the graph instead,

    Z_0 = X,   Z_{t+1} = (1 - alpha) A_hat Z_t + alpha X,   Phi = Z_steps,

with ``A_hat = D^-1/2 (A + A^T + I) D^-1/2`` (the undirected graph with self-loops,
normalised on both sides), gives one map of the width of ``X``: a feature's weight is
shared by all distances, the nearest counting most. The propagation is the one of
APPNP (Gasteiger et al., "Predict then propagate", ICLR 2019), here applied to the
features before a linear kernel rather than to a network's outputs.
"""

import numbers

import numpy as np
from scipy import sparse
from sklearn.preprocessing import normalize

from digraph_askls._memory import check_dense_allocation
from digraph_askls.graph import get_adjacency
from digraph_askls.graph._features import check_features
from digraph_askls.kernels._factored import FactoredKernel
from digraph_askls.kernels._hops import block_width
from digraph_askls.kernels._propagated import pulling_is_cheaper

__all__ = ["get_smoothed_attribute_kernel"]

#: Bytes of one block of columns diffused together (:meth:`SmoothedFeatureKernel._diffuse`).
#: Measured on one core: CiteSeer (3,312 x 3,703) 1.27 s all at once, 0.25 s in blocks of
#: 64-128 columns; a 10^5-node graph with 128 attributes 6.8 s, 3.7 s in blocks of 4.
_BLOCK_BYTES = 2 << 20


def _block_width(n_rows, itemsize, n_columns):
    """Columns per block of :meth:`SmoothedFeatureKernel._diffuse`: about
    ``_BLOCK_BYTES`` of ``n_rows`` rows, at least 4 (fewer would read the graph once per
    column and step), at most ``n_columns``."""
    return block_width(n_rows, itemsize, n_columns, _BLOCK_BYTES, min_width=4)


def normalized_undirected(adjacency):
    """``D^-1/2 (A + A^T + I) D^-1/2`` of a canonical CSR adjacency, as a float64 CSR array.

    The undirected graph with self-loops, every link counted once whatever its weight or
    direction (a node's own loop too), ``D`` its degrees: the step of graph convolutions.
    """
    n = adjacency.shape[0]
    links = sparse.csr_array(adjacency + adjacency.T, dtype=np.float64)
    links.data[:] = 1.0
    links = sparse.csr_array(links + sparse.eye_array(n, format="csr"))
    links.data[:] = 1.0
    scale = 1.0 / np.sqrt(np.asarray(links.sum(axis=1)).ravel())
    links.data *= np.repeat(scale, np.diff(links.indptr)) * scale[links.indices]
    return links


def get_smoothed_attribute_kernel(adjacency, features, alpha=0.1, n_steps=10,
                                  dtype=np.float64):
    """Return the linear kernel ``Phi Phi^T`` of features smoothed by personalised PageRank.

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
    features : array-like or sparse matrix of shape (n_nodes, n_features)
        Node attributes in node order; each row is scaled to unit length first.
    alpha : float in (0, 1], default=0.1
        Teleport probability: the share of a node's own features in its map.
    n_steps : int >= 0, default=10
        Steps of the diffusion.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        Precision of the steps.

    Returns
    -------
    SmoothedFeatureKernel
        A symmetric :class:`FactoredKernel` with the explicit map ``Phi`` (dense,
        n_nodes x n_features), each row scaled to unit length, computed where needed.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import get_smoothed_attribute_kernel
    >>> K = get_smoothed_attribute_kernel([(0, 1), (1, 2)], np.eye(3), alpha=0.5, n_steps=2)
    >>> K.n_features, bool(np.allclose(K.to_dense(), K.to_dense().T))
    (3, True)
    >>> bool(K.to_dense()[0, 1] > K.to_dense()[0, 2] > 0)
    True
    """
    if not isinstance(alpha, numbers.Real) or not 0 < alpha <= 1:
        raise ValueError(f"alpha must be a number in (0, 1], got {alpha!r}")
    if not isinstance(n_steps, numbers.Integral) or isinstance(n_steps, bool) or n_steps < 0:
        raise ValueError(f"n_steps must be an integer >= 0, got {n_steps!r}")
    if np.dtype(dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float32 or float64, got {np.dtype(dtype)}")
    adjacency, _ = get_adjacency(adjacency)
    X = check_features(features, adjacency.shape[0])
    if X is None:
        raise ValueError("a smoothed attribute kernel needs node features, got features=None")
    return SmoothedFeatureKernel(normalized_undirected(adjacency).astype(dtype),
                                 normalize(X, norm="l2"), float(alpha), int(n_steps), dtype)


class SmoothedFeatureKernel(FactoredKernel):
    """The :class:`FactoredKernel` of :func:`get_smoothed_attribute_kernel`, whose map is
    computed where it is needed.

    A block of few rows (the labelled nodes of a fit with few labels, a ranking sample)
    pulls its rows of the map: ``Phi[rows] = (B E)^T X`` with ``B`` the diffusion
    (symmetric, as ``A_hat`` is) and ``E`` the indicator columns of the rows, ``len(rows)``
    columns through the steps instead of the ``d`` of ``X``. A block of many rows (the
    prediction of every node) is a :class:`_SmoothedBlock`, whose products diffuse their
    own few columns and never need the map. The map of every node is computed (and
    kept) only when ``source`` or ``target`` is asked for. All give the same numbers up
    to rounding: about 1e-16 relative in float64 steps, 1e-7 in the float32 steps of the
    recipe's default.
    """

    def __init__(self, step, own, alpha, n_steps, dtype=np.float64):
        n, d = own.shape
        super(FactoredKernel, self).__init__((n, n))
        self.step, self.own, self.alpha, self.n_steps = step, own, alpha, n_steps
        self.dtype_of_steps = np.dtype(dtype)
        self.feature_names = None
        self._map = None
        self._scales = None

    @property
    def source(self):
        """The map of every node (n x d, unit rows), computed once."""
        if self._map is None:
            n, d = self.own.shape
            check_dense_allocation((n, d), np.float64,
                                   what=f"the smoothed features ({n} nodes x {d} attributes)",
                                   remedy="reduce the attributes (e.g. a truncated SVD) first")
            smoothed = np.empty((n, d))
            for first, last, block in self._feature_blocks():
                smoothed[:, first:last] = block
            # Unit rows: a cosine kernel, whose scale (and so whose good gammas) does not
            # depend on how far the diffusion spread a node's features.
            self._map = normalize(smoothed, norm="l2", copy=False)
        return self._map

    def _feature_blocks(self):
        """``(first, last, Z[:, first:last])`` for the diffused features ``Z`` (before unit
        rows), block of columns by block (:func:`_block_width`), in the steps' precision.

        A block starts from its own columns of ``X`` (sparse attributes: from their
        nonzeros), so neither ``Z`` nor a dense copy of ``X`` is ever held whole: the map
        writes the blocks into its one array, the row norms (:meth:`_inverse_norms`) only
        add up their squares. Column by column the same operations as
        :meth:`_diffuse` on all of ``X``, so the same numbers.
        """
        n, d = self.own.shape
        width = _block_width(n, self.dtype_of_steps.itemsize, d)
        columns = sparse.csc_array(self.own) if sparse.issparse(self.own) else self.own
        for first in range(0, d, width):
            last = min(first + width, d)
            if sparse.issparse(columns):
                part = sparse.coo_array(columns[:, first:last])
                part.sum_duplicates()
                teleport = (part.row, part.col, part.data)
                start = part.toarray().astype(self.dtype_of_steps, copy=False)
            else:
                teleport = columns[:, first:last]
                start = np.array(teleport, dtype=self.dtype_of_steps, order="C")
            yield first, last, self._steps(start, teleport)

    def _inverse_norms(self):
        """``1 / ||Z_i||`` of every node's diffused features (0 where ``Z_i`` is 0, whose
        row of the map stays 0), streamed over the blocks of columns and kept: what a
        block of many rows needs of the map without the map (:class:`_SmoothedBlock`)."""
        if getattr(self, "_scales", None) is None:     # (a kernel saved before it had them)
            squares = np.zeros(self.own.shape[0])
            for _, _, block in self._feature_blocks():
                block = np.asarray(block, dtype=np.float64)
                squares += np.einsum("ij,ij->i", block, block)
            norms = np.sqrt(squares)
            self._scales = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        return self._scales

    def _diffused(self, columns):
        """``B @ columns`` for a few dense columns (n x c), in float64: the diffusion
        ``Z = B X`` applied to them (``B`` is symmetric, as ``A_hat`` is)."""
        columns = np.asarray(columns, dtype=np.float64)
        return self._diffuse(columns.copy(), columns)

    def _rows_dot(self, index, W, pulled=None):
        """``Phi[index] @ W`` (``W`` of shape (d, c)): the pulled rows times ``W`` when
        given, else the rows of the map's product, else ``D^-1 B (X W)`` on ``index``,
        a diffusion of ``c`` columns instead of ``d``."""
        W = np.asarray(W, dtype=np.float64)
        if pulled is not None:
            return pulled @ W
        if self._map is not None:
            return (self._map @ W)[index]
        product = self._diffused(np.asarray(self.own @ W))
        return self._inverse_norms()[index][:, None] * product[index]

    def _rows_transpose_dot(self, index, V, pulled=None):
        """``Phi[index]^T @ V`` (``V`` of shape (len(index), c)), the other way round:
        ``X^T B D^-1 V`` with ``V`` scattered onto the nodes (repeats add up)."""
        V = np.asarray(V, dtype=np.float64)
        if pulled is not None:
            return pulled.T @ V
        full = np.zeros((self.own.shape[0], V.shape[1]))
        np.add.at(full, index, V)
        if self._map is not None:
            return self._map.T @ full
        diffused = self._diffused(self._inverse_norms()[:, None] * full)
        return np.asarray(self.own.T @ diffused)

    def _diffuse(self, start, teleport):
        """``n_steps`` of ``Z <- (1 - alpha) A_hat Z + alpha T`` from ``Z = start`` (a dense
        array, overwritten and returned; itself when ``n_steps`` is 0), ``T`` given as a
        dense array or as the (rows, columns, values) of its nonzeros.

        The columns are independent, so they go through the steps in blocks of about
        ``_BLOCK_BYTES`` (:func:`_block_width`): a block stays in cache from one step to
        the next, where all the columns at once stream the whole ``n x d`` array through
        memory at every step (3-4 times slower on CiteSeer's 3,703 attributes; the same
        numbers, column by column the same operations).
        """
        n, d = start.shape
        width = _block_width(n, start.dtype.itemsize, d)
        if width >= d:
            return self._steps(start, teleport)
        if isinstance(teleport, tuple):
            rows, cols, values = (np.asarray(part) for part in teleport)
            order = np.argsort(cols, kind="stable")
            rows, cols, values = rows[order], cols[order], values[order]
            bounds = np.searchsorted(cols, np.arange(0, d + width, width))
        for number, first in enumerate(range(0, d, width)):
            last = min(first + width, d)
            if isinstance(teleport, tuple):
                part = slice(bounds[number], bounds[number + 1])
                block_teleport = (rows[part], cols[part] - first, values[part])
            else:
                block_teleport = teleport[:, first:last]
            start[:, first:last] = self._steps(np.ascontiguousarray(start[:, first:last]),
                                               block_teleport)
        return start

    def _steps(self, start, teleport):
        """The steps of :meth:`_diffuse` on all the columns of ``start`` at once: one
        product and one in-place addition of ``T``'s nonzeros per step, the ``1 - alpha``
        folded into the step once (a dense ``T`` of sparse attributes would cost three
        passes over ``Z`` per step)."""
        step = self.step * (1.0 - self.alpha)
        if isinstance(teleport, tuple):
            rows, cols, values = teleport
            values = self.alpha * np.asarray(values, dtype=start.dtype)
        else:
            scaled = self.alpha * np.asarray(teleport, dtype=start.dtype)
        smoothed = start
        for _ in range(self.n_steps):
            smoothed = step @ smoothed
            if isinstance(teleport, tuple):
                smoothed[rows, cols] += values         # canonical: no repeated (row, col)
            else:
                smoothed += scaled
        return smoothed

    target = source

    @property
    def n_features(self):
        return self.own.shape[1]

    def _pulls(self, n_rows):
        """Whether ``n_rows`` rows cost less pulled than every node's map pushed (one
        product with ``X`` after the steps, :func:`~._propagated.pulling_is_cheaper`);
        never once the map is computed."""
        return self._map is None and pulling_is_cheaper(self.step, self.own, n_rows,
                                                         self.n_steps, products_with_x=1)

    def _pulled(self, union):
        """Rows ``union`` of the map (unit rows)."""
        n = self.own.shape[0]
        indicator = np.zeros((n, union.size), dtype=self.dtype_of_steps)
        indicator[union, np.arange(union.size)] = 1.0
        columns = self._diffuse(indicator, (union, np.arange(union.size),
                                            np.ones(union.size)))
        rows = np.asarray(self.own.T @ np.asarray(columns, dtype=np.float64)).T
        return normalize(np.ascontiguousarray(rows), norm="l2")

    @property
    def is_symmetric(self):
        """True: one map on both sides (asked without computing it)."""
        return True

    def restrict(self, rows, cols):
        """The block ``K[rows][:, cols]``: a factored kernel of pulled rows where they are
        few, else a :class:`_SmoothedBlock`, whose products never copy the rows of the
        map (nor need the map: the prediction of every node of a fit on few labels)."""
        rows, cols = (np.flatnonzero(index) if np.asarray(index).dtype == bool
                      else np.asarray(index) for index in (rows, cols))
        union = np.unique(np.concatenate([rows.ravel(), cols.ravel()]))
        if not self._pulls(union.size):
            return _SmoothedBlock(self, rows, cols)
        maps = self._pulled(union)
        source = maps[np.searchsorted(union, rows)]
        target = source if np.array_equal(rows, cols) else maps[np.searchsorted(union, cols)]
        return FactoredKernel(source, target)

    def _adjoint(self):
        return self                                    # symmetric


class _SmoothedBlock(FactoredKernel):
    """The block ``K[rows][:, cols]`` of a :class:`SmoothedFeatureKernel` of many rows.

    A product ``K[rows][:, cols] @ V = Phi[rows] (Phi[cols]^T V)`` takes each side by the
    cheaper of: its rows pulled (a side of few nodes, as the labelled nodes of a fit on
    few labels), or ``Phi = D^-1 B X`` read through the diffusion ``B`` of the ``c``
    columns of ``V`` (:meth:`SmoothedFeatureKernel._rows_dot`), with the row norms
    ``D`` streamed once. Predicting every node of CiteSeer (3,312 x 3,703) then holds no
    ``n x d`` array, where copying its rows of the map held three. ``source`` and
    ``target`` (the rows of the map, for :meth:`factors` and :meth:`to_dense`) are
    computed only when asked.
    """

    def __init__(self, kernel, rows, cols):
        super(FactoredKernel, self).__init__((rows.size, cols.size))
        self.kernel, self.rows, self.cols = kernel, rows, cols
        self.feature_names = None
        self._pulled_rows = {}

    @property
    def source(self):
        return self.kernel.source[self.rows]

    @property
    def target(self):
        return self.kernel.source[self.cols]

    @property
    def n_features(self):
        return self.kernel.n_features

    @property
    def is_symmetric(self):
        return np.array_equal(self.rows, self.cols)

    def factors(self):
        source = self.source
        return source, (source if self.is_symmetric else self.target)

    def restrict(self, rows, cols):
        # Indices or masks of the block index its rows and columns alike.
        return self.kernel.restrict(self.rows[rows], self.cols[cols])

    def _pulled(self, index):
        """The rows ``index`` of the map where pulling them is cheaper, else None."""
        key = index.tobytes()
        if key not in self._pulled_rows:
            union = np.unique(index)
            rows = None
            if self.kernel._pulls(union.size):
                rows = self.kernel._pulled(union)[np.searchsorted(union, index)]
            self._pulled_rows[key] = rows
        return self._pulled_rows[key]

    def _apply(self, X, transpose):
        out_index, in_index = (self.cols, self.rows) if transpose else (self.rows, self.cols)
        weights = self.kernel._rows_transpose_dot(in_index, X, self._pulled(in_index))
        return self.kernel._rows_dot(out_index, weights, self._pulled(out_index))

    def maps_transpose_dot(self, Z, side="source"):
        index = self.rows if side == "source" else self.cols
        return self.kernel._rows_transpose_dot(index, Z, self._pulled(index))

    def _adjoint(self):
        return _SmoothedBlock(self.kernel, self.cols, self.rows)
