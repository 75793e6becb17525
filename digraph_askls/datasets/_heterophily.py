"""Readers of the heterophily benchmarks with node attributes and fixed splits.

Two published formats: the npz files of Platonov et al.'s ``heterophilous-graphs``
repository (Chameleon, Squirrel) and the text files of Pei et al.'s Geom-GCN (WebKB
Texas and Wisconsin, the actor co-occurrence graph "film"), whose splits the
directed-graph literature reuses.
"""

import logging
from pathlib import Path

import numpy as np
from scipy import sparse

from digraph_askls.datasets._attributes import features_from_dense, splits_from_masks
from digraph_askls.datasets._parsers import adjacency_from_index_edges, require_npz_keys
from digraph_askls.graph import Graph, get_adjacency, get_labels

__all__ = ["load_geom_gcn", "load_heterophilous_npz"]

logger = logging.getLogger(__name__)

_HETEROPHILOUS_KEYS = ("node_features", "node_labels", "edges")
_MASK_KEYS = ("train_masks", "val_masks", "test_masks")


def load_heterophilous_npz(path, name=""):
    """Read a graph in the npz schema of the ``heterophilous-graphs`` repository.

    Keys: ``node_features`` (n, d), ``node_labels`` (n,), ``edges`` (m, 2) with rows
    ``[source, target]``, read as the edge ``source -> target`` as stored (files named
    ``*_directed.npz`` hold the raw directed links; nothing is symmetrised), and, when
    present, ``train_masks``, ``val_masks``, ``test_masks`` of shape (n_splits, n):
    the fixed splits. Nodes are ``0, ..., n - 1``. Repeated edges are summed (the
    published files have none). Opened with ``allow_pickle=False``.

    Parameters
    ----------
    path : path-like
    name : str, default=""

    Returns
    -------
    Graph
        ``features`` as float64, CSR when under a quarter of the entries are non-zero;
        ``splits`` from the masks, or None without masks.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from digraph_askls.datasets import load_heterophilous_npz
    >>> masks = np.array([[True, False, False], [False, True, False], [False, False, True]])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "toy_directed.npz"
    ...     np.savez(path, node_features=np.eye(3), node_labels=[0, 1, 1],
    ...              edges=[[0, 1], [1, 2]], train_masks=masks[:1], val_masks=masks[1:2],
    ...              test_masks=masks[2:])
    ...     graph = load_heterophilous_npz(path, name="toy")
    >>> graph
    Graph(name='toy', n_nodes=3, n_edges=2, n_classes=2, n_features=3, n_splits=1)
    >>> graph.splits[0]
    Split(train=array([0]), valid=array([1]), test=array([2]))
    """
    with np.load(path, allow_pickle=False) as data:
        require_npz_keys(data, _HETEROPHILOUS_KEYS, path, optional=_MASK_KEYS)
        values = np.asarray(data["node_features"])
        codes = np.asarray(data["node_labels"])
        edges = np.asarray(data["edges"])
        masks = [data[key] for key in _MASK_KEYS if key in data.files]
    if len(masks) not in (0, len(_MASK_KEYS)):
        raise ValueError(f"{path}: expected all of {list(_MASK_KEYS)} or none of them")
    if codes.ndim != 1 or edges.ndim != 2 or edges.shape[1] != 2:
        raise ValueError(
            f"{path}: expected node_labels of shape (n,) and edges of shape (m, 2), got "
            f"{codes.shape} and {edges.shape}"
        )
    adjacency, nodes = adjacency_from_index_edges(edges, codes.size)
    labels, class_names = get_labels(codes, nodes)
    splits = splits_from_masks(*masks, source=path) if masks else None
    return Graph(adjacency, labels, nodes, class_names, name=name,
                 features=features_from_dense(values), splits=splits)


