"""One's own graph from files: an edges table, a labels table, a features table.

Node names are read as text everywhere, so that ``007`` in the edges file and ``007`` in
the labels file are the same node whatever they look like.

A labels table holds one label per node, or several: a node on several rows (one row
per label), or cells that list labels joined by a separator the caller names
(:func:`read_labels`).
"""

import difflib
import functools
import logging
from decimal import Decimal, InvalidOperation

import numpy as np
from scipy import sparse

from digraph_askls.datasets._tables import (SEPARATOR_NAMES, TableError, first_rows,
                                            looks_like_header, pandas_module, read_table,
                                            reading, separator_hint, table_format,
                                            table_rows, where)
from digraph_askls.graph import Graph, get_adjacency, get_labels
from digraph_askls.graph._frames import SOURCE_NAMES, TARGET_NAMES, edge_frame_columns

__all__ = ["load_graph_files"]

logger = logging.getLogger(__name__)

EDGE_NAMES = {*SOURCE_NAMES, *TARGET_NAMES, "weight", "w"}
NODE_NAMES = {"node", "id", "name", "node_id", ""}
LABEL_NAMES = {*NODE_NAMES, "label", "class", "y", "category"}


#: The columns each table expects, for the messages about a first line.
EXPECTED_EDGES = ("source, target[, weight] (or src/dst, from/to, u/v, tail/head; "
                  "weight or w)")
EXPECTED_LABELS = "node, label (or id/name/node_id; class/y/category)"

#: What joins a node's labels when a labels file repeats its nodes (one row per label)
#: and names no separator: the predictions file of ``digraph-askls predict`` joins them
#: so, and such a file whose labels hold it is refused as ambiguous.
DEFAULT_LABEL_SEPARATOR = ";"

#: How a labels table of one label per node says that several are read otherwise.
PYTHON_SEVERAL_HINT = ("; for several labels per node, give NodeClassifier a dict node -> "
                       "list of labels (the command 'digraph-askls predict --multilabel' "
                       "reads such a file, one row per label)")

#: The least share of the labelled nodes that must be nodes of the graph (named in the
#: edges file, or given attributes by the features file) when the labels are checked
#: (:func:`check_labelled_nodes`); below it the names of the two files most likely
#: differ in how they are written.
MIN_LABELLED_IN_GRAPH = 0.5


def _header(path, sep, header, known):
    rows = first_rows(path, sep)
    if not rows:
        raise TableError(f"{path}: the file holds no rows")
    has_header = looks_like_header(rows, known) if header is None else bool(header)
    return rows, has_header


def _names_columns(fields, known):
    """Whether a first line that was taken for data looks like column names: one of its
    fields is a known name, or close to one (``lable``, ``tgt``, ``Source Node``)."""
    names = sorted(known - {""})
    return any(field.strip().lower() in known
               or difflib.get_close_matches(field.strip().lower(), names, n=1, cutoff=0.6)
               for field in fields)


def _refuse_first_line(path, sep, fields, elsewhere, expected):
    """The error of a first line that is neither a known header nor plausible data."""
    line = (sep or " ").join(fields)
    raise TableError(
        f"{path}:1: the first line {line!r} is neither a header of known column names nor "
        f"plausible data ({elsewhere}); expected the columns {expected}, got "
        f"{', '.join(field.strip() for field in fields)}. Rename the columns; or, if the "
        "file has no header and this line is data, pass header=False (on the command "
        "line: --no-header); header=True (--header) reads it as a header whatever its "
        "names")


def _check_first_edge(frame, columns, path, sep, rows):
    """Refuse a first line taken for an edge that looks like column names and whose two
    names appear on no other line (``src,tgt`` above edges between other names)."""
    if len(frame) < 2 or not _names_columns(rows[0], EDGE_NAMES):
        return
    first = [frame[column].iloc[0] for column in columns]    # as read: no copy of the rest
    # The next lines first: an edge list sorted by source repeats its first node at once.
    if not any(frame[column].iloc[part].isin(first).any()
               for part in (slice(1, 10_000), slice(10_000, None)) for column in columns):
        _refuse_first_line(path, sep, rows[0], f"{first[0]!r} and {first[1]!r} appear on "
                           "no other line", EXPECTED_EDGES)


