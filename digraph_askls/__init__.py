"""digraph_askls: node classification on directed graphs with AsK-LS.

AsK-LS is the least-squares support vector machine that learns directly with
asymmetric kernels (He, Suykens et al., "Learning with asymmetric kernels: least
squares and feature interpretation", IEEE TPAMI 2023). A directed graph gives an
asymmetric kernel; AsK-LS learns a *source* and a *target* classifier from it.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
