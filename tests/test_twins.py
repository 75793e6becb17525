"""The twin baseline: nodes with the same out-links (or in-links) copy each other's label."""

from collections import Counter, defaultdict

import numpy as np
import pytest
from scipy import sparse

from experiments._protocols import has_twin, twin_baseline


def _random_digraph(seed, n=300):
    """A graph with many duplicated link sets: 40 pages each copied a few times."""
    rng = np.random.default_rng(seed)
    pages = [rng.choice(n, rng.integers(1, 5), replace=False) for _ in range(40)]
    rows, cols = [], []
    for node in range(n):
        targets = (pages[rng.integers(40)] if rng.random() < 0.6
                   else rng.choice(n, rng.integers(0, 4), replace=False))
        rows += [node] * len(targets)
        cols += list(targets)
    adjacency = sparse.csr_array((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    return adjacency, rng.integers(0, 4, n)


def _twins_of(links, train, node):
    """The training nodes (not the node itself) whose row of ``links`` equals the node's."""
    own = set(np.flatnonzero(links[node]))
    return [other for other in train
            if other != node and own and set(np.flatnonzero(links[other])) == own]


def _by_loops(adjacency, labels, train, nodes):
    """The rule written out node by node, with link sets as Python sets."""
    dense = adjacency.toarray() != 0
    train = list(train)

    def vote(members):
        counts = Counter(labels[members].tolist())
        return min(c for c, k in counts.items() if k == max(counts.values()))

    predicted, twins = [], []
    for node in nodes:
        out_twins, in_twins = _twins_of(dense, train, node), _twins_of(dense.T, train, node)
        predicted.append(vote(out_twins or in_twins or train))
        twins.append(bool(out_twins or in_twins))
    return np.array(predicted), np.array(twins)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_hashed_rows_give_what_a_loop_over_link_sets_gives(seed):
    adjacency, labels = _random_digraph(seed)
    rng = np.random.default_rng(seed)
    train = np.sort(rng.choice(300, 150, replace=False))
    nodes = np.arange(300)                     # labelled nodes too: never their own twin
    predicted, twins = _by_loops(adjacency, labels, train, nodes)
    np.testing.assert_array_equal(twin_baseline(adjacency, labels, train, nodes), predicted)
    np.testing.assert_array_equal(has_twin(adjacency, train, nodes), twins)
    assert 0.2 < twins.mean() < 0.9            # the graph has twins and nodes without


def test_weights_and_duplicate_entries_do_not_make_two_link_sets_differ():
    rows, cols = [0, 0, 0, 1, 1], [2, 3, 3, 2, 3]
    adjacency = sparse.coo_array(([1.0, 2.0, 5.0, 0.5, 9.0], (rows, cols)), shape=(4, 4))
    assert has_twin(adjacency, [0], [1]).tolist() == [True]
    assert twin_baseline(adjacency, [3, 1, 0, 0], [0, 2], [1]).tolist() == [3]


def test_out_links_win_over_in_links_and_the_majority_comes_last():
    # 0 and 1 share out-links {2}; 1 and 3 share in-links {2}
    adjacency = sparse.csr_array(([1, 1, 1, 1], ([0, 1, 2, 2], [2, 2, 1, 3])), shape=(5, 5))
    labels = np.array([0, 2, 1, 1, 1])
    assert twin_baseline(adjacency, labels, [0, 3], [1]).tolist() == [0]      # out-twin 0
    assert twin_baseline(adjacency, labels, [3, 4], [1]).tolist() == [1]      # in-twin 3
    assert twin_baseline(adjacency, labels, [0, 2, 4], [3]).tolist() == [1]   # majority


def test_bad_input_is_refused_with_what_was_expected():
    adjacency = sparse.csr_array(np.eye(3))
    with pytest.raises(ValueError, match="at least one training node"):
        twin_baseline(adjacency, [0, 1, 0], [], [1])
    with pytest.raises(ValueError, match="labelled training nodes"):
        twin_baseline(adjacency, [0, -1, 0], [0, 1], [2])
    with pytest.raises(ValueError, match="square adjacency"):
        has_twin(sparse.csr_array(np.ones((2, 3))), [0], [1])


def test_the_duplicated_pages_of_chameleon_give_the_published_leak(shared):
    """Platonov et al. (ICLR 2023) found most of Chameleon's nodes duplicated; copying a
    twin's label scores far above chance there, and near chance on the filtered graph."""
    results = defaultdict(list)
    for name in ("chameleon", "chameleon-filtered"):
        graph = shared(name)
        for split in graph.splits[:3]:
            labelled = np.union1d(split.train, split.valid)
            predicted = twin_baseline(graph.adjacency, graph.labels, labelled, split.test)
            results[name].append((np.mean(predicted == graph.labels[split.test]),
                                  has_twin(graph.adjacency, labelled, split.test).mean()))
    chameleon, filtered = (np.mean(results[name], axis=0)
                           for name in ("chameleon", "chameleon-filtered"))
    assert chameleon[0] > 0.78 and 0.7 < chameleon[1] < 0.85
    assert filtered[0] < 0.35 and filtered[1] < 0.25
