"""Step 5b of the selection, the race: candidates ranked on a sample of the labelled
nodes, the few that the sample cannot tell apart scored again on all of them.

Where there are many labelled nodes, ranking every candidate on all of them costs a
decomposition of an ``m x m`` block per candidate (Squirrel's fixed splits: 4,160
labelled nodes, four blocks of about 15 s each on one core), although most candidates
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
more than the sample's noise is dropped.
"""

import logging
import time
from dataclasses import replace

import numpy as np

from ...kernels import restrict_kernel
from ...linalg import NotPositiveDefinite, SingularSystemError
from .._training import decompose
from ._engines import _decomposable, winner_on_all
from ._out_of_fold import spectral_out_of_fold
from ._ranking import ranking_score

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


def rescore(leader, all_train, codes, folds, merges, settings, policy):
    """A survivor scored on every labelled node, at each gamma of its grid.

    A block that one decomposition serves (:func:`~._engines._decomposable`) is
    decomposed once and scored at every gamma; a walk kernel already scored every
    labelled node; any other kernel is solved per fold at its sample-best gamma
    (:func:`~._engines.winner_on_all`).

    Returns
    -------
    Scored
        The survivor at its best gamma on every labelled node, with ``score`` its ranking
        score there, ``oof`` and ``folds`` those of every labelled node.
    accuracy : float
        The held-out accuracy behind that score.
    """
    started = time.perf_counter()
    if leader.engine == "walk":
        score, accuracy, _ = ranking_score(leader.oof.scores, codes, merges)
        return replace(leader, score=score), accuracy
    train_kernel = restrict_kernel(leader.built, all_train, all_train)
    best, accuracy = None, None
    if _decomposable(train_kernel, policy):
        decomposition = decompose(train_kernel)
        for gamma in leader.gammas:
            try:
                oof = spectral_out_of_fold(decomposition, codes, gamma, folds)
            except (SingularSystemError, NotPositiveDefinite) as exc:
                logger.info("race, gamma=%g on every labelled node: %s", gamma, exc)
                continue
            score, held_out, _ = ranking_score(oof.scores, codes, merges)
            if best is None or score > best.score:
                best = replace(leader, gamma=float(gamma), score=score, oof=oof, folds=folds,
                               engine="spectral")
                accuracy = held_out
    if best is None:
        oof, engine = winner_on_all(leader.built, leader.gamma, all_train, codes, folds,
                                    settings, policy)
        score, accuracy, _ = ranking_score(oof.scores, codes, merges)
        best = replace(leader, score=score, oof=oof, folds=folds,
                       engine=engine or leader.engine)
    logger.info("race: %r on every labelled node, gamma=%g: %.4f (%.2f s)", leader.kernel,
                best.gamma, best.score, time.perf_counter() - started)
    return best, accuracy
