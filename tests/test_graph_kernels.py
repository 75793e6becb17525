"""Graph kernels, their registry and kernel sub-blocks."""

import networkx as nx
import numpy as np
import pytest
import scipy.io
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.sparse.linalg import LinearOperator, aslinearoperator

from digraph_askls.datasets import load_dataset
from digraph_askls.kernels import (
    KERNELS,
    get_graph_kernel,
    get_in_degree_kernel,
    get_symmetrized_kernel,
    register_graph_kernel,
    restrict_kernel,
)


def _dense_in_degree_kernel(adjacency):
    A = adjacency.T + np.eye(len(adjacency))
    return A / A.sum(axis=1, keepdims=True)


@st.composite
def dense_digraphs(draw):
    n = draw(st.integers(1, 7))
    weights = st.sampled_from([0.0, 0.0, 0.5, 1.0, 3.0])
    return np.array(draw(st.lists(weights, min_size=n * n, max_size=n * n))).reshape(n, n)


@settings(max_examples=30, deadline=None)
@given(dense_digraphs())
def test_in_degree_kernel_matches_its_definition(adjacency):
    P = get_in_degree_kernel(sparse.csr_array(adjacency))
    assert isinstance(P, sparse.csr_array) and P.has_canonical_format
    np.testing.assert_allclose(P.toarray(), _dense_in_degree_kernel(adjacency), atol=1e-15)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


def test_in_degree_kernel_reproduces_the_authors_cora_matrix(shared_datasets):
    graph = load_dataset("cora", data_home=shared_datasets, download=False)
    authors = scipy.io.loadmat(shared_datasets / "askls_mat" / "cora.mat")["G"]
    P = get_in_degree_kernel(graph.adjacency)
    assert P.shape == authors.shape == (2708, 2708)
    assert P.nnz == np.count_nonzero(authors) == 5429 + 2708
    assert np.max(np.abs(P.toarray() - authors)) <= 1e-12


def test_symmetrized_kernel_for_every_input_kind():
    K = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 4.0], [0.0, 0.0, 1.0]])
    expected = (K + K.T) / 2
    np.testing.assert_array_equal(get_symmetrized_kernel(K), expected)
    for sparse_K in (sparse.csr_array(K), sparse.csc_matrix(K)):
        result = get_symmetrized_kernel(sparse_K)
        assert sparse.issparse(result) and result.format == "csr"
        np.testing.assert_array_equal(result.toarray(), expected)
    operator = get_symmetrized_kernel(aslinearoperator(K))
    assert isinstance(operator, LinearOperator)
    np.testing.assert_allclose(operator @ np.eye(3), expected)
    with pytest.raises(ValueError, match=r"square .* got shape \(2, 3\)"):
        get_symmetrized_kernel(np.ones((2, 3)))
    with pytest.raises(TypeError, match="got Fake"):
        get_symmetrized_kernel(type("Fake", (list,), {"shape": (2, 2)})())


def test_registry_builds_named_kernels_and_lists_names_on_error():
    digraph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (0, 2)])
    P = get_graph_kernel("in_degree", digraph)
    np.testing.assert_array_equal(P.toarray(), get_in_degree_kernel(digraph).toarray())
    S = get_graph_kernel("in_degree_sym", digraph)
    np.testing.assert_allclose(S.toarray(), (P + P.T).toarray() / 2)
    assert {"in_degree", "in_degree_sym"} <= set(KERNELS)
    with pytest.raises(ValueError, match=r"unknown graph kernel 'nope'; choose from \["):
        get_graph_kernel("nope", digraph)


def test_registry_accepts_operator_kernels_and_checks_builders(monkeypatch):
    monkeypatch.setattr("digraph_askls.kernels._registry.KERNELS", dict(KERNELS))
    from digraph_askls.kernels import _registry

    def two_hop(adjacency, scale=1.0):
        walk = aslinearoperator(get_in_degree_kernel(adjacency))
        return scale * (walk @ walk)

    register_graph_kernel("two_hop", two_hop)
    K = get_graph_kernel("two_hop", [(0, 1), (1, 2)], scale=2.0)
    P = get_in_degree_kernel([(0, 1), (1, 2)]).toarray()
    np.testing.assert_allclose(K @ np.eye(3), 2.0 * P @ P)
    with pytest.raises(ValueError, match="already registered"):
        register_graph_kernel("two_hop", two_hop)
    register_graph_kernel("dense", lambda adjacency: adjacency.toarray())
    with pytest.raises(TypeError, match="sparse matrix or a LinearOperator, got ndarray"):
        get_graph_kernel("dense", [(0, 1)])
    register_graph_kernel("wrong", lambda adjacency: sparse.eye_array(5))
    with pytest.raises(ValueError, match=r"shape \(2, 2\), got \(5, 5\)"):
        get_graph_kernel("wrong", [(0, 1)])
    assert "two_hop" in _registry.KERNELS
    with pytest.raises(TypeError, match="callable"):
        register_graph_kernel("bad", 3)


