"""The selection of NodeClassifier: the kernel, gamma and merge for each graph, in one
pass. :func:`select_kernel` runs its steps in order, one module each:

1. **Policy** (:mod:`~._policy`): the thresholds (:class:`SelectionPolicy`) and how the
   systems are solved (:class:`FitSettings`).
2. **Candidates** (:mod:`~._candidates`): the kernels tried, each a :class:`Candidate`
   (its recipe, its gamma grid, its engine).
3. **Folds** (:mod:`~._folds`): the labelled nodes are split once into stratified folds
   (or a scikit-learn splitter's, ``cv=``); every candidate is judged on the same folds (on a stratified sample of them where
   there are more than the policy's ``spectral_max_train``, or ``large_graph_sample``
   on a large graph; the winner is then scored on every labelled node).
4. **Engines** (:mod:`~._engines`, :mod:`~._out_of_fold`): each (kernel, gamma) gets
   out-of-fold view scores, each node scored by the model trained without its fold:
   from one SVD for every gamma, from one solve of all folds (a walk kernel), or from a
   solve per fold.
5. **Ranking** (:mod:`~._ranking`): the held-out accuracy (or the score of ``scoring=``,
   :mod:`~._scoring`) of cheap stand-ins of the merges ranks the candidates; the vote is
   kept over a walk kernel that does not beat it clearly (:func:`_prefer_vote`). Ranked on a sample of many labelled nodes, the
   candidates that the sample cannot tell apart race on all of them, or on a sample of
   ``spectral_max_train`` where there are more (:mod:`~._racing`).
6. **The winner's merge** (:mod:`~._winner`): at the winner, each merge (mean of the
   views, joint stacker, their blend) is fitted on all folds but one and predicts the
   last; the merge of the best held-out accuracy (or score) is kept, and that accuracy is
   ``selection_["held_out_accuracy"]``; corrected for the choice (:mod:`~._estimate`,
   BBC-CV), it is ``selection_["accuracy"]`` (``score_estimate`` under another scorer,
   :func:`~._results.selection_record`). The fitted model is assembled from what the
   winner's folds already hold: nothing is solved again.

This is the ``"folds"`` route of :func:`~._search.search`; a configuration given as is
(a preset, an ``operator``, a merge that the selection does not assemble from folds) is
its ``"fixed"`` route (:mod:`~._single`).
"""

import logging
from dataclasses import replace
from functools import partial
from typing import NamedTuple

import numpy as np

from ...kernels import WalkKernel, gamma_grid
from .._merge import Merge, as_merge
from ._candidates import candidates_of
from ._engines import engine_for, thin_maps_on, winner_on_all
from ._estimate import estimate_rng, selection_estimate
from ._folds import ranking_sample, selection_folds
from ._policy import auto_merges, own_view
from .._folds import coarsen_folds
from ._racing import rescore, survivors
from ._ranking import rank, selection_optimism
from ._results import RANK_TIES, SearchResult, selection_record
from ._scoring import Scoring, as_rows, check_scoring
from ._winner import assemble, calibrate, choose_merge

__all__ = ["merges_for", "select_kernel"]

logger = logging.getLogger(__name__)

def _merges_to_try(merge, labels_per_class, policy):
    """The merges compared at the winner: ``merge`` itself unless ``"auto"``
    (:func:`~._policy.auto_merges`).

    The selection assembles the merges fed by out-of-fold scores; for another (the
    train-score and leave-one-out merges) the joint stacker stands in.
    """
    if merge != "auto":
        merge = as_merge(merge)
        return (merge,) if merge.scores == "folds" else (Merge("joint"),)
    return auto_merges(labels_per_class, policy)


def _own_merges(merge):
    """``merges_of`` of :func:`~._candidates.candidates_of`: under ``merge="auto"`` a
    kernel read through its own view (:func:`~._policy.own_view`) is judged and fitted
    with that view alone (:func:`~._policy.auto_merges`); every other kernel, and every
    kernel under a given merge, with the selection's merges (None)."""
    def merges_of(recipe):
        if merge != "auto" or own_view(recipe) is None:
            return None
        return auto_merges(recipe=recipe)
    return merges_of


