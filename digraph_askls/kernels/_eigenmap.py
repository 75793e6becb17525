"""The spectral kernel: the leading eigenvectors of the normalised, symmetrised graph.

The simplest embedding of a graph without attributes (spectral clustering's, and the
reference of the embedding literature's multi-label benchmarks): the ``d`` eigenvectors
of largest eigenvalue of ``D^-1/2 (A + A^T) D^-1/2``, each standardised over the nodes.
As a kernel it is ``K = U U^T / d``, a :class:`~digraph_askls.kernels.FactoredKernel`:
AsK-LS fits it through a thin SVD of the ``m x d`` maps, in ``O(m d^2)`` whatever the
number of labelled nodes and labels, and the graph's part (``eigsh`` on the sparse
matrix, about ``d`` products with it per restart) is paid once per fit. It is the
large graphs' stand-in for the dense co-occurrence kernel
(:class:`~digraph_askls.kernels.CooccurrenceKernel`), whose ``n x n`` matrix the
factored path never forms.
"""

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import eigsh

from digraph_askls.graph import get_adjacency
from digraph_askls.kernels._factored import FactoredKernel
from digraph_askls.kernels._specs import GraphKernel

__all__ = ["SpectralEmbeddingKernel", "get_spectral_maps"]


def _normalised_links(adjacency):
    """``D^-1/2 (A + A^T) D^-1/2`` of the unweighted links (an isolated node: a zero row)."""
    links = sparse.csr_array(adjacency, dtype=np.float64)
    links.data[:] = 1.0
    links.eliminate_zeros()
    both = (links + links.T).tocsr()
    degree = np.asarray(both.sum(axis=1)).ravel()
    scale = sparse.diags_array(np.where(degree > 0, 1.0 / np.sqrt(np.maximum(degree, 1e-300)),
                                        0.0))
    return (scale @ both @ scale).tocsr()


def get_spectral_maps(adjacency, n_components=128, random_state=0):
    """The ``n_components`` leading eigenvectors of ``D^-1/2 (A + A^T) D^-1/2``, each
    column standardised (zero mean, unit variance over the nodes).

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
        Links count once whatever their weight and direction.
    n_components : int, default=128
        At most ``n_nodes - 1``; fewer are returned on a smaller graph.
    random_state : int, default=0
        Seeds the start vector of ``eigsh`` (the same graph gives the same maps).

    Returns
    -------
    ndarray of shape (n_nodes, min(n_components, n_nodes - 1))

    Examples
    --------
    >>> maps = get_spectral_maps([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)],
    ...                          n_components=2)
    >>> maps.shape
    (6, 2)
    >>> bool(np.allclose(maps.mean(axis=0), 0.0))
    True
    """
    adjacency, _ = get_adjacency(adjacency)
    if isinstance(n_components, bool) or not isinstance(n_components, (int, np.integer)) \
            or n_components < 1:
        raise ValueError(f"n_components must be an integer >= 1, got {n_components!r}")
    matrix = _normalised_links(adjacency)
    n = matrix.shape[0]
    if n < 2:
        raise ValueError(f"the spectral kernel needs at least 2 nodes, got {n}")
    k = min(int(n_components), n - 1)
    if k >= n // 3 or n <= 500:                  # small: the dense solver is cheaper
        values, vectors = np.linalg.eigh(matrix.toarray())
        vectors = vectors[:, np.argsort(values)[::-1][:k]]
    else:
        start = np.random.default_rng(random_state).standard_normal(n)
        values, vectors = eigsh(matrix, k=k, which="LA", v0=start)
        vectors = vectors[:, np.argsort(values)[::-1]]
    spread = vectors.std(axis=0)
    return (vectors - vectors.mean(axis=0)) / np.where(spread > 0, spread, 1.0)


class SpectralEmbeddingKernel(GraphKernel):
    """The kernel ``K = U U^T / d`` of the graph's ``d`` leading spectral maps.

    See :func:`get_spectral_maps`. A symmetric kernel with explicit maps: AsK-LS on it
    is the LS-SVM on the spectral embedding, fitted through the thin SVD of the maps, so
    that its cost grows with the labelled nodes as ``m d^2`` and not ``m^3``. The
    candidate of :func:`~digraph_askls.models.selection.multilabel_kernels` on graphs
    too large for the dense co-occurrence kernel.

    Parameters
    ----------
    n_components : int, default=128
    random_state : int, default=0

    Notes
    -----
    Eigenvectors computed twice are not aligned: a model fitted with this kernel
    predicts the nodes it was fitted with, and nodes joining the graph need a new fit.

    Examples
    --------
    >>> from digraph_askls.kernels import SpectralEmbeddingKernel
    >>> K = SpectralEmbeddingKernel(n_components=2).make([(0, 1), (1, 2), (2, 0), (2, 3)])
    >>> K.shape, K.n_features, K.is_symmetric
    ((4, 4), 2, True)
    """

    gammas = (0.1, 1.0, 10.0, 0.01)

    def __init__(self, n_components=128, random_state=0):
        self.n_components = n_components
        self.random_state = random_state

    def _build(self, adjacency, features):
        maps = get_spectral_maps(adjacency, self.n_components, self.random_state)
        maps /= np.sqrt(maps.shape[1])
        return FactoredKernel(maps, feature_names=[f"spectral:{i}"
                                                   for i in range(maps.shape[1])])

    def _build_on(self, adjacency, features, reference):
        raise ValueError("a spectral kernel cannot place nodes that joined the graph: "
                         "eigenvectors computed twice are not aligned; fit the model "
                         "again on the grown graph")
