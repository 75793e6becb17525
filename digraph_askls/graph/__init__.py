"""graph layer of digraph_askls: one converter to a canonical adjacency, labels, features, Graph, Split."""

from digraph_askls.graph._adjacency import get_adjacency
from digraph_askls.graph._features import get_features
from digraph_askls.graph._graph import Graph
from digraph_askls.graph._labels import get_labels
from digraph_askls.graph._split import Split

__all__ = ["Graph", "Split", "get_adjacency", "get_features", "get_labels"]
