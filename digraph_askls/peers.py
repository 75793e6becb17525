"""Structure-only baselines from scikit-network, with the node-classifier protocol.

A directed graph classifier is worth its cost only where it beats the simple votes of the
graph: a personalised PageRank per class (``"pagerank"``) or the heat diffusion of the
known labels (``"diffusion"``). :class:`PeerClassifier` wraps scikit-network's
classifiers so that they take the same input as :class:`~digraph_askls.NodeClassifier`
(``fit(graph, labels)``, any graph form, ``-1`` or absence for unlabelled nodes) and
answer ``predict(nodes)`` by node name: the library's ``evaluate_node_classifier`` runs
them on the same splits as AsK-LS, and any code written for one runs the other.

scikit-network is an optional dependency: ``pip install "digraph_askls[peers]"`` (from a
source checkout, ``pip install ".[peers]"``). This module imports without it; fitting a
peer raises an :class:`ImportError` that says what to install.

Examples
--------
Half of the nodes of a directed SBM labelled, the others classified by the PageRank votes:

>>> import numpy as np
>>> from digraph_askls.datasets import make_directed_sbm
>>> from digraph_askls.peers import PeerClassifier
>>> adjacency, labels = make_directed_sbm(300, 3, 8, p_in=0.9, random_state=0)
>>> known = np.where(np.arange(300) % 2 == 0, labels, -1)      # -1: unlabelled
>>> test = np.flatnonzero(known == -1)
>>> peer = PeerClassifier().fit(adjacency, known)
>>> bool(np.mean(peer.predict(test) == labels[test]) > 0.8)
True
"""

import importlib

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from ._fitted import FittedAttributesMixin
from .graph import get_adjacency, get_labels
from .graph._index import NodeIndex

__all__ = ["PEERS", "PeerClassifier"]

#: scikit-network's classifiers by method name: ``"pagerank"``, one personalised PageRank
#: from the labelled nodes of each class and an arg-max vote (``PageRankClassifier``);
#: ``"diffusion"``, the heat diffusion of the labels (``DiffusionClassifier``).
PEERS = {"pagerank": "PageRankClassifier", "diffusion": "DiffusionClassifier"}

_INSTALL_HINT = ('pip install "digraph_askls[peers]" (from a source checkout: '
                'pip install ".[peers]"; or pip install scikit-network)')


def _sknetwork_classification():
    """scikit-network's ``classification`` module, or an ImportError saying what to install."""
    try:
        return importlib.import_module("sknetwork.classification")
    except ImportError as exc:
        raise ImportError(f"PeerClassifier needs scikit-network, which is not installed: "
                          f"{_INSTALL_HINT}") from exc


