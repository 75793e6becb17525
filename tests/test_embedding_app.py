"""APP: rooted random walks with restart, and the asymmetric proximity the vectors learn."""

import numpy as np
import pytest
from scipy import sparse
from scipy.stats import spearmanr

from digraph_askls.datasets import make_directed_sbm
from digraph_askls.embedding import APP, rooted_walk_ends
from digraph_askls.embedding._sampling import NeighborSampler


def rooted_pagerank(A, restart):
    """Dense PPR_u(v) = restart * sum_k (1 - restart)^k P^k, the zero-step term left out."""
    D = A.toarray()
    out = D.sum(axis=1)
    P = D / np.where(out > 0, out, 1.0)[:, None]
    n = D.shape[0]
    return restart * np.linalg.inv(np.eye(n) - (1 - restart) * P) - restart * np.eye(n)


def test_walk_ends_follow_rooted_pagerank():
    # A strongly connected graph without dead ends: the end of a walk from u is v with
    # probability PPR_u(v) / (1 - restart) (the walk takes at least one step).
    A, _ = make_directed_sbm(30, 2, 4, p_in=0.7, random_state=0)
    A = sparse.csr_matrix(A + sparse.csr_matrix(np.roll(np.eye(30), 1, axis=1)))
    want = rooted_pagerank(A, 0.3)[0] / 0.7
    ends = rooted_walk_ends(np.zeros(200_000, dtype=int), NeighborSampler(A), 0.3,
                            np.random.default_rng(0))
    np.testing.assert_allclose(np.bincount(ends, minlength=30) / ends.size, want, atol=4e-3)


@pytest.fixture(scope="module")
def fitted():
    A, _ = make_directed_sbm(200, 4, 4, p_in=0.5, random_state=0)
    return A, APP(n_components=16, n_walks=600, random_state=0).fit(A)


def test_pairs_of_higher_rooted_pagerank_get_higher_inner_products(fitted):
    A, app = fitted
    ppr = rooted_pagerank(A, app.restart)
    scores = app.source_embedding_ @ app.target_embedding_.T
    pairs = ~np.eye(200, dtype=bool)
    assert spearmanr(ppr[pairs], scores[pairs]).statistic > 0.3
    low, high = np.quantile(ppr[pairs], [0.5, 0.9])
    assert scores[pairs & (ppr >= high)].mean() > scores[pairs & (ppr <= low)].mean() + 0.5
    # Asymmetry: where u reaches v far more often than v reaches u, mostly
    # phi_s(u) . phi_t(v) > phi_s(v) . phi_t(u).
    one_way = pairs & (ppr > 2 * ppr.T)
    assert (scores[one_way] > scores.T[one_way]).mean() > 0.65


def test_reproducible_under_random_state_and_zero_rows_where_nothing_is_learnt():
    A = sparse.csr_matrix(([1.0] * 5, ([0, 1, 2, 0, 4], [1, 2, 0, 3, 0])), shape=(6, 6))
    first = APP(n_components=4, n_walks=50, random_state=3).fit(A)
    second = APP(n_components=4, n_walks=50, random_state=3).fit(A)
    np.testing.assert_array_equal(first.transform(), second.transform())
    other = APP(n_components=4, n_walks=50, random_state=4).fit(A)
    assert not np.allclose(first.source_embedding_, other.source_embedding_)
    assert not first.source_embedding_[[3, 5]].any()          # no out-edges
    assert not first.target_embedding_[[4, 5]].any()          # no in-edges
    assert first.transform().shape == (6, 8) and first.n_nodes_ == 6


@pytest.mark.parametrize("params, error, match", [
    (dict(restart=0.0), ValueError, r"restart must be in \(0, 1\], got 0.0"),
    (dict(restart=1.5), ValueError, r"restart must be in \(0, 1\], got 1.5"),
    (dict(n_walks=0), ValueError, "n_walks must be >= 1, got 0"),
    (dict(n_components="8"), TypeError, "n_components must be an integer, got '8'"),
    (dict(learning_rate=float("inf")), ValueError, "learning_rate must be positive and finite"),
])
def test_bad_parameters_are_refused(params, error, match):
    A = sparse.csr_matrix(([1.0], ([0], [1])), shape=(2, 2))
    with pytest.raises(error, match=match):
        APP(**params).fit(A)


def test_an_empty_graph_is_refused():
    with pytest.raises(ValueError, match="adjacency must have at least one edge, got none"):
        APP().fit(sparse.csr_matrix((4, 4)))
