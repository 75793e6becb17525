"""The co-occurrence kernel: how much more often short walks join two nodes than chance.

DeepWalk and node2vec learn embeddings whose inner products approximate a shifted
pointwise mutual information of the nodes met within ``T`` steps of each other on random
walks; Qiu et al. ("Network Embedding as Matrix Factorization", WSDM 2018, NetMF) wrote
that matrix in closed form for a graph of adjacency ``A``, degrees ``d`` and volume
``vol = sum(A)``::

    M = vol / (b T) * (P + P^2 + ... + P^T) D^-1,    P = D^-1 A,

and factorised ``log(max(M, 1))``. AsK-LS needs no factorisation: the matrix itself is a
kernel, and on a directed graph it is asymmetric (walks follow the links), which AsK-LS
learns from as it is. For a digraph ``P = D_out^-1 A`` (a node without out-links ends its
walks) and the columns are divided by the in-degrees (the chance of ending on a node);
on an undirected graph both are the degrees and this is NetMF's matrix.

The kernel is dense (``n x n``): the walk sums are ``T`` products of the sparse ``P`` with
a dense block, ``T nnz(A) n`` operations, and ``n^2`` numbers of ``dtype`` (10,312 nodes,
BlogCatalog: 425 MB in float32).
"""

import numpy as np
from scipy import sparse

from digraph_askls.graph import get_adjacency
from digraph_askls.kernels._specs import GraphKernel

__all__ = ["CooccurrenceKernel", "get_cooccurrence_kernel"]


def get_cooccurrence_kernel(adjacency, window=10, negative=1.0, dtype="float32"):
    """The co-occurrence kernel of a graph, as a dense array: NetMF's matrix, log-shifted.

    ``log(max(vol / (negative * window) * (P + ... + P^window) D_in^-1, 1))``.

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
        Links count once whatever their weight.
    window : int, default=10
        ``T``, the walk steps within which two nodes co-occur (DeepWalk's window).
    negative : float, default=1.0
        ``b``, the negative samples per pair of the skip-gram objective (a shift of
        ``log b``).
    dtype : str, default="float32"

    Returns
    -------
    ndarray of shape (n_nodes, n_nodes)

    Examples
    --------
    >>> import numpy as np
    >>> K = get_cooccurrence_kernel([(0, 1), (1, 2), (2, 0), (2, 3), (3, 2)], window=2)
    >>> K.shape, bool((K >= 0).all())
    ((4, 4), True)
    >>> undirected = get_cooccurrence_kernel([(0, 1), (1, 0), (1, 2), (2, 1)], window=3)
    >>> bool(np.allclose(undirected, undirected.T))
    True
    """
    adjacency, _ = get_adjacency(adjacency)
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
        raise ValueError(f"window must be an integer >= 1, got {window!r}")
    if not np.isfinite(negative) or negative <= 0:
        raise ValueError(f"negative must be a positive number, got {negative!r}")
    links = sparse.csr_array(adjacency, dtype=np.float64)
    links.data[:] = 1.0
    links.eliminate_zeros()
    out_degree = np.asarray(links.sum(axis=1)).ravel()
    in_degree = np.asarray(links.sum(axis=0)).ravel()
    volume = float(out_degree.sum())
    if volume == 0:
        raise ValueError("the co-occurrence kernel needs links; the graph has none")
    step = (sparse.diags_array(1.0 / np.where(out_degree > 0, out_degree, 1.0)) @ links
            ).astype(dtype).tocsr()
    power = step.toarray()
    total = power.copy()
    for _ in range(window - 1):
        power = step @ power
        total += power
    scale = (volume / (negative * window)) / np.where(in_degree > 0, in_degree, np.inf)
    total *= scale.astype(dtype)[None, :]
    np.maximum(total, 1.0, out=total)
    return np.log(total, out=total)


class CooccurrenceKernel(GraphKernel):
    """The co-occurrence of nodes on short walks, NetMF's matrix as a kernel.

    See :func:`get_cooccurrence_kernel`. Suits graphs without node attributes whose
    classes are communities (friendships, memberships): the kernel of the embedding
    literature's multi-label graphs, BlogCatalog among them.

    Examples
    --------
    >>> from digraph_askls.kernels import CooccurrenceKernel
    >>> CooccurrenceKernel(window=3).make([(0, 1), (1, 2), (2, 0)]).shape
    (3, 3)
    """

    gammas = (0.01, 0.003, 0.03)

    def __init__(self, window=10, negative=1.0, dtype="float32"):
        self.window = window
        self.negative = negative
        self.dtype = dtype

    def _build(self, adjacency, features):
        return get_cooccurrence_kernel(adjacency, window=self.window,
                                       negative=self.negative, dtype=self.dtype)
