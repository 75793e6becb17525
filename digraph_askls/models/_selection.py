"""Choosing the kernel family, its weights and gamma for each graph.

Every candidate kernel is built once on the graph and restricted to the labelled nodes.
Where its training block can be decomposed (a dense block of at most
:data:`SPECTRAL_MAX_TRAIN` nodes, or explicit feature maps with fewer features than
labelled nodes) one SVD gives the solution *and the exact leave-one-out view scores* for
every gamma (:class:`~digraph_askls.linalg.SpectralAsKLS`); elsewhere the candidate is
fitted with fold stacking and its out-of-fold scores stand in. Each (kernel, gamma) is
scored by the leave-one-out (PRESS) residuals of a least-squares stacker on those
out-of-sample scores, as one minus their Brier score
(:func:`~digraph_askls.models._loo.stacking_score`; a proper score, steadier than the
accuracy on small training sets), and the winner is refitted from the decomposition it
already has: its stackers learn from its leave-one-out scores.
"""

import logging
import time

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state

from ..kernels import (AttributeKernel, GraphKernel, LinkProfileKernel, NamedKernel,
                       RoleKernel, WalkKernel, gamma_grid, restrict_kernel)
from ..linalg import SingularSystemError
from ._askls import AsKLSClassifier
from ._loo import blend_score, loo_accuracy, spectral_of, stacking_score
from ._single import ALONE_FOLDS, ALONE_GAMMA, fit_alone, fit_fixed, refit_stackers
from ._train_scores import fold_scores, scores_all_rows

__all__ = ["ALONE_GAMMA", "AUTO_STACKING_MIN", "SPECTRAL_MAX_TRAIN", "as_recipes",
           "default_kernels", "select_kernel"]

logger = logging.getLogger(__name__)

#: Largest number of labelled nodes whose dense training kernel is decomposed for the
#: leave-one-out selection (an SVD of this size takes about 10 s on 2 cores).
SPECTRAL_MAX_TRAIN = 5000

#: ``merge="auto"`` stacks only when every class has at least this many labelled nodes;
#: below, a stacker learns from too few out-of-sample scores per class, and the views
#: are averaged (the paper's merge).
AUTO_STACKING_MIN = 5

#: With stacking merges, the final model stacks the leave-one-out scores.
_LOO_MERGES = {"joint": "joint_loo", "stack": "stack_loo", "blend": "blend_loo"}


def default_kernels(n_train, has_features):
    """The candidate kernels of ``NodeClassifier(kernel="auto")``.

    With node features, three attribute kernels: features averaged over 5 hops of the
    undirected graph (graphs whose neighbours share classes: citations); own features
    beside the separate means of out- and in-neighbours, each at unit length (web pages,
    whose neighbours differ from them); own features beside role bins of degree and text
    length (co-occurrence graphs whose classes follow how much a node says). Then, for
    the structure, the walk kernel (homophilous graphs) and, where its dense training
    block is affordable, the link-profile kernel (graphs whose links are not votes) with
    a little of the role bins (and of the features).
    Measured per graph in ``docs/results/directed.md``.
    """
    kernels = []
    if has_features:
        kernels += [
            AttributeKernel(),
            AttributeKernel(hops=1, propagation="both", self_weight=2.0, renormalize=True,
                            self_loops=False),
            AttributeKernel(hops=0) + RoleKernel(bins=16),
        ]
    if n_train <= SPECTRAL_MAX_TRAIN:
        kernels.append(WalkKernel())
    else:
        # With many labelled nodes a labelled one is a few steps away: 10 steps classify
        # as well as 20 (directed SBMs, Pubmed; docs/results/speed.md) at half the cost.
        kernels.append(WalkKernel(n_hops=10))
    if n_train <= SPECTRAL_MAX_TRAIN:
        profile = LinkProfileKernel() + 0.1 * RoleKernel(bins=16)
        if has_features:
            profile = profile + 0.05 * AttributeKernel(hops=0)
        kernels.append(profile)
    return kernels


