"""Readers of binary and tabular graph files: gnn-benchmark npz, AsK-LS .mat, OGB raw CSV."""

import logging
from pathlib import Path

import numpy as np
import scipy.io
from scipy import sparse

from digraph_askls.datasets._attributes import features_from_dense
from digraph_askls.graph import Graph, get_adjacency, get_labels

__all__ = ["load_askls_mat", "load_npz", "load_ogb_raw"]

logger = logging.getLogger(__name__)

_NPZ_KEYS = ("adj_data", "adj_indices", "adj_indptr", "adj_shape", "labels")
_ATTR_KEYS = ("attr_data", "attr_indices", "attr_indptr", "attr_shape")


def adjacency_from_index_edges(edges, n_nodes):
    """Canonical adjacency of an ``(E, 2)`` array of node indices in ``[0, n_nodes)``.

    Unlike passing the array to ``get_adjacency``, this cannot mistake a square array of
    two or three edges for a matrix.
    """
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if edges.size and (edges.min() < 0 or edges.max() >= n_nodes):
        raise ValueError(
            f"node indices must lie in [0, {n_nodes}), got [{edges.min()}, {edges.max()}]"
        )
    matrix = sparse.coo_array(
        (np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n_nodes, n_nodes)
    )
    return get_adjacency(matrix.tocsr())


def require_npz_keys(data, keys, path, optional=()):
    """Raise ValueError naming the ``keys`` an opened npz file lacks (and what it holds)."""
    missing = [key for key in keys if key not in data.files]
    if missing:
        also = f" (and optionally {list(optional)})" if optional else ""
        raise ValueError(f"{path} lacks the keys {missing}; expected {list(keys)}{also}, "
                         f"got {sorted(data.files)}")


def load_npz(path, name="", reverse_edges=False, binary=False):
    """Read a graph stored in the npz schema of Shchur et al.'s gnn-benchmark.

    Keys used: ``adj_data, adj_indices, adj_indptr, adj_shape`` (a CSR matrix),
    ``labels`` (class code per node) and, when present, ``node_names``,
    ``class_names`` and the node attributes: ``attr_data, attr_indices, attr_indptr,
    attr_shape`` (a CSR matrix, kept as a float64 CSR array) or ``attr_matrix`` (a
    dense table, made CSR when under a quarter of it is non-zero). The file is opened
    with ``allow_pickle=False``; optional keys that would need unpickling are skipped.

    Parameters
    ----------
    path : path-like
    name : str, default=""
    reverse_edges : bool, default=False
        Read the stored matrix as ``adjacency.T``. The gnn-benchmark citation files
        (Cora, CiteSeer) store the edge ``cited -> citing``; reversing them gives the
        ``citing -> cited`` graph of the LINQS files exactly.
    binary : bool, default=False
        Give every stored edge the weight 1, for files whose values count how often a
        link was recorded rather than weigh it.

    Returns
    -------
    Graph
        ``features`` is None when the file holds no attributes.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from digraph_askls.datasets import load_npz
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "toy.npz"
    ...     np.savez(path, adj_data=[1.0], adj_indices=[0], adj_indptr=[0, 0, 1],
    ...              adj_shape=[2, 2], labels=[0, 1], class_names=["a", "b"],
    ...              attr_data=[1.0, 1.0], attr_indices=[2, 0], attr_indptr=[0, 1, 2],
    ...              attr_shape=[2, 3])
    ...     graph = load_npz(path)
    >>> graph.adjacency.toarray(), graph.class_names
    (array([[0., 0.],
           [1., 0.]]), ['a', 'b'])
    >>> graph.features.toarray()
    array([[0., 0., 1.],
           [1., 0., 0.]])
    """
    with np.load(path, allow_pickle=False) as data:
        require_npz_keys(data, _NPZ_KEYS, path)
        shape = tuple(int(size) for size in data["adj_shape"])
        matrix = sparse.csr_array(
            (data["adj_data"], data["adj_indices"], data["adj_indptr"]), shape=shape
        )
        codes = np.asarray(data["labels"])
        node_names = _optional_list(data, "node_names", path)
        class_names = _optional_list(data, "class_names", path)
        features = _npz_attributes(data, path)
    if codes.ndim != 1 or not np.issubdtype(codes.dtype, np.integer):
        raise ValueError(
            f"{path}: expected 'labels' as one integer class code per node, got "
            f"{codes.dtype} of shape {codes.shape}"
        )
    if reverse_edges:
        matrix = matrix.T
    adjacency, nodes = get_adjacency(
        matrix, nodelist=node_names, weight=None if binary else "weight"
    )
    if class_names is None:
        labels, class_names = get_labels(codes, nodes)
    else:
        labels = np.where(codes < 0, -1, codes).astype(np.int64)
    return Graph(adjacency, labels, nodes, class_names, name=name, features=features)


def _npz_attributes(data, path):
    """Node attributes of a gnn-benchmark npz: CSR ``attr_*`` keys, or ``attr_matrix``."""
    present = [key for key in _ATTR_KEYS if key in data.files]
    if present:
        if len(present) < len(_ATTR_KEYS):
            raise ValueError(
                f"{path}: expected all of {list(_ATTR_KEYS)} for the node attributes, got "
                f"only {present}"
            )
        shape = tuple(int(size) for size in data["attr_shape"])
        return sparse.csr_array(
            (data["attr_data"], data["attr_indices"], data["attr_indptr"]), shape=shape
        ).astype(np.float64)
    if "attr_matrix" in data.files:
        return features_from_dense(data["attr_matrix"])
    return None


