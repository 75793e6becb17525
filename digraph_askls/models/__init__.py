"""Estimators: AsK-LS, the classical LS-SVM and the transductive node classifier."""

from ._askls import AsKLSClassifier
from ._lssvm import LSSVMClassifier
from ._node import PRESETS, NodeClassifier
from ._node_cv import NodeClassifierCV
from ._views import KernelViews
from ..linalg._dense import _blas_controller

# The BLAS thread controller that the stackers and small solves use, built once here
# rather than inside the first fit (it inspects every loaded library).
_blas_controller()

__all__ = ["AsKLSClassifier", "LSSVMClassifier", "NodeClassifier", "NodeClassifierCV", "KernelViews", "PRESETS"]
