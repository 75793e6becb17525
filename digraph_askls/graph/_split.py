"""Fixed train / validation / test splits of a graph's nodes, as published with a dataset."""

from typing import NamedTuple

import numpy as np

__all__ = ["Split"]


class Split(NamedTuple):
    """One fixed split of the nodes of a graph into training, validation and test sets.

    Benchmarks of node classification on directed graphs publish such splits so that
    results can be compared on exactly the same nodes. :class:`Graph` holds them in
    ``graph.splits``, each part converted to a sorted ``int64`` array of node indices.

    Parameters
    ----------
    train, valid, test : array-like of int
        Node indices (rows of the adjacency) of each part.

    See Also
    --------
    digraph_askls.model_selection.fixed_splits : the splits in the form that
        ``evaluate_node_classifier`` takes.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.graph import Split
    >>> split = Split(train=np.array([0, 2]), valid=np.array([3]), test=np.array([1]))
    >>> split.train, split.test
    (array([0, 2]), array([1]))
    >>> train, valid, test = split
    """

    train: np.ndarray
    valid: np.ndarray
    test: np.ndarray


def check_splits(splits, labels):
    """Return ``splits`` as a tuple of :class:`Split` of sorted int64 arrays, or raise.

    Each part must hold distinct node indices in ``[0, n_nodes)``, the three parts of a
    split must be disjoint, and every node of a split must be labelled.
    """
    if splits is None:
        return None
    if isinstance(splits, Split) or not isinstance(splits, (list, tuple)):
        raise TypeError(
            "splits must be None or a list or tuple of Split(train, valid, test), got "
            f"{type(splits).__name__}"
        )
    n_nodes = labels.size
    checked = []
    for index, split in enumerate(splits):
        if not isinstance(split, (list, tuple)) or len(split) != 3:
            raise ValueError(
                f"splits[{index}] must be Split(train, valid, test), got {split!r:.80}"
            )
        parts = Split(*(_node_indices(part, n_nodes, f"splits[{index}].{field}")
                        for field, part in zip(Split._fields, split)))
        for first, second in (("train", "valid"), ("train", "test"), ("valid", "test")):
            common = np.intersect1d(getattr(parts, first), getattr(parts, second))
            if common.size:
                raise ValueError(
                    f"splits[{index}]: the parts must be disjoint, got {common.size} "
                    f"node(s) in both {first!r} and {second!r}, e.g. {common[:5].tolist()}"
                )
        joined = np.concatenate(parts)
        unlabelled = joined[labels[joined] < 0]
        if unlabelled.size:
            raise ValueError(
                f"splits[{index}]: every split node must be labelled, got "
                f"{unlabelled.size} unlabelled node(s), e.g. {unlabelled[:5].tolist()}"
            )
        checked.append(parts)
    return tuple(checked)


def _node_indices(part, n_nodes, where):
    array = np.asarray(part)
    if array.dtype == bool:
        raise TypeError(
            f"{where} must hold node indices, got a boolean mask; convert it with "
            "numpy.flatnonzero(mask)"
        )
    if array.ndim != 1 or not (np.issubdtype(array.dtype, np.integer) or array.size == 0):
        raise ValueError(
            f"{where} must be a 1-d array of integer node indices, got {array.dtype} of "
            f"shape {array.shape}"
        )
    array = np.sort(array.astype(np.int64))
    if array.size and (array[0] < 0 or array[-1] >= n_nodes):
        raise ValueError(
            f"{where} must hold node indices in [0, {n_nodes}), got values in "
            f"[{array[0]}, {array[-1]}]"
        )
    if np.any(array[1:] == array[:-1]):
        raise ValueError(f"{where} must hold distinct nodes, got repeated ones")
    return array

