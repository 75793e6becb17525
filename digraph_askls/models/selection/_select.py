"""The selection of NodeClassifier: the kernel, gamma and merge for each graph, in one
pass. :func:`select_kernel` runs its steps in order, one module each:

1. **Policy** (:mod:`~._policy`): the thresholds (:class:`SelectionPolicy`) and how the
   systems are solved (:class:`FitSettings`).
2. **Candidates** (:mod:`~._candidates`): the kernels tried, each a :class:`Candidate`
   (its recipe, its gamma grid, its engine).
3. **Folds** (:mod:`~._folds`): the labelled nodes are split once into stratified folds;
   every candidate is judged on the same folds (on a stratified sample of them where
   there are more than the policy's ``spectral_max_train``, or ``large_graph_sample``
   on a large graph; the winner is then scored on every labelled node).
4. **Engines** (:mod:`~._engines`, :mod:`~._out_of_fold`): each (kernel, gamma) gets
   out-of-fold view scores, each node scored by the model trained without its fold:
   from one SVD for every gamma, from one solve of all folds (a walk kernel), or from a
   solve per fold.
5. **Ranking** (:mod:`~._ranking`): the held-out accuracy of cheap stand-ins of the
   merges ranks the candidates. Ranked on a sample of many labelled nodes, the
   candidates that the sample cannot tell apart race on all of them, or on a sample of
   ``spectral_max_train`` where there are more (:mod:`~._racing`).
6. **The winner's merge** (:mod:`~._winner`): at the winner, each merge (mean of the
   views, joint stacker, their blend) is fitted on all folds but one and predicts the
   last; the merge of the best held-out accuracy is kept, and that accuracy is
   ``selection_["held_out_accuracy"]``; corrected for the choice (:mod:`~._estimate`,
   BBC-CV), it is ``selection_["accuracy"]``. The fitted model is assembled from what the
   winner's folds already hold: nothing is solved again.

One configuration given as is (a preset, an ``operator``, a merge that the selection
does not assemble from folds) is fitted by :class:`AsKLSClassifier` itself
(:mod:`~._single`).
"""

import logging
from dataclasses import replace
from functools import partial
from typing import NamedTuple

import numpy as np

from ...kernels import WalkKernel, gamma_grid
from .._askls import AsKLSClassifier
from .._merge import Merge, as_merge
from ._candidates import candidates_of
from ._engines import engine_for, thin_maps_on, winner_on_all
from ._estimate import estimate_rng, selection_estimate
from ._folds import ranking_sample, selection_folds
from .._folds import coarsen_folds
from ._racing import rescore, survivors
from ._ranking import rank, selection_optimism
from ._single import fit_fixed
from ._winner import assemble, choose_merge

__all__ = ["Selected", "select_kernel"]

logger = logging.getLogger(__name__)

#: Merges that ``merge="auto"`` compares at the winning kernel.
AUTO_MERGES = (Merge("joint"), Merge("blend"), Merge("mean"))


def _merges_to_try(merge, labels_per_class, policy):
    """The merges compared at the winner: ``merge`` itself unless ``"auto"``.

    The selection assembles the merges fed by out-of-fold scores; for another (the
    train-score and leave-one-out merges) the joint stacker stands in.

    With few labelled nodes per class (the median class, at most
    ``policy.few_labels_per_class``) the mean of the views, the joint stacker
    and their blend: a stacker may read patterns across classes (a directed SBM's flows)
    that the mean view cannot, and the mean view may rank the classes better than a
    stacker learnt from a handful of nodes; the cross-validation decides
    (:func:`~._winner.choose_merge`). With more, the stackers alone: the mean view has no
    threshold of its own for classes of unequal sizes (a binary graph's sign of zero), and
    its held-out accuracy, close to theirs, would win on noise.
    """
    if merge != "auto":
        merge = as_merge(merge)
        return (merge,) if merge.scores == "folds" else (Merge("joint"),)
    if labels_per_class > policy.few_labels_per_class:
        return tuple(merge for merge in AUTO_MERGES if merge.stacking)
    return AUTO_MERGES


