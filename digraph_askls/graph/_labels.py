"""Conversion of node labels to integer codes aligned with a node order."""

import math
import numbers
import warnings
from collections.abc import Mapping

import numpy as np
from sklearn.exceptions import DataConversionWarning

__all__ = ["get_labels"]


def get_labels(labels, nodes, graph=None):
    """Encode node labels as integers aligned with ``nodes``.

    Parameters
    ----------
    labels : mapping, array-like or str
        Either a mapping ``node -> label`` (nodes absent from it are unlabelled), or a
        sequence of length ``len(nodes)`` giving the label of each node in order, or
        the name of a node attribute of the networkx ``graph`` (nodes without the
        attribute are unlabelled), or of an attribute of an ``edge_index`` graph holding
        one label per node (a PyTorch Geometric ``Data``'s ``"y"``).
        Labels may be any hashables: integers, strings, tuples. **Unlabelled** nodes are
        marked by ``None``, by absence from a mapping, or by a negative integer (``-1``;
        also ``-1.0`` in a float array of whole numbers). NaN is *not* a mark of an
        unlabelled node: it usually comes from a failed conversion, and it raises
        (replace it first, e.g. ``numpy.where(numpy.isnan(y), -1, y)``). Float labels
        must be whole numbers; continuous values raise, as scikit-learn's classifiers do.
        A column vector ``(n, 1)`` is flattened with a ``DataConversionWarning``.
    nodes : sequence of hashables
        The node order, as returned by :func:`get_adjacency`.
    graph : networkx.Graph or edge_index graph, optional
        The graph an attribute name refers to.

    Returns
    -------
    codes : numpy.ndarray of int64, shape (n_nodes,)
        ``class_names.index(label)`` for each node, ``-1`` for unlabelled nodes.
    class_names : list
        The distinct labels, sorted (or in order of first appearance when they cannot
        be compared with each other).

    Raises
    ------
    ValueError
        If a sequence has the wrong length or shape, a mapping names unknown nodes, or a
        label is NaN, infinite or a non-whole float.
        If ``labels`` names an attribute that no node has.
    TypeError
        If ``labels`` is neither a mapping nor a sequence, or a label is unhashable, or
        it is an attribute name without a networkx (or ``edge_index``) graph.

    Examples
    --------
    >>> from digraph_askls.graph import get_labels
    >>> codes, class_names = get_labels({"a": "red", "c": "blue"}, ["a", "b", "c"])
    >>> codes
    array([ 1, -1,  0])
    >>> class_names
    ['blue', 'red']
    >>> get_labels([3, 1, -1], ["a", "b", "c"])
    (array([ 1,  0, -1]), [1, 3])
    >>> get_labels([3.0, float("nan"), -1.0], ["a", "b", "c"])
    Traceback (most recent call last):
    ...
    ValueError: labels must not be NaN (node 'b'): mark unlabelled nodes with -1 or None

    Labels held as a node attribute of a networkx graph:

    >>> import networkx as nx
    >>> graph = nx.DiGraph([("a", "b"), ("b", "c")])
    >>> nx.set_node_attributes(graph, {"a": "red", "c": "blue"}, "colour")
    >>> get_labels("colour", list(graph), graph)
    (array([ 1, -1,  0]), ['blue', 'red'])
    """
    nodes = list(nodes)
    if isinstance(labels, str):
        labels = _from_attribute(labels, nodes, graph)
    if isinstance(labels, Mapping):
        index = {node: i for i, node in enumerate(nodes)}
        unknown = [node for node in labels if node not in index]
        if unknown:
            raise ValueError(_unknown_nodes_message(unknown, nodes))
        values = [None] * len(nodes)
        for node, label in labels.items():
            values[index[node]] = label
    elif isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
        raise TypeError(
            "labels must be a mapping node -> label, a sequence with one label per "
            "node, or the name of a node attribute of a networkx graph, got "
            f"{type(labels).__name__}"
        )
    else:
        values = _as_list(labels, nodes)
        if len(values) != len(nodes):
            raise ValueError(
                f"labels must have one entry per node ({len(nodes)}), got {len(values)}"
            )
        if isinstance(values, np.ndarray):
            return _encode_integers(values)
    values = [None if _is_unlabelled(value, node) else value
              for value, node in zip(values, nodes)]
    class_names = _class_names(value for value in values if value is not None)
    code_of = {name: code for code, name in enumerate(class_names)}
    codes = np.fromiter(
        (-1 if value is None else code_of[value] for value in values), np.int64, len(values)
    )
    return codes, class_names


