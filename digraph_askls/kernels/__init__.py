"""kernels layer of digraph_askls: graph kernels, vector kernels, registries, sub-blocks."""

from digraph_askls.kernels._bandwidth import get_median_bandwidth
from digraph_askls.kernels._attributes import PROPAGATIONS, get_attribute_kernel
from digraph_askls.kernels._factored import FactoredKernel, stack_factored
from digraph_askls.kernels._embedding import (EMBEDDINGS, EmbeddingKernel,
                                               get_embedding_kernel)
from digraph_askls.kernels._graph import get_in_degree_kernel, get_symmetrized_kernel
from digraph_askls.kernels._kl import DiagonalGMMs, get_gmm_kl_divergences, kl_gmm_kernel
from digraph_askls.kernels._registry import KERNELS, get_graph_kernel, register_graph_kernel
from digraph_askls.kernels._power import ElementwisePowerKernel
from digraph_askls.kernels._profiles import HadamardPowerKernel, get_link_profile_kernel
from digraph_askls.kernels._propagated import PropagatedFeatureKernel
from digraph_askls.kernels._restrict import dense_block, restrict_kernel
from digraph_askls.kernels._roles import ROLE_FEATURES, get_role_features, get_role_kernel
from digraph_askls.kernels._smoothed import get_smoothed_attribute_kernel
from digraph_askls.kernels._cooccurrence import CooccurrenceKernel, get_cooccurrence_kernel
from digraph_askls.kernels._eigenmap import SpectralEmbeddingKernel, get_spectral_maps
from digraph_askls.kernels._families import (
    AttributeKernel,
    InDegreeKernel,
    LinkProfileKernel,
    RoleKernel,
    SmoothedAttributeKernel,
    VoteKernel,
    WalkKernel,
)
from digraph_askls.kernels._specs import (
    GraphKernel,
    NamedKernel,
    PowerKernel,
    SumKernel,
    gamma_grid,
)
from digraph_askls.kernels._sum import KernelSum, get_kernel_sum
from digraph_askls.kernels._vector import (
    VECTOR_KERNELS,
    get_vector_kernel,
    rbf_kernel,
    sne_kernel,
    t_kernel,
)
from digraph_askls.kernels._walks import WalkSeriesKernel, get_ppr_kernel, get_walk_matrix

__all__ = [
    "AttributeKernel",
    "CooccurrenceKernel",
    "EMBEDDINGS",
    "ElementwisePowerKernel",
    "EmbeddingKernel",
    "FactoredKernel",
    "GraphKernel",
    "HadamardPowerKernel",
    "InDegreeKernel",
    "KernelSum",
    "LinkProfileKernel",
    "NamedKernel",
    "PowerKernel",
    "PROPAGATIONS",
    "PropagatedFeatureKernel",
    "ROLE_FEATURES",
    "RoleKernel",
    "SmoothedAttributeKernel",
    "SpectralEmbeddingKernel",
    "SumKernel",
    "VoteKernel",
    "WalkKernel",
    "dense_block",
    "gamma_grid",
    "get_attribute_kernel",
    "get_cooccurrence_kernel",
    "get_embedding_kernel",
    "get_kernel_sum",
    "get_link_profile_kernel",
    "get_role_features",
    "get_smoothed_attribute_kernel",
    "get_spectral_maps",
    "get_role_kernel",
    "stack_factored",
    "KERNELS",
    "VECTOR_KERNELS",
    "DiagonalGMMs",
    "WalkSeriesKernel",
    "get_gmm_kl_divergences",
    "get_graph_kernel",
    "get_in_degree_kernel",
    "get_median_bandwidth",
    "get_ppr_kernel",
    "get_symmetrized_kernel",
    "get_vector_kernel",
    "get_walk_matrix",
    "kl_gmm_kernel",
    "rbf_kernel",
    "register_graph_kernel",
    "restrict_kernel",
    "sne_kernel",
    "t_kernel",
]
