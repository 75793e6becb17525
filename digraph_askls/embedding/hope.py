"""HOPE: source and target embeddings from a truncated SVD of a high-order proximity.

Reference: M. Ou, P. Cui, J. Pei, Z. Zhang, W. Zhu, "Asymmetric Transitivity Preserving
Graph Embedding", KDD 2016.
"""

import logging
import numbers
import time
import warnings

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigs, splu, svds
from sklearn.base import BaseEstimator

from .._fitted import FittedAttributesMixin
from ._source_target import SourceTargetMixin
from ._checks import check_adjacency, check_param

__all__ = ["HOPE", "PROXIMITIES", "proximity_operator", "spectral_radius"]

logger = logging.getLogger(__name__)

#: The proximities :class:`HOPE` embeds: Katz (``beta``), rooted PageRank (``damping``),
#: common neighbours and Adamic-Adar.
PROXIMITIES = ("katz", "ppr", "common_neighbors", "adamic_adar")

_DENSE_EIGVALS = 400  # strongly connected components up to this size: dense eigenvalues


def spectral_radius(adjacency):
    """The spectral radius of a square sparse matrix: the largest ``|eigenvalue|``.

    The eigenvalues of a matrix are those of its strongly connected components (the
    diagonal blocks of its block-triangular form), so each component is solved on its
    own: densely when small, by ARPACK otherwise. A graph without cycles (a citation
    graph, nearly) has radius 0, or the largest self-loop weight.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.embedding import spectral_radius
    >>> cycle = sparse.csr_matrix(np.roll(np.eye(4), 1, axis=1))   # 0 -> 1 -> 2 -> 3 -> 0
    >>> round(spectral_radius(cycle), 6), spectral_radius(sparse.triu(cycle, format="csr"))
    (1.0, 0.0)
    """
    matrix = sparse.csr_matrix(adjacency, dtype=np.float64)
    _, component = connected_components(matrix, directed=True, connection="strong")
    sizes = np.bincount(component)
    alone = sizes[component] == 1
    radius = float(np.abs(matrix.diagonal()[alone]).max(initial=0.0))
    for label in np.flatnonzero(sizes > 1):
        nodes = np.flatnonzero(component == label)
        block = matrix[nodes][:, nodes]
        radius = max(radius, _component_radius(block))
    return radius


def _component_radius(block):
    if block.shape[0] <= _DENSE_EIGVALS:
        return float(np.abs(np.linalg.eigvals(block.toarray())).max())
    try:
        value = eigs(block, k=1, which="LM", return_eigenvectors=False, tol=1e-10,
                     v0=np.ones(block.shape[0]), maxiter=20 * block.shape[0])
        return float(np.abs(value).max())
    except ArpackNoConvergence:
        bound = float(min(abs(block).sum(axis=0).max(), abs(block).sum(axis=1).max()))
        warnings.warn(f"the spectral radius of a component of {block.shape[0]} nodes did "
                      f"not converge; the bound {bound:.4g} (largest row or column sum) "
                      "stands for it", RuntimeWarning, stacklevel=3)
        return bound


