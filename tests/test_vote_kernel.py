"""The personalised-PageRank vote as a candidate: VoteKernel's target view is the vote of
scikit-network's PageRankClassifier, the selection reads it through that view alone, and
the one-standard-error rule keeps it unless the walk kernel clearly beats it."""

from dataclasses import replace

import numpy as np
import pytest
from scipy import sparse

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.kernels import LinkProfileKernel, VoteKernel, WalkKernel
from digraph_askls.models.selection import default_kernels
from digraph_askls.models.selection._ranking import Ranking, Scored
from digraph_askls.models.selection._policy import DEFAULT_POLICY
from digraph_askls.models.selection._select import _prefer_vote


def sbm_problem(seed=0, n=300, n_classes=3, per_class=5, p_in=0.5):
    adjacency, labels = make_directed_sbm(n, n_classes, 6, p_in=p_in, random_state=seed)
    adjacency = sparse.csr_array(adjacency)
    rng = np.random.default_rng(seed)
    known = np.full(n, -1)
    for c in range(n_classes):
        chosen = rng.choice(np.flatnonzero(labels == c), per_class, replace=False)
        known[chosen] = c
    return adjacency, labels, known


def test_the_target_view_at_a_small_gamma_is_the_class_normalised_pagerank_vote():
    adjacency, labels, known = sbm_problem()
    train, test = np.flatnonzero(known >= 0), np.flatnonzero(known < 0)
    model = NodeClassifier(kernel=VoteKernel(), gamma=1e-6, merge="target",
                           random_state=0).fit(adjacency, known)
    # The vote, densely: walks from each class's labelled nodes, the class's weight
    # shared among them, arg-max.
    K = VoteKernel(dtype="float64").make(adjacency) @ np.eye(adjacency.shape[0])
    Y = np.zeros((adjacency.shape[0], 3))
    Y[train, known[train]] = 1.0
    vote = np.argmax(K.T @ (Y / Y.sum(axis=0)), axis=1)
    assert np.mean(model.predict(test) == vote[test]) >= 0.99


def test_the_vote_kernel_agrees_with_scikit_networks_pagerank_classifier():
    classification = pytest.importorskip("sknetwork.classification")
    adjacency, labels, known = sbm_problem(1)
    test = np.flatnonzero(known < 0)
    ours = NodeClassifier(kernel=VoteKernel(), gamma=1e-6, merge="target").fit(
        adjacency, known).predict(test)
    peer = classification.PageRankClassifier().fit_predict(
        sparse.csr_matrix(adjacency + adjacency.T), known)[test]
    # Not identical: the walk keeps self-loops and 20 terms, the peer 10 power steps
    # without them; the votes differ on a few nodes near the class borders.
    assert np.mean(ours == peer) >= 0.95
    assert abs(np.mean(ours == labels[test]) - np.mean(peer == labels[test])) <= 0.03


def test_the_vote_is_a_candidate_with_few_labels_and_no_attributes_only():
    few = default_kernels(30, False, labels_per_class=5)
    many = default_kernels(600, False, labels_per_class=200)
    assert VoteKernel() in few and WalkKernel() in few
    assert VoteKernel() not in many and WalkKernel() in many
    # With attributes the vote is not tried (see default_kernels).
    assert VoteKernel() not in default_kernels(60, True, labels_per_class=20)


def test_auto_merge_reads_the_vote_through_its_target_view_alone():
    adjacency, labels, known = sbm_problem(2)
    model = NodeClassifier(random_state=0).fit(adjacency, known)
    rows = model.cv_results_
    vote_rows = [merge for kernel, merge in zip(rows["kernel"], rows["merge"])
                 if isinstance(kernel, VoteKernel)]
    other_rows = [merge for kernel, merge in zip(rows["kernel"], rows["merge"])
                  if not isinstance(kernel, VoteKernel)]
    assert vote_rows and set(vote_rows) == {"target"}
    assert "target" not in other_rows
    if isinstance(model.selection_["kernel"], VoteKernel):
        assert model.selection_["merge"] == "target"
    # A merge given by the user is the merge of every kernel, the vote's too.
    joint = NodeClassifier(kernel=[WalkKernel(), VoteKernel()], merge="joint",
                           random_state=0).fit(adjacency, known)
    assert set(joint.cv_results_["merge"]) == {"joint"}


def _ranking(best_hits, vote_hits):
    """A ranking of two leaders, the first with the better score, on the same nodes."""
    hits = np.array([best_hits, vote_hits], dtype=bool)
    def scored(index, kernel, score, merges):
        return Scored(kernel, 0.01, score, "walk", None, None, [], index, merges=merges)
    best = scored(0, WalkKernel(), float(hits[0].mean()), None)
    vote = scored(1, VoteKernel(), float(hits[1].mean()), ("target",))
    return Ranking({}, best, [best, vote], hits, hits, np.arange(2)), best, vote


