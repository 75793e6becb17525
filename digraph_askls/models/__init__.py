"""Estimators: AsK-LS, the classical LS-SVM and the transductive node classifier."""

from ._askls import AsKLSClassifier
from ._lssvm import LSSVMClassifier
from ._views import KernelViews, restrict_kernel

__all__ = ["AsKLSClassifier", "LSSVMClassifier", "KernelViews", "restrict_kernel"]