def _as_list(labels, nodes):
    """Return a list of labels, or an int64 array (-1 = unlabelled) for numeric labels."""
    if isinstance(labels, (list, tuple)):
        return list(labels)
    array = np.asarray(labels)
    if array.ndim == 2 and array.shape[1] == 1:
        warnings.warn(f"labels of shape {array.shape} (a column vector) were flattened to "
                      f"shape ({array.shape[0]},); pass a one-dimensional array",
                      DataConversionWarning, stacklevel=3)
        array = array[:, 0]
    if array.ndim != 1:
        raise ValueError(f"labels must be one-dimensional (one label per node), got shape "
                         f"{array.shape}")
    if np.issubdtype(array.dtype, np.integer) and array.dtype != bool:
        return np.where(array < 0, -1, array).astype(np.int64)
    if np.issubdtype(array.dtype, np.floating):
        bad = ~np.isfinite(array) | (array != np.round(array))
        if bad.any() and len(array) == len(nodes):
            first = int(np.argmax(bad))
            _check_float(float(array[first]), nodes[first])
        if not bad.any():
            return np.where(array < 0, -1, array).astype(np.int64)
    return array.tolist()


def _encode_integers(values):
    labelled = values >= 0
    class_names, inverse = np.unique(values[labelled], return_inverse=True)
    codes = np.full(len(values), -1, dtype=np.int64)
    codes[labelled] = inverse
    return codes, class_names.tolist()


def _check_float(value, node):
    if math.isnan(value):
        raise ValueError(f"labels must not be NaN (node {node!r}): mark unlabelled nodes "
                         "with -1 or None")
    if not math.isfinite(value) or value != round(value):
        raise ValueError(f"float labels must be whole numbers (class codes), got {value!r} "
                         f"for node {node!r}; pass class names or integer codes")


def _is_unlabelled(value, node):
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        _check_float(float(value), node)
        return value < 0
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return value < 0
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"labels must be hashable (a class name or code), got "
                        f"{type(value).__name__} {value!r} for node {node!r}") from None
    return False


def _class_names(values):
    distinct = list(dict.fromkeys(values))
    try:
        return sorted(distinct)
    except TypeError:
        return distinct


def _from_attribute(name, nodes, graph):
    """The labels an attribute name refers to: a dict node -> label for a networkx graph,
    the attribute's array for an ``edge_index`` graph."""
    import networkx as nx

    from digraph_askls.graph._edge_index import as_numpy, is_edge_index_graph

    if isinstance(graph, nx.Graph):
        values = {node: data[name] for node, data in graph.nodes(data=True) if name in data}
        if not values:
            held = sorted({str(key) for _, data in graph.nodes(data=True) for key in data})
            raise ValueError(f"labels={name!r} names a node attribute that no node of the "
                             f"graph holds; the nodes hold {held[:10] or 'no attribute'}")
        return values
    if is_edge_index_graph(graph):
        value = getattr(graph, name, None)
        if value is None:
            raise ValueError(f"labels={name!r} names an attribute that the "
                             f"{type(graph).__name__} does not hold (or holds None)")
        return as_numpy(value)
    raise TypeError(f"labels={name!r} names a node attribute, which needs a networkx graph "
                    "(or an object with edge_index and the attribute); got a graph of type "
                    f"{type(graph).__name__}: pass the labels as a dict node -> label or "
                    "one label per node instead")


def _unknown_nodes_message(unknown, nodes):
    """The error of label keys that are not nodes, saying so when the keys are the
    nodes written in another type (``"0"`` for the node ``0``)."""
    message = (f"labels name {len(unknown)} node(s) that are not in the graph, e.g. "
               f"{unknown[:5]}")
    by_text = {str(node): node for node in nodes}
    for key in unknown:
        node = by_text.get(str(key))
        if node is not None and type(node) is not type(key):
            wanted = "int" if isinstance(node, numbers.Integral) else type(node).__name__
            return (f"{message}: the keys are {type(key).__name__} and the graph's nodes "
                    f"{type(node).__name__} ({key!r} is not the node {node!r}); key the "
                    f"labels by the nodes themselves, e.g. {{{wanted}(node): label for "
                    f"node, label in labels.items()}}")
    return message
