"""Rare classes on the protocol of GraphENS and TAM: the Planetoid split, 2 labels each.

The published comparison of the class-imbalanced node papers (GraphENS, Park et al.,
ICLR 2022; TAM, Song et al., ICML 2022), run on the directed LINQS graphs:
:func:`experiments._protocols.planetoid_long_tail_splits` keeps the 20 public training
nodes of each class but the last three in PyTorch Geometric's class order
(:data:`experiments._protocols.PLANETOID_MINORITIES`), and 2 of each of those, drawn
anew for each of 10 trials; every method chooses its model on the split's validation
nodes and is scored on its test nodes (the same in every trial), by balanced accuracy
and macro-F1. GraphENS reports 5 runs; the page runs 10.

Methods:

* ``AsK-LS balanced``: ``NodeClassifier(class_weight="balanced",
  scoring="balanced_accuracy", random_state=t).fit(adjacency, known, features=...,
  valid=the validation nodes)`` (``known``: the labels of the kept training nodes and of
  the validation nodes, which the fit holds out to choose its model);
* ``GCN re-weighted``: a two-layer GCN (Kipf and Welling; sparse, on the undirected graph
  with self-loops, the attributes' rows L1-normalised) with the cross-entropy weighted
  by ``n_labelled / (n_classes * count)`` per class, trained with Adam (learning rate
  0.01) for at most 200 epochs, stopped after 50 epochs without a gain in balanced
  accuracy on the validation nodes, the epoch of the best one kept; the configuration
  (hidden 16 or 64, dropout 0.5, weight decay 5e-4 or 5e-3) with the best validation
  balanced accuracy is scored.

Cells (one method on one trial) are appended to a JSON-lines file as they are measured,
with their provenance (:func:`experiments._cells.stamp`);
``python -m experiments table rare-classes`` measures the missing ones and writes the page.
"""

import itertools
import json
import time
from pathlib import Path

import numpy as np

from ._long_tail import summary_row

__all__ = ["PUBLISHED_RARE", "RARE_GRAPHS", "RARE_METHODS", "format_rare_classes",
           "run_rare_classes"]

RARE_GRAPHS = ("cora", "citeseer")
RARE_METHODS = ("AsK-LS balanced", "AsK-LS balanced, self-trained", "GCN re-weighted",
                "GCN re-weighted, self-trained")

#: The base seed of the published trials: trial ``t`` draws its minority nodes with
#: ``numpy.random.default_rng([RARE_SEED, t])``. Development used seed 0 and half of the
#: validation nodes only.
RARE_SEED = 7340611
_N_TRIALS = 10

#: The grid of the re-weighted GCN and its training rule.
GCN_GRID = [{"hidden": hidden, "dropout": 0.5, "lr": 0.01, "weight_decay": decay}
            for hidden, decay in itertools.product((16, 64), (5e-4, 5e-3))]
GCN_TRAINING = {"max_epochs": 200, "patience": 50}

#: Published balanced accuracy and macro-F1 on this protocol (GCN backbone, imbalance
#: ratio 10, mean of 5 runs): GraphENS (Park et al., "GraphENS: Neighbor-Aware Ego Network
#: Synthesis for Class-Imbalanced Node Classification", ICLR 2022) and GraphENS + TAM (Song
#: et al., "TAM: Topology-Aware Margin Loss for Class-Imbalanced Node Classification", ICML
#: 2022, Table 1), with TAM's re-weighted GCN, as re-tabled to four digits by Yan et al.
#: (:data:`experiments._long_tail.PUBLISHED_LONG_TAIL`).
PUBLISHED_RARE = {
    "cora": {"GCN re-weighted": (0.6536, 0.6497), "GraphENS": (0.7089, 0.7090),
             "GraphENS + TAM": (0.7169, 0.7214)},
    "citeseer": {"GCN re-weighted": (0.4469, 0.3861), "GraphENS": (0.5657, 0.5529),
                 "GraphENS + TAM": (0.5801, 0.5632)},
}


def _key(cell):
    return (cell["graph"], cell["method"], int(cell["seed"]), int(cell["trial"]))


def load_cells(path):
    """The cells of a JSON-lines file by (graph, method, seed, trial); the last wins."""
    from ._cells import read_cells

    return read_cells(path, _key)


def _balanced_weights(labels, n_classes):
    counts = np.bincount(labels, minlength=n_classes).astype(float)
    return np.where(counts > 0, labels.size / (np.count_nonzero(counts)
                                                * np.maximum(counts, 1)), 0.0)


