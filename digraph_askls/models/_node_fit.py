"""What :meth:`NodeClassifier.fit <digraph_askls.NodeClassifier.fit>` asks of the
selection: its parameters resolved (presets, ``cv`` and ``n_folds``), its arguments read,
and the :class:`~digraph_askls.models.selection.SearchSpace` and
:class:`~digraph_askls.models.selection.Problem` built, before anything is chosen.

:func:`plan_fit` checks everything it can before the selection runs, and writes nothing
on the estimator: a fit that fails leaves it as it was.

The rule of ``cv`` and ``n_folds`` (:func:`selection_split`): ``cv`` says how the
candidates are judged (None: at most ``n_folds`` stratified folds; an int: at most that
many, replacing ``n_folds``; a splitter: its test sets; nodes: validation nodes, as
``fit(valid=...)``). ``n_folds`` is also the number of stacking folds of a configuration
fitted as given (a preset, an ``operator``, a train-score or leave-one-out merge), which
has no selection folds.
"""

from numbers import Integral
from typing import NamedTuple

import numpy as np

from ..graph._index import NodeIndex
from ._dask_route import is_distributed, keep_distributable
from ._fit_inputs import read_fit_inputs, warn_unread_features
from ._new_nodes import fitted_features
from ._targets import class_weights, label_indicator, multilabel_labels
from .selection import (DEFAULT_POLICY, FitSettings, Problem, SearchSpace, as_recipes,
                        check_scoring, default_kernels, multilabel_kernels, node_keys)
from .selection._answers import label_groups
from .selection._multilabel import MULTILABEL_MERGES, multilabel_scoring
from .selection._results import GROUP_SCORES
from .selection._scoring import check_two_classes
from .selection._weights import screen_weights

__all__ = ["FitPlan", "PRESETS", "plan_fit", "resolve_config", "selection_split"]

#: Named configurations. ``"paper"``: the protocol of the paper's authors (in-degree
#: normalised 1-hop kernel, gamma = 1, the lambda = 1 fallback for the singular system,
#: 10-fold stacking with an unpenalised logistic regression per class).
#: ``"large"``: fewer products than the defaults, for a little accuracy: a 3-hop
#: PageRank series of the undirected walk hopping in float32, gamma = 0.01, a solver
#: tolerance of 0.01 and joint stacking on the training scores of the full model (no
#: fold solves: at the solution they are ``y - a~/g`` and ``y - b~/g``; they hold only
#: for a converged solve, which the tolerance ensures). See the speed results page.
PRESETS = {
    "paper": dict(kernel="in_degree", kernel_params=None, gamma=1.0, merge="stack",
                  regularization="auto", n_folds=10),
    "large": dict(kernel="ppr", kernel_params=dict(alpha=0.85, beta=1.0, n_hops=3,
                                                   dtype="float32"), gamma=0.01,
                  merge="joint_train", regularization="auto", n_folds=5, tol=0.01),
}

#: The parameters a preset may set.
_CONFIG_KEYS = ("kernel", "kernel_params", "gamma", "merge", "regularization", "n_folds",
                "tol")


def _is_auto(value):
    """Whether a parameter is the string ``"auto"`` (not an object equal to it)."""
    return type(value) is str and value == "auto"


def resolve_config(params):
    """The preset in effect (``"auto"`` resolved: None) and the settings under it, from
    the estimator's parameters ``params`` (:meth:`get_params`).

    Examples
    --------
    >>> preset, config = resolve_config(dict(preset="paper", kernel="auto", gamma="auto",
    ...     merge="auto", kernel_params=None, regularization="auto", n_folds=20, tol=1e-4))
    >>> preset, config["kernel"], config["n_folds"]
    ('paper', 'in_degree', 10)
    """
    preset = params["preset"]
    if preset is not None and preset not in PRESETS:
        if not _is_auto(preset):
            raise ValueError(f"unknown preset {preset!r}; choose from "
                             f"{['auto', *sorted(PRESETS)]} or None")
        preset = None
    config = {key: params[key] for key in _CONFIG_KEYS}
    if preset is not None:
        config.update(PRESETS[preset])
    return preset, config


def selection_split(cv, valid):
    """``cv`` read (see the module): the most folds (None: ``n_folds``), a splitter (or
    None) and the validation nodes (``valid``, or the nodes ``cv`` holds)."""
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


