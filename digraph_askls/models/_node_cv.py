"""Model selection for :class:`NodeClassifier` by cross-validation on the labelled nodes."""

import logging
import time
import warnings

import numpy as np
from numbers import Integral

from sklearn.base import BaseEstimator
from sklearn.model_selection import ParameterGrid
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from joblib import Parallel, delayed
from tqdm.auto import tqdm

from .._fitted import FittedAttributesMixin
from ..kernels import restrict_kernel
from ._askls import AsKLSClassifier
from ._folds import kfold_splits
from ._node import NodeClassifier
from ._node_fit import resolve_config
from .selection._results import rank_order
from ._views import KernelViews

__all__ = ["NodeClassifierCV"]

logger = logging.getLogger(__name__)

#: Keys of ``param_grid`` that are :class:`NodeClassifier` parameters; any other key
#: (``beta``, ``alpha``, ``n_hops``) is a parameter of the graph kernel.
_ESTIMATOR_KEYS = ("kernel", "gamma", "merge", "regularization", "n_folds", "tol")


def _warn_deprecated():
    """``NodeClassifierCV`` is deprecated: say so at the caller of ``fit``."""
    warnings.warn("NodeClassifierCV is deprecated and will be removed: NodeClassifier "
                  "chooses the kernel, gamma and merge on the folds of cv= by the score of "
                  "scoring= (features included)", FutureWarning, stacklevel=3)


