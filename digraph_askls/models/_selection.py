"""Choosing the kernel, gamma and merge for each graph, in one pass.

1. **Folds.** The labelled nodes are split once into stratified folds
   (:func:`~._folds.make_folds`); every candidate is judged on the same folds.
2. **Candidates.** Each (kernel, gamma) gets out-of-fold view scores: each node scored
   by the model trained without its fold, from one SVD for every gamma (dense blocks or
   explicit maps), from one solve of all folds (a walk kernel), or from a solve per fold
   (:mod:`~._folds`, :mod:`~._engines`). The held-out accuracy of cheap stand-ins of
   the merges ranks them (:func:`~._merges.ranking_score`).
3. **The winner's merge.** At the winner, each merge (mean of the views, joint stacker,
   their blend) is fitted on all folds but one and predicts the last; the merge of the
   best held-out accuracy is kept, and that accuracy is what ``selection_["accuracy"]``
   reports: an estimate of the accuracy on new nodes.
4. **The fitted model** is assembled from what the winner's folds already hold
   (:func:`~._winner.assemble`): the stackers learn the out-of-fold scores, new nodes are scored
   by the mean of the fold models (as the stackers saw them) or, for the mean view, by
   the model trained on all labelled nodes. Nothing is solved again.

On more than :data:`~._candidates.SPECTRAL_MAX_TRAIN` labelled nodes (1,000 on graphs of
more than :data:`~._candidates.LARGE_GRAPH` nodes) the candidates that need a
decomposition are ranked on a stratified sample, and the winner is then scored on every
labelled node by folds of all of them.
"""

import logging
import time
from typing import NamedTuple

import numpy as np
from sklearn.utils import check_random_state

from ..kernels import gamma_grid, restrict_kernel
from ._askls import AsKLSClassifier
from ._candidates import FEW_LABELS_PER_CLASS, LARGE_GRAPH, SPECTRAL_MAX_TRAIN
from ._engines import decompose, engine_of, out_of_fold, refit_on_all, walk_folds
from ._folds import coarsen_folds, make_folds
from ._merges import AUTO_MERGES, ranking_score
from ._single import fit_fixed
from ._winner import STACKING, assemble, choose_merge, selection_optimism

__all__ = ["ALONE_GAMMA", "select_kernel"]

logger = logging.getLogger(__name__)

#: gamma of a walk kernel scored by its one-solve folds. The stackers standardise the
#: view scores, which stop changing as gamma shrinks (they tend to the kernel's votes
#: ``K(x, X) y`` and ``K(X, x)^T y``); at this gamma the solve meets its tolerance after
#: one or two products with the kernel.
ALONE_GAMMA = 1e-5

#: The merges are cross-validated on the folds joined into at most this many.
MERGE_FOLDS = 5

#: On graphs of more than :data:`~._candidates.LARGE_GRAPH` nodes the candidates that need a
#: decomposition are ranked on at most :data:`LARGE_GRAPH_SAMPLE` labelled nodes (else
#: :data:`~._candidates.SPECTRAL_MAX_TRAIN`): their ``O(m^3)`` decomposition would cost
#: more than the walk kernel's solve on the whole graph, which a PageRank vote's price
#: bounds (``docs/results/speed.md``). The winner is then scored on every labelled node.
LARGE_GRAPH_SAMPLE = 1000

#: Merges that the selection assembles from out-of-fold scores; the others (the
#: train-score and leave-one-out merges, kept for ``AsKLSClassifier``) are refitted.
_FOLD_MERGES = ("average", "joint", "blend", "stack", "source", "target")


