"""kernels layer of digraph_askls: graph kernels, their registry and kernel sub-blocks."""

from digraph_askls.kernels._graph import get_in_degree_kernel, get_symmetrized_kernel
from digraph_askls.kernels._registry import KERNELS, get_graph_kernel, register_graph_kernel
from digraph_askls.kernels._restrict import restrict_kernel
from digraph_askls.kernels._walks import WalkSeriesKernel, get_ppr_kernel, get_walk_matrix

__all__ = [
    "KERNELS",
    "WalkSeriesKernel",
    "get_graph_kernel",
    "get_in_degree_kernel",
    "get_ppr_kernel",
    "get_symmetrized_kernel",
    "get_walk_matrix",
    "register_graph_kernel",
    "restrict_kernel",
]
