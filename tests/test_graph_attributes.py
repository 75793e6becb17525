"""Node attributes (features) and fixed splits held by Graph: types, checks, repr."""

import numpy as np
import pytest
from scipy import sparse

from digraph_askls.graph import Graph, Split, get_adjacency


@pytest.fixture
def parts():
    adjacency, nodes = get_adjacency([(0, 1), (1, 2), (2, 3), (3, 0)])
    return adjacency, np.array([0, 1, 0, -1]), nodes, ["a", "b"]


def test_existing_calls_are_unchanged(parts):
    graph = Graph(*parts, name="ring")
    assert graph.features is None and graph.splits is None and graph.n_features == 0
    assert repr(graph) == "Graph(name='ring', n_nodes=4, n_edges=4, n_classes=2)"


@pytest.mark.parametrize("features", [
    np.arange(8, dtype=np.float32).reshape(4, 2),
    np.array([[1, 0], [0, 1], [1, 1], [0, 0]]),
    np.array([[True, False]] * 4),
    [[0.5, 1.0]] * 4,
])
def test_dense_features_become_float64_arrays(parts, features):
    graph = Graph(*parts, features=features)
    assert isinstance(graph.features, np.ndarray) and graph.features.dtype == np.float64
    assert np.array_equal(graph.features, np.asarray(features, dtype=np.float64))
    assert graph.n_features == 2 and "n_features=2" in repr(graph)


@pytest.mark.parametrize("make", [sparse.csr_matrix, sparse.coo_array, sparse.csc_array])
def test_sparse_features_become_canonical_float64_csr(parts, make):
    coo = sparse.coo_array(([1, 1, 2], ([0, 0, 3], [2, 2, 0])), shape=(4, 3))  # repeated
    graph = Graph(*parts, features=make(coo))
    features = graph.features
    assert isinstance(features, sparse.csr_array) and features.dtype == np.float64
    assert features.has_canonical_format
    assert features.toarray().tolist() == [[0, 0, 2], [0, 0, 0], [0, 0, 0], [2, 0, 0]]


def test_sparse_features_given_are_not_modified(parts):
    given = sparse.csr_array(([1.0, 1.0], [1, 1], [0, 2, 2, 2, 2]), shape=(4, 2))
    Graph(*parts, features=given)
    assert given.nnz == 2 and not given.has_canonical_format


@pytest.mark.parametrize("features, error, match", [
    (np.ones((3, 2)), ValueError, r"one row per node, shape \(4, n_features\), got shape \(3, 2\)"),
    (np.ones(4), ValueError, r"2-d .* got shape \(4,\)"),
    (np.ones((4, 2, 1)), ValueError, r"got shape \(4, 2, 1\)"),
    (np.array([["a"]] * 4), TypeError, "must hold numbers .* got dtype <U1"),
    (np.ones((4, 1), dtype=complex), TypeError, "got dtype complex128"),
    (np.array([[1.0], [np.nan], [np.inf], [0.0]]), ValueError, "finite, got 2 NaN or infinite"),
    (sparse.csr_array(np.array([[np.nan]] * 4)), ValueError, "finite, got 4"),
    (sparse.csr_array(np.ones((5, 2))), ValueError, r"got shape \(5, 2\)"),
])
def test_bad_features_are_refused(parts, features, error, match):
    with pytest.raises(error, match=match):
        Graph(*parts, features=features)


def test_splits_are_sorted_int64_splits(parts):
    graph = Graph(*parts, splits=[(np.array([2, 0], dtype=np.int32), [], [1])])
    (split,) = graph.splits
    assert isinstance(graph.splits, tuple) and isinstance(split, Split)
    assert split.train.tolist() == [0, 2] and split.valid.size == 0
    assert all(part.dtype == np.int64 for part in split)
    assert "n_splits=1" in repr(graph) and "n_features" not in repr(graph)


@pytest.mark.parametrize("splits, error, match", [
    ([([0], [1], [4])], ValueError, r"splits\[0\].test must hold node indices in \[0, 4\)"),
    ([([0], [1], [-1])], ValueError, r"got values in \[-1, -1\]"),
    ([([0, 2], [1], [2])], ValueError, r"disjoint, got 1 node\(s\) in both 'train' and 'test'"),
    ([([0], [1], [])], None, None),
    ([([0], [1], [2]), ([0], [3], [1])], ValueError,
     r"splits\[1\]: every split node must be labelled, got 1 unlabelled node\(s\), e.g. \[3\]"),
    ([([0, 0], [1], [2])], ValueError, r"splits\[0\].train must hold distinct nodes"),
    ([([0], [1])], ValueError, r"splits\[0\] must be Split\(train, valid, test\)"),
    ([([0.0], [1], [2])], ValueError, r"integer node indices, got float64"),
    ([(np.array([True, False, False, False]), [1], [2])], TypeError, "numpy.flatnonzero"),
    (Split([0], [1], [2]), TypeError, "list or tuple of Split.* got Split"),
    ("abc", TypeError, "got str"),
])
def test_bad_splits_are_refused(parts, splits, error, match):
    if error is None:
        assert len(Graph(*parts, splits=splits).splits) == 1
        return
    with pytest.raises(error, match=match):
        Graph(*parts, splits=splits)


def test_to_networkx_leaves_features_and_splits_out(parts):
    graph = Graph(*parts, features=np.eye(4), splits=[Split([0], [1], [2])])
    digraph = graph.to_networkx()
    assert all(set(data) <= {"label"} for _, data in digraph.nodes(data=True))
    assert "features" not in digraph.graph and "splits" not in digraph.graph
