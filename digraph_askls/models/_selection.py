"""Choosing the kernel, gamma and merge for each graph, in one pass.

1. **Folds.** The labelled nodes are split once into stratified folds
   (:func:`~._folds.make_folds`); every candidate is judged on the same folds.
2. **Candidates.** Each (kernel, gamma) gets out-of-fold view scores: each node scored
   by the model trained without its fold, from one SVD for every gamma (dense blocks or
   explicit maps), from one solve of all folds (a walk kernel), or from a solve per fold
   (:mod:`~._folds`). A cheap proper score ranks them (:func:`~._merges.ranking_score`).
3. **The winner's merge.** At the winner, each merge (mean of the views, joint stacker,
   their blend) is fitted on all folds but one and predicts the last; the merge whose
   held-out predictions score best is kept, and their accuracy is what
   ``selection_["accuracy"]`` reports: an estimate of the accuracy on new nodes.
4. **The fitted model** is assembled from what the winner's folds already hold
   (:func:`_assemble`): the stackers learn the out-of-fold scores, new nodes are scored
   by the mean of the fold models (as the stackers saw them) or, for the mean view, by
   the model trained on all labelled nodes. Nothing is solved again.

On more than :data:`~._candidates.SPECTRAL_MAX_TRAIN` labelled nodes the candidates that
need a decomposition are ranked on a stratified sample, and the winner is then scored
on every labelled node by folds of all of them.
"""

import logging
import time
from typing import NamedTuple

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state

from ..kernels import gamma_grid, restrict_kernel
from ..linalg import SingularSystemError
from ..linalg._scores import NotPositiveDefinite
from ._askls import AsKLSClassifier
from ._candidates import LARGE_GRAPH, SPECTRAL_MAX_TRAIN
from ._folds import (coarsen_folds, decompose, label_columns, make_folds,
                     solved_out_of_fold, spectral_out_of_fold, walk_out_of_fold)
from ._merges import AUTO_MERGES, merge_estimates, ranking_score
from ._stackers import fit_temperature, view_logits
from ._single import fit_fixed
from ._train_scores import scores_all_rows

__all__ = ["ALONE_GAMMA", "select_kernel"]

logger = logging.getLogger(__name__)

#: gamma of a walk kernel scored by its one-solve folds. The stackers standardise the
#: view scores, which stop changing as gamma shrinks (they tend to the kernel's votes
#: ``K(x, X) y`` and ``K(X, x)^T y``); at this gamma the solve meets its tolerance after
#: one or two products with the kernel.
ALONE_GAMMA = 1e-5

#: Folds of a walk kernel: each costs the columns of its labels in the same walk steps,
#: so a walk kernel takes the folds of the other candidates joined into as many as keep
#: ``folds * columns * steps * stored links`` below this (about a fifth of a second of
#: steps on 2 cores), and at least two.
WALK_STEP_BUDGET = 2e8

#: The merges are cross-validated on the folds joined into at most this many.
MERGE_FOLDS = 5

#: On graphs of more than :data:`~._candidates.LARGE_GRAPH` nodes the candidates that need a
#: decomposition are ranked on at most :data:`LARGE_GRAPH_SAMPLE` labelled nodes (else
#: :data:`~._candidates.SPECTRAL_MAX_TRAIN`): their ``O(m^3)`` decomposition would cost
#: more than the walk kernel's solve on the whole graph, which a PageRank vote's price
#: bounds (``docs/results/speed.md``). The winner is then scored on every labelled node.
LARGE_GRAPH_SAMPLE = 1000

#: Up to this many labelled nodes the winner's merges are compared by cross-validation;
#: above, the joint stacker is kept (it reads patterns across classes, and with this
#: many nodes it no longer overfits) and its estimate comes from the ranking score.
MERGE_CV_MAX = 2000

