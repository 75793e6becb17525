"""Conversion of node labels to integer codes aligned with a node order."""

import math
from collections.abc import Mapping

import numpy as np

__all__ = ["get_labels"]


def get_labels(labels, nodes):
    """Encode node labels as integers aligned with ``nodes``.

    Parameters
    ----------
    labels : mapping or array-like
        Either a mapping ``node -> label`` (nodes absent from it are unlabelled), or a
        sequence of length ``len(nodes)`` giving the label of each node in order.
        Labels may be any hashables. Unlabelled: ``None``, NaN, and, for integer
        labels, any negative value.
    nodes : sequence of hashables
        The node order, as returned by :func:`get_adjacency`.

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
        If a sequence has the wrong length or a mapping names unknown nodes.
    TypeError
        If ``labels`` is neither a mapping nor a sequence.

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
    """
    nodes = list(nodes)
    if isinstance(labels, Mapping):
        index = {node: i for i, node in enumerate(nodes)}
        unknown = [node for node in labels if node not in index]
        if unknown:
            raise ValueError(
                f"labels name {len(unknown)} node(s) that are not in the graph, "
                f"e.g. {unknown[:5]}"
            )
        values = [None] * len(nodes)
        for node, label in labels.items():
            values[index[node]] = label
    elif isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
        raise TypeError(
            "labels must be a mapping node -> label or a sequence with one label per "
            f"node, got {type(labels).__name__}"
        )
    else:
        values = _as_list(labels)
        if len(values) != len(nodes):
            raise ValueError(
                f"labels must have one entry per node ({len(nodes)}), got {len(values)}"
            )
        if isinstance(values, np.ndarray):
            return _encode_integers(values)
    values = [None if _is_missing(value) else value for value in values]
    class_names = _class_names(value for value in values if value is not None)
    code_of = {name: code for code, name in enumerate(class_names)}
    codes = np.fromiter(
        (-1 if value is None else code_of[value] for value in values), np.int64, len(values)
    )
    return codes, class_names


def _as_list(labels):
    """Return a list of labels, or an int64 array (-1 = unlabelled) for numeric labels."""
    if isinstance(labels, (list, tuple)):
        return list(labels)
    array = np.asarray(labels)
    if array.ndim == 2 and array.shape[1] == 1:
        array = array[:, 0]
    if array.ndim != 1:
        raise ValueError(f"labels must be one-dimensional, got shape {array.shape}")
    if np.issubdtype(array.dtype, np.integer) and array.dtype != bool:
        return np.where(array < 0, -1, array).astype(np.int64)
    if np.issubdtype(array.dtype, np.floating):
        missing = np.isnan(array)
        whole = np.isfinite(array) & (array == np.round(array))
        if np.all(whole | missing):
            array = np.where(missing | (array < 0), -1, array)
            return array.astype(np.int64)
    return array.tolist()


def _encode_integers(values):
    labelled = values >= 0
    class_names, inverse = np.unique(values[labelled], return_inverse=True)
    codes = np.full(len(values), -1, dtype=np.int64)
    codes[labelled] = inverse
    return codes, class_names.tolist()


def _is_missing(value):
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value < 0


def _class_names(values):
    distinct = list(dict.fromkeys(values))
    try:
        return sorted(distinct)
    except TypeError:
        return distinct