def _own_merges(merge):
    """``merges_of`` of :func:`~._candidates.candidates_of`: under ``merge="auto"`` a
    kernel read through its own views (:attr:`~digraph_askls.kernels.GraphKernel.views`,
    the personalised-PageRank vote's target view) is judged and fitted with those views
    alone; every other kernel, and every kernel under a given merge, with the selection's
    merges."""
    def merges_of(recipe):
        views = getattr(recipe, "views", None)
        if merge != "auto" or not views or len(views) != 1:
            return None
        return (Merge(views[0]),)
    return merges_of


def select_kernel(recipes, adjacency, features, train_codes, train, gammas, *, merge,
                  max_folds, settings, policy, operator=None, keys=None, as_given=False):
    """Score every (recipe, gamma) on the labelled nodes and fit the best one.

    Parameters
    ----------
    recipes : list of GraphKernel
    adjacency : sparse matrix
        The graph (row = source); a large graph ranks on a smaller sample.
    features : ndarray, sparse matrix or None
        The nodes' attributes; ``recipe.make(adjacency, features)`` builds a kernel.
    train_codes : ndarray of int
        Class codes of the labelled nodes ``train``.
    train : ndarray of int
    gammas : None, float or sequence of float
        None: each recipe's own grid (:func:`~digraph_askls.kernels.gamma_grid`; a walk
        kernel scored in one solve is fitted at ``policy.walk_gamma``).
    merge : str
        The ``merge`` parameter; ``"auto"`` compares the merges at the winner.
    max_folds : int
        At most this many selection folds (``NodeClassifier(n_folds=...)``).
    settings : FitSettings
        How the systems are solved.
    policy : SelectionPolicy
        The thresholds.
    operator : callable, optional
        Applied to the training kernel of a single configuration (see
        :class:`~digraph_askls.NodeClassifier`).
    keys : ndarray, optional
        A number per labelled node that orders them before they are dealt into folds
        (:func:`~._folds.node_keys`): the folds then follow the nodes, not their positions.
    as_given : bool, default=False
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
        estimate of the accuracy, corrected for the choice:
        :func:`~._estimate.selection_estimate`), ``accuracy_interval``,
        ``accuracy_reliable`` (the interval no wider than
        ``policy.estimate_interval_max``), ``held_out_accuracy`` (the
        accuracy of held-out predictions of the fitted model's merge: each labelled node
        predicted by a merge and a model that did not learn it), ``optimism`` (how much
        choosing the best of several candidates and merges may flatter it, see
        :func:`~._ranking.selection_optimism`), ``engine``
        (``"spectral"``, ``"walk"``, ``"solved"`` or ``"fixed"``), ``merge`` and
        ``n_folds``.
    cv_results : dict of lists
        One entry per (recipe, gamma): ``kernel``, ``gamma``, ``engine``,
        ``mean_test_score``, ``cv_accuracy``, ``merge`` (the merge its score stands
        for), ``fit_time`` (s), ``scored_on`` (labelled nodes behind the score) and
        ``rank_test_score``.
    node_scores : NodeScores or None
        Every node's view scores, when the solve gave them (a walk kernel).
    """
    grids = [gamma_grid(recipe) if gammas is None else tuple(np.atleast_1d(gammas))
             for recipe in recipes]
    single = len(recipes) == 1 and len(grids[0]) == 1
    if as_given or operator is not None or (merge != "auto" and as_merge(merge).scores != "folds"):
        if not single:
            raise ValueError(f"merge={merge!r}, operator= and presets fit one kernel and one "
                             f"gamma; got {len(recipes)} kernels and gammas {grids}")
        return Selected(*fit_fixed(recipes[0].make(adjacency, features), recipes[0],
                                   train_codes, train, grids[0][0], merge, max_folds, settings,
                                   operator))
    codes = np.unique(train_codes, return_inverse=True)[1]
    merges = _merges_to_try(merge, float(np.median(np.bincount(codes))), policy)
    # 3. The folds of every labelled node, and of the sample that ranks (all of them, or
    # a stratified sample where there are many).
    ranked = ranking_sample(codes, settings.random_state,
                            policy.ranking_sample_size(adjacency.shape[0], codes.size))
    on_sample = ranked.size < codes.size
    folds, sample_folds = selection_folds(codes, max_folds, settings.random_state, keys,
                                          ranked)
    # 2, 4, 5. The candidates, each with its engine (built as it is reached), ranked.
    candidates = candidates_of(recipes, grids, gammas is None, adjacency, features,
                               partial(engine_for, all_train=train, codes=codes, ranked=ranked,
                                       folds=folds, sample_folds=sample_folds,
                                       settings=settings, policy=policy),
                               _own_merges(merge))
    ranking = rank(candidates, len(recipes) == 1, codes, ranked, sample_folds, merges,
                   policy.merge_folds)
    rows, best = ranking.rows, ranking.best
    # Where every labelled node was ranked, the vote and the walk kernel are judged
    # through their merges; on a sample, through the stand-ins.
    merge_choices = {}
    judge = (partial(_merged_hits, codes=codes, merges=merges, policy=policy,
                     choices=merge_choices) if ranked.size == codes.size else None)
    best, merged = _prefer_vote(ranking, best, sample_folds, policy, judge)
    # What the estimate resamples: the ranked candidates' hits on the ranked nodes (the
    # vote's and the walk kernel's through their merges where the rule judged those).
    judged_hits, winner_rows = ranking.judged_hits, ranking.owners == best.index
    if merged:
        judged_hits = judged_hits.copy()
        for index, hits in merged.items():
            judged_hits[ranking.owners == index] = hits
    vote_rows = _vote_rows(ranking)
    estimated_on = ranked
    # 5b. Ranked on a sample: the candidates it cannot tell apart race on more nodes.
    if best.score is not None and policy.races(adjacency.shape[0], codes.size):
        # The second round: every labelled node, or, above spectral_max_train, a second
        # stratified sample of that many (their decomposition is what it affords) unless
        # every finalist has thin explicit maps, whose decomposition grows with the nodes
        # alone (O(m d^2)): those are scored on every labelled node at once.
        going_on = survivors(ranking.leaders, ranked.size, policy.racing_keep)
        final = (np.arange(codes.size) if all(thin_maps_on(leader.built, train)
                                                 for leader in going_on)
                 else ranking_sample(codes, settings.random_state, policy.spectral_max_train))
        final_folds = folds if final.size == codes.size else selection_folds(
            codes, max_folds, settings.random_state, keys, final)[1]
        positions = None if final.size == codes.size else final
        finalists = [rescore(leader, train, codes, final_folds, leader.merges or merges,
                             settings, policy, positions)
                     for leader in going_on]
        for finalist, accuracy, _ in finalists:
            row = _row_of(rows, finalist)
            rows["mean_test_score"][row] = finalist.score
            rows["cv_accuracy"][row] = accuracy
            rows["scored_on"][row] = final.size
        winner = max((finalist for finalist, _, _ in finalists),
                     key=lambda finalist: finalist.score)
        # Every row was ranked on the sample: a row of cv_results_ is a row of the hits.
        index = _row_of(rows, winner)
        best = replace(winner, index=index, optimism=selection_optimism(
            ranking.hits, index, coarsen_folds(sample_folds, policy.merge_folds)))
        # The final choice was made among the finalists on every labelled node: the
        # estimate resamples those hits, not the sample's (fold models trained on the
        # sample alone are weaker than the winner's, and would drag it down).
        judged = [(finalist.kernel is winner.kernel and gamma == winner.gamma, hits)
                  for finalist, _, gamma_hits in finalists for gamma, hits in gamma_hits]
        judged_hits = np.vstack([hits for _, hits in judged])
        winner_rows = np.concatenate([np.full(len(hits), is_winner)
                                      for is_winner, hits in judged])
        estimated_on = final
        vote_rows = None
        if positions is not None and best.engine != "walk":
            # Scored on the second sample: the winner's folds on every labelled node.
            oof, engine = winner_on_all(best.built, best.gamma, train, codes, folds,
                                        settings, policy)
            best = replace(best, oof=oof, folds=folds, engine=engine or best.engine)
    elif on_sample and best.engine != "walk":
        oof, engine = winner_on_all(best.built, best.gamma, train, codes, folds, settings,
                                    policy)
        best = replace(best, oof=oof, folds=folds, engine=engine or best.engine)
    # 6. The winner's merge, and the estimator assembled from its folds.
    judged = merge_choices.get(best.index)
    if judged is not None and judged[0] is best.oof:        # as the vote's rule judged it
        chosen, held_out, merge_optimism, merge_hits = judged[1]
    else:
        chosen, held_out, merge_optimism, merge_hits = choose_merge(
            best.oof.scores, codes, coarsen_folds(best.folds, policy.merge_folds),
            best.merges or merges, policy.merge_cv_max)
    estimator = assemble(best, chosen, train_codes, settings)
    # The held-out accuracy of the best of many candidates (and merges) flatters it: the
    # estimate measures the choice itself, by bootstrapping the held-out predictions
    # (selection_estimate). The per-fold optimism (selection_optimism) is reported
    # beside it; subtracted, it overcorrects as often as it corrects (few_labels.md).
    held_out_accuracy = float(np.mean(held_out == codes))
    estimate, interval = selection_estimate(judged_hits, winner_rows, merge_hits,
                                            held_out == codes, estimated_on,
                                            estimate_rng(settings.random_state),
                                            vote_rows=vote_rows)
    if best.score is None:           # one configuration: its held-out accuracy
        best = replace(best, score=held_out_accuracy)
        rows["mean_test_score"][0] = rows["cv_accuracy"][0] = held_out_accuracy
        rows["merge"][0] = chosen.name
    scores = np.asarray(rows["mean_test_score"])
    rows["rank_test_score"] = list(np.argsort(np.argsort(-scores, kind="stable")) + 1)
    selection = dict(kernel=best.kernel, gamma=best.gamma, score=best.score,
                     accuracy=estimate, accuracy_interval=interval,
                     accuracy_reliable=bool(interval[1] - interval[0]
                                            <= policy.estimate_interval_max),
                     held_out_accuracy=held_out_accuracy,
                     optimism=best.optimism + merge_optimism,
                     engine=best.engine, merge=estimator.merge, n_folds=len(best.folds))
    logger.info("selected %r gamma=%g merge=%s: held-out accuracy %.3f, estimate %.3f "
                "(%.3f to %.3f)", best.kernel, best.gamma, estimator.merge,
                held_out_accuracy, estimate, *interval)
    node_scores = best.oof.node_scores if chosen.stacking or best.oof.full_model is None \
        else None
    return Selected(best.built, estimator, selection, rows, node_scores)


