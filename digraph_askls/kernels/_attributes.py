"""Attribute kernels: node features propagated along the graph, as explicit feature maps.

The source map of node ``i`` stacks its own (unit-normalised) features and their
averages over its 1- to ``h``-step neighbourhoods, ``[X, P X, ..., P^h X]_i``; the target
map does the same with a step ``P_t`` that may differ (the asymmetric kernel of features
travelling along out-links on one side and along in-links on the other). The kernel is
``K = sum_h w_h^2 (P_s^h X)(P_t^h X)^T / (h + 1)`` and is never formed whole: products
push a block through the steps (Horner's scheme), and a dense block ``K[rows][:, cols]``
is built through whichever is cheaper, the maps (``O(|rows| |cols| d h)``) or the Gram
matrix ``X X^T`` carried through the steps (``O(h nnz(P) n)``, when ``n x n`` fits).
"""

import numbers

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import LinearOperator
from sklearn.preprocessing import normalize

from digraph_askls._memory import available_memory, check_dense_allocation
from digraph_askls.graph import get_adjacency
from digraph_askls.graph._features import check_features

__all__ = ["PROPAGATIONS", "PropagatedFeatureKernel", "get_attribute_kernel"]

#: How features travel: ``"undirected"`` averages over all neighbours (both directions)
#: and the node itself; ``"out"`` over the nodes a node links to, ``"in"`` over the
#: nodes linking to it; ``"directed"`` gives the asymmetric kernel whose source map
#: travels along out-links and whose target map travels along in-links.
PROPAGATIONS = ("undirected", "out", "in", "directed")


def _mean_operator(links):
    """``D^-1 (links + I)``: the average over a node's neighbours and itself."""
    n = links.shape[0]
    walk = sparse.csr_array(links + sparse.eye_array(n, format="csr"))
    walk.data[:] = 1.0                    # a link counts once, whatever its weight
    degrees = np.asarray(walk.sum(axis=1)).ravel()
    return sparse.csr_array(sparse.diags_array(1.0 / degrees) @ walk)


def get_attribute_kernel(adjacency, features, hops=5, propagation="undirected",
                         self_weight=1.0):
    """Return the linear kernel of features propagated along the graph.

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
    features : array-like or sparse matrix of shape (n_nodes, n_features)
        Node attributes, in node order. Each row is scaled to unit length first
        (bag-of-words counts become directions; a row of zeros stays zero).
    hops : int >= 0, default=5
        Steps of propagation. On the citation graphs of the shared data 3 to 8 hops of
        the undirected mean do best (``docs/results/directed.md``).
    propagation : {"undirected", "out", "in", "directed"}, default="undirected"
        See :data:`PROPAGATIONS`. ``"directed"`` is asymmetric: its primal weights tell
        which attributes drive a class from the citing side (``w_s``) and from the cited
        side (``w_t``).
    self_weight : float >= 0, default=1.0
        Weight ``w_0`` of the node's own features against the propagated ones.

    Returns
    -------
    PropagatedFeatureKernel

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import get_attribute_kernel
    >>> K = get_attribute_kernel([(0, 1), (1, 2)], np.eye(3), hops=1, propagation="directed")
    >>> K.n_features, bool(np.allclose(K.to_dense(), K.to_dense().T))
    (6, False)
    """
    adjacency, _ = get_adjacency(adjacency)
    if propagation not in PROPAGATIONS:
        raise ValueError(f"unknown propagation {propagation!r}; choose from "
                         f"{list(PROPAGATIONS)}")
    X = check_features(features, adjacency.shape[0])
    if X is None:
        raise ValueError("an attribute kernel needs node features, got features=None")
    reverse = sparse.csr_array(adjacency.T)
    steps = {"undirected": adjacency + reverse, "out": adjacency, "in": reverse}
    if propagation == "directed":
        source, target = _mean_operator(steps["out"]), _mean_operator(steps["in"])
    else:
        source = target = _mean_operator(steps[propagation])
    return PropagatedFeatureKernel(normalize(X, norm="l2"), source, target, hops, self_weight)