def _check_first_label(frame, path, sep, rows, nodes):
    """Refuse a first line taken for a label that looks like column names, whose node is
    not in the graph and whose label no other node has (``node,lable``)."""
    if not _names_columns(rows[0], LABEL_NAMES):
        return
    node, label = frame["node"].iloc[0], frame["label"].iloc[0]
    if pandas_module().isna(label) or (nodes is not None and node in nodes) \
            or frame["label"].iloc[1:].eq(label).any():
        return
    where_else = "no edge" if nodes is not None else "no other line"
    _refuse_first_line(path, sep, rows[0], f"node {node!r} is in {where_else} and no other "
                       f"node has the label {label!r}", EXPECTED_LABELS)


def _as_text(frame, columns):
    """Node names and labels as text, without blanks around them; blank cells missing."""
    for column in columns:
        text = frame[column].astype("string").str.strip()
        frame[column] = text.mask(text == "")
    return frame


def _plain_integers(frame, columns):
    """The name columns as int64 when every name is a whole number written plainly
    (digits only, no leading zero, at most 18 of them), else None.

    Hashing numbers is several times faster than hashing text (10^7 edges: about 4 s
    for text), and ``str`` of the number gives each name back as it was written.
    """
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        return None
    numbers, powers = [], 10 ** np.arange(19, dtype=np.int64)
    for column in columns:
        values = frame[column]
        text = pa.array(values.to_numpy(dtype=object) if values.dtype == object else values)
        if not pc.all(pc.ascii_is_decimal(text)).as_py():
            return None
        lengths = pc.utf8_length(text).to_numpy(zero_copy_only=False)
        if lengths.max() > 18:
            return None
        number = pc.cast(text, pa.int64()).to_numpy(zero_copy_only=False)
        if ((lengths > 1) & (number < powers[lengths - 1])).any():   # a leading zero
            return None
        numbers.append(number)
    return numbers


def _check_present(frame, column, path, sep, header, expected):
    blank = frame[column].isna().to_numpy()
    if blank.any():
        row = int(np.flatnonzero(blank)[0])
        raise TableError(f"{where(path, sep, header, row)}: expected {expected}, got a blank")


def _numbers(frame, column, path, sep, header, expected, low=None):
    """A column as float64; the first cell that is not such a number raises."""
    pd = pandas_module()
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64,
                                                                     na_value=np.nan)
    bad = ~np.isfinite(values) if low is None else ~(np.isfinite(values) & (values >= low))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        value = frame[column].iloc[row]
        shown = ("a blank" if pd.isna(value) else repr(value) if isinstance(value, str)
                 else str(value))
        raise TableError(f"{where(path, sep, header, row)}: expected {expected}, got "
                         f"{shown} (column {column!r})")
    return values


