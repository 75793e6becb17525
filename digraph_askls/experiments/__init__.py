"""Experiments: the paper's protocols, splits, metrics, peers and result tables."""

from ._corel import (
    CLASS_NAMES,
    fit_image_gmms,
    get_corel_features,
    get_dct_features,
    get_kl_divergences,
    load_corel,
)
from ._peers import PEERS, PeerClassifier
from ._protocol import TrialResults, evaluate_node_classifier, fixed_splits, random_splits
from ._table1 import PAPER_TABLE1, evaluate_kl_kernel, format_table1, run_table1
from ._table3 import PAPER_TABLE3, format_table3, plot_table3, run_table3
from ._table4 import PAPER_TABLE4, format_table4, run_table4

__all__ = [
    "CLASS_NAMES",
    "PAPER_TABLE1",
    "PAPER_TABLE3",
    "PAPER_TABLE4",
    "PEERS",
    "PeerClassifier",
    "TrialResults",
    "evaluate_kl_kernel",
    "evaluate_node_classifier",
    "fit_image_gmms",
    "fixed_splits",
    "format_table1",
    "format_table3",
    "format_table4",
    "get_corel_features",
    "get_dct_features",
    "get_kl_divergences",
    "load_corel",
    "plot_table3",
    "random_splits",
    "run_table1",
    "run_table3",
    "run_table4",
]
