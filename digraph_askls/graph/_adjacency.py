"""One converter from every supported graph format to a canonical CSR adjacency."""

import logging
import numbers

import networkx as nx
import numpy as np
from scipy import sparse

from digraph_askls.graph._edge_index import from_edge_index, is_edge_index_graph
from digraph_askls.graph._edge_weights import check_edge_weights
from digraph_askls.graph._frames import from_edge_frame, is_dataframe

__all__ = ["get_adjacency"]

logger = logging.getLogger(__name__)


def get_adjacency(graph, nodelist=None, weight="weight", n_nodes=None, columns=None):
    """Convert a directed graph to a canonical sparse adjacency matrix.

    Every public entry point of the library passes its graph through this function.

    Parameters
    ----------
    graph : networkx.Graph, sparse matrix or array, numpy.ndarray, or edge list
        Accepted forms:

        * a ``networkx.DiGraph`` (or ``MultiDiGraph``); an undirected ``networkx.Graph``
          gives a symmetric adjacency;
        * a square scipy sparse matrix or array, or a square 2-D numpy array, read as
          ``adjacency[i, j]`` = weight of the edge ``i -> j``;
        * an edge list: a list (or tuple) of pairs ``(source, target)`` or triples
          ``(source, target, weight)``, or a non-square numpy array of shape ``(E, 2)``
          or ``(E, 3)``. A pair weighs 1. Node ids may be any hashables. A *square* numpy array is
          always read as a matrix, so pass two or three edges as a list;
        * a pandas DataFrame of edges, one row per edge: the columns named ``source``
          and ``target`` (or ``src``/``dst``, ``from``/``to``, ``u``/``v``, any case)
          and the column named ``weight`` (the argument), or ``columns=``; a frame of
          two or three columns with other names is read in order (source, target,
          weight);
        * a :class:`~digraph_askls.graph.Graph` (what the dataset loaders return): its
          adjacency, its nodes named ``graph.node_names``;
        * an object with an ``edge_index`` of shape (2, E) (sources, targets) and
          ``num_nodes``, such as a PyTorch Geometric ``Data``, with its
          ``edge_weight`` when it has one; tensors are read through their ``numpy()``
          method, torch is not imported. Its nodes are ``0, ..., num_nodes - 1``.
    nodelist : sequence of hashables, optional
        Node order of the rows and columns. Without duplicates. For a networkx graph or
        a ``Graph`` it must hold exactly the graph's nodes; for an edge list it must hold every node of
        the edges and may add isolated nodes; for a matrix it names the ``n`` rows.
    weight : str or None, default="weight"
        Edge attribute holding the weight of a networkx graph (the weights column of a
        DataFrame). ``None`` makes every edge weigh 1, whatever the input form (the
        result is the 0/1 pattern).
    n_nodes : int, optional
        Number of nodes. With an edge list of integer ids and no ``nodelist``, the nodes
        are ``0, ..., n_nodes - 1`` (isolated ones included). Otherwise it is checked
        against the number of nodes found.
    columns : sequence of 2 or 3 str, optional
        The (source, target) or (source, target, weight) columns of a DataFrame of
        edges, when their names are not the ones guessed.

    Returns
    -------
    adjacency : scipy.sparse.csr_array of shape (n_nodes, n_nodes)
        Float64, canonical (sorted indices, duplicate edges summed, no stored zeros:
        an edge of weight 0 is no edge), ``adjacency[i, j]`` = weight of ``i -> j``.
    nodes : list
        The node of each row. Without ``nodelist``: the graph's node order for networkx
        (``node_names`` for a ``Graph``),
        ``0, ..., n - 1`` for matrices, ``edge_index`` objects and integer edge lists
        with ``n_nodes``, and the order of first appearance (source before target, edge
        by edge) otherwise, for edge lists and DataFrames alike.

    Raises
    ------
    TypeError
        If the input form is not supported.
    ValueError
        If the matrix is not square, a weight is negative, NaN or infinite, the graph
        has no node, an edge list has the wrong shape, or ``nodelist`` has duplicates,
        misses nodes or names unknown ones.

    Examples
    --------
    >>> import networkx as nx
    >>> from digraph_askls.graph import get_adjacency
    >>> adjacency, nodes = get_adjacency([("a", "b"), ("b", "c"), ("a", "c", 2.0)])
    >>> nodes
    ['a', 'b', 'c']
    >>> adjacency.toarray()
    array([[0., 1., 2.],
           [0., 0., 1.],
           [0., 0., 0.]])
    >>> digraph = nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c", {"weight": 2.0})])
    >>> (get_adjacency(digraph)[0] != adjacency).nnz
    0
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"source": ["a", "b", "a"], "target": ["b", "c", "c"],
    ...                       "weight": [1.0, 1.0, 2.0]})
    >>> frame_adjacency, frame_nodes = get_adjacency(frame)
    >>> frame_nodes, (frame_adjacency != adjacency).nnz
    (['a', 'b', 'c'], 0)

    The graphs of :func:`digraph_askls.datasets.load_dataset` are read as they are:

    >>> from digraph_askls.graph import Graph
    >>> graph = Graph(adjacency, [0, -1, 1], nodes, ["x", "y"])
    >>> get_adjacency(graph)[1], get_adjacency(graph, nodelist=["c", "b", "a"])[0].toarray()
    (['a', 'b', 'c'], array([[0., 0., 0.],
           [1., 0., 0.],
           [2., 1., 0.]]))
    """
    from digraph_askls.graph._graph import Graph

    nodelist = _check_nodelist(nodelist)
    if isinstance(graph, Graph):
        adjacency, nodes = _from_graph(graph, nodelist)
    elif isinstance(graph, nx.Graph):
        adjacency, nodes = _from_networkx(graph, nodelist, weight)
    elif sparse.issparse(graph):
        adjacency, nodes = _from_matrix(sparse.csr_array(graph), nodelist)
    elif isinstance(graph, np.ndarray) and graph.ndim == 2 and graph.shape[0] == graph.shape[1]:
        adjacency, nodes = _from_matrix(_to_float_array(graph, "adjacency"), nodelist)
    elif isinstance(graph, (np.ndarray, list, tuple)):
        adjacency, nodes = _from_edge_list(graph, nodelist, n_nodes)
    elif is_dataframe(graph):
        adjacency, nodes = from_edge_frame(graph, nodelist, weight, n_nodes, columns)
    elif is_edge_index_graph(graph):
        adjacency, nodes = from_edge_index(graph, nodelist, weight)
    else:
        raise TypeError(
            "graph must be a networkx graph, a sparse matrix, a numpy array or an edge "
            "list (list of pairs or triples), a pandas DataFrame of edges, a "
            "digraph_askls.graph.Graph, or an object with edge_index and num_nodes, got "
            f"{type(graph).__name__}"
        )
    if n_nodes is not None and adjacency.shape[0] != n_nodes:
        raise ValueError(f"n_nodes={n_nodes} but the graph has {adjacency.shape[0]} nodes")
    if adjacency.shape[0] == 0:
        raise ValueError("the graph must have at least one node, got 0 nodes")
    return _canonical(adjacency, weight, nodes), nodes


