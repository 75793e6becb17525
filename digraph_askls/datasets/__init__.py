"""datasets layer of digraph_askls."""

from ._sbm import make_directed_sbm

__all__ = ["make_directed_sbm"]
