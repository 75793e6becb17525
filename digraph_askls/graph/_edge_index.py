"""Graphs in the ``edge_index`` form of PyTorch Geometric: a (2, E) array and a node count.

Any object with an ``edge_index`` of shape (2, E) (row 0 the sources, row 1 the
targets) and ``num_nodes`` is read, optionally with ``edge_weight`` (E,), node
attributes ``x`` and labels ``y``. Tensors are turned into numpy arrays through their
own methods (``detach``, ``cpu``, ``numpy``): torch is never imported here.
"""

import numbers

import numpy as np
from scipy import sparse

from digraph_askls.graph._edge_weights import check_edge_weights

__all__ = ["as_numpy", "from_edge_index", "is_edge_index_graph"]


def is_edge_index_graph(graph):
    """Whether ``graph`` has the ``edge_index`` and ``num_nodes`` of a PyG ``Data``."""
    return hasattr(graph, "edge_index") and hasattr(graph, "num_nodes")


def as_numpy(value):
    """A numpy array of an array-like or a tensor (moved to the CPU, detached)."""
    if isinstance(value, np.ndarray):
        return value
    for step in ("detach", "cpu"):
        method = getattr(value, step, None)
        if callable(method):
            value = method()
    method = getattr(value, "numpy", None)
    if callable(method):
        value = method()
    return np.asarray(value)


def _num_nodes(graph):
    value = graph.num_nodes
    if hasattr(value, "item") and not isinstance(value, numbers.Integral):
        value = value.item()
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise ValueError(f"num_nodes of the {type(graph).__name__} must be a positive "
                         f"integer, got {value!r}")
    return int(value)


def from_edge_index(graph, nodelist=None, weight="weight"):
    """Adjacency (not yet canonical) and node order of an ``edge_index`` graph.

    The nodes are ``0, ..., num_nodes - 1`` (or ``nodelist``, naming them in order);
    ``edge_weight`` gives the weights unless ``weight`` is None.
    """
    n = _num_nodes(graph)
    edge_index = as_numpy(graph.edge_index)
    if edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise ValueError(f"edge_index must have shape (2, n_edges), got {edge_index.shape}")
    if edge_index.size and edge_index.dtype.kind not in "iu":
        raise TypeError(f"edge_index must hold integer node indices, got dtype "
                        f"{edge_index.dtype}")
    rows, cols = edge_index.astype(np.int64)
    if rows.size and (min(rows.min(), cols.min()) < 0 or max(rows.max(), cols.max()) >= n):
        raise ValueError(f"edge_index must hold node indices in [0, {n}) (num_nodes={n}), "
                         f"got values in [{min(rows.min(), cols.min())}, "
                         f"{max(rows.max(), cols.max())}]")
    weights = np.ones(rows.size)
    edge_weight = getattr(graph, "edge_weight", None)
    if weight is not None and edge_weight is not None:
        weights = as_numpy(edge_weight)
        if weights.shape not in ((rows.size,), (rows.size, 1)):
            raise ValueError(f"edge_weight must have one weight per edge, shape "
                             f"({rows.size},), got {weights.shape}")
        if weights.dtype.kind not in "biuf":
            raise TypeError(f"edge_weight must hold numbers, got dtype {weights.dtype}")
        weights = weights.reshape(-1).astype(np.float64)
        check_edge_weights(weights, lambda i: (
            int(rows[i]) if nodelist is None else nodelist[rows[i]],
            int(cols[i]) if nodelist is None else nodelist[cols[i]]))
    if nodelist is None:
        nodes = list(range(n))
    elif len(nodelist) != n:
        raise ValueError(f"nodelist must name the {n} nodes of the graph (num_nodes), got "
                         f"{len(nodelist)} nodes")
    else:
        nodes = list(nodelist)
    coo = sparse.coo_array((weights, (rows, cols)), shape=(n, n))
    return sparse.csr_array(coo), nodes
