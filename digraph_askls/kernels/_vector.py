"""Kernels between feature vectors: the SNE and T kernels (asymmetric) and the RBF kernel.

All kernels share one calling convention,
``kernel(X, Y, *, reference=None, **params) -> ndarray of shape (n_X, n_Y)``,
whose entry ``(i, j)`` is ``K(x_i, y_j)``. The asymmetric kernels are normalised over a
*reference* set, the training samples ``Z`` (section 4.3 of the AsK-LS paper, "Symmetric or
asymmetric kernels"); the first argument ``x`` is the one held fixed in the normaliser.

Two choices make the SNE and T kernels independent of the units of the features and of
the size of the training set, so that one default works on any table:

* **Bandwidth.** Both kernels take ``sigma`` (the T kernel as ``(1 + ||x - y||^2 /
  sigma^2)^-1``; ``sigma = 1`` is the paper's T kernel). The default ``sigma="auto"`` is
  :func:`get_median_bandwidth` of the reference set, half the median distance between
  its samples: it follows any rescaling of the features. Without it, the T kernel of
  standardised 60-feature data (``||x - y||^2`` about 120) is nearly flat.
* **Normaliser.** ``normalize="mean"`` (the default) divides by the mean of the affinities
  over the reference set instead of their sum: the paper's kernel times ``n_reference``.
  Its entries are of order one, as the RBF kernel's are. AsK-LS with ``(c K, gamma)``
  predicts exactly as with ``(K, c gamma)``, so this is the paper's model with ``gamma``
  counted per training sample, and ``gamma = 1`` suits any training set size; with the
  sum, the useful ``gamma`` grows with the number of training samples (about 100 to 1000
  on 125 samples of sonar). ``normalize="sum"`` gives the paper's kernel.

The reasons and the measurements are in ``docs/results/README.md`` (Table 4).
"""

import logging

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.utils import check_array

from digraph_askls._memory import check_dense_allocation
from digraph_askls.kernels._bandwidth import _bandwidth, _check_sigma, get_median_bandwidth

__all__ = ["sne_kernel", "t_kernel", "rbf_kernel", "VECTOR_KERNELS", "get_vector_kernel"]

logger = logging.getLogger(__name__)

_NORMALIZERS = ("mean", "sum")


def _check_vectors(X, Y, reference):
    """Convert the inputs to 2-D float arrays and check that their widths agree."""
    X = check_array(X, dtype=np.float64, input_name="X")
    Y = X if Y is None else check_array(Y, dtype=np.float64, input_name="Y")
    reference = Y if reference is None else check_array(
        reference, dtype=np.float64, input_name="reference")
    for name, array in (("Y", Y), ("reference", reference)):
        if array.shape[1] != X.shape[1]:
            raise ValueError(
                f"{name} must have as many features as X ({X.shape[1]}), "
                f"got shape {array.shape}")
    return X, Y, reference


def _check_normalize(normalize):
    if normalize not in _NORMALIZERS:
        raise ValueError(f"normalize must be one of {list(_NORMALIZERS)}, got {normalize!r}")
    return normalize


def _check_size(name, X, Y, reference):
    # The distances to Y and to the reference set, and one temporary of each.
    check_dense_allocation(
        (2, X.shape[0], Y.shape[0] + reference.shape[0]),
        what=f"the {name} kernel between {X.shape[0]} and {Y.shape[0]} samples",
        remedy="compute it in blocks of rows of X (each row is normalised on its own), "
               "or train on fewer samples")


def _scaled_distances(name, X, Y, sigma, reference, normalize):
    """Check the arguments of the asymmetric kernel ``name``, then return the squared
    distances from ``X`` to ``Y`` and to the reference set, divided by ``sigma**2``."""
    _check_normalize(normalize)
    X, Y, reference = _check_vectors(X, Y, reference)
    sigma = _bandwidth(sigma, reference)
    _check_size(name, X, Y, reference)
    return (cdist(X, Y, "sqeuclidean") / sigma**2,
            cdist(X, reference, "sqeuclidean") / sigma**2)