def test_the_vote_is_kept_unless_beaten_by_more_than_one_standard_error():
    folds = [np.arange(0, 20), np.arange(20, 40)]
    # 40 nodes; the best is right on 3 the vote misses and wrong on 2 it gets: a lead of
    # 0.025, one standard error 0.057.
    vote_hits = np.r_[np.ones(28), np.zeros(12)]
    close = vote_hits.copy()
    close[28:31] = 1
    close[:2] = 0
    ranking, best, vote = _ranking(close, vote_hits)
    kept, merged = _prefer_vote(ranking, best, folds, DEFAULT_POLICY)
    assert kept.kernel == VoteKernel() and kept.index == 1 and merged == {}
    # Right on 10 more (and wrong on none the vote has right): a clear lead, kept.
    clear = vote_hits.copy()
    clear[28:38] = 1
    ranking, best, vote = _ranking(clear, vote_hits)
    assert _prefer_vote(ranking, best, folds, DEFAULT_POLICY)[0] is best
    # Another family than the walks is chosen on its score: the rule does not weigh it.
    ranking, best, vote = _ranking(close, vote_hits)
    other = replace(best, kernel=LinkProfileKernel(), index=5)
    assert _prefer_vote(ranking._replace(leaders=[other, vote]), other, folds,
                        DEFAULT_POLICY)[0] is other
    # Without a vote among the leaders, nothing changes.
    ranking = ranking._replace(leaders=[best])
    assert _prefer_vote(ranking, best, folds, DEFAULT_POLICY)[0] is best


def test_the_rule_judges_through_the_merges_where_it_is_given_them():
    """With a judge (the merges' held-out hits), the rule reads its hits, not the
    stand-ins', whichever of the two the ranking put first."""
    folds = [np.arange(0, 20), np.arange(20, 40)]
    vote_hits = np.r_[np.ones(28), np.zeros(12)]
    level = vote_hits.copy()                     # the stand-ins: the walk no better
    ranking, best, vote = _ranking(level, vote_hits)
    clear = vote_hits.copy()
    clear[28:38] = 1                             # its merges: right on 10 more
    judged = {0: clear, 1: vote_hits}
    chosen, merged = _prefer_vote(ranking, best, folds, DEFAULT_POLICY,
                                  judge=lambda leader: judged[leader.index])
    assert chosen.index == 0 and isinstance(chosen.kernel, WalkKernel)
    assert set(merged) == {0, 1} and np.array_equal(merged[0], clear)
    # The ranking put the vote first: the merges still decide.
    ranking_vote_first = ranking._replace(best=vote)
    chosen, _ = _prefer_vote(ranking_vote_first, vote, folds, DEFAULT_POLICY,
                             judge=lambda leader: judged[leader.index])
    assert chosen.index == 0
    # Through the merges within one standard error: the vote stays.
    judged[0] = level
    chosen, _ = _prefer_vote(ranking, best, folds, DEFAULT_POLICY,
                             judge=lambda leader: judged[leader.index])
    assert chosen.index == 1


def test_a_directed_sbm_whose_classes_link_in_set_directions_keeps_the_walk_kernel():
    """10 classes linking to one another in set directions, 8 labelled nodes per class:
    the walk kernel's joint stacker reads the directions (0.96 on the other nodes), the
    vote cannot (0.65); the ranking's stand-ins put them level, so the vote used to be
    kept. Judged through the merges, the walk kernel is chosen on every fold draw."""
    adjacency, labels = make_directed_sbm(1000, 10, 10, p_in=0.5, random_state=0)
    rng = np.random.default_rng(0)
    known = np.full(1000, -1)
    for c in range(10):
        known[rng.choice(np.flatnonzero(labels == c), 8, replace=False)] = c
    test = np.flatnonzero(known < 0)
    vote = NodeClassifier(kernel=VoteKernel(), merge="target", gamma=1e-5,
                          random_state=0).fit(adjacency, known)
    vote_accuracy = np.mean(vote.predict(test) == labels[test])
    for seed in (0, 1):
        model = NodeClassifier(random_state=seed).fit(adjacency, known)
        assert isinstance(model.selection_["kernel"], WalkKernel)
        assert not isinstance(model.selection_["kernel"], VoteKernel)
        assert np.mean(model.predict(test) == labels[test]) >= vote_accuracy + 0.2


