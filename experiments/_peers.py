"""Structure-only peers from scikit-network behind the NodeClassifier protocol.

The peers (personalised-PageRank votes and heat diffusion) are the baselines a directed
graph classifier must beat. They are wrapped so that
:func:`~experiments.evaluate_node_classifier` runs them on the same splits
as AsK-LS: ``fit(graph, labels)`` with ``-1`` for unlabelled nodes, ``predict(nodes)``.
scikit-network is an optional dependency (``pip install "digraph-askls[peers]"``).
"""

import importlib

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from digraph_askls._fitted import FittedAttributesMixin
from digraph_askls.graph._index import NodeIndex

__all__ = ["PeerClassifier", "PEERS"]

#: scikit-network classifiers by name: ``"pagerank"`` (``PageRankClassifier``, one
#: personalised PageRank per class, arg-max vote) and ``"diffusion"``
#: (``DiffusionClassifier``, heat diffusion of the labels).
PEERS = {"pagerank": "PageRankClassifier", "diffusion": "DiffusionClassifier"}


def _import_sknetwork_classification():
    try:
        return importlib.import_module("sknetwork.classification")
    except ImportError as exc:
        raise ImportError(
            "the structure-only peers need scikit-network, which is not installed; "
            'install it with: pip install "digraph-askls[peers]"'
        ) from exc


class PeerClassifier(FittedAttributesMixin, BaseEstimator):
    """A scikit-network node classifier with the :class:`NodeClassifier` protocol.

    Parameters
    ----------
    method : {"pagerank", "diffusion"}, default="pagerank"
        The scikit-network classifier (see :data:`PEERS`).
    directed : bool, default=False
        False: run on the undirected graph ``adjacency + adjacency^T`` (how the peer is
        usually run). True: run on the directed adjacency (votes flow along the edges).
    params : dict, optional
        Keyword arguments of the scikit-network classifier (e.g. ``damping_factor``).

    Attributes
    ----------
    estimator_ : sknetwork classifier or None
        The fitted scikit-network object; None on a graph without edges, which
        scikit-network rejects and where no vote can travel (each labelled node keeps
        its label, the others get the most frequent class).
    labels_ : ndarray of int
        Predicted class code of every node.
    classes_ : ndarray
        Class labels.

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import PeerClassifier
    >>> edges = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)]
    >>> labels = np.array([0, 0, -1, 1, 1, -1])
    >>> PeerClassifier().fit(edges, labels).predict([2, 5]).tolist()
    [0, 1]
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
        """Fit on the labelled nodes of ``graph``.

        Parameters
        ----------
        graph : networkx.DiGraph, edge list, sparse matrix or ndarray
            Anything :func:`digraph_askls.graph.get_adjacency` takes (row = source).
        labels : array-like of shape (n_nodes,) or dict
            Class of each node, ``-1`` for unlabelled nodes; or a dict node -> class.
        nodelist, weight
            As in :func:`digraph_askls.graph.get_adjacency`.

        Returns
        -------
        self
        """
        from digraph_askls.graph import get_adjacency, get_labels

        self._validate_params()
        module = _import_sknetwork_classification()
        adjacency, nodes = get_adjacency(graph, nodelist=nodelist, weight=weight)
        codes, classes = get_labels(labels, nodes)
        if np.unique(codes[codes >= 0]).size < 2:
            raise ValueError(f"at least 2 classes must have labelled nodes, got "
                             f"{np.unique(codes[codes >= 0]).size}")
        matrix = sparse.csr_matrix(adjacency, dtype=np.float64)
        if not self.directed:
            matrix = sparse.csr_matrix(matrix + matrix.T)
        if matrix.nnz == 0:
            self.estimator_ = None
            self.labels_ = np.asarray(codes, dtype=np.int64)
        else:
            self.estimator_ = getattr(module, PEERS[self.method])(**(self.params or {}))
            self.estimator_.fit(matrix, np.asarray(codes, dtype=np.int64))
            self.labels_ = np.asarray(self.estimator_.predict()).ravel()
        self.nodes_ = list(nodes)
        self._node_index = NodeIndex(self.nodes_)
        self.classes_ = np.asarray(classes)
        return self

    def predict(self, nodes=None):
        """Predicted class of ``nodes`` (all nodes, in node order, when None).

        Nodes that no vote reaches (scikit-network returns ``-1``) get the most frequent
        training class.
        """
        check_is_fitted(self)
        index = self._node_index.positions(nodes)
        codes = self.labels_[index]
        known = self.labels_[self.labels_ >= 0]
        fallback = np.bincount(known).argmax() if known.size else 0
        codes = np.where(codes >= 0, codes, fallback)
        return self.classes_[codes]
