"""The operator of the attribute kernels: propagated features, never formed at n x n.

``K = sum_b w_b^2 (L_b X)(R_b X)^T`` over blocks ``b``: the node's own features, then for
each chain ``(L, R)`` of one-step operators their averages over ``h = 1..hops`` steps.
A dense block ``K[rows][:, cols]`` is built the cheaper way, through the maps
(``O(|rows| |cols| d)`` per block) or through the Gram matrix ``X X^T`` carried along the
steps (``O(nnz(P) n)`` per step, when ``n x n`` fits in memory); products push blocks of
columns through the steps.
"""

import numbers

import numpy as np
from scipy import sparse

from digraph_askls._memory import available_memory, check_dense_allocation
from digraph_askls.kernels._hops import block_width, threaded_product
from digraph_askls.kernels._operator import KernelOperator

__all__ = ["PropagatedFeatureKernel"]

#: A multiply-add of a dense matrix product (BLAS) costs about a twentieth of one of a
#: sparse product on one core. Measured building the training blocks (1,625-5,000
#: labelled nodes) of the two propagating attribute kernels of Cora, CiteSeer,
#: Chameleon, Squirrel and film both ways (one BLAS thread): with this figure, and a
#: symmetric block's product counted at half (BLAS forms ``U U^T`` as one triangle), the
#: cheaper route is chosen on 9 of the 10 blocks; the tenth (Chameleon, 5 hops) is a tie
#: in the count and costs 1.7 s instead of 0.7 s.
DENSE_PRODUCT_SPEEDUP = 20.0
#: A pass over an ``n x n`` dense block (an addition, a scaling) costs about five
#: multiply-adds of a sparse product per entry: it is bound by memory (same measurement).
DENSE_PASS_COST = 5.0


def pulling_is_cheaper(step, features, n_rows, steps, products_with_x):
    """Whether ``n_rows`` rows of features propagated by ``steps`` products with the
    one-step operator ``step`` cost less pulled (the rows of the operator's powers, then
    ``products_with_x`` products with ``X``) than pushed (every node's ``d`` features
    through the steps), in multiply-adds of sparse products and passes over dense entries
    (:data:`DENSE_PASS_COST`). A column through one step costs ``nnz(P)`` and a pass over
    ``n`` entries: pushing takes ``d`` columns, pulling ``n_rows`` of them and
    ``n_rows nnz(X)`` per product with ``X``. Dense features are always pushed."""
    if not sparse.issparse(features):
        return False
    n, d = features.shape
    per_column = steps * (step.nnz + DENSE_PASS_COST * n)
    return n_rows * per_column + products_with_x * n_rows * features.nnz < d * per_column


