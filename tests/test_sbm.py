"""Tests of the directed stochastic block model generator."""

import numpy as np
import pytest
from scipy import sparse

from digraph_askls.datasets import make_directed_sbm


def _class_steps(adjacency, labels, n_classes):
    rows, cols = adjacency.nonzero()
    return (labels[cols] - labels[rows]) % n_classes


def test_shapes_types_and_structure():
    adjacency, labels = make_directed_sbm(300, 3, 5.0, random_state=1)
    assert sparse.issparse(adjacency) and adjacency.format == "csr"
    assert adjacency.shape == (300, 300)
    assert adjacency.dtype == np.float64
    assert labels.shape == (300,)
    assert np.issubdtype(labels.dtype, np.integer)
    assert adjacency.has_canonical_format  # sorted, no duplicates
    assert np.all(adjacency.data == 1.0)
    assert not adjacency.diagonal().any()


def test_classes_nearly_equal_and_shuffled():
    _, labels = make_directed_sbm(103, 4, 2.0, random_state=0)
    sizes = np.bincount(labels, minlength=4)
    assert sizes.max() - sizes.min() <= 1 and sizes.sum() == 103
    assert not np.array_equal(labels, np.arange(103) % 4)


@pytest.mark.parametrize("p_in", [0.0, 0.3, 0.9])
def test_degree_and_intra_class_fraction(p_in):
    n_nodes, n_classes, avg_degree = 20000, 5, 8.0
    adjacency, labels = make_directed_sbm(n_nodes, n_classes, avg_degree, p_in=p_in,
                                          random_state=2)
    assert adjacency.nnz / n_nodes == pytest.approx(avg_degree, rel=0.01)
    steps = _class_steps(adjacency, labels, n_classes)
    assert np.mean(steps == 0) == pytest.approx(p_in, abs=0.01)


def test_one_way_flow():
    n_classes = 4
    adjacency, labels = make_directed_sbm(2000, n_classes, 6.0, p_in=0.4, random_state=3)
    steps = _class_steps(adjacency, labels, n_classes)
    assert set(np.unique(steps).tolist()) == {0, 1}
    # no edge from a later class back to an earlier one in the cycle
    counts = np.zeros((n_classes, n_classes), dtype=int)
    rows, cols = adjacency.nonzero()
    np.add.at(counts, (labels[rows], labels[cols]), 1)
    allowed = np.eye(n_classes, dtype=bool) | np.roll(np.eye(n_classes, dtype=bool), 1, axis=1)
    assert counts[~allowed].sum() == 0
    assert np.all(counts[allowed] > 0)


def test_no_self_loops_in_smallest_classes():
    adjacency, _ = make_directed_sbm(4, 2, 50.0, p_in=1.0, random_state=0)
    assert not adjacency.diagonal().any()
    assert adjacency.nnz == 4  # each node's only intra-class target is its partner


def test_deterministic_under_random_state():
    a1, y1 = make_directed_sbm(500, 3, 4.0, random_state=7)
    a2, y2 = make_directed_sbm(500, 3, 4.0, random_state=np.random.default_rng(7))
    a3, y3 = make_directed_sbm(500, 3, 4.0, random_state=8)
    np.testing.assert_array_equal(y1, y2)
    assert (a1 != a2).nnz == 0
    assert (a1 != a3).nnz > 0 or not np.array_equal(y1, y3)


def test_zero_degree():
    adjacency, labels = make_directed_sbm(10, 2, 0.0, random_state=0)
    assert adjacency.nnz == 0 and labels.shape == (10,)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(n_nodes=3, n_classes=2, avg_degree=1.0), ValueError, r"n_nodes must be >= 2 \* n_classes = 4.*got n_nodes=3"),
        (dict(n_nodes=10, n_classes=1, avg_degree=1.0), ValueError, "n_classes must be >= 2"),
        (dict(n_nodes=10.0, n_classes=2, avg_degree=1.0), TypeError, "n_nodes must be an integer"),
        (dict(n_nodes=10, n_classes=2, avg_degree=-1.0), ValueError, "avg_degree"),
        (dict(n_nodes=10, n_classes=2, avg_degree=np.inf), ValueError, "avg_degree"),
        (dict(n_nodes=10, n_classes=2, avg_degree="3"), TypeError, "avg_degree"),
        (dict(n_nodes=10, n_classes=2, avg_degree=1.0, p_in=1.5), ValueError, r"p_in must be in \[0, 1\], got 1.5"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_directed_sbm(**kwargs)