def read_edges(path, header=None, undirected=False, weight="weight"):
    """Adjacency and node names of an edges table (see :func:`load_graph_files`).

    ``weight``: the column of the weights, ``"weight"`` (the default) also guessing a
    third column; None reads every edge with weight 1. A column named otherwise must
    be in the file's header, which may then hold more columns."""
    pd = pandas_module()
    sep = table_format(path)
    what = "source, target[, weight]"
    named = weight is not None and weight != "weight"
    if sep == "parquet":
        frame, has_header = pd.read_parquet(path), True
        names = [str(name) for name in frame.columns]
        frame.columns = names
    elif sep == "npz":
        raise TableError(f"{path}: an edges file must be CSV, TSV or Parquet, got .npz")
    else:
        rows, has_header = _header(path, sep, header,
                                   EDGE_NAMES | ({str(weight).lower()} if named else set()))
        # a header with more columns: read where the weights are named (or dropped)
        if len(rows[0]) not in (2, 3) and not (weight != "weight" and has_header
                                               and len(rows[0]) > 3):
            line = (sep or " ").join(rows[0])
            raise TableError(f"{path}:1: expected 2 or 3 fields ({what}) separated by "
                             f"{SEPARATOR_NAMES[sep]}, got {len(rows[0])}: {rows[0]}"
                             f"{separator_hint(line, sep)}")
        names = ([field.strip() for field in rows[0]] if has_header
                 else ["source", "target", "weight"][:len(rows[0])])
    given = weight
    source, target, weight = edge_frame_columns(pd.DataFrame(columns=names), weight=given)
    if named and weight is None:
        raise TableError(f"{path}: no column {given!r} of edge weights, the columns are "
                         f"{names}; name a column of the header, or 'weight' for the "
                         "third column")
    if sep != "parquet":
        frame = read_table(path, sep, names, has_header, [source, target], {len(names)},
                           what)
        if header is None and not has_header:
            _check_first_edge(frame, [source, target], path, sep, rows)
    numbers = None
    if sep != "parquet" and not frame[[source, target]].isna().to_numpy().any():
        numbers = _plain_integers(frame, [source, target])    # digits only: nothing to strip
    if numbers is None:
        frame = _as_text(frame, [source, target])
        for column, role in ((source, "a source node"), (target, "a target node")):
            _check_present(frame, column, path, sep, has_header, role)
    columns = [source, target]
    if weight is not None:
        frame[weight] = _numbers(frame, weight, path, sep, has_header,
                                 "a weight (a number >= 0)", low=0.0)
        columns.append(weight)
    if numbers is not None:
        frame = frame[columns].assign(**{source: numbers[0], target: numbers[1]})
    adjacency, nodes = get_adjacency(frame[columns], columns=columns)
    if numbers is not None:
        nodes = list(map(str, nodes))
    if undirected:
        adjacency = sparse.csr_array(adjacency.maximum(adjacency.T))
    return adjacency, nodes


def read_labels(path, header=None, nodes=None, label_separator=None, multilabel=False,
                several_hint=PYTHON_SEVERAL_HINT):
    """``{node: label}`` of a labels table, blank labels left out; ``nodes``, the set of
    the graph's node names where known, tells a header from a first row of data.

    One label per node unless ``multilabel`` or ``label_separator``: a node on a second
    row is then an error naming the node, its labels and their lines, followed by
    ``several_hint`` (how to ask for several labels per node).

    Several labels per node (``multilabel``, or ``label_separator`` given):
    ``{node: tuple of labels}`` (labels in the order read), a node on one row per label,
    or (``label_separator``) a cell that lists a node's labels joined by it (its rows
    may repeat the node too). A blank cell, or no row, marks a node to predict either
    way. A node given the same label twice, an empty label between separators, a node
    both blank and labelled, a separator found in no cell, and (no separator given) a
    label that holds :data:`DEFAULT_LABEL_SEPARATOR` are errors naming the line.
    """
    pd = pandas_module()
    if label_separator is not None and (not isinstance(label_separator, str)
                                        or not label_separator.strip()):
        raise ValueError(f"the label separator must be one or more characters other than "
                         f"blanks, got {label_separator!r}")
    sep = table_format(path)
    if sep == "parquet":
        frame, has_header = pd.read_parquet(path), True
        if frame.shape[1] < 2:
            raise TableError(f"{path}: expected two columns (node, label), got "
                             f"{frame.shape[1]}: {list(map(str, frame.columns))}; there is "
                             "no label column")
        frame = frame.iloc[:, :2]
        frame.columns = ["node", "label"]
    else:
        rows, has_header = _header(path, sep, header, LABEL_NAMES)
        try:
            frame = read_table(path, sep, ["node", "label"], has_header, ["node", "label"],
                               {1, 2}, "node, label")
        except TableError as error:
            if label_separator is None or label_separator != sep:
                raise
            raise TableError(f"{error}; the label separator {label_separator!r} is also "
                             f"the file's column separator: quote the cells that list "
                             f"labels ('\"red{label_separator}blue\"') or join them with "
                             f"another") from None
    if frame.empty:
        held = ("no rows" if sep == "parquet"
                else f"a header line only ({', '.join(field.strip() for field in rows[0])})")
        raise TableError(f"{path}: the file holds {held} and no labels; expected a row "
                         "'node, label' per labelled node")
    frame = _as_text(frame, ["node", "label"])
    _check_present(frame, "node", path, sep, has_header, "a node name")
    if sep != "parquet" and header is None and not has_header:
        _check_first_label(frame, path, sep, rows, nodes)
    if sep in (",", "\t"):
        other = "\t" if sep == "," else ","
        stray = (frame["label"].isna()
                 & frame["node"].str.contains(other, regex=False).fillna(False)).to_numpy()
        if stray.any():
            row = int(np.flatnonzero(stray)[0])
            raise TableError(f"{where(path, sep, has_header, row)}: expected node, label "
                             f"separated by {SEPARATOR_NAMES[sep]}, as the file's first "
                             f"line is, got a line separated by {SEPARATOR_NAMES[other]}: "
                             f"{frame['node'].iloc[row]!r}")
    if frame["label"].isna().all():
        _no_label(path, sep, has_header, rows if sep != "parquet" else None)
    repeated = frame["node"].duplicated().to_numpy()
    frame = frame.reset_index(drop=True)
    at = functools.partial(where, path, sep, has_header)     # the line of a data row
    if label_separator is None and not multilabel:
        if repeated.any():
            _second_row(frame, int(np.flatnonzero(repeated)[0]), at, several_hint)
        labelled = frame[frame["label"].notna()]
        return dict(zip(labelled["node"].tolist(), labelled["label"].tolist()))
    return _label_sets(frame, repeated, at, label_separator)


