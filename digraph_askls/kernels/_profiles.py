"""Link-profile kernels: nodes are alike when they link to, or are linked from, the same nodes.

On graphs where a link is not a vote for the same class (Wikipedia pages binned by
traffic, web pages by role), the signal is *which* nodes a node links to and is linked
from. Two nodes citing the same papers (bibliographic coupling) or cited by the same
papers (co-citation) have similar out-link rows or in-link rows, whatever their own
classes. These kernels compare those rows.
"""

import numbers

import numpy as np
from scipy import sparse

from digraph_askls._memory import check_dense_allocation
from digraph_askls.graph import get_adjacency
from digraph_askls.kernels._factored import FactoredKernel, stack_factored
from digraph_askls.kernels._operator import KernelOperator

__all__ = ["HadamardPowerKernel", "get_link_profile_kernel"]

#: Normalisations of the link rows: ``"cosine"`` scales every row to unit length (the
#: kernel is the cosine of the rows, symmetric); ``"source"`` divides the source map by
#: the degree (``K[i, j]`` = share of the links of ``i`` that ``j`` shares, asymmetric:
#: a conditional probability); ``None`` keeps the counts.
NORMALIZATIONS = ("cosine", "source", None)


def _rows(matrix, normalization):
    """Source and target maps of one direction's link rows."""
    matrix = sparse.csr_array(matrix, dtype=np.float64)
    if normalization is None:
        return matrix, matrix
    if normalization == "cosine":
        norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
        scaled = sparse.csr_array(sparse.diags_array(_safe_inverse(norms)) @ matrix)
        return scaled, scaled
    degrees = np.asarray(matrix.sum(axis=1)).ravel()
    return sparse.csr_array(sparse.diags_array(_safe_inverse(degrees)) @ matrix), matrix


def _safe_inverse(values):
    out = np.zeros_like(values, dtype=np.float64)
    np.divide(1.0, values, out=out, where=values > 0)
    return out


def get_link_profile_kernel(adjacency, out_weight=1.0, in_weight=0.5, power=2,
                            normalization="cosine"):
    """Return the kernel comparing the out-link rows and the in-link rows of the nodes.

    ``K = out_weight * (N_o N_o^T)^p + in_weight * (N_i N_i^T)^p`` (powers elementwise),
    where row ``i`` of ``N_o`` is the (normalised) list of the nodes that ``i`` links to
    and row ``i`` of ``N_i`` the list of the nodes linking to ``i``: ``N_o N_o^T`` counts
    shared targets (bibliographic coupling), ``N_i N_i^T`` shared sources (co-citation).
    A power above 1 is a polynomial kernel of the rows: it stresses pairs of nodes whose
    profiles nearly coincide over pairs that share a link or two.

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
        ``adjacency[i, j]`` = weight of the edge ``i -> j``.
    out_weight, in_weight : float >= 0
        Weights of the out-link and in-link profiles. Defaults: the out-links count
        twice the in-links (on the Wikipedia graphs of the shared data, the pages a
        page links to say more than the pages linking to it; see
        ``docs/results/directed.md``).
    power : int >= 1, default=2
        Elementwise power of each profile kernel.
    normalization : {"cosine", "source", None}, default="cosine"
        See :data:`NORMALIZATIONS`; ``"source"`` gives an asymmetric kernel.

    Returns
    -------
    FactoredKernel or HadamardPowerKernel
        With ``power=1`` the explicit feature maps ``[sqrt(w_o) N_o, sqrt(w_i) N_i]``
        (sparse, one column per node and direction); otherwise an operator whose
        blocks are computed from the sparse rows on demand.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import get_link_profile_kernel
    >>> adjacency = np.zeros((4, 4))
    >>> adjacency[:2, 2:] = 1.0                        # 0 and 1 cite the same papers
    >>> K = get_link_profile_kernel(adjacency, in_weight=0.0, power=1)
    >>> (K @ np.eye(4)).round(2)
    array([[1., 1., 0., 0.],
           [1., 1., 0., 0.],
           [0., 0., 0., 0.],
           [0., 0., 0., 0.]])
    """
    adjacency, _ = get_adjacency(adjacency)
    for name, weight in (("out_weight", out_weight), ("in_weight", in_weight)):
        if not isinstance(weight, numbers.Real) or not np.isfinite(weight) or weight < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {weight!r}")
    if out_weight == 0 and in_weight == 0:
        raise ValueError("out_weight and in_weight cannot both be 0")
    if not isinstance(power, numbers.Integral) or isinstance(power, bool) or power < 1:
        raise ValueError(f"power must be an integer >= 1, got {power!r}")
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"unknown normalization {normalization!r}; choose from "
                         f"{list(NORMALIZATIONS)}")
    parts = []
    for weight, matrix in ((out_weight, adjacency), (in_weight, adjacency.T)):
        if weight > 0:
            parts.append((float(weight), *_rows(matrix, normalization)))
    if power == 1:
        return stack_factored([FactoredKernel(U, V if V is not U else None)
                               for _, U, V in parts], [weight for weight, _, _ in parts])
    return HadamardPowerKernel(parts, power)


