"""Experiments: the paper's protocols, splits, metrics and result tables."""

from ._peers import PEERS, PeerClassifier
from ._protocol import TrialResults, evaluate_node_classifier, random_splits

__all__ = ["PEERS", "PeerClassifier", "TrialResults", "evaluate_node_classifier", "random_splits"]
