"""Tests of the vector kernels (SNE, T, RBF) and the KL kernel between Gaussian mixtures."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics.pairwise import rbf_kernel as sklearn_rbf_kernel
from sklearn.mixture import GaussianMixture

from digraph_askls.kernels import (
    VECTOR_KERNELS,
    DiagonalGMMs,
    get_gmm_kl_divergences,
    get_median_bandwidth,
    get_vector_kernel,
    kl_gmm_kernel,
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
    K = kernel(X, Z, sigma=1.0, reference=Z, normalize="sum")
    assert K.shape == (4, 6)
    np.testing.assert_allclose(K.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(K >= 0)
    # the default normaliser is the mean: the paper's kernel times n_reference (subnormal
    # entries, below 1e-300, keep fewer significant digits than rtol asks of them)
    np.testing.assert_allclose(kernel(X, Z, sigma=1.0, reference=Z), 6 * K, rtol=1e-12,
                               atol=1e-300)


@settings(max_examples=50, deadline=None)
@given(X=_points(3, 2.0), Y=_points(4, 2.0), Z=_points(5, 2.0), sigma=st.floats(0.5, 5.0))
def test_sne_matches_naive_formula(X, Y, Z, sigma):
    # small coordinates: the naive formula must not underflow to 0 / 0
    expected = _naive_sne(X, Y, Z, sigma)
    np.testing.assert_allclose(sne_kernel(X, Y, sigma=sigma, reference=Z, normalize="sum"),
                               expected, rtol=1e-9, atol=1e-300)


@settings(max_examples=50, deadline=None)
@given(X=_points(3), Y=_points(4), Z=_points(5))
def test_t_matches_naive_formula(X, Y, Z):
    np.testing.assert_allclose(t_kernel(X, Y, sigma=1.0, reference=Z, normalize="sum"),
                               _naive_t(X, Y, Z), rtol=1e-12)


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
    K = kernel(X, Z, sigma=1.0, reference=Z, normalize="sum")
    assert np.all(np.isfinite(K))
    np.testing.assert_allclose(K.sum(axis=1), 1.0)
    # with every reference point far away the nearest one takes (nearly) all the mass
    if kernel is sne_kernel:
        np.testing.assert_allclose(K[:2], [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])


def test_sne_small_sigma_is_nearest_neighbour():
    X = np.array([[0.0], [2.9]])
    Z = np.array([[1.0], [3.0]])
    K = sne_kernel(X, Z, sigma=1e-3, normalize="sum")
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


@pytest.mark.parametrize("kernel", ASYMMETRIC)
@settings(max_examples=30, deadline=None)
@given(X=_points(5), Z=_points(6), scale=st.floats(1e-3, 1e3))
def test_default_bandwidth_makes_the_kernel_independent_of_units(kernel, X, Z, scale):
    # sigma="auto" follows the reference set: rescaling every feature changes nothing, up
    # to the rounding of the exponent: exp(-t) carries a relative error of about t * eps,
    # and t = d^2 / sigma^2 is large where the reference points nearly coincide (sigma
    # tiny) while X lies far from them.
    from scipy.spatial.distance import cdist

    exponent = cdist(X, Z, "sqeuclidean").max() / get_median_bandwidth(Z) ** 2
    rtol = 1e-8 + 64 * np.finfo(float).eps * exponent
    np.testing.assert_allclose(kernel(scale * X, scale * Z, reference=scale * Z),
                               kernel(X, Z, reference=Z), rtol=rtol, atol=1e-300)


@pytest.mark.parametrize("name", ["sne", "t"])
def test_classifier_with_default_kernel_ignores_the_units(name):
    from digraph_askls import AsKLSClassifier

    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0.0, 1.0, size=(20, 4)), rng.normal(1.0, 1.0, size=(20, 4))])
    y = np.repeat([0, 1], 20)
    small = AsKLSClassifier(kernel=name).fit(X, y).decision_function(X)
    large = AsKLSClassifier(kernel=name).fit(1000 * X, y).decision_function(1000 * X)
    np.testing.assert_allclose(large, small, rtol=1e-6, atol=1e-9)


def test_median_bandwidth():
    X = np.array([[0.0], [1.0], [3.0], [3.0]])     # distinct distances 1, 2, 3, 2, 3
    assert get_median_bandwidth(X) == 1.0
    assert get_median_bandwidth(np.ones((4, 2))) == 1.0        # all samples coincide
    assert get_median_bandwidth(np.zeros((1, 3))) == 1.0
    rng = np.random.default_rng(0)
    big = rng.normal(size=(3000, 4))
    # evenly spaced rows stand for the whole set
    assert abs(get_median_bandwidth(big) / get_median_bandwidth(big, max_samples=3000)
               - 1) < 0.05
    with pytest.raises(ValueError, match="max_samples must be an integer >= 2, got 1"):
        get_median_bandwidth(big, max_samples=1)


@pytest.mark.parametrize("kernel", ASYMMETRIC)
def test_t_and_sne_parameters_are_checked(kernel):
    X = np.zeros((2, 2))
    with pytest.raises(ValueError, match=r"normalize must be one of \['mean', 'sum'\], got 'max'"):
        kernel(X, normalize="max")
    with pytest.raises(ValueError, match="sigma must be a positive finite number or 'auto'"):
        kernel(X, sigma="median")
    with pytest.raises(TypeError, match="sigma must be a positive finite number, got None"):
        kernel(X, sigma=None)
    with pytest.raises(ValueError, match="X contains NaN"):
        kernel(np.array([[0.0, np.nan]]))


# --- KL kernel between diagonal Gaussian mixtures -------------------------------------------

def _random_gmms(rng, n_mixtures=4, n_components=3, n_features=2, scale=1.0):
    weights = rng.dirichlet(np.ones(n_components), size=n_mixtures)
    means = scale * rng.normal(size=(n_mixtures, n_components, n_features))
    variances = scale**2 * rng.uniform(0.2, 2.0, size=(n_mixtures, n_components, n_features))
    return DiagonalGMMs(weights, means, variances)


def _gaussian_kl(mean_p, var_p, mean_q, var_q):
    """Closed form of KL(N(mean_p, diag var_p) || N(mean_q, diag var_q))."""
    return 0.5 * np.sum(var_p / var_q + (mean_q - mean_p) ** 2 / var_q - 1
                        + np.log(var_q) - np.log(var_p))


def test_score_samples_matches_scikit_learn():
    rng = np.random.default_rng(3)
    data = [rng.normal(size=(200, 3)) * 50 + 1000 * rng.normal(size=3) for _ in range(3)]
    estimators = [GaussianMixture(4, covariance_type="diag", random_state=0).fit(x)
                  for x in data]
    gmms = DiagonalGMMs.from_estimators(estimators)
    points = np.concatenate(data)
    expected = np.column_stack([e.score_samples(points) for e in estimators])
    np.testing.assert_allclose(gmms.score_samples(points), expected, rtol=1e-10)


def test_kl_of_gmm_with_itself_is_zero():
    gmms = _random_gmms(np.random.default_rng(4))
    twice = gmms[[0, 1, 0]]
    D = get_gmm_kl_divergences(twice, n_samples=500, random_state=0)
    np.testing.assert_allclose(np.diag(D), 0.0, atol=1e-12)
    np.testing.assert_allclose([D[0, 2], D[2, 0]], 0.0, atol=1e-12)
    assert D[0, 1] > 0.0 and D[1, 0] > 0.0


def test_kl_of_single_gaussians_matches_closed_form():
    rng = np.random.default_rng(5)
    means, variances = rng.normal(size=(3, 1, 4)), rng.uniform(0.5, 2.0, size=(3, 1, 4))
    gmms = DiagonalGMMs(np.ones((3, 1)), means, variances)
    n_samples = 4000
    D = get_gmm_kl_divergences(gmms, n_samples=n_samples, random_state=1)
    for i in range(3):
        # standard error of the estimate, from an independent sample of the log-ratio
        x = means[i, 0] + np.sqrt(variances[i, 0]) * rng.standard_normal((20000, 4))
        for j in range(3):
            exact = _gaussian_kl(means[i, 0], variances[i, 0], means[j, 0], variances[j, 0])
            log_ratio = (gmms[i].score_samples(x) - gmms[j].score_samples(x))[:, 0]
            tolerance = 5 * log_ratio.std() / np.sqrt(n_samples) + 1e-12
            assert abs(D[i, j] - exact) < tolerance, (i, j, D[i, j], exact)


def test_kl_is_asymmetric():
    gmms = DiagonalGMMs(np.ones((2, 1)), np.zeros((2, 1, 1)), [[[1.0]], [[4.0]]])
    D = get_gmm_kl_divergences(gmms, n_samples=20000, random_state=0)
    assert D[0, 1] == pytest.approx(0.5 * (0.25 - 1 + np.log(4)), abs=0.02)
    assert D[1, 0] == pytest.approx(0.5 * (4 - 1 - np.log(4)), abs=0.05)
    K = kl_gmm_kernel(gmms, a=2.0, n_samples=20000, random_state=0)
    np.testing.assert_allclose(K, np.exp(-2.0 * D))
    assert K[0, 1] > K[1, 0]


def test_kl_is_reproducible_and_rows_do_not_depend_on_columns():
    gmms = _random_gmms(np.random.default_rng(6), n_mixtures=5)
    D = get_gmm_kl_divergences(gmms, n_samples=300, random_state=7)
    np.testing.assert_array_equal(D, get_gmm_kl_divergences(gmms, n_samples=300,
                                                            random_state=7))
    part = get_gmm_kl_divergences(gmms[:2], gmms[[4, 1]], n_samples=300, random_state=7)
    np.testing.assert_allclose(part, D[:2][:, [4, 1]], rtol=1e-10, atol=1e-10)
    other = get_gmm_kl_divergences(gmms, n_samples=300, random_state=8)
    assert not np.allclose(D, other)


def test_sample_shapes_and_moments():
    gmms = DiagonalGMMs([[0.25, 0.75]], [[[0.0], [4.0]]], [[[1.0], [1.0]]])
    samples = gmms.sample(20000, random_state=0)
    assert samples.shape == (1, 20000, 1)
    assert samples.mean() == pytest.approx(3.0, abs=0.05)


def test_kl_input_errors():
    gmms = _random_gmms(np.random.default_rng(9))
    with pytest.raises(ValueError, match="n_samples must be a positive integer, got 0"):
        get_gmm_kl_divergences(gmms, n_samples=0)
    with pytest.raises(ValueError, match="a must be a positive finite number"):
        kl_gmm_kernel(gmms, a=-1.0)
    with pytest.raises(TypeError, match="gmms_X must be a DiagonalGMMs, got ndarray"):
        get_gmm_kl_divergences(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="gmms_Y must have 2 features like gmms_X, got 3"):
        get_gmm_kl_divergences(gmms, _random_gmms(np.random.default_rng(0), n_features=3))
    with pytest.raises(ValueError, match="rows summing to 1"):
        DiagonalGMMs([[0.5, 0.6]], np.zeros((1, 2, 1)), np.ones((1, 2, 1)))
    with pytest.raises(ValueError, match=r"variances must have shape \(1, 2, 1\)"):
        DiagonalGMMs([[0.5, 0.5]], np.zeros((1, 2, 1)), np.ones((1, 2, 2)))
    full = GaussianMixture(1, covariance_type="full").fit(np.random.default_rng(0)
                                                          .normal(size=(10, 2)))
    with pytest.raises(ValueError, match="covariance_type='diag'"):
        DiagonalGMMs.from_estimators([full])


def test_samples_a_rounding_error_apart_count_as_one_for_the_bandwidth():
    # -10 and its neighbour one ulp away are distinct at this scale and equal once scaled
    # by 820.138...: the median distance must not depend on which.
    Z = np.array([[9.0, 6.0, 1.0], [-9.999999999999998, 1.0, 1.0], [-10.0, 1.0, 1.0],
                  [0.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    scale = 820.1380581504535
    assert get_median_bandwidth(scale * Z) == pytest.approx(scale * get_median_bandwidth(Z),
                                                            rel=1e-12)
    X = np.zeros((5, 3))
    np.testing.assert_allclose(t_kernel(scale * X, scale * Z, reference=scale * Z),
                               t_kernel(X, Z, reference=Z), rtol=1e-8)