def _second_row(frame, row, at, several_hint):
    """Raise the error of a node on a second row (``row``) of a table of one label per
    node: the same label twice, a blank beside a label, or two labels."""
    pd = pandas_module()
    node = frame["node"].iloc[row]
    first = int(np.flatnonzero((frame["node"] == node).to_numpy())[0])
    label, other = frame["label"].iloc[first], frame["label"].iloc[row]
    if pd.isna(label) or pd.isna(other):
        raise TableError(
            f"{at(row)}: node {node!r} has a blank label and another row (first row at "
            f"{at(first)}); expected a node to predict to have a blank label or no row, a "
            "labelled node one row")
    if label == other:
        raise TableError(f"{at(row)}: node {node!r} has the label {label!r} twice (first "
                         f"at {at(first)}); expected one row per node")
    raise TableError(f"{at(row)}: node {node!r} has two labels, {label!r} (at {at(first)}) "
                     f"and {other!r}; expected one label per node{several_hint}")


def _label_sets(frame, repeated, at, separator):
    """``{node: tuple of labels}`` of a labels table of several labels per node (see
    :func:`read_labels`); ``at(row)`` names the line of a data row."""
    pd = pandas_module()
    cells = frame["label"]
    if separator is None:
        joiner = DEFAULT_LABEL_SEPARATOR
        held = cells.str.contains(joiner, regex=False).fillna(False).to_numpy()
        if held.any():
            row = int(np.flatnonzero(held)[0])
            raise TableError(
                f"{at(row)}: the label {cells.iloc[row]!r} holds {joiner!r} in a file that "
                f"repeats its nodes (one row per label), where {joiner!r} joins a node's "
                f"labels in the predictions; if the cell lists several labels, pass "
                f"--label-separator {joiner!r}; if it is one label, list each node's "
                f"labels in one cell joined by a separator that no label holds, and pass "
                f"that separator with --label-separator")
        labels = cells
    else:
        split = cells.str.contains(separator, regex=False).fillna(False).to_numpy()
        if not split.any():
            filled = cells.dropna()
            advice = (f"this file lists a node's labels on several rows: drop "
                      f"--label-separator (the predictions then join a node's labels with "
                      f"{DEFAULT_LABEL_SEPARATOR!r})" if repeated.any() else
                      "for one label per node, drop --label-separator; else give the "
                      "separator that the cells use")
            raise TableError(
                f"{at(int(np.flatnonzero(cells.notna().to_numpy())[0]))}: the label "
                f"separator {separator!r} (--label-separator) is in no label cell; "
                f"expected cells listing a node's labels joined by it (e.g. "
                f"'red{separator}blue'), got cells such as {filled.iloc[:3].tolist()}; "
                f"{advice}")
        labels = cells.str.split(separator, regex=False).explode()
        labels = labels.str.strip().astype(object)
        empty = labels.eq("").fillna(False).to_numpy()
        if empty.any():
            row = int(labels.index[np.flatnonzero(empty)[0]])
            raise TableError(
                f"{at(row)}: expected labels joined by {separator!r}, got an empty label "
                f"in {cells.iloc[row]!r} (a separator at an end, or two in a row); a "
                f"blank cell marks a node to predict")
    pairs = pd.DataFrame({"row": labels.index.to_numpy(),
                          "node": frame["node"].to_numpy(dtype=object)[labels.index],
                          "label": labels.to_numpy(dtype=object)})
    blank = pairs["label"].isna().to_numpy()
    nodes = pairs["node"]
    mixed = nodes.duplicated(keep=False).to_numpy() & nodes.isin(nodes[blank]).to_numpy()
    if mixed.any():
        node = nodes[mixed].iloc[0]
        lines = pairs["row"][nodes == node].drop_duplicates().tolist()
        raise TableError(
            f"{at(int(lines[1]))}: node {node!r} has a blank label and another row (first "
            f"row at {at(int(lines[0]))}); expected a node to predict to have a blank label "
            f"or no row, a labelled node a row per label (or its labels in one cell)")
    twice = pairs.duplicated(["node", "label"]).to_numpy()
    if twice.any():
        index = int(np.flatnonzero(twice)[0])
        node, label = pairs["node"].iloc[index], pairs["label"].iloc[index]
        first = int(pairs["row"][(nodes == node) & (pairs["label"] == label)].iloc[0])
        row = int(pairs["row"].iloc[index])
        seen = "" if first == row else f" (first at {at(first)})"
        raise TableError(f"{at(row)}: node {node!r} has the label {label!r} twice{seen}; "
                         "expected each label of a node once")
    given = pairs[~blank]
    sets = {}
    for node, label in zip(given["node"].tolist(), given["label"].tolist()):
        sets.setdefault(node, []).append(label)
    return {node: tuple(labels) for node, labels in sets.items()}


