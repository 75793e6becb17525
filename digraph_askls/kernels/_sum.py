"""Weighted sums of kernels of any kind: explicit maps, sparse matrices and operators."""

import numbers

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import LinearOperator

from digraph_askls.kernels._factored import FactoredKernel, stack_factored
from digraph_askls.kernels._operator import KernelOperator
from digraph_askls.kernels._restrict import dense_block, restrict_kernel

__all__ = ["KernelSum", "get_kernel_sum"]


def get_kernel_sum(parts):
    """``sum_f w_f K_f`` for a list of ``(w_f, K_f)`` (``w_f >= 0``, same shape).

    Explicit feature maps stay explicit (:func:`stack_factored`), sparse matrices add up,
    anything else becomes a :class:`KernelSum` operator.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.kernels import get_kernel_sum
    >>> get_kernel_sum([(2.0, sparse.eye(2, format="csr"))]).toarray()
    array([[2., 0.],
           [0., 2.]])
    """
    parts = list(parts)
    if not parts:
        raise ValueError("a sum of kernels needs at least one part")
    for weight, kernel in parts:
        if not isinstance(weight, numbers.Real) or not np.isfinite(weight) or weight < 0:
            raise ValueError(f"weights must be finite numbers >= 0, got {weight!r}")
        if kernel.shape != parts[0][1].shape:
            raise ValueError(f"the kernels of a sum must share one shape, got "
                             f"{[k.shape for _, k in parts]}")
    if all(isinstance(kernel, FactoredKernel) for _, kernel in parts):
        return stack_factored([k for _, k in parts], [w for w, _ in parts])
    if all(sparse.issparse(kernel) for _, kernel in parts):
        total = sum(float(w) * sparse.csr_array(k) for w, k in parts)
        return sparse.csr_array(total)
    if len(parts) == 1 and parts[0][0] == 1:
        return parts[0][1]
    return KernelSum(parts)


class KernelSum(KernelOperator):
    """The operator ``sum_f w_f K_f``; blocks and products are those of the parts added.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import FactoredKernel, KernelSum
    >>> K = KernelSum([(1.0, FactoredKernel(np.eye(2))), (0.5, np.ones((2, 2)))])
    >>> K.to_dense()
    array([[1.5, 0.5],
           [0.5, 1.5]])
    """

    def __init__(self, parts):
        self.parts = [(float(w), k) for w, k in parts]
        super().__init__(self.parts[0][1].shape)

    @property
    def _explicit(self):
        return all(callable(getattr(k, "factors", None)) for _, k in self.parts)

    @property
    def n_features(self):
        """Length of the stacked explicit maps (inf when a part has none)."""
        if not self._explicit:
            return np.inf
        return sum(k.n_features for _, k in self.parts)

    @property
    def is_symmetric(self):
        """Whether every part is symmetric (by its own ``is_symmetric``)."""
        return all(getattr(k, "is_symmetric", False) for _, k in self.parts)

    def factors(self):
        """The explicit maps ``(U, V)`` of the sum, the parts' stacked side by side."""
        if not self._explicit:
            raise ValueError("a part of this sum has no explicit feature maps")
        pairs = [(np.sqrt(w), k.factors()) for w, k in self.parts]
        U = np.hstack([scale * _dense(pair[0]) for scale, pair in pairs])
        if all(pair[0] is pair[1] for _, pair in pairs):
            # Every part symmetric: one map, as the parts give it (a decomposition then
            # factorises it once).
            return U, U
        V = np.hstack([scale * _dense(pair[1]) for scale, pair in pairs])
        return U, V

    def maps_transpose_dot(self, Z, side="source"):
        """``U^T Z`` or ``V^T Z`` of the stacked maps."""
        return np.vstack([np.sqrt(w) * k.maps_transpose_dot(Z, side) for w, k in self.parts])

    @property
    def feature_names(self):
        names = []
        for index, (_, kernel) in enumerate(self.parts):
            own = getattr(kernel, "feature_names", None) or range(kernel.n_features)
            names.extend(f"part{index}:{name}" for name in own)
        return names

    def restrict(self, rows, cols):
        """The block ``K[rows][:, cols]``: the sum of the parts' blocks."""
        return KernelSum([(w, restrict_kernel(k, rows, cols)) for w, k in self.parts])

    def to_dense(self):
        """The kernel as a dense array."""
        rows, cols = np.arange(self.shape[0]), np.arange(self.shape[1])
        return sum(w * dense_block(k, rows, cols) for w, k in self.parts)

    def _apply(self, X, transpose):
        return sum(w * _dot(k, X, transpose) for w, k in self.parts)

    def _adjoint(self):
        return KernelSum([(w, k.T) for w, k in self.parts])


def _dense(matrix):
    return matrix.toarray() if sparse.issparse(matrix) else np.asarray(matrix)


def _dot(K, X, transpose):
    if isinstance(K, LinearOperator):
        return K.rmatmat(X) if transpose else K.matmat(X)
    return np.asarray((K.T @ X) if transpose else (K @ X))
