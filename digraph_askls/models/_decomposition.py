"""The decomposition of a training kernel, which the estimator and the selection share:
which one (:func:`decompose`), and whether it goes through the explicit maps
(:func:`reduces_maps`, :func:`thin_route`)."""

import numpy as np
from scipy import sparse

from .._memory import _bytes_of, available_memory
from ..kernels import dense_block
from ..linalg import SpectralAsKLS, TridiagonalLSSVM
from ..linalg._spectral import SYMMETRY_RTOL
from ._capabilities import ExplicitMaps, map_width

__all__ = ["decompose", "reduces_maps", "thin_route"]


def decompose(train_kernel, for_folds=False, weights=None):
    """Decompose a training kernel for :class:`~digraph_askls.linalg.SpectralAsKLS`, the
    cheaper way: explicit maps with fewer features than samples by a thin SVD of the
    maps (``O(m d^2)``), anything else formed densely (memory-guarded) and decomposed
    whole (``O(m^3)``).

    ``for_folds``: only :meth:`solve` and :meth:`fold_scores` will be asked (the
    selection's engines), and a dense block that is symmetric, of at least
    ``TRIDIAGONAL_MIN_TRAIN`` samples, goes to
    :class:`~digraph_askls.linalg.TridiagonalLSSVM`, which gives them for less.

    ``weights``: the error weights of the training samples (the weighted system,
    ``diag(1 / (gamma w))`` in place of ``I / gamma``); None: unweighted."""
    if reduces_maps(train_kernel, for_folds):
        return SpectralAsKLS(factors=train_kernel.factors(), weights=weights)
    return decompose_dense(dense_training_block(train_kernel), for_folds, weights)


def reduces_maps(train_kernel, for_folds=False):
    """Whether :func:`decompose` reduces the block's explicit maps (a thin SVD) rather
    than the block: it has maps, and :func:`thin_route` takes them."""
    m = train_kernel.shape[0]
    return isinstance(train_kernel, ExplicitMaps) and thin_route(
        m, map_width(train_kernel, m), getattr(train_kernel, "is_symmetric", False),
        for_folds)


def thin_route(m, d, symmetric=False, for_folds=False):
    """Whether :func:`decompose` reduces the explicit maps (``m x d``, thin SVD) rather
    than the ``m x m`` block they form: where it costs less.

    The thin SVD costs about ``m d^2`` (the QR of each map) plus ``d^3`` (the SVD of the
    ``d x d`` core), the block ``m^3``: the maps win up to about ``d = m / 2`` beside a
    symmetric block reduced to tridiagonal form for the folds, and up to about
    ``3 m / 4`` beside an asymmetric block's SVD (``benchmarks/bench_thin_route.py``,
    timings in ``docs/results/speed.md``). Maps thinner than the block
    (``d < m``) are reduced all the same where the block's decomposition would not fit in
    the memory left (:func:`~digraph_askls._memory.available_memory`).

    Examples
    --------
    >>> thin_route(6080, 962, symmetric=True, for_folds=True)
    True
    >>> thin_route(6080, 5592, symmetric=True, for_folds=True)
    False
    """
    if d >= m:
        return False
    share = 0.5 if symmetric and for_folds and m >= TRIDIAGONAL_MIN_TRAIN else 0.75
    if d <= share * m:
        return True
    # The block would cost less, but only if its decomposition (three m x m arrays) fits.
    room = available_memory()
    return room is not None and _bytes_of((3, m, m), np.float64)[0] > room


def dense_training_block(train_kernel):
    """The training block as a dense array (an array as it is; memory-guarded)."""
    if isinstance(train_kernel, np.ndarray):
        return train_kernel
    if sparse.issparse(train_kernel):
        return train_kernel.toarray()
    m = train_kernel.shape[0]
    return dense_block(train_kernel, np.arange(m), np.arange(m))


#: Smallest symmetric block that :func:`decompose` reduces to tridiagonal form for the
#: folds. Below it the full eigendecomposition costs little and its folds of one size are
#: solved in one batched call, which is then as fast (``docs/results/speed.md``).
TRIDIAGONAL_MIN_TRAIN = 400


def decompose_dense(K, for_folds=False, weights=None):
    """:func:`decompose` of a dense block ``K``."""
    if for_folds and K.shape[0] >= TRIDIAGONAL_MIN_TRAIN and is_symmetric(K):
        return TridiagonalLSSVM((K + K.T) / 2, weights=weights)
    return SpectralAsKLS(K, weights=weights)


def is_symmetric(K):
    """Whether a dense block is symmetric up to rounding, by the rule of
    :class:`~digraph_askls.linalg.SpectralAsKLS` (``SYMMETRY_RTOL``)."""
    K = np.asarray(K)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or not np.all(np.isfinite(K)):
        return False
    return bool(np.abs(K - K.T).max() <= SYMMETRY_RTOL * np.abs(K).max())
