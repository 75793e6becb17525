"""Tests of the NERD source/target node embeddings."""

import numpy as np
import pytest
from scipy import sparse
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from digraph_askls.datasets import make_directed_sbm
from digraph_askls.embedding import NERD
from digraph_askls.embedding._sampling import NeighborSampler, NodeTable

QUICK = dict(n_components=16, n_samples=2000, batch_size=500, random_state=0)


@pytest.fixture(scope="module")
def cycle_graph():
    """Two directed 4-cycles, a node with only an out-edge, one with only an in-edge, an isolated node."""
    edges = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (8, 0), (4, 9)]
    rows, cols = np.array(edges).T
    return sparse.csr_matrix((np.ones(len(edges)), (rows, cols)), shape=(11, 11))


def test_shapes_and_dtypes(cycle_graph):
    nerd = NERD(n_components=8, n_samples=2000, random_state=0)
    embedding = nerd.fit_transform(cycle_graph)
    assert embedding.shape == (11, 16)
    assert nerd.source_embedding_.shape == nerd.target_embedding_.shape == (11, 8)
    assert nerd.source_embedding_.dtype == np.float32
    assert nerd.n_nodes_ == 11
    np.testing.assert_array_equal(embedding[:, :8], nerd.source_embedding_)
    np.testing.assert_array_equal(embedding[:, 8:], nerd.target_embedding_)
    np.testing.assert_array_equal(nerd.transform(), embedding)
    assert np.all(np.isfinite(embedding))


def test_nodes_without_out_or_in_edges_get_zero_rows(cycle_graph):
    nerd = NERD(n_components=8, n_samples=2000, random_state=0).fit(cycle_graph)
    no_out = np.flatnonzero(np.diff(cycle_graph.indptr) == 0)  # 9, 10
    no_in = np.flatnonzero(cycle_graph.getnnz(axis=0) == 0)  # 8, 10
    assert no_out.tolist() == [9, 10] and no_in.tolist() == [8, 10]
    assert not nerd.source_embedding_[no_out].any()
    assert not nerd.target_embedding_[no_in].any()
    assert np.all(np.abs(nerd.source_embedding_[8]) > 0)  # a pure source is learnt
    assert np.all(np.abs(nerd.target_embedding_[9]) > 0)  # a pure target is learnt


def test_deterministic_under_random_state(cycle_graph):
    first = NERD(**QUICK).fit_transform(cycle_graph)
    again = NERD(**QUICK).fit_transform(cycle_graph)
    generator = NERD(**{**QUICK, "random_state": np.random.default_rng(0)}).fit_transform(cycle_graph)
    other = NERD(**{**QUICK, "random_state": 1}).fit_transform(cycle_graph)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first, generator)
    assert not np.allclose(first, other)


def test_same_result_from_dense_sparse_and_array_inputs(cycle_graph):
    expected = NERD(**QUICK).fit_transform(cycle_graph)
    for graph in (cycle_graph.toarray(), sparse.coo_array(cycle_graph), cycle_graph.tocsc(),
                  cycle_graph.toarray().astype(bool)):
        np.testing.assert_array_equal(NERD(**QUICK).fit_transform(graph), expected)


def test_huge_batches_on_a_tiny_graph_stay_stable(cycle_graph):
    # Each node gets hundreds of gradient terms per batch: summed without the
    # cap on per-node steps they overflow to NaN.
    nerd = NERD(n_components=8, n_samples=20_000, batch_size=500, random_state=0)
    nerd.fit(cycle_graph)
    score = nerd.source_embedding_ @ nerd.target_embedding_.T
    assert np.all(np.isfinite(score))
    # Alternating walks on a directed cycle only ever pair a node with its successor.
    sources, targets = np.flatnonzero(cycle_graph.getnnz(axis=1)), np.flatnonzero(cycle_graph.getnnz(axis=0))
    pairs = score[np.ix_(sources, targets)]
    is_edge = cycle_graph[np.ix_(sources, targets)].toarray().ravel() > 0
    assert roc_auc_score(is_edge, pairs.ravel()) > 0.95


def test_small_batches_and_odd_sizes(cycle_graph):
    nerd = NERD(n_components=3, walk_size=1, n_negative=1, n_samples=37, batch_size=1,
                random_state=0).fit(cycle_graph)
    assert nerd.transform().shape == (11, 6)


def test_silent_unless_verbose(cycle_graph, capsys):
    NERD(n_components=4, n_samples=500, random_state=0).fit(cycle_graph)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    NERD(n_components=4, n_samples=500, random_state=0, verbose=True).fit(cycle_graph)
    assert "NERD" in capsys.readouterr().err


def test_transform_before_fit_raises():
    with pytest.raises(NotFittedError):
        NERD().transform()