def _no_label(path, sep, has_header, rows):
    """Raise the error of a labels table whose rows give no label: no label column, or
    blank labels only."""
    if sep != "parquet" and all(len(row) < 2 for row in rows[int(has_header):]) \
            and _one_field_per_line(path, sep):
        line = rows[int(has_header)] if len(rows) > int(has_header) else rows[0]
        raise TableError(f"{path}: expected two columns (node, label) separated by "
                         f"{SEPARATOR_NAMES[sep]}, but every row holds one field: there is "
                         f"no label column (first row {line}"
                         f"{separator_hint((sep or ' ').join(line), sep)})")
    raise TableError(f"{path}: no row has a label (every label is blank); expected a label "
                     "beside each labelled node, and a blank label or no row for the nodes "
                     "to predict")


def _one_field_per_line(path, sep):
    return all(len(fields) < 2 for fields in table_rows(path, sep))


def read_features(path, header=None):
    """``(nodes, matrix, column names)`` of a features table or npz file."""
    sep = table_format(path)
    if sep == "npz":
        return _features_npz(path)
    pd = pandas_module()
    if sep == "parquet":
        frame = pd.read_parquet(path)
        if not isinstance(frame.index, pd.RangeIndex):
            frame = frame.reset_index()
        names, has_header = [str(name) for name in frame.columns], True
        frame.columns = names
    else:
        rows, has_header = _header(path, sep, header, NODE_NAMES)
        has_header = has_header or rows[0][0].strip().lower() in NODE_NAMES - {""}
        names = ([field.strip() for field in rows[0]] if has_header
                 else ["node"] + [str(j) for j in range(len(rows[0]) - 1)])
        if len(set(names)) != len(names):
            raise TableError(f"{path}:1: expected distinct column names, got {names}")
        frame = read_table(path, sep, names, has_header, names[:1], {len(names)},
                           f"a node and {len(names) - 1} numbers")
    frame = _as_text(frame, names[:1])
    _check_present(frame, names[0], path, sep, has_header, "a node name")
    values = np.column_stack([
        _numbers(frame, name, path, sep, has_header, "a number") for name in names[1:]])
    return frame[names[0]].tolist(), values, names[1:]


