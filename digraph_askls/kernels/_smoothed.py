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

__all__ = ["get_smoothed_attribute_kernel"]


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
    FactoredKernel
        A symmetric kernel with the explicit map ``Phi`` (dense, n_nodes x n_features),
        each row scaled to unit length.

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
    adjacency, _ = get_adjacency(adjacency)
    X = check_features(features, adjacency.shape[0])
    if X is None:
        raise ValueError("a smoothed attribute kernel needs node features, got features=None")
    n, d = X.shape
    check_dense_allocation((n, d), np.dtype(dtype),
                           what=f"the smoothed features ({n} nodes x {d} attributes)",
                           remedy="reduce the attributes (e.g. a truncated SVD) first")
    step = normalized_undirected(adjacency).astype(dtype)
    own = normalize(X, norm="l2")
    own = own.toarray() if sparse.issparse(own) else np.asarray(own)
    own = own.astype(dtype, copy=False)
    smoothed = own.copy()
    for _ in range(int(n_steps)):
        smoothed = (1.0 - alpha) * (step @ smoothed) + alpha * own
    # Unit rows: a cosine kernel, whose scale (and so whose good gammas) does not depend
    # on how far the diffusion spread a node's features.
    return FactoredKernel(normalize(np.asarray(smoothed, dtype=np.float64), norm="l2"))
