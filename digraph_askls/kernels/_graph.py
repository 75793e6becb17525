"""Graph kernels built from the adjacency: the paper's in-degree kernel and symmetrisation."""

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import LinearOperator

from digraph_askls.graph import get_adjacency

__all__ = ["get_in_degree_kernel", "get_symmetrized_kernel"]


def get_in_degree_kernel(adjacency):
    """Return the in-degree normalised adjacency with self-loops of the AsK-LS paper.

    ``P = D_in^{-1} (A + I)`` where ``A[i, j] = adjacency[j, i]`` is the weight of the
    edge ``j -> i`` (so row ``i`` of ``A`` lists the in-links of node ``i``) and
    ``D_in`` is the diagonal of the row sums of ``A + I``. Each row of ``P`` sums to 1:
    ``P[i, j]`` is the share of node ``j`` among node ``i`` and its in-neighbours. This
    is the kernel ``G`` of the authors' MATLAB data files.

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
        ``adjacency[i, j]`` = weight of the edge ``i -> j``; weights are kept.

    Returns
    -------
    P : scipy.sparse.csr_array of shape (n_nodes, n_nodes)
        Row-stochastic, float64, not symmetric in general.

    See Also
    --------
    get_symmetrized_kernel : ``(P + P^T) / 2``, the kernel of the symmetric baselines.

    Examples
    --------
    >>> from digraph_askls.kernels import get_in_degree_kernel
    >>> P = get_in_degree_kernel([(0, 1), (2, 1)])  # 0 -> 1 <- 2
    >>> P.toarray().round(3)
    array([[1.   , 0.   , 0.   ],
           [0.333, 0.333, 0.333],
           [0.   , 0.   , 1.   ]])
    """
    adjacency, _ = get_adjacency(adjacency)
    n = adjacency.shape[0]
    with_loops = sparse.csr_array(adjacency.T) + sparse.eye_array(n, format="csr")
    degrees = np.asarray(with_loops.sum(axis=1)).ravel()
    kernel = sparse.csr_array(sparse.diags_array(1.0 / degrees) @ with_loops)
    kernel.sum_duplicates()
    kernel.sort_indices()
    return kernel


def get_symmetrized_kernel(K):
    """Return the symmetric part ``(K + K^T) / 2`` of a square kernel.

    Parameters
    ----------
    K : sparse matrix, numpy.ndarray or scipy.sparse.linalg.LinearOperator
        Square kernel matrix.

    Returns
    -------
    sparse CSR (same family, array or matrix, as ``K``), numpy.ndarray or LinearOperator
        Same kind as the input; a ``LinearOperator`` gives the operator
        ``x -> (K x + K^T x) / 2`` and never forms the matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import get_symmetrized_kernel
    >>> get_symmetrized_kernel(np.array([[1.0, 2.0], [0.0, 1.0]]))
    array([[1., 1.],
           [1., 1.]])
    """
    shape = getattr(K, "shape", None)
    if shape is None or len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(f"K must be a square matrix or operator, got shape {shape}")
    if isinstance(K, LinearOperator):
        return 0.5 * (K + K.T)
    if sparse.issparse(K):
        symmetric = ((K + K.T) * 0.5).tocsr()
        symmetric.sum_duplicates()
        symmetric.sort_indices()
        return symmetric
    if isinstance(K, np.ndarray):
        return (K + K.T) / 2
    raise TypeError(
        f"K must be a sparse matrix, a numpy array or a LinearOperator, got {type(K).__name__}"
    )