def as_recipes(kernel, kernel_params=None):
    """The list of recipes a ``kernel`` parameter stands for (a name, a recipe, a list)."""
    items = kernel if isinstance(kernel, list) else [kernel]
    if not items:
        raise ValueError("kernel must name at least one kernel, got an empty list")
    recipes = []
    for item in items:
        if isinstance(item, GraphKernel):
            recipes.append(item)
        elif isinstance(item, str):
            recipes.append(NamedKernel(item, kernel_params))
        else:
            raise TypeError(f"kernel must be 'auto', a kernel name, a GraphKernel or a list "
                            f"of these, got {type(item).__name__} ({item!r:.60})")
    return recipes


def _thin_maps(train_kernel):
    """Whether the block has explicit maps with fewer features than samples."""
    m = train_kernel.shape[0]
    factors = getattr(train_kernel, "factors", None)
    return callable(factors) and getattr(train_kernel, "n_features", m) < m


def _spectral_possible(train_kernel):
    """Whether the training block is worth decomposing for leave-one-out.

    Explicit maps with fewer features than samples always are (thin SVD). Dense blocks
    are up to :data:`SPECTRAL_MAX_TRAIN` samples, when the kernel forms them directly
    (arrays, sparse matrices, kernels with ``to_dense``); a plain operator such as a walk
    series would need ``m`` products with the whole graph, where fold stacking needs a
    handful of products with a few columns.
    """
    if _thin_maps(train_kernel):
        return True
    direct = (isinstance(train_kernel, np.ndarray) or sparse.issparse(train_kernel)
              or callable(getattr(train_kernel, "to_dense", None)))
    return direct and train_kernel.shape[0] <= SPECTRAL_MAX_TRAIN


_STACKING = ("joint", "stack", "blend", "joint_loo", "stack_loo", "blend_loo", "joint_train",
             "stack_train")


def _criterion(scores, codes, merge, binary):
    if merge in _STACKING:
        return stacking_score(scores, codes)
    if merge in ("source", "target"):
        scores = scores[:1] if merge == "source" else scores[1:]
    return loo_accuracy(scores, codes, binary)


def _resolve_auto(estimator_params, train_codes):
    """``merge="auto"`` is stacking, unless some class has too few labelled nodes."""
    if estimator_params["merge"] != "auto":
        return estimator_params
    if np.bincount(train_codes).min() < AUTO_STACKING_MIN:
        return dict(estimator_params, merge="average")
    return estimator_params


