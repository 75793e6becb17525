"""Step 5 of the selection: the ranking of the candidates.

Each candidate, at each gamma, gets its out-of-fold view scores from its engine
(:mod:`~._engines`); the held-out accuracy of cheap stand-ins of the merges ranks them
(:func:`ranking_score`). :func:`rank` keeps the best (:class:`Scored`) and how much
choosing it may flatter it (:func:`selection_optimism`).
"""

import logging
import time
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from .._stackers import fit_temperature, softmax_rows, view_logits
from .._folds import coarsen_folds
from ._out_of_fold import OutOfFold
from ._results import ResultsTable
from ._scoring import as_rows, held_out_rows

__all__ = ["Scored", "quality", "rank", "ranking_score", "selection_optimism"]

logger = logging.getLogger(__name__)

#: Ridge penalty (per sample) of the least-squares stacker that ranks candidates.
STACKER_RIDGE = 1e-3


def _views(scores, combine):
    """The views that a merge of the views ``combine``
    (:attr:`~digraph_askls.models._merge.Merge.combine`) reads, (n_views, n, k)."""
    if combine == "source":
        return scores[:1]
    if combine == "target":
        return scores[1:]
    return scores


def _ridge_loo_predictions(scores, codes, ridge):
    """One-hot targets and the leave-one-out predictions of the least-squares stacker."""
    n_views, m, k = scores.shape
    Z = scores.transpose(1, 0, 2).reshape(m, n_views * k)
    Z = Z - Z.mean(axis=0)
    spread = Z.std(axis=0)
    Z = np.divide(Z, spread, out=np.zeros_like(Z), where=spread > 1e-12 * (1 + spread.max()))
    Z = np.hstack([Z, np.ones((m, 1))])
    n_classes = int(codes.max()) + 1
    T = np.zeros((m, n_classes))
    T[np.arange(m), codes] = 1.0
    penalty = ridge * m * np.ones(Z.shape[1])
    penalty[-1] = 0.0                                    # the intercept is not penalised
    inverse = np.linalg.pinv(Z.T @ Z + np.diag(penalty))
    W = inverse @ (Z.T @ T)
    leverage = np.einsum("ij,jk,ik->i", Z, inverse, Z)
    residual = (T - Z @ W) / np.maximum(1.0 - leverage, 1e-12)[:, None]
    return T, T - residual


def quality(T, P, codes, scoring=None):
    """One minus the Brier score of the probabilities ``P`` against the one-hot targets
    ``T``, and their accuracy (or their score under ``scoring``): the one Brier score of
    the selection."""
    brier = 1.0 - float(np.mean(np.sum((T - P) ** 2, axis=1)))
    if scoring is not None and not scoring.is_accuracy:
        return brier, scoring(codes, P)
    return brier, float(np.mean(np.argmax(P, axis=1) == codes))


#: Weight of the Brier score, the tie-breaker, in a ranking score other than accuracy.
TIE_BREAK = 1e-9