def _check_nodelist(nodelist):
    if nodelist is None:
        return None
    nodelist = list(nodelist)
    if len(set(nodelist)) != len(nodelist):
        seen, duplicates = set(), []
        for node in nodelist:
            if node in seen:
                duplicates.append(node)
            seen.add(node)
        raise ValueError(f"nodelist must not contain duplicates, got {duplicates[:5]} twice")
    return nodelist


def _from_networkx(graph, nodelist, weight):
    if graph.number_of_nodes() == 0:
        # networkx would raise its own NetworkXError ("no nodes or edges").
        raise ValueError("the graph must have at least one node, got 0 nodes")
    if nodelist is None:
        nodelist = list(graph.nodes)
    else:
        wanted = set(nodelist)
        missing = [node for node in graph.nodes if node not in wanted]
        unknown = [node for node in nodelist if node not in graph]
        if missing or unknown:
            raise ValueError(
                "nodelist must hold exactly the nodes of the graph (use graph.subgraph "
                f"for a part); missing from nodelist: {missing[:5]}, not in the graph: "
                f"{unknown[:5]}"
            )
    adjacency = nx.to_scipy_sparse_array(
        graph, nodelist=nodelist, weight=weight, dtype=np.float64, format="csr"
    )
    return sparse.csr_array(adjacency), nodelist


def _from_graph(graph, nodelist):
    """The adjacency of a ``Graph`` in its own node order, or in ``nodelist``'s."""
    if nodelist is None or nodelist == graph.node_names:
        return graph.adjacency, list(graph.node_names)
    from digraph_askls.graph._index import NodeIndex

    if len(nodelist) != graph.n_nodes:
        raise ValueError(f"nodelist must hold exactly the {graph.n_nodes} nodes of the "
                         f"Graph (graph.node_names), got {len(nodelist)} nodes")
    rows = NodeIndex(graph.node_names).positions(nodelist)
    return graph.adjacency[rows][:, rows], nodelist


def _from_matrix(matrix, nodelist):
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"adjacency must be square, got shape {matrix.shape}")
    n = matrix.shape[0]
    if nodelist is None:
        nodelist = list(range(n))
    elif len(nodelist) != n:
        raise ValueError(
            f"nodelist must name the {n} rows of the adjacency, got {len(nodelist)} nodes"
        )
    return sparse.csr_array(matrix, dtype=np.float64), nodelist


