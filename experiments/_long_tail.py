"""The long-tail protocol: AsK-LS with class weights beside the imbalanced-node peers.

The semi-supervised class-imbalanced protocol of GraphSMOTE, GraphENS and TAM
(:func:`experiments._protocols.long_tail_splits`): 20 labelled nodes in each class but
the last three, 2 in each of those (imbalance ratio 10); every other node is a test node,
so the test nodes keep the graph's own class shares, and the scores weigh the classes
alike (balanced accuracy, macro-F1). Ten draws of the sealed seed, the same labelled
nodes for every method, and nothing else: no method gets validation nodes.

Methods:

* ``AsK-LS default``: ``NodeClassifier()``;
* ``AsK-LS balanced``: ``NodeClassifier(class_weight="balanced",
  scoring="balanced_accuracy")``;
* ``LR balanced (propagated)``: scikit-learn's ``LogisticRegression(C=10,
  class_weight="balanced", max_iter=500)`` on
  :func:`~experiments._protocols.linear_reference_features` (the attributes and their
  means over out-, in- and two-step undirected neighbours);
* ``GCN`` and ``GCN re-weighted``: a two-layer GCN (64 hidden units, dropout 0.5, Adam
  with learning rate 0.01 and weight decay 5e-4, Kipf and Welling's settings), trained
  200 epochs on the labelled nodes, with the cross-entropy unweighted or weighted by
  ``n_labelled / (n_classes * count)`` per class (the "Re-Weight" of the imbalanced-node
  papers). With no validation nodes there is no early stopping and no search: the
  published figures beside them chose their models on 500 validation nodes.

Cells (one method on one draw) are appended to a JSON-lines file as they are measured;
``python -m experiments table long-tail`` measures the missing ones and writes the page.
"""

import json
import time
from pathlib import Path

import numpy as np

__all__ = ["LONG_TAIL_GRAPHS", "LONG_TAIL_METHODS", "PUBLISHED_LONG_TAIL", "format_long_tail",
           "run_long_tail"]

#: Two citation graphs of the imbalanced-node papers and one heterophilous graph with
#: attributes (without the duplicated pages of the unfiltered Chameleon).
LONG_TAIL_GRAPHS = ("cora", "citeseer", "chameleon-filtered")

LONG_TAIL_METHODS = ("AsK-LS default", "AsK-LS balanced", "LR balanced (propagated)", "GCN",
                     "GCN re-weighted")

#: The reference of every comparison of the page.
REFERENCE = "AsK-LS balanced"

#: The minority classes of :func:`~experiments._protocols.long_tail_splits` on each graph:
#: the last three class codes, i.e. the last three class names in alphabetical order
#: (Chameleon's classes are numbered). The protocol of GraphENS and TAM takes other ones
#: on Cora and CiteSeer (:mod:`experiments._rare_classes`).
LONG_TAIL_MINORITIES = {"cora": ("Reinforcement_Learning", "Rule_Learning", "Theory"),
                        "citeseer": ("HCI", "IR", "ML"),
                        "chameleon-filtered": ("2", "3", "4")}

_N_DRAWS = 10
_GCN = {"hidden": 64, "dropout": 0.5, "lr": 0.01, "weight_decay": 5e-4, "epochs": 200}

_UNREAL = ("Yan et al., \"Geometric Imbalance in Semi-Supervised Node Classification\", "
           "NeurIPS 2025 (arXiv 2303.10371v2), Table 2: GCN backbone, Planetoid's public "
           "split with the last 3 classes cut to 2 labelled nodes (imbalance ratio 10), "
           "models chosen on the 500 validation nodes, tested on the 1,000 test nodes; "
           "mean of 5 runs")