class FitPlan(NamedTuple):
    """What a fit searches (``space``, ``problem``) and what it keeps beside the
    selection's result: the node order, the class names, the costs of the classes'
    errors (one per class, or None), the preset in effect, how the features were given
    and the weight attribute (for grown graphs)."""

    space: SearchSpace
    problem: Problem
    nodes: list
    classes: np.ndarray
    costs: object
    preset: object
    fitted_features: tuple
    weight: object


def plan_fit(params, graph, labels, features, valid, nodelist, weight, warn_depth=1):
    """The :class:`FitPlan` of ``NodeClassifier(**params).fit(graph, labels, ...)``.
    ``warn_depth``: frames between the caller and the user's code, for the warning of
    unread features."""
    target = multilabel_labels(graph, labels)
    if target is not None:
        return _plan_several_labels(params, graph, target, features, valid, nodelist,
                                    weight)
    scoring = check_scoring(params["scoring"])
    max_folds, splitter, valid = selection_split(params["cv"], valid)
    inputs = read_fit_inputs(graph, labels, features, nodelist, weight)
    preset, config = resolve_config(params)
    codes, classes = inputs.codes, np.asarray(inputs.classes)
    train = np.flatnonzero(codes >= 0)
    node_index = NodeIndex(inputs.nodes)
    held = None
    if valid is not None:
        held = _held_out(valid, node_index, codes, preset, params["operator"])
        train = np.setdiff1d(train, held)
    if np.unique(codes[train]).size < 2:
        raise ValueError(f"at least 2 classes must have labelled nodes, got "
                         f"{np.unique(codes[train]).size}")
    if isinstance(params["scoring"], str):      # before any kernel is built
        check_two_classes(params["scoring"], np.unique(codes[train]).size)
    policy = DEFAULT_POLICY if params["policy"] is None else params["policy"]
    recipes = _recipes(config, inputs, codes[train], policy, graph, labels, warn_depth + 3)
    screen = None
    if _is_auto(config["kernel"]):          # the reading of the edge weights, chosen
        recipes, screen = screen_weights(recipes, inputs.adjacency, train, codes[train],
                                         params["random_state"], policy)
    weights = _class_weights(params["class_weight"], classes, codes[train])
    costs = None
    if weights is not None:
        # A class's weight is the cost of an error on one of its nodes: a prediction is
        # the class of least expected cost, and the selection judges those decisions.
        costs = np.ones(len(classes))
        for code, value in weights:
            costs[code] = value
        scoring = scoring.with_costs(costs[np.unique(codes[train])])
    problem = Problem(
        inputs.adjacency, inputs.features, train, codes[train],
        _settings(params, config, weights), policy, scoring,
        config["n_folds"] if max_folds is None else max_folds, splitter,
        node_keys(inputs.adjacency, inputs.features)[train], params["operator"],
        preset is not None, held, None if held is None else codes[held], len(classes))
    space = SearchSpace(tuple(recipes), None if _is_auto(config["gamma"])
                        else config["gamma"], config["merge"], screen)
    return FitPlan(space, problem, node_index.nodes, classes, costs, preset,
                   fitted_features(inputs.given, inputs.features), weight)


