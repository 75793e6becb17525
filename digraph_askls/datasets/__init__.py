"""datasets layer of digraph_askls: data home, registry of named datasets, file readers."""

from digraph_askls.datasets._base import get_data_home
from digraph_askls.datasets._files import load_graph_files
from digraph_askls.datasets._heterophily import load_geom_gcn, load_heterophilous_npz
from digraph_askls.datasets._linqs import load_linqs, load_pubmed_linqs, load_pubmed_tsv
from digraph_askls.datasets._load import load_dataset
from digraph_askls.datasets._planetoid import PLANETOID_SPLITS, load_planetoid_split
from digraph_askls.datasets._parsers import load_askls_mat, load_npz, load_ogb_raw
from digraph_askls.datasets._registry import list_datasets
from digraph_askls.datasets._sbm import make_directed_sbm, make_multilabel_sbm
from digraph_askls.datasets._uci import UCI_TABLES, load_uci

__all__ = [
    "get_data_home",
    "list_datasets",
    "load_askls_mat",
    "load_dataset",
    "load_graph_files",
    "load_geom_gcn",
    "load_heterophilous_npz",
    "load_linqs",
    "load_npz",
    "load_ogb_raw",
    "load_planetoid_split",
    "load_pubmed_linqs",
    "load_pubmed_tsv",
    "load_uci",
    "PLANETOID_SPLITS",
    "UCI_TABLES",
    "make_directed_sbm",
    "make_multilabel_sbm",
]
