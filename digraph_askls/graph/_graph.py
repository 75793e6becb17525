"""The labelled directed graph that dataset loaders return."""

from dataclasses import dataclass
from typing import Optional, Union

import networkx as nx
import numpy as np
from scipy import sparse

from digraph_askls.graph._features import check_features
from digraph_askls.graph._split import check_splits

__all__ = ["Graph"]


@dataclass(frozen=True, eq=False)
class Graph:
    """A labelled directed graph: canonical adjacency, node names and node labels.

    Build the fields with :func:`get_adjacency` and :func:`get_labels`; the constructor
    only checks that they fit together (and brings ``features`` and ``splits`` to the
    types below).

    Parameters
    ----------
    adjacency : scipy.sparse.csr_array of shape (n_nodes, n_nodes)
        ``adjacency[i, j]`` = weight of the edge ``i -> j``.
    labels : numpy.ndarray of int, shape (n_nodes,)
        Class code of each node in ``range(n_classes)``, ``-1`` when unlabelled.
    node_names : list
        Name of each node (row) in the source data.
    class_names : list
        Name of each class code.
    name : str, default=""
        Name of the dataset.
    features : numpy.ndarray or scipy.sparse.csr_array of shape (n_nodes, n_features), optional
        Node attributes, row ``i`` for node ``i``, stored as float64: a dense array, or a
        CSR array for sparse attributes (bag-of-words, binary indicators). Any SciPy
        sparse input becomes a canonical CSR array, any numeric array a float64 array.
    splits : tuple of Split, optional
        Fixed train / validation / test splits published with the data. Each part is
        stored as a sorted ``int64`` array of node indices; the parts of a split must be
        disjoint and hold labelled nodes only.
    feature_names : list, optional
        Name of each column of ``features`` (e.g. the header of a features file).
    label_matrix : scipy.sparse.csr_array of shape (n_nodes, n_classes), optional
        Several labels per node: ``label_matrix[i, c] = 1`` when node ``i`` has the label
        ``class_names[c]`` (stored as int8 0/1). A dataset whose nodes have several labels
        (BlogCatalog) keeps them here, with ``labels`` all ``-1`` (no node has one class).

    Attributes
    ----------
    n_nodes : int
    n_edges : int
        Number of stored entries of the adjacency (self-loops included).
    n_classes : int
    n_features : int
        Number of columns of ``features``, 0 without features.

    Examples
    --------
    >>> from digraph_askls.graph import Graph, get_adjacency, get_labels
    >>> adjacency, nodes = get_adjacency([("a", "b"), ("b", "c"), ("c", "a")])
    >>> labels, class_names = get_labels({"a": "x", "b": "y"}, nodes)
    >>> graph = Graph(adjacency, labels, nodes, class_names, name="triangle")
    >>> graph.n_nodes, graph.n_edges, graph.n_classes
    (3, 3, 2)
    >>> sorted(graph.to_networkx().edges)
    [('a', 'b'), ('b', 'c'), ('c', 'a')]

    Node attributes and a fixed split:

    >>> import numpy as np
    >>> from digraph_askls.graph import Split
    >>> graph = Graph(adjacency, labels, nodes, class_names, name="triangle",
    ...               features=np.eye(3), splits=[Split([0], [], [1])])
    >>> graph
    Graph(name='triangle', n_nodes=3, n_edges=3, n_classes=2, n_features=3, n_splits=1)
    >>> graph.splits[0].test
    array([1])
    """

    adjacency: sparse.csr_array
    labels: np.ndarray
    node_names: list
    class_names: list
    name: str = ""
    features: Optional[Union[np.ndarray, sparse.csr_array]] = None
    splits: Optional[tuple] = None
    feature_names: Optional[list] = None
    label_matrix: Optional[sparse.csr_array] = None

    def __post_init__(self):
        if not isinstance(self.adjacency, sparse.csr_array):
            raise TypeError(
                "adjacency must be a scipy.sparse.csr_array (see get_adjacency), got "
                f"{type(self.adjacency).__name__}"
            )
        n = self.adjacency.shape[0]
        if self.adjacency.shape != (n, n):
            raise ValueError(f"adjacency must be square, got shape {self.adjacency.shape}")
        labels = np.asarray(self.labels)
        if labels.shape != (n,) or not np.issubdtype(labels.dtype, np.integer):
            raise ValueError(
                f"labels must be an integer array of shape ({n},), got "
                f"{labels.dtype} of shape {labels.shape}"
            )
        if labels.size and (labels.min() < -1 or labels.max() >= len(self.class_names)):
            raise ValueError(
                f"labels must lie in [-1, {len(self.class_names)}), got values in "
                f"[{labels.min()}, {labels.max()}]"
            )
        if len(self.node_names) != n:
            raise ValueError(
                f"node_names must have one entry per node ({n}), got {len(self.node_names)}"
            )
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "node_names", list(self.node_names))
        object.__setattr__(self, "class_names", list(self.class_names))
        object.__setattr__(self, "features", check_features(self.features, n))
        object.__setattr__(self, "splits", check_splits(self.splits, labels))
        if self.feature_names is not None:
            names = list(self.feature_names)
            if len(names) != self.n_features:
                raise ValueError(f"feature_names must name the {self.n_features} feature "
                                 f"columns, got {len(names)} names")
            object.__setattr__(self, "feature_names", names)
        if self.label_matrix is not None:
            object.__setattr__(self, "label_matrix", self._checked_label_matrix(n))

    def _checked_label_matrix(self, n):
        matrix = sparse.csr_array(self.label_matrix)
        shape = (n, len(self.class_names))
        if matrix.shape != shape:
            raise ValueError(f"label_matrix must have shape {shape} (nodes, class_names), "
                             f"got {matrix.shape}")
        matrix.eliminate_zeros()
        if matrix.nnz and not np.all(matrix.data == 1):
            raise ValueError("label_matrix must hold 0 and 1, got the values "
                             f"{np.unique(matrix.data)[:5].tolist()}")
        return sparse.csr_array(matrix, dtype=np.int8)

    @property
    def n_nodes(self):
        """Number of nodes."""
        return self.adjacency.shape[0]

    @property
    def n_edges(self):
        """Number of edges, i.e. stored entries of the adjacency, self-loops included."""
        return self.adjacency.nnz

    @property
    def n_classes(self):
        """Number of classes."""
        return len(self.class_names)

    @property
    def n_features(self):
        """Number of node attributes (columns of ``features``), 0 without features."""
        return 0 if self.features is None else self.features.shape[1]

    def to_networkx(self):
        """Return the graph as a ``networkx.DiGraph``.

        Nodes are ``node_names``; edges carry ``weight``; a labelled node carries its
        class name in the attribute ``label``. ``features`` and ``splits`` are not
        copied: index them with the node order, ``graph.node_names``.

        Returns
        -------
        networkx.DiGraph

        Examples
        --------
        >>> from digraph_askls.graph import Graph, get_adjacency
        >>> adjacency, nodes = get_adjacency([(0, 1, 2.5)])
        >>> Graph(adjacency, [-1, -1], nodes, []).to_networkx().edges(data=True)
        OutEdgeDataView([(0, 1, {'weight': 2.5})])
        """
        digraph = nx.DiGraph(name=self.name)
        for node, code in zip(self.node_names, self.labels.tolist()):
            if code >= 0:
                digraph.add_node(node, label=self.class_names[code])
            else:
                digraph.add_node(node)
        coo = self.adjacency.tocoo()
        names = self.node_names
        digraph.add_weighted_edges_from(
            (names[i], names[j], w)
            for i, j, w in zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist())
        )
        return digraph

    def __repr__(self):
        extra = ""
        if self.features is not None:
            extra += f", n_features={self.n_features}"
        if self.splits is not None:
            extra += f", n_splits={len(self.splits)}"
        if self.label_matrix is not None:
            extra += ", multi_label=True"
        return (
            f"Graph(name={self.name!r}, n_nodes={self.n_nodes}, n_edges={self.n_edges}, "
            f"n_classes={self.n_classes}{extra})"
        )
