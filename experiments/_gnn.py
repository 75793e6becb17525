"""Graph neural network peers behind the NodeClassifier protocol.

:class:`GNNClassifier` trains one of the peers of :data:`GNN_METHODS` (PyTorch Geometric
and PyTorch Geometric Signed Directed, with their authors' settings from
:data:`GNN_CONFIGS`) on the labelled nodes of a graph, so that
:func:`~experiments.evaluate_node_classifier` runs it on the same splits as
AsK-LS. The optional packages come with ``pip install "digraph-askls[gnn]"``.
"""

import logging
import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from digraph_askls._fitted import FittedAttributesMixin
from digraph_askls.graph._index import NodeIndex
from ._gnn_config import GNN_CONFIGS, GNN_METHODS
from ._gnn_models import _dense_features, build_model, import_torch

__all__ = ["GNNClassifier"]

logger = logging.getLogger(__name__)


def _stratified_share(codes, labelled, share, rng):
    """A share of the labelled nodes of every class (at least one of a class of two or
    more, never all of a class), drawn with ``rng``."""
    drawn = []
    for label in np.unique(codes[labelled]):
        members = labelled[codes[labelled] == label]
        size = min(max(int(round(share * members.size)), 1), members.size - 1)
        if size > 0:
            drawn.append(rng.choice(members, size, replace=False))
    return np.sort(np.concatenate(drawn)) if drawn else np.empty(0, dtype=np.int64)