def _vote_of(ranking):
    """The leader read through its own views (the vote, :class:`~digraph_askls.kernels.
    VoteKernel`), or None."""
    return next((leader for leader in ranking.leaders if leader.merges is not None), None)


def _reads_the_votes_walks(kernel):
    """Whether ``kernel`` is a walk kernel read through both views: the walks the vote
    (:class:`~digraph_askls.kernels.VoteKernel`) reads, read with more choices."""
    return isinstance(kernel, WalkKernel) and not getattr(kernel, "views", None)


def _prefer_vote(ranking, best, sample_folds, policy, judge=None):
    """The ranking's best, or, where the best is the vote or a walk kernel, the vote
    unless the walk kernel beats it clearly.

    The vote (:class:`~digraph_askls.kernels.VoteKernel`, the personalised-PageRank vote)
    and the walk kernel read the same walks; the vote is the simpler reading: one view,
    nothing stacked, one gamma. With a handful of labelled nodes per class their held-out
    accuracies are too noisy to tell them apart, and the walk kernel's merges win on
    noise. The one-standard-error rule (Breiman et al., *Classification and Regression
    Trees*, 1984) keeps the vote unless the walk kernel beats it, node by node on the
    same held-out nodes, by more than one standard error of the mean difference.

    With ``judge`` (a function of a leader: its held-out hits, :func:`_merged_hits`) the
    two are judged as they would be fitted: the walk kernel through the merges
    themselves, cross-validated on its out-of-fold scores
    (:func:`~._winner.choose_merge`), not through the ranking's stand-ins. The
    least-squares stand-in of the joint stacker can miss what the stacker reads: on a
    directed SBM of 10 classes with 10 labelled nodes per class, whose classes link to
    one another in set directions, the stand-in put the walk kernel level with the vote
    (0.62-0.71 against 0.60-0.69 over 8 fold draws) while the joint stacker's held-out
    accuracy was 0.83, and on the other nodes the walk kernel scored 0.85 against the
    vote's 0.54. Without ``judge``, the stand-ins' hits judge.

    Other families read other information (link profiles, attributes) and are chosen
    on their score as usual: on development draws a rule against every family lost up
    to 0.09 on Wisconsin, where the link profiles' lead is real but noisy.

    Returns the chosen :class:`~._ranking.Scored` and, where the merges judged, the
    held-out hits they gave the vote and the walk kernel, by their rows of the hits.
    """
    if best.score is None:
        return best, {}
    vote = _vote_of(ranking)
    walks = [leader for leader in ranking.leaders if _reads_the_votes_walks(leader.kernel)]
    # Compared by their rows of the hits: rank() returns the best as a copy.
    if vote is None or not walks or best.index not in [vote.index] + [
            leader.index for leader in walks]:
        return best, {}
    walk = max(walks, key=lambda leader: leader.score)
    if judge is not None:
        walk_hits, vote_hits = judge(walk), judge(vote)
        merged = {walk.index: walk_hits, vote.index: vote_hits}
    else:
        walk_hits, vote_hits = ranking.hits[walk.index], ranking.hits[vote.index]
        merged = {}
    lead = walk_hits.astype(float) - vote_hits
    margin = lead.std(ddof=1) / np.sqrt(lead.size) if lead.size > 1 else np.inf
    chosen = walk if lead.mean() > margin else vote
    if chosen is vote:
        logger.info("selection keeps %r: %r leads it by %.3f, within one standard error "
                    "(%.3f)", vote.kernel, walk.kernel, lead.mean(), margin)
    if chosen.index == best.index:
        return best, merged
    return replace(chosen, optimism=selection_optimism(
        ranking.hits, chosen.index, coarsen_folds(sample_folds, policy.merge_folds))), merged


