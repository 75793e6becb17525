"""kernels layer of digraph_askls."""

from digraph_askls.kernels._kl import DiagonalGMMs, get_gmm_kl_divergences, kl_gmm_kernel
from digraph_askls.kernels._vector import (
    VECTOR_KERNELS,
    get_vector_kernel,
    rbf_kernel,
    sne_kernel,
    t_kernel,
)

__all__ = []
__all__ += ["DiagonalGMMs", "get_gmm_kl_divergences", "kl_gmm_kernel"]
__all__ += ["VECTOR_KERNELS", "get_vector_kernel", "rbf_kernel", "sne_kernel", "t_kernel"]