def _weighted_merges(merges, merge, codes, scoring, policy):
    """The merges compared under class weights (``scoring.costs`` set): without the
    stackers where a class has fewer than ``policy.min_stacked_per_class`` labelled
    nodes (a stacker learns coefficients for every class, and with two labelled nodes a
    class is learnt from one node in each fold). With 4 (the directed SBM of the user
    guide) the stacker reads the flows between classes that the mean view cannot, and
    is kept."""
    if merge != "auto" or scoring is None or scoring.costs is None:
        return merges
    counts = np.bincount(codes)
    if counts[counts > 0].min() >= policy.min_stacked_per_class:
        return merges
    kept = tuple(m for m in merges if not m.stacking)
    return kept or (Merge("average"),)


def merges_for(merge, train_codes, policy, scoring=None):
    """``merges_of(recipe)``: the names of the merges the selection would fit with a
    kernel under ``merge`` (its own views' where it has some,
    :func:`_own_merges`; else those compared at the winner, :func:`_merges_to_try`),
    with the labelled nodes' classes ``train_codes``. ``fit(valid=...)`` judges each."""
    counts = np.bincount(train_codes)
    merges = [merge] if merge != "auto" else [
        m.name for m in _weighted_merges(
            _merges_to_try(merge, float(np.median(counts[counts > 0])), policy), merge,
            np.unique(train_codes, return_inverse=True)[1], scoring, policy)]
    own_merges = _own_merges(merge)

    def merges_of(recipe):
        own = own_merges(recipe)
        return merges if own is None else [m.name for m in own]
    return merges_of


class _Search(NamedTuple):
    """What every step of one selection reads: the labelled nodes, their folds and the
    rules that judge them."""

    adjacency: object
    train: np.ndarray
    codes: np.ndarray
    ranked: np.ndarray
    folds: list
    sample_folds: list
    merges: tuple
    max_folds: int
    keys: object
    splitter: object
    settings: object
    policy: object
    scoring: Scoring
    cache: object = None


class _Judged(NamedTuple):
    """What the estimate resamples (:func:`~._estimate.selection_estimate`): the rows of
    held-out predictions of the configurations judged, which of them are the winner's,
    the vote's rows (or None) and the positions of the nodes they were judged on."""

    rows: object
    winner_rows: np.ndarray
    vote_rows: object
    estimated_on: np.ndarray


