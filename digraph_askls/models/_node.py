"""Transductive node classification on a directed graph with AsK-LS."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics import get_scorer
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._fitted import FittedAttributesMixin
from ..graph._index import NodeIndex
from ..kernels import GraphKernel
from ._checks import SHARED_CONSTRAINTS
from ._merge import MERGES
from ._new_nodes import grown_views
from ._node_fit import PRESETS, plan_fit, resolve_config
from ._node_model import (FittedModel, decision_values, explicit_weights, predict_codes,
                          predict_proba)
from ._persistence import lean_state
from .selection import SelectionPolicy, search
from .selection._multilabel import multilabel_scoring

__all__ = ["NodeClassifier", "PRESETS"]


class NodeClassifier(ClassifierMixin, FittedAttributesMixin, BaseEstimator):
    """Classify the nodes of a directed graph from a few labelled ones with AsK-LS.

    The graph (and the nodes' attributes) gives an asymmetric kernel on the nodes;
    AsK-LS is trained on the labelled nodes with ``K(train, train)`` and predicts the
    others from ``K(test, train)`` (source view) and ``K(train, test)`` (target view).
    By default the kernel, ``gamma`` and the merge of the two views are chosen for each
    graph on the labelled nodes (:mod:`digraph_askls.models.selection`): walks for
    graphs whose links join nodes of a class, link profiles where links are not votes,
    propagated attributes when there are features. Every candidate is judged on the
    same stratified folds; ``selection_["score_estimate"]`` estimates the fitted
    model's score, corrected for the choice. Nothing large is densified.

    Parameters
    ----------
    kernel : "auto", str, GraphKernel or list, default="auto"
        ``"auto"``: the library's candidates for the graph. A name of
        :data:`digraph_askls.kernels.KERNELS` (with ``kernel_params``), a recipe of
        :mod:`digraph_askls.kernels` (``WalkKernel()``, ``LinkProfileKernel() + 0.1 *
        AttributeKernel()``, ...), or a list to choose from.
    gamma : "auto", float or list of float, default="auto"
        Regularisation coefficient of AsK-LS. ``"auto"``: each kernel's own values
        (``GraphKernel.gammas``); a list: those values for every kernel.
    merge : {"auto", "joint", "blend", "stack", "joint_train", "stack_train", "average", \
"source", "target", "joint_loo", "blend_loo", "stack_loo"}
        How the two views are merged (see :class:`AsKLSClassifier`). ``"auto"``: the mean
        of the views (``"average"``, the paper's), the joint stacker of the out-of-fold
        scores (``"joint"``) and their ``"blend"`` are cross-validated at the winning
        kernel. The train-score and leave-one-out merges fit one kernel and one gamma.
    solver : str, default="auto"
        Solver of the AsK-LS system (see :func:`digraph_askls.linalg.solve_system`).
    preset : {"auto", None, "paper", "large"}, default="auto"
        A named configuration (:data:`PRESETS`) that sets ``kernel``, ``kernel_params``,
        ``gamma``, ``merge``, ``regularization``, ``n_folds`` (and ``tol``): ``"paper"``
        the authors' protocol, ``"large"`` a 3-hop walk kernel with no selection.
        ``None`` and ``"auto"``: the parameters as given.
    regularization : "auto", None or float, default="auto"
        Handling of singular systems (see :class:`AsKLSClassifier`).
    n_folds : int, default=20
        With ``cv=None``, at most this many stratified folds judge the candidates. For a
        configuration fitted as given (a preset, an ``operator``, a train-score or
        leave-one-out merge), the folds of its stacking.
    kernel_params : dict, optional
        Parameters of a kernel given by name.
    tol : float, default=1e-4
        Relative residual of the iterative solvers.
    max_iter : int, optional
    random_state : int, RandomState or None
        Seeds the folds and the estimate's bootstrap.
    operator : callable, optional
        Applied to the training kernel of one kernel and one gamma, e.g.
        ``functools.partial(DaskKernelOperator, client=client)``
        (:mod:`digraph_askls.distributed`).
    verbose : bool, default=False
        Progress bars for the long steps of the fit.
    preconditioner : {"auto", None, "jacobi", "ilu"}, default="auto"
        Preconditioner of the iterative solvers.
    policy : SelectionPolicy, optional
        The thresholds of the selection; None: the library's.
    cv : None, int, scikit-learn splitter or array-like of nodes, default=None
        How the candidates are judged. None: ``n_folds``; an int: at most that many
        folds (replacing ``n_folds``); a splitter (``StratifiedKFold(5)``, ...): its test
        sets, which must hold every labelled node once; nodes: validation nodes, as
        :meth:`fit`'s ``valid``.
    scoring : str or callable, default="accuracy"
        What ranks the candidates, chooses the merge, is estimated and :meth:`score`
        returns: a name of :func:`sklearn.metrics.get_scorer_names` or a callable
        ``scorer(estimator, X, y)``. Several labels per node: ``"f1_micro"`` (there the
        default), ``"f1_macro"``, ``"f1_samples"`` or ``"f1_weighted"``.
    class_weight : None, "balanced" or dict, default=None
        Weights of the classes' errors in AsK-LS's system (``I / gamma`` becomes
        ``diag(1 / (gamma w_i))``) and the stackers (``"balanced"``: ``n_labelled /
        (n_classes * count)``; a dict: per class, others 1), and the costs of errors:
        :meth:`predict` answers ``argmax_c w_c p_c``. Pair with
        ``scoring="balanced_accuracy"``.

    Attributes
    ----------
    nodes_ : list
        Node names, in node order.
    classes_ : ndarray
        Class labels (several labels per node: the labels).
    kernel_ : sparse matrix, LinearOperator or None
        The kernel on all nodes (None in a loaded model that kept every node's scores).
    train_nodes_ : ndarray of int
        Indices of the labelled nodes fitted.
    estimator_ : AsKLSClassifier
        The AsK-LS model fitted on them (labels in groups: one model per group).
    selection_ : dict
        What was chosen and how it was judged, the same keys for every target, scorer
        and split: ``kernel``, ``gamma``, ``merge``, ``engine`` (``"spectral"``,
        ``"walk"``, ``"solved"``, ``"validation"`` or ``"fixed"``), ``n_folds``,
        ``n_valid``, ``scoring``, ``score``, ``held_out_score``, ``score_estimate``
        (corrected for the choice by bootstrap bias-corrected cross-validation,
        Tsamardinos et al., Machine Learning 107, 2018), ``score_interval`` (90 %),
        ``score_reliable``, ``held_out_accuracy``, ``accuracy``, ``accuracy_interval``,
        ``accuracy_reliable`` (the score's under the accuracy, else None), ``optimism``,
        ``weights_screen`` (the edge weights' reading) and ``label_groups`` (groups of
        exclusive labels, each fitted as one label). A value that does not apply is None.
    cv_results_ : dict of lists
        One entry per configuration tried: ``kernel``, ``gamma``, ``engine``,
        ``mean_test_score``, ``cv_accuracy``, ``merge``, ``fit_time``, ``scored_on``,
        ``label_group`` and ``rank_test_score``. Empty when nothing was selected.
    preset_ : str or None
        The preset in effect.
    calibrator_ : object or None
        What calibrates :meth:`predict_proba` (None: fitted as given).
    thresholds_ : ndarray of shape (n_labels,) or None
        Several labels per node: each label's threshold (``-inf``: every label answered).

    Examples
    --------
    >>> import networkx as nx
    >>> from digraph_askls import NodeClassifier
    >>> graph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
    >>> labels = {0: "a", 1: "a", 3: "b", 4: "b"}
    >>> clf = NodeClassifier(kernel="ppr", gamma=0.01, merge="average").fit(graph, labels)
    >>> clf.predict([2, 5]).tolist()
    ['a', 'b']

    With node attributes, the kernel is chosen among the candidates:

    >>> nx.set_node_attributes(graph, {n: [1.0, 0.0] if n < 3 else [0.0, 1.0]
    ...                                for n in graph}, "x")
    >>> clf = NodeClassifier(merge="average").fit(graph, labels, features="x")
    >>> clf.predict([2, 5]).tolist(), type(clf.selection_["kernel"]).__name__
    (['a', 'b'], 'SmoothedAttributeKernel')
    """

    _parameter_constraints: dict = {
        # Names of the registry are checked by get_graph_kernel (it grows at run time).
        "kernel": [str, GraphKernel, list],
        "gamma": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither"), list],
        "merge": [StrOptions({"auto", *MERGES})],
        "preset": [StrOptions({"auto", *PRESETS}), None],
        "operator": [callable, None],
        "verbose": ["verbose"],
        "preconditioner": [StrOptions({"auto", "jacobi", "ilu"}), None],
        "policy": [SelectionPolicy, None],
        "cv": [None, Interval(Integral, 2, None, closed="left"), HasMethods(["split"]),
               "array-like"],
        "scoring": [str, callable],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        **{key: value for key, value in SHARED_CONSTRAINTS.items() if key != "gamma"},
    }

    def __init__(self, kernel="auto", gamma="auto", merge="auto", solver="auto",
                 preset="auto", regularization="auto", n_folds=20, kernel_params=None,
                 tol=1e-4, max_iter=None, random_state=None, operator=None, verbose=False,
                 preconditioner="auto", policy=None, cv=None, scoring="accuracy",
                 class_weight=None):
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
        self.verbose = verbose
        self.preconditioner = preconditioner
        self.policy = policy
        self.cv = cv
        self.scoring = scoring
        self.class_weight = class_weight

    def _resolve_preset(self):
        return resolve_config(self.get_params(deep=False))[0]

    def fit(self, graph, labels=None, *, features=None, valid=None, nodelist=None,
            weight="weight"):
        """Fit on the labelled nodes of ``graph``.

        A fit that fails leaves the estimator as it was.

        Parameters
        ----------
        graph : Graph, networkx.DiGraph, edge list, sparse matrix or ndarray
            Anything :func:`digraph_askls.graph.get_adjacency` takes (row = source),
            including the :class:`~digraph_askls.graph.Graph` that
            :func:`~digraph_askls.datasets.load_dataset` returns, whose labels and
            features are used unless ``labels`` and ``features`` are given.
        labels : array-like of shape (n_nodes,), dict or str, optional
            Class of each node, ``-1`` for unlabelled nodes; or a dict node -> class;
            or the name of a node attribute of a networkx graph. Optional for a
            ``Graph``. Several labels per node: a 0/1 array of shape (n_nodes, n_labels)
            whose unlabelled rows are all -1, a scipy sparse indicator, a dict node ->
            list or set of labels, or a ``Graph``'s ``label_matrix``; ``predict`` then
            returns a 0/1 indicator and ``predict_proba`` one probability per label.
        features : array-like, sparse matrix, pandas.DataFrame, str or False, optional
            Node attributes (see :func:`digraph_askls.graph.get_features`). None: a
            ``Graph``'s own, none for other graphs; ``False``: the structure alone. A
            ``UserWarning`` tells when the graph carries attributes the fit does not read.
        valid : list of node names, optional
            Labelled nodes that choose the configuration instead of folds, and are never
            fitted, as published protocols with a validation split do: every (kernel,
            gamma, merge) that the folds of the other labelled nodes rank is fitted on
            them and scored on these (``selection_["engine"] == "validation"``).
        nodelist, weight
            As in :func:`digraph_askls.graph.get_adjacency` (``weight=None``: every
            edge weighs 1).

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> from digraph_askls import NodeClassifier
        >>> from digraph_askls.graph import Graph, get_adjacency, get_labels
        >>> edges = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)]
        >>> adjacency, nodes = get_adjacency(edges)
        >>> labels, names = get_labels([0, 0, -1, 1, 1, -1], nodes)
        >>> graph = Graph(adjacency, labels, nodes, names, features=np.eye(6)[[0, 0, 0, 1, 1, 1]])
        >>> NodeClassifier(merge="average").fit(graph).predict().tolist()
        [0, 0, 0, 1, 1, 1]

        """
        self._validate_params()
        plan = plan_fit(self.get_params(deep=False), graph, labels, features, valid,
                        nodelist, weight)
        result = search(plan.space, plan.problem)
        several = result.thresholds is not None
        fitted = dict(
            nodes_=plan.nodes, preset_=plan.preset, kernel_=result.kernel,
            estimator_=result.estimator, selection_=result.selection,
            cv_results_=result.cv_results, calibrator_=result.calibrator,
            thresholds_=result.thresholds, train_nodes_=plan.problem.train,
            classes_=plan.classes if several else plan.classes[result.estimator.classes_],
            _node_scores=result.node_scores, _node_index=NodeIndex(plan.nodes),
            _costs=plan.costs, _fitted_features=plan.fitted_features,
            _weight=plan.weight, _multilabel=several, _label_groups=result.label_groups)
        vars(self).update(fitted)
        return self

    def _model(self):
        check_is_fitted(self)
        get = vars(self).get            # a model saved before a state existed lacks it
        costs = get("_costs")           # per class; the model's are per column
        return FittedModel(self.kernel_, self.estimator_, self.train_nodes_,
                           get("_node_scores"), get("calibrator_"),
                           None if costs is None else costs[self.estimator_.classes_],
                           get("thresholds_"), get("_label_groups"))

    def _where(self, nodes, graph, features):
        """The model, and the positions of ``nodes`` or the views of a grown graph's."""
        model = self._model()
        if graph is not None:
            return model, None, grown_views(self, nodes, graph, features, self._weight)
        return model, self._node_index.positions(nodes), None

    def predict(self, nodes=None, *, graph=None, features=None):
        """Predicted class of ``nodes`` (all nodes, in node order, when None).

        Parameters
        ----------
        nodes : list, optional
            Node names.
        graph : optional
            A grown graph, in any form ``fit`` takes, holding every training node of
            the fit: ``nodes`` (all of its nodes when None) are classified from their
            kernel rows against the training nodes, the selected recipe built on it,
            without refitting.
        features : optional
            With ``graph``: the node attributes of its nodes (needed when the fit had
            attributes; a node without has a row of zeros).

        Examples
        --------
        >>> import networkx as nx
        >>> from digraph_askls import NodeClassifier
        >>> graph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
        >>> clf = NodeClassifier(kernel="ppr", gamma=0.01, merge="average").fit(
        ...     graph, {0: "a", 1: "a", 3: "b", 4: "b"})
        >>> grown = graph.copy()
        >>> grown.add_edges_from([("new", 0), (1, "new"), ("other", 4)])
        >>> clf.predict(["new", "other"], graph=grown).tolist()
        ['a', 'b']
        """
        model, positions, views = self._where(nodes, graph, features)
        codes = predict_codes(model, positions, views)
        if model.several_labels:
            return codes
        return self.classes_[np.searchsorted(self.estimator_.classes_, codes)]

    def predict_proba(self, nodes=None, *, graph=None, features=None):
        """Class probabilities, columns in ``classes_`` order, calibrated.

        The merge's probabilities, blended with a calibrated map as far as the labelled
        nodes' held-out probabilities show a gain (``calibrator_``), and never certain
        from a handful of labels: with 4 labels of 2 classes none exceeds 5/6. ``graph``
        and ``features``: nodes of a grown graph, as in :meth:`predict`.

        Examples
        --------
        >>> import networkx as nx
        >>> graph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
        >>> clf = NodeClassifier().fit(graph, {0: "a", 1: "a", 3: "b", 4: "b"})
        >>> proba = clf.predict_proba([2, 5])
        >>> bool(proba.max() <= 5 / 6), proba.argmax(axis=1).tolist()
        (True, [0, 1])
        """
        return predict_proba(*self._where(nodes, graph, features))

    def decision_function(self, nodes=None, view=None, *, graph=None, features=None):
        """Decision values of ``nodes``.

        Parameters
        ----------
        nodes : list, optional
            Node names (all when None).
        view : {None, "source", "target", "both"}
            None: the merged decision; ``"source"`` / ``"target"``: one view's raw
            one-vs-rest scores; ``"both"``: a dict with both.
        graph, features : optional
            Nodes of a grown graph, as in :meth:`predict`.
        """
        if view not in (None, "source", "target", "both"):
            raise ValueError(f"view must be None, 'source', 'target' or 'both', got {view!r}")
        return decision_values(*self._where(nodes, graph, features), view=view)

    def score(self, nodes, labels, sample_weight=None):
        """The ``scoring`` of the predictions of ``nodes`` against their ``labels`` (for
        several labels per node a 0/1 indicator, scored by its F1).

        Examples
        --------
        >>> import networkx as nx
        >>> graph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
        >>> clf = NodeClassifier(kernel="ppr", gamma=0.01, merge="average")
        >>> clf.fit(graph, {0: "a", 1: "a", 3: "b", 4: "b"}).score([2, 5], ["a", "b"])
        1.0
        """
        check_is_fitted(self)
        scoring = multilabel_scoring(self.scoring) if self._multilabel else self.scoring
        scorer = get_scorer(scoring) if isinstance(scoring, str) else scoring
        kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
        return float(scorer(self, list(nodes), np.asarray(labels), **kwargs))

    def primal_weights(self):
        """Per-feature weights of both views, for kernels with explicit feature maps.

        With ``K = U V^T`` (source maps ``U``, target maps ``V``), the source view is
        ``f_s(x) = u(x) . w_s + b1`` with ``w_s = V^T b~`` and the target view is
        ``f_t(x) = v(x) . w_t + b2`` with ``w_t = U^T a~`` (the paper's section 3).

        Returns
        -------
        dict
            ``"source"`` and ``"target"``: arrays of shape (n_columns, n_features), one
            row per one-vs-rest problem (one row, for ``classes_[1]``, with two
            classes); ``"feature_names"``: the names of the features, or None.

        Raises
        ------
        ValueError
            If the kernel in use has no explicit feature maps (a walk kernel).
        """
        check_is_fitted(self)
        return explicit_weights(self.kernel_, self.train_nodes_, self.estimator_)

    def __getstate__(self):
        """The lean state that pickle saves (every node's scores, or the kernel)."""
        return lean_state(super().__getstate__())

    def __setstate__(self, state):
        """Restore a saved model; older ones take the defaults of newer parameters."""
        super().__setstate__({"preconditioner": "auto", "policy": None, "cv": None,
                              "scoring": "accuracy", "class_weight": None, **state})
