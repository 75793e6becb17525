"""Edges held in a pandas DataFrame: one row per edge, source and target columns.

pandas is not a dependency of the library: a DataFrame is recognised by its attributes,
and pandas is imported only to read one, so it is there whenever a user holds one.
"""

import numbers

import numpy as np
from scipy import sparse

__all__ = ["SOURCE_NAMES", "TARGET_NAMES", "edge_frame_columns", "from_edge_frame",
           "is_dataframe"]

#: Column names read as the source and the target of an edge, whatever their case.
SOURCE_NAMES = ("source", "src", "from", "u", "tail")
TARGET_NAMES = ("target", "dst", "to", "v", "head")


def is_dataframe(value):
    """Whether ``value`` looks like a pandas DataFrame (without importing pandas)."""
    return all(hasattr(value, name) for name in ("index", "columns", "loc", "to_numpy"))


def _find(columns, names):
    lowered = [str(column).strip().lower() for column in columns]
    for name in names:
        if name in lowered:
            return columns[lowered.index(name)]
    return None


def edge_frame_columns(frame, columns=None, weight="weight"):
    """The ``(source, target, weight)`` columns of a DataFrame of edges (weight may be None).

    ``columns`` gives them as a pair or a triple of names; otherwise they are guessed:
    the columns named as in :data:`SOURCE_NAMES` and :data:`TARGET_NAMES` (any case),
    with the column named ``weight`` (the argument) as weights, or, for a frame of two
    or three columns with other names, the columns in order. ``weight=None`` ignores
    any weight column.
    """
    names = list(frame.columns)
    if columns is not None:
        columns = list(columns)
        if len(columns) not in (2, 3):
            raise ValueError(f"columns must name (source, target) or (source, target, "
                             f"weight), got {columns!r}")
        missing = [name for name in columns if name not in names]
        if missing:
            raise ValueError(f"columns {missing} are not in the edges DataFrame, whose "
                             f"columns are {names}")
        source, target = columns[:2]
        weight_column = columns[2] if len(columns) == 3 else None
    else:
        source, target = _find(names, SOURCE_NAMES), _find(names, TARGET_NAMES)
        weight_column = None if weight is None else _find(names, (str(weight).lower(),))
        if source is None or target is None:
            if len(names) not in (2, 3):
                raise ValueError(
                    f"cannot tell the source and target columns of the edges DataFrame "
                    f"among {names}: name them 'source' and 'target' (and 'weight'), or "
                    f"pass columns=(source, target[, weight])")
            source, target = names[:2]
            weight_column = names[2] if len(names) == 3 else None
    return source, target, None if weight is None else weight_column


def _ends(frame, column, what):
    values = frame[column]
    missing = values.isna().to_numpy()
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise ValueError(f"edge {row} (row {frame.index[row]!r}) of the edges DataFrame has "
                         f"no {what} (column {column!r}): expected a node name, got "
                         f"{values.iloc[row]!r}")
    return values


def _first_appearance(source_codes, target_codes, n_unique):
    """Ranks of the nodes in order of first appearance, source before target, edge by
    edge (the order of :func:`~digraph_askls.graph.get_adjacency` for edge lists)."""
    first = np.full(n_unique, np.iinfo(np.int64).max, dtype=np.int64)
    positions = 2 * np.arange(source_codes.size, dtype=np.int64)
    np.minimum.at(first, source_codes, positions)
    np.minimum.at(first, target_codes, positions + 1)
    order = np.argsort(first, kind="stable")
    rank = np.empty(n_unique, dtype=np.int64)
    rank[order] = np.arange(n_unique)
    return order, rank


def from_edge_frame(frame, nodelist=None, weight="weight", n_nodes=None, columns=None):
    """Adjacency (not yet canonical) and node order of a DataFrame of edges.

    Node names are factorised by pandas (hashing, no Python loop over the edges).
    """
    import pandas as pd

    source, target, weight_column = edge_frame_columns(frame, columns, weight)
    sources = _ends(frame, source, "source")
    targets = _ends(frame, target, "target")
    if weight_column is None:
        weights = np.ones(len(frame))
    else:
        weights = pd.to_numeric(frame[weight_column], errors="coerce").to_numpy(
            dtype=np.float64, na_value=np.nan)
        bad = ~np.isfinite(weights) | (weights < 0)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            value = frame[weight_column].iloc[row]
            shown = repr(value) if isinstance(value, str) else str(value)
            raise ValueError(f"edge {row} ({sources.iloc[row]!r} -> {targets.iloc[row]!r}) "
                             f"of the edges DataFrame has the weight {shown} (column "
                             f"{weight_column!r}): expected a finite number >= 0 (a "
                             f"weight of 0 is no edge)")
    if nodelist is not None:
        index = pd.Index(nodelist)
        rows, cols = index.get_indexer(sources), index.get_indexer(targets)
        for codes, values in ((rows, sources), (cols, targets)):
            if (codes < 0).any():
                missing = values.iloc[int(np.flatnonzero(codes < 0)[0])]
                raise ValueError(f"nodelist must hold every node of the edges, {missing!r} "
                                 "is missing")
        nodes = list(nodelist)
    elif n_nodes is not None:
        rows, cols = _integer_ends(sources, n_nodes), _integer_ends(targets, n_nodes)
        nodes = list(range(int(n_nodes)))
    else:
        codes, uniques = pd.factorize(pd.concat([sources, targets], ignore_index=True))
        order, rank = _first_appearance(codes[:len(frame)], codes[len(frame):], len(uniques))
        rows, cols = rank[codes[:len(frame)]], rank[codes[len(frame):]]
        nodes = np.asarray(uniques, dtype=object)[order].tolist()
    n = len(nodes)
    coo = sparse.coo_array((weights, (rows, cols)), shape=(n, n))
    return sparse.csr_array(coo), nodes


def _integer_ends(values, n_nodes):
    if not isinstance(n_nodes, numbers.Integral) or n_nodes < 0:
        raise ValueError(f"n_nodes must be a non-negative integer, got {n_nodes!r}")
    array = values.to_numpy()
    if array.dtype.kind not in "iu":
        raise TypeError(f"with n_nodes and no nodelist the node ids must be integers in "
                        f"[0, {n_nodes}), got a column of dtype {values.dtype}")
    if array.size and (array.min() < 0 or array.max() >= n_nodes):
        bad = array[(array < 0) | (array >= n_nodes)][0]
        raise ValueError(f"node ids must lie in [0, {n_nodes}), got {bad}")
    return array.astype(np.int64)
