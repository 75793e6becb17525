"""Kernels with explicit feature maps: ``K = U V^T``, the paper's feature interpretation."""

import numbers

import numpy as np
from scipy import sparse

from digraph_askls.kernels._operator import KernelOperator

__all__ = ["FactoredKernel", "stack_factored"]


class FactoredKernel(KernelOperator):
    """The kernel ``K(x_i, x_j) = <phi_s(x_i), phi_t(x_j)>`` of explicit feature maps.

    Row ``i`` of ``source`` is the source feature map ``phi_s(x_i)`` of sample ``i``, row
    ``j`` of ``target`` the target feature map ``phi_t(x_j)``; ``K = source @ target.T`` is
    asymmetric unless the two maps agree (then AsK-LS is the LS-SVM, the paper's
    Proposition 2). The matrix is never formed: a product costs two products with the
    ``n x d`` maps, a block ``K[rows][:, cols]`` is the kernel of the rows of the maps
    (:meth:`restrict`), and AsK-LS on it has primal weights ``w_s = V^T b~`` and
    ``w_t = U^T a~``, one per feature (see the paper's section 3).

    Parameters
    ----------
    source, target : ndarray or sparse matrix of shape (n, d)
        The maps ``U`` and ``V``; ``target`` defaults to ``source`` (a symmetric kernel).

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import FactoredKernel
    >>> U = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    >>> K = FactoredKernel(U, U[:, ::-1])
    >>> K @ np.eye(3)
    array([[0., 1., 1.],
           [1., 2., 1.],
           [1., 1., 0.]])
    >>> K.restrict([0, 2], [1]).to_dense()
    array([[1.],
           [1.]])
    """

    def __init__(self, source, target=None, feature_names=None):
        source = _check_map(source, "source")
        target = source if target is None else _check_map(target, "target")
        if source.shape[1] != target.shape[1]:
            raise ValueError(f"source and target maps must have the same number of "
                             f"features, got {source.shape[1]} and {target.shape[1]}")
        super().__init__((source.shape[0], target.shape[0]))
        self.source = source
        self.target = target
        if feature_names is not None and len(feature_names) != source.shape[1]:
            raise ValueError(f"feature_names must name the {source.shape[1]} features, got "
                             f"{len(feature_names)} names")
        self.feature_names = None if feature_names is None else list(feature_names)

    @property
    def n_features(self):
        """Number of features ``d`` of the maps."""
        return self.source.shape[1]

    @property
    def is_symmetric(self):
        """Whether the two maps are the same object (then ``K`` is symmetric)."""
        return self.source is self.target

    def restrict(self, rows, cols):
        """The block ``K[rows][:, cols]``, itself a factored kernel."""
        symmetric = self.is_symmetric and np.array_equal(rows, cols)
        source = self.source[rows]
        return FactoredKernel(source, source if symmetric else self.target[cols],
                              self.feature_names)

    def factors(self):
        """The explicit maps ``(U, V)``."""
        return self.source, self.target

    def maps_transpose_dot(self, Z, side="source"):
        """``U^T Z`` (``side="source"``) or ``V^T Z``: the primal weights of dual ``Z``."""
        maps = self.source if side == "source" else self.target
        return np.asarray(maps.T @ np.asarray(Z))

    def to_dense(self):
        """The kernel as a dense array (for small blocks)."""
        product = self.source @ self.target.T
        return product.toarray() if sparse.issparse(product) else np.asarray(product)

    def _apply(self, X, transpose):
        left, right = (self.target, self.source) if transpose else (self.source, self.target)
        return np.asarray(left @ np.asarray(right.T @ X))

    def matmat_pair(self, X, Y):
        """Return ``(K @ X, K^T @ Y)``."""
        return self._matmat(X), self._rmatmat(Y)

    def _adjoint(self):
        return FactoredKernel(self.target, self.source, self.feature_names)


def stack_factored(kernels, weights=None):
    """The factored kernel of a weighted sum ``sum_f w_f U_f V_f^T`` (``w_f >= 0``).

    The maps are stacked side by side, each scaled by ``sqrt(w_f)``, so the sum is again
    one factored kernel and its primal weights are those of every part.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import FactoredKernel, stack_factored
    >>> K = stack_factored([FactoredKernel(np.eye(2)), FactoredKernel(np.ones((2, 1)))],
    ...                    weights=[1.0, 4.0])
    >>> K.to_dense()
    array([[5., 4.],
           [4., 5.]])
    """
    kernels = list(kernels)
    weights = [1.0] * len(kernels) if weights is None else list(weights)
    if len(weights) != len(kernels) or not kernels:
        raise ValueError(f"expected one weight per kernel and at least one kernel, got "
                         f"{len(weights)} weights for {len(kernels)} kernels")
    for weight in weights:
        if not isinstance(weight, numbers.Real) or not np.isfinite(weight) or weight < 0:
            raise ValueError(f"weights must be finite numbers >= 0, got {weight!r}")
    scales = [np.sqrt(float(weight)) for weight in weights]
    symmetric = all(kernel.is_symmetric for kernel in kernels)
    source = _hstack([scale * kernel.source for scale, kernel in zip(scales, kernels)])
    if symmetric:
        return FactoredKernel(source)
    target = _hstack([scale * kernel.target for scale, kernel in zip(scales, kernels)])
    return FactoredKernel(source, target)


def _hstack(blocks):
    if any(sparse.issparse(block) for block in blocks):
        return sparse.hstack(blocks, format="csr")
    return np.hstack(blocks)


def _check_map(matrix, name):
    if sparse.issparse(matrix):
        matrix = sparse.csr_array(matrix, dtype=np.float64)
        values = matrix.data
    else:
        matrix = np.asarray(matrix, dtype=np.float64)
        values = matrix
    if matrix.ndim != 2:
        raise ValueError(f"the {name} feature map must be 2-d (n, d), got shape "
                         f"{matrix.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"the {name} feature map must be finite, got NaN or inf")
    return matrix
