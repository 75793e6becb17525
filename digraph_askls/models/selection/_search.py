"""The selection's one entry point: :func:`search` judges every configuration of a
:class:`SearchSpace` on the labelled nodes of a :class:`Problem` and returns the fitted
winner as a frozen :class:`SearchResult`.

How the configurations are judged is decided once, by :func:`route`:

``"fixed"``
    One kernel, one gamma and a merge fitted as given (a preset, an ``operator``, a
    train-score or leave-one-out merge): a grid of one, nothing judged
    (:mod:`~._single`).
``"folds"``
    Out-of-fold scores of every (kernel, gamma) on the same folds, ranked, raced, the
    winner's merge cross-validated and its score estimated (:mod:`~._select`).
``"validation"``
    The search without the validation nodes (by folds, or fixed) ranks the
    configurations; each ranked (kernel, gamma, merge) is then fitted on the fitted
    nodes alone, as a grid of one, and scored on the validation nodes
    (:mod:`~._validation`). The first strict best in candidate order wins.
``"label groups"``
    A 0/1 indicator target whose labels split into groups of exclusive labels (one
    label of each per labelled node): one single-label search per group, by folds
    (:mod:`~._groups`).
``"several labels"``
    Any other 0/1 indicator target: every (kernel, gamma, merge) scored by an F1 of
    thresholded held-out decisions on random folds, with neither race nor
    one-standard-error rule (:mod:`~._multilabel`).

Each route writes ``cv_results_`` through :class:`~._results.ResultsTable` and
``selection_`` through :func:`~._results.selection_record`: one schema whatever the
route.
"""

from dataclasses import replace
from typing import NamedTuple, Optional

import numpy as np

from ...kernels import gamma_grid
from .._merge import as_merge
from .._node_model import FittedModel, predict_codes, predict_proba
from ._cache import SearchCache
from ._groups import search_groups
from ._multilabel import select_multilabel
from ._results import SearchResult
from ._select import merges_for, select_kernel
from ._single import fit_fixed
from ._validation import choose_on_validation, kernel_major, validation_candidates

__all__ = ["Problem", "SearchResult", "SearchSpace", "route", "search"]


class SearchSpace(NamedTuple):
    """The configurations to choose among: kernel ``recipes``, ``gammas`` (None: each
    recipe's own grid) and ``merge`` (``"auto"``: compared); ``weights_screen``: how the
    recipes' reading of the edge weights was chosen (:mod:`~._weights`), or None."""

    recipes: tuple
    gammas: object
    merge: str
    weights_screen: Optional[dict] = None


class Problem(NamedTuple):
    """The labelled nodes and how to judge them.

    ``train``: positions of the fitted labelled nodes; ``target``: their class codes
    (m,), or a 0/1 indicator (m, n_labels) for several labels; ``valid`` and
    ``valid_codes``: validation nodes that judge instead of folds (or None), and
    ``n_classes`` the number of class codes they and ``target`` draw from;
    ``label_groups``: for an indicator ``target`` whose labels split into groups of
    exclusive labels, per group ``(columns, space, problem)``: the columns of its labels
    by class code and the single-label search of its classes (else None); ``cache``:
    what the searches of the validation route share (:class:`~._cache.SearchCache`).
    """

    adjacency: object
    features: object
    train: np.ndarray
    target: np.ndarray
    settings: object
    policy: object
    scoring: object
    max_folds: int
    splitter: object = None
    keys: object = None
    operator: object = None
    as_given: bool = False
    valid: Optional[np.ndarray] = None
    valid_codes: Optional[np.ndarray] = None
    n_classes: Optional[int] = None
    label_groups: Optional[tuple] = None
    cache: Optional[SearchCache] = None


def route(space, problem):
    """How ``problem`` judges ``space``: ``"label groups"``, ``"several labels"``,
    ``"fixed"``, ``"validation"`` or ``"folds"`` (see the module).

    Examples
    --------
    >>> import numpy as np
    >>> space = SearchSpace(("k",), None, "auto")
    >>> problem = Problem(None, None, np.arange(3), np.array([0, 1, 1]), None, None, None, 5)
    >>> route(space, problem), route(space._replace(merge="stack_train"), problem)
    ('folds', 'fixed')
    >>> route(space, problem._replace(valid=np.array([3]), valid_codes=np.array([0])))
    'validation'
    """
    if np.ndim(problem.target) == 2:
        return "several labels" if problem.label_groups is None else "label groups"
    if problem.valid is not None:
        return "validation"
    if (problem.as_given or problem.operator is not None
            or (space.merge != "auto" and as_merge(space.merge).scores != "folds")):
        return "fixed"
    return "folds"


