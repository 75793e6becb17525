"""Experiments: the paper's protocols, splits, metrics and result tables."""

from ._protocol import TrialResults, evaluate_node_classifier, random_splits

__all__ = ["TrialResults", "evaluate_node_classifier", "random_splits"]