def _merges_to_try(merge, labels_per_class):
    """The merges compared at the winner: ``merge`` itself unless ``"auto"``.

    With few labelled nodes per class (the median class, at most
    :data:`~._candidates.FEW_LABELS_PER_CLASS`) the mean of the views, the joint stacker
    and their blend: a stacker may read patterns across classes (a directed SBM's flows)
    that the mean view cannot, and the mean view may rank the classes better than a
    stacker learnt from a handful of nodes; the cross-validation decides
    (:func:`~._winner.choose_merge`). With more, the stackers alone: the mean view has no
    threshold of its own for classes of unequal sizes (a binary graph's sign of zero), and
    its held-out accuracy, close to theirs, would win on noise.
    """
    if merge != "auto":
        return (merge,) if merge in _FOLD_MERGES else ("joint",)
    if labels_per_class > FEW_LABELS_PER_CLASS:
        return tuple(name for name in AUTO_MERGES if name != "average")
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
        predicted by a merge and a model that did not learn it), ``optimism`` (how much
        choosing the best of several candidates and merges may flatter it, see
        :func:`~._winner.selection_optimism`), ``engine``
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
    median_class = float(np.median(np.bincount(codes)))
    merges = _merges_to_try(merge, median_class)
    n_nodes = getattr(build, "n_nodes", 0)
    ranked = _ranking_sample(codes, random_state, LARGE_GRAPH_SAMPLE if n_nodes > LARGE_GRAPH
                             else SPECTRAL_MAX_TRAIN)
    many = ranked.size < codes.size
    # As many folds as the median class has labelled nodes (one of each per fold, where
    # few), at most n_folds.
    n_folds = max(2, min(estimator_params["n_folds"], int(median_class)))
    folds = make_folds(codes, n_folds, random_state, keys)
    sample_folds = folds if not many else make_folds(
        codes[ranked], n_folds, random_state, None if keys is None else keys[ranked])
    rows, best = _rank(recipes, grids, build, train, codes, ranked, folds, sample_folds,
                       gammas is None, merges, estimator_params, verbose)
    if many and best["engine"] != "walk":
        best.update(refit_on_all(best, train, codes, folds, estimator_params), folds=folds)
    chosen, held_out, merge_optimism = choose_merge(
        best["oof"].scores, codes, coarsen_folds(best["folds"], MERGE_FOLDS), merges)
    estimator = assemble(best, chosen, classes, codes, estimator_params)
    # The held-out accuracy of the best of many candidates (and merges) flatters it; how
    # much, fold by fold (selection_optimism), is reported beside it. Subtracted, it
    # overcorrects as often as it corrects on a few labelled nodes (few_labels.md).
    held_out_accuracy = float(np.mean(held_out == codes))
    if best["score"] is None:           # one configuration: its held-out accuracy
        best["score"] = rows["mean_test_score"][0] = rows["cv_accuracy"][0] = \
            held_out_accuracy
        rows["merge"][0] = chosen
    scores = np.asarray(rows["mean_test_score"])
    rows["rank_test_score"] = list(np.argsort(np.argsort(-scores, kind="stable")) + 1)
    selection = dict(kernel=best["kernel"], gamma=best["gamma"], score=best["score"],
                     accuracy=held_out_accuracy, optimism=best["optimism"] + merge_optimism,
                     engine=best["engine"], merge=estimator.merge, n_folds=len(best["folds"]))
    logger.info("selected %r gamma=%g merge=%s: held-out accuracy %.3f (optimism of the "
                "choice %.3f)", best["kernel"], best["gamma"], estimator.merge,
                held_out_accuracy, selection["optimism"])
    node_scores = best["oof"].node_scores if estimator.merge in STACKING or \
        best["oof"].full_model is None else None
    return Selected(best["built"], estimator, selection, rows, node_scores)


class Selected(NamedTuple):
    """What :func:`select_kernel` returns (see there)."""

    kernel: object
    estimator: AsKLSClassifier
    selection: dict
    cv_results: dict
    node_scores: object


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


def _rank(recipes, grids, build, all_train, codes, ranked, folds, sample_folds, own_grids,
          merges, params, verbose):
    """``cv_results_`` rows and the best candidate. Candidates with a decomposition are
    judged on the nodes ``ranked`` (all of them, or a sample), walk kernels on folds of
    every labelled node read at the same nodes."""
    rows = {"kernel": [], "gamma": [], "engine": [], "mean_test_score": [],
            "cv_accuracy": [], "merge": [], "fit_time": []}
    best, hits = None, []
    for recipe, grid in zip(recipes, grids):
        start = time.perf_counter()
        kernel = build(recipe)
        train_kernel = restrict_kernel(kernel, all_train[ranked], all_train[ranked])
        engine = engine_of(train_kernel)
        decomposition = decompose(train_kernel) if engine == "spectral" else None
        on_sample = engine == "spectral" or ranked.size == codes.size
        candidate_folds = sample_folds if on_sample else folds
        if engine == "walk":
            train_kernel = restrict_kernel(kernel, all_train, all_train)
            grid = (ALONE_GAMMA,) if own_grids else grid
            candidate_folds = walk_folds(train_kernel.K, folds, codes)
        elif engine == "solved" and own_grids:
            grid = grid[:1]            # a solve per fold and gamma is dear: the first
        shared = time.perf_counter() - start
        alone = len(recipes) == 1 and len(grid) == 1    # nothing to rank
        for gamma in grid:
            start = time.perf_counter()
            oof = out_of_fold(engine, train_kernel, decomposition,
                               codes[ranked] if on_sample else codes, gamma,
                               candidate_folds, params, verbose, damp_singular=alone)
            if oof is None:
                continue
            judged = oof.scores if on_sample else oof.scores[:, ranked]
            if alone:                   # the winner's merges are judged anyway
                score = accuracy = merge = None
            else:
                score, accuracy, merge, predicted = ranking_score(
                    judged, codes[ranked], merges, return_predictions=True)
                hits.append(np.argmax(predicted, axis=1) == codes[ranked])
            elapsed = time.perf_counter() - start + shared / len(grid)
            for key, value in (("kernel", recipe), ("gamma", float(gamma)), ("engine", engine),
                               ("mean_test_score", score), ("cv_accuracy", accuracy),
                               ("merge", merge), ("fit_time", elapsed)):
                rows[key].append(value)
            logger.info("selection %r gamma=%g: %s (%.2f s)", recipe, gamma,
                        "alone, not ranked" if score is None else f"{score:.4f}", elapsed)
            if best is None or score is None or score > best["score"]:
                best = dict(kernel=recipe, gamma=float(gamma), score=score, engine=engine,
                            built=kernel, oof=oof, folds=candidate_folds,
                            index=len(hits) - 1)
    if best is None:
        raise ValueError("no candidate kernel and gamma gave a solvable AsK-LS system; pass "
                         "other kernels or gammas")
    best["optimism"] = selection_optimism(np.array(hits), best["index"],
                                          coarsen_folds(sample_folds, MERGE_FOLDS)) \
        if hits else 0.0
    return rows, best