def _known(graph, train, valid):
    """The class codes a method is given: the kept training nodes' and the validation
    nodes', -1 elsewhere."""
    known = np.full(graph.n_nodes, -1)
    known[train] = graph.labels[train]
    known[valid] = graph.labels[valid]
    return known


def _pseudo_record(graph, nodes, codes):
    """What a cell records of its pseudo-labels (``codes`` of ``nodes``): how many, and
    the share right (read from the labels after the fact; nothing uses it)."""
    return {"n_pseudo_labels": int(len(nodes)),
            "pseudo_label_accuracy": float(np.mean(graph.labels[nodes] == codes))}


def _run_askls(graph, train, valid, test, trial, self_trained=False):
    import warnings

    from threadpoolctl import threadpool_limits

    from digraph_askls import NodeClassifier, SelfTrainingNodeClassifier

    from ._cells import params_digest

    known = _known(graph, train, valid)
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = NodeClassifier(class_weight="balanced", scoring="balanced_accuracy",
                               random_state=trial)
        if self_trained:
            model = SelfTrainingNodeClassifier(model)
        model.fit(graph.adjacency, known, features=graph.features, valid=valid)
        predicted = model.predict(test)
    extra = {}
    if self_trained:
        extra = _pseudo_record(graph, np.fromiter(model.pseudo_labels_, dtype=np.int64),
                               np.fromiter(model.pseudo_labels_.values(), dtype=np.int64))
        model = model.estimator_
    selection = model.selection_
    return predicted, {"config": {"kernel": " ".join(repr(selection.get("kernel")).split()),
                                  "gamma": selection.get("gamma"),
                                  "merge": selection.get("merge")},
                       "params_digest": params_digest(model), **extra}


class _SparseInputs:
    """A graph's tensors for the GCN on a CPU: the attributes (rows L1-normalised) and the
    propagation ``D^-1/2 (A + A^T + I) D^-1/2`` of its undirected graph with self-loops
    (each link counted once), both sparse, so that ``X W`` costs the attributes' non-zeros
    rather than their full size (Kipf and Welling's own implementation is sparse too)."""

    def __init__(self, graph):
        from scipy import sparse
        from sklearn.preprocessing import normalize

        import torch

        self.torch = torch
        adjacency = sparse.csr_array(graph.adjacency, dtype=float)
        adjacency.data[:] = 1.0
        undirected = ((adjacency + adjacency.T) > 0).astype(float)
        undirected = sparse.csr_array(undirected + sparse.eye_array(adjacency.shape[0]))
        undirected.data[:] = 1.0
        scale = 1.0 / np.sqrt(np.asarray(undirected.sum(axis=1)).ravel())
        self.propagate = self._tensor(sparse.diags_array(scale) @ undirected
                                      @ sparse.diags_array(scale))
        features = sparse.csr_array(normalize(sparse.csr_array(graph.features, dtype=float),
                                              norm="l1"))
        self.x = self._tensor(features)
        self.y = torch.as_tensor(np.maximum(graph.labels, 0))
        self.n_classes = int(graph.labels.max()) + 1

    def _tensor(self, matrix):
        coo = matrix.tocoo()
        indices = np.vstack([coo.row, coo.col]).astype(np.int64)
        return self.torch.sparse_coo_tensor(indices, coo.data.astype(np.float32),
                                            coo.shape).coalesce()

    def model(self, hidden, dropout):
        """A two-layer GCN: ``S relu(S drop(X) W1) W2`` with dropout before each layer."""
        torch = self.torch
        first = torch.nn.Linear(self.x.shape[1], hidden)
        second = torch.nn.Linear(hidden, self.n_classes)
        values = self.x.values()

        def scores(training):
            kept = values
            if training:
                kept = torch.nn.functional.dropout(values, dropout, training=True)
            x = torch.sparse_coo_tensor(self.x.indices(), kept, self.x.shape)
            h = torch.relu(torch.sparse.mm(self.propagate,
                                           torch.sparse.mm(x, first.weight.T) + first.bias))
            h = torch.nn.functional.dropout(h, dropout, training=training)
            return torch.sparse.mm(self.propagate, second(h))

        return torch.nn.ModuleList([first, second]), scores