def test_the_estimate_chooses_as_the_rule_does():
    from digraph_askls.models.selection._estimate import _keeps_vote, selection_estimate

    rng = np.random.default_rng(0)
    m = 40
    vote = rng.random(m) < 0.7
    # A candidate right on 2 nodes the vote misses and wrong on 2 it gets: level on
    # average, and the vote is kept on most resamples.
    close = vote.copy()
    close[np.flatnonzero(~vote)[:2]] = True
    close[np.flatnonzero(vote)[:2]] = False
    # A candidate right everywhere the vote is, and on 10 nodes more: never kept.
    clear = vote.copy()
    clear[np.flatnonzero(~vote)[:10]] = True
    counts = rng.multinomial(m, np.full(m, 1 / m), size=200).astype(float)
    assert _keeps_vote(counts, np.array([close, vote], dtype=float), 1).mean() > 0.8
    assert not _keeps_vote(counts, np.array([clear, vote], dtype=float), 1).any()
    # The estimate follows: a resample that keeps the vote scores the vote's hits. A
    # winner better by 3 nodes and worse by 1 is kept by some resamples only.
    better = vote.copy()
    better[np.flatnonzero(~vote)[:3]] = True
    better[np.flatnonzero(vote)[0]] = False
    kept = _keeps_vote(counts, np.array([better, vote], dtype=float), 1).mean()
    assert 0.1 < kept < 0.9
    hits = np.array([better, vote])
    merge_hits = better[None]
    ranked = np.arange(m)
    plain, _ = selection_estimate(hits, np.array([True, False]), merge_hits, better, ranked,
                                  np.random.default_rng(1))
    ruled, _ = selection_estimate(hits, np.array([True, False]), merge_hits, better, ranked,
                                  np.random.default_rng(1),
                                  vote_rows=(np.array([False, True]), np.array([True, False])))
    assert plain > ruled
    # A winner the rule does not weigh against the vote (another family): no change.
    other, _ = selection_estimate(hits, np.array([True, False]), merge_hits, better, ranked,
                                  np.random.default_rng(1),
                                  vote_rows=(np.array([False, True]), np.array([False, False])))
    assert other == plain
    assert not _keeps_vote(counts, np.array([close, vote], dtype=float), 1,
                           np.array([False, False])).any()


def silent_problem():
    """Two communities (classes 0 and 1, class 1 labelled more often) and 40 isolated
    nodes, 30 of class 0, four of them labelled (three of class 0)."""
    adjacency, labels, known = sbm_problem(3, n=200, n_classes=2, per_class=6, p_in=0.9)
    rng = np.random.default_rng(3)
    extra = rng.choice(np.flatnonzero((labels == 1) & (known < 0)), 8, replace=False)
    known[extra] = 1                       # 6 against 14: class 1 is the labelled majority
    n = adjacency.shape[0] + 40
    grown = sparse.csr_array((adjacency.data, adjacency.indices,
                              np.r_[adjacency.indptr, np.full(40, adjacency.nnz)]),
                             shape=(n, n))
    isolated = np.arange(adjacency.shape[0], n)
    labels = np.r_[labels, np.zeros(30, int), np.ones(10, int)]
    known = np.r_[known, np.full(40, -1)]
    known[isolated[[0, 1, 2, 30]]] = labels[isolated[[0, 1, 2, 30]]]
    return grown, labels, known, isolated


@pytest.mark.parametrize("kernel", [VoteKernel(), WalkKernel()])
def test_nodes_no_walk_reaches_take_the_class_of_the_silent_labelled_nodes(kernel):
    adjacency, labels, known, isolated = silent_problem()
    assert np.bincount(known[known >= 0]).argmax() == 1
    model = NodeClassifier(kernel=kernel, merge="target" if kernel == VoteKernel()
                           else "average", random_state=0).fit(adjacency, known)
    unlabelled = isolated[known[isolated] < 0]
    # The labelled majority is class 1; the labelled isolated nodes are mostly class 0.
    assert np.all(model.predict(unlabelled) == 0)
    connected = np.flatnonzero(known[:isolated[0]] < 0)
    assert np.mean(model.predict(connected) == labels[connected]) >= 0.85


def test_held_out_silent_nodes_are_scored_by_the_other_silent_nodes():
    from digraph_askls.models.selection._out_of_fold import (
        _held_out_silent_priors, silent_prior)
    rng = np.random.default_rng(0)
    for n_classes in (2, 3, 5):
        codes = rng.integers(0, n_classes, 40)
        codes[:n_classes] = np.arange(n_classes)
        silent = rng.random(40) < 0.3
        held = _held_out_silent_priors(codes, silent)
        for row, node in enumerate(np.flatnonzero(silent)):
            others = silent.copy()
            others[node] = False
            np.testing.assert_allclose(held[row], silent_prior(codes, others))
    # One silent node alone falls back on the labelled majority.
    codes = np.array([0, 1, 1, 1])
    only = np.array([True, False, False, False])
    assert _held_out_silent_priors(codes, only)[0, 0] > 0      # binary: class 1