#: Merges that the selection assembles from out-of-fold scores; the others (the
#: train-score and leave-one-out merges, kept for ``AsKLSClassifier``) are refitted.
_FOLD_MERGES = ("average", "joint", "blend", "stack", "source", "target")
_STACKING = ("joint", "blend", "stack")


def _merges_to_try(merge):
    """The merges compared at the winner: ``merge`` itself unless ``"auto"``. With few
    labelled nodes in some class a stacker may still read patterns across classes (a
    directed SBM's flows) that the mean view cannot: the cross-validation decides, the
    mean view winning ties (:func:`_choose_merge`)."""
    if merge != "auto":
        return (merge,) if merge in _FOLD_MERGES else ("joint",)
    return AUTO_MERGES


def select_kernel(recipes, build, train_codes, train, gammas, estimator_params,
                  operator=None, verbose=False, keys=None, fixed=False):
    """Score every (recipe, gamma) on the labelled nodes and fit the best one.

    Parameters
    ----------
    recipes : list of GraphKernel
    build : callable
        ``build(recipe)`` returns the kernel on all nodes; its attribute ``n_nodes`` (the
        graph's size, when set) tells a large graph (:data:`LARGE_GRAPH`).
    train_codes : ndarray of int
        Class codes of the labelled nodes ``train``.
    train : ndarray of int
    gammas : None, float or sequence of float
        None: each recipe's own grid (:func:`~digraph_askls.kernels.gamma_grid`; a walk
        kernel scored in one solve is fitted at :data:`ALONE_GAMMA`).
    estimator_params : dict
        Parameters of :class:`AsKLSClassifier` (``merge``, ``solver``, ``tol`` ...).
        ``merge="auto"`` compares the merges at the winner.
    operator : callable, optional
        Applied to the training kernel of a single configuration (see
        :class:`~digraph_askls.NodeClassifier`).
    verbose : bool, default=False
        Show the long steps (a walk kernel's steps) in progress bars.
    keys : ndarray, optional
        A number per labelled node that orders them before they are dealt into folds
        (:func:`~._folds.node_keys`): the folds then follow the nodes, not their positions.
    fixed : bool, default=False
        Fit the single configuration as :class:`AsKLSClassifier` itself does, without
        folds of the selection (the presets, which reproduce published protocols).

    Returns
    -------
    Selected
        A named tuple of

    kernel : the winning kernel on all nodes
    estimator : AsKLSClassifier fitted on ``K(train, train)``
    selection : dict
        ``kernel`` (recipe), ``gamma``, ``score`` (the ranking score), ``accuracy`` (the
        accuracy of held-out predictions of the fitted model's merge: each labelled node
        predicted by a merge and a model that did not learn it), ``engine``
        (``"spectral"``, ``"walk"``, ``"solved"`` or ``"fixed"``), ``merge`` and
        ``n_folds``.
    cv_results : dict of lists
        One entry per (recipe, gamma): ``kernel``, ``gamma``, ``engine``,
        ``mean_test_score``, ``cv_accuracy``, ``merge`` (the merge its score stands
        for), ``fit_time`` (s) and ``rank_test_score``.
    node_scores : NodeScores or None
        Every node's view scores, when the solve gave them (a walk kernel).
    """
    merge = estimator_params["merge"]
    grids = [gamma_grid(recipe) if gammas is None else tuple(np.atleast_1d(gammas))
             for recipe in recipes]
    single = len(recipes) == 1 and len(grids[0]) == 1
    if fixed or operator is not None or merge not in ("auto", *_FOLD_MERGES):
        if not single:
            raise ValueError(f"merge={merge!r}, operator= and presets fit one kernel and one "
                             f"gamma; got {len(recipes)} kernels and gammas {grids}")
        return Selected(*fit_fixed(recipes[0], build, train_codes, train, grids[0][0],
                                   estimator_params, operator, verbose))
    classes, codes = np.unique(train_codes, return_inverse=True)
    random_state = estimator_params.get("random_state")
    merges = _merges_to_try(merge)
    n_nodes = getattr(build, "n_nodes", 0)
    ranked = _ranking_sample(codes, random_state, LARGE_GRAPH_SAMPLE if n_nodes > LARGE_GRAPH
                             else SPECTRAL_MAX_TRAIN)
    many = ranked.size < codes.size
    # As many folds as the median class has labelled nodes (one of each per fold, where
    # few), at most n_folds.
    counts = np.bincount(codes)
    n_folds = max(2, min(estimator_params["n_folds"], int(np.median(counts))))
    folds = make_folds(codes, n_folds, random_state, keys)
    sample_folds = folds if not many else make_folds(
        codes[ranked], n_folds, random_state, None if keys is None else keys[ranked])
    rows, best = _rank(recipes, grids, build, train, codes, ranked, folds, sample_folds,
                       gammas is None, merges, estimator_params, verbose)
    if many and best["engine"] != "walk":
        best.update(_refit_on_all(best, train, codes, folds, estimator_params), folds=folds)
    chosen, held_out = _choose_merge(best["oof"].scores, codes,
                                     coarsen_folds(best["folds"], MERGE_FOLDS), merges)
    estimator = _assemble(best, chosen, classes, codes, estimator_params)
    scores = np.asarray(rows["mean_test_score"])
    rows["rank_test_score"] = list(np.argsort(np.argsort(-scores, kind="stable")) + 1)
    accuracy = float(np.mean(held_out == codes))
    selection = dict(kernel=best["kernel"], gamma=best["gamma"], score=best["score"],
                     accuracy=accuracy, engine=best["engine"], merge=estimator.merge,
                     n_folds=len(best["folds"]))
    logger.info("selected %r gamma=%g merge=%s: held-out accuracy %.3f", best["kernel"],
                best["gamma"], estimator.merge, accuracy)
    node_scores = best["oof"].node_scores if estimator.merge in _STACKING or \
        best["oof"].full_model is None else None
    return Selected(best["built"], estimator, selection, rows, node_scores)


