"""HOPE: the truncated SVD of the proximity without forming it, against dense numpy."""

import numpy as np
import pytest
from scipy import sparse

from digraph_askls.embedding import HOPE, proximity_operator, spectral_radius


def random_digraph(n=150, density=0.04, seed=0):
    rng = np.random.default_rng(seed)
    A = (rng.random((n, n)) < density).astype(float)
    np.fill_diagonal(A, 0.0)
    return sparse.csr_matrix(A)


def dense_proximity(A, proximity, beta=None, damping=0.5):
    A = A.toarray()
    n = A.shape[0]
    if proximity == "katz":
        return np.linalg.solve(np.eye(n) - beta * A, beta * A)
    if proximity == "ppr":
        out = A.sum(axis=1)
        P = A / np.where(out > 0, out, 1.0)[:, None]
        return (1 - damping) * np.linalg.inv(np.eye(n) - damping * P)
    if proximity == "common_neighbors":
        return A @ A
    degree = A.sum(axis=0) + A.sum(axis=1)
    return A @ np.diag(np.where(degree > 0, 1.0 / np.where(degree > 0, degree, 1), 0)) @ A


def optimal_error(S, d):
    sigma = np.linalg.svd(S, compute_uv=False)
    return np.sqrt(np.sum(sigma[d:] ** 2)), sigma[:d]


@pytest.mark.parametrize("d", [8, 32])
def test_katz_reaches_the_optimal_rank_d_error_of_the_dense_matrix(d):
    A = random_digraph()
    hope = HOPE(n_components=d).fit(A)
    rho = max(abs(np.linalg.eigvals(A.toarray())))
    np.testing.assert_allclose(hope.spectral_radius_, rho, rtol=1e-8)
    assert hope.beta_ == pytest.approx(0.5 / rho)
    S = dense_proximity(A, "katz", hope.beta_)
    best, sigma = optimal_error(S, d)
    error = np.linalg.norm(S - hope.source_embedding_ @ hope.target_embedding_.T)
    assert abs(error - best) / best < 1e-6
    np.testing.assert_allclose(hope.singular_values_, sigma, rtol=1e-8)


@pytest.mark.parametrize("proximity", ["ppr", "common_neighbors", "adamic_adar"])
def test_other_proximities_reach_their_optimal_error_too(proximity):
    A = random_digraph(seed=1)
    hope = HOPE(n_components=10, proximity=proximity).fit(A)
    S = dense_proximity(A, proximity)
    best, _ = optimal_error(S, 10)
    error = np.linalg.norm(S - hope.source_embedding_ @ hope.target_embedding_.T)
    assert abs(error - best) / best < 1e-6
    np.testing.assert_allclose(proximity_operator(A, proximity) @ np.eye(150), S, atol=1e-10)


def test_katz_operator_products_both_ways_equal_the_dense_matrix():
    A = random_digraph(seed=2)
    S = dense_proximity(A, "katz", 0.1)
    operator = proximity_operator(A, "katz", beta=0.1)
    X = np.random.default_rng(0).standard_normal((150, 3))
    np.testing.assert_allclose(operator @ X, S @ X, atol=1e-10)
    np.testing.assert_allclose(operator.H @ X, S.T @ X, atol=1e-10)


def test_spectral_radius_by_components_matches_dense_eigenvalues():
    rng = np.random.default_rng(3)
    blocks = [random_digraph(n, 0.05, seed) for n, seed in ((600, 4), (40, 5))]
    A = sparse.block_diag(blocks + [sparse.csr_matrix(np.triu(rng.random((30, 30)), 1))])
    A = sparse.csr_matrix(A + sparse.random(670, 670, density=0.001, random_state=1)
                          .multiply(sparse.csr_matrix(np.triu(np.ones((670, 670)), 1))))
    want = max(abs(np.linalg.eigvals(A.toarray())))
    assert spectral_radius(A) == pytest.approx(want, rel=1e-8)
    assert spectral_radius(sparse.triu(A, 1, format="csr")) == 0.0


def test_deterministic_with_fixed_signs():
    A = random_digraph(seed=4)
    first, second = HOPE(n_components=5).fit(A), HOPE(n_components=5, random_state=7).fit(A)
    np.testing.assert_allclose(first.source_embedding_, second.source_embedding_, atol=1e-8)
    assert first.transform().shape == (150, 10)


def test_katz_embedding_is_asymmetric_where_the_graph_is():
    A = sparse.csr_matrix(([1.0] * 4, ([0, 1, 2, 3], [1, 2, 3, 4])), shape=(6, 6))
    hope = HOPE(n_components=3).fit(A)
    scores = hope.source_embedding_ @ hope.target_embedding_.T
    assert scores[0, 1] > 0.1 and abs(scores[1, 0]) < 1e-8    # 0 -> 1 only


def test_beta_at_or_beyond_the_convergence_bound_is_refused():
    cycle = sparse.csr_matrix(np.roll(np.eye(5), 1, axis=1) * 2.0)      # radius 2
    HOPE(n_components=2, beta=0.49).fit(cycle)
    for beta in (0.5, 0.8):
        with pytest.raises(ValueError, match=r"beta must be below 1 / spectral radius = 0.5 "
                                             r"\(the spectral radius of the adjacency is 2\)"):
            HOPE(n_components=2, beta=beta).fit(cycle)
    with pytest.raises(ValueError, match="beta must be a positive number, got -1"):
        HOPE(n_components=2, beta=-1).fit(cycle)
    with pytest.raises(TypeError, match="beta must be a number or 'auto', got 'big'"):
        HOPE(n_components=2, beta="big").fit(cycle)


def test_bad_sizes_graphs_and_names_are_refused():
    A = random_digraph(n=20, density=0.2)
    with pytest.raises(ValueError, match=r"n_components must be below the number of nodes "
                                         r"\(20\) for a truncated SVD, got 20"):
        HOPE(n_components=20).fit(A)
    with pytest.raises(ValueError, match="adjacency must have at least one edge, got none"):
        HOPE(n_components=2).fit(sparse.csr_matrix((5, 5)))
    with pytest.raises(ValueError, match="unknown proximity 'katz2'"):
        HOPE(proximity="katz2").fit(A)
    with pytest.raises(ValueError, match=r"damping must be in \[0, 1\), got 1.0"):
        HOPE(n_components=2, proximity="ppr", damping=1.0).fit(A)
    with pytest.raises(TypeError, match="n_components must be an integer, got 2.5"):
        HOPE(n_components=2.5).fit(A)
