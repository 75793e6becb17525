"""embedding layer of digraph_askls."""

from .nerd import NERD

__all__ = ["NERD"]
