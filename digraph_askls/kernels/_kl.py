"""Kullback-Leibler kernel between diagonal Gaussian mixtures (section 4.1 of the paper).

``K(P_i, P_j) = exp(-a KL(P_i || P_j))`` with ``KL`` estimated by Monte Carlo, as the paper
does: draw ``n_samples`` points from ``P_i`` and average ``log p_i(x) - log p_j(x)``. The
log-densities of all samples of a mixture under all mixtures are one matrix product, because
for a diagonal Gaussian ``log N(x; m, v)`` is linear in ``(x**2, x)``.
"""

import logging

import numpy as np
from tqdm.auto import tqdm

from digraph_askls._memory import check_dense_allocation

__all__ = ["DiagonalGMMs", "get_gmm_kl_divergences", "kl_gmm_kernel"]

logger = logging.getLogger(__name__)

_MAX_ELEMENTS = 2**23  # entries of the largest temporary (points x mixture components)


def _get_rng(random_state):
    """A ``numpy.random.Generator`` from ``None``, an int, a Generator or a RandomState."""
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(2**32, dtype=np.uint64))
    return np.random.default_rng(random_state)


class DiagonalGMMs:
    """Parameters of many Gaussian mixtures with diagonal covariances, stacked.

    Mixture ``i`` has density ``p_i(x) = sum_k weights[i, k] N(x; means[i, k],
    diag(variances[i, k]))``. All mixtures have the same number of components and features,
    so that densities and samples are computed for all of them at once.

    Parameters
    ----------
    weights : array-like of shape (n_mixtures, n_components)
        Mixing weights, non-negative, each row summing to one.
    means : array-like of shape (n_mixtures, n_components, n_features)
        Component means.
    variances : array-like of shape (n_mixtures, n_components, n_features)
        Component variances (diagonals of the covariances), positive.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import DiagonalGMMs
    >>> gmms = DiagonalGMMs(weights=[[1.0], [1.0]], means=[[[0.0]], [[1.0]]],
    ...                     variances=[[[1.0]], [[1.0]]])
    >>> len(gmms), gmms.n_components, gmms.n_features
    (2, 1, 1)
    >>> np.round(gmms.score_samples(np.array([[0.0]])), 4)  # log N(0; 0, 1), log N(0; 1, 1)
    array([[-0.9189, -1.4189]])
    """

    def __init__(self, weights, means, variances):
        weights = np.asarray(weights, dtype=np.float64)
        means = np.asarray(means, dtype=np.float64)
        variances = np.asarray(variances, dtype=np.float64)
        if weights.ndim != 2:
            raise ValueError(f"weights must have shape (n_mixtures, n_components), "
                             f"got shape {weights.shape}")
        expected = weights.shape + means.shape[2:]
        if means.ndim != 3 or means.shape[:2] != weights.shape:
            raise ValueError(f"means must have shape {weights.shape + ('n_features',)}, "
                             f"got shape {means.shape}")
        if variances.shape != expected:
            raise ValueError(f"variances must have shape {expected}, "
                             f"got shape {variances.shape}")
        if np.any(weights < 0) or not np.allclose(weights.sum(axis=1), 1.0, rtol=1e-6):
            raise ValueError("weights must be non-negative with rows summing to 1")
        if not np.all(variances > 0) or not np.all(np.isfinite(means)):
            raise ValueError("variances must be positive and means finite")
        self.weights, self.means, self.variances = weights, means, variances

    @classmethod
    def from_estimators(cls, estimators):
        """Stack fitted ``sklearn.mixture.GaussianMixture(covariance_type="diag")`` models.

        Parameters
        ----------
        estimators : sequence of GaussianMixture
            Fitted mixtures with ``covariance_type="diag"`` and a common ``n_components``.

        Returns
        -------
        DiagonalGMMs
        """
        estimators = list(estimators)
        for estimator in estimators:
            if getattr(estimator, "covariance_type", None) != "diag":
                raise ValueError("estimators must be GaussianMixture with covariance_type="
                                 f"'diag', got {estimator!r}")
        return cls(weights=np.stack([e.weights_ for e in estimators]),
                   means=np.stack([e.means_ for e in estimators]),
                   variances=np.stack([e.covariances_ for e in estimators]))

    def __len__(self):
        return self.weights.shape[0]

    def __getitem__(self, index):
        """The mixtures selected by ``index`` (an int, slice or index array)."""
        index = np.atleast_1d(np.arange(len(self))[index])
        return DiagonalGMMs(self.weights[index], self.means[index], self.variances[index])

    def __repr__(self):
        return (f"DiagonalGMMs(n_mixtures={len(self)}, n_components={self.n_components}, "
                f"n_features={self.n_features})")

    @property
    def n_components(self):
        return self.weights.shape[1]

    @property
    def n_features(self):
        return self.means.shape[2]

    def score_samples(self, X):
        """Log-density of every point under every mixture.

        Parameters
        ----------
        X : array-like of shape (n_points, n_features)

        Returns
        -------
        log_density : ndarray of shape (n_points, n_mixtures)
            ``log_density[s, j] = log p_j(X[s])``.
        """
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"X must have shape (n_points, {self.n_features}), "
                             f"got shape {X.shape}")
        return self._score(X, self._score_terms())

    def _score_terms(self):
        """Coefficients of the log-densities as a linear function of ``(x**2, x)``."""
        # centring keeps the expanded quadratic form accurate for large features
        centre = self.means.mean(axis=(0, 1))
        means = self.means - centre
        precisions = 1.0 / self.variances
        coefficients = np.concatenate([-0.5 * precisions, means * precisions], axis=2)
        with np.errstate(divide="ignore"):
            log_weights = np.log(self.weights)
        constant = log_weights - 0.5 * (
            np.sum(means**2 * precisions, axis=2) + np.sum(np.log(self.variances), axis=2)
            + self.n_features * np.log(2 * np.pi))
        return centre, coefficients.reshape(-1, 2 * self.n_features).T, constant.ravel()

    def _score(self, X, terms):
        """``score_samples`` from precomputed terms, in chunks of points (one GEMM each)."""
        centre, coefficients, constant = terms
        n_mixtures, n_components = self.weights.shape
        chunk = max(1, _MAX_ELEMENTS // (n_mixtures * n_components))
        out = np.empty((X.shape[0], n_mixtures))
        for start in range(0, X.shape[0], chunk):
            points = X[start:start + chunk] - centre
            scores = np.concatenate([points**2, points], axis=1) @ coefficients
            scores += constant
            scores = scores.reshape(len(points), n_mixtures, n_components)
            out[start:start + chunk] = _logsumexp_last(scores)
        return out

    def sample(self, n_samples, random_state=None):
        """Draw ``n_samples`` points from each mixture.

        Mixture ``i`` draws from the ``i``-th child stream spawned from ``random_state``, so
        its sample does not depend on the other mixtures.

        Parameters
        ----------
        n_samples : int
        random_state : None, int, numpy Generator or RandomState

        Returns
        -------
        samples : ndarray of shape (n_mixtures, n_samples, n_features)
        """
        rngs = _get_rng(random_state).spawn(len(self))
        return np.stack([self._sample_one(i, n_samples, rng) for i, rng in enumerate(rngs)])

    def _sample_one(self, i, n_samples, rng):
        components = rng.choice(self.n_components, size=n_samples, p=self.weights[i])
        noise = rng.standard_normal((n_samples, self.n_features))
        return self.means[i, components] + np.sqrt(self.variances[i, components]) * noise


def _logsumexp_last(scores):
    """``log(sum(exp(scores), axis=-1))``, overwriting ``scores`` (faster than SciPy's)."""
    top = scores.max(axis=-1, keepdims=True)
    top[~np.isfinite(top)] = 0.0  # rows of -inf only (zero weights) stay -inf
    scores -= top
    np.exp(scores, out=scores)
    with np.errstate(divide="ignore"):
        return np.log(scores.sum(axis=-1)) + top[..., 0]


def _check_n_samples(n_samples):
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) \
            or n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}")
    return int(n_samples)