def _normaliser(terms, normalize):
    """The mean (``normalize="mean"``) or the sum of each row of ``terms``, as a column."""
    if normalize == "mean":
        return terms.mean(axis=1, keepdims=True)
    return terms.sum(axis=1, keepdims=True)


def sne_kernel(X, Y=None, *, sigma="auto", reference=None, normalize="mean"):
    """SNE kernel: Gaussian affinities normalised over a reference (training) set.

    .. math::

        K(x, y) = \\frac{\\exp(-\\|x - y\\|^2 / \\sigma^2)}
                        {\\operatorname{mean}_{z \\in Z} \\exp(-\\|x - z\\|^2 / \\sigma^2)}

    (with ``normalize="sum"``, the sum over ``Z``: the paper's kernel). The paper prints
    the numerator as ``exp(-||x - y||^2) / sigma^2`` (and the same in the denominator), a
    misplaced parenthesis under which ``sigma`` would cancel out; the evident form above,
    the conditional probability of stochastic neighbour embedding, is the one implemented.

    Parameters
    ----------
    X : array-like of shape (n_X, n_features)
        First arguments ``x``; row ``i`` of the result belongs to ``X[i]``.
    Y : array-like of shape (n_Y, n_features), default=None
        Second arguments ``y``. ``None`` means ``X``.
    sigma : float or "auto", default="auto"
        Bandwidth, as in ``exp(-d^2 / sigma^2)``. ``"auto"``:
        :func:`get_median_bandwidth` of the reference set.
    reference : array-like of shape (n_reference, n_features), default=None
        The set ``Z`` of the normaliser, normally the training samples. ``None`` means
        ``Y``.
    normalize : {"mean", "sum"}, default="mean"
        Divide by the mean of the affinities over ``Z`` (rows of
        ``sne_kernel(X, Z, reference=Z)`` average one) or by their sum (rows sum to one,
        the paper's kernel). See the module notes.

    Returns
    -------
    K : ndarray of shape (n_X, n_Y)
        ``K[i, j] = K(X[i], Y[j])``.

    Notes
    -----
    Computed in the log domain: the smallest squared distance from ``x`` to the reference
    set is subtracted before exponentiating, so far-away points give no ``0 / 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import sne_kernel
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> K = sne_kernel(X, X, sigma=1.0, normalize="sum")
    >>> K.sum(axis=1)
    array([1., 1., 1.])
    >>> bool(K[0, 1] == K[1, 0])
    False
    >>> bool(np.allclose(sne_kernel(X, X, sigma=1.0), 3 * K))   # "mean": times n_reference
    True
    """
    scaled, scaled_reference = _scaled_distances("SNE", X, Y, sigma, reference, normalize)
    shift = scaled_reference.min(axis=1, keepdims=True)
    terms = np.exp(shift - scaled_reference)
    normaliser = _normaliser(terms, normalize)
    del terms, scaled_reference
    return np.exp(shift - scaled - np.log(normaliser))


