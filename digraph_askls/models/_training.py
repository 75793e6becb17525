"""What the estimator and the selection share about a training set: the label columns
of its one-vs-rest problems, and the decomposition of its kernel."""

import numpy as np
from scipy import sparse

from ..kernels import dense_block
from ..linalg import SpectralAsKLS

__all__ = ["decompose", "label_columns"]


def label_columns(codes, n_classes=None):
    """The ``+1`` / ``-1`` columns of the one-vs-rest problems (one column for two
    classes) of the class codes ``codes`` among ``n_classes`` (default: the largest code
    and those below it)."""
    n_classes = int(codes.max()) + 1 if n_classes is None else n_classes
    if n_classes == 2:
        return np.where(codes == 1, 1.0, -1.0)[:, None]
    Y = -np.ones((codes.size, n_classes))
    Y[np.arange(codes.size), codes] = 1.0
    return Y


def decompose(train_kernel):
    """Decompose a training kernel for :class:`~digraph_askls.linalg.SpectralAsKLS`, the
    cheaper way: explicit maps with fewer features than samples by a thin SVD of the
    maps (``O(m d^2)``), anything else formed densely (memory-guarded) and decomposed
    whole (``O(m^3)``)."""
    m = train_kernel.shape[0]
    factors = getattr(train_kernel, "factors", None)
    if callable(factors) and getattr(train_kernel, "n_features", m) < m:
        return SpectralAsKLS(factors=factors())
    if isinstance(train_kernel, np.ndarray):
        return SpectralAsKLS(train_kernel)
    if sparse.issparse(train_kernel):
        return SpectralAsKLS(train_kernel.toarray())
    return SpectralAsKLS(dense_block(train_kernel, np.arange(m), np.arange(m)))