def _check_gmms(gmms, name):
    if not isinstance(gmms, DiagonalGMMs):
        raise TypeError(f"{name} must be a DiagonalGMMs, got {type(gmms).__name__}")
    return gmms


def get_gmm_kl_divergences(gmms_X, gmms_Y=None, *, n_samples=1000, random_state=None,
                           verbose=False):
    """Monte Carlo estimates of ``KL(P_i || Q_j)`` for all pairs of mixtures.

    ``KL(P_i || Q_j) ~ mean_s [log p_i(x_s) - log q_j(x_s)]`` over ``n_samples`` draws
    ``x_s ~ P_i``. The same draws serve every ``j`` (common random numbers), so the
    diagonal of ``get_gmm_kl_divergences(gmms)`` is zero up to rounding. Estimates are not
    clipped: entries for nearly equal mixtures may come out slightly negative.

    Parameters
    ----------
    gmms_X : DiagonalGMMs
        The mixtures ``P_i`` (rows), which are sampled.
    gmms_Y : DiagonalGMMs, default=None
        The mixtures ``Q_j`` (columns). ``None`` means ``gmms_X``.
    n_samples : int, default=1000
        Draws per row mixture; the standard error decreases as ``n_samples ** -0.5``.
    random_state : None, int, numpy Generator or RandomState, default=None
        Seed of the draws. Row ``i`` uses the ``i``-th stream spawned from it, so a fixed
        seed gives the same row whatever ``gmms_Y`` is and however the work is batched.
    verbose : bool, default=False
        Show a progress bar over the row mixtures.

    Returns
    -------
    divergences : ndarray of shape (n_X, n_Y)

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import DiagonalGMMs, get_gmm_kl_divergences
    >>> gmms = DiagonalGMMs(weights=[[1.0], [1.0]], means=[[[0.0]], [[1.0]]],
    ...                     variances=[[[1.0]], [[1.0]]])
    >>> D = get_gmm_kl_divergences(gmms, n_samples=20000, random_state=0)
    >>> [round(float(D[0, 1]), 2), round(float(D[1, 0]), 2)]  # exact: 0.5 both ways
    [0.49, 0.5]
    >>> bool(np.allclose(np.diag(D), 0.0))
    True
    """
    gmms_X = _check_gmms(gmms_X, "gmms_X")
    gmms_Y = gmms_X if gmms_Y is None else _check_gmms(gmms_Y, "gmms_Y")
    n_samples = _check_n_samples(n_samples)
    if gmms_Y.n_features != gmms_X.n_features:
        raise ValueError(f"gmms_Y must have {gmms_X.n_features} features like gmms_X, "
                         f"got {gmms_Y.n_features}")
    check_dense_allocation((len(gmms_X), len(gmms_Y)),
                           what=f"the KL divergences of {len(gmms_X)} x {len(gmms_Y)} mixtures",
                           remedy="compute them in row blocks (gmms_X[start:stop])")
    rngs = _get_rng(random_state).spawn(len(gmms_X))
    terms = gmms_Y._score_terms()
    batch = max(1, _MAX_ELEMENTS // (n_samples * len(gmms_Y) * gmms_Y.n_components))
    divergences = np.empty((len(gmms_X), len(gmms_Y)))
    for start in tqdm(range(0, len(gmms_X), batch), disable=not verbose,
                      desc="KL divergences"):
        rows = range(start, min(start + batch, len(gmms_X)))
        samples = [gmms_X._sample_one(i, n_samples, rngs[i]) for i in rows]
        own = [gmms_X[i].score_samples(sample).mean() for i, sample in zip(rows, samples)]
        cross = gmms_Y._score(np.concatenate(samples), terms)
        cross = cross.reshape(len(rows), n_samples, len(gmms_Y)).mean(axis=1)
        divergences[start:start + len(rows)] = np.asarray(own)[:, None] - cross
    logger.debug("KL divergences of %d x %d mixtures from %d draws each",
                 len(gmms_X), len(gmms_Y), n_samples)
    return divergences


def kl_gmm_kernel(gmms_X, gmms_Y=None, *, a=1.0, n_samples=1000, random_state=None):
    """KL kernel ``K(P_i, Q_j) = exp(-a KL(P_i || Q_j))`` between Gaussian mixtures.

    The kernel of section 4.1 of the AsK-LS paper; asymmetric because the divergence is.
    To try several ``a``, compute :func:`get_gmm_kl_divergences` once and exponentiate.

    Parameters
    ----------
    gmms_X : DiagonalGMMs
        Mixtures of the first argument (rows).
    gmms_Y : DiagonalGMMs, default=None
        Mixtures of the second argument (columns). ``None`` means ``gmms_X``.
    a : float, default=1.0
        Positive scale of the divergence.
    n_samples : int, default=1000
        Monte Carlo draws per row mixture.
    random_state : None, int, numpy Generator or RandomState, default=None
        Seed of the draws (see :func:`get_gmm_kl_divergences`).

    Returns
    -------
    K : ndarray of shape (n_X, n_Y)

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import DiagonalGMMs, kl_gmm_kernel
    >>> gmms = DiagonalGMMs(weights=[[1.0], [1.0]], means=[[[0.0]], [[0.0]]],
    ...                     variances=[[[1.0]], [[4.0]]])
    >>> K = kl_gmm_kernel(gmms, a=1.0, n_samples=20000, random_state=0)
    >>> np.round(K, 2)  # exact: exp(-KL) = exp(-0.318) = 0.73 and exp(-0.807) = 0.45
    array([[1.  , 0.72],
           [0.45, 1.  ]])
    """
    a = float(a)
    if not np.isfinite(a) or a <= 0:
        raise ValueError(f"a must be a positive finite number, got {a!r}")
    gmms_X = _check_gmms(gmms_X, "gmms_X")
    gmms_Y = gmms_X if gmms_Y is None else _check_gmms(gmms_Y, "gmms_Y")
    check_dense_allocation((2, len(gmms_X), len(gmms_Y)),
                           what=f"the KL kernel of {len(gmms_X)} x {len(gmms_Y)} mixtures",
                           remedy="compute it in row blocks (gmms_X[start:stop])")
    divergences = get_gmm_kl_divergences(gmms_X, gmms_Y, n_samples=n_samples,
                                         random_state=random_state)
    divergences *= -a
    return np.exp(divergences, out=divergences)