def _merged_hits(leader, codes, merges, policy, choices):
    """Whether each labelled node's held-out prediction is right under the best of the
    leader's merges (its own, else ``merges``), each cross-validated on its out-of-fold
    scores over its folds joined into ``policy.merge_folds``: the
    :func:`~._winner.choose_merge` of the winner, kept in ``choices`` by the leader's
    row of the hits (with its out-of-fold scores) for the fit to reuse."""
    choice = choose_merge(leader.oof.scores, codes,
                          coarsen_folds(leader.folds, policy.merge_folds),
                          leader.merges or merges, policy.merge_cv_max)
    choices[leader.index] = (leader.oof, choice)
    return choice[1] == codes


def _vote_rows(ranking):
    """The rows of ``ranking.judged_hits`` that are the vote's, and those of the walk
    kernels it is preferred to (:func:`_prefer_vote`); None without a vote."""
    vote = _vote_of(ranking)
    if vote is None or vote.score is None:
        return None
    rivals = [leader.index for leader in ranking.leaders
              if _reads_the_votes_walks(leader.kernel)]
    return ranking.owners == vote.index, np.isin(ranking.owners, rivals)


def _row_of(rows, scored):
    """The row of ``cv_results_`` of a :class:`~._ranking.Scored` (its kernel and gamma)."""
    return next(row for row, (kernel, gamma) in enumerate(zip(rows["kernel"], rows["gamma"]))
                if kernel is scored.kernel and gamma == scored.gamma)


class Selected(NamedTuple):
    """What :func:`select_kernel` returns (see there)."""

    kernel: object
    estimator: AsKLSClassifier
    selection: dict
    cv_results: dict
    node_scores: object