@pytest.fixture(scope="module")
def rectangular_kernel():
    rng = np.random.default_rng(0)
    dense = rng.random((9, 7)) * (rng.random((9, 7)) < 0.4)
    return dense


@pytest.mark.parametrize(
    "rows, cols",
    [
        ([0, 3, 5, 8], [1, 2, 6]),
        ([8, 1, 1, 4], [6, 6, 0]),  # repeats
        (np.arange(9) % 2 == 0, [3]),  # boolean mask
        ([-1, 0], [-2]),  # negative indices
        ([], [1, 2]),
    ],
)
def test_restrict_kernel_agrees_with_dense_indexing(rectangular_kernel, rows, cols):
    dense = rectangular_kernel
    row_index = np.flatnonzero(rows) if np.asarray(rows).dtype == bool else np.asarray(rows, int)
    expected = dense[np.ix_(row_index, np.asarray(cols, int))]
    np.testing.assert_array_equal(restrict_kernel(dense, rows, cols), expected)
    for sparse_kernel in (sparse.csr_array(dense), sparse.csc_matrix(dense)):
        block = restrict_kernel(sparse_kernel, rows, cols)
        assert block.format == "csr" and type(block).__name__.startswith("csr")
        np.testing.assert_array_equal(block.toarray(), expected)
    operator = restrict_kernel(aslinearoperator(dense), rows, cols)
    assert isinstance(operator, LinearOperator) and operator.shape == expected.shape
    rng = np.random.default_rng(1)
    x, X = rng.random(expected.shape[1]), rng.random((expected.shape[1], 3))
    y, Y = rng.random(expected.shape[0]), rng.random((expected.shape[0], 2))
    np.testing.assert_allclose(operator.matvec(x), expected @ x)
    np.testing.assert_allclose(operator.matmat(X), expected @ X)
    np.testing.assert_allclose(operator.rmatvec(y), expected.T @ y)
    np.testing.assert_allclose(operator.rmatmat(Y), expected.T @ Y)
    np.testing.assert_allclose(operator.T @ y, expected.T @ y)


def test_restrict_kernel_errors(rectangular_kernel):
    with pytest.raises(ValueError, match=r"rows must be indices in \[0, 9\), got values in"):
        restrict_kernel(rectangular_kernel, [0, 9], [0])
    with pytest.raises(ValueError, match=r"boolean cols must have shape \(7,\), got \(3,\)"):
        restrict_kernel(rectangular_kernel, [0], [True, False, True])
    with pytest.raises(TypeError, match="integer indices or a boolean mask, got float64"):
        restrict_kernel(rectangular_kernel, [0.5], [0])
    with pytest.raises(ValueError, match="2-D"):
        restrict_kernel(np.ones(3), [0], [0])


def test_a_sum_of_symmetric_factored_parts_hands_over_one_map():
    # Its decomposition then reduces one map (SpectralAsKLS); with an asymmetric part the
    # two stacked maps differ and both are kept.
    from digraph_askls.kernels import FactoredKernel, KernelSum

    rng = np.random.default_rng(0)
    A, B, C = rng.normal(size=(6, 2)), rng.normal(size=(6, 3)), rng.normal(size=(6, 3))
    symmetric = KernelSum([(1.0, FactoredKernel(A)), (4.0, FactoredKernel(B))])
    U, V = symmetric.factors()
    assert U is V
    np.testing.assert_allclose(U @ V.T, A @ A.T + 4.0 * B @ B.T, atol=1e-12)
    mixed = KernelSum([(1.0, FactoredKernel(A)), (4.0, FactoredKernel(B, C))])
    U, V = mixed.factors()
    assert U is not V
    np.testing.assert_allclose(U @ V.T, A @ A.T + 4.0 * B @ C.T, atol=1e-12)
