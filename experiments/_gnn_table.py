"""AsK-LS beside graph neural networks on the same splits, in two regimes.

* Many labels: the dataset's fixed splits where it ships them (the GNNs stop early on the
  split's validation nodes, AsK-LS trains on the training nodes alone), else random 60/40
  splits (the GNNs hold out a share of the training nodes of each class for early
  stopping, AsK-LS selects by cross-validation on all of them).
* Few labels: ``per_class`` labelled nodes of each class (:func:`class_splits`), the GNNs
  holding out the same share for early stopping.

Every cell (graph, protocol, method, split) is saved in a JSON-lines cache as soon as it is
measured, so that a stopped run resumes where it stopped (see :class:`CellCache`).
"""

from ._directed import run_directed
from ._gnn_config import GNN_CONFIGS, GNN_METHODS

__all__ = ["GNN_DATASETS", "FEW_LABEL_DATASETS", "GNN_TABLE_METHODS", "run_gnn_table",
           "format_gnn"]

#: Graphs of the many-label regime (all with node attributes).
GNN_DATASETS = ("chameleon", "squirrel", "texas", "wisconsin", "film", "cora", "citeseer")
#: Graphs of the few-label regime.
FEW_LABEL_DATASETS = ("cora", "citeseer", "chameleon")
#: The methods of the table: AsK-LS's default and the GNN peers.
GNN_TABLE_METHODS = ("AsK-LS default",) + GNN_METHODS


def run_gnn_table(datasets=GNN_DATASETS, few_label_datasets=FEW_LABEL_DATASETS, per_class=20,
                  n_trials=10, data_home=None, random_state=0, methods=GNN_TABLE_METHODS,
                  cache=None, recompute=(), cached_only=False, n_threads=1, verbose=True):
    """Rows of both regimes (see :func:`run_directed` for the parameters and the rows).

    ``few_label_datasets`` are run with ``per_class`` labelled nodes of each class; pass
    an empty list to skip that regime.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.graph import Graph, get_adjacency
    >>> adjacency, nodes = get_adjacency([(i, (i + 1) % 12) for i in range(12)])
    >>> graph = Graph(adjacency, np.arange(12) % 2, nodes, ["a", "b"], name="ring",
    ...               features=np.eye(12))
    >>> rows = run_gnn_table([graph], [graph], per_class=3, n_trials=1,
    ...                      methods=["AsK-LS default"], verbose=False)
    >>> [(row["protocol"], row["n_splits"]) for row in rows]
    [('random 60/40', 1), ('3 labels per class', 1)]
    """
    options = {"n_trials": n_trials, "data_home": data_home, "random_state": random_state,
               "methods": methods, "cache": cache, "recompute": recompute,
               "cached_only": cached_only, "n_threads": n_threads, "verbose": verbose}
    if not hasattr(options["cache"], "put"):
        from ._cells import CellCache

        options["cache"] = CellCache(cache)
    rows = run_directed(datasets, **options)
    if few_label_datasets:
        rows += run_directed(few_label_datasets, per_class=per_class, **options)
    return rows


_PROTOCOL_NOTE = (
    "Every method on the same splits, one split at a time, on this machine's CPU. Accuracy "
    "is micro-F1 on the test nodes, mean ± std over the splits; seconds per split include "
    "everything a method does on the split (AsK-LS's kernel selection; a GNN's "
    "preprocessing, training and prediction). Fixed splits: the GNNs train on the training "
    "nodes and stop early on the split's validation nodes, AsK-LS trains on the training "
    "nodes alone. Random 60/40 and labels-per-class splits: every method gets the same "
    "labelled nodes; the GNNs hold out 20 % of each class for early stopping, AsK-LS "
    "selects its kernel by cross-validation on all of them. Threads: torch threads of a GNN, "
    "BLAS threads of AsK-LS.")


def _spread(row, key):
    """"0.500 ± 0.100", or the value alone for one split (no spread to give)."""
    if row["n_splits"] == 1:
        return f"{row[key + '_mean']:.3f}"
    return f"{row[key + '_mean']:.3f} ± {row[key + '_std']:.3f}"


def _cell(row):
    if row.get("status") != "ok":
        return row.get("status", "")
    return (f"{_spread(row, 'accuracy')} "
            f"({_seconds(row['seconds_per_split'])}, {row['n_splits']})")


def _seconds(value):
    return f"{value:.2f} s" if value < 10 else f"{value:.0f} s"


def format_gnn(rows):
    """Markdown: one accuracy grid per protocol, the full table, the published figures.

    Examples
    --------
    >>> rows = [{"graph": "tiny", "method": "GCN", "status": "ok", "published": False,
    ...          "protocol": "fixed splits", "n_splits": 2, "accuracy_mean": 0.5,
    ...          "accuracy_std": 0.1, "macro_f1_mean": 0.4, "macro_f1_std": 0.1,
    ...          "seconds_per_split": 12.3, "threads": "torch 1"}]
    >>> print(format_gnn(rows).splitlines()[6])
    | tiny | 0.500 ± 0.100 (12 s, 2) |
    """
    rerun = [row for row in rows if not row.get("published") and "method" in row]
    protocols = list(dict.fromkeys(row["protocol"] for row in rerun))
    methods = list(dict.fromkeys(row["method"] for row in rerun))
    lines = [_PROTOCOL_NOTE, ""]
    for protocol in protocols:
        chosen = [row for row in rerun if row["protocol"] == protocol]
        graphs = list(dict.fromkeys(row["graph"] for row in chosen))
        here = [method for method in methods if any(row["method"] == method for row in chosen)]
        lines += [f"**{protocol}**: accuracy ± std (seconds per split, splits)", "",
                  "| graph | " + " | ".join(here) + " |", "|---" * (len(here) + 1) + "|"]
        for graph in graphs:
            cells = {row["method"]: _cell(row) for row in chosen if row["graph"] == graph}
            lines.append(f"| {graph} | " + " | ".join(cells.get(m, "") for m in here) + " |")
        lines.append("")
    missing = [row["graph"] for row in rows if "method" not in row and not row.get("published")]
    if missing:
        lines += [f"Data not available: {', '.join(dict.fromkeys(missing))}.", ""]
    lines += ["**Every cell**", "", "| graph | protocol (splits) | method | accuracy | macro-F1 "
              "| s / split | threads |", "|---|---|---|---|---|---|---|"]
    for row in rerun:
        if row.get("status") != "ok":
            lines.append(f"| {row['graph']} | {row['protocol']} | {row['method']} "
                         f"| {row.get('status')} | | | |")
            continue
        lines.append(f"| {row['graph']} | {row['protocol']} ({row['n_splits']}) "
                     f"| {row['method']} | {_spread(row, 'accuracy')} "
                     f"| {_spread(row, 'macro_f1')} "
                     f"| {row['seconds_per_split']:.2f} | {row.get('threads', '')} |")
    published = [row for row in rows if row.get("published")]
    if published:
        lines += ["", "**Published, not rerun** (other code, machines and in places other "
                  "splits):", "", "| graph | method | accuracy | protocol | source |",
                  "|---|---|---|---|---|"]
        lines += [f"| {row['graph']} | {row['method']} (published, not rerun) "
                  f"| {row['accuracy_mean']:g} | {row['protocol']} | {row['source']} |"
                  for row in published]
    lines += ["", "**Settings of the GNN peers** (authors' code):", ""]
    lines += [f"* {method}: {entry['graph']}; {entry['source']}."
              for method, entry in GNN_CONFIGS.items() if method in methods]
    return "\n".join(lines)
