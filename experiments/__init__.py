"""Experiments: the paper's protocols, splits, metrics, peers and result tables."""

from ._cells import CellCache
from ._corel import (
    CLASS_NAMES,
    fit_image_gmms,
    get_corel_features,
    get_dct_features,
    get_kl_divergences,
    load_corel,
)
from ._directed import (DIRECTED_DATASETS, DIRECTED_METHODS, PUBLISHED_DIRECTED,
                        format_directed, plot_directed, run_directed)
from ._directed_plot import plot_directed_summary, plot_tradeoff
from ._few_labels import (FEW_LABEL_METHODS, FEW_LABEL_PROTOCOLS, format_few_labels,
                          plot_few_labels, run_few_labels)
from ._gnn import GNNClassifier
from ._gnn_config import GNN_CONFIGS, GNN_METHODS
from ._gnn_table import (FEW_LABEL_DATASETS, GNN_DATASETS, GNN_TABLE_METHODS, format_gnn,
                         run_gnn_table)
from digraph_askls.peers import PEERS, PeerClassifier
from digraph_askls.model_selection import (TrialResults, class_splits, evaluate_node_classifier,
                                           fixed_splits, kernel_family, random_splits, takes_valid)
from ._published import PUBLISHED_FEW_LABELS
from ._table1 import PAPER_TABLE1, evaluate_kl_kernel, format_table1, run_table1
from ._table3 import PAPER_TABLE3, format_table3, plot_table3, run_table3
from ._table4 import PAPER_TABLE4, format_table4, run_table4

__all__ = [
    "CLASS_NAMES",
    "CellCache",
    "DIRECTED_DATASETS",
    "DIRECTED_METHODS",
    "FEW_LABEL_DATASETS",
    "FEW_LABEL_METHODS",
    "FEW_LABEL_PROTOCOLS",
    "GNNClassifier",
    "GNN_CONFIGS",
    "GNN_DATASETS",
    "GNN_METHODS",
    "GNN_TABLE_METHODS",
    "PAPER_TABLE1",
    "PAPER_TABLE3",
    "PAPER_TABLE4",
    "PUBLISHED_FEW_LABELS",
    "PUBLISHED_DIRECTED",
    "TrialResults",
    "class_splits",
    "evaluate_kl_kernel",
    "evaluate_node_classifier",
    "fit_image_gmms",
    "fixed_splits",
    "format_directed",
    "format_few_labels",
    "format_gnn",
    "format_table1",
    "format_table3",
    "format_table4",
    "get_corel_features",
    "get_dct_features",
    "get_kl_divergences",
    "kernel_family",
    "load_corel",
    "plot_directed",
    "plot_directed_summary",
    "plot_few_labels",
    "plot_tradeoff",
    "plot_table3",
    "random_splits",
    "run_directed",
    "run_few_labels",
    "run_gnn_table",
    "run_table1",
    "run_table3",
    "run_table4",
    "takes_valid",
]
