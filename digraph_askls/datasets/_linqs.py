"""Readers of the LINQS citation files (Cora, CiteSeer, Pubmed-Diabetes) and Pubmed TSV."""

import io
import logging
from pathlib import Path

import numpy as np

from digraph_askls.datasets._attributes import features_from_dense
from digraph_askls.datasets._parsers import adjacency_from_index_edges
from digraph_askls.graph import Graph, get_labels

__all__ = ["load_linqs", "load_pubmed_linqs", "load_pubmed_tsv"]

logger = logging.getLogger(__name__)


def load_linqs(cites_path, content_path, name=""):
    """Read a LINQS citation graph (``.cites`` and ``.content``, e.g. Cora, CiteSeer).

    Nodes are the rows of ``.content`` in file order, named by their paper id (a
    string); the label is the last column, and the columns between are the word
    attributes, returned as ``graph.features``: float64, as a CSR array when under a
    quarter of the entries are non-zero (Cora, CiteSeer: about 1 %). A line ``A B`` of
    ``.cites`` means that paper ``B`` cites paper ``A`` and gives the edge ``B -> A``.
    Edges with an end that has no ``.content`` row are dropped (logged); self-loops are
    kept as in the file.

    Parameters
    ----------
    cites_path, content_path : path-like
    name : str, default=""
        Name of the returned graph.

    Returns
    -------
    Graph
        Class names sorted alphabetically; ``features`` as in the file, or None when
        the file has no attribute columns.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from digraph_askls.datasets import load_linqs
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     cites, content = Path(folder) / "toy.cites", Path(folder) / "toy.content"
    ...     _ = cites.write_text("p1\\tp2\\np1\\tp3\\n")  # p2 and p3 cite p1
    ...     _ = content.write_text("p1\\t0\\t1\\tAI\\np2\\t1\\t0\\tDB\\np3\\t1\\t1\\tAI\\n")
    ...     graph = load_linqs(cites, content, name="toy")
    >>> graph.node_names, graph.class_names, graph.labels.tolist()
    (['p1', 'p2', 'p3'], ['AI', 'DB'], [0, 1, 0])
    >>> graph.adjacency.toarray()
    array([[0., 0., 0.],
           [1., 0., 0.],
           [1., 0., 0.]])
    >>> graph.features  # dense here: half of the entries are non-zero
    array([[0., 1.],
           [1., 0.],
           [1., 1.]])
    """
    node_names, class_of, features = _read_content(content_path)
    index = {node: i for i, node in enumerate(node_names)}
    edges, dropped = [], 0
    for number, parts in _split_lines(cites_path):
        if len(parts) != 2:
            raise ValueError(
                f"{cites_path}:{number}: expected '<cited id> <citing id>', got {parts!r}"
            )
        cited, citing = parts
        if cited in index and citing in index:
            edges.append((index[citing], index[cited]))
        else:
            dropped += 1
    if dropped:
        logger.info(
            "%s: dropped %d of %d citation lines whose ends lack a row in %s",
            Path(cites_path).name, dropped, dropped + len(edges), Path(content_path).name,
        )
    return _make_graph(edges, node_names, class_of, name, features)


def load_pubmed_linqs(cites_path, node_path=None, name=""):
    """Read the LINQS Pubmed-Diabetes files (``DIRECTED.cites.tab``, ``NODE.paper.tab``).

    ``DIRECTED.cites.tab`` has two header lines, then
    ``<edge id> TAB paper:<citing> TAB | TAB paper:<cited>``, read as ``citing -> cited``.
    ``NODE.paper.tab`` has two header lines, then ``<paper id> TAB label=<k> TAB ...``.
    With ``node_path`` the nodes are its rows in file order, labelled, and edges with
    an unknown end are dropped (logged); without it the nodes are the paper ids in
    order of first appearance in the edges, all unlabelled.

    Parameters
    ----------
    cites_path : path-like
    node_path : path-like, optional
    name : str, default=""

    Returns
    -------
    Graph
        Node names are PubMed ids (strings), class names the label values (ints).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from digraph_askls.datasets import load_pubmed_linqs
    >>> lines = ["DIRECTED\\tcites", "NO_FEATURES", "7\\tpaper:11\\t|\\tpaper:22"]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     cites = Path(folder) / "toy.cites.tab"
    ...     _ = cites.write_text("\\n".join(lines) + "\\n")
    ...     graph = load_pubmed_linqs(cites)
    >>> graph.node_names, graph.adjacency.toarray().tolist(), graph.labels.tolist()
    (['11', '22'], [[0.0, 1.0], [0.0, 0.0]], [-1, -1])
    """
    pairs = []
    for number, parts in _split_lines(cites_path, skip=2):
        if len(parts) != 4 or parts[2] != "|" or not all(
            part.startswith("paper:") for part in (parts[1], parts[3])
        ):
            raise ValueError(
                f"{cites_path}:{number}: expected '<id> TAB paper:<citing> TAB | TAB "
                f"paper:<cited>', got {parts!r}"
            )
        pairs.append((parts[1][6:], parts[3][6:]))
    if node_path is None:
        node_names = list(dict.fromkeys(node for pair in pairs for node in pair))
        class_of = {}
    else:
        node_names, class_of = [], {}
        for number, parts in _split_lines(node_path, skip=2):
            if len(parts) < 2 or not parts[1].startswith("label="):
                raise ValueError(
                    f"{node_path}:{number}: expected '<paper id> TAB label=<k> ...', "
                    f"got {parts[:2]!r}"
                )
            node_names.append(parts[0])
            class_of[parts[0]] = int(parts[1][6:])
    index = {node: i for i, node in enumerate(node_names)}
    edges = [(index[a], index[b]) for a, b in pairs if a in index and b in index]
    if len(edges) < len(pairs):
        logger.info("%s: dropped %d edges with an unknown paper id",
                    Path(cites_path).name, len(pairs) - len(edges))
    return _make_graph(edges, node_names, class_of, name)