def proximity_operator(adjacency, proximity="katz", beta=None, damping=0.5):
    """The proximity matrix ``S`` of HOPE as a LinearOperator, never formed.

    ``"katz"``: ``S = (I - beta A)^-1 beta A``, products by sparse solves with one LU
    factorisation of ``I - beta A``; ``"ppr"`` (rooted PageRank):
    ``S = (1 - damping) (I - damping P)^-1`` with ``P = D_out^-1 A``;
    ``"common_neighbors"``: ``S = A A``; ``"adamic_adar"``: ``S = A D A`` with
    ``D = diag(1 / (in-degree + out-degree))``.

    Parameters
    ----------
    adjacency : sparse matrix of shape (n, n)
    proximity : {"katz", "ppr", "common_neighbors", "adamic_adar"}
    beta : float
        Katz's decay, below ``1 / spectral_radius(adjacency)`` (not checked here).
    damping : float in [0, 1)
        Rooted PageRank's probability of walking on.

    Returns
    -------
    scipy.sparse.linalg.LinearOperator of shape (n, n)

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.embedding import proximity_operator
    >>> A = sparse.csr_matrix(np.array([[0.0, 1.0], [0.0, 0.0]]))
    >>> proximity_operator(A, "katz", beta=0.5) @ np.eye(2)
    array([[0. , 0.5],
           [0. , 0. ]])
    """
    A = sparse.csr_matrix(adjacency, dtype=np.float64)
    n = A.shape[0]
    identity = sparse.identity(n, format="csc")
    if proximity == "katz":
        lu = splu(sparse.csc_matrix(identity - beta * A))
        forward = lambda X: lu.solve(np.asarray(beta * (A @ X)))
        backward = lambda Y: beta * (A.T @ lu.solve(np.asarray(Y), trans="T"))
    elif proximity == "ppr":
        out = np.asarray(A.sum(axis=1)).ravel()
        P = sparse.diags(np.divide(1.0, out, out=np.zeros(n), where=out > 0)) @ A
        lu = splu(sparse.csc_matrix(identity - damping * P))
        forward = lambda X: (1 - damping) * lu.solve(np.asarray(X))
        backward = lambda Y: (1 - damping) * lu.solve(np.asarray(Y), trans="T")
    elif proximity in ("common_neighbors", "adamic_adar"):
        degree = np.asarray(A.sum(axis=0)).ravel() + np.asarray(A.sum(axis=1)).ravel()
        middle = (sparse.identity(n) if proximity == "common_neighbors" else sparse.diags(
            np.divide(1.0, degree, out=np.zeros(n), where=degree > 0)))
        forward = lambda X: A @ (middle @ (A @ X))
        backward = lambda Y: A.T @ (middle @ (A.T @ Y))
    else:
        raise ValueError(f"unknown proximity {proximity!r}; choose from {list(PROXIMITIES)}")
    return LinearOperator((n, n), matvec=forward, rmatvec=backward, matmat=forward,
                          rmatmat=backward, dtype=np.float64)