#: How many times each row's sealed draws were measured, where more than once, and why.
MEASURED_AGAIN = {
    "AsK-LS default": "twice: first before cells recorded a commit and before class-weighted "
                      "decisions were made on calibrated probabilities, then again after",
    "AsK-LS balanced": "twice, for the same reason",
}
#: Published balanced accuracy and macro-F1 on Cora and CiteSeer, ratio 10, as re-tabled
#: by :data:`_UNREAL` (its baselines are those of TAM, Song et al., ICML 2022).
PUBLISHED_LONG_TAIL = {
    "cora": {"GCN": (0.6282, 0.6167), "GCN re-weighted": (0.6536, 0.6497),
             "GraphSMOTE": (0.6639, 0.6549), "GraphENS": (0.7089, 0.7090),
             "GraphENS + TAM": (0.7169, 0.7214), "Balanced Softmax": (0.6998, 0.6868)},
    "citeseer": {"GCN": (0.3872, 0.2874), "GCN re-weighted": (0.4469, 0.3861),
                 "GraphSMOTE": (0.4487, 0.3920), "GraphENS": (0.5657, 0.5529),
                 "GraphENS + TAM": (0.5801, 0.5632), "Balanced Softmax": (0.5552, 0.5374)},
}


def _key(cell):
    return (cell["graph"], cell["method"], int(cell["seed"]), int(cell["split"]))


def load_cells(path):
    """The cells of a JSON-lines file by (graph, method, seed, split); the last wins."""
    from ._cells import read_cells

    return read_cells(path, _key)


def _scores(truth, predicted):
    from sklearn.metrics import balanced_accuracy_score, f1_score

    return {"balanced_accuracy": float(balanced_accuracy_score(truth, predicted)),
            "f1_macro": float(f1_score(truth, predicted, average="macro")),
            "accuracy": float(np.mean(truth == predicted))}


def _run_askls(graph, method, train, test, split):
    import warnings

    from threadpoolctl import threadpool_limits

    from digraph_askls import NodeClassifier

    from ._cells import params_digest

    options = ({"class_weight": "balanced", "scoring": "balanced_accuracy"}
               if method == "AsK-LS balanced" else {})
    known = np.full(graph.n_nodes, -1)
    known[train] = graph.labels[train]
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = NodeClassifier(random_state=split, **options).fit(
            graph.adjacency, known, features=graph.features)
        predicted = model.predict(test)
    selection = model.selection_
    return predicted, {"config": {"kernel": " ".join(repr(selection.get("kernel")).split()),
                                  "gamma": selection.get("gamma"),
                                  "merge": selection.get("merge")},
                       "params_digest": params_digest(model)}


def _run_linear(graph, train, test):
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    from ._protocols import linear_reference_features

    with threadpool_limits(1):
        Z = linear_reference_features(graph.adjacency, graph.features)
        model = LogisticRegression(C=10, class_weight="balanced", max_iter=500)
        model.fit(Z[train], graph.labels[train])
        return model.predict(Z[test]), {}


def _run_gcn(graph, method, train, test, seed):
    from ._comparison_peers import _Inputs
    from ._gnn_models import build_model

    inputs = _Inputs(graph, "cpu")
    torch = inputs.torch
    torch.manual_seed(seed)
    config = {"layers": 2, **{k: v for k, v in _GCN.items() if k != "epochs"}}
    model, scores = build_model("GCN", config, inputs.x, inputs.adjacency, inputs.n_classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=_GCN["lr"],
                                 weight_decay=_GCN["weight_decay"])
    fit = inputs.index(train)
    weight = None
    if method == "GCN re-weighted":
        counts = np.bincount(graph.labels[train], minlength=inputs.n_classes).astype(float)
        balanced = np.where(counts > 0, train.size / (np.count_nonzero(counts)
                                                      * np.maximum(counts, 1)), 0.0)
        weight = torch.as_tensor(balanced, dtype=torch.float32)
    for _ in range(_GCN["epochs"]):
        model.train()
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(scores()[fit], inputs.y[fit], weight=weight)
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        predicted = scores().argmax(1).cpu().numpy()
    return predicted[test], {"config": dict(_GCN)}


