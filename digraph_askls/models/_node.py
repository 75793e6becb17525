"""Transductive node classification on a directed graph with AsK-LS."""

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ._askls import AsKLSClassifier
from ..kernels import restrict_kernel
from ._views import KernelViews

__all__ = ["NodeClassifier", "PRESETS"]

#: Named configurations. ``"paper"``: the protocol of the paper's authors (in-degree
#: normalised 1-hop kernel, gamma = 1, the lambda = 1 fallback for the singular system,
#: 10-fold stacking with an unpenalised logistic regression per class).
#: ``"large"``: for graphs of 10^5 nodes and more, where every kernel product counts
#: (a product costs ``n_hops`` sparse products with the walk): a 3-hop PageRank series
#: hopping in float32, gamma = 0.1, stacking on the training scores (no fold solves) and a
#: solver tolerance of 0.1 (three block MINRES iterations on the SBM benchmarks). See
#: ``docs/results/speed.md`` for its accuracy against the default.
PRESETS = {
    "paper": dict(kernel="in_degree", kernel_params=None, gamma=1.0, merge="stack",
                  regularization="auto", n_folds=10),
    "large": dict(kernel="ppr", kernel_params=dict(alpha=0.85, beta=1.0, n_hops=3,
                                                   dtype="float32"), gamma=0.1,
                  merge="stack_train", regularization="auto", n_folds=5, tol=0.1),
}