class PeerClassifier(FittedAttributesMixin, BaseEstimator):
    """A scikit-network node classifier with the :class:`~digraph_askls.NodeClassifier`
    protocol: a structure-only baseline.

    The labels spread over the graph from the labelled nodes; each node gets the class
    whose spread reaches it most. Node attributes are not used. Needs scikit-network
    (``pip install "digraph_askls[peers]"``).

    Parameters
    ----------
    method : {"pagerank", "diffusion"}, default="pagerank"
        The scikit-network classifier (see :data:`PEERS`): a personalised PageRank per
        class, or the heat diffusion of the labels.
    directed : bool, default=False
        False: run on the undirected graph ``adjacency + adjacency^T``, how these votes
        are usually run. True: run on the directed adjacency, so that votes only flow
        along the edges (from a source to its target).
    params : dict, optional
        Keyword arguments of the scikit-network classifier, e.g.
        ``{"damping_factor": 0.85}`` for ``"pagerank"`` or ``{"n_iter": 10}`` for
        ``"diffusion"``.

    Attributes
    ----------
    estimator_ : scikit-network classifier or None
        The fitted scikit-network object; None on a graph without edges, which
        scikit-network refuses and where no vote can travel (each labelled node keeps
        its label, the others get the most frequent class).
    labels_ : ndarray of int64, shape (n_nodes,)
        Class code of every node, in node order (``classes_[labels_]`` are the classes);
        ``-1`` where ``"diffusion"`` left a node without a class (see Notes).
    classes_ : ndarray
        The class labels, in the order of :func:`~digraph_askls.graph.get_labels`
        (sorted where they compare).
    nodes_ : list
        The node names, in the order of :func:`~digraph_askls.graph.get_adjacency`.

    See Also
    --------
    digraph_askls.NodeClassifier : AsK-LS on the same graph and labels.

    Notes
    -----
    A node that no vote reaches (in a component without labelled nodes, or, with
    ``directed=True``, without a path from one): ``"diffusion"`` leaves it without a class
    (``-1`` in :attr:`labels_`) and :meth:`predict` gives it the most frequent class of
    the other nodes, so that every node gets a class, as AsK-LS gives one;
    ``"pagerank"`` gives it scikit-network's first class (the arg-max of scores that are
    all zero).

    Examples
    --------
    >>> from digraph_askls.peers import PeerClassifier
    >>> edges = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "e"), ("e", "f"), ("f", "d"),
    ...          ("c", "d")]
    >>> peer = PeerClassifier().fit(edges, {"a": "x", "b": "x", "d": "y", "e": "y"})
    >>> peer.predict(["c", "f"]).tolist()
    ['x', 'y']
    >>> PeerClassifier(directed=True).fit(edges, {"a": "x", "d": "y"}).predict(["f"]).tolist()
    ['y']
    """

    _parameter_constraints: dict = {
        "method": [StrOptions(set(PEERS))],
        "directed": ["boolean"],
        "params": [dict, None],
    }

    def __init__(self, method="pagerank", directed=False, params=None):
        self.method = method
        self.directed = directed
        self.params = params

    def fit(self, graph, labels, *, nodelist=None, weight="weight"):
        """Spread the labels of the labelled nodes over ``graph``.

        Parameters
        ----------
        graph : networkx.DiGraph, edge list, sparse matrix or ndarray
            Anything :func:`~digraph_askls.graph.get_adjacency` takes (row = source).
        labels : array-like of shape (n_nodes,), mapping or str
            The class of each node: a sequence in node order with ``-1`` (or None) for
            unlabelled nodes, a mapping ``node -> class``, or the name of a node
            attribute of a networkx graph (see :func:`~digraph_askls.graph.get_labels`).
        nodelist, weight
            As in :func:`~digraph_askls.graph.get_adjacency`.

        Returns
        -------
        self : PeerClassifier
            The fitted classifier.

        Raises
        ------
        ImportError
            If scikit-network is not installed.
        ValueError
            If fewer than 2 classes have labelled nodes.
        """
        self._validate_params()
        classification = _sknetwork_classification()
        adjacency, nodes = get_adjacency(graph, nodelist=nodelist, weight=weight)
        codes, classes = get_labels(labels, nodes, graph=graph)
        n_classes = np.unique(codes[codes >= 0]).size
        if n_classes < 2:
            raise ValueError(f"at least 2 classes must have labelled nodes, got {n_classes}")
        matrix = sparse.csr_matrix(adjacency, dtype=np.float64)
        if not self.directed:
            matrix = sparse.csr_matrix(matrix + matrix.T)
        codes = np.asarray(codes, dtype=np.int64)
        if matrix.nnz == 0:
            estimator, predicted = None, codes
        else:
            estimator = getattr(classification, PEERS[self.method])(**(self.params or {}))
            estimator.fit(matrix, codes)
            predicted = np.asarray(estimator.predict()).ravel().astype(np.int64)
        self.estimator_ = estimator
        self.labels_ = predicted
        self.classes_ = np.asarray(classes)
        self.nodes_ = list(nodes)
        self._node_index = NodeIndex(self.nodes_)
        return self

    def predict(self, nodes=None):
        """The class of each of ``nodes``.

        Parameters
        ----------
        nodes : sequence of node names, optional
            Nodes of the fitted graph; all of them, in node order, when None.

        Returns
        -------
        ndarray of shape (n_nodes,)
            Their classes (labels of ``classes_``). Nodes left without a class get the
            most frequent class of the other nodes (see Notes).

        Raises
        ------
        ValueError
            If a node is not in the fitted graph.
        """
        check_is_fitted(self)
        codes = self.labels_[self._node_index.positions(nodes)]
        reached = self.labels_[self.labels_ >= 0]
        fallback = np.bincount(reached).argmax() if reached.size else 0
        return self.classes_[np.where(codes >= 0, codes, fallback)]