def select_kernel(recipes, build, train_codes, train, gammas, estimator_params,
                  operator=None, verbose=False):
    """Score every (recipe, gamma) on the labelled nodes and fit the best one.

    Parameters
    ----------
    recipes : list of GraphKernel
    build : callable
        ``build(recipe)`` returns the kernel on all nodes.
    train_codes : ndarray of int
        Class codes of the labelled nodes ``train``.
    train : ndarray of int
    gammas : None, float or sequence of float
        None: each recipe's own grid (:func:`~digraph_askls.kernels.gamma_grid`).
    estimator_params : dict
        Parameters of :class:`AsKLSClassifier` (``merge``, ``solver``, ``n_folds`` ...).
        ``merge="auto"`` ranks with the joint stacker, then blends it with the calibrated
        mean view (``"blend"``) if that scores better at the winner; with fewer than
        :data:`AUTO_STACKING_MIN` labelled nodes in some class it averages the views.
    operator : callable, optional
        Applied to the training kernel when there is one configuration only (see
        :class:`~digraph_askls.NodeClassifier`).
    verbose : bool, default=False
        Show the long steps (a walk kernel's steps) in progress bars.

    Returns
    -------
    kernel : the winning kernel on all nodes
    estimator : AsKLSClassifier fitted on ``K(train, train)``
    selection : dict
        ``kernel`` (recipe), ``gamma``, ``score``, ``accuracy``, ``engine`` (``"loo"`` or
        ``"folds"``) and ``merge`` (the final estimator's).
    cv_results : dict of lists
        ``kernel``, ``gamma``, ``engine``, ``mean_test_score``, ``fit_time`` (s),
        ``rank_test_score``, one entry per (recipe, gamma).
    scores : NodeScores or None
        The view scores of every node, when the solve gave them (a walk kernel fitted in
        one solve, see :mod:`~digraph_askls.models._train_scores`).

    A single candidate left at the defaults (``gammas`` None, ``merge="auto"``) whose
    training block is an operator has nothing to be compared with: it is fitted once at
    :data:`ALONE_GAMMA` with its joint stacker on out-of-fold scores of folds that are
    all solved together (``engine="folds"``, :func:`~._single.fit_alone`): on a graph
    kernel the walk steps once for all folds and no product is left for prediction.
    """
    estimator_params = _resolve_auto(estimator_params, train_codes)
    grids = [gamma_grid(recipe) if gammas is None else tuple(np.atleast_1d(gammas))
             for recipe in recipes]
    if (len(recipes) == 1 and gammas is None and estimator_params["merge"] == "auto"
            and operator is None):
        kernel = build(recipes[0])
        train_kernel = restrict_kernel(kernel, train, train)
        if not _spectral_possible(train_kernel):
            return fit_alone(recipes[0], kernel, train_kernel, train_codes, estimator_params,
                             verbose)
    if len(recipes) == 1 and len(grids[0]) == 1:
        return fit_fixed(recipes[0], build, train_codes, train, grids[0][0],
                         estimator_params, operator, verbose)
    merge = estimator_params["merge"]
    # On many labelled nodes the candidates are ranked on a sample of them: the ranking
    # costs the same at any size (the winner is then fitted on all of them).
    ranked = _ranking_sample(train_codes, estimator_params.get("random_state"))
    rows, best = _rank(recipes, grids, build, train, train_codes, ranked, gammas is None,
                       "joint" if merge == "auto" else merge, estimator_params,
                       one_solve=ranked.size < train.size and merge == "auto",
                       verbose=verbose)
    if merge == "auto":
        # The joint stacker ranked the candidates; at the winner, blend it with the
        # calibrated mean view where that predicts the left-out samples better.
        blended = blend_score(best["scores"], train_codes[ranked])[0] > best["score"]
        merge = "blend" if blended else "joint"
    scores = np.asarray(rows["mean_test_score"])
    rows["rank_test_score"] = list(np.argsort(np.argsort(-scores, kind="stable")) + 1)
    selection = {key: best[key] for key in ("kernel", "gamma", "score", "accuracy", "engine")}
    estimator, node_scores = best.pop("fitted"), None
    if ranked.size < train.size:
        train_kernel = restrict_kernel(best["built"], train, train)
        if best["decomposition"] is None and merge in ("joint", "blend"):
            # The ranking already solved the winner's folds on every labelled node.
            fitted = fit_alone(best["kernel"], best["built"], train_kernel, train_codes,
                               estimator_params, verbose, solved=best.get("solved"))
            estimator, node_scores = fitted[1], fitted[4]
            selection["gamma"] = ALONE_GAMMA
        else:
            estimator = _fit_winner(best, train_kernel, train_codes, merge, estimator_params,
                                    decomposition=None)
    elif estimator is None:
        estimator = _fit_winner(best, best["train_kernel"], train_codes, merge,
                                estimator_params, best["decomposition"])
    elif merge != estimator.merge:
        refit_stackers(estimator, merge, train_codes)
    selection["merge"] = estimator.merge
    return best["built"], estimator, selection, rows, node_scores


def _ranking_sample(codes, random_state):
    """Positions of the labelled nodes the candidates are ranked on: all of them, or a
    sample of :data:`SPECTRAL_MAX_TRAIN` with every class in its share (at least two of
    each where it has two)."""
    m = codes.size
    if m <= SPECTRAL_MAX_TRAIN:
        return np.arange(m)
    rng = check_random_state(random_state)
    keep = []
    for label in np.unique(codes):
        members = np.flatnonzero(codes == label)
        size = max(min(2, members.size), int(round(SPECTRAL_MAX_TRAIN * members.size / m)))
        keep.append(rng.choice(members, size, replace=False))
    return np.sort(np.concatenate(keep))


def _fit_winner(best, train_kernel, codes, merge, estimator_params, decomposition):
    """The winner at its gamma on ``train_kernel``, its stackers on the leave-one-out
    scores when it has a decomposition (or can have one), else on folds."""
    loo = decomposition is not None or _thin_maps(train_kernel)
    params = dict(estimator_params, gamma=best["gamma"],
                  merge=_LOO_MERGES.get(merge, merge) if loo else merge)
    return AsKLSClassifier(kernel="precomputed", **params)._fit_kernel(
        train_kernel, codes, spectral=decomposition)