class NodeClassifierCV(FittedAttributesMixin, BaseEstimator):
    """:class:`NodeClassifier` with its parameters chosen by cross-validation.

    .. deprecated::
        ``NodeClassifierCV`` is deprecated and will be removed: :class:`NodeClassifier`
        chooses the kernel, gamma and merge itself, on folds you can give
        (``NodeClassifier(cv=StratifiedKFold(5))``), by the score you choose
        (``scoring="f1_macro"``), with node features, and estimates the choice's score;
        to search other parameters, wrap it in scikit-learn's searches. See
        ``docs/changelog.md``.

    Each candidate of ``param_grid`` is scored by the accuracy of ``cv`` stratified folds
    of the labelled nodes; the best one is refitted on all labelled nodes. The graph
    kernel (an operator for the walk kernels) is built once per kernel configuration and
    shared by all folds, classes and values of ``gamma`` and ``merge``.

    Parameters
    ----------
    param_grid : dict or list of dicts, optional
        Lists of values by name. Names of :class:`NodeClassifier` parameters (``gamma``,
        ``kernel``, ``merge``, ``n_folds``, ``tol``, ``regularization``) set those; any
        other name (e.g. ``beta``, ``alpha``, ``n_hops``) is a parameter of the graph
        kernel. Default: ``{"beta": [0.5, 1.0, 2.0]}`` (weight of the reverse direction
        of the PageRank walk).
    cv : int, default=3
        Folds of the labelled nodes.
    base_params : dict, optional
        Fixed :class:`NodeClassifier` parameters of all candidates. Their ``preset`` is
        None unless given here or in the grid: every candidate runs as configured. Each
        candidate is one kernel *by name* and one gamma: ``kernel="ppr"`` and
        ``gamma=0.01`` unless given here or in the grid. (:class:`NodeClassifier` itself
        chooses among kernel families and gammas by stratified folds solved from one
        decomposition per kernel; this class searches any of its parameters by refitting.)
    random_state : int, RandomState or None
        Seeds the folds (and the stacking inside each candidate).
    n_jobs : int, optional
        Workers for the (candidate, fold) fits, through joblib; under
        ``joblib.parallel_backend("dask")`` they run on a dask cluster. Results do not
        depend on it.
    verbose : bool, default=False
        Show a progress bar over the (candidate, fold) fits.

    Attributes
    ----------
    best_params_ : dict
        The winning candidate (as given in ``param_grid``).
    best_score_ : float
        Its mean accuracy over the folds.
    cv_results_ : dict of arrays
        ``params``, ``mean_test_score``, ``std_test_score``, ``rank_test_score`` and
        ``mean_fit_time`` (seconds per fold), one entry per candidate.
    best_estimator_ : NodeClassifier
        Refitted on all labelled nodes.
    classes_ : ndarray

    Examples
    --------
    >>> import networkx as nx
    >>> from digraph_askls.models import NodeClassifierCV
    >>> graph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
    >>> labels = {0: "a", 1: "a", 2: "a", 3: "b", 4: "b", 5: "b"}
    >>> search = NodeClassifierCV({"gamma": [0.01, 0.1]}, cv=2,
    ...                           base_params={"merge": "average"}).fit(graph, labels)
    >>> sorted(search.best_params_), search.predict([2, 5]).tolist()
    (['gamma'], ['a', 'b'])
    """

    _parameter_constraints: dict = {
        "param_grid": [dict, list, None],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "base_params": [dict, None],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(self, param_grid=None, cv=3, base_params=None, random_state=None,
                 n_jobs=None, verbose=False):
        self.param_grid = param_grid
        self.cv = cv
        self.base_params = base_params
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _candidate(self, params):
        """NodeClassifier parameters of one grid point."""
        settings = dict(self.base_params or {})
        kernel_params = dict(settings.pop("kernel_params", None) or {})
        for key, value in params.items():
            if key in _ESTIMATOR_KEYS:
                settings[key] = value
            else:
                kernel_params[key] = value
        # Every candidate runs as configured: no preset unless asked, and one kernel by
        # name with one gamma (the walk kernel's, unless the grid says).
        settings.setdefault("preset", None)
        settings.setdefault("kernel", "ppr")
        settings.setdefault("gamma", 0.01)
        return dict(settings, kernel_params=kernel_params or None,
                    random_state=self.random_state)

    def fit(self, graph, labels, *, nodelist=None, weight="weight"):
        """Score every candidate on folds of the labelled nodes, refit the best.

        Parameters
        ----------
        graph, labels, nodelist, weight
            As in :meth:`NodeClassifier.fit`.

        Returns
        -------
        self
        """
        from ..graph import get_adjacency, get_labels
        from ..kernels import get_graph_kernel

        _warn_deprecated()
        self._validate_params()
        grid = ParameterGrid(self.param_grid if self.param_grid is not None
                             else {"beta": [0.5, 1.0, 2.0]})
        adjacency, nodes = get_adjacency(graph, nodelist=nodelist, weight=weight)
        codes, _ = get_labels(labels, nodes)
        labelled = np.flatnonzero(codes >= 0)
        if np.unique(codes[labelled]).size < 2:
            raise ValueError(f"at least 2 classes must have labelled nodes, got "
                             f"{np.unique(codes[labelled]).size}")
        counts = np.bincount(codes[labelled])
        if counts[counts > 0].min() < self.cv:
            raise ValueError(f"every class needs at least cv={self.cv} labelled nodes, got "
                             f"class sizes {counts.tolist()}")
        folds = kfold_splits(codes[labelled], self.cv, self.random_state)   # stratified:
        # every class has cv labelled nodes
        kernels, tasks = {}, []
        candidates = list(grid)
        for index, params in enumerate(candidates):
            estimator = NodeClassifier(**self._candidate(params))
            estimator._validate_params()   # a bad grid value fails before any fit
            config = resolve_config(estimator.get_params(deep=False))[1]
            key = (config["kernel"], repr(sorted((config["kernel_params"] or {}).items())))
            if key not in kernels:
                kernels[key] = get_graph_kernel(config["kernel"], adjacency,
                                                **(config["kernel_params"] or {}))
            for train, valid in folds:
                tasks.append((index, estimator, config, kernels[key],
                              labelled[train], labelled[valid]))
        # Every (candidate, fold) pair is independent: joblib runs them on n_jobs workers,
        # or on a dask cluster under ``joblib.parallel_backend("dask")``.
        outputs = Parallel(n_jobs=self.n_jobs, return_as="generator")(
            delayed(_score_fold)(estimator, config, K, codes, train, valid, self.random_state)
            for _, estimator, config, K, train, valid in tasks)
        outputs = list(tqdm(outputs, total=len(tasks), desc="NodeClassifierCV",
                            disable=not self.verbose, leave=False))
        scores = [[] for _ in candidates]
        seconds = [0.0 for _ in candidates]
        for (index, *_), (accuracy, elapsed) in zip(tasks, outputs):
            scores[index].append(accuracy)
            seconds[index] += elapsed / len(folds)
        for params, fold_scores in zip(candidates, scores):
            logger.info("NodeClassifierCV %s: accuracy %.4f", params, np.mean(fold_scores))
        scores = np.asarray(scores)
        mean = scores.mean(axis=1)
        best = int(np.argmax(mean))
        self.cv_results_ = {
            "params": candidates, "mean_test_score": mean, "std_test_score": scores.std(axis=1),
            "rank_test_score": np.asarray(rank_order(mean)),
            "mean_fit_time": np.asarray(seconds),
        }
        self.best_params_ = candidates[best]
        self.best_score_ = float(mean[best])
        self.best_estimator_ = NodeClassifier(**self._candidate(self.best_params_)).fit(
            graph, labels, nodelist=nodelist, weight=weight)
        self.classes_ = self.best_estimator_.classes_
        return self

    def predict(self, nodes=None):
        """Predicted class of ``nodes`` by the refitted best model."""
        check_is_fitted(self)
        return self.best_estimator_.predict(nodes)


def _score_fold(estimator, config, K, codes, train, valid, random_state):
    """Accuracy on ``valid`` of the candidate fitted on ``train``, and the time it took."""
    start = time.perf_counter()
    model = AsKLSClassifier(
        kernel="precomputed", gamma=config["gamma"], solver=estimator.solver,
        merge="joint" if config["merge"] == "auto" else config["merge"],
        regularization=config["regularization"],
        n_folds=config["n_folds"], tol=estimator.tol, max_iter=estimator.max_iter,
        random_state=random_state, preconditioner=estimator.preconditioner,
    ).fit(restrict_kernel(K, train, train), codes[train])
    views = KernelViews(restrict_kernel(K, valid, train), restrict_kernel(K, train, valid))
    accuracy = float(np.mean(model.predict(views) == codes[valid]))
    return accuracy, time.perf_counter() - start