class PropagatedFeatureKernel(KernelOperator):
    """``K = sum_b w_b^2 (L_b X)(R_b X)^T`` over the blocks, restricted to ``rows, cols``.

    Block 0 is ``X`` itself (weight ``self_weight``); then, for each chain ``(L, R)`` of
    one-step operators and ``h = 1..hops``, the block ``(L^h X, R^h X)`` (weight 1). All
    weights are divided by the square root of the number of blocks. With
    ``renormalize`` every propagated block has unit rows.

    Parameters
    ----------
    features : ndarray or sparse matrix of shape (n, d)
    chains : list of (sparse matrix, sparse matrix)
        One step of the source and of the target map of each chain (the same object for
        a symmetric chain).
    hops : int >= 0
    self_weight : float >= 0
    renormalize : bool
    rows, cols : array of int, optional
        The block of the kernel this operator stands for (default: all nodes).
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        Precision of the steps when a dense block is built through the Gram matrix:
        float32 halves their time and memory; its rounding, about 1e-7 relative, is far
        below what a fit resolves.

    Attributes
    ----------
    n_features : int
        The length of the explicit maps.
    feature_names : list of str
        ``"x:<j>"`` for the own features, ``"c<chain>h<h>:<j>"`` for propagated ones.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.kernels import PropagatedFeatureKernel
    >>> step = sparse.csr_array(np.array([[0.5, 0.5], [0.5, 0.5]]))
    >>> K = PropagatedFeatureKernel(np.eye(2), [(step, step)], hops=1)
    >>> K.to_dense()
    array([[0.75, 0.25],
           [0.25, 0.75]])
    >>> U, V = K.factors()
    >>> bool(np.allclose(U @ V.T, K.to_dense()))
    True
    """

    def __init__(self, features, chains, hops=5, self_weight=1.0, renormalize=False,
                 rows=None, cols=None, _norms=None, dtype=np.float64):
        if not isinstance(hops, numbers.Integral) or isinstance(hops, bool) or hops < 0:
            raise ValueError(f"hops must be an integer >= 0, got {hops!r}")
        if not isinstance(self_weight, numbers.Real) or not np.isfinite(self_weight) \
                or self_weight < 0:
            raise ValueError(f"self_weight must be a finite number >= 0, got {self_weight!r}")
        n = features.shape[0]
        self.features = features
        self.chains = [tuple(chain) for chain in chains]
        self.hops = int(hops)
        self.self_weight = float(self_weight)
        self.renormalize = bool(renormalize)
        self.dtype_of_steps = np.dtype(dtype)
        if self.dtype_of_steps not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise ValueError(f"dtype must be float32 or float64, got {self.dtype_of_steps}")
        self.rows = np.arange(n) if rows is None else np.asarray(rows)
        self.cols = np.arange(n) if cols is None else np.asarray(cols)
        self._norms = {} if _norms is None else _norms   # shared by restrictions
        super().__init__((self.rows.size, self.cols.size))

    # ---- structure ------------------------------------------------------------------
    def _blocks(self):
        """``(weight, chain index or None, hops)`` of every block."""
        blocks = [(self.self_weight, None, 0)]
        blocks += [(1.0, c, h) for c in range(len(self.chains))
                   for h in range(1, self.hops + 1)]
        scale = 1.0 / np.sqrt(len(blocks))
        return [(w * scale, c, h) for w, c, h in blocks]

    @property
    def n_features(self):
        return self.features.shape[1] * len(self._blocks())

    @property
    def feature_names(self):
        d = self.features.shape[1]
        return [f"x:{j}" if c is None else f"c{c}h{h}:{j}"
                for _, c, h in self._blocks() for j in range(d)]

    @property
    def is_symmetric(self):
        return (all(left is right for left, right in self.chains)
                and np.array_equal(self.rows, self.cols))

    def restrict(self, rows, cols):
        """The block ``K[rows][:, cols]`` (lazy, of the same kind)."""
        return PropagatedFeatureKernel(self.features, self.chains, self.hops,
                                       self.self_weight, self.renormalize, self.rows[rows],
                                       self.cols[cols], self._norms, self.dtype_of_steps)

    def _side(self, chain, side):
        """The one-step operator of a chain on a side (0: source, 1: target)."""
        return None if chain is None else self.chains[chain][side]

    def _step_transposed(self, chain, side):
        """``P^T`` of the one-step operator of a chain on a side, as CSR, made once."""
        transposes = self.__dict__.setdefault("_transposes", {})
        if (chain, side) not in transposes:
            transposes[(chain, side)] = sparse.csr_array(self._side(chain, side).T)
        return transposes[(chain, side)]

    def _propagated(self, step, hops):
        """``P^h X`` for ``h = 0..hops`` as dense arrays (one at a time)."""
        current = self.features
        for hop in range(hops + 1):
            if hop:
                current = threaded_product(step, current.toarray()
                                           if sparse.issparse(current) else current)
            yield current

    def _row_scales(self, chain, side, hops):
        """``1 / ||(P^h X)_i||`` of every node (1 without renormalisation), cached."""
        if not self.renormalize or chain is None:
            return None
        key = (chain, side, hops)
        if key not in self._norms:
            # Every hop of the chain in one pass (not one pass per hop).
            step = self._side(chain, side)
            for hop, block in enumerate(self._propagated(step, max(hops, self.hops))):
                self._keep_scales(chain, side, hop, block)
        return self._norms[key]

    def _keep_scales(self, chain, side, hop, block):
        """Cache ``1 / ||block_i||`` of a propagated block of all nodes."""
        if (chain, side, hop) not in self._norms:
            scales = (_inverse(np.sqrt(np.asarray(block.multiply(block).sum(axis=1)).ravel()))
                      if sparse.issparse(block) else _inverse_norms(block))
            self._norms[(chain, side, hop)] = scales
            if self.chains[chain][0] is self.chains[chain][1]:     # one operator, one scale
                self._norms[(chain, 1 - side, hop)] = scales

    # ---- explicit maps --------------------------------------------------------------
    def _map_blocks(self, side, index):
        """The blocks of the source (0) or target (1) map on the nodes ``index``."""
        for pair in self._map_pairs(((side, index),)):
            yield pair[0]

    def _map_pairs(self, wanted):
        """For each block of the maps, its rows on each ``(side, index)`` of ``wanted``.

        Every chain side is propagated once: where a chain's two sides are one operator
        (a symmetric chain), both read the same propagated block, and the same index on
        the same side is one array, not two equal ones. Where few rows are wanted, they
        are pulled (:meth:`_pulled`) rather than every node's features pushed.
        """
        blocks = self._blocks()
        yield self._rows_of(wanted, lambda side: self.features,
                            lambda side, index, rows: blocks[0][0] * rows)
        union = np.unique(np.concatenate([np.asarray(index) for _, index in wanted]))
        for chain in range(len(self.chains)):
            steps = {}                 # one propagation per distinct operator of the chain
            for side, _ in wanted:
                step = self._side(chain, side)
                steps.setdefault(id(step), (step, []))[1].append(side)
            streams = {}
            for key, (step, sides) in steps.items():
                if self._pulls(step, union.size):
                    streams[key] = self._pulled(chain, sides[0], self.hops, union)
                else:
                    streams[key] = self._propagated(step, self.hops)
                    next(streams[key])                         # hop 0: the features
            for hop in range(1, self.hops + 1):
                full = {}
                for key, (_, sides) in steps.items():
                    block = next(streams[key])
                    for side in sides:
                        full[side] = block
                        if self.renormalize and not isinstance(block, _PulledRows):
                            # The scales come from the block in hand, not a second
                            # propagation.
                            self._keep_scales(chain, side, hop, block)
                weight = blocks[1 + chain * self.hops + hop - 1][0]

                def scaled(side, index, rows, chain=chain, hop=hop, weight=weight,
                           full=full):
                    if self.renormalize:
                        if isinstance(full[side], _PulledRows):
                            rows = rows * _inverse_norms(rows)[:, None]
                        else:
                            rows = rows * self._norms[(chain, side, hop)][index][:, None]
                    return weight * rows
                yield self._rows_of(wanted, full.__getitem__, scaled)

    def _pulls(self, step, n_rows):
        """Whether ``n_rows`` rows of the propagated features cost less pulled than
        pushed, hop by hop (one product with ``X`` per hop): :func:`pulling_is_cheaper`."""
        return pulling_is_cheaper(step, self.features, n_rows, steps=1, products_with_x=1)

    def _pulled(self, chain, side, hops, union):
        """Rows ``union`` of ``P^h X`` for ``h = 1..hops`` (:class:`_PulledRows`), through
        the rows of ``P^h``: ``(P^h X)[union] = ((P^T)^h E)^T X`` with ``E`` the indicator
        columns of ``union``, each hop a product of ``P^T`` with ``len(union)`` columns
        instead of one with the ``d`` columns of ``X``."""
        n = self.features.shape[0]
        columns = np.zeros((n, union.size))
        columns[union, np.arange(union.size)] = 1.0
        X_transposed = self.features.T
        for _ in range(hops):
            columns = threaded_product(self._step_transposed(chain, side), columns)
            yield _PulledRows(np.ascontiguousarray(np.asarray(X_transposed @ columns).T),
                              union)

    @staticmethod
    def _rows_of(wanted, full_of, finish):
        """``finish(side, index, full[index])`` (dense) for each ``(side, index)`` of
        ``wanted``; a request for the rows of a block already read is that array again."""
        out = []
        for side, index in wanted:
            full = full_of(side)
            done = next((block for f, i, block in out
                         if f is full and (i is index or np.array_equal(i, index))), None)
            if done is None:
                rows = full[index]
                rows = rows.toarray() if sparse.issparse(rows) else np.asarray(rows)
                done = finish(side, index, rows)
            out.append((full, index, done))
        return tuple(block for _, _, block in out)

    def factors(self):
        """The explicit maps ``(U, V)`` of the block, each (n_rows or n_cols, n_features)."""
        check_dense_allocation((self.rows.size + self.cols.size, self.n_features),
                               what="the explicit maps of the attribute kernel",
                               remedy="use fewer hops or fewer features")
        U = np.hstack(list(self._map_blocks(0, self.rows)))
        if self.is_symmetric:
            return U, U
        return U, np.hstack(list(self._map_blocks(1, self.cols)))

    def maps_transpose_dot(self, Z, side="source"):
        """``U^T Z`` (``side="source"``) or ``V^T Z``, without forming the maps.

        ``(P^h X)[index]^T Z = X^T (P^T)^h Z`` with ``Z`` scattered onto all nodes: one
        sparse product per hop. These are the primal weights of dual coefficients ``Z``.
        """
        position = 0 if side == "source" else 1
        index = self.rows if position == 0 else self.cols
        Z = np.asarray(Z, dtype=np.float64)
        full = np.zeros((self.features.shape[0], Z.shape[1]))
        np.add.at(full, index, Z)
        return np.vstack([weight * np.asarray(self.features.T
                                              @ self._back(full, chain, position, hops))
                          for weight, chain, hops in self._blocks()])

    def _back(self, full, chain, side, hops):
        """``(D P^h)^T full`` for the block's row scales ``D`` and one-step operator ``P``
        on ``side``: the scales, then ``hops`` steps of ``P^T`` (transposed once)."""
        scales = self._row_scales(chain, side, hops)
        current = full if scales is None else full * scales[:, None]
        if chain is not None:
            for _ in range(hops):
                current = threaded_product(self._step_transposed(chain, side), current)
        return current

    # ---- dense blocks ---------------------------------------------------------------
    def _gram_is_cheaper(self):
        """Whether the Gram route builds the block faster than the maps' product.

        Counted in multiply-adds of sparse products, each weighted by what it costs on
        one core against them (:data:`DENSE_PRODUCT_SPEEDUP`, :data:`DENSE_PASS_COST`).
        The maps: their propagation and one dense product ``rows x cols x n_features``.
        The Gram route: ``X X^T``, the steps on ``n x n`` dense blocks and the passes over
        them. A block of a few rows of a large graph goes through the maps; a block of
        most nodes of a small graph through the Gram matrix.
        """
        n, d = self.features.shape
        steps_nnz = sum(left.nnz + right.nnz for left, right in self.chains)
        # The maps propagate each distinct operator once (a symmetric chain: one).
        maps_nnz = sum(left.nnz + (0 if right is left else right.nnz)
                       for left, right in self.chains)
        product = self.rows.size * self.cols.size * self.n_features / DENSE_PRODUCT_SPEEDUP
        if self.is_symmetric:
            product /= 2                  # one triangle of U U^T (syrk)
        through_maps = product + maps_nnz * d * self.hops
        if sparse.issparse(self.features):
            gram_of_features = self.features.nnz ** 2 / max(d, 1)
        else:
            gram_of_features = n * n * d / DENSE_PRODUCT_SPEEDUP
        through_gram = (gram_of_features + steps_nnz * n * self.hops
                        + DENSE_PASS_COST * n * n * (2 + 3 * len(self.chains) * self.hops))
        room = available_memory()
        fits = room is None or 4 * 8 * n * n < room
        return fits and through_gram < through_maps

    def to_dense(self):
        """The block as a dense array, built the cheaper way (guarded against memory)."""
        check_dense_allocation(self.shape, what="a dense block of the attribute kernel",
                               remedy="use the explicit maps (factors) or the iterative "
                                      "solvers")
        if self._gram_is_cheaper():
            return self._through_gram()
        out = np.zeros(self.shape)
        for left, right in self._map_pairs(((0, self.rows), (1, self.cols))):
            out += left @ right.T
        return out

    def _through_gram(self):
        """``sum_b w_b^2 D_L L^h G R^hT D_R`` with ``G = X X^T``, chain by chain.

        The steps run in ``dtype``; a symmetric chain keeps ``C`` symmetric, so
        ``L C L^T = L (L C)^T`` costs two row-major sparse products and no transpose copy.
        Only the hops that feed a further hop are taken on every node: the last one, the
        row scales and the sum are taken on the block's rows and columns alone (each entry
        by the same operations as on every node, so the same numbers, with about a third
        of the ``n x n`` passes and temporaries).
        """
        rows, cols = self.rows, self.cols
        symmetric = all(left is right for left, right in self.chains)
        if symmetric and not np.array_equal(rows, cols):
            # Symmetrising needs K[cols][:, rows] too: build the block of their union.
            union = np.unique(np.concatenate([rows, cols]))
            block = self._gram_block(union, union, symmetric)
            return block[np.ix_(np.searchsorted(union, rows), np.searchsorted(union, cols))]
        return self._gram_block(rows, cols, symmetric)

    def _gram_block(self, rows, cols, symmetric):
        """The rows ``rows`` and columns ``cols`` of the kernel of every node, built through
        the Gram matrix (``rows == cols`` when ``symmetric``)."""
        X = self.features
        gram = _gram(X)
        blocks = self._blocks()
        total = blocks[0][0] ** 2 * gram[np.ix_(rows, cols)]
        gram = gram.astype(self.dtype_of_steps, copy=False)
        for chain, (left, right) in enumerate(self.chains):
            left = sparse.csr_array(left, dtype=self.dtype_of_steps)
            right = left if right is self.chains[chain][0] else sparse.csr_array(
                right, dtype=self.dtype_of_steps)
            current = gram
            for hop in range(1, self.hops + 1):
                # threaded_product: SciPy's sums, in blocks of columns that stay in cache;
                # a row of a product of some rows of a CSR matrix is that row of the whole.
                last = hop == self.hops
                if right is left:
                    outer, inner = (left[rows], left[cols]) if last else (left, left)
                    current = threaded_product(outer, threaded_product(inner, current).T)
                else:   # L C R^T as R (L C)^T, transposed back
                    outer, inner = (right[cols], left[rows]) if last else (right, left)
                    current = np.ascontiguousarray(threaded_product(
                        outer, np.ascontiguousarray(threaded_product(inner, current).T)).T)
                weight = blocks[1 + chain * self.hops + hop - 1][0]
                term = current if last else current[np.ix_(rows, cols)]
                if self.renormalize:
                    term = (self._row_scales(chain, 0, hop)[rows][:, None] * term
                            * self._row_scales(chain, 1, hop)[cols][None, :])
                total += weight ** 2 * term
        if symmetric:
            total = (total + total.T) / 2         # symmetric up to the steps' rounding
        return total

    # ---- products -------------------------------------------------------------------
    def _apply(self, Z, transpose):
        """``K Z`` (or ``K^T Z``), block by block."""
        out_side, in_side = (1, 0) if transpose else (0, 1)
        out_index, in_index = (self.cols, self.rows) if transpose else (self.rows, self.cols)
        n = self.features.shape[0]
        Z = np.asarray(Z, dtype=np.float64)
        full = np.zeros((n, Z.shape[1]))
        np.add.at(full, in_index, Z)
        X = self.features
        result = np.zeros_like(full)
        for weight, chain, hops in self._blocks():
            current = np.asarray(X @ np.asarray(X.T @ self._back(full, chain, in_side, hops)))
            if chain is not None:
                step = self._side(chain, out_side)
                for _ in range(hops):
                    current = threaded_product(step, current)
            scales = self._row_scales(chain, out_side, hops)
            if scales is not None:
                current = current * scales[:, None]
            result += weight ** 2 * current
        return result[out_index]

    def _adjoint(self):
        return PropagatedFeatureKernel(self.features, [(r, l) for l, r in self.chains],
                                       self.hops, self.self_weight, self.renormalize,
                                       self.cols, self.rows, dtype=self.dtype_of_steps)


