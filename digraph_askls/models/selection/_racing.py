"""Step 5b of the selection, the race: candidates ranked on a sample of the labelled
nodes, the few that the sample cannot tell apart scored again on all of them.

Where there are many labelled nodes, ranking every candidate on all of them costs a
decomposition of an ``m x m`` block per candidate (Squirrel's fixed splits: 4,160
labelled nodes, four large blocks), although most candidates
are ruled out by far fewer nodes. The selection then works in two rounds, a successive
halving over the labelled nodes:

1. every (kernel, gamma) is ranked on a stratified sample of ``policy.racing_sample``
   labelled nodes, with folds of its own (:mod:`~._ranking`);
2. the survivors, the best gamma of each kernel whose sample score is within the
   sample's binomial noise of the best one (two standard errors of an accuracy measured
   on that many nodes, :func:`survivors`), at most ``policy.racing_keep`` of them, are
   scored again on every labelled node at each of their gammas (:func:`rescore`), and the
   best of those scores wins.

A candidate that the sample cannot separate from the best goes on; one that is worse by
more than the sample's noise is dropped. By default one goes on
(``racing_keep=1``): the sample chooses the kernel and every labelled node its gamma. A
second finalist costs a second decomposition of the largest block of the fit, and on the
development splits measured it did not change the choice (``docs/results/speed.md``).
"""

import logging
import time
from dataclasses import replace

import numpy as np

from ._engines import on_every_node
from ._ranking import ranking_score
from ._scoring import held_out_rows

__all__ = ["rescore", "survivors"]

logger = logging.getLogger(__name__)


def survivors(leaders, n_sample, keep):
    """The candidates that go on to the second round: ``leaders`` (each candidate's best
    gamma, a :class:`~._ranking.Scored`) whose score is at least the best one's less two
    standard errors of an accuracy measured on ``n_sample`` nodes
    (``2 sqrt(p (1 - p) / n_sample)`` at the best accuracy ``p``), the best ``keep`` of
    them, best first.

    Examples
    --------
    >>> from types import SimpleNamespace as S
    >>> leaders = [S(score=0.50), S(score=0.80), S(score=0.78), S(score=0.70)]
    >>> [s.score for s in survivors(leaders, 1000, 3)]    # noise: 2 * 0.0126
    [0.8, 0.78]
    >>> [s.score for s in survivors(leaders, 50, 3)]      # noise: 2 * 0.057
    [0.8, 0.78, 0.7]
    >>> [s.score for s in survivors(leaders, 50, 2)]      # at most two
    [0.8, 0.78]
    """
    ranked = sorted((leader for leader in leaders if leader.score is not None),
                    key=lambda leader: -leader.score)
    if not ranked:
        return []
    best = min(max(ranked[0].score, 0.0), 1.0)
    noise = 2.0 * np.sqrt(best * (1.0 - best) / max(n_sample, 1))
    return [leader for leader in ranked if leader.score >= best - noise][:max(1, keep)]


def rescore(leader, all_train, codes, folds, merges, settings, policy, positions=None,
            scoring=None):
    """A survivor scored on every labelled node (or on those at ``positions``), at each
    gamma of its grid.

    A walk kernel already scored every labelled node; any other is scored by
    :func:`~._engines.on_every_node`: one decomposition for every gamma where the block
    allows it, else a solve per fold at its sample-best gamma.

    Parameters
    ----------
    leader : Scored
    all_train, codes : ndarray of int
        Every labelled node and its class code.
    folds : list of ndarray
        The folds of the nodes scored (of ``positions`` where given).
    positions : ndarray of int, optional
        Positions in ``all_train`` of the nodes the survivors are scored on: a second,
        larger stratified sample where a decomposition of every labelled node would
        cost too much (``policy.spectral_max_train``). None: all of them.
    scoring : Scoring, optional
        The criterion (:class:`~._scoring.Scoring`); None: the accuracy.

    Returns
    -------
    Scored
        The survivor at its best gamma, with ``score`` its ranking score on the nodes
        scored, ``oof`` and ``folds`` those of the nodes scored (a walk kernel's: of
        every labelled node, which it scored anyway).
    accuracy : float
        The held-out accuracy behind that score.
    hits : list of (float, HitRows or ProbabilityRows)
        For each gamma scored, whether each stand-in of a merge predicts each node scored
        right, (n_stand_ins, m) (its predictions under another scorer,
        :func:`~._scoring.held_out_rows`): what the estimate of the final choice resamples
        (:func:`~._estimate.selection_estimate`).
    """
    started = time.perf_counter()
    scored_at = np.arange(codes.size) if positions is None else np.asarray(positions)
    if leader.engine == "walk":
        scored = [(leader.gamma, leader.oof, leader.engine)]
    else:
        scored = on_every_node(leader.built, leader.gammas, leader.gamma,
                               all_train[scored_at], codes[scored_at], folds, settings,
                               policy)
    best, accuracy, hits = None, None, []
    for gamma, oof, engine in scored:
        view_scores = oof.scores if engine != "walk" or positions is None \
            else oof.scores[:, scored_at]
        score, held_out, _, predicted, every = ranking_score(
            view_scores, codes[scored_at], merges, return_predictions=True,
            every_merge=True, scoring=scoring)
        if scoring is not None and not scoring.is_accuracy:
            held_out = float(np.mean(np.argmax(predicted, axis=1) == codes[scored_at]))
        hits.append((float(gamma), held_out_rows(every, codes[scored_at], scoring)))
        if best is None or score > best.score:
            best = replace(leader, gamma=float(gamma), score=score, oof=oof,
                           folds=leader.folds if engine == "walk" else folds,
                           engine=engine or "spectral")
            accuracy = held_out
    logger.info("race: %r on %d labelled nodes, gamma=%g: %.4f (%.2f s)", leader.kernel,
                scored_at.size, best.gamma, best.score, time.perf_counter() - started)
    return best, accuracy, hits