def _to_float_array(array, what):
    if array.dtype != bool and (array.dtype == object or not np.issubdtype(array.dtype, np.number)):
        raise TypeError(f"{what} must hold numbers, got dtype {array.dtype}")
    if np.iscomplexobj(array):
        raise TypeError(f"{what} must be real, got dtype {array.dtype}")
    return np.asarray(array, dtype=np.float64)


def _from_edge_list(edges, nodelist, n_nodes):
    sources, targets, weights = _split_edges(edges)
    if nodelist is not None:
        nodes = nodelist
    elif n_nodes is not None:
        nodes = _integer_nodes(sources, targets, n_nodes)
    else:
        nodes = list(dict.fromkeys(node for pair in zip(sources, targets) for node in pair))
    check_edge_weights(weights, lambda i: (sources[i], targets[i]))
    index = {node: i for i, node in enumerate(nodes)}
    try:
        rows = np.fromiter((index[node] for node in sources), np.int64, len(sources))
        cols = np.fromiter((index[node] for node in targets), np.int64, len(targets))
    except KeyError as error:
        raise ValueError(
            f"nodelist must hold every node of the edge list, {error.args[0]!r} is missing"
        ) from None
    n = len(nodes)
    coo = sparse.coo_array((weights, (rows, cols)), shape=(n, n))
    return sparse.csr_array(coo), nodes


def _split_edges(edges):
    """Return sources, targets (lists of ids) and float64 weights of an edge list."""
    if isinstance(edges, np.ndarray):
        if edges.ndim != 2 or edges.shape[1] not in (2, 3):
            raise ValueError(
                "expected a square adjacency matrix or an edge list of shape (E, 2) or "
                f"(E, 3), got an array of shape {edges.shape}"
            )
        ends = edges[:, :2]
        if ends.dtype != object and np.issubdtype(ends.dtype, np.floating):
            if not np.all(np.isfinite(ends)) or np.any(ends != np.round(ends)):
                raise TypeError("node ids of a float edge array must be whole numbers")
            ends = ends.astype(np.int64)
        sources, targets = ends[:, 0].tolist(), ends[:, 1].tolist()
        if edges.shape[1] == 3:
            weights = _to_float_array(np.asarray(edges[:, 2].tolist()), "edge weights")
        else:
            weights = np.ones(len(sources))
        return sources, targets, weights.reshape(-1)
    for edge in edges:
        if not isinstance(edge, (tuple, list)) or len(edge) not in (2, 3):
            raise ValueError(
                "an edge list must hold pairs (source, target) or triples "
                f"(source, target, weight), got the item {edge!r}"
            )
    sources = [edge[0] for edge in edges]
    targets = [edge[1] for edge in edges]
    weights = [edge[2] if len(edge) == 3 else 1.0 for edge in edges]
    weights = _to_float_array(np.asarray(weights), "edge weights")
    return sources, targets, weights.reshape(-1)


def _integer_nodes(sources, targets, n_nodes):
    if not isinstance(n_nodes, numbers.Integral) or n_nodes < 0:
        raise ValueError(f"n_nodes must be a non-negative integer, got {n_nodes!r}")
    for node in (*sources, *targets):
        if not isinstance(node, numbers.Integral) or isinstance(node, bool):
            raise TypeError(
                "with n_nodes and no nodelist the node ids must be integers in "
                f"[0, {n_nodes}), got {node!r}"
            )
        if not 0 <= node < n_nodes:
            raise ValueError(f"node ids must lie in [0, {n_nodes}), got {node}")
    return list(range(int(n_nodes)))


def _canonical(adjacency, weight, nodes):
    """Sorted indices, no duplicates, no stored zeros, valid weights (unit ones if
    ``weight`` is None). A matrix already in that form is returned without a copy: its
    arrays are shared, never modified (large graphs are not held twice). A bad weight is
    named by its edge, the first in row order (source, then target, in node order)."""
    adjacency = sparse.csr_array(adjacency, dtype=np.float64)
    data = adjacency.data
    canonical = (adjacency.has_canonical_format and not (data == 0).any()
                 and (weight is not None or bool(np.all(data == 1))))
    if not canonical:
        adjacency = sparse.csr_array(adjacency, dtype=np.float64, copy=True)
        adjacency.sum_duplicates()
        data = adjacency.data
    check_edge_weights(data, lambda i: (
        nodes[int(np.searchsorted(adjacency.indptr, i, side="right")) - 1],
        nodes[int(adjacency.indices[i])]))
    if canonical:
        return adjacency
    adjacency.eliminate_zeros()
    if weight is None:
        adjacency.data[:] = 1.0
    adjacency.sort_indices()
    return adjacency