def _features_npz(path):
    with np.load(path, allow_pickle=False) as data:
        keys = set(data.files)
        if "nodes" not in keys or not ({"features"} <= keys
                                       or {"data", "indices", "indptr", "shape"} <= keys):
            raise TableError(f"{path}: expected the arrays 'nodes' and 'features' (dense), "
                             f"or 'nodes', 'data', 'indices', 'indptr' and 'shape' (CSR); "
                             f"got {sorted(keys)}")
        nodes = [str(node) for node in data["nodes"].tolist()]
        if "features" in keys:
            values = data["features"]
        else:
            values = sparse.csr_array((data["data"], data["indices"], data["indptr"]),
                                      shape=tuple(data["shape"]))
        names = (data["feature_names"].tolist() if "feature_names" in keys
                 else [str(j) for j in range(values.shape[1])])
    if values.ndim != 2 or values.shape[0] != len(nodes):
        raise TableError(f"{path}: expected one row of features per node ({len(nodes)}), "
                         f"got shape {values.shape}")
    return nodes, values, [str(name) for name in names]


def _grow(adjacency, k):
    """``adjacency`` with ``k`` isolated nodes appended."""
    n = adjacency.shape[0] + k
    indptr = np.concatenate([adjacency.indptr, np.full(k, adjacency.indptr[-1])])
    return sparse.csr_array((adjacency.data, adjacency.indices, indptr), shape=(n, n))


def _aligned(table, nodes, path):
    """The rows of a features table in the order of ``nodes``, zeros for nodes without."""
    pd = pandas_module()
    feature_nodes, values, _ = table
    index = pd.Index(feature_nodes)
    if not index.is_unique:
        repeated = index[index.duplicated()][0]
        raise TableError(f"{path}: node {repeated!r} has two rows of features; expected one "
                         "row per node")
    positions = index.get_indexer(nodes)
    present = positions >= 0
    if sparse.issparse(values):
        values = sparse.csr_array(values)
        picked = sparse.csr_array(values[positions[present]])
        rows = np.flatnonzero(present)
        out = sparse.csr_array((np.ones(rows.size), (rows, np.arange(rows.size))),
                               shape=(len(nodes), rows.size)) @ picked
        return sparse.csr_array(out)
    out = np.zeros((len(nodes), values.shape[1]))
    out[present] = values[positions[present]]
    return out


def load_graph_files(edges, labels=None, features=None, *, header=None, undirected=False):
    """Read one's own graph from an edges file, a labels file and a features file.

    Parameters
    ----------
    edges : path-like
        CSV, TSV (``.csv``, ``.tsv``, ``.tab``, or other text whose first line shows its
        separator: tab, comma or blanks; ``.gz``, ``.bz2``, ``.xz`` are uncompressed) or
        Parquet: one edge ``source -> target`` per row, with an optional third column of
        weights (numbers >= 0). Columns named ``source``/``target``/``weight`` (or
        ``src``/``dst``, ``from``/``to``) are found by name, otherwise read in order.
        Node names are text. Repeated edges add their weights.
    labels : path-like, optional
        A table ``node, label``; a node whose label is blank, or that has no row, is
        unlabelled (to be predicted). Labels are text.
    features : path-like, optional
        A table with the node in the first column and a number in each other column
        (CSV, TSV or Parquet; a Parquet file may hold the nodes in its index), or an npz
        file with the arrays ``nodes`` and ``features`` (or the CSR arrays ``data``,
        ``indices``, ``indptr``, ``shape``) and optionally ``feature_names``. A node
        without a row has no attributes (a row of zeros).
    header : bool, optional
        Whether the first line of each text table names its columns. None: told from
        the first lines: a header names known columns (``source``, ``node``, ``label``
        ...), or holds a word where the next line holds a number. A first line that is
        neither is read as data, unless it looks like column names (a known or misspelt
        one: ``node,lable``, ``src,tgt``) and its names are found nowhere else (an edge
        between nodes of no other edge; a node of no edge with a label of no other node):
        then a ``ValueError`` names the expected columns and the ones found; pass
        ``header=False`` if the line is data, ``header=True`` to read it as a header.
    undirected : bool, default=False
        Read each edge both ways (a pair listed both ways keeps the larger weight).

    Returns
    -------
    Graph
        Nodes in order of first appearance in the edges file, then the nodes that only
        the labels file and the features file name (isolated nodes, logged); labels as
        class codes (-1 unlabelled); ``feature_names`` from the features file.

    Raises
    ------
    ValueError
        A malformed row, or a first line that is neither a known header nor plausible
        data: the message names the file, the line (the row of a Parquet file) and what
        was expected there.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from digraph_askls.datasets import load_graph_files
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "edges.csv").write_text("source,target\\nann,bob\\nbob,cat\\n")
    ...     _ = (Path(folder) / "labels.csv").write_text("node,label\\nann,x\\nbob,\\n")
    ...     graph = load_graph_files(Path(folder) / "edges.csv", Path(folder) / "labels.csv")
    >>> graph.node_names, graph.labels.tolist(), graph.class_names
    (['ann', 'bob', 'cat'], [0, -1, -1], ['x'])
    """
    graph, _ = read_graph_files(edges, labels, features, header=header,
                                undirected=undirected)
    return graph


