"""Readers of multi-label node-classification graphs (several labels per node)."""

import numpy as np
import scipy.io
from scipy import sparse

from digraph_askls.graph import Graph, get_adjacency

__all__ = ["load_multilabel_mat"]


def load_multilabel_mat(path, name=""):
    """Read a MATLAB file with a ``network`` adjacency and a ``group`` indicator.

    The format of the embedding literature's multi-label graphs (BlogCatalog as DeepWalk
    ships it): ``network`` is a sparse (n, n) adjacency (``network[i, j]``: the edge
    ``i -> j``; BlogCatalog's is symmetric, each friendship stored both ways) and
    ``group`` a sparse (n, n_labels) 0/1 matrix of the nodes' labels, several per node.

    Parameters
    ----------
    path : path-like
    name : str, default=""

    Returns
    -------
    Graph
        Node names and label names are the row and column indices; the labels are in
        ``label_matrix`` and ``labels`` is all ``-1``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np, scipy.io, scipy.sparse as sp
    >>> network = sp.csc_matrix(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]]))
    >>> group = sp.csc_matrix(np.array([[1, 0], [1, 1], [0, 1]]))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "toy.mat"
    ...     scipy.io.savemat(path, {"network": network, "group": group})
    ...     graph = load_multilabel_mat(path, name="toy")
    >>> graph
    Graph(name='toy', n_nodes=3, n_edges=4, n_classes=2, multi_label=True)
    >>> graph.label_matrix.toarray().tolist()
    [[1, 0], [1, 1], [0, 1]]
    """
    data = scipy.io.loadmat(path)
    for key in ("network", "group"):
        if key not in data:
            raise ValueError(f"{path} holds no {key!r} matrix; found "
                             f"{sorted(k for k in data if not k.startswith('__'))}")
    network = sparse.csr_array(data["network"], dtype=np.float64)
    n = network.shape[0]
    adjacency, _ = get_adjacency(network)
    group = sparse.csr_array(data["group"])
    n_labels = group.shape[1]
    return Graph(adjacency, np.full(n, -1), list(range(n)), list(range(n_labels)),
                 name=name, label_matrix=group)