def select_kernel(recipes, adjacency, features, train_codes, train, gammas, *, merge,
                  max_folds, settings, policy, keys=None, splitter=None, scoring=None,
                  cache=None):
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
    keys : ndarray, optional
        A number per labelled node that orders them before they are dealt into folds
        (:func:`~._folds.node_keys`): the folds then follow the nodes, not their positions.
    splitter : scikit-learn splitter, optional
        Its test sets are the selection folds instead (:func:`~._folds.selection_folds`).
    scoring : str, callable or Scoring, optional
        What ranks the candidates, chooses the merge and is estimated
        (:class:`~._scoring.Scoring`); None: the accuracy.
    cache : SearchCache, optional
        What earlier searches of the same labelled nodes and folds computed (the
        validation route's, :class:`~._cache.SearchCache`); None: nothing kept.

    Returns
    -------
    SearchResult
        ``kernel`` (the winning kernel on all nodes), ``estimator`` (the
        :class:`AsKLSClassifier` fitted on ``K(train, train)``), ``selection`` (the
        ``selection_`` of :func:`~._results.selection_record`), ``cv_results`` (one row
        per (recipe, gamma), :data:`~._results.CV_COLUMNS`) and ``node_scores`` (every
        node's view scores, when the solve gave them: a walk kernel).
    """
    scoring = check_scoring(scoring)
    grids = [gamma_grid(recipe) if gammas is None else tuple(np.atleast_1d(gammas))
             for recipe in recipes]
    search = _search(adjacency, train, train_codes, merge, max_folds, keys, splitter,
                     settings, policy, scoring)._replace(cache=cache)
    candidates = candidates_of(recipes, grids, gammas is None, adjacency, features,
                               partial(engine_for, all_train=train, codes=search.codes,
                                       ranked=search.ranked, folds=search.folds,
                                       sample_folds=search.sample_folds, settings=settings,
                                       policy=policy), _own_merges(merge),
                               walk_gamma=policy.walk_gamma, cache=cache)
    ranking = rank(candidates, len(recipes) == 1, search.codes, search.ranked,
                   search.sample_folds, search.merges, policy.merge_folds, scoring)
    best, judged, merge_choices = _vote_step(ranking, search)
    best, judged = _race_step(ranking, best, judged, search)
    if cache is not None and cache.judging:
        return _for_judging(best, train_codes, search)
    return _fit_winner(best, ranking.rows, judged, merge_choices, train_codes, search)


def _search(adjacency, train, train_codes, merge, max_folds, keys, splitter, settings,
            policy, scoring):
    """The :class:`_Search` of one selection: the class codes, the merges compared, the
    nodes that rank (all of them, or a stratified sample where there are many) and the
    folds of every labelled node and of that sample."""
    codes = np.unique(train_codes, return_inverse=True)[1]
    merges = _weighted_merges(_merges_to_try(merge, float(np.median(np.bincount(codes))),
                                             policy), merge, codes, scoring, policy)
    ranked = ranking_sample(codes, settings.random_state,
                            policy.ranking_sample_size(adjacency.shape[0], codes.size))
    folds, sample_folds = selection_folds(codes, max_folds, settings.random_state, keys,
                                          ranked, splitter)
    return _Search(adjacency, train, codes, ranked, folds, sample_folds, merges, max_folds,
                   keys, splitter, settings, policy, scoring)


def _vote_step(ranking, search):
    """The ranking's best after the vote's rule (:func:`_prefer_vote`), what the estimate
    resamples, and the merges the rule cross-validated (by the leader's row).

    Where every labelled node was ranked, the vote and the walk kernel are judged
    through their merges; on a sample, through the stand-ins. The estimate resamples
    the ranked candidates' held-out rows on the ranked nodes (the vote's and the walk
    kernel's through their merges where the rule judged those)."""
    merge_choices = {}
    judge = (partial(_merged_hits, search=search, choices=merge_choices)
             if search.ranked.size == search.codes.size else None)
    best, merged = _prefer_vote(ranking, ranking.best, search.sample_folds, search.policy,
                                judge)
    rows = ranking.judged_hits
    for index, hits in merged.items():
        rows = rows.replace_rows(ranking.owners == index, as_rows(hits))
    judged = _Judged(rows, ranking.owners == best.index, _vote_rows(ranking), search.ranked)
    return best, judged, merge_choices


def _race_step(ranking, best, judged, search):
    """Ranked on a sample: the candidates it cannot tell apart race on more nodes
    (:mod:`~._racing`), and the winner is scored on every labelled node."""
    policy, codes = search.policy, search.codes
    if best.score is not None and policy.races(search.adjacency.shape[0], codes.size):
        return _race(ranking, search)
    if search.ranked.size < codes.size and best.engine != "walk":
        oof, engine = _on_all(best, search)
        best = replace(best, oof=oof, folds=search.folds, engine=engine or best.engine)
    return best, judged


def _race(ranking, search):
    """The second round: every labelled node, or, above ``spectral_max_train``, a second
    stratified sample of that many (their decomposition is what it affords) unless every
    finalist has thin explicit maps, whose decomposition grows with the nodes alone
    (``O(m d^2)``): those are scored on every labelled node at once."""
    policy, codes, settings, train = search.policy, search.codes, search.settings, search.train
    rows = ranking.rows
    going_on = survivors(ranking.leaders, search.ranked.size, policy.racing_keep)
    final = (np.arange(codes.size) if all(thin_maps_on(leader.built, train)
                                             for leader in going_on)
             else ranking_sample(codes, settings.random_state, policy.spectral_max_train))
    final_folds = search.folds if final.size == codes.size else selection_folds(
        codes, search.max_folds, settings.random_state, search.keys, final,
        search.splitter)[1]
    positions = None if final.size == codes.size else final
    finalists = [rescore(leader, train, codes, final_folds, leader.merges or search.merges,
                         settings, policy, positions, search.scoring)
                 for leader in going_on]
    for finalist, accuracy, _ in finalists:
        rows.update(rows.row_of(finalist.kernel, finalist.gamma),
                    mean_test_score=finalist.score, cv_accuracy=accuracy,
                    scored_on=final.size)
    winner = max((finalist for finalist, _, _ in finalists),
                 key=lambda finalist: finalist.score)
    # Every row was ranked on the sample: a row of cv_results_ is a row of the hits.
    index = rows.row_of(winner.kernel, winner.gamma)
    best = replace(winner, index=index, optimism=selection_optimism(
        ranking.hits, index, coarsen_folds(search.sample_folds, policy.merge_folds)))
    # The final choice was made among the finalists on every labelled node: the
    # estimate resamples those rows, not the sample's (fold models trained on the
    # sample alone are weaker than the winner's, and would drag it down).
    judged = [(finalist.kernel is winner.kernel and gamma == winner.gamma, hits)
              for finalist, _, gamma_hits in finalists for gamma, hits in gamma_hits]
    winner_rows = np.concatenate([np.full(len(hits), is_winner) for is_winner, hits in judged])
    judged = _Judged(type(judged[0][1]).stack([hits for _, hits in judged]), winner_rows,
                     None, final)
    if positions is not None and best.engine != "walk":
        # Scored on the second sample: the winner's folds on every labelled node.
        oof, engine = _on_all(best, search)
        best = replace(best, oof=oof, folds=search.folds, engine=engine or best.engine)
    return best, judged


def _on_all(best, search):
    """The winner ranked on a sample, scored on every labelled node at its gamma
    (:func:`~._engines.winner_on_all`), once per kernel and gamma of a search cache."""
    def score():
        return winner_on_all(best.built, best.gamma, search.train, search.codes,
                             search.folds, search.settings, search.policy,
                             None if search.cache is None else search.cache.blocks)
    return score() if search.cache is None else search.cache.on_all(best.built, best.gamma,
                                                                     score)


def _fit_winner(best, rows, judged, merge_choices, train_codes, search):
    """The winner's merge (:func:`~._winner.choose_merge`, or the vote's rule's where it
    judged the same scores), the estimator assembled from its folds, the estimate of its
    score corrected for the choice, and what the fit reports."""
    codes, policy, settings, scoring = search.codes, search.policy, search.settings, search.scoring
    earlier = merge_choices.get(best.index)
    if earlier is not None and earlier[0] is best.oof:        # as the vote's rule judged it
        choice = earlier[1]
    else:
        choice = choose_merge(best.oof.scores, codes,
                              coarsen_folds(best.folds, policy.merge_folds),
                              best.merges or search.merges, policy.merge_cv_max, scoring,
                              settings.node_weights(codes))
    estimator = assemble(best, choice.merge, train_codes, settings)
    # The held-out score of the best of many candidates (and merges) flatters it: the
    # estimate measures the choice itself, by bootstrapping the held-out predictions
    # (selection_estimate). The per-fold optimism (selection_optimism) is reported
    # beside it; subtracted, it overcorrects as often as it corrects (few_labels.md).
    held_out_accuracy = float(np.mean(choice.held_out == codes))
    chosen = choice.rows.take(rows=[choice.chosen_row])
    held_out = held_out_accuracy if scoring.is_accuracy else float(chosen.means()[0])
    estimate, interval = selection_estimate(judged.rows, judged.winner_rows, choice.rows,
                                            chosen, judged.estimated_on,
                                            estimate_rng(settings.random_state),
                                            vote_rows=judged.vote_rows)
    if best.score is None:           # one configuration: its held-out score
        best = replace(best, score=held_out)
        rows.update(0, mean_test_score=held_out, cv_accuracy=held_out_accuracy,
                    merge=choice.merge.name)
    selection = selection_record(
        best.kernel, best.gamma, score=best.score, estimate=estimate, interval=interval,
        held_out=held_out, optimism=best.optimism + choice.optimism, engine=best.engine,
        merge=estimator.merge, n_folds=len(best.folds),
        interval_max=policy.estimate_interval_max, scoring=scoring,
        held_out_accuracy=held_out_accuracy)
    logger.info("selected %r gamma=%g merge=%s: held-out %s %.3f, estimate %.3f "
                "(%.3f to %.3f)", best.kernel, best.gamma, estimator.merge, scoring.name,
                held_out, estimate, *interval)
    return SearchResult(best.built, estimator, selection, rows.columns(RANK_TIES["folds"]),
                        _node_scores(best, choice.merge), calibrate(estimator, best.oof, codes),
                        held_out_proba=choice.proba)


def _node_scores(best, merge):
    """Every node's view scores of the winner's solve for the fitted model to read (a
    walk kernel's), unless the mean view predicts with the model on all labelled nodes."""
    return best.oof.node_scores if merge.stacking or best.oof.full_model is None else None


def _for_judging(best, train_codes, search):
    """The candidate ``best`` of a search that only judges it (``search.cache.judging``,
    the validation route): the estimator of its one merge, as :func:`_fit_winner`
    assembles it (with the joint stacker of an earlier joint or blended merge on the
    same scores), and its calibrator where ``search.cache.calibrate``; no merge
    cross-validated, no estimate, no ``selection_`` or ``cv_results_`` (None)."""
    merges = best.merges or search.merges
    if len(merges) != 1:
        raise ValueError(f"a search that only judges fits one merge, got {len(merges)}")
    cache = search.cache
    estimator = assemble(best, merges[0], train_codes, search.settings,
                         cache.joint_stacker(best.oof))
    cache.keep_joint_stacker(best.oof, estimator)
    calibrator = calibrate(estimator, best.oof, search.codes) if cache.calibrate else None
    return SearchResult(best.built, estimator, None, None, _node_scores(best, merges[0]),
                        calibrator)


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

    With ``judge`` (a function of a leader: its held-out row, :func:`_merged_hits`, or
    its hits) the
    two are judged as they would be fitted: the walk kernel through the merges
    themselves, cross-validated on its out-of-fold scores
    (:func:`~._winner.choose_merge`), not through the ranking's stand-ins. The
    least-squares stand-in of the joint stacker can miss what the stacker reads: on a
    directed SBM whose classes link to one another in set directions it can put the
    walk kernel level with the vote while the joint stacker reads the flows and wins
    clearly. Without ``judge``, the stand-ins' hits judge.

    Other families read other information (link profiles, attributes) and are chosen
    on their score as usual: a rule against every family lost on development draws of
    Wisconsin, where the link profiles' lead is real but noisy
    (``docs/results/few_labels.md``).

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
        merged = {walk.index: judge(walk), vote.index: judge(vote)}
        walk_hits, vote_hits = (as_rows(merged[leader.index]).hits[0]
                                for leader in (walk, vote))
    else:
        hits = as_rows(ranking.hits).hits
        walk_hits, vote_hits = hits[walk.index], hits[vote.index]
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


def _merged_hits(leader, search, choices):
    """The held-out row of the leader under the best of its merges (its own, else the
    search's), each cross-validated on its out-of-fold scores over its folds joined into
    ``policy.merge_folds``: the :func:`~._winner.choose_merge` of the winner, kept in
    ``choices`` by the leader's row of the hits (with its out-of-fold scores) for the fit
    to reuse. Under the accuracy the row is whether each labelled node's held-out
    prediction is right."""
    choice = choose_merge(leader.oof.scores, search.codes,
                          coarsen_folds(leader.folds, search.policy.merge_folds),
                          leader.merges or search.merges, search.policy.merge_cv_max,
                          search.scoring, search.settings.node_weights(search.codes))
    choices[leader.index] = (leader.oof, choice)
    return choice.rows.take(rows=[choice.chosen_row])


def _vote_rows(ranking):
    """The rows of ``ranking.judged_hits`` that are the vote's, and those of the walk
    kernels it is preferred to (:func:`_prefer_vote`); None without a vote."""
    vote = _vote_of(ranking)
    if vote is None or vote.score is None:
        return None
    rivals = [leader.index for leader in ranking.leaders
              if _reads_the_votes_walks(leader.kernel)]
    return ranking.owners == vote.index, np.isin(ranking.owners, rivals)