def _optional_list(data, key, path):
    if key not in data.files:
        return None
    try:
        return data[key].tolist()
    except ValueError:  # object array: would need pickle
        logger.info("%s: skipped %r, which can only be read by unpickling", path, key)
        return None


def load_askls_mat(path, name=""):
    """Read a node-classification file of the AsK-LS authors (``G`` and ``label``).

    ``G`` there is not an adjacency but the paper's kernel
    ``P = D_in^{-1} (A + I)``, where ``A[i, j] != 0`` for an edge ``j -> i``. The
    adjacency is rebuilt from the off-diagonal pattern: ``adjacency[j, i] = 1`` where
    ``G[i, j] != 0`` and ``i != j`` (weights and self-loops cannot be recovered, and the
    files have neither). ``label`` holds classes ``1..k``.

    Parameters
    ----------
    path : path-like
    name : str, default=""

    Returns
    -------
    Graph
        Node names are the row indices, class names the label values.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np, scipy.io
    >>> from digraph_askls.datasets import load_askls_mat
    >>> G = np.array([[0.5, 0.5], [0.0, 1.0]])  # node 0 has the in-link 1 -> 0
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "toy.mat"
    ...     scipy.io.savemat(path, {"G": G, "label": np.array([[1], [2]])})
    ...     graph = load_askls_mat(path)
    >>> graph.adjacency.toarray(), graph.class_names
    (array([[0., 0.],
           [1., 0.]]), [1, 2])
    """
    contents = scipy.io.loadmat(path)
    if "G" not in contents or "label" not in contents:
        found = sorted(key for key in contents if not key.startswith("__"))
        raise ValueError(f"{path}: expected the variables 'G' and 'label', got {found}")
    kernel = sparse.csr_array(contents["G"])
    n = kernel.shape[0]
    values = np.asarray(contents["label"]).reshape(-1)
    if kernel.shape != (n, n) or values.shape != (n,):
        raise ValueError(
            f"{path}: expected a square G and one label per row, got G of shape "
            f"{kernel.shape} and {values.shape[0]} labels"
        )
    row_sums = np.asarray(kernel.sum(axis=1)).ravel()
    if not np.allclose(row_sums, 1.0):
        logger.warning("%s: G is not row-stochastic; reading its pattern anyway", path)
    pattern = sparse.coo_array(kernel)
    off_diagonal = (pattern.row != pattern.col) & (pattern.data != 0)
    edges = np.column_stack([pattern.col[off_diagonal], pattern.row[off_diagonal]])
    adjacency, nodes = adjacency_from_index_edges(edges, n)
    labels, class_names = get_labels(values, nodes)
    return Graph(adjacency, labels, nodes, class_names, name=name)


def load_ogb_raw(raw_dir, name=""):
    """Read an OGB node-property graph from its raw CSV files, without the ``ogb`` package.

    Files in ``raw_dir``: ``edge.csv.gz`` (rows ``source,target``, read as the edge
    ``source -> target``), ``node-label.csv.gz`` (one label per node, ``nan`` =
    unlabelled) and, if present, ``num-node-list.csv.gz`` (the number of nodes).
    Node ids are ``0, ..., n - 1``.

    Parameters
    ----------
    raw_dir : path-like
        The ``raw`` folder of an OGB dataset, e.g. ``ogbn_arxiv/raw``.
    name : str, default=""

    Returns
    -------
    Graph

    Examples
    --------
    >>> import gzip, tempfile
    >>> from pathlib import Path
    >>> from digraph_askls.datasets import load_ogb_raw
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     with gzip.open(Path(folder) / "edge.csv.gz", "wt") as file:
    ...         _ = file.write("0,1\\n2,1\\n")
    ...     with gzip.open(Path(folder) / "node-label.csv.gz", "wt") as file:
    ...         _ = file.write("4\\n0\\nnan\\n")
    ...     graph = load_ogb_raw(folder)
    >>> graph.n_edges, graph.labels.tolist(), graph.class_names
    (2, [1, 0, -1], [0, 4])
    """
    raw_dir = Path(raw_dir)
    edges = _read_csv(raw_dir / "edge.csv.gz", np.int64)
    values = _read_csv(raw_dir / "node-label.csv.gz", np.float64)
    if edges.shape[1] != 2 or values.shape[1] != 1:
        raise ValueError(
            f"{raw_dir}: expected 2 columns in edge.csv.gz and 1 in node-label.csv.gz, "
            f"got {edges.shape[1]} and {values.shape[1]}"
        )
    n = len(values)
    count_file = raw_dir / "num-node-list.csv.gz"
    if count_file.is_file():
        counts = _read_csv(count_file, np.int64).ravel()
        if counts.size != 1 or counts[0] != n:
            raise ValueError(
                f"{count_file}: expected one graph of {n} nodes (one per label), got "
                f"{counts.tolist()}"
            )
    adjacency, nodes = adjacency_from_index_edges(edges, n)
    # OGB writes "nan" for the nodes without a label; the library marks them with -1.
    codes = np.where(np.isnan(values[:, 0]), -1.0, values[:, 0])
    labels, class_names = get_labels(codes, nodes)
    return Graph(adjacency, labels, nodes, class_names, name=name)


def _read_csv(path, dtype):
    """Read a headerless (or one-header-line) numeric CSV, possibly gzipped."""
    try:
        return np.loadtxt(path, delimiter=",", dtype=dtype, ndmin=2)
    except ValueError:
        return np.loadtxt(path, delimiter=",", dtype=dtype, ndmin=2, skiprows=1)