class HOPE(SourceTargetMixin, FittedAttributesMixin, BaseEstimator):
    """Source and target node embeddings that factor a high-order proximity (HOPE).

    HOPE approximates an asymmetric proximity ``S`` of the directed graph by
    ``U_s U_t^T`` of rank ``n_components``: the best approximation in the Frobenius
    norm, from the truncated SVD ``S ~ U Sigma V^T``, with ``U_s = U Sigma^(1/2)`` and
    ``U_t = V Sigma^(1/2)``. ``S`` itself is never formed: the SVD (ARPACK, through
    :func:`scipy.sparse.linalg.svds`) only asks for products with ``S`` and ``S^T``,
    which for Katz's proximity ``S = (I - beta A)^-1 beta A`` are sparse solves with one
    LU factorisation of ``I - beta A`` (see :func:`proximity_operator`). The paper's
    generalised SVD reaches the same factors.

    Parameters
    ----------
    n_components : int, default=128
        Dimension of *each* of the source and target embeddings; below the number of
        nodes.
    proximity : {"katz", "ppr", "common_neighbors", "adamic_adar"}, default="katz"
        See :data:`PROXIMITIES` and :func:`proximity_operator`.
    beta : float or "auto", default="auto"
        Katz's decay: paths of length ``k`` weigh ``beta^k``. The series converges only
        for ``beta < 1 / rho(A)`` (``rho``: the spectral radius); ``"auto"`` takes half
        of that bound (of ``1 / (largest row sum)`` on a graph without cycles).
    damping : float, default=0.5
        Rooted PageRank's probability of walking on at each step (``"ppr"`` only).
    random_state : int, numpy.random.Generator or None, default=0
        Seeds ARPACK's starting vector; the signs of the singular pairs are fixed so
        that the largest entry of each source column is positive.

    Attributes
    ----------
    source_embedding_ : ndarray of shape (n_nodes, n_components), float64
    target_embedding_ : ndarray of shape (n_nodes, n_components), float64
    singular_values_ : ndarray of shape (n_components,)
        The largest singular values of ``S``, in decreasing order.
    beta_ : float or None
        The Katz decay in use (None for the other proximities).
    spectral_radius_ : float or None
        ``rho(A)`` (Katz only).
    n_nodes_ : int

    References
    ----------
    M. Ou, P. Cui, J. Pei, Z. Zhang, W. Zhu, "Asymmetric Transitivity Preserving Graph
    Embedding", KDD 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.embedding import HOPE
    >>> edges = np.array([[0, 1], [1, 2], [2, 0], [3, 4], [4, 5], [5, 3], [2, 3]])
    >>> adjacency = sparse.csr_matrix((np.ones(7), edges.T), shape=(6, 6))
    >>> hope = HOPE(n_components=2).fit(adjacency)
    >>> hope.fit_transform(adjacency).shape, round(hope.beta_, 3)
    ((6, 4), 0.5)
    >>> scores = hope.source_embedding_ @ hope.target_embedding_.T
    >>> bool(scores[2, 3] > scores[3, 2])      # the link 2 -> 3 has no way back
    True
    """

    def __init__(self, n_components=128, proximity="katz", beta="auto", damping=0.5,
                 random_state=0):
        self.n_components = n_components
        self.proximity = proximity
        self.beta = beta
        self.damping = damping
        self.random_state = random_state

    def fit(self, adjacency, y=None):
        """Embed a directed graph.

        Parameters
        ----------
        adjacency : sparse matrix or array-like of shape (n_nodes, n_nodes)
            ``adjacency[i, j]`` is the weight of the edge ``i -> j``; at least one edge.
        y : None
            Ignored; present for the scikit-learn API.

        Returns
        -------
        self : HOPE
        """
        if self.proximity not in PROXIMITIES:
            raise ValueError(f"unknown proximity {self.proximity!r}; choose from "
                             f"{list(PROXIMITIES)}")
        n_components = check_param(self.n_components, "n_components", int, 1)
        matrix = check_adjacency(adjacency)
        n_nodes = matrix.shape[0]
        if n_components >= n_nodes:
            raise ValueError(f"n_components must be below the number of nodes "
                             f"({n_nodes}) for a truncated SVD, got {n_components}")
        started = time.perf_counter()
        self.beta_, self.spectral_radius_ = self._katz_beta(matrix)
        damping = self._checked_damping()
        operator = proximity_operator(matrix, self.proximity, self.beta_, damping)
        U, sigma, Vt = svds(operator, k=n_components, random_state=self.random_state)
        order = np.argsort(sigma)[::-1]
        U, sigma, V = U[:, order], sigma[order], Vt[order].T
        sign = np.sign(U[np.argmax(np.abs(U), axis=0), np.arange(n_components)])
        sign[sign == 0] = 1.0
        root = np.sqrt(sigma)
        self.source_embedding_ = U * (sign * root)
        self.target_embedding_ = V * (sign * root)
        self.singular_values_ = sigma
        self.n_nodes_ = n_nodes
        logger.info("HOPE (%s): %d nodes, %d edges, %d components in %.1f s", self.proximity,
                    n_nodes, matrix.nnz, n_components, time.perf_counter() - started)
        return self

    def _katz_beta(self, matrix):
        """The decay in use and the spectral radius, checked (Katz only)."""
        if self.proximity != "katz":
            return None, None
        radius = spectral_radius(matrix)
        if isinstance(self.beta, str) and self.beta == "auto":
            scale = radius if radius > 0 else float(abs(matrix).sum(axis=1).max())
            return 0.5 / scale, radius
        if isinstance(self.beta, bool) or not isinstance(self.beta, numbers.Real):
            raise TypeError(f"beta must be a number or 'auto', got {self.beta!r}")
        beta = float(self.beta)
        if not (np.isfinite(beta) and beta > 0):
            raise ValueError(f"beta must be a positive number, got {self.beta!r}")
        if beta * radius >= 1.0 - 1e-9:      # at the bound, up to the eigensolver's rounding
            raise ValueError(f"beta must be below 1 / spectral radius = {1 / radius:.6g} "
                             f"(the spectral radius of the adjacency is {radius:.6g}) for "
                             f"the Katz series to converge, got beta={beta!r}")
        return beta, radius

    def _checked_damping(self):
        if self.proximity != "ppr":
            return self.damping
        damping = check_param(self.damping, "damping", float, 0.0)
        if not damping < 1.0:
            raise ValueError(f"damping must be in [0, 1), got {self.damping!r}")
        return damping