def _train_gcn(inputs, config, fit, valid, weight, seed, y):
    """One re-weighted GCN trained on the targets ``y`` (every node's) of the nodes
    ``fit``; returns (validation balanced accuracy, predictions, epoch, class
    probabilities of every node) at its best epoch (the first of the best)."""
    torch = inputs.torch
    torch.manual_seed(seed)
    model, scores = inputs.model(config["hidden"], config["dropout"])
    optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"],
                                 weight_decay=config["weight_decay"])
    truth = inputs.y[valid].numpy()
    best, best_epoch, predicted, proba = -1.0, 0, None, None
    for epoch in range(1, GCN_TRAINING["max_epochs"] + 1):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(scores(True)[fit], y[fit], weight=weight)
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            output = scores(False)
            guess = output.argmax(1).numpy()
        score = _balanced(truth, guess[valid.numpy()])
        if score > best:
            best, best_epoch, predicted, proba = score, epoch, guess, output
        elif epoch - best_epoch >= GCN_TRAINING["patience"]:
            break
    return best, predicted, best_epoch, torch.softmax(proba, dim=1).numpy()


def _balanced(truth, predicted):
    from sklearn.metrics import balanced_accuracy_score

    return float(balanced_accuracy_score(truth, predicted))


def _tuned_gcn(inputs, train, targets, held, seed):
    """The grid's GCN of best validation balanced accuracy, trained on ``train`` with
    ``targets`` (every node's): (score, predictions, epoch, config, probabilities)."""
    torch = inputs.torch
    weight = torch.as_tensor(_balanced_weights(targets[train].numpy(), inputs.n_classes),
                             dtype=torch.float32)
    fit = torch.as_tensor(train, dtype=torch.int64)
    best = None
    for config in GCN_GRID:
        score, predicted, epoch, proba = _train_gcn(inputs, config, fit, held, weight, seed,
                                                    targets)
        if best is None or score > best[0]:
            best = (score, predicted, epoch, config, proba)
    return best


def _run_gcn(graph, train, valid, test, seed, self_trained=False):
    """The tuned re-weighted GCN; ``self_trained``: trained again with the class-balanced
    pseudo-labels of its first answer
    (:func:`digraph_askls.models.class_balanced_pseudo_labels`, as
    :class:`~digraph_askls.SelfTrainingNodeClassifier` chooses them)."""
    from threadpoolctl import threadpool_limits

    from digraph_askls.models import class_balanced_pseudo_labels

    with threadpool_limits(1):
        inputs = _SparseInputs(graph)
        inputs.torch.set_num_threads(1)
        held = inputs.torch.as_tensor(valid, dtype=inputs.torch.int64)
        score, predicted, epoch, config, proba = _tuned_gcn(inputs, train, inputs.y, held,
                                                            seed)
        extra = {}
        if self_trained:
            pseudo = class_balanced_pseudo_labels(_known(graph, train, valid), predicted,
                                                  proba, held=valid)
            chosen = np.flatnonzero(pseudo >= 0)
            targets = inputs.y.clone()
            targets[chosen] = inputs.torch.as_tensor(pseudo[chosen])
            score, predicted, epoch, config, _ = _tuned_gcn(
                inputs, np.sort(np.concatenate([train, chosen])), targets, held, seed)
            extra = _pseudo_record(graph, chosen, pseudo[chosen])
    return predicted[test], {"config": dict(config, **GCN_TRAINING), "best_epoch": epoch,
                             "valid_balanced_accuracy": score, **extra}


def _scores(truth, predicted):
    from sklearn.metrics import f1_score

    return {"balanced_accuracy": _balanced(truth, predicted),
            "f1_macro": float(f1_score(truth, predicted, average="macro")),
            "accuracy": float(np.mean(truth == predicted))}


def run_cell(graph, name, method, seed, trial, train, valid, test):
    """One method on one trial: its scores on the test nodes, as a JSON-ready cell."""
    from ._cells import split_key, stamp

    start = time.perf_counter()
    if method.startswith("AsK-LS balanced") and method in RARE_METHODS:
        predicted, extra = _run_askls(graph, train, valid, test, trial,
                                      self_trained=method.endswith("self-trained"))
    elif method.startswith("GCN re-weighted") and method in RARE_METHODS:
        draw_seed = int(np.random.default_rng([seed, trial, 2]).integers(2**31))
        predicted, extra = _run_gcn(graph, train, valid, test, draw_seed,
                                    self_trained=method.endswith("self-trained"))
    else:
        raise ValueError(f"unknown method {method!r}; choose from {RARE_METHODS}")
    seconds = time.perf_counter() - start
    return json.loads(json.dumps(stamp(
        {"graph": name, "method": method, "seed": seed, "trial": trial,
         "nodes": split_key(train, test, valid), "n_labelled": int(train.size),
         "n_valid": int(valid.size), "n_test": int(test.size), "seconds": seconds,
         **_scores(graph.labels[test], predicted), **extra,
         "finished": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())},
        predicted=np.asarray(predicted, dtype=np.int64)), default=float))


