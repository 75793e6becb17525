"""datasets layer of digraph_askls."""

__all__ = []
