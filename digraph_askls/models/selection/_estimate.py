"""The selection's accuracy estimate, corrected for the choice it reports on.

The held-out accuracy of the configuration that won on the same held-out nodes is
optimistic: among many noisy candidates judged on a few nodes, the best is partly the
luckiest. Bootstrap bias-corrected cross-validation (BBC-CV; Tsamardinos, Greasidou and
Borboudakis, "Bootstrapping the out-of-sample predictions for efficient and accurate
cross-validation", Machine Learning 107, 2018) measures the choice itself without
solving anything again: it resamples the held-out predictions that every configuration
already has, chooses on the resampled nodes as the selection does, and scores the choice
on the nodes left out of the resample (:func:`bootstrap_bias_corrected`).
"""

import numpy as np
from scipy import special

from ._scoring import HitRows, as_rows

__all__ = ["BBC_BOOTSTRAPS", "ESTIMATE_LEVEL", "bootstrap_bias_corrected", "estimate_rng",
           "selection_estimate"]

#: Bootstrap samples of the labelled nodes that measure the choice.
BBC_BOOTSTRAPS = 300

#: Coverage meant by ``selection_["accuracy_interval"]``.
ESTIMATE_LEVEL = 0.9

#: Mixed into the seed, so that the estimate's draws are not the folds' draws.
_STREAM = 0x5EB1A5


def estimate_rng(random_state):
    """The generator of the estimate's bootstrap, from the fit's ``random_state``
    without drawing from it (a ``RandomState`` given by the caller is read, not
    advanced, so that nothing else the fit draws changes): a fixed ``random_state`` gives
    the same estimate, and ``None`` a fixed seed of its own.

    Examples
    --------
    >>> a = estimate_rng(3).integers(1000, size=3)
    >>> bool((a == estimate_rng(3).integers(1000, size=3)).all())
    True
    """
    if isinstance(random_state, (int, np.integer)):
        return np.random.default_rng([int(random_state) & 0xFFFFFFFF, _STREAM])
    if isinstance(random_state, np.random.RandomState):
        key, position = random_state.get_state()[1:3]
        return np.random.default_rng([*map(int, key[:4]), int(position), _STREAM])
    return np.random.default_rng(_STREAM)


def _resample(m, rng, n_boot):
    """Bootstrap counts of ``m`` nodes, (n_boot, m), and the out-of-bag weights (each
    row sums to one; samples that leave no node out are dropped)."""
    counts = rng.multinomial(m, np.full(m, 1.0 / m), size=n_boot).astype(np.float64)
    out_of_bag = (counts == 0).astype(np.float64)
    n_out = out_of_bag.sum(axis=1)
    keep = n_out > 0
    return counts[keep], out_of_bag[keep] / n_out[keep, None]


def _choose(in_bag, scored, keep=None):
    """Per sample, the mean of ``scored`` over the configurations best ``in_bag``; with
    ``keep = (kept, rows)``, the samples ``kept`` (bool per sample) choose the
    configurations ``rows`` (bool per configuration) instead."""
    chosen = in_bag == in_bag.max(axis=1, keepdims=True)
    if keep is not None:
        kept, rows = keep
        chosen[kept] = rows
    return (scored * chosen).sum(axis=1) / chosen.sum(axis=1)


def _keeps_vote(counts, hits, vote, rivals=None):
    """Per bootstrap sample, whether the one-standard-error rule keeps the row ``vote``
    (:func:`~._select._prefer_vote`): the sample's best row is one of ``rivals`` (bool per
    row; None: any row) and does not beat the vote, node by node over the sample's nodes
    (with their multiplicity), by more than one standard error of the mean difference."""
    m = counts.shape[1]
    best = np.argmax(counts @ hits.T, axis=1)
    lead = hits[best] - hits[vote]
    mean = (counts * lead).sum(axis=1) / m
    spread = np.maximum((counts * lead * lead).sum(axis=1) / m - mean * mean, 0.0)
    margin = np.sqrt(spread * m / max(m - 1, 1) / m) if m > 1 else np.inf
    keeps = mean <= margin
    return keeps if rivals is None else keeps & np.asarray(rivals, dtype=bool)[best]


def _summary(values, level):
    low, high = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return float(values.mean()), (float(low), float(high))


def bootstrap_bias_corrected(hits, rng, n_boot=BBC_BOOTSTRAPS, level=ESTIMATE_LEVEL):
    """The accuracy of choosing the configuration of best held-out accuracy, BBC-CV.

    Each of ``n_boot`` bootstrap samples of the nodes (drawn with replacement) chooses
    the configuration that is right on most of its nodes (counted with their
    multiplicity; configurations tied there share the choice equally, as no tie-breaker
    of the selection is free of the other nodes) and scores it on the nodes it did not
    draw (about 37 % of them). The mean of those out-of-bag accuracies is the estimate;
    unlike the best held-out accuracy it is not scored on the nodes that chose. It
    tends to err low rather than high (the choice is made on about 63 % of the distinct
    nodes). Their percentiles are the interval: the spread of the accuracy of a choice
    on a third of the nodes, wider than the estimate's own uncertainty.

    Parameters
    ----------
    hits : array-like of bool, shape (n_configurations, m)
        Whether each configuration's held-out (out-of-fold) prediction of each node is
        right, every configuration on the same ``m`` nodes; or the held-out rows of
        another scorer (:class:`~._scoring.ProbabilityRows`), whose score on the resampled
        nodes (with their multiplicity as sample weights) replaces the accuracy.
    rng : numpy Generator
    n_boot : int
    level : float
        The interval's nominal coverage.

    Returns
    -------
    estimate : float
    interval : tuple of float
        The ``(1 - level) / 2`` and ``(1 + level) / 2`` percentiles.

    Examples
    --------
    Forty configurations guessing at random on 20 nodes (a coin each): the best is right
    on 70 % of them, the choice on half of new ones.

    >>> rng = np.random.default_rng(0)
    >>> hits = rng.random((40, 20)) < 0.5
    >>> round(float(hits.mean(axis=1).max()), 2)
    0.7
    >>> estimate, (low, high) = bootstrap_bias_corrected(hits, np.random.default_rng(1))
    >>> bool(abs(estimate - 0.5) < 0.05 and low < 0.5 < high)
    True
    """
    hits = as_rows(hits)
    counts, out_of_bag = _resample(hits.shape[1], rng, n_boot)
    if not counts.size:          # one node: nothing is ever left out
        value = float(hits.means().max())
        return value, (value, value)
    # Right answers counted with multiplicity: exact integers, so ties are exact.
    return _summary(_choose(hits.weighted(counts), hits.weighted(out_of_bag)), level)


