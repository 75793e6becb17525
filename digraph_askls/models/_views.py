"""How kernels reach the estimators: the two views of an asymmetric kernel."""

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

__all__ = ["KernelViews", "restrict_kernel", "kernel_dot"]


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


def restrict_kernel(K, rows, cols):
    """The block ``K[rows][:, cols]`` of a dense, sparse or operator kernel.

    Examples
    --------
    >>> import numpy as np
    >>> restrict_kernel(np.arange(9.0).reshape(3, 3), [0, 2], [1])
    array([[1.],
           [7.]])
    """
    rows = np.asarray(rows)
    cols = np.asarray(cols)
    if isinstance(K, LinearOperator):
        n_rows, n_cols = K.shape

        def matmat(X):
            full = np.zeros((n_cols, X.shape[1]), dtype=np.result_type(X, np.float64))
            full[cols] = X
            return K.matmat(full)[rows]

        def rmatmat(X):
            full = np.zeros((n_rows, X.shape[1]), dtype=np.result_type(X, np.float64))
            full[rows] = X
            return K.rmatmat(full)[cols]

        return LinearOperator(
            (rows.size, cols.size), matvec=lambda v: matmat(v.reshape(-1, 1)).ravel(),
            rmatvec=lambda v: rmatmat(v.reshape(-1, 1)).ravel(), matmat=matmat,
            rmatmat=rmatmat, dtype=np.float64,
        )
    if sp.issparse(K):
        return sp.csr_matrix(K)[rows][:, cols]
    return np.asarray(K)[np.ix_(rows, cols)]


def kernel_dot(K, X, transpose=False):
    """``K @ X`` (or ``K^T @ X``) for a dense, sparse or operator kernel, as an array."""
    if isinstance(K, LinearOperator):
        return K.rmatmat(X) if transpose else K.matmat(X)
    out = (K.T @ X) if transpose else (K @ X)
    return np.asarray(out)
