"""Kernels between feature vectors: the SNE and T kernels (asymmetric) and the RBF kernel.

All kernels share one calling convention,
``kernel(X, Y, *, reference=None, **params) -> ndarray of shape (n_X, n_Y)``,
whose entry ``(i, j)`` is ``K(x_i, y_j)``. The asymmetric kernels are normalised over a
*reference* set, the training samples ``Z`` (section 4.3 of the AsK-LS paper, "Symmetric or
asymmetric kernels"); the first argument ``x`` is the one held fixed in the normaliser, so
every row of ``kernel(X, Z, reference=Z)`` sums to one.
"""

import logging

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.utils import check_array

from digraph_askls._memory import check_dense_allocation

__all__ = ["sne_kernel", "t_kernel", "rbf_kernel", "VECTOR_KERNELS", "get_vector_kernel"]

logger = logging.getLogger(__name__)


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


def _check_size(name, X, Y, reference):
    # The distances to Y and to the reference set, and one temporary of each.
    check_dense_allocation(
        (2, X.shape[0], Y.shape[0] + reference.shape[0]),
        what=f"the {name} kernel between {X.shape[0]} and {Y.shape[0]} samples",
        remedy="compute it in blocks of rows of X (each row is normalised on its own), "
               "or train on fewer samples")


def _check_sigma(sigma):
    sigma = float(sigma)
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"sigma must be a positive finite number, got {sigma!r}")
    return sigma


def sne_kernel(X, Y=None, *, sigma=1.0, reference=None):
    """SNE kernel: Gaussian affinities normalised over a reference (training) set.

    .. math::

        K(x, y) = \\frac{\\exp(-\\|x - y\\|^2 / \\sigma^2)}
                        {\\sum_{z \\in Z} \\exp(-\\|x - z\\|^2 / \\sigma^2)}

    The paper prints the numerator as ``exp(-||x - y||^2) / sigma^2`` (and the same in the
    denominator), a misplaced parenthesis under which ``sigma`` would cancel out; the
    evident form above, the conditional probability of stochastic neighbour embedding, is
    the one implemented.

    Parameters
    ----------
    X : array-like of shape (n_X, n_features)
        First arguments ``x``; row ``i`` of the result belongs to ``X[i]``.
    Y : array-like of shape (n_Y, n_features), default=None
        Second arguments ``y``. ``None`` means ``X``.
    sigma : float, default=1.0
        Bandwidth, as in ``exp(-d^2 / sigma^2)``.
    reference : array-like of shape (n_reference, n_features), default=None
        The set ``Z`` of the normaliser, normally the training samples. ``None`` means
        ``Y``.

    Returns
    -------
    K : ndarray of shape (n_X, n_Y)
        ``K[i, j] = K(X[i], Y[j])``. Rows of ``sne_kernel(X, Z, reference=Z)`` sum to one.

    Notes
    -----
    Computed in the log domain: the smallest squared distance from ``x`` to the reference
    set is subtracted before exponentiating, so far-away points give no ``0 / 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import sne_kernel
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> K = sne_kernel(X, X)
    >>> K.sum(axis=1)
    array([1., 1., 1.])
    >>> bool(K[0, 1] == K[1, 0])
    False
    """
    sigma = _check_sigma(sigma)
    X, Y, reference = _check_vectors(X, Y, reference)
    _check_size("SNE", X, Y, reference)
    scaled = cdist(X, Y, "sqeuclidean") / sigma**2
    scaled_reference = cdist(X, reference, "sqeuclidean") / sigma**2
    shift = scaled_reference.min(axis=1, keepdims=True)
    log_normaliser = np.log(np.exp(shift - scaled_reference).sum(axis=1, keepdims=True))
    return np.exp(shift - scaled - log_normaliser)


def t_kernel(X, Y=None, *, reference=None):
    """T kernel: Student-t (Cauchy) affinities normalised over a reference (training) set.

    .. math::

        K(x, y) = \\frac{(1 + \\|x - y\\|^2)^{-1}}{\\sum_{z \\in Z} (1 + \\|x - z\\|^2)^{-1}}

    Parameters
    ----------
    X : array-like of shape (n_X, n_features)
        First arguments ``x``; row ``i`` of the result belongs to ``X[i]``.
    Y : array-like of shape (n_Y, n_features), default=None
        Second arguments ``y``. ``None`` means ``X``.
    reference : array-like of shape (n_reference, n_features), default=None
        The set ``Z`` of the normaliser, normally the training samples. ``None`` means
        ``Y``.

    Returns
    -------
    K : ndarray of shape (n_X, n_Y)
        ``K[i, j] = K(X[i], Y[j])``. Rows of ``t_kernel(X, Z, reference=Z)`` sum to one.

    Notes
    -----
    Numerator and denominator are both multiplied by ``1 + min_z ||x - z||^2`` so that the
    terms stay in ``(0, 1]`` however large the distances are.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import t_kernel
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> K = t_kernel(X, X)
    >>> np.round(K[0], 3)
    array([0.625, 0.312, 0.062])
    >>> bool(np.allclose(K.sum(axis=1), 1.0))
    True
    """
    X, Y, reference = _check_vectors(X, Y, reference)
    _check_size("T", X, Y, reference)
    distances = cdist(X, Y, "sqeuclidean")
    distances_reference = cdist(X, reference, "sqeuclidean")
    scale = 1.0 + distances_reference.min(axis=1, keepdims=True)
    normaliser = (scale / (1.0 + distances_reference)).sum(axis=1, keepdims=True)
    return scale / (1.0 + distances) / normaliser


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
