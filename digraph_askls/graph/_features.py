"""Checks of node attributes (features) aligned with a graph's node order."""

import numpy as np
from scipy import sparse

from digraph_askls.graph._edge_index import as_numpy, is_edge_index_graph
from digraph_askls.graph._frames import is_dataframe

__all__ = []


def check_features(features, n_nodes):
    """Return ``features`` as float64 (ndarray, or canonical CSR if sparse), or raise.

    Accepted: ``None``; a 2-d array-like of booleans, integers or floats; any SciPy
    sparse matrix or array. The result has ``n_nodes`` rows and finite entries.
    """
    if features is None:
        return None
    if sparse.issparse(features):
        kind = features.dtype.kind
        converted = sparse.csr_array(features)
        values = converted.data
    else:
        converted = np.asarray(features)
        kind = converted.dtype.kind
        values = converted
    if kind not in "biuf":
        raise TypeError(
            "features must hold numbers (bool, int or float), got dtype "
            f"{converted.dtype}"
        )
    if converted.ndim != 2 or converted.shape[0] != n_nodes:
        raise ValueError(
            f"features must be 2-d with one row per node, shape ({n_nodes}, n_features), "
            f"got shape {converted.shape}"
        )
    if not np.all(np.isfinite(values)):
        raise ValueError(
            f"features must be finite, got {np.size(values) - np.isfinite(values).sum()} "
            "NaN or infinite entries"
        )
    if sparse.issparse(converted):
        converted = converted.astype(np.float64)
        converted.sum_duplicates()  # canonical: sorted indices, no duplicates
        return converted
    # C order whatever the source (a DataFrame gives Fortran order): the same rows give
    # the same products to the last bit, whichever form they came in.
    return np.ascontiguousarray(converted, dtype=np.float64)


def get_features(features, nodes, graph=None):
    """Node attributes in the order of ``nodes``, from any of the forms users hold them in.

    Parameters
    ----------
    features : None, array-like, sparse matrix, pandas.DataFrame or str
        * an array or sparse matrix of shape (n_nodes, n_features), rows in node order;
        * a pandas DataFrame indexed by node name, rows in any order (every node needs
          a row, and every row a node of the graph);
        * for a networkx graph, the name of a node attribute holding each node's vector;
        * for an ``edge_index`` graph (a PyTorch Geometric ``Data``), the name of its
          attribute holding the (n_nodes, n_features) array, e.g. ``"x"``; a tensor
          is read through its ``numpy()`` method.
    nodes : list
        The node order (as :func:`get_adjacency` returns it).
    graph : networkx.Graph, optional
        The graph the attribute name refers to.

    Returns
    -------
    None, float64 ndarray or float64 CSR array of shape (n_nodes, n_features)

    Raises
    ------
    ValueError
        NaN or infinite values, a wrong number of rows, nodes without a row or a value,
        rows of unknown nodes, vectors of different lengths.
    TypeError
        Non-numeric values, or an attribute name without a networkx graph.

    Examples
    --------
    >>> import networkx as nx
    >>> from digraph_askls.graph import get_features
    >>> graph = nx.DiGraph([("a", "b")])
    >>> nx.set_node_attributes(graph, {"a": [1.0, 0.0], "b": [0.0, 2.0]}, "x")
    >>> get_features("x", ["b", "a"], graph)
    array([[0., 2.],
           [1., 0.]])
    """
    if features is None:
        return None
    nodes = list(nodes)
    if isinstance(features, str) and is_edge_index_graph(graph):
        features = _from_object_attribute(features, graph)
    elif isinstance(features, str):
        features = _from_node_attribute(features, nodes, graph)
    elif is_dataframe(features):
        features = _from_dataframe(features, nodes)
    elif not sparse.issparse(features):
        features = as_numpy(features)
    return check_features(features, len(nodes))