def t_kernel(X, Y=None, *, sigma="auto", reference=None, normalize="mean"):
    """T kernel: Student-t (Cauchy) affinities normalised over a reference (training) set.

    .. math::

        K(x, y) = \\frac{(1 + \\|x - y\\|^2 / \\sigma^2)^{-1}}
                        {\\operatorname{mean}_{z \\in Z} (1 + \\|x - z\\|^2 / \\sigma^2)^{-1}}

    (with ``normalize="sum"``, the sum over ``Z``). ``sigma=1.0, normalize="sum"`` is the
    paper's T kernel, which has no bandwidth and so depends on the units of the features.

    Parameters
    ----------
    X : array-like of shape (n_X, n_features)
        First arguments ``x``; row ``i`` of the result belongs to ``X[i]``.
    Y : array-like of shape (n_Y, n_features), default=None
        Second arguments ``y``. ``None`` means ``X``.
    sigma : float or "auto", default="auto"
        Scale of the distances. ``"auto"``: :func:`get_median_bandwidth` of the
        reference set.
    reference : array-like of shape (n_reference, n_features), default=None
        The set ``Z`` of the normaliser, normally the training samples. ``None`` means
        ``Y``.
    normalize : {"mean", "sum"}, default="mean"
        Divide by the mean of the affinities over ``Z`` or by their sum (the paper's).

    Returns
    -------
    K : ndarray of shape (n_X, n_Y)
        ``K[i, j] = K(X[i], Y[j])``.

    Notes
    -----
    Numerator and denominator are both multiplied by ``1 + min_z ||x - z||^2 / sigma^2``
    so that the terms stay in ``(0, 1]`` however large the distances are.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import t_kernel
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> K = t_kernel(X, X, sigma=1.0, normalize="sum")
    >>> np.round(K[0], 3)
    array([0.625, 0.312, 0.062])
    >>> bool(np.allclose(K.sum(axis=1), 1.0))
    True
    >>> bool(np.allclose(t_kernel(10 * X, 10 * X), t_kernel(X, X)))   # sigma="auto"
    True
    """
    distances, distances_reference = _scaled_distances("T", X, Y, sigma, reference, normalize)
    scale = 1.0 + distances_reference.min(axis=1, keepdims=True)
    terms = scale / (1.0 + distances_reference)
    normaliser = _normaliser(terms, normalize)
    del terms, distances_reference
    distances += 1.0
    np.divide(scale, distances, out=distances)
    distances /= normaliser
    return distances


def rbf_kernel(X, Y=None, *, sigma=1.0, reference=None):
    """Gaussian (RBF) kernel ``exp(-||x - y||^2 / sigma^2)``, symmetric.

    The bandwidth is written as in the AsK-LS paper; it is scikit-learn's
    ``sklearn.metrics.pairwise.rbf_kernel`` with ``gamma = 1 / sigma**2`` (not the
    ``1 / (2 sigma^2)`` of some texts).

    Parameters
    ----------
    X : array-like of shape (n_X, n_features)
        First arguments.
    Y : array-like of shape (n_Y, n_features), default=None
        Second arguments. ``None`` means ``X``.
    sigma : float, default=1.0
        Bandwidth.
    reference : ignored
        Accepted so that every vector kernel has the same calling convention.

    Returns
    -------
    K : ndarray of shape (n_X, n_Y)
        ``K[i, j] = exp(-||X[i] - Y[j]||^2 / sigma^2)``.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import rbf_kernel
    >>> X = np.array([[0.0], [1.0]])
    >>> np.round(rbf_kernel(X, X, sigma=1.0), 4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    """
    sigma = _check_sigma(sigma)
    X, Y, _ = _check_vectors(X, Y, None)
    check_dense_allocation((2, X.shape[0], Y.shape[0]),
                           what=f"the RBF kernel between {X.shape[0]} and {Y.shape[0]} samples",
                           remedy="compute it in blocks of rows of X, or train on fewer samples")
    K = cdist(X, Y, "sqeuclidean")
    K /= -sigma**2
    return np.exp(K, out=K)


VECTOR_KERNELS = {"sne": sne_kernel, "t": t_kernel, "rbf": rbf_kernel}
"""Vector kernels by name; each is called as ``kernel(X, Y, *, reference=None, **params)``."""


def get_vector_kernel(name):
    """Return the vector kernel registered under ``name``.

    Parameters
    ----------
    name : str
        One of the keys of :data:`VECTOR_KERNELS`: ``"sne"``, ``"t"`` or ``"rbf"``.

    Returns
    -------
    kernel : callable
        ``kernel(X, Y, *, reference=None, **params) -> ndarray of shape (n_X, n_Y)``.

    Raises
    ------
    ValueError
        If ``name`` is not registered; the message lists the valid names.

    Examples
    --------
    >>> from digraph_askls.kernels import get_vector_kernel
    >>> get_vector_kernel("t").__name__
    't_kernel'
    """
    try:
        return VECTOR_KERNELS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown vector kernel {name!r}; choose from {sorted(VECTOR_KERNELS)}") from None