def ranking_score(scores, codes, merges, ridge=STACKER_RIDGE, return_predictions=False,
                  every_merge=False, scoring=None):
    """The score that ranks candidate (kernel, gamma) pairs: a held-out accuracy.

    Cheap stand-ins for the merges, on out-of-fold scores: a least-squares stacker on
    the standardised scores of all views and classes, left out one node at a time in
    closed form (PRESS residuals ``e_i / (1 - h_ii)``), for the stacking merges; the
    mean view (its arg-max) for ``"average"``; their half-half blend, the mean view
    through a softmax whose temperature is fitted on the same scores, for ``"blend"``.
    The best of ``merges`` counts. The score is the accuracy of those predictions plus
    a tie-breaker below the accuracy's resolution: ``(1 - Brier) / (m + 1)``. Brier alone
    would prefer a model that hedges (near-uniform probabilities, barely above chance)
    to one that is right more often but sometimes confidently wrong. Under another
    ``scoring`` (a :class:`~._scoring.Scoring`) its score of the same predictions
    replaces the accuracy, the Brier score weighing ``TIE_BREAK`` (the stand-ins'
    predictions are clipped to [0, 1] and normalised where it reads probabilities).

    Parameters
    ----------
    scores : ndarray of shape (2, m, k)
        Out-of-fold view scores.
    codes : ndarray of int, shape (m,)
    merges : sequence of Merge

    Returns
    -------
    score, accuracy, merge : float, float, Merge
        ``accuracy``: the accuracy, or the score under ``scoring``.
    predictions : ndarray of shape (m, n_classes)
        With ``return_predictions``: the held-out predictions of the best merge.
    every_prediction : list of ndarray of shape (m, n_classes)
        With ``return_predictions`` and ``every_merge``: those of each merge's stand-in
        (the best is one of them).
    """
    merges = {merge.combine: merge for merge in merges}
    m = codes.size
    n_classes = int(codes.max()) + 1
    T = np.zeros((m, n_classes))
    T[np.arange(m), codes] = 1.0
    results, predictions = {}, {}
    stacked = None
    if any(merge.stacking for merge in merges.values()):
        stacked = _ridge_loo_predictions(scores, codes, ridge)[1]
        for combine in ("joint", "stack"):
            if combine in merges:
                results[combine] = quality(T, stacked, codes, scoring)
                predictions[combine] = stacked
    softmax_of = {}      # the mean view's calibrated softmax serves "mean" and "blend"
    for combine in ("mean", "source", "target", "blend"):
        if combine not in merges:
            continue
        read = "mean" if combine == "blend" else combine
        if read not in softmax_of:
            views = _views(scores, read)
            flat = views.transpose(1, 0, 2).reshape(m, -1)
            logits = view_logits(flat, views.shape[0])
            temperature, scale = fit_temperature(logits, codes)
            softmax_of[read] = softmax_rows(temperature * logits / scale)
        calibrated = softmax_of[read]
        if combine == "blend":
            calibrated = 0.5 * (stacked + calibrated)
        results[combine] = quality(T, calibrated, codes, scoring)
        predictions[combine] = calibrated
    if scoring is None or scoring.is_accuracy:
        ranked = {combine: accuracy + brier / (m + 1)
                  for combine, (brier, accuracy) in results.items()}
    else:
        ranked = {combine: value + brier * TIE_BREAK
                  for combine, (brier, value) in results.items()}
    best = max(ranked, key=ranked.get)
    if return_predictions and every_merge:
        return (ranked[best], results[best][1], merges[best], predictions[best],
                list(predictions.values()))
    if return_predictions:
        return ranked[best], results[best][1], merges[best], predictions[best]
    return ranked[best], results[best][1], merges[best]


@dataclass(frozen=True)
class Scored:
    """A candidate at one gamma, with its out-of-fold scores and its ranking score.

    Attributes
    ----------
    kernel : GraphKernel
        The recipe.
    gamma : float
    score : float or None
        Its ranking score (None: it stood alone, nothing was ranked).
    engine : str
        The engine that scored it (``"spectral"``, ``"walk"``, ``"solved"``).
    built : the kernel on all nodes
    oof : OutOfFold
    folds : list of ndarray of int
        The folds of ``oof``.
    index : int
        Its row among the ranked candidates' hits (see :func:`selection_optimism`).
    optimism : float
        How much choosing it among the ranked candidates may flatter it.
    row : int
        Its row of ``cv_results_``.
    gammas : tuple of float
        The gammas its candidate was scored at.
    merges : tuple of Merge or None
        Its candidate's own merges (:class:`~._candidates.Candidate`), or None.
    """

    kernel: object
    gamma: float
    score: object
    engine: str
    built: object
    oof: OutOfFold
    folds: list
    index: int
    optimism: float = 0.0
    row: int = -1
    gammas: tuple = ()
    merges: tuple = None