class Selected(NamedTuple):
    """What :func:`select_kernel` returns (see there)."""

    kernel: object
    estimator: AsKLSClassifier
    selection: dict
    cv_results: dict
    node_scores: object


def _choose_merge(scores, codes, folds, merges):
    """The merge to fit, and the class codes its held-out predictions give the labelled
    nodes.

    Up to :data:`MERGE_CV_MAX` labelled nodes the merges themselves are cross-validated
    on the out-of-fold scores. The mean of the views has no weights to learn; a stacker
    replaces it only where its held-out predictions are better by more than one
    standard error of the paired difference of their Brier scores (node by node), and
    then the stacker of the best Brier score wins: on a few labelled nodes the stackers'
    gains are often noise. Above :data:`MERGE_CV_MAX` nodes the joint stacker is kept and
    its least-squares stand-in gives the predictions.
    """
    if codes.size <= MERGE_CV_MAX:
        estimates = merge_estimates(scores, codes, folds, merges)
        if estimates:
            targets = np.eye(int(codes.max()) + 1)[codes]
            losses = {name: np.sum((targets - estimate[2]) ** 2, axis=1)
                      for name, estimate in estimates.items()}
            chosen = max(estimates, key=lambda name: estimates[name][0])
            if "average" in losses and chosen != "average":
                gain = losses["average"] - losses[chosen]
                error = gain.std(ddof=1) / np.sqrt(gain.size) if gain.size > 1 else np.inf
                if gain.mean() <= error:
                    chosen = "average"
            return chosen, np.argmax(estimates[chosen][2], axis=1)
    chosen = merges[0] if len(merges) == 1 else "joint"
    predictions = ranking_score(scores, codes, (chosen,), return_predictions=True)[3]
    return chosen, np.argmax(predictions, axis=1)