@pytest.mark.parametrize(
    "adjacency, error, match",
    [
        (sparse.csr_matrix(np.ones((2, 3))), ValueError, r"square"),
        (np.ones(4), ValueError, r"got an array of shape \(4,\)"),
        (np.array([[0, -1.0], [1, 0]]), ValueError, "finite and >= 0 .* -1.0 on the edge 0 -> 1"),
        (np.array([[0, np.nan], [1, 0]]), ValueError, "finite"),
        (sparse.csr_matrix((3, 3)), ValueError, "at least one edge, got none"),
        (np.array([["a", "b"], ["c", "d"]]), TypeError, "must hold numbers, got dtype <U1"),
        ("graph.txt", TypeError, "a sparse matrix, a numpy array or an edge list"),
    ],
)
def test_bad_adjacency(adjacency, error, match):
    with pytest.raises(error, match=match):
        NERD(n_samples=10).fit(adjacency)


@pytest.mark.parametrize(
    "params, error, match",
    [
        (dict(n_components=0), ValueError, "n_components must be >= 1, got 0"),
        (dict(walk_size=2.5), TypeError, "walk_size must be an integer, got 2.5"),
        (dict(n_negative=0), ValueError, "n_negative must be >= 1, got 0"),
        (dict(n_samples=True), TypeError, "n_samples must be an integer"),
        (dict(batch_size=-3), ValueError, "batch_size must be >= 1, got -3"),
        (dict(learning_rate=0.0), ValueError, "learning_rate must be positive"),
        (dict(learning_rate=float("nan")), ValueError, "learning_rate"),
        (dict(learning_rate="fast"), TypeError, "learning_rate must be a number"),
    ],
)
def test_bad_parameters(cycle_graph, params, error, match):
    with pytest.raises(error, match=match):
        NERD(**{"n_samples": 10, **params}).fit(cycle_graph)


def test_neighbor_sampler_follows_edge_weights():
    matrix = sparse.csr_matrix(np.array([[0, 1.0, 3.0, 0], [0, 0, 0, 2.0], [0, 0, 0, 0], [5, 0, 0, 0]]))
    sampler = NeighborSampler(matrix)
    rng = np.random.default_rng(0)
    drawn = sampler.neighbors(np.zeros(40_000, dtype=np.int64), rng)
    assert set(np.unique(drawn).tolist()) == {1, 2}
    assert np.mean(drawn == 2) == pytest.approx(0.75, abs=0.01)
    assert np.all(sampler.neighbors(np.array([1, 3, 1]), rng) == [3, 0, 3])
    np.testing.assert_array_equal(sampler.row_weight, [4.0, 2.0, 0.0, 5.0])


def test_node_table_never_draws_zero_weights():
    table = NodeTable(np.array([0.0, 2.0, 0.0, 6.0, 0.0]))
    drawn = table.draw((200, 100), np.random.default_rng(0))
    assert drawn.shape == (200, 100)
    assert set(np.unique(drawn).tolist()) == {1, 3}
    assert np.mean(drawn == 3) == pytest.approx(0.75, abs=0.01)


def test_communities_are_linearly_separable():
    # Two groups, 95 % of the edges inside a group.
    adjacency, labels = make_directed_sbm(200, 2, 6.0, p_in=0.95, random_state=0)
    embedding = NERD(n_components=16, n_samples=20_000, random_state=0).fit_transform(adjacency)
    train = np.arange(200) % 2 == 0
    model = LogisticRegression(max_iter=1000).fit(embedding[train], labels[train])
    assert model.score(embedding[~train], labels[~train]) > 0.9


def test_edges_score_above_non_edges_and_direction_is_kept():
    # Six classes, edges inside a class or to the next one, never back.
    n_classes = 6
    adjacency, labels = make_directed_sbm(300, n_classes, 6.0, p_in=0.5, random_state=1)
    nerd = NERD(n_components=16, n_samples=100_000, random_state=0).fit(adjacency)
    source, target = nerd.source_embedding_, nerd.target_embedding_
    assert np.linalg.norm(source - target) > 0.5 * np.linalg.norm(source)

    rows, cols = adjacency.nonzero()
    rng = np.random.default_rng(0)
    fake_rows, fake_cols = rng.integers(0, 300, (2, 4 * rows.size))
    fake = np.asarray(adjacency[fake_rows, fake_cols]).ravel() == 0
    fake_rows, fake_cols = fake_rows[fake], fake_cols[fake]
    scores = np.concatenate((np.einsum("ij,ij->i", source[rows], target[cols]),
                             np.einsum("ij,ij->i", source[fake_rows], target[fake_cols])))
    truth = np.r_[np.ones(rows.size), np.zeros(fake_rows.size)]
    assert roc_auc_score(truth, scores) > 0.8

    # phi_s(u) . phi_t(v) is high along the flow c -> c + 1 and low against it.
    score = source @ target.T
    downstream = (labels[None, :] - labels[:, None]) % n_classes == 1
    upstream = (labels[:, None] - labels[None, :]) % n_classes == 1
    assert score[downstream].mean() > score[upstream].mean() + 0.5
