"""The bandwidth of the vector kernels, and its data-driven default.

Distances between feature vectors change with the units of the features; a kernel of
``||x - y|| / sigma`` does not, once ``sigma`` follows the data. The default ``sigma`` of
the SNE and T kernels is half the median distance between training samples, the
"median heuristic" of kernel methods (Schoelkopf and Smola, *Learning with Kernels*,
2002; Gretton et al., "A kernel two-sample test", JMLR 2012). The factor one half was
chosen on the paper's UCI tables (``docs/results/README.md``, Table 4).
"""

import numbers

import numpy as np
from scipy.spatial.distance import pdist
from sklearn.utils import check_array

__all__ = ["BANDWIDTH_SAMPLES", "get_median_bandwidth"]

#: Rows of the reference set that :func:`get_median_bandwidth` reads at most.
BANDWIDTH_SAMPLES = 1000


def _check_sigma(sigma):
    if isinstance(sigma, bool) or not isinstance(sigma, numbers.Real):
        raise TypeError(f"sigma must be a positive finite number, got {sigma!r}")
    sigma = float(sigma)
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"sigma must be a positive finite number, got {sigma!r}")
    return sigma


def _bandwidth(sigma, reference):
    """``sigma`` as a number: checked, or :func:`get_median_bandwidth` for ``"auto"``."""
    if isinstance(sigma, str):
        if sigma != "auto":
            raise ValueError(f"sigma must be a positive finite number or 'auto', got {sigma!r}")
        return get_median_bandwidth(reference)
    return _check_sigma(sigma)


def get_median_bandwidth(X, max_samples=BANDWIDTH_SAMPLES):
    """Half the median distance between distinct samples: the default ``sigma``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The reference (training) samples.
    max_samples : int, default=1000
        At most this many rows, evenly spaced, are read (the median of half a million
        distances is as good as that of all of them, at a fixed cost).

    Returns
    -------
    float
        ``median(||x_i - x_j||) / 2`` over the pairs with ``x_i != x_j`` (pairs closer
        than ``1e-12`` times the largest distance count as equal); 1.0 when all
        samples coincide or there is only one. Rescaling ``X`` by ``c`` rescales it by
        ``c``, so the SNE and T kernels with ``sigma="auto"`` do not change.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import get_median_bandwidth
    >>> X = np.array([[0.0], [1.0], [3.0]])   # distances 1, 2, 3
    >>> get_median_bandwidth(X), get_median_bandwidth(10 * X)
    (1.0, 10.0)
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    if isinstance(max_samples, bool) or not isinstance(max_samples, numbers.Integral) \
            or max_samples < 2:
        raise ValueError(f"max_samples must be an integer >= 2, got {max_samples!r}")
    if X.shape[0] > max_samples:
        X = X[np.linspace(0, X.shape[0] - 1, max_samples).round().astype(np.intp)]
    distances = pdist(X)
    # Samples closer than 1e-12 of the largest distance count as one: a pair a rounding
    # error apart would otherwise be distinct at one scale and not at another, and
    # rescaling the features would move the median.
    distances = distances[distances > 1e-12 * distances.max(initial=0.0)]
    if distances.size == 0:
        return 1.0
    return float(np.median(distances)) / 2.0