def _ranking_sample(codes, random_state, size=None):
    """Positions of the labelled nodes the candidates are ranked on: all of them, or a
    sample of ``size`` (default :data:`~._candidates.SPECTRAL_MAX_TRAIN`) with every
    class in its share (at least two of each where it has two)."""
    m = codes.size
    size = SPECTRAL_MAX_TRAIN if size is None else size
    if m <= size:
        return np.arange(m)
    rng = check_random_state(random_state)
    keep = []
    total = size
    for label in np.unique(codes):
        members = np.flatnonzero(codes == label)
        size = max(min(2, members.size), int(round(total * members.size / m)))
        keep.append(rng.choice(members, size, replace=False))
    return np.sort(np.concatenate(keep))


def _thin(train_kernel):
    """Whether the block has explicit maps with fewer features than samples."""
    m = train_kernel.shape[0]
    factors = getattr(train_kernel, "factors", None)
    return callable(factors) and getattr(train_kernel, "n_features", m) < m


def _decomposable(train_kernel):
    """Whether the training block is worth one SVD: explicit maps with fewer features than
    samples (thin SVD), or a block the kernel forms directly (arrays, sparse matrices,
    kernels with ``to_dense``) of at most :data:`SPECTRAL_MAX_TRAIN` samples. A plain
    operator such as a walk series would need ``m`` products with the whole graph."""
    m = train_kernel.shape[0]
    if _thin(train_kernel):
        return True
    direct = (isinstance(train_kernel, np.ndarray) or sparse.issparse(train_kernel)
              or callable(getattr(train_kernel, "to_dense", None)))
    return direct and m <= SPECTRAL_MAX_TRAIN


def _engine(train_kernel):
    if _decomposable(train_kernel):
        return "spectral"
    return "walk" if scores_all_rows(train_kernel) else "solved"


def _out_of_fold(engine, train_kernel, decomposition, codes, gamma, folds, params, verbose):
    """:class:`~._folds.OutOfFold` of one candidate, or None if its system is singular."""
    try:
        if engine == "spectral":
            return spectral_out_of_fold(decomposition, codes, gamma, folds)
        if engine == "walk":
            return walk_out_of_fold(train_kernel, codes, gamma, folds, rtol=params["tol"],
                                    maxiter=params.get("max_iter"), verbose=verbose)
        return solved_out_of_fold(train_kernel, codes, gamma, folds,
                                  solver=params["solver"],
                                  regularization=params["regularization"],
                                  rtol=params["tol"], maxiter=params.get("max_iter"))
    except (SingularSystemError, NotPositiveDefinite) as exc:
        if engine == "spectral" and params["regularization"] != None:    # noqa: E711
            # The exact system is singular; solve each fold as asked (damped).
            logger.info("gamma=%g: %s; solving each fold damped", gamma, exc)
            return solved_out_of_fold(train_kernel, codes, gamma, folds,
                                      solver=params["solver"],
                                      regularization=params["regularization"],
                                      rtol=params["tol"], maxiter=params.get("max_iter"))
        logger.info("gamma=%g skipped: %s", gamma, exc)
        return None


