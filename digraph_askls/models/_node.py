"""Transductive node classification on a directed graph with AsK-LS."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._fitted import FittedAttributesMixin
from ..graph._index import NodeIndex
from ..kernels import GraphKernel, restrict_kernel
from ._checks import SHARED_CONSTRAINTS
from ._calibration import log_proba
from ._merge import MERGES
from ._new_nodes import fitted_features, grown_views
from ._persistence import lean_state
from ._views import KernelViews
from ._targets import label_indicator, multilabel_labels
from .selection import (DEFAULT_POLICY, FitSettings, SelectionPolicy, as_recipes,
                        check_scoring, choose_on_validation, default_kernels, merges_for,
                        multilabel_kernels, node_keys, select_kernel,
                        validation_candidates)
from .selection._multilabel import MULTILABEL_MERGES, multilabel_scoring, select_multilabel
from .selection._scoring import decide
from .selection._weights import screen_weights

__all__ = ["NodeClassifier", "PRESETS"]

#: Named configurations. ``"paper"``: the protocol of the paper's authors (in-degree
#: normalised 1-hop kernel, gamma = 1, the lambda = 1 fallback for the singular system,
#: 10-fold stacking with an unpenalised logistic regression per class).
#: ``"large"``: fewer products than the defaults, for a little accuracy: a 3-hop
#: PageRank series of the undirected walk hopping in float32, gamma = 0.01, a solver
#: tolerance of 0.01 and joint stacking on the training scores of the full model (no
#: fold solves: at the solution they are ``y - a~/g`` and ``y - b~/g``; they hold only
#: for a converged solve, which the tolerance ensures). See ``docs/results/speed.md``.
PRESETS = {
    "paper": dict(kernel="in_degree", kernel_params=None, gamma=1.0, merge="stack",
                  regularization="auto", n_folds=10),
    "large": dict(kernel="ppr", kernel_params=dict(alpha=0.85, beta=1.0, n_hops=3,
                                                   dtype="float32"), gamma=0.01,
                  merge="joint_train", regularization="auto", n_folds=5, tol=0.01),
}


def _is_auto(value):
    """Whether a parameter is the string ``"auto"`` (not an object equal to it)."""
    return type(value) is str and value == "auto"


class NodeClassifier(FittedAttributesMixin, BaseEstimator):
    """Classify the nodes of a directed graph from a few labelled ones with AsK-LS.

    The graph (and, when given, the nodes' attributes) gives an asymmetric kernel on
    the nodes; AsK-LS is trained on the labelled nodes with ``K(train, train)`` and
    predicts the others from ``K(test, train)`` (source view) and ``K(train, test)``
    (target view). By default the kernel *family*, its parameters, ``gamma`` and the
    merge of the two views are chosen for each graph by cross-validation on the
    labelled nodes (:mod:`~digraph_askls.models.selection`): a walk kernel for graphs
    whose links join nodes of a class (citations), a link-profile kernel for graphs
    whose links are not votes (web pages, Wikipedia), and the attributes propagated over
    the graph when there are features (see ``kernel``); with few labelled nodes per
    class, candidates with fewer weights to learn join them. Every candidate is judged
    on the same stratified folds, from one SVD of its training kernel or, for a walk
    kernel, from one solve of all folds whose products also score every node
    (:mod:`~digraph_askls.models.selection._engines`); ``selection_["accuracy"]`` estimates the
    accuracy of the fitted model, corrected for the choice. Nothing large is densified.

    Parameters
    ----------
    kernel : "auto", str, GraphKernel or list, default="auto"
        ``"auto"``: choose among :func:`~digraph_askls.models.default_kernels` (the
        walk, link-profile and, with features, attribute kernels). A name of
        :data:`digraph_askls.kernels.KERNELS` (with ``kernel_params``), a recipe of
        :mod:`digraph_askls.kernels` (``WalkKernel()``, ``LinkProfileKernel()``,
        ``AttributeKernel()``, ``RoleKernel()``, their weighted sums such as
        ``LinkProfileKernel() + 0.1 * AttributeKernel()``), or a list of these to choose
        from.
    gamma : "auto", float or list of float, default="auto"
        Regularisation coefficient of AsK-LS. ``"auto"``: each kernel's own values
        (``GraphKernel.gammas``, set for the kernel's scale); a list: those values for
        every kernel. With one kernel and one gamma nothing is selected.
    merge : {"auto", "joint", "blend", "stack", "joint_train", "stack_train", "average", \
"source", "target", "joint_loo", "blend_loo", "stack_loo"}
        How the two views are merged (see :class:`AsKLSClassifier`). ``"average"``: the
        mean of the views (the paper's merge), through a softmax whose temperature is
        fitted on held-out scores for probabilities. ``"joint"``: one multinomial
        logistic regression on the out-of-fold scores of both views and all classes,
        which also reads patterns across classes (class c linking to class c + 1).
        ``"blend"``: half that, half the calibrated mean view. ``"auto"``: the three are
        cross-validated at the winning kernel (the two stackers alone when the median
        class has more than 50 labelled nodes), and the one of the best held-out
        accuracy is fitted.
        ``selection_["merge"]`` tells which. The train-score and leave-one-out merges
        are fitted by :class:`AsKLSClassifier` itself, for one kernel and one gamma,
        without an estimate. Default: "auto".
    solver : str, default="auto"
        Solver of the AsK-LS system (see :func:`digraph_askls.linalg.solve_system`).
    preset : {"auto", None, "paper", "large"}, default="auto"
        A named configuration (:data:`PRESETS`) that overrides ``kernel``,
        ``kernel_params``, ``gamma``, ``merge``, ``regularization`` and ``n_folds`` (and
        ``tol`` for ``"large"``): ``"paper"`` is the authors' protocol, ``"large"`` a
        3-hop walk kernel with no selection and no fold solves. ``None`` and ``"auto"``:
        the parameters as given, at every size (the defaults cost less than a PageRank
        vote on graphs of up to 10^8 edges, ``docs/results/speed.md``); ``preset_``
        tells which preset was in effect.
    regularization : "auto", None or float, default="auto"
        Handling of singular systems (see :class:`AsKLSClassifier`).
    n_folds : int, default=20
        At most this many folds judge the candidates: the labelled nodes of each class are
        dealt into as many folds as the median class has labelled nodes, at most
        ``n_folds`` (see :func:`~digraph_askls.models._folds.make_folds`); a
        walk kernel's folds are joined into fewer where its steps would cost more than
        the policy's ``walk_step_budget``, and into two where the median class has more
        than ``few_labels_per_class`` (50) labelled nodes.
        A configuration fitted as given (a preset, an ``operator``, a train-score or
        leave-one-out merge) has no selection folds: there ``n_folds`` is the
        :class:`AsKLSClassifier`'s, the folds of its stacking.
    kernel_params : dict, optional
        Parameters of a kernel given by name. The walk kernels (``"ppr"``, ``"ppr_in"``,
        ``"ppr_out"``) hop in float32 unless ``dtype`` is given here: the rounding is far
        below the solver's tolerance.
    tol : float, default=1e-4
        Relative residual of the iterative solvers.
    max_iter : int, optional
    random_state : int, RandomState or None
        Seeds the stacking folds.
    operator : callable, optional
        Applied to the kernel restricted to the labelled nodes before training when one
        kernel and one gamma are given, e.g. ``functools.partial(DaskKernelOperator,
        client=client)`` to hold it on a dask cluster (:mod:`digraph_askls.distributed`;
        it needs a sparse kernel such as ``kernel="in_degree"`` and ``merge="average"``).
    verbose : bool, default=False
        Show the long steps of the fit (a walk kernel's steps on large graphs) in
        progress bars.
    preconditioner : {"auto", None, "jacobi", "ilu"}, default="auto"
        Preconditioner of the iterative solvers (see
        :func:`digraph_askls.linalg.solve_system`).
    policy : SelectionPolicy, optional
        The thresholds of the selection (labels per class that count as few, the size
        of a large graph, the most labelled nodes decomposed ...); None: the library's
        (:class:`~digraph_askls.models.selection.SelectionPolicy`).
    cv : None, int, scikit-learn splitter or array-like of nodes, default=None
        The folds that judge the candidates. None: ``n_folds``. An int: at most that
        many folds, dealt as ``n_folds`` describes (it replaces ``n_folds``). A splitter
        (``StratifiedKFold(5, shuffle=True, random_state=0)``, ``KFold``, ...): its test
        sets, which must hold every labelled node once, are the folds (over the labelled
        nodes in node order). Nodes (names, as in the graph): a validation split,
        judged as :meth:`fit`'s ``valid`` (the convenient spelling of the same).
    scoring : str or callable, default="accuracy"
        What ranks the candidates, chooses the merge and is estimated: a name of
        :func:`sklearn.metrics.get_scorer_names` (``"accuracy"``,
        ``"balanced_accuracy"``, ``"f1_macro"``, ``"neg_log_loss"``, ...) or a callable
        ``scorer(estimator, X, y)`` (:func:`sklearn.metrics.make_scorer`). It reads the
        held-out predictions of the labelled nodes: ``X`` holds their positions, ``y``
        their class codes, and the estimator's ``predict_proba`` the held-out
        probabilities (those of the merges, clipped and normalised stand-ins while
        candidates are ranked; :mod:`~digraph_askls.models.selection._scoring`). An
        unknown name raises ``ValueError`` listing the valid ones. Under another scorer
        than accuracy, ``selection_`` reports ``score_estimate``, ``score_interval``,
        ``score_reliable`` and ``held_out_score`` (the accuracy keys are None but
        ``held_out_accuracy``), and ``cv_results_["mean_test_score"]`` is its score
        (``cv_accuracy`` the accuracy beside it). The vote's rule against a walk kernel
        (one standard error) still compares them node by node, right or wrong.
    class_weight : None, "balanced" or dict, default=None
        Weights of the classes' errors in AsK-LS's system (the weighted least-squares
        SVM: ``I / gamma`` becomes ``diag(1 / (gamma w_i))``, ``w_i`` the weight of node
        ``i``'s class), and the sample weights of the stacking merges. ``"balanced"``:
        ``n_labelled / (n_classes * count)``, from the labelled nodes' class counts; a
        dict maps classes (as in ``labels``) to positive weights, the classes it leaves
        out weighing 1 (a class without labelled nodes is an error). The weights are
        computed once on every labelled node and every fold and candidate of the
        selection keeps them. A class's weight is also the cost of an error on one of
        its nodes: :meth:`predict` answers the class of least expected cost,
        ``argmax_c w_c p_c`` over the merge's probabilities ``p`` (with ``"balanced"``
        weights, the rule that maximises the balanced accuracy), and the selection
        judges those decisions. Where a class has fewer than 3 labelled nodes, the
        stacking merges are not compared: a stacker cannot learn that class. For
        imbalanced classes pair it with a score that weighs the classes alike
        (``scoring="balanced_accuracy"`` or ``"f1_macro"``): the selection then chooses
        by it. It is set by the user, not selected.

    Attributes
    ----------
    nodes_ : list
        Node order (names of the nodes as in the input graph).
    classes_ : ndarray
        Class labels.
    kernel_ : sparse matrix, LinearOperator or None
        The graph kernel in use, on all nodes. None in a model loaded from a file
        when the fit kept every node's scores (they alone predict the fitted nodes;
        see :meth:`__getstate__`).
    train_nodes_ : ndarray of int
        Indices of the labelled nodes.
    estimator_ : AsKLSClassifier
        The fitted AsK-LS model on the labelled nodes.
    selection_ : dict
        What was chosen: ``kernel`` (the recipe), ``gamma``, ``merge`` (of the fitted
        model), ``accuracy`` (the estimate of the accuracy on the other nodes, corrected
        for choosing the best of the candidates and merges on the same held-out nodes by
        bootstrap bias-corrected cross-validation, BBC-CV: Tsamardinos, Greasidou and
        Borboudakis, Machine Learning 107, 2018; reproducible for a fixed
        ``random_state``), ``accuracy_interval`` (its 90 % interval, a pair),
        ``accuracy_reliable`` (False where that interval is wider than
        ``policy.estimate_interval_max``: too few labelled nodes for one estimate to say
        much), ``held_out_accuracy`` (the raw held-out accuracy of the fitted model: each
        labelled node predicted by a merge and a model that did not learn it; it flatters
        the choice with few labelled nodes), ``optimism`` (how much choosing the best of
        the candidates and merges may flatter the raw figure, measured fold by fold as
        Tibshirani and Tibshirani (2009) propose; not subtracted),
        ``score`` (the ranking criterion of the winner),
        ``engine`` (``"spectral"``: folds from one decomposition, an SVD or, for a
        symmetric block, a tridiagonal reduction or one Cholesky factorisation at the
        winner's gamma; ``"walk"``: all folds in one
        solve of a walk kernel; ``"solved"``: a solve per fold; ``"fixed"``: one
        configuration fitted as given, the estimates None; ``"validation"``: chosen on the
        ``valid`` nodes of :meth:`fit`, ``n_valid`` of them) and ``n_folds``. On a graph
        whose edges do not all weigh the same, under ``kernel="auto"``:
        ``weights_screen``, the held-out accuracy of the walk kernel's votes under each
        reading of the edge weights (``"raw"``, ``"log1p"``, ``"binary"``), the best of
        which every candidate reads (its ``weights``, shown in the kernel's repr unless
        ``"raw"``; :mod:`~digraph_askls.models.selection._weights`,
        ``docs/guide/weighted.md``).
    cv_results_ : dict of lists
        One entry per (kernel, gamma) tried: ``kernel``, ``gamma``, ``engine``,
        ``mean_test_score`` (the ranking criterion), ``cv_accuracy`` (the held-out
        accuracy behind it), ``merge`` (the merge it stands for), ``rank_test_score``,
        ``fit_time`` (seconds, the kernel's build and decomposition shared among its
        gammas) and ``scored_on`` (how many labelled nodes the score was measured on:
        a sample where there are many, every labelled node for the candidates that
        raced on all of them, see :class:`~digraph_askls.models.selection.SelectionPolicy`).
        Empty lists when nothing was selected. With ``valid`` nodes: one entry per
        (kernel, gamma, merge), scored by its accuracy on them.
    preset_ : str or None
        The preset in effect (``"auto"`` resolved).
    calibrator_ : TemperatureCalibrator or None
        What calibrates :meth:`predict_proba`, fitted on the labelled nodes' out-of-fold
        probabilities; None for a configuration fitted as given. With several labels
        per node: a logistic curve per label for the mean view, None for the stacker.
    thresholds_ : ndarray of shape (n_labels,)
        With several labels per node: a label is predicted where its decision value
        exceeds its threshold, chosen by the folds for the label's best F1.

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
        """The preset in effect (``"auto"`` resolved)."""
        if self.preset is None or self.preset in PRESETS:
            return self.preset
        if self.preset != "auto":
            raise ValueError(f"unknown preset {self.preset!r}; choose from "
                             f"{['auto', *sorted(PRESETS)]} or None")
        return None

    def _config(self, preset):
        """The settings in effect under the resolved ``preset`` (see :meth:`_resolve_preset`)."""
        config = dict(kernel=self.kernel, kernel_params=self.kernel_params, gamma=self.gamma,
                      merge=self.merge, regularization=self.regularization,
                      n_folds=self.n_folds, tol=self.tol)
        if preset is not None:
            config.update(PRESETS[preset])
        return config

    def fit(self, graph, labels=None, *, features=None, valid=None, nodelist=None,
            weight="weight"):
        """Fit on the labelled nodes of ``graph``.

        Parameters
        ----------
        graph : Graph, networkx.DiGraph, edge list, sparse matrix or ndarray
            Anything :func:`digraph_askls.graph.get_adjacency` takes (row = source),
            including the :class:`~digraph_askls.graph.Graph` that
            :func:`~digraph_askls.datasets.load_dataset` returns, whose labels and
            features are used unless ``labels`` and ``features`` are given.
        labels : array-like of shape (n_nodes,), dict or str, optional
            Class of each node, ``-1`` for unlabelled nodes; or a dict node -> class
            (nodes missing from the dict are unlabelled); or the name of a node
            attribute of a networkx graph holding each node's class (nodes without it
            are unlabelled). Optional for a ``Graph``: its ``labels`` (class codes, so
            that predictions are codes too; ``graph.class_names[code]`` names them).
            Several labels per node: a 0/1 array of shape (n_nodes, n_labels) whose
            unlabelled rows are all -1, a scipy sparse indicator, a dict node -> list or
            set of labels, or (``labels`` None) a ``Graph``'s ``label_matrix``; the
            selection then scores by micro-F1 (``scoring``: ``"f1_micro"``,
            ``"f1_macro"``, ``"f1_samples"`` or ``"f1_weighted"``), ``predict`` returns a
            0/1 indicator and ``predict_proba`` one probability per label
            (:mod:`~digraph_askls.models.selection._multilabel`, ``docs/guide/targets.md``).
        features : array-like, sparse matrix, pandas.DataFrame, str or False, optional
            Node attributes: an array of shape (n_nodes, n_features) in node order, a
            DataFrame indexed by node name, or the name of a networkx node attribute
            holding a vector (see :func:`digraph_askls.graph.get_features`). None (the
            default): a ``Graph``'s own features, none for other graphs. ``False``:
            none, the structure alone. A ``UserWarning`` tells when the graph carries
            attributes that the fit does not read (numeric node attributes not named
            here, or features that the chosen kernel ignores); ``features=False``
            silences it.
        valid : list of node names, optional
            Labelled nodes that choose the configuration instead of folds of the others,
            and are never fitted, as published protocols with a validation split (the
            Planetoid split, the fixed splits of the heterophilous graphs) choose the
            settings of a network: every (kernel, gamma) that the folds of the other
            labelled nodes rank, with every merge compared, is fitted on those nodes and
            scored on these; the best wins (:mod:`~digraph_askls.models.selection.
            _validation`, ``selection_["engine"] == "validation"``). Their labels come
            from ``labels``, as the others'. It costs a fit per configuration (tens).
            None (the default): every labelled node is fitted and the folds choose.
        nodelist, weight
            As in :func:`digraph_askls.graph.get_adjacency`: ``weight`` names the edge
            attribute of a networkx graph that holds the weights, and ``weight=None``
            reads every edge of any form with weight 1.

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> import networkx as nx
        >>> from digraph_askls import NodeClassifier
        >>> from digraph_askls.graph import Graph, get_adjacency, get_labels
        >>> edges = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)]
        >>> adjacency, nodes = get_adjacency(edges)
        >>> labels, names = get_labels([0, 0, -1, 1, 1, -1], nodes)
        >>> graph = Graph(adjacency, labels, nodes, names, features=np.eye(6)[[0, 0, 0, 1, 1, 1]])
        >>> NodeClassifier(merge="average").fit(graph).predict().tolist()
        [0, 0, 0, 1, 1, 1]

        Labels held as a node attribute, the structure alone:

        >>> digraph = nx.DiGraph(edges)
        >>> nx.set_node_attributes(digraph, {0: "a", 1: "a", 3: "b", 4: "b"}, "club")
        >>> clf = NodeClassifier(kernel="ppr", gamma=0.01, merge="average")
        >>> clf.fit(digraph, "club", features=False).predict([2, 5]).tolist()
        ['a', 'b']
        """
        from ._fit_inputs import read_fit_inputs

        self._validate_params()
        target = multilabel_labels(graph, labels)
        if target is not None:
            return self._fit_multilabel(graph, target, features, valid, nodelist, weight)
        self._multilabel = False
        scoring = check_scoring(self.scoring)
        max_folds, splitter, valid = self._folds_of_cv(valid)
        inputs = read_fit_inputs(graph, labels, features, nodelist, weight)
        adjacency, nodes, features = inputs.adjacency, inputs.nodes, inputs.features
        self.preset_ = self._resolve_preset()
        config = self._config(self.preset_)
        codes, classes = inputs.codes, inputs.classes
        train = np.flatnonzero(codes >= 0)
        node_index = NodeIndex(nodes)
        held = None
        if valid is not None:
            held = self._held_out(valid, node_index, codes)
            train = np.setdiff1d(train, held)
        if np.unique(codes[train]).size < 2:
            raise ValueError(f"at least 2 classes must have labelled nodes, got "
                             f"{np.unique(codes[train]).size}")
        self.nodes_ = node_index.nodes
        self._node_index = node_index
        self._fitted_features, self._weight = fitted_features(inputs.given, features), weight
        self.train_nodes_ = train
        policy = DEFAULT_POLICY if self.policy is None else self.policy
        recipes = self._recipes(config, inputs, codes[train], policy, graph, labels)
        screen = None
        if _is_auto(config["kernel"]):          # the edge weights chosen for the graph
            recipes, screen = screen_weights(recipes, adjacency, train, codes[train],
                                             self.random_state, policy)
        gammas = None if _is_auto(config["gamma"]) else config["gamma"]
        class_weights = self._class_weights(classes, codes[train])
        settings = FitSettings(solver=self.solver, preconditioner=self.preconditioner,
                               regularization=config["regularization"], tol=config["tol"],
                               max_iter=self.max_iter, random_state=self.random_state,
                               verbose=self.verbose, class_weights=class_weights)
        # With class weights a prediction is the class of least expected cost (a class's
        # weight: the cost of an error on one of its nodes), and the selection judges
        # those decisions.
        self._costs = None
        if class_weights is not None:
            self._costs = np.ones(len(classes))
            for code, value in class_weights:
                self._costs[code] = value
            # the selection's class codes are those of the labelled classes
            scoring = scoring.with_costs(self._costs[np.unique(codes[train])])
        selected = select_kernel(recipes, adjacency, features, codes[train], train, gammas,
                                 merge=config["merge"],
                                 max_folds=config["n_folds"] if max_folds is None else max_folds,
                                 settings=settings, policy=policy, operator=self.operator,
                                 keys=node_keys(adjacency, features)[train],
                                 as_given=self.preset_ is not None, splitter=splitter,
                                 scoring=scoring)
        self._keep(selected, classes)
        if held is not None:
            self._choose_on_validation(adjacency, features, codes, classes, held, selected,
                                       config["merge"], policy, scoring)
        if screen is not None:
            self.selection_["weights_screen"] = screen
        return self

    def _fit_multilabel(self, graph, target, features, valid, nodelist, weight):
        """``fit`` with several labels per node (see :mod:`~digraph_askls.models.
        selection._multilabel`)."""
        from ._fit_inputs import read_fit_inputs

        if self.class_weight is not None:
            raise ValueError(f"class_weight is not defined for a multi-label target (a "
                             f"node's labels are not one class); got class_weight="
                             f"{self.class_weight!r}: pass class_weight=None")
        if valid is not None or not (self.cv is None or isinstance(self.cv, Integral)):
            raise ValueError("a multi-label target is judged by folds of its labelled nodes: "
                             "pass valid=None and cv=None or a number of folds")
        scoring = multilabel_scoring(self.scoring)
        inputs = read_fit_inputs(graph, {}, features, nodelist, weight)
        Y, classes = label_indicator(target, inputs.nodes)
        train = np.flatnonzero(Y[:, 0] >= 0)
        if train.size < 2:
            raise ValueError(f"at least 2 nodes must be labelled, got {train.size}")
        self.preset_ = self._resolve_preset()
        config = self._config(self.preset_)
        if config["merge"] != "auto" and config["merge"] not in MULTILABEL_MERGES:
            raise ValueError(f"merge={config['merge']!r} is not defined for a multi-label "
                             f"target; choose from {['auto', *MULTILABEL_MERGES]}")
        policy = DEFAULT_POLICY if self.policy is None else self.policy
        per_label = float(np.median(Y[train].sum(axis=0)))
        recipes = (multilabel_kernels(train.size, inputs.features is not None,
                                      n_nodes=len(inputs.nodes), labels_per_class=per_label,
                                      policy=policy)
                   if _is_auto(config["kernel"]) else
                   as_recipes(config["kernel"], config["kernel_params"]))
        settings = FitSettings(solver=self.solver, preconditioner=self.preconditioner,
                               regularization=config["regularization"], tol=config["tol"],
                               max_iter=self.max_iter, random_state=self.random_state)
        max_folds = config["n_folds"] if self.cv is None else int(self.cv)
        (self.kernel_, self.estimator_, self.selection_, self.cv_results_,
         self.calibrator_, self.thresholds_) = select_multilabel(
            recipes, inputs.adjacency, inputs.features, Y[train], train,
            None if _is_auto(config["gamma"]) else config["gamma"], merge=config["merge"],
            max_folds=max_folds, settings=settings, policy=policy, scoring=scoring)
        self.nodes_ = inputs.nodes
        self._node_index = NodeIndex(inputs.nodes)
        self._fitted_features = fitted_features(inputs.given, inputs.features)
        self._weight, self.train_nodes_, self._node_scores = weight, train, None
        self.classes_, self._multilabel = np.asarray(classes), True
        return self

    def _class_weights(self, classes, train_codes):
        """``class_weight`` as (code, weight) pairs of the labelled classes, or None."""
        if self.class_weight is None:
            return None
        from ._targets import class_weights

        present = np.unique(train_codes)
        names = np.asarray(classes)[present]
        weights = class_weights(self.class_weight, names, np.asarray(classes)[train_codes])
        return tuple((int(code), float(weight)) for code, weight in zip(present, weights))

    def _folds_of_cv(self, valid):
        """``cv`` read: the most folds (None: ``n_folds``), a splitter (or None) and the
        validation nodes (``valid``, or the nodes ``cv`` holds)."""
        cv = self.cv
        if cv is None:
            return None, None, valid
        if isinstance(cv, Integral):
            return int(cv), None, valid
        if hasattr(cv, "split"):
            return None, cv, valid
        if valid is not None:
            raise ValueError("cv= holds validation nodes and fit(valid=...) names others; "
                             "pass the validation nodes once")
        return None, None, cv

    def _recipes(self, config, inputs, train_codes, policy, graph, labels):
        """The kernel recipes to choose among (the defaults for the graph under
        ``kernel="auto"``), warning where the features given are not read."""
        from ._fit_inputs import warn_unread_features

        if _is_auto(config["kernel"]):
            if config["kernel_params"] is not None:
                raise ValueError("kernel_params set the parameters of a kernel given by name; "
                                 "with kernel='auto' pass kernel='ppr' (or another name), or "
                                 "kernel recipes such as WalkKernel(alpha=0.8)")
            recipes = default_kernels(train_codes.size, inputs.features is not None,
                                      n_nodes=len(inputs.nodes),
                                      labels_per_class=float(np.median(
                                          np.bincount(train_codes)[np.unique(train_codes)])),
                                      policy=policy)
        else:
            recipes = as_recipes(config["kernel"], config["kernel_params"])
        warn_unread_features(inputs, recipes, graph, labels, stacklevel=4)   # fit's caller
        return recipes

    def _keep(self, selected, classes):
        """Keep what the selection ``selected`` chose and fitted."""
        self.kernel_, self.estimator_ = selected.kernel, selected.estimator
        self.selection_, self.cv_results_ = selected.selection, selected.cv_results
        self._node_scores = selected.node_scores
        self.calibrator_ = selected.calibrator
        self.classes_ = np.asarray(classes)[self.estimator_.classes_]

    def _held_out(self, valid, node_index, codes):
        """Positions of the validation nodes ``valid`` in ``node_index``, each labelled."""
        if self.preset_ is not None or self.operator is not None:
            raise ValueError(f"valid= chooses among configurations, but preset="
                             f"{self.preset_!r} and operator={self.operator!r} fit one as "
                             f"given; pass preset=None and no operator")
        held = np.unique(node_index.positions(valid))
        unlabelled = held[codes[held] < 0]
        if unlabelled.size:
            names = [node_index.nodes[position] for position in unlabelled[:5]]
            raise ValueError(f"valid= names nodes whose labels judge the choice, so each "
                             f"needs a label; got {unlabelled.size} unlabelled, e.g. "
                             f"{names}")
        if held.size == np.count_nonzero(codes >= 0):
            raise ValueError(f"valid= holds every one of the {held.size} labelled nodes; "
                             f"leave some to fit")
        return held

    def _choose_on_validation(self, adjacency, features, codes, classes, held, selected,
                              merge, policy, scoring):
        """Judge the candidates the folds ranked on the validation nodes ``held``, each
        fitted on ``self.train_nodes_`` alone, and keep the best (see ``fit``)."""
        import warnings

        from sklearn.base import clone

        train = self.train_nodes_
        known = np.full(codes.size, -1)
        known[train] = codes[train]
        n_classes = len(classes)

        def fit_one(recipe, gamma, merge_name):
            # The recipe holds the kernel's parameters (a kernel given by name included);
            # the validation nodes are held out here, not named again.
            model = clone(self).set_params(kernel=recipe, kernel_params=None, gamma=gamma,
                                           merge=merge_name, verbose=False,
                                           cv=self.cv if hasattr(self.cv, "split")
                                           or isinstance(self.cv, Integral) else None)
            with warnings.catch_warnings():
                # The ordinary selection has said so already, for the same candidates.
                warnings.filterwarnings("ignore", message=".* not read by the kernel",
                                        category=UserWarning)
                model.fit(adjacency, known,
                          features=features if features is not None else False)
            if scoring.is_accuracy:
                return model, model.predict(held)
            proba = np.zeros((held.size, n_classes))
            proba[:, np.asarray(model.classes_, dtype=np.int64)] = model.predict_proba(held)
            return model, proba

        candidates = validation_candidates(selected.cv_results, selected.selection,
                                           merges_for(merge, codes[train], policy, scoring))
        model, self.selection_, self.cv_results_ = choose_on_validation(
            candidates, fit_one, codes[held], random_state=self.random_state,
            interval_max=policy.estimate_interval_max, verbose=self.verbose,
            scoring=scoring)
        self.kernel_, self.estimator_ = model.kernel_, model.estimator_
        self._node_scores = model._node_scores
        self.calibrator_ = model.calibrator_
        self.classes_ = np.asarray(classes)[np.asarray(model.classes_, dtype=np.int64)]

    def _indices(self, nodes):
        return self._node_index.positions(nodes)

    def _views(self, nodes, graph=None, features=None):
        check_is_fitted(self)
        if graph is not None:
            return grown_views(self, nodes, graph, features, self._weight)
        index = self._indices(nodes)
        train = self.train_nodes_
        return KernelViews(restrict_kernel(self.kernel_, index, train),
                           restrict_kernel(self.kernel_, train, index))

    def _positions_with_scores(self, nodes, graph=None):
        """Positions of ``nodes`` when the fit kept every node's scores (and no grown
        graph is given), else None."""
        check_is_fitted(self)
        if getattr(self, "_node_scores", None) is None or graph is not None:
            return None
        return self._indices(nodes)

    def predict(self, nodes=None, *, graph=None, features=None):
        """Predicted class of ``nodes`` (all nodes, in node order, when None).

        Parameters
        ----------
        nodes : list, optional
            Node names.
        graph : optional
            A grown graph, in any form ``fit`` takes, holding every training node of
            the fit: ``nodes`` (new ones, or any of its nodes; all of its nodes when
            None) are classified from their kernel rows against the training nodes in
            it, without refitting (:mod:`~digraph_askls.models._new_nodes`). The kernel
            is the recipe the fit selected (``selection_["kernel"]``) built on the
            grown graph.
        features : optional
            With ``graph``: the node attributes of every node of the grown graph, as
            ``fit`` takes them (needed when the fit had attributes; an attribute name
            given to ``fit`` is read again by default, and a grown
            :class:`~digraph_askls.graph.Graph` brings its own). A node with no
            attributes has a row of zeros.

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
        if getattr(self, "_multilabel", False):
            decision = self.estimator_.decision_function(self._views(nodes, graph, features))
            return (decision > self.thresholds_).astype(int)
        index = self._positions_with_scores(nodes, graph)
        costs = getattr(self, "_costs", None)
        if costs is not None:
            # the class of least expected cost under the merge's probabilities
            proba = (self.estimator_.proba_from_view_scores(self._node_scores.features(index))
                     if index is not None else
                     self.estimator_.predict_proba(self._views(nodes, graph, features)))
            codes = self.estimator_.classes_[decide(proba, costs[self.estimator_.classes_])]
        elif index is not None:
            codes = self.estimator_.predict_from_view_scores(
                self._node_scores.features(index))
        else:
            codes = self.estimator_.predict(self._views(nodes, graph, features))
        return self.classes_[np.searchsorted(self.estimator_.classes_, codes)]

    def predict_proba(self, nodes=None, *, graph=None, features=None):
        """Class probabilities, columns in ``classes_`` order, calibrated.

        The merge's probabilities (the stackers', or a softmax of the views' mean) are
        recalibrated by ``calibrator_``
        (:class:`~digraph_askls.models._calibration.TemperatureCalibrator`), fitted on
        the labelled nodes' held-out probabilities of the chosen merge: a temperature
        that grows with the length of a node's centred logits, and a mixture with the
        labelled classes' shares weighted as one observation per class, so that a
        handful of labels cannot give certainty (with 4 labels of 2 classes no
        probability exceeds 5/6). :meth:`predict` is the merge's arg-max, as
        before; where the prior breaks a near tie the arg-max of these probabilities
        may differ. A configuration fitted as given (no selection) has no calibrator
        (``calibrator_`` is None) and answers the merge's probabilities.

        ``graph`` and ``features``: nodes of a grown graph, as in :meth:`predict`.

        Examples
        --------
        >>> import networkx as nx
        >>> from digraph_askls import NodeClassifier
        >>> graph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
        >>> clf = NodeClassifier().fit(graph, {0: "a", 1: "a", 3: "b", 4: "b"})
        >>> proba = clf.predict_proba([2, 5])
        >>> bool(proba.max() <= 5 / 6), proba.argmax(axis=1).tolist()
        (True, [0, 1])
        """
        if getattr(self, "_multilabel", False):
            views = self._views(nodes, graph, features)
            if self.calibrator_ is None:           # the per-label stackers'
                return self.estimator_.predict_proba(views)
            return self.calibrator_.predict_proba(self.estimator_.decision_function(views))
        index = self._positions_with_scores(nodes, graph)
        if index is not None:
            proba = self.estimator_.proba_from_view_scores(self._node_scores.features(index))
        else:
            proba = self.estimator_.predict_proba(self._views(nodes, graph, features))
        calibrator = getattr(self, "calibrator_", None)
        return proba if calibrator is None else calibrator.predict_proba(log_proba(proba))

    def decision_function(self, nodes=None, view=None, *, graph=None, features=None):
        """Decision values of ``nodes``.

        Parameters
        ----------
        nodes : list, optional
            Node names; all nodes when None.
        view : {None, "source", "target", "both"}
            None: the merged decision of the fitted model. ``"source"`` / ``"target"``:
            the raw one-vs-rest scores of one view (fitted on all labelled nodes);
            ``"both"``: a dict with both.
        graph, features : optional
            Nodes of a grown graph, as in :meth:`predict`.
        """
        if view not in (None, "source", "target", "both"):
            raise ValueError(f"view must be None, 'source', 'target' or 'both', got {view!r}")
        index = self._positions_with_scores(nodes, graph)
        estimator = self.estimator_
        if index is not None:
            if view is None:
                scores = estimator.decision_from_view_scores(self._node_scores.features(index))
                return scores[:, 0] if estimator.classes_.size == 2 else scores
            features = self._node_scores.features(index)
            scores = {"source": features[:, 0], "target": features[:, 1]}
        else:
            views = self._views(nodes, graph, features)
            if view is None:
                return estimator.decision_function(views)
            scores = dict(zip(("source", "target"), estimator.view_decisions(views)))
        if estimator.classes_.size == 2 and not getattr(self, "_multilabel", False):
            scores = {name: value[:, 0] for name, value in scores.items()}
        return scores if view == "both" else scores[view]

    def primal_weights(self):
        """Per-feature weights of both views, for kernels with explicit feature maps.

        With ``K = U V^T`` (source maps ``U``, target maps ``V``), the source view is
        ``f_s(x) = u(x) . w_s + b1`` with ``w_s = V^T b~`` and the target view is
        ``f_t(x) = v(x) . w_t + b2`` with ``w_t = U^T a~`` (the paper's section 3). For the
        attribute kernel with ``propagation="directed"``, ``w_s`` weighs the attributes
        of the nodes a node links to and ``w_t`` those of the nodes linking to it.

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
        if self.kernel_ is None:
            raise ValueError("this model was saved without its kernel (its fit kept every "
                             "node's scores, which is a walk kernel's): a walk kernel has "
                             "no explicit feature maps")
        train = self.train_nodes_
        block = restrict_kernel(self.kernel_, train, train)
        transpose_dot = getattr(block, "maps_transpose_dot", None)
        if transpose_dot is None:
            raise ValueError(f"the kernel in use ({type(self.kernel_).__name__}) has no "
                             "explicit feature maps; primal weights exist for the attribute, "
                             "role and first-power link-profile kernels")
        _, dual = self.estimator_.coefficient_blocks()     # (2, m, k): a~, b~
        return {"source": transpose_dot(dual[1], side="target").T,
                "target": transpose_dot(dual[0], side="source").T,
                "feature_names": getattr(self.kernel_, "feature_names", None)}

    def __getstate__(self):
        """The state that pickle and joblib save: lean (see
        :func:`~digraph_askls.models._persistence.lean_state`)."""
        return lean_state(super().__getstate__())

    def __setstate__(self, state):
        """Restore a saved model; one saved before ``preconditioner``, ``policy``, ``cv``
        and ``scoring`` existed takes their defaults."""
        super().__setstate__({"preconditioner": "auto", "policy": None, "cv": None,
                              "scoring": "accuracy", "class_weight": None, **state})
