"""Hyper-parameters of the graph neural network peers, from their authors' code.

Each entry of :data:`GNN_CONFIGS` gives the model's settings, its training settings and the
file they come from (repository, path, commit). One training rule serves all of them
(:class:`~experiments.GNNClassifier`): Adam on the cross-entropy of the
training nodes, full batch, the weights of the best validation epoch kept, training stopped
after ``patience`` epochs without a better validation ``criterion`` or at ``max_epochs``.
Where an author's script stops by another rule, the docs (``docs/results/gnn.md``) say so.
"""

__all__ = ["GNN_CONFIGS", "GNN_METHODS", "get_config"]

_KIPF = "tkipf/gcn, gcn/train.py, commit 9b8bd4b18b54482383979c89c8710cacf48dc088"
_SAGE = ("williamleif/GraphSAGE, graphsage/supervised_train.py, "
         "commit 050895f671160d20e7951829894377c912902ad4")
_DIRGNN = ("emalgorithm/directed-graph-neural-network, best_hyperparams.yml and "
           "src/utils/arguments.py, commit 287ad3a45aa5714676dff422a34fdbee4559ef57")
_MAGNET = ("matthew-hirn/magnet, execution/node_classifcation.sh and src/sparse_Magnet.py, "
           "commits 1f465c78e81d8a420cbc1e48b3b5edf401d779c2 and "
           "15946c4429ac84cc0c5008319450c6df3a373191")
_DIGCN = ("flyingtango/DiGCN, code/digcn.py and code/train_eval.py, "
          "commit bbef909d7a24d4f04e8aee24c8b063e895a56ae2")

# Kipf and Welling's settings (train.py's flags), which the MLP and GCN peers share.
_KIPF_DEFAULT = {"hidden": 16, "layers": 2, "dropout": 0.5, "lr": 0.01, "weight_decay": 5e-4,
                 "max_epochs": 200, "patience": 10, "criterion": "loss", "row_normalize": True}

_DIRGNN_CHAMELEON = {"hidden": 128, "layers": 5, "jk": "max", "alpha": 1.0, "normalize": True,
                     "dropout": 0.0, "lr": 0.005, "weight_decay": 0.0, "max_epochs": 10000,
                     "patience": 400, "criterion": "accuracy", "row_normalize": False}

#: Settings of each peer: ``"default"`` for every graph, and per-graph settings where the
#: authors publish them (Dir-GNN on Chameleon and Squirrel). Keys: ``hidden`` units,
#: ``layers``, ``dropout``, ``lr``, ``weight_decay``, ``max_epochs``, ``patience``, the
#: early-stopping ``criterion`` ("loss" or "accuracy" on the validation nodes),
#: ``row_normalize`` (features divided by their row sums, as the authors' loaders do), and
#: model-specific keys; ``source`` says where they come from.
GNN_CONFIGS = {
    "MLP": {
        "source": _KIPF + " (model 'dense')",
        "graph": "none (node attributes only)",
        "default": dict(_KIPF_DEFAULT),
    },
    "GCN": {
        "source": _KIPF + " (model 'gcn')",
        "graph": "symmetrised, self-loops and symmetric normalisation (GCNConv)",
        "default": dict(_KIPF_DEFAULT),
    },
    "GraphSAGE": {
        "source": _SAGE + " (graphsage_mean: 2 layers of 128, lr 0.01, no dropout, no "
                          "weight decay); full batch, without neighbour sampling, and the "
                          "stopping rule of GCN, since the script trains 10 mini-batch epochs",
        "graph": "symmetrised, mean aggregation (SAGEConv)",
        "default": {"hidden": 128, "layers": 2, "dropout": 0.0, "lr": 0.01,
                    "weight_decay": 0.0, "max_epochs": 200, "patience": 10,
                    "criterion": "loss", "row_normalize": False},
    },
    "Dir-GNN": {
        "source": _DIRGNN + " (dir-gcn; the Chameleon settings on graphs without "
                            "published ones)",
        "graph": "directed, in- and out-neighbours (DirGNNConv around GCNConv)",
        "default": dict(_DIRGNN_CHAMELEON),
        "chameleon": dict(_DIRGNN_CHAMELEON),
        "squirrel": {**_DIRGNN_CHAMELEON, "layers": 4, "lr": 0.01},
    },
    "MagNet": {
        "source": _MAGNET + " (K 1, 2 layers, dropout 0.5, activation, l2 5e-4, 3000 "
                            "epochs, patience 500 on the validation loss; lr, filters and "
                            "q from the script's grid without a search: lr 0.005 (the "
                            "script's default), 16 filters, q 0.25)",
        "graph": "directed, magnetic Laplacian (MagNetConv)",
        "default": {"hidden": 16, "layers": 2, "K": 1, "q": 0.25, "dropout": 0.5,
                    "lr": 0.005, "weight_decay": 5e-4, "max_epochs": 3000, "patience": 500,
                    "criterion": "loss", "row_normalize": False},
    },
    "DiGCN": {
        "source": _DIGCN + " (digcn.py's defaults: hidden 64, dropout 0.5, lr 0.05, weight "
                           "decay 1e-4, 1000 epochs, early stopping 200, alpha 0.1, features "
                           "normalised, the first-order 'appr' adjacency)",
        "graph": "directed, approximate personalised-PageRank Laplacian (DiGCNConv)",
        "default": {"hidden": 64, "layers": 2, "alpha": 0.1, "dropout": 0.5, "lr": 0.05,
                    "weight_decay": 1e-4, "max_epochs": 1000, "patience": 200,
                    "criterion": "loss", "row_normalize": True},
    },
}

#: The peers by name, in the order of the tables.
GNN_METHODS = tuple(GNN_CONFIGS)


def get_config(method, graph_name=None):
    """The settings of ``method`` on the graph named ``graph_name`` (its own if published)."""
    entry = GNN_CONFIGS[method]
    key = (graph_name or "").lower()
    return dict(entry.get(key, entry["default"]))
