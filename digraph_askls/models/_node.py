"""Transductive node classification on a directed graph with AsK-LS."""

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from .._fitted import FittedAttributesMixin
from ..graph._index import NodeIndex
from ..kernels import restrict_kernel
from ._askls import MERGES, AsKLSClassifier
from ._checks import SHARED_CONSTRAINTS
from ._views import KernelViews

__all__ = ["NodeClassifier", "PRESETS", "LARGE_GRAPH_EDGES"]

#: Named configurations. ``"paper"``: the protocol of the paper's authors (in-degree
#: normalised 1-hop kernel, gamma = 1, the lambda = 1 fallback for the singular system,
#: 10-fold stacking with an unpenalised logistic regression per class).
#: ``"large"``: for graphs of millions of edges, where every kernel product counts (a
#: product costs ``n_hops`` sparse products with the walk): a 3-hop PageRank series of
#: the undirected walk hopping in float32 (both views in one product per hop), gamma =
#: 0.01, a solver tolerance of 0.01 (two CG iterations on the bias-eliminated system)
#: and joint stacking on the training scores of the full model (no fold solves: at the
#: solution they are ``y - a~/g`` and ``y - b~/g``, so they cost nothing; they hold only
#: for a converged solve, which the tolerance ensures). See ``docs/results/speed.md``.
PRESETS = {
    "paper": dict(kernel="in_degree", kernel_params=None, gamma=1.0, merge="stack",
                  regularization="auto", n_folds=10),
    "large": dict(kernel="ppr", kernel_params=dict(alpha=0.85, beta=1.0, n_hops=3,
                                                   dtype="float32"), gamma=0.01,
                  merge="joint_train", regularization="auto", n_folds=5, tol=0.01),
}

#: ``preset="auto"`` takes ``"large"`` from this many edges on (when the parameters
#: it would override are left at their defaults). Measured on directed SBMs (average
#: degree 10, 10 classes, 60 % labelled, 2 cores): at 10^5 nodes (10^6 edges) the
#: default takes 8-9 s for 0.997 accuracy, "large" 1.2 s for 0.993; at 10^6 nodes the
#: default takes 275 s where "large" takes 9 s (``docs/results/speed.md``).
LARGE_GRAPH_EDGES = 2_000_000

#: Kernels whose hops run in float32 unless ``kernel_params`` says otherwise.
_WALK_KERNELS = ("ppr", "ppr_in", "ppr_out")

_PRESET_KEYS = ("kernel", "kernel_params", "gamma", "merge", "regularization", "n_folds",
                "tol")


def _same(value, default):
    return type(value) is type(default) and value == default