class PropagatedFeatureKernel(LinearOperator):
    """``K = sum_h w_h^2 (P_s^h X)(P_t^h X)^T / (hops + 1)``, restricted to ``rows, cols``.

    Parameters
    ----------
    features : ndarray or sparse matrix of shape (n, d)
    source_step, target_step : sparse matrix of shape (n, n)
        One step of propagation of each map (the same object for a symmetric kernel).
    hops : int >= 0
    self_weight : float >= 0
        ``w_0``; the other ``w_h`` are 1.
    rows, cols : array of int, optional
        The block of the kernel this operator stands for (default: all nodes).

    Attributes
    ----------
    n_features : int
        ``d * (hops + 1)``, the length of the explicit maps.
    feature_names : list of str
        ``"hop<h>:<j>"`` for feature ``j`` averaged over ``h`` steps.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.kernels import PropagatedFeatureKernel
    >>> step = sparse.csr_array(np.array([[0.5, 0.5], [0.5, 0.5]]))
    >>> K = PropagatedFeatureKernel(np.eye(2), step, step, hops=1)
    >>> K.to_dense()
    array([[0.75, 0.25],
           [0.25, 0.75]])
    >>> U, V = K.factors()
    >>> bool(np.allclose(U @ V.T, K.to_dense()))
    True
    """

    def __init__(self, features, source_step, target_step, hops=5, self_weight=1.0,
                 rows=None, cols=None):
        if not isinstance(hops, numbers.Integral) or isinstance(hops, bool) or hops < 0:
            raise ValueError(f"hops must be an integer >= 0, got {hops!r}")
        if not isinstance(self_weight, numbers.Real) or not np.isfinite(self_weight) \
                or self_weight < 0:
            raise ValueError(f"self_weight must be a finite number >= 0, got {self_weight!r}")
        n = features.shape[0]
        self.features = features
        self.source_step = source_step
        self.target_step = target_step
        self.hops = int(hops)
        self.self_weight = float(self_weight)
        self.rows = np.arange(n) if rows is None else np.asarray(rows)
        self.cols = np.arange(n) if cols is None else np.asarray(cols)
        super().__init__(dtype=np.dtype(np.float64), shape=(self.rows.size, self.cols.size))

    @property
    def n_features(self):
        return self.features.shape[1] * (self.hops + 1)

    @property
    def feature_names(self):
        d = self.features.shape[1]
        return [f"hop{h}:{j}" for h in range(self.hops + 1) for j in range(d)]

    @property
    def is_symmetric(self):
        return self.source_step is self.target_step and np.array_equal(self.rows, self.cols)

    def _weights(self):
        weights = np.ones(self.hops + 1)
        weights[0] = self.self_weight
        return weights / np.sqrt(self.hops + 1)

    def restrict(self, rows, cols):
        """The block ``K[rows][:, cols]`` (lazy, of the same kind)."""
        return PropagatedFeatureKernel(self.features, self.source_step, self.target_step,
                                       self.hops, self.self_weight, self.rows[rows],
                                       self.cols[cols])

    # ---- explicit maps --------------------------------------------------------------
    def _hop_blocks(self, step, index):
        """``w_h (P^h X)[index]`` for h = 0..hops, one dense block at a time."""
        current = self.features
        for hop, weight in enumerate(self._weights()):
            if hop:
                current = step @ (current.toarray() if sparse.issparse(current) else current)
            block = current[index]
            yield weight * (block.toarray() if sparse.issparse(block) else np.asarray(block))

    def factors(self):
        """The explicit maps ``(U, V)`` of the block, each (n_rows or n_cols, n_features)."""
        check_dense_allocation((self.rows.size + self.cols.size, self.n_features),
                               what="the explicit maps of the attribute kernel",
                               remedy="use fewer hops or fewer features")
        U = np.hstack(list(self._hop_blocks(self.source_step, self.rows)))
        if self.is_symmetric:
            return U, U
        return U, np.hstack(list(self._hop_blocks(self.target_step, self.cols)))

    def maps_transpose_dot(self, Z, side="source"):
        """``U^T Z`` (``side="source"``) or ``V^T Z``, without forming the maps.

        ``(P^h X)[index]^T Z = X^T (P^T)^h Z`` with ``Z`` scattered onto all nodes: one
        sparse product per hop. These are the primal weights of dual coefficients ``Z``.
        """
        step, index = ((self.source_step, self.rows) if side == "source"
                       else (self.target_step, self.cols))
        Z = np.asarray(Z, dtype=np.float64)
        current = np.zeros((self.features.shape[0], Z.shape[1]))
        np.add.at(current, index, Z)
        step_t = sparse.csr_array(step.T)
        blocks = []
        for hop, weight in enumerate(self._weights()):
            if hop:
                current = step_t @ current
            blocks.append(weight * np.asarray(self.features.T @ current))
        return np.vstack(blocks)

    # ---- dense blocks ---------------------------------------------------------------
    def _gram_is_cheaper(self):
        n, d = self.features.shape
        through_maps = self.rows.size * self.cols.size * self.n_features
        through_gram = n * n * (1 + 4 * self.hops) + self.source_step.nnz * n * 2 * self.hops
        room = available_memory()
        fits = room is None or 3 * 8 * n * n < room
        return fits and through_gram < through_maps

    def to_dense(self):
        """The block as a dense array, built the cheaper way (guarded against memory)."""
        check_dense_allocation(self.shape, what="a dense block of the attribute kernel",
                               remedy="use the explicit maps (factors) or the iterative "
                                      "solvers")
        if self._gram_is_cheaper():
            return self._through_gram()
        out = np.zeros(self.shape)
        pairs = zip(self._hop_blocks(self.source_step, self.rows),
                    self._hop_blocks(self.target_step, self.cols))
        for left, right in pairs:
            out += left @ right.T
        return out

    def _through_gram(self):
        X = self.features
        gram = X @ X.T
        current = gram.toarray() if sparse.issparse(gram) else np.asarray(gram)
        weights = self._weights() ** 2
        total = weights[0] * current
        transpose = sparse.csr_array(self.target_step.T)
        for hop in range(1, self.hops + 1):
            current = np.asarray((self.source_step @ current) @ transpose)   # P_s C P_t^T
            total += weights[hop] * current
        return total[np.ix_(self.rows, self.cols)]

    # ---- products -------------------------------------------------------------------
    def _apply(self, Z, transpose):
        """``K Z`` (or ``K^T Z``) by Horner's scheme over the hops."""
        left, right = (self.target_step, self.source_step) if transpose else \
            (self.source_step, self.target_step)
        out_index, in_index = (self.cols, self.rows) if transpose else (self.rows, self.cols)
        n = self.features.shape[0]
        Z = np.asarray(Z, dtype=np.float64)
        full = np.zeros((n, Z.shape[1]))
        np.add.at(full, in_index, Z)
        X = self.features
        right_t = sparse.csr_array(right.T)
        weights = self._weights() ** 2
        # terms[h] = X X^T (P_right^T)^h Z; then sum_h P_left^h terms[h] by Horner.
        terms, current = [], full
        for hop in range(self.hops + 1):
            if hop:
                current = right_t @ current
            terms.append(weights[hop] * np.asarray(X @ np.asarray(X.T @ current)))
        result = terms[-1]
        for hop in range(self.hops - 1, -1, -1):
            result = left @ result + terms[hop]
        return result[out_index]

    def _matmat(self, Z):
        return self._apply(Z, transpose=False)

    def _rmatmat(self, Z):
        return self._apply(Z, transpose=True)

    def _matvec(self, z):
        return self._matmat(np.reshape(z, (-1, 1)))[:, 0]

    def _rmatvec(self, z):
        return self._rmatmat(np.reshape(z, (-1, 1)))[:, 0]

    def _adjoint(self):
        return PropagatedFeatureKernel(self.features, self.target_step, self.source_step,
                                       self.hops, self.self_weight, self.cols, self.rows)

    _transpose = _adjoint