class GNNClassifier(FittedAttributesMixin, BaseEstimator):
    """A graph neural network peer with the :class:`NodeClassifier` protocol.

    ``fit(graph, labels, features=..., valid=...)`` trains on the labelled nodes that are
    not validation nodes, stops early on the validation nodes (the weights of the best
    validation epoch are kept), and ``predict(nodes)`` gives their classes.

    Parameters
    ----------
    method : {"MLP", "GCN", "GraphSAGE", "Dir-GNN", "MagNet", "DiGCN"}, default="GCN"
        The peer (see :data:`GNN_CONFIGS` for its layers and the source of its settings).
    config : dict, optional
        Settings that replace the method's default ones (keys of :data:`GNN_CONFIGS`),
        e.g. the per-graph settings of ``get_config("Dir-GNN", "squirrel")``.
    valid_share : float, default=0.2
        Share of the labelled nodes of each class held out for early stopping when
        ``fit`` gets no ``valid`` nodes (random and few-label protocols).
    n_threads : int, default=1
        ``torch.set_num_threads`` during ``fit`` (the previous value is restored).
    random_state : int or None
        Seeds torch (``torch.manual_seed``) and the draw of validation nodes.

    Attributes
    ----------
    labels_ : ndarray of int
        Predicted class code of every node (at the best validation epoch).
    classes_ : ndarray
        Class labels.
    config_ : dict
        The settings used.
    n_epochs_, best_epoch_ : int
        Epochs trained, and the epoch whose predictions are kept.
    valid_ : ndarray of int
        Positions of the validation nodes.
    n_threads_ : int
        Threads torch used.

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import GNNClassifier
    >>> edges = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)]
    >>> labels = np.array([0, 0, -1, 1, 1, -1])
    >>> features = np.eye(6)
    >>> clf = GNNClassifier("GCN", config={"max_epochs": 2}, random_state=0)
    >>> clf.fit(edges, labels, features=features, valid=[1, 4]).n_epochs_  # doctest: +SKIP
    2

    (Skipped by the doctests, which run without the optional extra; ``tests/test_gnn.py``
    trains every peer when it is installed.)
    """

    _parameter_constraints: dict = {
        "method": [StrOptions(set(GNN_METHODS))],
        "config": [dict, None],
        "valid_share": [Interval(numbers.Real, 0, 1, closed="neither")],
        "n_threads": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, method="GCN", config=None, valid_share=0.2, n_threads=1,
                 random_state=None):
        self.method = method
        self.config = config
        self.valid_share = valid_share
        self.n_threads = n_threads
        self.random_state = random_state

    def fit(self, graph, labels, *, features=None, valid=None, nodelist=None, weight="weight"):
        """Train on the labelled nodes of ``graph``, stopping early on the validation nodes.

        Parameters
        ----------
        graph : networkx.DiGraph, edge list, sparse matrix or ndarray
            Anything :func:`digraph_askls.graph.get_adjacency` takes (row = source).
        labels : array-like of shape (n_nodes,) or dict
            Class of each node, ``-1`` for unlabelled nodes; or a dict node -> class.
            The validation nodes must be labelled.
        features : array-like, sparse matrix, DataFrame or str
            Node attributes (see :func:`digraph_askls.graph.get_features`); required.
        valid : sequence of nodes, optional
            Labelled nodes held out for early stopping (a split's validation nodes).
            None: ``valid_share`` of the labelled nodes of each class, drawn with
            ``random_state``.
        nodelist, weight
            As in :func:`digraph_askls.graph.get_adjacency`.

        Returns
        -------
        self
        """
        from digraph_askls.graph import get_adjacency, get_features, get_labels

        self._validate_params()
        torch, _, _ = import_torch()
        adjacency, nodes = get_adjacency(graph, nodelist=nodelist, weight=weight)
        codes, classes = get_labels(labels, nodes)
        attributes = get_features(features, nodes, graph)
        if attributes is None:
            raise ValueError(f"the {self.method} peer needs node attributes (features=...), "
                             f"got none")
        self._node_index = NodeIndex(list(nodes))
        labelled = np.flatnonzero(codes >= 0)
        seed = int(check_random_state(self.random_state).randint(2**31 - 1))
        if valid is None:
            valid = _stratified_share(codes, labelled, self.valid_share,
                                      np.random.default_rng(seed))
        else:
            valid = np.unique(self._node_index.positions(valid))
            if (codes[valid] < 0).any():
                raise ValueError("every validation node needs a label; unlabelled: "
                                 f"{[nodes[i] for i in valid[codes[valid] < 0][:5]]}")
        train = np.setdiff1d(labelled, valid)
        if valid.size == 0 or np.unique(codes[train]).size < 2:
            raise ValueError(f"expected training nodes of at least 2 classes and validation "
                             f"nodes, got {train.size} training nodes of "
                             f"{np.unique(codes[train]).size} classes and {valid.size} "
                             f"validation nodes")
        config = {**GNN_CONFIGS[self.method]["default"], **(self.config or {})}
        previous = torch.get_num_threads()
        torch.set_num_threads(self.n_threads)
        try:
            torch.manual_seed(seed)
            dense = _dense_features(attributes, config["row_normalize"])
            x = torch.as_tensor(np.asarray(dense, dtype=np.float32))
            model, scores = build_model(self.method, config, x, adjacency, len(classes))
            self.labels_, self.n_epochs_, self.best_epoch_ = _train(
                torch, model, scores, torch.as_tensor(np.maximum(codes, 0)),
                torch.as_tensor(train), torch.as_tensor(valid), config)
            self.n_threads_ = torch.get_num_threads()
        finally:
            torch.set_num_threads(previous)
        logger.info("%s: %d epochs, best %d", self.method, self.n_epochs_, self.best_epoch_)
        self.valid_, self.config_, self.classes_ = valid, config, np.asarray(classes)
        return self

    def predict(self, nodes=None):
        """Predicted class of ``nodes`` (all nodes, in node order, when None)."""
        check_is_fitted(self)
        return self.classes_[self.labels_[self._node_index.positions(nodes)]]


def _train(torch, model, scores, codes, train, valid, config):
    """Adam on the training nodes' cross-entropy; the predictions of the best validation
    epoch (lowest loss or highest accuracy), stopping after ``patience`` epochs without
    improvement. Returns (predicted codes of all nodes, epochs trained, best epoch)."""
    functional = torch.nn.functional
    optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"],
                                 weight_decay=config["weight_decay"])
    best, best_epoch, predicted = -np.inf, 0, None
    epoch = 0
    for epoch in range(1, int(config["max_epochs"]) + 1):
        model.train()
        optimizer.zero_grad()
        loss = functional.nll_loss(functional.log_softmax(scores(), dim=1)[train], codes[train])
        loss.backward()
        optimizer.step()
        model.eval()
        with torch.no_grad():
            log_probs = functional.log_softmax(scores(), dim=1)
        guess = log_probs.argmax(dim=1)
        if config["criterion"] == "loss":
            score = -float(functional.nll_loss(log_probs[valid], codes[valid]))
        else:
            score = float((guess[valid] == codes[valid]).float().mean())
        if score > best:
            best, best_epoch, predicted = score, epoch, guess.numpy().copy()
        elif epoch - best_epoch >= config["patience"]:
            break
    return predicted, epoch, best_epoch