def rank(candidates, single_kernel, codes, ranked, sample_folds, merges, merge_folds,
         scoring=None):
    """Score every candidate at each of its gammas; ``cv_results_`` rows and the best.

    Parameters
    ----------
    candidates : iterable of Candidate
        Each is built when it is reached (the build and its engine's decomposition are
        timed with it, and shared among its gammas).
    single_kernel : bool
        Whether there is one kernel: with one gamma it stands alone, not ranked.
    codes : ndarray of int
        Class codes of every labelled node.
    ranked : ndarray of int
        The positions (in ``codes``) of the nodes the candidates are judged on: all of
        them, or a sample. An engine that scored every labelled node is read at these.
    sample_folds : list of ndarray of int
        The folds of the nodes ``ranked``.
    merges : tuple of Merge
        The merges whose stand-ins rank (:func:`ranking_score`), where a candidate has
        none of its own.
    merge_folds : int
        ``sample_folds`` are joined into as many to measure the optimism.
    scoring : Scoring, optional
        The criterion (:class:`~._scoring.Scoring`); None: the accuracy.

    Returns
    -------
    Ranking
        ``rows`` (the :class:`~._results.ResultsTable` of ``cv_results_``), ``best`` (a :class:`Scored`), ``leaders`` (the best
        gamma of each candidate, in the order the candidates came), ``hits`` (whether
        each ranked (kernel, gamma)'s held-out prediction of each node ``ranked`` is
        right, its best stand-in's; under another scorer its held-out probabilities:
        :func:`~._scoring.held_out_rows`), ``judged_hits`` (the same per stand-in of a
        merge: the score of a (kernel, gamma) is that of its best stand-in, a choice too)
        and ``owners`` (the row of ``hits`` each row of ``judged_hits`` belongs to).
    """
    rows = ResultsTable()
    best, predictions, every_prediction, owners, leaders = None, [], [], [], []
    candidates = iter(candidates)
    while True:
        start = time.perf_counter()
        candidate = next(candidates, None)
        if candidate is None:
            break
        engine = candidate.engine
        shared = time.perf_counter() - start
        unranked = single_kernel and len(candidate.gammas) == 1    # nothing to rank
        leader = None
        for gamma in candidate.gammas:
            start = time.perf_counter()
            oof = engine.out_of_fold(gamma, damp_singular=unranked)
            if oof is None:
                continue
            judged = oof.scores if engine.on_sample else oof.scores[:, ranked]
            if unranked:                # the winner's merges are judged anyway
                score = accuracy = merge = None
            else:
                score, accuracy, merge, predicted, every = ranking_score(
                    judged, codes[ranked], candidate.merges or merges,
                    return_predictions=True, every_merge=True, scoring=scoring)
                predictions.append(predicted)
                every_prediction.extend(every)
                owners.extend([len(predictions) - 1] * len(every))
                if scoring is not None and not scoring.is_accuracy:
                    accuracy = float(np.mean(np.argmax(predicted, axis=1) == codes[ranked]))
            elapsed = time.perf_counter() - start + shared / len(candidate.gammas)
            rows.add(candidate.kernel, gamma, engine.name, score, accuracy, merge,
                     elapsed, judged.shape[1])
            if leader is None or score is None or score > leader.score:
                leader = Scored(candidate.kernel, float(gamma), score, engine.name,
                                engine.kernel, oof, engine.folds, len(predictions) - 1,
                                row=len(rows) - 1, gammas=tuple(candidate.gammas),
                                merges=candidate.merges)
        if leader is None:
            continue
        leaders.append(leader)
        if best is None or leader.score is None or leader.score > best.score:
            best = leader
    if best is None:
        raise ValueError("no candidate kernel and gamma gave a solvable AsK-LS system; pass "
                         "other kernels or gammas")
    hits = held_out_rows(predictions, codes[ranked], scoring)
    if len(hits):
        best = replace(best, optimism=selection_optimism(
            hits, best.index, coarsen_folds(sample_folds, merge_folds)))
    return Ranking(rows, best, leaders, hits,
                   held_out_rows(every_prediction, codes[ranked], scoring),
                   np.array(owners, dtype=int))


class Ranking(NamedTuple):
    """What :func:`rank` returns (see there)."""

    rows: ResultsTable
    best: Scored
    leaders: list
    hits: object
    judged_hits: object
    owners: np.ndarray


def selection_optimism(hits, chosen, folds):
    """How much choosing the best of several configurations by held-out accuracy flatters
    it (Tibshirani and Tibshirani, "A bias correction for the minimum error rate in
    cross-validation", Annals of Applied Statistics 2009): the mean over the folds of the
    best configuration's accuracy on the fold less the chosen one's.

    Parameters
    ----------
    hits : ndarray of bool, shape (n_configurations, m), HitRows or ProbabilityRows
        Whether each configuration's held-out prediction of each node is right (or the
        held-out rows of another scorer, :mod:`~._scoring`: its score on each fold
        replaces the accuracy).
    chosen : int
        The configuration chosen on all the folds.
    folds : list of ndarray of int
        Held-out nodes of each fold.

    Returns
    -------
    float
        The optimism, at least 0; 0 with one configuration.

    Examples
    --------
    >>> import numpy as np
    >>> hits = np.array([[1, 1, 0, 0], [0, 0, 1, 1]], dtype=bool)   # each wins a fold
    >>> float(selection_optimism(hits, 0, [np.array([0, 1]), np.array([2, 3])]))
    0.5
    """
    hits = as_rows(hits)
    if len(hits) < 2:
        return 0.0
    per_fold = hits.fold_means(folds)
    return float(np.mean(per_fold.max(axis=1) - per_fold[:, chosen]))
