"""Elementwise powers of kernels: polynomial kernels of any kernel's feature maps."""

import numbers

import numpy as np

from digraph_askls._memory import check_dense_allocation
from digraph_askls.kernels._operator import KernelOperator
from digraph_askls.kernels._restrict import dense_block, restrict_kernel

__all__ = ["ElementwisePowerKernel"]


class ElementwisePowerKernel(KernelOperator):
    """``K^p`` entry by entry: the kernel of the ``p``-fold tensor products of the maps.

    If ``K = U V^T`` then ``K^p = (U^{(x)p}) (V^{(x)p})^T`` with row-wise tensor powers, a
    polynomial kernel of the maps whose dimension is never formed; blocks are the
    base kernel's blocks raised to the power, and products run over row blocks of
    them.

    Parameters
    ----------
    base : kernel (array, sparse matrix or operator with dense blocks)
    power : int >= 1

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import ElementwisePowerKernel, FactoredKernel
    >>> K = ElementwisePowerKernel(FactoredKernel(np.array([[1.0, 1.0], [0.0, 2.0]])), 2)
    >>> K.to_dense()
    array([[ 4.,  4.],
           [ 4., 16.]])
    """

    #: Rows of one dense block in products.
    block_rows = 2048

    def __init__(self, base, power):
        if not isinstance(power, numbers.Integral) or isinstance(power, bool) or power < 1:
            raise ValueError(f"power must be an integer >= 1, got {power!r}")
        super().__init__(base.shape)
        self.base = base
        self.power = int(power)

    def restrict(self, rows, cols):
        """The block ``K[rows][:, cols]`` (lazy, of the same kind)."""
        return ElementwisePowerKernel(restrict_kernel(self.base, rows, cols), self.power)

    def _block(self, rows, cols):
        return dense_block(self.base, rows, cols) ** self.power

    def to_dense(self):
        """The kernel as a dense array (guarded against memory)."""
        check_dense_allocation(self.shape, what="a dense block of a kernel's power",
                               remedy="keep the power 1 (explicit feature maps)")
        return self._block(np.arange(self.shape[0]), np.arange(self.shape[1]))

    def _apply(self, X, transpose):
        X = np.asarray(X, dtype=np.float64)
        n_out = self.shape[1] if transpose else self.shape[0]
        other = np.arange(self.shape[0] if transpose else self.shape[1])
        out = np.empty((n_out, X.shape[1]))
        for lo in range(0, n_out, self.block_rows):
            rows = np.arange(lo, min(lo + self.block_rows, n_out))
            block = self._block(other, rows).T if transpose else self._block(rows, other)
            out[rows] = block @ X
        return out

    def _adjoint(self):
        return ElementwisePowerKernel(self.base.T, self.power)
