"""The base of the kernels that compute their products block by block."""

import numpy as np
from scipy.sparse.linalg import LinearOperator

__all__ = ["KernelOperator"]


class KernelOperator(LinearOperator):
    """A float64 ``LinearOperator`` defined by one method, ``_apply(X, transpose)``.

    Subclasses give ``_apply`` (``K @ X``, or ``K^T @ X`` with ``transpose``) and
    ``_adjoint``; the vector products, the block products and the transpose follow.
    """

    def __init__(self, shape):
        super().__init__(dtype=np.dtype(np.float64), shape=shape)

    def _apply(self, X, transpose):
        raise NotImplementedError

    def _matmat(self, X):
        return self._apply(X, transpose=False)

    def _rmatmat(self, X):
        return self._apply(X, transpose=True)

    def _matvec(self, x):
        return self._matmat(np.reshape(x, (-1, 1)))[:, 0]

    def _rmatvec(self, x):
        return self._rmatmat(np.reshape(x, (-1, 1)))[:, 0]

    def _transpose(self):
        return self._adjoint()
