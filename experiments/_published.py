"""Published figures of graph neural networks on the graphs of the results tables.

They come from the papers, with other code, other machines and in places other splits
and feature preprocessing; the tables list them apart, marked "published, not rerun".
"""

__all__ = ["PUBLISHED_DIRECTED", "PUBLISHED_FEW_LABELS", "published_rows"]

_DIR_GNN = ('Rossi et al., "Edge Directionality Improves Learning on Heterophilic Graphs", '
            'LoG 2023')
_FABERNET = ('Koke & Cremers, "HoloNets: Spectral Convolutions do extend to Directed '
             'Graphs", ICLR 2024')
_MAGNET = 'Zhang et al., "MagNet: A Neural Network for Directed Graphs", NeurIPS 2021'
_GCNII = 'Chen et al., "Simple and Deep Graph Convolutional Networks", ICML 2020'
_FIXED = "the same 10 fixed splits, with attributes"

#: Published test accuracies (not rerun here): graph -> method -> accuracy, protocol and
#: source. GNNs with node attributes, as their papers report them.
PUBLISHED_DIRECTED = {
    "chameleon": {
        "Dir-GNN": {"accuracy": 0.797, "protocol": _FIXED, "source": _DIR_GNN},
        "FaberNet": {"accuracy": 0.803, "protocol": _FIXED, "source": _FABERNET},
        "GCN": {"accuracy": 0.65, "protocol": _FIXED + " (rounded)",
                "source": "GCN as listed in the results table of " + _DIR_GNN},
    },
    "squirrel": {
        "Dir-GNN": {"accuracy": 0.753, "protocol": _FIXED, "source": _DIR_GNN},
        "FaberNet": {"accuracy": 0.767, "protocol": _FIXED, "source": _FABERNET},
        "GCN": {"accuracy": 0.53, "protocol": _FIXED + " (rounded)",
                "source": "GCN as listed in the results table of " + _DIR_GNN},
    },
    "texas": {"MagNet": {"accuracy": 0.833, "protocol": "with attributes, splits as in the paper",
                         "source": _MAGNET}},
    "wisconsin": {"MagNet": {"accuracy": 0.857,
                             "protocol": "with attributes, splits as in the paper",
                             "source": _MAGNET}},
    "cora": {"GCNII": {"accuracy": 0.885, "protocol": "random 60/20/20 splits, with attributes",
                       "source": _GCNII}},
    "citeseer": {"GCNII": {"accuracy": 0.771,
                           "protocol": "random 60/20/20 splits, with attributes",
                           "source": _GCNII}},
}

_KIPF = 'Kipf & Welling, "Semi-Supervised Classification with Graph Convolutional Networks", ' \
    'ICLR 2017, Table 2'
_PLANETOID = "Planetoid split: 20 labels per class, 500 validation and 1000 test nodes"

#: Published test accuracies with few labels: labels per class -> graph -> method -> entry.
PUBLISHED_FEW_LABELS = {
    20: {
        "cora": {"GCN": {"accuracy": 0.815, "protocol": _PLANETOID, "source": _KIPF}},
        "citeseer": {"GCN": {"accuracy": 0.703, "protocol": _PLANETOID, "source": _KIPF}},
    },
}


def published_rows(name, per_class=None):
    """The published rows of one graph, marked as not rerun: :data:`PUBLISHED_DIRECTED`,
    or :data:`PUBLISHED_FEW_LABELS` for the protocol of ``per_class`` labelled nodes."""
    table = PUBLISHED_DIRECTED if per_class is None else \
        PUBLISHED_FEW_LABELS.get(per_class, {})
    return [{"graph": name, "method": method, "status": "published, not rerun",
             "published": True, "accuracy_mean": entry["accuracy"], "accuracy_std": None,
             "macro_f1_mean": None, "macro_f1_std": None, "seconds_per_split": None,
             "n_splits": None, "protocol": entry["protocol"], "source": entry["source"],
             "selected_families": None}
            for method, entry in table.get(name, {}).items()]