def _rank(recipes, grids, build, all_train, codes, ranked, folds, sample_folds, own_grids,
          merges, params, verbose):
    """``cv_results_`` rows and the best candidate. Candidates with a decomposition are
    judged on the nodes ``ranked`` (all of them, or a sample), walk kernels on folds of
    every labelled node read at the same nodes."""
    rows = {"kernel": [], "gamma": [], "engine": [], "mean_test_score": [],
            "cv_accuracy": [], "merge": [], "fit_time": []}
    best = None
    for recipe, grid in zip(recipes, grids):
        start = time.perf_counter()
        kernel = build(recipe)
        train_kernel = restrict_kernel(kernel, all_train[ranked], all_train[ranked])
        engine = _engine(train_kernel)
        decomposition = decompose(train_kernel) if engine == "spectral" else None
        on_sample = engine == "spectral" or ranked.size == codes.size
        candidate_folds = sample_folds if on_sample else folds
        if engine == "walk":
            train_kernel = restrict_kernel(kernel, all_train, all_train)
            grid = (ALONE_GAMMA,) if own_grids else grid
            candidate_folds = _walk_folds(train_kernel.K, folds, codes)
        elif engine == "solved" and own_grids:
            grid = grid[:1]            # a solve per fold and gamma is dear: the first
        shared = time.perf_counter() - start
        for gamma in grid:
            start = time.perf_counter()
            oof = _out_of_fold(engine, train_kernel, decomposition,
                               codes[ranked] if on_sample else codes, gamma,
                               candidate_folds, params, verbose)
            if oof is None:
                continue
            judged = oof.scores if on_sample else oof.scores[:, ranked]
            score, accuracy, merge = ranking_score(judged, codes[ranked], merges)
            elapsed = time.perf_counter() - start + shared / len(grid)
            for key, value in (("kernel", recipe), ("gamma", float(gamma)), ("engine", engine),
                               ("mean_test_score", score), ("cv_accuracy", accuracy),
                               ("merge", merge), ("fit_time", elapsed)):
                rows[key].append(value)
            logger.info("selection %r gamma=%g: %.4f (%.2f s)", recipe, gamma, score, elapsed)
            if best is None or score > best["score"]:
                best = dict(kernel=recipe, gamma=float(gamma), score=score, engine=engine,
                            built=kernel, oof=oof, folds=candidate_folds)
    if best is None:
        raise ValueError("no candidate kernel and gamma gave a solvable AsK-LS system; pass "
                         "other kernels or gammas")
    return rows, best


def _walk_folds(K, folds, codes):
    """The folds joined into as many as the walk's steps afford (:data:`WALK_STEP_BUDGET`)."""
    columns = 1 if np.unique(codes).size == 2 else np.unique(codes).size
    work = columns * getattr(K, "n_hops", 1) * getattr(K, "stored_links", K.shape[0])
    affordable = int(WALK_STEP_BUDGET // max(1, work))
    return coarsen_folds(folds, max(2, affordable))


def _refit_on_all(best, all_train, codes, folds, params):
    """The winner ranked on a sample, scored on every labelled node: through a thin SVD
    of its maps when it has them, else a solve per fold."""
    train_kernel = restrict_kernel(best["built"], all_train, all_train)
    if _decomposable(train_kernel):
        oof = spectral_out_of_fold(decompose(train_kernel), codes, best["gamma"], folds)
        return dict(oof=oof)
    oof = solved_out_of_fold(train_kernel, codes, best["gamma"], folds,
                             solver=params["solver"], regularization=params["regularization"],
                             rtol=params["tol"], maxiter=params.get("max_iter"))
    return dict(oof=oof, engine="solved")


def _assemble(best, merge, classes, codes, params):
    """The fitted :class:`AsKLSClassifier` of the winner, from its folds: the stackers
    learn the out-of-fold scores, the mean fold model scores new nodes for them, the
    model on all labelled nodes (where there is one) for the mean view."""
    oof = best["oof"]
    m = codes.size
    estimator = AsKLSClassifier(kernel="precomputed", **dict(
        params, gamma=best["gamma"], merge=merge, n_folds=len(best["folds"])))
    estimator._validate_params()
    estimator.classes_ = classes
    estimator.shape_fit_ = (m, m)
    full = oof.full_model if oof.full_model is not None else oof.mean_model
    estimator._set_coefficients(*full)
    estimator.stack_folds_ = [(np.arange(m), *oof.mean_model)]
    estimator.solver_result_ = oof.result
    estimator.n_iter_ = 0 if oof.result is None else oof.result.n_iter
    if merge in _STACKING:
        estimator._fit_stackers(oof.scores.transpose(1, 0, 2), codes, label_columns(codes))
    else:
        views = oof.scores if merge == "average" else oof.scores[[int(merge == "target")]]
        mean = views.mean(axis=0)
        estimator.view_temperature_ = fit_temperature(view_logits(mean, 1), codes)
    return estimator