class HadamardPowerKernel(KernelOperator):
    """``K = sum_f w_f (U_f V_f^T)^p`` (elementwise power) of sparse maps, never formed whole.

    A block ``K[rows][:, cols]`` is the sparse product of the rows of the maps, raised
    to the power entry by entry (:meth:`restrict` keeps it lazy, :meth:`to_dense` forms
    it); products run over row blocks, so memory stays at one block of the sparse
    product.

    Parameters
    ----------
    parts : list of (weight, U, V)
        Sparse maps of shape (n_rows, d) and (n_cols, d) with a weight each.
    power : int >= 1

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.kernels import HadamardPowerKernel
    >>> U = sparse.csr_array(np.array([[1.0, 1.0], [0.0, 2.0]]))
    >>> HadamardPowerKernel([(1.0, U, U)], power=2).to_dense()
    array([[ 4.,  4.],
           [ 4., 16.]])
    """

    #: Rows of one block of the sparse product in :meth:`_matmat`.
    block_rows = 4096

    def __init__(self, parts, power):
        parts = [(float(w), sparse.csr_array(U, dtype=np.float64),
                  sparse.csr_array(V, dtype=np.float64)) for w, U, V in parts]
        if not parts:
            raise ValueError("parts must hold at least one (weight, U, V)")
        n_rows, n_cols = parts[0][1].shape[0], parts[0][2].shape[0]
        for _, U, V in parts:
            if U.shape[0] != n_rows or V.shape[0] != n_cols or U.shape[1] != V.shape[1]:
                raise ValueError(f"every part must map {n_rows} rows and {n_cols} columns "
                                 f"to one feature space, got {U.shape} and {V.shape}")
        super().__init__((n_rows, n_cols))
        self.parts = parts
        self.power = int(power)

    def restrict(self, rows, cols):
        """The block ``K[rows][:, cols]``, as a kernel of the same kind."""
        return HadamardPowerKernel([(w, U[rows], V[cols]) for w, U, V in self.parts],
                                   self.power)

    def _block(self, lo, hi, transpose=False):
        total = None
        for weight, U, V in self.parts:
            left, right = (V, U) if transpose else (U, V)
            product = sparse.csr_array(left[lo:hi] @ right.T)
            product.data **= self.power
            product.data *= weight
            total = product if total is None else total + product
        return total

    def to_dense(self):
        """The kernel as a dense array (guarded against blocks larger than memory)."""
        check_dense_allocation(self.shape, what="a dense block of the link-profile kernel",
                               remedy="use power=1 (explicit sparse feature maps)")
        return self._block(0, self.shape[0]).toarray()

    def _apply(self, X, transpose):
        X = np.asarray(X, dtype=np.float64)
        n = self.shape[1] if transpose else self.shape[0]
        out = np.empty((n, X.shape[1]))
        for lo in range(0, n, self.block_rows):
            hi = min(lo + self.block_rows, n)
            out[lo:hi] = self._block(lo, hi, transpose) @ X
        return out

    def _adjoint(self):
        return HadamardPowerKernel([(w, V, U) for w, U, V in self.parts], self.power)
