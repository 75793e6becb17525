"""Targets beyond one balanced label per sample: class weights and multi-label indicators.

Both keep AsK-LS's one matrix for every one-vs-rest problem. Class weights weight each
training sample's error term by the weight of its class, which depends on the sample and
not on the problem; a multi-label target is one more set of right-hand sides, one
``+1`` / ``-1`` column per label.
"""

import warnings
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils.class_weight import compute_class_weight

__all__ = ["check_multilabel", "class_weights", "is_multilabel", "label_indicator",
           "multilabel_labels", "row_codes"]


def is_multilabel(y):
    """Whether ``y`` is a multi-label indicator: a sparse matrix, or a 2-D array of at
    least two columns (one column is the usual column vector of labels)."""
    if sp.issparse(y):
        return True
    if isinstance(y, (str, bytes)) or not hasattr(y, "__len__"):
        return False
    shape = np.shape(y) if not isinstance(y, dict) else ()
    return len(shape) == 2 and shape[1] >= 2


def check_multilabel(Y, n_samples=None, allow_unlabelled=False):
    """A multi-label indicator as a dense 0/1 ``int`` array, or a clear error.

    Parameters
    ----------
    Y : array-like or sparse matrix of shape (n_samples, n_labels)
        ``1``: the sample has the label, ``0``: it has not. With ``allow_unlabelled``
        (the transductive node API), a row of ``-1`` marks an unlabelled sample; a row
        that mixes ``-1`` with ``0`` / ``1`` is an error.
    n_samples : int, optional
        The number of rows expected.
    allow_unlabelled : bool, default=False
        With it, a target in which every row is labelled (0/1, no row of -1) warns
        (``UserWarning``): a row of 0s reads "has none of the labels", and is fitted so,
        where a 0 was perhaps meant as "unknown".

    Returns
    -------
    Y : ndarray of shape (n_samples, n_labels), int
    labelled : ndarray of shape (n_samples,), bool
        Rows that are not unlabelled.

    Examples
    --------
    >>> Y, labelled = check_multilabel([[1, 0], [-1, -1], [1, 1]], allow_unlabelled=True)
    >>> Y.tolist(), labelled.tolist()
    ([[1, 0], [-1, -1], [1, 1]], [True, False, True])
    """
    Y = Y.toarray() if sp.issparse(Y) else np.asarray(Y)
    if Y.ndim != 2 or Y.shape[1] < 1:
        raise ValueError(f"a multi-label target must be a 2-D indicator (n_samples, "
                         f"n_labels), got shape {Y.shape}")
    if n_samples is not None and Y.shape[0] != n_samples:
        raise ValueError(f"the multi-label target must have one row per training sample "
                         f"({n_samples}), got {Y.shape[0]}")
    if Y.dtype.kind not in "biuf":
        raise ValueError(f"a multi-label target must hold 0 and 1, got dtype {Y.dtype}")
    allowed = (-1, 0, 1) if allow_unlabelled else (0, 1)
    bad = ~np.isin(Y, allowed)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(
            f"a multi-label target must hold only {', '.join(map(str, allowed))} "
            f"(1: has the label, 0: has not"
            f"{'; a row of -1: unlabelled' if allow_unlabelled else ''}), got "
            f"{Y[row, col].item()!r} at row {int(row)}, column {int(col)} "
            f"({int(bad.sum())} such entries)")
    unlabelled = (Y == -1)
    mixed = unlabelled.any(axis=1) & ~unlabelled.all(axis=1)
    if mixed.any():
        raise ValueError(f"a row of a multi-label target is either all -1 (unlabelled) or "
                         f"0/1, got a row mixing -1 with 0/1 at row {int(np.argmax(mixed))} "
                         f"({int(mixed.sum())} such rows)")
    labelled = ~unlabelled.all(axis=1)
    if allow_unlabelled and labelled.all():
        warnings.warn(
            f"every row of the multi-label target is labelled (0/1, no row of -1), so all "
            f"{Y.shape[0]} samples are fitted and none is left to predict; a 0 reads 'has "
            f"not the label', not 'unknown'. Write each unlabelled row as a row of -1 "
            f"(every entry -1), or pass a dict node -> labels that leaves them out",
            UserWarning, stacklevel=2)
    return Y.astype(int), labelled


