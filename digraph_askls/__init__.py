"""digraph_askls: node classification on directed graphs with AsK-LS.

AsK-LS is the least-squares support vector machine that learns directly with
asymmetric kernels (M. He, F. He, L. Shi, X. Huang, J. A. K. Suykens, "Learning with asymmetric kernels:
least squares and feature interpretation", IEEE TPAMI 2023). A directed graph gives an
asymmetric kernel; AsK-LS learns a *source* and a *target* classifier from it.
"""

from .models import (
    AsKLSClassifier,
    KernelViews,
    LSSVMClassifier,
    NodeClassifier,
    NodeClassifierCV,
)

__version__ = "0.1.0"

__all__ = [
    "AsKLSClassifier",
    "KernelViews",
    "LSSVMClassifier",
    "NodeClassifier",
    "NodeClassifierCV",
    "__version__",
]