class NodeClassifier(FittedAttributesMixin, BaseEstimator):
    """Classify the nodes of a directed graph from a few labelled ones with AsK-LS.

    The graph gives an asymmetric kernel on its nodes (by default the 20-hop
    personalised-PageRank series of the row-normalised walk ``D^{-1} (A + 2 A^T + I)``,
    an operator; ``preset="paper"`` uses the paper's 1-hop in-degree kernel); AsK-LS is
    trained on the labelled nodes with ``K(train, train)`` and predicts the others from
    ``K(test, train)`` (source view) and ``K(train, test)`` (target view). Nothing is
    densified. On graphs of millions of edges the default switches to the cheaper
    ``preset="large"`` (see ``preset``); pass ``preset=None`` to keep the defaults.

    Parameters
    ----------
    kernel : str, default="ppr"
        Name of a graph kernel in :data:`digraph_askls.kernels.KERNELS`.
    gamma : float, default=0.01
        Regularisation coefficient of AsK-LS. Below ``1 / s_max(K)`` the system without
        its intercepts is positive definite and CG converges in a few iterations;
        measured on one 60/40 split, 0.01 beats 0.1 and 1 on Cora and CiteSeer (1 is
        singular-prone and takes thousands of iterations with the PageRank kernel).
    merge : {"joint", "stack", "joint_train", "stack_train", "average", "source", "target"}
        How the two views are merged (see :class:`AsKLSClassifier`). ``"joint"``: one
        multinomial logistic regression on the out-of-fold scores of both views and all
        classes; on graphs whose classes link in a pattern (class c to c + 1) it reads
        the pattern that per-class stacking (``"stack"``, the paper's) cannot. The
        ``*_train`` variants fit the same stackers on the training scores of the full
        model, with no fold solves. Default: "joint".
    solver : str, default="auto"
        Solver of the AsK-LS system (see :func:`digraph_askls.linalg.solve_system`).
    preset : {"auto", None, "paper", "large"}, default="auto"
        A named configuration (:data:`PRESETS`) that overrides ``kernel``,
        ``kernel_params``, ``gamma``, ``merge``, ``regularization`` and ``n_folds`` (and
        ``tol`` for ``"large"``): ``"paper"`` is the authors' protocol, ``"large"`` trades
        accuracy for about 100 times fewer sparse products (9 against about 960 on a
        10^5-node SBM). ``None``: the parameters as given. ``"auto"``: ``"large"`` on
        graphs with at least :data:`LARGE_GRAPH_EDGES` edges when all the parameters it
        overrides are at their defaults, else as ``None``; ``preset_`` tells which was
        taken.
    regularization : "auto", None or float, default="auto"
        Handling of singular systems (see :class:`AsKLSClassifier`).
    n_folds : int, default=5
        Folds of the stacking.
    kernel_params : dict, optional
        Parameters of the graph kernel. The walk kernels (``"ppr"``, ``"ppr_in"``,
        ``"ppr_out"``) hop in float32 unless ``dtype`` is given here: float32 rounding
        (about 1e-7 relative) is far below the solver's tolerance, and on one 60/40 split
        each of Cora, CiteSeer, Pubmed and a 10^5-node SBM the predictions were identical
        to float64 hops while the SBM fit took 9.0 s instead of 14.2 s.
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
    preset_ : str or None
        The preset in effect (``"auto"`` resolved on the fitted graph).

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

    _parameter_constraints: dict = {
        # Any registered graph kernel (the registry grows at run time): checked by name in
        # get_graph_kernel.
        "kernel": [str],
        "merge": [StrOptions(set(MERGES))],
        "preset": [StrOptions({"auto", *PRESETS}), None],
        "operator": [callable, None],
        **SHARED_CONSTRAINTS,
    }

    def __init__(self, kernel="ppr", gamma=0.01, merge="joint", solver="auto",
                 preset="auto", regularization="auto", n_folds=5, kernel_params=None,
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

    def _resolve_preset(self, n_edges=0):
        """The preset in effect on a graph of ``n_edges`` edges (``"auto"`` resolved)."""
        if self.preset is None or self.preset in PRESETS:
            return self.preset
        if self.preset != "auto":
            raise ValueError(f"unknown preset {self.preset!r}; choose from "
                             f"{['auto', *sorted(PRESETS)]} or None")
        defaults = NodeClassifier().get_params()
        untouched = all(_same(getattr(self, key), defaults[key]) for key in _PRESET_KEYS)
        return "large" if untouched and n_edges >= LARGE_GRAPH_EDGES else None

    def _config(self, preset):
        """The settings in effect under the resolved ``preset`` (see :meth:`_resolve_preset`)."""
        config = dict(kernel=self.kernel, kernel_params=self.kernel_params, gamma=self.gamma,
                      merge=self.merge, regularization=self.regularization,
                      n_folds=self.n_folds, tol=self.tol)
        if preset is not None:
            config.update(PRESETS[preset])
        if config["kernel"] in _WALK_KERNELS:
            config["kernel_params"] = {"dtype": "float32", **(config["kernel_params"] or {})}
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

        self._validate_params()
        adjacency, nodes = get_adjacency(graph, nodelist=nodelist, weight=weight)
        self.preset_ = self._resolve_preset(adjacency.nnz)
        config = self._config(self.preset_)
        codes, classes = get_labels(labels, nodes)
        train = np.flatnonzero(codes >= 0)
        if np.unique(codes[train]).size < 2:
            raise ValueError(f"at least 2 classes must have labelled nodes, got "
                             f"{np.unique(codes[train]).size}")
        self.nodes_ = list(nodes)
        self._node_index = NodeIndex(self.nodes_)
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
        return self._node_index.positions(nodes)

    def _views(self, nodes):
        check_is_fitted(self)
        index = self._indices(nodes)
        train = self.train_nodes_
        return KernelViews(restrict_kernel(self.kernel_, index, train),
                           restrict_kernel(self.kernel_, train, index))

    def predict(self, nodes=None):
        """Predicted class of ``nodes`` (all nodes, in node order, when None)."""
        views = self._views(nodes)
        codes = self.estimator_.predict(views)
        return self.classes_[np.searchsorted(self.estimator_.classes_, codes)]

    def predict_proba(self, nodes=None):
        """Class probabilities (stacking merges only), columns in ``classes_`` order."""
        views = self._views(nodes)
        return self.estimator_.predict_proba(views)

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
