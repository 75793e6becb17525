"""The spectral kernel: the leading eigenvectors of the normalised, symmetrised graph.

The simplest embedding of a graph without attributes (spectral clustering's, and the
reference of the embedding literature's multi-label benchmarks): the ``d`` eigenvectors
of largest eigenvalue of ``D^-1/2 (A + A^T) D^-1/2``, each standardised over the nodes.
As a kernel it is ``K = U U^T / d``, a :class:`~digraph_askls.kernels.FactoredKernel`:
AsK-LS fits it through a thin SVD of the ``m x d`` maps, in ``O(m d^2)`` whatever the
number of labelled nodes and labels, and the graph's part (the eigenvectors) is paid
once per fit. It is the large graphs' stand-in for the dense co-occurrence kernel
(:class:`~digraph_askls.kernels.CooccurrenceKernel`), whose ``n x n`` matrix the
factored path never forms.

The eigenvectors of a large graph come from a Chebyshev-filtered subspace iteration
(:func:`leading_eigenvectors`): a block of ``1.5 d`` vectors multiplied by a polynomial of
the sparse matrix that damps the unwanted part of the spectrum, then a Rayleigh-Ritz
step, until the ``d`` leading Ritz pairs' residuals are small. Every product is a
sparse matrix times a block and every orthogonalisation a dense block operation, where
``eigsh`` (ARPACK) works one vector at a time: on BlogCatalog (10,312 nodes, one
thread) 256 eigenvectors take about 5 s against 15 s (``benchmarks/bench_multilabel.py``).
"""

import numpy as np
from scipy import linalg, sparse

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


#: Residual norm ``||M x - theta x||`` under which a Ritz pair counts as converged (the
#: spectrum lies in ``[-1, 1]``); and the degree of the Chebyshev filter per iteration.
RESIDUAL_TOL = 1e-2
FILTER_DEGREE = 8


def _orthonormal(block):
    """An orthonormal basis of the span of ``block`` (n, p): Cholesky QR twice (two
    products of ``block`` with itself, the speed of matrix products), or Householder QR
    where the block's Gram matrix is too ill-conditioned for it."""
    try:
        for _ in range(2):
            factor = linalg.cholesky(block.T @ block, lower=False)
            block = linalg.solve_triangular(factor, block.T, trans="T", lower=False).T
        return block
    except linalg.LinAlgError:
        return np.linalg.qr(block)[0]


def _rayleigh_ritz(matrix, block):
    """Ritz values (descending) and vectors of ``matrix`` on the span of ``block``
    (orthonormalised here), with the residual norm of each pair."""
    basis = _orthonormal(block)
    image = matrix @ basis
    projected = basis.T @ image
    values, rotation = np.linalg.eigh((projected + projected.T) / 2.0)
    order = np.argsort(values)[::-1]
    values, rotation = values[order], rotation[:, order]
    vectors = basis @ rotation
    residual = np.linalg.norm(image @ rotation - vectors * values, axis=0)
    return values, vectors, residual


def _chebyshev_filter(matrix, block, low, high, degree):
    """``p(matrix) @ block`` for the Chebyshev polynomial of ``degree`` that stays within
    ``[-1, 1]`` on ``[low, high]`` and grows fastest above ``high``."""
    half, centre = (high - low) / 2.0, (high + low) / 2.0
    previous, current = block, (matrix @ block - centre * block) / half
    for _ in range(degree - 1):
        following = 2.0 * (matrix @ current - centre * current) / half - previous
        previous, current = current, following
    return current


def leading_eigenvectors(matrix, k, random_state=0, tol=RESIDUAL_TOL, max_iter=30):
    """The ``k`` eigenpairs of largest eigenvalue of a symmetric sparse ``matrix`` whose
    spectrum lies in ``[-1, 1]``, by Chebyshev-filtered subspace iteration.

    A block of ``k + max(k // 2, 16)`` random vectors (seeded by ``random_state``) is
    filtered by a Chebyshev polynomial of degree :data:`FILTER_DEGREE` that damps
    ``[-1, c]``, ``c`` the smallest Ritz value of the block, and projected
    (Rayleigh-Ritz), until the ``k`` leading pairs have residual norms at most ``tol``
    or ``max_iter`` filters were applied.

    Returns
    -------
    values : ndarray (k,), descending
    vectors : ndarray (n, k), orthonormal columns

    Examples
    --------
    >>> from scipy import sparse
    >>> M = sparse.diags_array([np.linspace(-1, 1, 400)], offsets=[0]).tocsr()
    >>> values, vectors = leading_eigenvectors(M, 5, tol=1e-8)
    >>> np.round(values, 3)
    array([1.   , 0.995, 0.99 , 0.985, 0.98 ])
    """
    n = matrix.shape[0]
    size = min(n, k + max(k // 2, 16))
    block = np.random.default_rng(random_state).standard_normal((n, size))
    values, vectors, residual = _rayleigh_ritz(matrix, block)
    for _ in range(max_iter):
        if residual[:k].max() <= tol:
            break
        block = _chebyshev_filter(matrix, vectors, -1.0, values[-1], FILTER_DEGREE)
        values, vectors, residual = _rayleigh_ritz(matrix, block)
    return values[:k], vectors[:, :k]


def get_spectral_maps(adjacency, n_components=256, random_state=0):
    """The ``n_components`` leading eigenvectors of ``D^-1/2 (A + A^T) D^-1/2``, each
    column standardised (zero mean, unit variance over the nodes).

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
        Links count once whatever their weight and direction.
    n_components : int, default=256
        At most ``n_nodes - 1``; fewer are returned on a smaller graph.
    random_state : int, default=0
        Seeds the starting block of the subspace iteration (the same graph gives the
        same maps).

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
        _, vectors = leading_eigenvectors(matrix, k, random_state)
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
    n_components : int, default=256
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

    def __init__(self, n_components=256, random_state=0):
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
