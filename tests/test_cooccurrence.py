"""The co-occurrence kernel: NetMF's matrix, checked against its formula in dense numpy."""

import networkx as nx
import numpy as np
import pytest

from digraph_askls.kernels import CooccurrenceKernel, get_cooccurrence_kernel


def _netmf(A, window, negative):
    """``log(max(vol / (b T) * sum_r P^r D_in^-1, 1))`` by dense powers, float64."""
    A = (A != 0).astype(float)
    out_degree, in_degree = A.sum(axis=1), A.sum(axis=0)
    P = A / np.where(out_degree > 0, out_degree, 1.0)[:, None]
    total, power = np.zeros_like(A), np.eye(A.shape[0])
    for _ in range(window):
        power = power @ P
        total += power
    with np.errstate(divide="ignore"):
        M = A.sum() / (negative * window) * total / np.where(in_degree > 0, in_degree,
                                                             np.inf)[None, :]
    return np.log(np.maximum(M, 1.0))


def test_undirected_graph_gives_netmfs_symmetric_matrix():
    graph = nx.karate_club_graph()
    A = nx.to_numpy_array(graph)
    K = get_cooccurrence_kernel(A, window=5, negative=1.0, dtype="float64")
    np.testing.assert_allclose(K, _netmf(A, 5, 1.0), atol=1e-10)
    np.testing.assert_allclose(K, K.T, atol=1e-10)
    assert K.max() > 1.0


def test_directed_graph_follows_the_links():
    rng = np.random.default_rng(0)
    A = (rng.uniform(size=(40, 40)) < 0.1).astype(float)
    np.fill_diagonal(A, 0)
    A[3] = 0                          # a node without out-links ends the walks
    A[:, 7] = 0                       # a node no walk reaches: a column of zeros
    K = get_cooccurrence_kernel(A, window=4, negative=2.0, dtype="float64")
    np.testing.assert_allclose(K, _netmf(A, 4, 2.0), atol=1e-10)
    assert not np.allclose(K, K.T)
    assert np.all(K[3] == 0) and np.all(K[:, 7] == 0)
    single = CooccurrenceKernel(window=4, negative=2.0).make(A)
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, K, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("options, message", [
    ({"window": 0}, "window must be an integer >= 1"),
    ({"negative": 0.0}, "negative must be a positive number"),
])
def test_bad_settings_are_clear_errors(options, message):
    with pytest.raises(ValueError, match=message):
        get_cooccurrence_kernel([(0, 1), (1, 0)], **options)


def test_a_graph_without_links_is_a_clear_error():
    with pytest.raises(ValueError, match="needs links"):
        get_cooccurrence_kernel(np.zeros((3, 3)))
