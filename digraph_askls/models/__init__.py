"""Estimators: AsK-LS, the classical LS-SVM and the transductive node classifier."""

from ._askls import AsKLSClassifier
from ._lssvm import LSSVMClassifier
from ._node import PRESETS, NodeClassifier
from ._node_cv import NodeClassifierCV
from ._self_training import SelfTrainingNodeClassifier, class_balanced_pseudo_labels
from ._views import KernelViews

__all__ = ["AsKLSClassifier", "LSSVMClassifier", "NodeClassifier", "KernelViews", "PRESETS",
           "SelfTrainingNodeClassifier", "class_balanced_pseudo_labels"]