def search(space, problem):
    """Choose among ``space`` on ``problem`` and fit the winner (a :class:`SearchResult`)."""
    result = _routed(space, problem)
    if space.weights_screen is None:
        return result
    return result._replace(selection=dict(result.selection,
                                          weights_screen=space.weights_screen))


def _routed(space, problem):
    how = route(space, problem)
    if how == "label groups":
        return search_groups(problem, search)
    if how == "several labels":
        kernel, estimator, selection, cv_results, calibrator, (thresholds, groups) = \
            select_multilabel(space.recipes, problem.adjacency, problem.features,
                              problem.target, problem.train, space.gammas,
                              merge=space.merge, max_folds=problem.max_folds,
                              settings=problem.settings, policy=problem.policy,
                              scoring=problem.scoring)
        return SearchResult(kernel, estimator, selection, cv_results, None, calibrator,
                            thresholds, groups)
    if how == "validation":
        ranked = search(space, problem._replace(valid=None, valid_codes=None))
        return _on_validation(space, problem, ranked)
    if how == "fixed":
        return _fixed(space, problem)
    return select_kernel(
        space.recipes, problem.adjacency, problem.features, problem.target, problem.train,
        space.gammas, merge=space.merge, max_folds=problem.max_folds,
        settings=problem.settings, policy=problem.policy, keys=problem.keys,
        splitter=problem.splitter, scoring=problem.scoring, cache=problem.cache)


def _fixed(space, problem):
    grids = [gamma_grid(recipe) if space.gammas is None
             else tuple(np.atleast_1d(space.gammas)) for recipe in space.recipes]
    if len(space.recipes) != 1 or len(grids[0]) != 1:
        raise ValueError(f"merge={space.merge!r}, operator= and presets fit one kernel and "
                         f"one gamma; got {len(space.recipes)} kernels and gammas {grids}")
    recipe = space.recipes[0]
    return SearchResult(*fit_fixed(recipe.make(problem.adjacency, problem.features), recipe,
                                   problem.target, problem.train, grids[0][0], space.merge,
                                   problem.max_folds, problem.settings, problem.operator))


def _on_validation(space, problem, ranked):
    """The configurations that the search without the validation nodes ranked
    (``ranked``), each fitted on the fitted nodes as a grid of one and judged on the
    validation nodes; the best is fitted again in full. The searches share one
    :class:`~._cache.SearchCache`."""
    # judged on the predicted classes alone, the calibrator does not move them
    cache = SearchCache(judging=True, calibrate=not (problem.scoring.is_accuracy
                                                     and problem.scoring.costs is None))
    quiet = problem._replace(settings=replace(problem.settings, verbose=False), valid=None,
                             valid_codes=None, cache=cache)
    n_classes = problem.n_classes

    def fit_one(recipe, gamma, merge):
        result = search(SearchSpace((recipe,), gamma, merge), quiet)
        model = FittedModel.of(result, problem.train, problem.scoring.costs)
        where = cache.where(model, problem.valid)
        if problem.scoring.is_accuracy:
            return (recipe, gamma, merge), predict_codes(model, **where)
        # judged on the calibrated probabilities, those predict_proba reports and, under
        # class weights, predict decides on
        proba = np.zeros((problem.valid.size, n_classes))
        proba[:, model.estimator.classes_] = predict_proba(model, **where)
        return (recipe, gamma, merge), proba

    candidates = validation_candidates(ranked.cv_results, ranked.selection, merges_for(
        space.merge, problem.target, problem.policy, problem.scoring))
    (recipe, gamma, merge), selection, cv_results = choose_on_validation(
        candidates, fit_one, problem.valid_codes,
        random_state=problem.settings.random_state,
        interval_max=problem.policy.estimate_interval_max,
        verbose=problem.settings.verbose, scoring=problem.scoring,
        order=kernel_major(candidates))
    result = search(SearchSpace((recipe,), gamma, merge),
                    quiet._replace(cache=cache.fitting()))
    return result._replace(selection=selection, cv_results=cv_results)