def read_graph_files(edges, labels=None, features=None, *, header=None, undirected=False,
                     label_separator=None, multilabel=False,
                     several_hint=PYTHON_SEVERAL_HINT, strict=False, weight="weight"):
    """``(graph, label sets)``: :func:`load_graph_files`'s graph, and for a labels file
    of several labels per node (``multilabel`` or ``label_separator``, see
    :func:`read_labels`) ``{node: tuple of labels}``, the graph's ``labels`` then all -1
    and its ``class_names`` the labels, sorted; None for one label per node.
    ``weight``: the column of the edge weights (:func:`read_edges`).

    ``strict`` refuses the labels that would fit a model to a mistake: continuous values
    (:func:`check_class_labels`) and labelled nodes that are mostly not nodes of the
    graph (:func:`check_labelled_nodes`)."""
    from pathlib import Path

    with reading(edges, "edges"):
        adjacency, nodes = read_edges(edges, header, undirected, weight)
    known = set(nodes)
    with reading(labels, "labels"):
        label_of = {} if labels is None else read_labels(
            labels, header, known, label_separator, multilabel, several_hint)
    label_sets = None
    if label_of and isinstance(next(iter(label_of.values())), tuple):
        label_sets = label_of
    with reading(features, "features"):
        table = None if features is None else read_features(features, header)
    if strict and label_of:
        check_class_labels(label_of, labels)
        check_labelled_nodes(list(label_of), nodes, None if table is None else table[0],
                             labels, edges, in_edges=known)
    extra = [node for node in label_of if node not in known]
    if table is not None:
        known.update(extra)
        extra += [node for node in dict.fromkeys(table[0]) if node not in known]
    if extra:
        logger.info("%d node(s) of the labels or features file have no edge and are kept "
                    "as isolated nodes, e.g. %s", len(extra), extra[:5])
        adjacency, nodes = _grow(adjacency, len(extra)), nodes + extra
    if label_sets is None:
        codes, class_names = get_labels(label_of, nodes)
    else:
        codes = np.full(len(nodes), -1, dtype=np.int64)
        class_names = sorted({label for labels in label_sets.values() for label in labels})
    values = None if table is None else _aligned(table, nodes, features)
    graph = Graph(adjacency, codes, nodes, class_names, name=Path(edges).name,
                  features=values, feature_names=None if table is None else table[2])
    return graph, label_sets


def _number(text):
    """The number that ``text`` writes, as a ``Decimal`` (finite, of a modest exponent),
    else None."""
    try:
        value = Decimal(str(text).strip())
    except (InvalidOperation, ValueError):
        return None
    return value if value.is_finite() and abs(value.adjusted()) <= 30 else None


def _number_key(text):
    """One spelling of the number ``text`` writes (``"7"`` for ``7``, ``007``, ``7.0``,
    ``7e0``), else None."""
    value = _number(text)
    if value is None:
        return None
    if value == value.to_integral_value():
        return str(int(value))
    return str(value.normalize())