def selection_estimate(candidate_hits, winner_rows, merge_hits, chosen_hits, ranked, rng,
                       n_boot=BBC_BOOTSTRAPS, level=ESTIMATE_LEVEL, vote_rows=None):
    """The selection's estimate of its accuracy and its interval: BBC-CV (see
    :func:`bootstrap_bias_corrected`) of its two choices on the same held-out nodes.

    Each bootstrap sample of the nodes the candidates were ranked on makes both choices
    as the selection does: the (kernel, gamma) and stand-in of a merge right on most of
    its nodes; if that is the winner's, the merge of the winner right on most of them.
    The choice is scored on the nodes the sample left out: the merge's held-out hits
    for the winner, the stand-in's for another candidate (its merges were never
    compared; its stand-ins are what the selection knows of it). The merges are not
    candidates beside the others: they re-read the winner's scores, which won on every
    node, left-out ones included, and would carry that luck into the estimate.

    Where a vote is among the candidates (``vote_rows``), each sample keeps it as the
    selection does (the one-standard-error rule of :func:`~._select._prefer_vote`)
    where its best row is a walk kernel's that does not beat it clearly on the sample's
    nodes.

    Where the candidates were ranked on a sample of the labelled nodes, the correction
    measured there (the chosen merge's held-out accuracy on the sample less the
    estimate) is subtracted from its held-out accuracy on all of them.

    The interval holds the bootstrap's percentiles and Wilson's score interval of the
    estimate as a proportion of the ``m`` labelled nodes: where every resample agrees
    (all of a handful of nodes right) the percentiles alone would claim a certainty
    that so few nodes cannot give.

    Parameters
    ----------
    candidate_hits : ndarray of bool, shape (n_judged, ranked.size)
        From :func:`~._ranking.rank` (no rows: nothing was ranked, only the merges).
    winner_rows : ndarray of bool, shape (n_judged,)
        The rows of the winning (kernel, gamma).
    merge_hits : ndarray of bool, shape (n_merges, m)
        From :func:`~._winner.choose_merge`.
    chosen_hits : ndarray of bool, shape (m,)
        The chosen merge's held-out hits: its held-out accuracy is what is corrected.
    ranked : ndarray of int
        Positions of the ranked nodes among the ``m`` labelled ones.
    rng : numpy Generator
    vote_rows : (ndarray of bool, ndarray of bool), optional
        The rows of the vote (:class:`~digraph_askls.kernels.VoteKernel`), if it was
        ranked, and those of the candidates the rule prefers it to, each (n_judged,).

    Returns
    -------
    estimate : float
    interval : tuple of float
        Both within [0, 1].
    """
    chosen = as_rows(chosen_hits)
    candidates = as_rows(candidate_hits).reshape_rows(ranked.size)
    merges = as_rows(merge_hits).take(columns=ranked)
    counts, out_of_bag = _resample(ranked.size, rng, n_boot)
    if not counts.size:
        value = float(chosen.means()[0])
        return value, (value, value)
    values = _choose(merges.weighted(counts), merges.weighted(out_of_bag))   # the merge
    if len(candidates):
        scored = candidates.weighted(out_of_bag)
        scored[:, np.asarray(winner_rows, dtype=bool)] = values[:, None]
        keep = None
        if vote_rows is not None and np.any(vote_rows[0]):
            vote = int(np.flatnonzero(vote_rows[0])[0])
            rows = np.zeros(len(candidates), dtype=bool)
            rows[vote] = True
            keep = (_keeps_vote(counts, candidates.hits.astype(np.float64), vote,
                                vote_rows[1]), rows)
        values = _choose(candidates.weighted(counts), scored, keep)
    estimate, (low, high) = _summary(values, level)
    shift = float(chosen.means()[0]) - float(chosen.take(columns=ranked).means()[0])
    if not isinstance(chosen, HitRows):      # a score, not a proportion of the nodes
        return float(estimate + shift), (float(low + shift), float(high + shift))
    estimate, low, high = np.clip(np.array([estimate, low, high]) + shift, 0.0, 1.0)
    wilson_low, wilson_high = _wilson(estimate, chosen.shape[1], level)
    return float(estimate), (float(min(low, wilson_low)), float(max(high, wilson_high)))


def _wilson(proportion, n, level):
    """Wilson's score interval of a proportion of ``n`` trials.

    Examples
    --------
    >>> [round(x, 3) for x in _wilson(1.0, 4, 0.9)]
    [0.597, 1.0]
    """
    z = float(special.ndtri((1 + level) / 2))
    centre = (proportion + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(proportion * (1 - proportion) / n
                                         + z * z / (4 * n * n))
    return max(0.0, float(centre - half)), min(1.0, float(centre + half))