class _PulledRows:
    """Some rows of a propagated block: row ``i`` of ``block`` is node ``union[i]``'s;
    indexed by node, as the full block would be."""

    def __init__(self, block, union):
        self.block, self.union = block, union

    def __getitem__(self, index):
        return self.block[np.searchsorted(self.union, index)]


def _gram(X):
    """``X X^T`` as a dense array.

    Sparse ``X`` either by SciPy's sparse product, about 30 ns per multiply-add
    (``sum_k nnz(X[:, k])^2`` of them), or, where cheaper, by products of ``X`` with dense
    blocks of columns of ``X^T`` (:func:`~._hops.threaded_product`), about 0.8 ns per
    stored entry and node (one core; CiteSeer 0.34 s -> 0.16 s, film 2.4 s -> 0.29 s,
    Chameleon kept sparse: 0.018 s against 0.044). Each entry is summed in the same order
    both ways, so the numbers are the same.
    """
    if not sparse.issparse(X):
        return np.asarray(X @ X.T)
    X = sparse.csr_array(X)
    n, d = X.shape
    products = float(np.sum(np.bincount(X.indices, minlength=d).astype(float) ** 2))
    if float(X.nnz) * n >= 32.0 * products:
        return (X @ X.T).toarray()
    gram = np.empty((n, n), dtype=X.dtype)
    width = block_width(d, gram.itemsize, n)
    for first in range(0, n, width):
        gram[:, first:first + width] = threaded_product(X, X[first:first + width].T.toarray())
    return gram


def _inverse(norms):
    """``1 / norm`` of each norm (0 for a zero norm)."""
    return np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)


def _inverse_norms(rows):
    """``1 / ||row||`` of each row of a dense array (0 for a zero row)."""
    return _inverse(np.sqrt(np.einsum("ij,ij->i", rows, rows)))