def _rank(recipes, grids, build, all_train, all_codes, ranked, own_grids, ranking, params,
          one_solve, verbose):
    """``cv_results_`` rows and the best (recipe, gamma), scored on the labelled nodes
    ``all_train[ranked]``.

    With ``one_solve``, operator candidates whose products score every node are scored
    on the same nodes by folds of *all* the labelled nodes, in one solve
    (:func:`fold_scores`) at :data:`ALONE_GAMMA`, the gamma they are then fitted at: a
    graph kernel's votes depend on how densely the graph is labelled, and its folds cost
    the same whatever their size. Decomposed candidates are scored by leave-one-out on
    the sample.
    """
    train, codes = all_train[ranked], all_codes[ranked]
    binary = np.unique(codes).size == 2
    rows = {"kernel": [], "gamma": [], "engine": [], "mean_test_score": [], "loo_accuracy": [],
            "fit_time": []}
    best = None
    for recipe, grid in zip(recipes, grids):
        start = time.perf_counter()
        kernel = build(recipe)
        train_kernel = restrict_kernel(kernel, train, train)
        spectral = _spectral_possible(train_kernel)
        together = one_solve and not spectral and scores_all_rows(train_kernel)
        if together:
            train_kernel = restrict_kernel(kernel, all_train, all_train)
        if spectral:
            decomposition = spectral_of(train_kernel)
        elif together:
            grid = (ALONE_GAMMA,)      # all folds in one solve, at the fitted gamma
        elif own_grids:
            grid = grid[:1]            # fold stacking per gamma is dear: the family's first
        shared = time.perf_counter() - start
        for gamma in grid:
            start = time.perf_counter()
            solved = None
            if together:
                scores, solved = fold_scores(
                    train_kernel, all_codes, gamma, n_folds=ALONE_FOLDS, rtol=params["tol"],
                    random_state=params.get("random_state"), verbose=verbose,
                    return_solved=True)
                scores = scores[:, ranked]
                outcome = _criterion(scores, codes, ranking, binary), scores, None
            else:
                outcome = _evaluate(recipe, train_kernel, codes, gamma, ranking, binary,
                                    decomposition if spectral else None, params)
            elapsed = time.perf_counter() - start + shared / len(grid)
            if outcome is None:
                continue
            (score, accuracy), scores, fitted = outcome
            engine = "loo" if spectral else "folds"
            rows["kernel"].append(recipe)
            rows["gamma"].append(float(gamma))
            rows["engine"].append(engine)
            rows["mean_test_score"].append(score)
            rows["loo_accuracy"].append(accuracy)
            rows["fit_time"].append(elapsed)
            logger.info("selection %r gamma=%g: %.4f (%.2f s)", recipe, gamma, score, elapsed)
            if best is None or score > best["score"]:
                best = dict(kernel=recipe, gamma=float(gamma), score=score, accuracy=accuracy,
                            engine=engine, built=kernel, train_kernel=train_kernel,
                            fitted=fitted, scores=scores, solved=solved,
                            decomposition=decomposition if spectral else None)
    if best is None:
        raise ValueError("no candidate kernel and gamma gave a solvable AsK-LS system; pass "
                         "other kernels or gammas")
    return rows, best


def _evaluate(recipe, train_kernel, codes, gamma, merge, binary, decomposition, params):
    """Score of one (kernel, gamma), and the fitted estimator when one had to be fitted."""
    if decomposition is not None:
        n_classes = int(codes.max()) + 1
        if binary:
            Y = np.where(codes == 1, 1.0, -1.0)[:, None]
        else:
            Y = -np.ones((codes.size, n_classes))
            Y[np.arange(codes.size), codes] = 1.0
        try:
            scores = decomposition.loo_scores(Y, gamma)
        except SingularSystemError as exc:
            logger.info("selection %r gamma=%g skipped: %s", recipe, gamma, exc)
            return None
        return _criterion(scores, codes, merge, binary), scores, None
    # Fold stacking gives the out-of-fold scores; a merge without stackers is scored on
    # them too, and refitted as asked if it wins.
    stacked = merge in _STACKING
    estimator = AsKLSClassifier(kernel="precomputed",
                                **dict(params, gamma=gamma, merge=merge if stacked else "joint"))
    estimator._fit_kernel(train_kernel, codes)
    scores = np.transpose(estimator.stacking_scores_, (1, 0, 2))
    return _criterion(scores, codes, merge, binary), scores, estimator if stacked else None