def planetoid_trials(graph, name, seed, n_trials=_N_TRIALS, data_home=None):
    """The trials of ``graph`` (cora or citeseer) on the protocol: (seed, train, valid,
    test) of :func:`~experiments._protocols.planetoid_long_tail_splits`."""
    from digraph_askls.datasets import load_planetoid_split

    from ._protocols import PLANETOID_MINORITIES, planetoid_long_tail_splits

    if name not in PLANETOID_MINORITIES:
        raise ValueError(f"the protocol is defined on {sorted(PLANETOID_MINORITIES)}, "
                         f"got {name!r}")
    split = load_planetoid_split(graph, name, data_home=data_home)
    codes = [list(graph.class_names).index(label) for label in PLANETOID_MINORITIES[name]]
    return planetoid_long_tail_splits(graph.labels, split, codes, n_trials=n_trials,
                                      random_state=seed)


def run_rare_classes(cells_path, graphs=RARE_GRAPHS, methods=RARE_METHODS, seed=RARE_SEED,
                     data_home=None, verbose=True):
    """Measure every missing cell of (graphs, methods) on ``_N_TRIALS`` trials of
    ``seed``, appending each to ``cells_path`` as it comes. Returns the number measured."""
    from tqdm.auto import tqdm

    from digraph_askls.datasets import load_dataset

    path = Path(cells_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    done = load_cells(path)
    jobs = [(name, method, trial) for name in graphs for method in methods
            for trial in range(_N_TRIALS) if (name, method, seed, trial) not in done]
    measured, graphs_read, trials = 0, {}, {}
    with open(path, "a") as out:
        for name, method, trial in tqdm(jobs, desc="rare-class cells", disable=not verbose):
            if name not in graphs_read:
                graphs_read[name] = load_dataset(name, data_home=data_home, download=False)
                trials[name] = planetoid_trials(graphs_read[name], name, seed,
                                                data_home=data_home)
            _, train, valid, test = trials[name][trial]
            cell = run_cell(graphs_read[name], name, method, seed, trial, train, valid, test)
            out.write(json.dumps(cell) + "\n")
            out.flush()
            measured += 1
    return measured


def summarize(cells, seed=RARE_SEED):
    """One row per (graph, method) with every trial measured: mean and standard deviation
    (over the trials, ``ddof=0``) of balanced accuracy and macro-F1, and the mean time."""
    groups = {}
    for cell in cells:
        if int(cell["seed"]) == seed:
            groups.setdefault((cell["graph"], cell["method"]), {})[int(cell["trial"])] = cell
    rows = []
    for (name, method), measured in groups.items():
        if len(measured) < _N_TRIALS:
            continue
        rows.append(summary_row(name, method, measured, "trials"))
    order = {name: index for index, name in enumerate(RARE_GRAPHS)}
    return sorted(rows, key=lambda row: (order.get(row["graph"], 99),
                                         RARE_METHODS.index(row["method"])))


def format_rare_classes(cells, seed=RARE_SEED, development=""):
    """The page's table: one row per method, the published figures beside."""
    from ._protocols import PLANETOID_MINORITIES

    rows = summarize(cells, seed)
    lines = ["| graph | minority classes | method | balanced accuracy | macro-F1 | seconds |",
             "|---|---|---|---|---|---|"]
    for name in RARE_GRAPHS:
        minority = ", ".join(PLANETOID_MINORITIES[name])
        for row in (row for row in rows if row["graph"] == name):
            lines.append(
                f"| {name} | {minority} | {row['method']} (10 trials) | "
                f"{row['balanced_accuracy_mean']:.3f} ± {row['balanced_accuracy_std']:.3f} | "
                f"{row['f1_macro_mean']:.3f} ± {row['f1_macro_std']:.3f} | "
                f"{row['seconds']:.1f} |")
        for method, (bacc, f1) in PUBLISHED_RARE[name].items():
            lines.append(f"| {name} | {minority} | {method}, published (5 runs) | "
                         f"{bacc:.3f} | {f1:.3f} | |")
    return "\n".join(lines) + "\n"