class NodeClassifier(BaseEstimator):
    """Classify the nodes of a directed graph from a few labelled ones with AsK-LS.

    The graph gives an asymmetric kernel on its nodes (by default the 20-hop
    personalised-PageRank series of the row-normalised walk ``D^{-1} (A + 2 A^T + I)``,
    an operator; ``preset="paper"`` uses the paper's 1-hop in-degree kernel); AsK-LS is
    trained on the labelled nodes with ``K(train, train)`` and predicts the others from
    ``K(test, train)`` (source view) and ``K(train, test)`` (target view). Nothing is
    densified.

    Parameters
    ----------
    kernel : str, default="ppr"
        Name of a graph kernel in :data:`digraph_askls.kernels.KERNELS`.
    gamma : float, default=0.01
        Regularisation coefficient of AsK-LS. Below ``1 / s_max(K)`` the system is
        definite and block MINRES converges in about ten iterations; measured on one
        60/40 split, 0.01 beats 0.1 and 1 on Cora and CiteSeer (1 is singular-prone and
        takes thousands of iterations with the PageRank kernel).
    merge : {"joint", "stack", "joint_train", "stack_train", "average", "source", "target"}
        How the two views are merged (see :class:`AsKLSClassifier`). ``"joint"``: one
        multinomial logistic regression on the out-of-fold scores of both views and all
        classes; on graphs whose classes link in a pattern (class c to c + 1) it reads
        the pattern that per-class stacking (``"stack"``, the paper's) cannot. The
        ``*_train`` variants fit the same stackers on the training scores of the full
        model, with no fold solves. Default: "joint".
    solver : str, default="auto"
        Solver of the AsK-LS system (see :func:`digraph_askls.linalg.solve_system`).
    preset : {None, "paper", "large"}, default=None
        A named configuration (:data:`PRESETS`) that overrides ``kernel``,
        ``kernel_params``, ``gamma``, ``merge``, ``regularization`` and ``n_folds`` (and
        ``tol`` for ``"large"``): ``"paper"`` is the authors' protocol, ``"large"`` trades
        some accuracy for about 20x fewer sparse products on large graphs.
    regularization : "auto", None or float, default="auto"
        Handling of singular systems (see :class:`AsKLSClassifier`).
    n_folds : int, default=5
        Folds of the stacking.
    kernel_params : dict, optional
        Parameters of the graph kernel.
    tol : float, default=1e-4
        Relative residual of the iterative solvers. Measured on one 60/40 split of Cora,
        CiteSeer, Pubmed and a 20,000-node SBM, 1e-4 predicts exactly as 1e-6 and 1e-8
        with fewer iterations.
    max_iter : int, optional
    random_state : int, RandomState or None
        Seeds the stacking folds.
    operator : callable, optional
        Applied to the kernel restricted to the labelled nodes before
        training, e.g. ``functools.partial(DaskKernelOperator, client=client)`` to hold
        it on a dask cluster (:mod:`digraph_askls.distributed`; it needs a sparse kernel
        such as ``kernel="in_degree"`` and ``merge="average"``); the solvers then only
        see its products. None trains on the local matrix.

    Attributes
    ----------
    nodes_ : list
        Node order (names of the nodes as in the input graph).
    classes_ : ndarray
        Class labels.
    kernel_ : sparse matrix or LinearOperator
        The graph kernel on all nodes.
    train_nodes_ : ndarray of int
        Indices of the labelled nodes.
    estimator_ : AsKLSClassifier
        The fitted AsK-LS model on the labelled nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> from digraph_askls import NodeClassifier
    >>> graph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
    >>> labels = {0: "a", 1: "a", 3: "b", 4: "b"}
    >>> clf = NodeClassifier(merge="average").fit(graph, labels)
    >>> clf.predict([2, 5]).tolist()
    ['a', 'b']
    """

    def __init__(self, kernel="ppr", gamma=0.01, merge="joint", solver="auto",
                 preset=None, regularization="auto", n_folds=5, kernel_params=None,
                 tol=1e-4, max_iter=None, random_state=None, operator=None):
        self.kernel = kernel
        self.gamma = gamma
        self.merge = merge
        self.solver = solver
        self.preset = preset
        self.regularization = regularization
        self.n_folds = n_folds
        self.kernel_params = kernel_params
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.operator = operator

    def _config(self):
        config = dict(kernel=self.kernel, kernel_params=self.kernel_params, gamma=self.gamma,
                      merge=self.merge, regularization=self.regularization,
                      n_folds=self.n_folds, tol=self.tol)
        if self.preset is not None:
            if self.preset not in PRESETS:
                raise ValueError(f"unknown preset {self.preset!r}; choose from "
                                 f"{sorted(PRESETS)} or None")
            config.update(PRESETS[self.preset])
        return config

    def fit(self, graph, labels, *, nodelist=None, weight="weight"):
        """Fit on the labelled nodes of ``graph``.

        Parameters
        ----------
        graph : networkx.DiGraph, edge list, sparse matrix or ndarray
            Anything :func:`digraph_askls.graph.get_adjacency` takes (row = source).
        labels : array-like of shape (n_nodes,) or dict
            Class of each node, ``-1`` for unlabelled nodes; or a dict node -> class
            (nodes missing from the dict are unlabelled).
        nodelist, weight
            As in :func:`digraph_askls.graph.get_adjacency`.

        Returns
        -------
        self
        """
        from ..graph import get_adjacency, get_labels
        from ..kernels import get_graph_kernel

        config = self._config()
        adjacency, nodes = get_adjacency(graph, nodelist=nodelist, weight=weight)
        codes, classes = get_labels(labels, nodes)
        train = np.flatnonzero(codes >= 0)
        if np.unique(codes[train]).size < 2:
            raise ValueError(f"at least 2 classes must have labelled nodes, got "
                             f"{np.unique(codes[train]).size}")
        self.nodes_ = list(nodes)
        self._index = {node: i for i, node in enumerate(self.nodes_)}
        self.kernel_ = get_graph_kernel(config["kernel"], adjacency,
                                        **(config["kernel_params"] or {}))
        self.train_nodes_ = train
        train_kernel = restrict_kernel(self.kernel_, train, train)
        if self.operator is not None:
            train_kernel = self.operator(train_kernel)
        self.estimator_ = AsKLSClassifier(
            kernel="precomputed", gamma=config["gamma"], solver=self.solver,
            merge=config["merge"], regularization=config["regularization"],
            n_folds=config["n_folds"], tol=config["tol"], max_iter=self.max_iter,
            random_state=self.random_state,
        ).fit(train_kernel, codes[train])
        self.classes_ = np.asarray(classes)[self.estimator_.classes_]
        return self

    def _indices(self, nodes):
        if nodes is None:
            return np.arange(len(self.nodes_))
        indices = []
        for node in nodes:
            if node not in self._index:
                raise ValueError(f"node {node!r} is not in the fitted graph "
                                 f"({len(self.nodes_)} nodes)")
            indices.append(self._index[node])
        return np.asarray(indices, dtype=np.int64)

    def _views(self, nodes):
        check_is_fitted(self)
        index = self._indices(nodes)
        train = self.train_nodes_
        return KernelViews(restrict_kernel(self.kernel_, index, train),
                           restrict_kernel(self.kernel_, train, index))

    def predict(self, nodes=None):
        """Predicted class of ``nodes`` (all nodes, in node order, when None)."""
        codes = self.estimator_.predict(self._views(nodes))
        return self.classes_[np.searchsorted(self.estimator_.classes_, codes)]

    def predict_proba(self, nodes=None):
        """Class probabilities (stacking merges only), columns in ``classes_`` order."""
        return self.estimator_.predict_proba(self._views(nodes))

    def decision_function(self, nodes=None, view=None):
        """Decision values of ``nodes``.

        Parameters
        ----------
        nodes : list, optional
            Node names; all nodes when None.
        view : {None, "source", "target", "both"}
            None: the merged decision of the fitted model. ``"source"`` / ``"target"``:
            the raw one-vs-rest scores of one view (fitted on all labelled nodes);
            ``"both"``: a dict with both.
        """
        views = self._views(nodes)
        if view is None:
            return self.estimator_.decision_function(views)
        if view not in ("source", "target", "both"):
            raise ValueError(f"view must be None, 'source', 'target' or 'both', got {view!r}")
        estimator = self.estimator_
        intercepts, dual = estimator._coefficient_blocks()
        scores = dict(zip(("source", "target"),
                          estimator._view_scores(views, intercepts, dual,
                                                   names=("source", "target"))))
        if estimator.classes_.size == 2:
            scores = {name: value[:, 0] for name, value in scores.items()}
        return scores if view == "both" else scores[view]
