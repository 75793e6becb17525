"""Attribute kernels: node features propagated along the graph, as explicit feature maps.

The maps stack *blocks*: the node's own (unit-normalised) features ``X``, and their
averages over its neighbourhoods ``P^h X`` for ``h = 1..hops`` along one or more
*chains* of steps. A chain has a step for the source map and one for the target map: the
same step gives a symmetric block, an out-link step on the source side and an in-link
step on the target side give the asymmetric kernel ``K = Phi_s Phi_t^T`` of the paper's
section 3. The kernel is ``K = sum_b w_b^2 (L_b X)(R_b X)^T`` over the blocks and is never
formed whole: products push a block through the steps, and a dense block
``K[rows][:, cols]`` is built the cheaper way, through the maps (``O(|rows| |cols| d)``
per block) or through the Gram matrix ``X X^T`` carried along the steps (``O(nnz(P) n)``
per step, when ``n x n`` fits in memory).
"""

import numpy as np
from scipy import sparse
from sklearn.preprocessing import normalize

from digraph_askls.graph import get_adjacency
from digraph_askls.graph._features import check_features
from digraph_askls.kernels._propagated import PropagatedFeatureKernel

__all__ = ["PROPAGATIONS", "get_attribute_kernel"]

#: How features travel. ``"undirected"``: the mean over all neighbours;
#: ``"out"`` / ``"in"``: over the nodes a node links to / that link to it; ``"both"``:
#: separate blocks along out-links and along in-links (symmetric); ``"directed"``: the
#: source map travels along out-links and the target map along in-links (asymmetric).
PROPAGATIONS = ("undirected", "out", "in", "both", "directed")

_CHAINS = {"undirected": (("undirected", "undirected"),), "out": (("out", "out"),),
           "in": (("in", "in"),), "both": (("out", "out"), ("in", "in")),
           "directed": (("out", "in"),)}


def _mean_operator(links, self_loops, start=0):
    """The average over a node's neighbours, ``D^-1 A``, or with itself, ``D^-1 (A + I)``.

    Without self-loops a node without neighbours gets a row of zeros. ``links`` may be
    the rows of nodes ``start:start + len(links)`` alone (each row is computed from its
    own links only: a row block gives the rows of the whole operator, the same bits).
    """
    links = sparse.csr_array(links)
    rows, n = links.shape
    # The links off the diagonal, each once whatever its weight (a mask over the stored
    # entries: SciPy's setdiag on a large matrix costs seconds).
    sources = np.repeat(np.arange(rows), np.diff(links.indptr))
    keep = (links.indices != sources + start) & (links.data != 0)
    walk = sparse.csr_array((np.ones(int(keep.sum())), links.indices[keep],
                             np.concatenate([[0], np.cumsum(np.bincount(
                                 sources[keep], minlength=rows))])), shape=links.shape)
    if self_loops:
        walk = sparse.csr_array(walk + sparse.eye_array(rows, n, k=start, format="csr"))
    degrees = np.asarray(walk.sum(axis=1)).ravel()
    inverse = np.divide(1.0, degrees, out=np.zeros_like(degrees), where=degrees > 0)
    return sparse.csr_array(sparse.diags_array(inverse) @ walk)


def get_attribute_kernel(adjacency, features, hops=5, propagation="undirected",
                         self_weight=1.0, renormalize=False, self_loops=True,
                         dtype=np.float64):
    """Return the linear kernel of features propagated along the graph.

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
    features : array-like or sparse matrix of shape (n_nodes, n_features)
        Node attributes, in node order. Each row is scaled to unit length first
        (bag-of-words counts become directions; a row of zeros stays zero).
    hops : int >= 0, default=5
        Steps of propagation.
    propagation : {"undirected", "out", "in", "both", "directed"}, default="undirected"
        See :data:`PROPAGATIONS`. ``"directed"`` is asymmetric: its primal weights tell
        which attributes drive a class from the citing side (``w_s``) and from the cited
        side (``w_t``).
    self_weight : float >= 0, default=1.0
        Weight of the node's own features against each propagated block.
    renormalize : bool, default=False
        Scale every propagated block to unit rows too, so that it counts as much as the
        node's own features whatever its neighbourhood's spread (a mean over many
        unlike neighbours is short).
    self_loops : bool, default=True
        Average over the node and its neighbours (as graph convolutions do), or over the
        neighbours alone, which keeps a node's own features apart from its
        neighbourhood's: better where neighbours differ from the node (web pages).
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        Precision of the propagation steps of dense blocks (see
        :class:`PropagatedFeatureKernel`).

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
    # Features held elsewhere (a dask cluster: DaskFeatures) propagate themselves, the
    # steps built there too (from the links, row block by row block).
    propagate = getattr(features, "propagated_kernel", None)
    if propagate is not None:
        if features.shape[0] != adjacency.shape[0]:
            raise ValueError(f"features must have one row per node, shape "
                             f"({adjacency.shape[0]}, n_features), got shape "
                             f"{features.shape}")
        return propagate(adjacency, _CHAINS[propagation], self_loops, hops, self_weight,
                         renormalize)
    X = check_features(features, adjacency.shape[0])
    if X is None:
        raise ValueError("an attribute kernel needs node features, got features=None")
    reverse = sparse.csr_array(adjacency.T)
    links = {"undirected": adjacency + reverse, "out": adjacency, "in": reverse}
    steps = {}
    for chain in _CHAINS[propagation]:
        for name in chain:
            if name not in steps:
                steps[name] = _mean_operator(links[name], self_loops)
    chains = [(steps[left], steps[right]) for left, right in _CHAINS[propagation]]
    return PropagatedFeatureKernel(normalize(X, norm="l2"), chains, hops, self_weight,
                                   renormalize, dtype=dtype)