def run_cell(graph, name, method, seed, split, train, test):
    """One method on one draw: its scores on the test nodes, as a JSON-ready cell."""
    start = time.perf_counter()
    if method.startswith("AsK-LS"):
        predicted, extra = _run_askls(graph, method, train, test, split)
    elif method == "LR balanced (propagated)":
        predicted, extra = _run_linear(graph, train, test)
    elif method in ("GCN", "GCN re-weighted"):
        draw_seed = int(np.random.default_rng([seed, split, 2]).integers(2**31))
        predicted, extra = _run_gcn(graph, method, train, test, draw_seed)
    else:
        raise ValueError(f"unknown method {method!r}; choose from {LONG_TAIL_METHODS}")
    seconds = time.perf_counter() - start
    from ._cells import split_key, stamp

    return json.loads(json.dumps(stamp(
        {"graph": name, "method": method, "seed": seed, "split": split,
         "nodes": split_key(train, test), "n_labelled": int(train.size),
         "n_test": int(test.size), "seconds": seconds,
         **_scores(graph.labels[test], predicted), **extra,
         "finished": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())},
        predicted=np.asarray(predicted, dtype=np.int64)), default=float))


def run_long_tail(cells_path, graphs=LONG_TAIL_GRAPHS, methods=LONG_TAIL_METHODS, seed=None,
                  data_home=None, verbose=True):
    """Measure every missing cell of the (graphs, methods) on ``_N_DRAWS`` draws of
    ``seed`` (default: the sealed seed of the comparison), appending each to
    ``cells_path`` as it comes. Returns the number measured."""
    from tqdm.auto import tqdm

    from digraph_askls.datasets import load_dataset
    from ._protocols import long_tail_splits

    from ._comparison import SEALED_SEED

    seed = SEALED_SEED if seed is None else int(seed)
    path = Path(cells_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    done = load_cells(path)
    jobs = [(name, method, split) for name in graphs for method in methods
            for split in range(_N_DRAWS) if (name, method, seed, split) not in done]
    measured = 0
    graphs_read, draws = {}, {}
    with open(path, "a") as out:
        for name, method, split in tqdm(jobs, desc="long-tail cells", disable=not verbose):
            if name not in graphs_read:
                graphs_read[name] = load_dataset(name, data_home=data_home, download=False)
                draws[name] = long_tail_splits(graphs_read[name].labels, n_trials=_N_DRAWS,
                                               random_state=seed)
            _, train, test = draws[name][split]
            cell = run_cell(graphs_read[name], name, method, seed, split, train, test)
            out.write(json.dumps(cell) + "\n")
            out.flush()
            measured += 1
    return measured


def _group(cells, seed):
    groups = {}
    for cell in cells:
        if int(cell["seed"]) == seed:
            groups.setdefault((cell["graph"], cell["method"]), {})[int(cell["split"])] = cell
    return groups


def summary_row(name, method, measured, count="draws"):
    """The row of one (graph, method) from its cells ``measured`` (by draw or trial):
    how many (under ``count``), the mean time, and the mean and standard deviation
    (``ddof=0``) of balanced accuracy and macro-F1."""
    row = {"graph": name, "method": method, count: len(measured),
           "seconds": float(np.mean([c["seconds"] for c in measured.values()]))}
    for metric in ("balanced_accuracy", "f1_macro"):
        values = np.array([measured[key][metric] for key in sorted(measured)])
        row[f"{metric}_mean"] = float(values.mean())
        row[f"{metric}_std"] = float(values.std())
    return row


def summarize(cells, seed):
    """One row per (graph, method) with every draw measured: the means and standard
    deviations of the scores and the mean time, and the paired test of
    :data:`REFERENCE` against the method (plain paired t over the draws, Holm over the
    rows of each graph)."""
    from ._comparison_report import holm, paired_test

    groups = _group(cells, seed)
    rows = []
    for name in dict.fromkeys(graph for graph, _ in groups):
        reference = groups.get((name, REFERENCE), {})
        graph_rows = []
        for method in LONG_TAIL_METHODS:
            measured = groups.get((name, method), {})
            if len(measured) < _N_DRAWS:
                continue
            row = summary_row(name, method, measured, "draws")
            if method != REFERENCE and len(reference) >= _N_DRAWS:
                splits = sorted(measured)
                mean, low, high, p = paired_test(
                    [reference[s]["balanced_accuracy"] for s in splits],
                    [measured[s]["balanced_accuracy"] for s in splits])
                row.update(difference=mean, low=low, high=high, p=p)
            graph_rows.append(row)
        tested = [row for row in graph_rows if "p" in row]
        for row, adjusted in zip(tested, holm([row["p"] for row in tested])):
            row["p_holm"] = adjusted
            row["verdict"] = ("level" if adjusted >= 0.05 else
                              "ahead" if row["difference"] > 0 else "behind")
        rows.extend(graph_rows)
    return rows


def _measurements_text(cells, seed):
    """Per method, the commit(s) its cells ran on and how often its draws were measured."""
    commits = {}
    for cell in cells:
        if cell.get("seed") == seed:
            commits.setdefault(cell["method"], set()).add(
                str(cell["commit"])[:7] if cell.get("commit") else "no commit recorded")
    parts = []
    for method, ran_on in commits.items():
        again = MEASURED_AGAIN.get(method, "once")
        parts.append(f"{method}: {', '.join(sorted(ran_on))} (measured {again})")
    return ("Measurements (commit the cells ran on; cells written before provenance was "
            "recorded carry none; earlier measurements are in the history of the cells "
            "file): " + "; ".join(parts) + ".")


def format_long_tail(cells, seed):
    """The results page: one table per graph, the published figures under it."""
    from ._comparison_report import _signed

    rows = summarize(cells, seed)
    lines = [
        "# Rare classes: the long-tail protocol",
        "",
        f"20 labelled nodes in each class but the last three, 2 in each of those (imbalance "
        f"ratio 10; `long_tail_splits` in `experiments/_protocols.py`), {_N_DRAWS} draws of "
        f"the sealed seed {seed}, the same labelled nodes for every method and no validation "
        "nodes; every other node is tested. Balanced accuracy and macro-F1, mean ± standard "
        "deviation over the draws; time of one fit and prediction on one thread. The methods "
        "are described in `experiments/_long_tail.py`. The difference is `AsK-LS balanced` "
        "minus the row's method in balanced accuracy, with the 95 % interval of a paired "
        "t-test over the draws; *ahead* / *behind* where Holm's correction over the rows "
        "of the graph leaves p below 0.05, else *level*.",
        "",
        "Regenerate with `python -m experiments table long-tail --data-home "
        "../shared/datasets` (only missing cells are measured; `--cached-only` redraws).",
        "",
        "The minority classes here are the last three by class code, i.e. in alphabetical "
        "order: " + "; ".join(f"{name}: {', '.join(classes)}"
                              for name, classes in LONG_TAIL_MINORITIES.items())
        + ". GraphENS and TAM take the last three in PyTorch Geometric's order on the "
        "Planetoid split instead (one of three overlaps on Cora, one on CiteSeer): the "
        "published comparison on their protocol is [rare_classes.md](rare_classes.md).",
    ]
    for name in dict.fromkeys(row["graph"] for row in rows):
        lines += ["", f"## {name}", "",
                  "| method | balanced accuracy | macro-F1 | seconds | difference | verdict |",
                  "|---|---|---|---|---|---|"]
        for row in (row for row in rows if row["graph"] == name):
            comparison = ("reference", "") if "difference" not in row else (
                f"{_signed(row['difference'])} [{_signed(row['low'])}, "
                f"{_signed(row['high'])}]", row["verdict"])
            lines.append(
                f"| {row['method']} | {row['balanced_accuracy_mean']:.3f} ± "
                f"{row['balanced_accuracy_std']:.3f} | {row['f1_macro_mean']:.3f} ± "
                f"{row['f1_macro_std']:.3f} | {row['seconds']:.1f} | {comparison[0]} | "
                f"{comparison[1]} |")
        if name in PUBLISHED_LONG_TAIL:
            lines += ["", "Published on this graph (ratio 10, another protocol and other "
                          "minority classes: see below and rare_classes.md), "
                          "balanced accuracy / macro-F1: " + "; ".join(
                              f"{method} {bacc:.3f} / {f1:.3f}"
                              for method, (bacc, f1) in PUBLISHED_LONG_TAIL[name].items())
                      + "."]
    lines += ["", _measurements_text(cells, seed)]
    lines += ["", f"Published figures: {_UNREAL}. They differ from the rows above in three "
                  "ways: one fixed split instead of 10 draws, 500 validation nodes for "
                  "choosing the model, and 1,000 test nodes instead of every other node."]
    return "\n".join(lines) + "\n"
