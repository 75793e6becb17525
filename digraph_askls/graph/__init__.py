"""graph layer of digraph_askls: one converter to a canonical adjacency, labels, Graph."""

from digraph_askls.graph._adjacency import get_adjacency
from digraph_askls.graph._graph import Graph
from digraph_askls.graph._labels import get_labels

__all__ = ["Graph", "get_adjacency", "get_labels"]