def numeric_node_attributes(graph, exclude=()):
    """Names of the node attributes that could be features: held by every node of a
    networkx graph as a float or a vector of numbers (``features=name`` reads them).

    Integer and boolean scalars are left out (identifiers, years, class codes, flags),
    and so are the names in ``exclude``. An ``edge_index`` graph (a PyTorch Geometric
    ``Data``) gives ``["x"]`` when it holds an ``x``. Other graphs give ``[]``.

    Examples
    --------
    >>> import networkx as nx
    >>> from digraph_askls.graph._features import numeric_node_attributes
    >>> graph = nx.DiGraph([("a", "b")])
    >>> nx.set_node_attributes(graph, {"a": [1.0, 0.0], "b": [0.0, 2.0]}, "x")
    >>> nx.set_node_attributes(graph, {"a": 1999, "b": 2004}, "year")
    >>> numeric_node_attributes(graph)
    ['x']
    """
    import networkx as nx

    if is_edge_index_graph(graph):
        return ["x"] if getattr(graph, "x", None) is not None and "x" not in exclude else []
    if not isinstance(graph, nx.Graph) or graph.number_of_nodes() == 0:
        return []
    first = next(iter(graph.nodes.values()))
    names = [name for name in first if name not in exclude and _is_numeric(first[name])]
    return [name for name in names
            if all(name in data and _is_numeric(data[name]) for data in graph.nodes.values())]


def _is_numeric(value):
    """Whether a node attribute is a float or a non-empty vector of numbers."""
    if isinstance(value, (float, np.floating)):
        return True
    if sparse.issparse(value):
        return value.dtype.kind in "biuf"
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            array = np.asarray(value)
        except ValueError:            # ragged
            return False
        return array.ndim == 1 and array.size > 0 and array.dtype.kind in "biuf"
    return False


def _from_object_attribute(name, graph):
    value = getattr(graph, name, None)
    if value is None:
        raise ValueError(f"features={name!r} names an attribute that the "
                         f"{type(graph).__name__} does not hold (or holds None)")
    return value if sparse.issparse(value) else as_numpy(value)


def _from_node_attribute(name, nodes, graph):
    import networkx as nx

    from digraph_askls.graph._graph import Graph

    if isinstance(graph, Graph):
        raise TypeError(f"features={name!r} names a node attribute, but a Graph holds its "
                        "node attributes in graph.features (fit uses them by default): "
                        "pass an array in node order, or features=False for none")
    if not isinstance(graph, nx.Graph):
        raise TypeError(f"features={name!r} names a node attribute, which needs a networkx "
                        f"graph or an object with edge_index (and the attribute); got a "
                        f"graph of type {type(graph).__name__}: pass the features as an "
                        "array in node order instead")
    missing = [node for node in nodes if name not in graph.nodes[node]]
    if missing:
        raise ValueError(f"{len(missing)} of {len(nodes)} nodes have no attribute {name!r}, "
                         f"e.g. {missing[:5]}")
    rows = []
    for node in nodes:
        value = graph.nodes[node][name]
        row = np.asarray(value.toarray() if sparse.issparse(value) else value)
        if row.dtype.kind not in "biuf":
            raise TypeError(f"node {node!r}: attribute {name!r} must hold numbers, got "
                            f"{row.dtype} ({value!r:.60})")
        rows.append(row.reshape(-1))
    lengths = {row.size for row in rows}
    if len(lengths) != 1:
        raise ValueError(f"attribute {name!r} must be a vector of one length on every node, "
                         f"got lengths {sorted(lengths)[:5]}")
    return np.vstack(rows)


def _from_dataframe(frame, nodes):
    index = list(frame.index)
    if len(set(index)) != len(index):
        raise ValueError("the features DataFrame must have one row per node, got a "
                         "repeated index")
    known = set(nodes)
    unknown = [node for node in index if node not in known]
    present = set(index)
    missing = [node for node in nodes if node not in present]
    if missing or unknown:
        raise ValueError(f"the features DataFrame must have exactly one row per node of the "
                         f"graph: {len(missing)} node(s) have no row (e.g. {missing[:5]}), "
                         f"{len(unknown)} row(s) name no node (e.g. {unknown[:5]})")
    values = frame.loc[nodes].to_numpy()
    if values.dtype == object:
        try:
            values = values.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError("the features DataFrame must hold numbers, got columns of "
                            f"dtypes {sorted(set(map(str, frame.dtypes)))}") from None
    return values
