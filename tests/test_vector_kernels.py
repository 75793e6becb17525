"""Tests of the vector kernels (SNE, T, RBF) of ``digraph_askls.kernels``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics.pairwise import rbf_kernel as sklearn_rbf_kernel

from digraph_askls.kernels import (
    VECTOR_KERNELS,
    get_vector_kernel,
    rbf_kernel,
    sne_kernel,
    t_kernel,
)

ASYMMETRIC = [pytest.param(sne_kernel, id="sne"), pytest.param(t_kernel, id="t")]

def _points(n_rows, bound=10.0):
    coordinates = st.floats(-bound, bound, allow_nan=False, allow_infinity=False)
    return arrays(np.float64, (n_rows, 3), elements=coordinates)


def _naive_sne(X, Y, Z, sigma):
    K = np.empty((len(X), len(Y)))
    for i, x in enumerate(X):
        normaliser = sum(np.exp(-np.sum((x - z) ** 2) / sigma**2) for z in Z)
        for j, y in enumerate(Y):
            K[i, j] = np.exp(-np.sum((x - y) ** 2) / sigma**2) / normaliser
    return K


def _naive_t(X, Y, Z):
    K = np.empty((len(X), len(Y)))
    for i, x in enumerate(X):
        normaliser = sum(1.0 / (1.0 + np.sum((x - z) ** 2)) for z in Z)
        for j, y in enumerate(Y):
            K[i, j] = 1.0 / (1.0 + np.sum((x - y) ** 2)) / normaliser
    return K


@pytest.mark.parametrize("kernel", ASYMMETRIC)
@settings(max_examples=50, deadline=None)
@given(X=_points(4), Z=_points(6))
def test_rows_sum_to_one_over_reference(kernel, X, Z):
    K = kernel(X, Z, reference=Z)
    assert K.shape == (4, 6)
    np.testing.assert_allclose(K.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(K >= 0)


@settings(max_examples=50, deadline=None)
@given(X=_points(3, 2.0), Y=_points(4, 2.0), Z=_points(5, 2.0), sigma=st.floats(0.5, 5.0))
def test_sne_matches_naive_formula(X, Y, Z, sigma):
    # small coordinates: the naive formula must not underflow to 0 / 0
    expected = _naive_sne(X, Y, Z, sigma)
    np.testing.assert_allclose(sne_kernel(X, Y, sigma=sigma, reference=Z), expected,
                               rtol=1e-9, atol=1e-300)


@settings(max_examples=50, deadline=None)
@given(X=_points(3), Y=_points(4), Z=_points(5))
def test_t_matches_naive_formula(X, Y, Z):
    np.testing.assert_allclose(t_kernel(X, Y, reference=Z), _naive_t(X, Y, Z), rtol=1e-12)


def test_reference_defaults_to_y():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(5, 2)), rng.normal(size=(7, 2))
    np.testing.assert_array_equal(sne_kernel(X, Y, sigma=2.0),
                                  sne_kernel(X, Y, sigma=2.0, reference=Y))
    np.testing.assert_array_equal(t_kernel(X, Y), t_kernel(X, Y, reference=Y))
    np.testing.assert_array_equal(t_kernel(X), t_kernel(X, X))


@pytest.mark.parametrize("kernel", ASYMMETRIC)
def test_asymmetric(kernel):
    X = np.array([[0.0], [0.5], [1.0], [3.0]])
    K = kernel(X, X)
    assert not np.allclose(K, K.T)
    # 0.5 has two close neighbours to share its mass with, 0.0 only one
    assert K[1, 0] < K[0, 1]


@pytest.mark.parametrize("kernel", ASYMMETRIC)
def test_large_distances_are_stable(kernel):
    X = np.array([[0.0], [1e3], [1e150]])
    Z = np.array([[1e4], [2e4], [-1e140]])
    K = kernel(X, Z, reference=Z)
    assert np.all(np.isfinite(K))
    np.testing.assert_allclose(K.sum(axis=1), 1.0)
    # with every reference point far away the nearest one takes (nearly) all the mass
    if kernel is sne_kernel:
        np.testing.assert_allclose(K[:2], [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])


def test_sne_small_sigma_is_nearest_neighbour():
    X = np.array([[0.0], [2.9]])
    Z = np.array([[1.0], [3.0]])
    K = sne_kernel(X, Z, sigma=1e-3)
    np.testing.assert_allclose(K, [[1.0, 0.0], [0.0, 1.0]])


@settings(max_examples=30, deadline=None)
@given(X=_points(4), Y=_points(3), sigma=st.floats(0.1, 10.0))
def test_rbf_matches_scikit_learn(X, Y, sigma):
    expected = sklearn_rbf_kernel(X, Y, gamma=1.0 / sigma**2)
    np.testing.assert_allclose(rbf_kernel(X, Y, sigma=sigma), expected, rtol=1e-10,
                               atol=1e-300)


def test_rbf_symmetric_and_ignores_reference():
    X = np.random.default_rng(1).normal(size=(6, 3))
    K = rbf_kernel(X, sigma=1.5)
    np.testing.assert_allclose(K, K.T)
    np.testing.assert_allclose(np.diag(K), 1.0)
    np.testing.assert_array_equal(rbf_kernel(X, X, sigma=1.5, reference=X[:2]), K)


def test_registry_and_calling_convention():
    assert set(VECTOR_KERNELS) == {"sne", "t", "rbf"}
    X = np.random.default_rng(2).normal(size=(4, 2))
    for name, kernel in VECTOR_KERNELS.items():
        assert get_vector_kernel(name) is kernel
        assert kernel(X, X[:3], reference=X).shape == (4, 3)


def test_unknown_kernel_lists_valid_names():
    with pytest.raises(ValueError, match=r"unknown vector kernel 'gauss'.*\['rbf', 'sne', 't'\]"):
        get_vector_kernel("gauss")


@pytest.mark.parametrize("kernel", [sne_kernel, t_kernel, rbf_kernel])
def test_feature_mismatch_is_reported(kernel):
    with pytest.raises(ValueError, match=r"Y must have as many features as X \(2\)"):
        kernel(np.zeros((2, 2)), np.zeros((2, 3)))


@pytest.mark.parametrize("sigma", [0.0, -1.0, np.nan])
def test_bad_sigma(sigma):
    with pytest.raises(ValueError, match="sigma must be a positive finite number"):
        sne_kernel(np.zeros((2, 2)), sigma=sigma)
