"""How kernels reach the estimators: the two views of an asymmetric kernel."""

from typing import NamedTuple

import numpy as np
from scipy.sparse.linalg import LinearOperator

__all__ = ["KernelViews", "kernel_dot"]


class KernelViews(NamedTuple):
    """The two kernel blocks between new samples and the training set.

    An asymmetric kernel has two blocks for ``n`` new samples and ``m`` training
    samples: ``source = K(new, train)`` of shape (n, m), which the source view
    ``f_s(x) = K(x, X) b~ + b1`` needs, and ``target = K(train, new)`` of shape (m, n),
    which the target view ``f_t(x) = K(X, x)^T a~ + b2`` needs. Either may be ``None``
    when the merge in use does not need it. A plain tuple ``(source, target)`` works
    too; a single array is taken as ``source``.

    Examples
    --------
    >>> import numpy as np
    >>> views = KernelViews(source=np.ones((3, 2)), target=np.zeros((2, 3)))
    >>> views.source.shape, views.target.shape
    ((3, 2), (2, 3))
    """

    source: object = None
    target: object = None


def kernel_dot(K, X, transpose=False):
    """``K @ X`` (or ``K^T @ X``) for a dense, sparse or operator kernel, as an array."""
    if isinstance(K, LinearOperator):
        return K.rmatmat(X) if transpose else K.matmat(X)
    out = (K.T @ X) if transpose else (K @ X)
    return np.asarray(out)