def class_weights(class_weight, classes, y):
    """One weight per class of ``classes`` (float array), from ``class_weight``.

    ``None``: all 1. ``"balanced"``: ``n_samples / (n_classes * count)``, as
    :func:`sklearn.utils.class_weight.compute_class_weight` gives it. A dict maps classes
    to positive weights; classes it leaves out weigh 1, and a key that is not a class of
    the training labels is an error.

    Examples
    --------
    >>> class_weights("balanced", np.array([0, 1]), np.array([0, 0, 0, 1])).tolist()
    [0.6666666666666666, 2.0]
    >>> class_weights({1: 5.0}, np.array([0, 1]), np.array([0, 1])).tolist()
    [1.0, 5.0]
    """
    if class_weight is None:
        return np.ones(classes.size)
    if isinstance(class_weight, dict):
        known = set(classes.tolist())
        unknown = [key for key in class_weight if key not in known]
        if unknown:
            raise ValueError(f"class_weight names classes that are not among the training "
                             f"labels: {unknown}; the classes are {classes.tolist()}")
        for key, value in class_weight.items():
            if (not isinstance(value, Real) or isinstance(value, bool)
                    or not np.isfinite(value) or value <= 0):
                raise ValueError(f"class_weight must map classes to positive finite "
                                 f"numbers, got {value!r} for class {key!r}")
    return compute_class_weight(class_weight, classes=classes, y=y).astype(np.float64)


def row_codes(Y):
    """The class code of each row of one-vs-rest label columns ``Y`` (``+1`` / ``-1``):
    ``Y[:, 0] > 0`` for one binary column, else the column of the ``+1``."""
    if Y.shape[1] == 1:
        return (Y[:, 0] > 0).astype(int)
    return np.argmax(Y, axis=1)


def _label_set(value):
    """Whether a dict value is a node's set of labels (an iterable that is not a string)."""
    return isinstance(value, (list, tuple, set, frozenset, np.ndarray))


def multilabel_labels(graph, labels):
    """The multi-label target that ``NodeClassifier.fit(graph, labels)`` is given, or None
    for one label per node: a 2-D indicator (array of at least two columns, or sparse),
    a dict node -> labels whose values are lists, tuples or sets, or, with ``labels``
    None, a :class:`~digraph_askls.graph.Graph`'s ``label_matrix`` (its class names
    naming the columns)."""
    from ..graph import Graph

    if labels is None:
        if isinstance(graph, Graph) and graph.label_matrix is not None:
            return graph
        return None
    if isinstance(labels, dict):
        return labels if labels and all(map(_label_set, labels.values())) else None
    return labels if is_multilabel(labels) else None


def label_indicator(target, nodes):
    """A multi-label target (see :func:`multilabel_labels`) as a 0/1 ``int`` array in the
    order of ``nodes``, unlabelled rows all -1, and the names of its columns.

    Examples
    --------
    >>> Y, names = label_indicator({"a": ["x"], "c": {"x", "y"}, "d": []}, ["a", "b", "c", "d"])
    >>> Y.tolist(), names
    ([[1, 0], [-1, -1], [1, 1], [0, 0]], ['x', 'y'])
    """
    from ..graph import Graph

    n = len(nodes)
    if isinstance(target, Graph):
        Y, _ = check_multilabel(target.label_matrix, n)
        return Y, list(target.class_names)
    if not isinstance(target, dict):
        Y, _ = check_multilabel(target, n, allow_unlabelled=True)
        return Y, list(range(Y.shape[1]))
    position = {node: index for index, node in enumerate(nodes)}
    unknown = [node for node in target if node not in position]
    if unknown:
        raise ValueError(f"the labels name nodes that are not in the graph: {unknown[:5]}")
    names = {label for values in target.values() for label in values}
    try:
        names = sorted(names)
    except TypeError:                     # labels of several types
        names = sorted(names, key=repr)
    column = {name: index for index, name in enumerate(names)}
    Y = np.full((n, len(names)), -1)
    for node, values in target.items():
        Y[position[node]] = 0
        Y[position[node], [column[label] for label in values]] = 1
    return Y, names