def load_geom_gcn(edges_path, features_path, split_paths=(), name="", n_features=None):
    """Read a graph in the text format of Geom-GCN (WebKB, actor co-occurrence).

    ``edges_path`` (``out1_graph_edges.txt``): a header line, then
    ``source TAB target`` per line, read as the edge ``source -> target``. A pair listed
    more than once (the film file has 33,391 lines for 30,019 distinct pairs) is one
    edge of weight 1, as in Geom-GCN's own loader (a ``networkx.DiGraph``) and in
    PyTorch Geometric's (which coalesces the edges): the graph of the published results.

    ``features_path`` (``out1_node_feature_label.txt``): a header line, then
    ``id TAB features TAB label``, with ``features`` comma-separated: the value of
    every attribute, or, with ``n_features``, the indices of the attributes equal to 1
    (an index listed twice is still 1). Node ``i`` is the line with id ``i``; the ids
    must be ``0, ..., n - 1`` in any order.

    ``split_paths``: npz files with the boolean ``train_mask``, ``val_mask`` and
    ``test_mask`` of one split each (``splits/<name>_split_0.6_0.2_<i>.npz``).

    Parameters
    ----------
    edges_path, features_path : path-like
    split_paths : sequence of path-like, default=()
    name : str, default=""
    n_features : int, optional
        Read the features as indices of active attributes out of ``n_features``. The
        film file needs it (932 attributes; its header's ``feature_amount:931`` is the
        largest index, not the count).

    Returns
    -------
    Graph
        ``features`` as float64, CSR when under a quarter of the entries are non-zero;
        ``splits`` in the order of ``split_paths``, None without them.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from digraph_askls.datasets import load_geom_gcn
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     edges, table = Path(folder) / "edges.txt", Path(folder) / "table.txt"
    ...     _ = edges.write_text("node_id\\tnode_id\\n0\\t1\\n2\\t0\\n0\\t1\\n")
    ...     _ = table.write_text("node_id\\tfeature\\tlabel\\n1\\t0,1\\t2\\n0\\t1,1\\t0\\n"
    ...                          "2\\t0,0\\t2\\n")
    ...     graph = load_geom_gcn(edges, table)
    >>> graph.adjacency.toarray()
    array([[0., 1., 0.],
           [0., 0., 0.],
           [1., 0., 0.]])
    >>> graph.features, graph.labels.tolist(), graph.class_names
    (array([[1., 1.],
           [0., 1.],
           [0., 0.]]), [0, 1, 1], [0, 2])
    """
    ids, fields, codes = _read_feature_table(features_path)
    n = ids.size
    order = np.argsort(ids)
    if not np.array_equal(ids[order], np.arange(n)):
        raise ValueError(f"{features_path}: expected the node ids 0..{n - 1} once each")
    fields = [fields[i] for i in order]
    if n_features is None:
        values = _dense_fields(fields, features_path)
    else:
        values = _index_fields(fields, n_features, features_path)
    edges = _read_edges(edges_path, n)
    matrix = sparse.coo_array(
        (np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n)
    ).tocsr()
    adjacency, nodes = get_adjacency(matrix, weight=None)  # a repeated pair is one edge
    if adjacency.nnz < len(edges):
        logger.info("%s: %d lines repeat an edge; kept once each (%d edges)",
                    Path(edges_path).name, len(edges) - adjacency.nnz, adjacency.nnz)
    labels, class_names = get_labels(codes[order], nodes)
    splits = tuple(split for path in split_paths for split in _read_split(path))
    return Graph(adjacency, labels, nodes, class_names, name=name, features=values,
                 splits=splits or None)


def _read_feature_table(path):
    ids, fields, codes = [], [], []
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            if number == 1 or not line.strip():
                continue
            parts = line.rstrip("\r\n").split("\t")
            if len(parts) != 3:
                raise ValueError(
                    f"{path}:{number}: expected 'id TAB features TAB label', got "
                    f"{len(parts)} fields"
                )
            ids.append(int(parts[0]))
            fields.append(parts[1])
            codes.append(int(parts[2]))
    return np.array(ids, dtype=np.int64), fields, np.array(codes, dtype=np.int64)


def _dense_fields(fields, path):
    rows = [np.array(field.split(","), dtype=np.float64) for field in fields]
    widths = {row.size for row in rows}
    if len(widths) != 1:
        raise ValueError(
            f"{path}: expected the same number of features on every line, got "
            f"{sorted(widths)[:5]}; pass n_features= if the lines list active indices"
        )
    return features_from_dense(np.vstack(rows))


def _index_fields(fields, n_features, path):
    rows = [np.array(field.split(","), dtype=np.int64) if field else np.zeros(0, np.int64)
            for field in fields]
    indices = np.concatenate(rows)
    if indices.size and (indices.min() < 0 or indices.max() >= n_features):
        raise ValueError(
            f"{path}: expected feature indices in [0, {n_features}), got values in "
            f"[{indices.min()}, {indices.max()}]"
        )
    indptr = np.concatenate([[0], np.cumsum([row.size for row in rows])])
    matrix = sparse.csr_array(
        (np.ones(indices.size), indices, indptr), shape=(len(rows), n_features)
    )
    matrix.sum_duplicates()
    matrix.data[:] = 1.0  # an index listed twice on a line is still one active attribute
    return matrix


def _read_edges(path, n_nodes):
    edges = np.loadtxt(path, dtype=np.int64, skiprows=1, ndmin=2)
    if edges.shape[1] != 2:
        raise ValueError(f"{path}: expected 'source TAB target' lines, got {edges.shape[1]} "
                         "columns")
    if edges.size and (edges.min() < 0 or edges.max() >= n_nodes):
        raise ValueError(
            f"{path}: node ids must lie in [0, {n_nodes}), got [{edges.min()}, {edges.max()}]"
        )
    return edges


def _read_split(path):
    keys = ("train_mask", "val_mask", "test_mask")
    with np.load(path, allow_pickle=False) as data:
        require_npz_keys(data, keys, path)
        masks = [data[key] for key in keys]
    return splits_from_masks(*masks, source=path)