def _plan_several_labels(params, graph, target, features, valid, nodelist, weight):
    """:func:`plan_fit` with several labels per node (see
    :mod:`~digraph_askls.models.selection._multilabel`)."""
    if params["class_weight"] is not None:
        raise ValueError(f"class_weight is not defined for a multi-label target (a "
                         f"node's labels are not one class); got class_weight="
                         f"{params['class_weight']!r}: pass class_weight=None")
    cv = params["cv"]
    if valid is not None or not (cv is None or isinstance(cv, Integral)):
        raise ValueError("a multi-label target is judged by folds of its labelled nodes: "
                         "pass valid=None and cv=None or a number of folds")
    scoring = multilabel_scoring(params["scoring"])
    inputs = read_fit_inputs(graph, {}, features, nodelist, weight)
    Y, classes = label_indicator(target, inputs.nodes)
    train = np.flatnonzero(Y[:, 0] >= 0)
    if train.size < 2:
        raise ValueError(f"at least 2 nodes must be labelled, got {train.size}")
    preset, config = resolve_config(params)
    if config["merge"] != "auto" and config["merge"] not in MULTILABEL_MERGES:
        raise ValueError(f"merge={config['merge']!r} is not defined for a multi-label "
                         f"target; choose from {['auto', *MULTILABEL_MERGES]}")
    policy = DEFAULT_POLICY if params["policy"] is None else params["policy"]
    recipes = (multilabel_kernels(train.size, inputs.features is not None,
                                  n_nodes=len(inputs.nodes),
                                  labels_per_class=float(np.median(Y[train].sum(axis=0))),
                                  policy=policy)
               if _is_auto(config["kernel"]) else
               as_recipes(config["kernel"], config["kernel_params"]))
    if is_distributed(inputs.features):
        recipes = keep_distributable(recipes, not _is_auto(config["kernel"]), 4)
    groups = label_groups(Y[train])
    problem = Problem(inputs.adjacency, inputs.features, train, Y[train],
                      _settings(params, config, None, verbose=False), policy, scoring,
                      config["n_folds"] if cv is None else int(cv),
                      label_groups=None if groups is None else _group_searches(
                          params, graph, Y, groups, features, nodelist, weight))
    space = SearchSpace(tuple(recipes), None if _is_auto(config["gamma"])
                        else config["gamma"], config["merge"])
    return FitPlan(space, problem, inputs.nodes, np.asarray(classes), None, preset,
                   fitted_features(inputs.given, inputs.features), weight)


def _group_searches(params, graph, Y, groups, features, nodelist, weight):
    """Per group of exclusive labels (:func:`~.selection._answers.label_groups`), the
    columns of its labels by class code and the single-label search of its classes: the
    plan of the single-label fit of the nodes' class in the group, under the
    single-label score that the several-label one combines
    (:data:`~.selection._results.GROUP_SCORES`)."""
    single = dict(params, scoring=GROUP_SCORES[multilabel_scoring(params["scoring"])][0])
    labelled = Y[:, 0] >= 0
    found = []
    for group in groups:
        codes = np.where(labelled, np.argmax(Y[:, group], axis=1), -1)
        plan = plan_fit(single, graph, codes, features, None, nodelist, weight, warn_depth=3)
        found.append((np.asarray(group)[plan.classes.astype(int)], plan.space, plan.problem))
    return tuple(found)


def _settings(params, config, weights, verbose=True):
    return FitSettings(solver=params["solver"], preconditioner=params["preconditioner"],
                       regularization=config["regularization"], tol=config["tol"],
                       max_iter=params["max_iter"], random_state=params["random_state"],
                       verbose=bool(params["verbose"]) and verbose, class_weights=weights)


def _class_weights(class_weight, classes, train_codes):
    """``class_weight`` as (code, weight) pairs of the labelled classes, or None."""
    if class_weight is None:
        return None
    present = np.unique(train_codes)
    weights = class_weights(class_weight, classes[present], classes[train_codes])
    return tuple((int(code), float(weight)) for code, weight in zip(present, weights))


def _recipes(config, inputs, train_codes, policy, graph, labels, stacklevel):
    """The kernel recipes to choose among (the defaults for the graph under
    ``kernel="auto"``), warning where the features given are not read."""
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
    if is_distributed(inputs.features):
        recipes = keep_distributable(recipes, not _is_auto(config["kernel"]), stacklevel)
    warn_unread_features(inputs, recipes, graph, labels, stacklevel=stacklevel)
    return recipes


def _held_out(valid, node_index, codes, preset, operator):
    """Positions of the validation nodes ``valid`` in ``node_index``, each labelled."""
    if preset is not None or operator is not None:
        raise ValueError(f"valid= chooses among configurations, but preset={preset!r} and "
                         f"operator={operator!r} fit one as given; pass preset=None and no "
                         f"operator")
    held = np.unique(node_index.positions(valid))
    unlabelled = held[codes[held] < 0]
    if unlabelled.size:
        names = [node_index.nodes[position] for position in unlabelled[:5]]
        raise ValueError(f"valid= names nodes whose labels judge the choice, so each "
                         f"needs a label; got {unlabelled.size} unlabelled, e.g. {names}")
    if held.size == np.count_nonzero(codes >= 0):
        raise ValueError(f"valid= holds every one of the {held.size} labelled nodes; "
                         f"leave some to fit")
    return held