def check_class_labels(label_of, path):
    """Refuse labels that are all numbers, some with a fraction (``0.5``, ``1.2``):
    continuous values rather than classes, which ``NodeClassifier`` refuses too.

    ``label_of`` maps each labelled node to its label, or to a tuple of labels.
    """
    pairs = [(node, label) for node, value in label_of.items()
             for label in (value if isinstance(value, tuple) else (value,))]
    numbers = [_number(label) for _, label in pairs]
    if not pairs or any(number is None for number in numbers):
        return
    fractions = [(node, label) for (node, label), number in zip(pairs, numbers)
                 if number != number.to_integral_value()]
    if not fractions:
        return
    node, label = fractions[0]
    shown = list(dict.fromkeys(label for _, label in pairs))
    raise TableError(
        f"{path}: the labels are numbers with fractions, continuous values rather than "
        f"classes (got {label} for node {node!r}; values such as {shown[:6]}); a label "
        f"names a class, and NodeClassifier likewise refuses float labels that are not "
        f"whole numbers. Give each node a class: a name ('low', 'high') or a whole number "
        f"(a class code); to classify a measurement, cut it into classes first (for "
        f"example 'low' below a threshold, 'high' above)")


#: What differs between two names that one key makes equal, for the messages.
_NEAR = (("case", str.casefold),
         ("blanks", lambda name: "".join(name.split())),
         ("case and blanks", lambda name: "".join(name.casefold().split())),
         ("how the number is written", _number_key))


def near_matches(names, nodes, limit=5):
    """``(name, node, what differs)`` for up to ``limit`` of ``names`` that are not
    ``nodes`` but become one when case, blanks or the spelling of a number is set
    aside (``Alice`` and ``alice``, ``Jane  Doe`` and ``Jane Doe``, ``7.0`` and ``7``)."""
    found = []
    indexes = {}
    for name in names:
        for what, key in _NEAR:
            if what not in indexes:
                index = indexes[what] = {}
                for node in nodes:
                    index.setdefault(key(node), node)
                index.pop(None, None)
            node = indexes[what].get(key(name))
            if node is not None:
                found.append((name, node, what))
                break
        if len(found) == limit:
            break
    return found


def check_labelled_nodes(labelled, edge_nodes, featured, labels_path, edges_path,
                         in_edges=None):
    """Refuse a labels file whose labelled nodes are not the graph's nodes.

    A labelled node is in the graph when the edges file names it, or when the features
    file gives it attributes (``featured``, None without a features file). It is an error
    when no labelled node is named by the edges file, or when fewer than
    :data:`MIN_LABELLED_IN_GRAPH` (half) of them are in the graph: the model would be
    fitted on isolated nodes and its predictions would not depend on the labels. The
    message names examples, and near matches in the edges file (a name that differs only
    in case, in blanks, or in the spelling of a number). ``in_edges``: the set of
    ``edge_nodes``, where already built.
    """
    in_edges = set(edge_nodes) if in_edges is None else in_edges
    featured = set() if featured is None else set(featured)
    named = [node in in_edges for node in labelled]
    outside = [node for node, inside in zip(labelled, named)
               if not inside and node not in featured]
    if any(named) and len(outside) <= (1 - MIN_LABELLED_IN_GRAPH) * len(labelled):
        return
    if any(named):
        count = (f"{len(outside)} of the {len(labelled)} labelled nodes are not nodes of "
                 f"the edges file {edges_path}" + (" nor of the features file"
                                                   if featured else ""))
    else:
        outside = list(labelled)
        count = (f"none of the {len(labelled)} labelled nodes is a node of the edges "
                 f"file {edges_path}")
    lines = [f"{labels_path}: {count} (expected at least half of them, and one at the "
             f"least, to be), e.g. {outside[:5]}; a labelled node without an edge tells "
             f"nothing of the others"]
    near = near_matches(outside, edge_nodes)
    if near:
        groups = {}
        for name, node, what in near:
            groups.setdefault(what, []).append(f"{name!r} is {node!r} there")
        lines.append("near matches in the edges file: " + "; ".join(
            f"differing in {what}: {', '.join(pairs)}" for what, pairs in groups.items()))
    else:
        lines.append(f"the edges file names nodes such as {list(edge_nodes[:5])}")
    lines.append("node names are compared as written (case, blanks and the way a number "
                 "is written count): write each node's name alike in both files")
    raise TableError("; ".join(lines))