def load_pubmed_tsv(edges_path, labels_path, name=""):
    """Read Pubmed as the plain TSV pair ``pubmed.edges.tsv`` / ``pubmed.labels.tsv``.

    Lines starting with ``#`` are comments. ``edges_path`` holds ``citing TAB cited``
    node indices (edge ``citing -> cited``); ``labels_path`` holds ``node TAB label``
    for every node ``0, ..., n - 1``.

    Parameters
    ----------
    edges_path, labels_path : path-like
    name : str, default=""

    Returns
    -------
    Graph
        Node names are the indices ``0, ..., n - 1``, class names the label values.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from digraph_askls.datasets import load_pubmed_tsv
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     edges, labels = Path(folder) / "e.tsv", Path(folder) / "l.tsv"
    ...     _ = edges.write_text("# citing\\tcited\\n2\\t0\\n")
    ...     _ = labels.write_text("# node\\tlabel\\n0\\t1\\n1\\t3\\n2\\t1\\n")
    ...     graph = load_pubmed_tsv(edges, labels)
    >>> graph.n_nodes, graph.n_edges, graph.class_names, graph.labels.tolist()
    (3, 1, [1, 3], [0, 1, 0])
    """
    node_labels = np.loadtxt(labels_path, dtype=np.int64, comments="#", ndmin=2)
    edges = np.loadtxt(edges_path, dtype=np.int64, comments="#", ndmin=2)
    n = len(node_labels)
    if node_labels.shape[1] != 2 or edges.shape[1] != 2:
        raise ValueError(
            f"expected two columns in {labels_path} and {edges_path}, got "
            f"{node_labels.shape[1]} and {edges.shape[1]}"
        )
    if not np.array_equal(np.sort(node_labels[:, 0]), np.arange(n)):
        raise ValueError(f"{labels_path} must list every node 0..{n - 1} exactly once")
    adjacency, nodes = adjacency_from_index_edges(edges, n)
    values = np.empty(n, dtype=np.int64)
    values[node_labels[:, 0]] = node_labels[:, 1]
    labels, class_names = get_labels(values, nodes)
    return Graph(adjacency, labels, nodes, class_names, name=name)


def _read_content(content_path):
    """Paper ids, labels and attributes (or None) of a LINQS ``.content`` file."""
    with open(content_path, "rb") as file:
        lines = file.read().split(b"\n")
    node_names, class_of, attributes = [], {}, []
    for number, line in enumerate(lines, 1):
        line = line.rstrip(b"\r")
        if not line.strip():
            continue
        node, tab, rest = line.partition(b"\t")
        if not tab:
            raise ValueError(
                f"{content_path}:{number}: expected '<id> TAB <attributes> TAB "
                f"<label>', got {line[:60]!r}"
            )
        node = node.decode()
        if node in class_of:
            raise ValueError(f"{content_path}:{number}: paper id {node!r} appears twice")
        values, _, label = rest.rpartition(b"\t")
        node_names.append(node)
        class_of[node] = label.decode().strip()
        attributes.append(values)
    return node_names, class_of, _parse_attributes(attributes, content_path)


def _parse_attributes(rows, content_path):
    """Table of the TAB-separated attribute fields of each row, as graph features.

    LINQS attributes are single digits (0/1 words): then the bytes are read in one
    vectorised pass (every other byte a digit, the others TABs), which keeps CiteSeer's
    24.6 MB at a fraction of a second. Any other numbers go through ``numpy.loadtxt``.
    """
    if not rows or not any(rows):
        return None
    length = len(rows[0])
    if length % 2 and all(len(row) == length for row in rows):
        # Each digit and the TAB after it form one little-endian uint16, 0x0930 + digit.
        pairs = np.frombuffer(b"\t".join(rows) + b"\t", dtype="<u2")
        digits = pairs - np.uint16(0x0930)  # wraps around for anything but digit + TAB
        if np.all(digits < 10):
            return features_from_dense(digits.reshape(len(rows), -1))
    try:
        table = np.loadtxt(io.BytesIO(b"\n".join(rows)), delimiter="\t", ndmin=2)
    except ValueError as error:
        raise ValueError(
            f"{content_path}: expected the same number of numeric attributes on every "
            f"line between the paper id and the label: {error}"
        ) from error
    return features_from_dense(table)


def _split_lines(path, skip=0):
    """Yield (line number, whitespace-separated fields) of the non-empty lines."""
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            parts = line.split()
            if number > skip and parts:
                yield number, parts


def _make_graph(edges, node_names, class_of, name, features=None):
    adjacency, _ = adjacency_from_index_edges(edges, len(node_names))
    labels, class_names = get_labels(class_of, node_names)
    return Graph(adjacency, labels, node_names, class_names, name=name, features=features)
