"""Walk-series kernels: products against a dense computation, asymmetry, registry, Cora."""

import warnings

import numpy as np
import pytest
from scipy import sparse

from digraph_askls.datasets import load_dataset, make_directed_sbm
from digraph_askls.model_selection import random_splits
from digraph_askls.kernels import (
    KERNELS, WalkSeriesKernel, get_graph_kernel, get_walk_matrix, restrict_kernel)
from digraph_askls.models import NodeClassifier


def _dense_ppr(adjacency, alpha, beta, n_hops):
    dense = adjacency.toarray()
    A = dense.T
    walk = A + beta * A.T + np.eye(A.shape[0])
    walk = walk / walk.sum(axis=1, keepdims=True)
    power, total = np.eye(A.shape[0]), np.zeros_like(walk)
    for k in range(1, n_hops + 1):
        power = power @ walk
        total += alpha ** (k - 1) * power
    return total


@pytest.fixture(scope="module")
def small_graph():
    adjacency, _ = make_directed_sbm(60, 3, 4, p_in=0.5, random_state=1)
    return sparse.csr_array(adjacency)


@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 2.0])
def test_ppr_matches_dense_series(small_graph, beta):
    K = get_graph_kernel("ppr", small_graph, alpha=0.7, beta=beta, n_hops=5)
    dense = _dense_ppr(small_graph, 0.7, beta, 5)
    X = np.random.default_rng(0).standard_normal((60, 4))
    np.testing.assert_allclose(K @ X, dense @ X, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(K.rmatmat(X), dense.T @ X, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(K.matvec(X[:, 0]), dense @ X[:, 0], rtol=1e-12)
    np.testing.assert_allclose(K.T @ X, dense.T @ X, rtol=1e-12, atol=1e-12)


def test_float32_hops_agree_to_single_precision(small_graph):
    K = get_graph_kernel("ppr", small_graph, alpha=0.7, beta=1.0, n_hops=5, dtype="float32")
    dense = _dense_ppr(small_graph, 0.7, 1.0, 5)
    X = np.random.default_rng(0).standard_normal((60, 4))
    assert (K @ X).dtype == np.float64
    np.testing.assert_allclose(K @ X, dense @ X, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(K.rmatmat(X), dense.T @ X, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="dtype must be"):
        get_graph_kernel("ppr", small_graph, dtype=np.int64)


def test_restricted_ppr_block_matches_dense(small_graph):
    K = get_graph_kernel("ppr", small_graph)   # the defaults: alpha 0.9, beta 2, 20 hops
    dense = _dense_ppr(small_graph, 0.9, 2.0, 20)
    rows, cols = np.arange(0, 60, 3), np.arange(1, 60, 2)
    block = restrict_kernel(K, rows, cols)
    X = np.random.default_rng(1).standard_normal((cols.size, 3))
    np.testing.assert_allclose(block @ X, dense[np.ix_(rows, cols)] @ X, atol=1e-12)


@pytest.mark.parametrize("beta", [0.0, 0.5, 2.0])
def test_ppr_is_asymmetric_when_directions_are_weighted_unequally(small_graph, beta):
    dense = get_graph_kernel("ppr", small_graph, beta=beta).to_dense()
    assert np.abs(dense - dense.T).max() > 1e-3


def test_in_and_out_walks_are_reverses(small_graph):
    K_in = get_graph_kernel("ppr_in", small_graph, n_hops=3).to_dense()
    K_out = get_graph_kernel("ppr_out", small_graph, n_hops=3).to_dense()
    expected = _dense_ppr(sparse.csr_array(small_graph.T), 0.9, 0.0, 3)
    np.testing.assert_allclose(K_out, expected, atol=1e-12)
    assert not np.allclose(K_in, K_out)
    assert {"ppr", "ppr_in", "ppr_out"} <= set(KERNELS)


def test_walk_rows_are_stochastic_and_parameters_checked(small_graph):
    W = get_walk_matrix(small_graph, beta=0.5)
    np.testing.assert_allclose(W.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="beta must be"):
        get_walk_matrix(small_graph, beta=-1.0)
    with pytest.raises(ValueError, match="n_hops must be"):
        WalkSeriesKernel(W, n_hops=0)
    with pytest.raises(ValueError, match="c must be"):
        WalkSeriesKernel(W, c=2.0)


@pytest.fixture(scope="module")
def cora_scores(shared_datasets):
    """Test accuracy on one 60/40 split of Cora for NodeClassifier settings, by name."""
    graph = load_dataset("cora", data_home=shared_datasets, download=False)
    labels = np.asarray(graph.labels)
    _, train, test = random_splits(labels, 0.6, 1, random_state=0)[0]
    known = np.full(labels.size, -1)
    known[train] = labels[train]

    cache = {}

    def score(**params):
        key = tuple(sorted(params.items()))
        if key not in cache:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                clf = NodeClassifier(random_state=0, **params).fit(graph.adjacency, known)
            cache[key] = np.mean(clf.predict(test) == labels[test])
        return cache[key]

    return score


def test_default_beats_paper_preset_on_cora(cora_scores):
    scores = {"default": cora_scores(), "paper": cora_scores(preset="paper")}
    assert scores["default"] > scores["paper"] + 0.05, scores
    assert scores["default"] > 0.83, scores


def test_large_preset_on_cora_stays_above_paper_preset(cora_scores):
    # The large-graph preset trades accuracy for speed: 3 float32 hops, no fold solves.
    scores = {"large": cora_scores(preset="large"), "paper": cora_scores(preset="paper")}
    assert scores["large"] > scores["paper"] + 0.03, scores
    assert scores["large"] > 0.80, scores


@pytest.mark.parametrize("beta,dtype", [(1.0, "float64"), (1.0, "float32"), (2.0, "float32"),
                                        (0.0, "float64")])
def test_pair_product_matches_separate_products(small_graph, beta, dtype):
    K = get_graph_kernel("ppr", small_graph, alpha=0.7, beta=beta, n_hops=4, dtype=dtype)
    dense = _dense_ppr(small_graph, 0.7, beta, 4)
    rng = np.random.default_rng(1)
    X, Y = rng.standard_normal((60, 3)), rng.standard_normal((60, 2))
    tol = 1e-12 if dtype == "float64" else 1e-5
    forward, backward = K.matmat_pair(X, Y)
    np.testing.assert_allclose(forward, dense @ X, rtol=tol, atol=tol)
    np.testing.assert_allclose(backward, dense.T @ Y, rtol=tol, atol=tol)
    rows, cols = np.arange(0, 60, 2), np.arange(1, 60, 3)
    block = restrict_kernel(K, rows, cols)
    forward, backward = block.matmat_pair(X[:cols.size], Y[:rows.size])
    np.testing.assert_allclose(forward, dense[np.ix_(rows, cols)] @ X[:cols.size],
                               rtol=tol, atol=tol)
    np.testing.assert_allclose(backward, dense[np.ix_(rows, cols)].T @ Y[:rows.size],
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("beta,dtype", [(2.0, "float64"), (1.0, "float32"), (0.0, "float32")])
def test_threaded_products_equal_one_call(small_graph, beta, dtype, monkeypatch):
    from digraph_askls.kernels import _hops

    serial = get_graph_kernel("ppr", small_graph, alpha=0.7, beta=beta, n_hops=4,
                              dtype=dtype, n_threads=1)
    monkeypatch.setattr(_hops.LinkProducts, "min_nnz", 0)
    threaded = get_graph_kernel("ppr", small_graph, alpha=0.7, beta=beta, n_hops=4,
                                dtype=dtype, n_threads=3)
    assert len(threaded._links.blocks) == 3 and len(serial._links.blocks) == 1
    X = np.random.default_rng(2).standard_normal((60, 5))
    # Row blocks change no sum: each row is computed by the same loop either way.
    np.testing.assert_array_equal(threaded @ X, serial @ X)
    np.testing.assert_array_equal(threaded.rmatmat(X), serial.rmatmat(X))
    for a, b in zip(threaded.matmat_pair(X, X[::-1]), serial.matmat_pair(X, X[::-1])):
        np.testing.assert_array_equal(a, b)


def test_adjoint_of_undirected_float32_kernel(small_graph):
    K = get_graph_kernel("ppr", small_graph, alpha=0.7, beta=1.0, n_hops=4, dtype="float32")
    dense = _dense_ppr(small_graph, 0.7, 1.0, 4)
    rng = np.random.default_rng(3)
    X, Y = rng.standard_normal((60, 2)), rng.standard_normal((60, 2))
    np.testing.assert_allclose(K.T @ X, dense.T @ X, rtol=1e-5, atol=1e-5)
    forward, backward = K.T.matmat_pair(X, Y)
    np.testing.assert_allclose(forward, dense.T @ X, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(backward, dense @ Y, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="n_threads must be"):
        get_graph_kernel("ppr", small_graph, n_threads=0)


@pytest.mark.parametrize("beta,dtype", [(2.0, "float64"), (1.0, "float32")])
def test_both_views_in_one_pass_equal_separate_products(small_graph, beta, dtype):
    from digraph_askls.kernels._restrict import views_pair_product

    K = get_graph_kernel("ppr", small_graph, alpha=0.7, beta=beta, n_hops=4, dtype=dtype)
    dense = _dense_ppr(small_graph, 0.7, beta, 4)
    train, test = np.arange(0, 60, 2), np.arange(1, 60, 2)
    rng = np.random.default_rng(5)
    B, A = rng.standard_normal((30, 3)), rng.standard_normal((30, 3))
    source, target = restrict_kernel(K, test, train), restrict_kernel(K, train, test)
    forward, backward = views_pair_product(source, target, B, A)
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(forward, dense[np.ix_(test, train)] @ B, rtol=tol, atol=tol)
    np.testing.assert_allclose(backward, dense[np.ix_(train, test)].T @ A, rtol=tol, atol=tol)
    assert views_pair_product(source, restrict_kernel(K, test, train), B, A) is None


def test_pickled_kernel_keeps_its_links_and_row_blocks(small_graph, monkeypatch):
    import pickle

    from digraph_askls.kernels import _hops

    monkeypatch.setattr(_hops.LinkProducts, "min_nnz", 0)
    K = get_graph_kernel("ppr", small_graph, beta=1.0, n_hops=3, dtype="float32",
                         n_threads=2)
    clone = pickle.loads(pickle.dumps(K))
    assert len(clone._links.blocks) == 2
    X = np.random.default_rng(6).standard_normal((60, 2))
    np.testing.assert_array_equal(clone @ X, K @ X)


def test_walk_holds_the_graph_values_and_one_transpose(small_graph):
    # A^T is the graph's own index arrays (values in the hop precision), A one transpose.
    K = get_graph_kernel("ppr", small_graph, n_hops=2, dtype="float32")
    links = K._links
    assert np.shares_memory(links.backward.indices, small_graph.indices)
    assert links.forward.data.dtype == links.backward.data.dtype == np.float32
    assert links.nbytes < small_graph.data.nbytes + 2 * small_graph.indices.nbytes + 4096


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_products_in_blocks_of_columns_equal_one_product(dtype, n_threads, layout,
                                                         monkeypatch):
    # threaded_product goes through a wide factor in blocks of columns (here 16 of 100:
    # 6 blocks and one of 4) where each of its rows is read many times or it is not
    # C-contiguous; every entry is the same sum, in the same order, as SciPy's product.
    from scipy import sparse

    from digraph_askls.kernels import _hops

    monkeypatch.setattr(_hops, "PRODUCT_BLOCK_BYTES", 1)
    monkeypatch.setattr(_hops.LinkProducts, "min_nnz", 0)
    rng = np.random.default_rng(7)
    matrix = sparse.random(90, 80, density=0.2, random_state=3, format="csr", dtype=dtype)
    assert matrix.nnz >= _hops.BLOCK_REUSE * 80
    X = rng.standard_normal((80, 100)).astype(dtype)
    if layout == "transposed":
        X = np.ascontiguousarray(X.T).T
    assert _hops.block_width(80, X.itemsize, 100) == 16
    product = _hops.threaded_product(matrix, X, n_threads=n_threads)
    np.testing.assert_array_equal(product, matrix @ X)
    assert product.dtype == (matrix @ X).dtype


def test_feature_gram_by_dense_blocks_equals_the_sparse_product(monkeypatch):
    # Both routes of the attribute kernels' Gram matrix give the same numbers; the rule
    # sends skewed columns (a few frequent attributes) to the dense blocks.
    from scipy import sparse

    from digraph_askls.kernels import _hops, _propagated

    monkeypatch.setattr(_hops, "PRODUCT_BLOCK_BYTES", 1)
    rng = np.random.default_rng(8)
    X = sparse.csr_array(sparse.hstack([rng.random((70, 3)),     # three attributes on
                                        sparse.random(70, 37, density=0.05,  # every node
                                                      random_state=4)]))
    counts = np.bincount(X.indices, minlength=40).astype(float)
    assert X.nnz * 70 < 32 * np.sum(counts ** 2)          # the dense blocks' route
    np.testing.assert_array_equal(_propagated._gram(X), (X @ X.T).toarray())
    even = sparse.csr_array(sparse.eye(70, 40) + sparse.eye(70, 40, k=-30))
    counts = np.bincount(even.indices, minlength=40).astype(float)
    assert even.nnz * 70 >= 32 * np.sum(counts ** 2)     # the sparse product's route
    np.testing.assert_array_equal(_propagated._gram(even), (even @ even.T).toarray())
    dense = rng.random((20, 6))
    np.testing.assert_array_equal(_propagated._gram(dense), dense @ dense.T)
