"""Experiments: the paper's protocols, splits, metrics and result tables."""

from ._protocol import TrialResults, evaluate_node_classifier, random_splits
from ._table4 import PAPER_TABLE4, format_table4, run_table4

__all__ = [
    "PAPER_TABLE4",
    "TrialResults",
    "evaluate_node_classifier",
    "format_table4",
    "random_splits",
    "run_table4",
]
