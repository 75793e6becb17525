"""Weighted digraphs: the default beside each fixed way of reading the edge weights.

Three kinds of weighted directed SBM, 3 draws each (600 nodes, 4 classes, average
out-degree 8, 55 % of the edges inside the source's class and the rest to the next class,
``make_directed_sbm``; 30 % of the nodes labelled at random):

* ``noise``: counts independent of the classes, ``floor(pareto(0.8) + 1)`` per edge
  (heavy-tailed: the largest of a draw is in the tens of thousands);
* ``signal``: counts larger inside the classes, ``floor(pareto(1.5) + 1)``, times 8 on the
  edges inside a class;
* ``binary``: every edge weighs 1.

Each graph is fitted by ``NodeClassifier(random_state=0)`` (the default, which chooses the
weights) and by the same default with each transform fixed by hand: the default's
candidate recipes (``default_kernels``, with the arguments the default gives them) with
``weights="raw"``, ``"log1p"`` or ``"binary"``, passed as ``kernel=[...]``. The accuracy is
measured on the unlabelled nodes. The cost: the process CPU time of the default's fit on
the weighted graph against its fit on the same graph with 0/1 edges, the best of
``--repeats`` fits each, one BLAS thread; also on one larger graph of the first kind
(``--large`` nodes, 10 % labelled).

Writes ``weighted.json`` (every fit) and ``weighted.md`` (the page) into ``--out``.

Usage: PYTHONPATH=. python benchmarks/weighted_table.py [--draws 3] [--repeats 3]
                                                        [--out docs/results]
"""

import argparse
import json
import platform
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import sparse
from threadpoolctl import threadpool_limits

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.kernels._weights import WEIGHTS
from digraph_askls.models.selection import default_kernels
from digraph_askls.models.selection._weights import with_weights

KINDS = ("noise", "signal", "binary")
COMMAND = ("PYTHONPATH=. python benchmarks/weighted_table.py --draws 3 --repeats 3 "
           "--out docs/results")


def weighted_sbm(kind, draw, n_nodes=600, n_classes=4, labelled=0.3):
    """The weighted adjacency, the classes and the labelled nodes of one draw. The graph
    and the labelled nodes are the same for the three kinds of a draw; only the weights
    differ."""
    adjacency, classes = make_directed_sbm(n_nodes, n_classes, 8.0, p_in=0.55,
                                           random_state=draw)
    coo = sparse.coo_array(adjacency)
    rng = np.random.default_rng([draw, 1])
    if kind == "noise":
        weights = np.floor(rng.pareto(0.8, coo.nnz) + 1)
    elif kind == "signal":
        weights = np.floor(rng.pareto(1.5, coo.nnz) + 1)
        weights[classes[coo.row] == classes[coo.col]] *= 8
    else:
        weights = np.ones(coo.nnz)
    weighted = sparse.csr_array((weights, (coo.row, coo.col)), shape=adjacency.shape)
    train = np.sort(np.random.default_rng([draw, 2]).choice(
        n_nodes, int(round(labelled * n_nodes)), replace=False))
    return weighted, classes, train


def fixed_recipes(train_codes, n_nodes, weights):
    """The default's candidates (no node features) with ``weights`` fixed."""
    counts = np.bincount(train_codes)
    recipes = default_kernels(train_codes.size, False, n_nodes=n_nodes,
                              labels_per_class=float(np.median(counts[counts > 0])))
    return [with_weights(recipe, weights) for recipe in recipes]


def fit(graph, known, repeats=1, **params):
    """The fitted model and the least CPU time of ``repeats`` fits."""
    best = np.inf
    for _ in range(repeats):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.process_time()
            model = NodeClassifier(random_state=0, **params).fit(graph, known)
            best = min(best, time.process_time() - start)
    return model, best


def large_draw(n_nodes, repeats):
    """The cost at scale: the first kind on ``n_nodes`` nodes, 10 % labelled, draw 0."""
    weighted, classes, train = weighted_sbm("noise", 0, n_nodes=n_nodes, labelled=0.1)
    known = np.full(classes.size, -1)
    known[train] = classes[train]
    test = np.setdiff1d(np.arange(classes.size), train)
    model, seconds = fit(weighted, known, repeats)
    binary, binary_seconds = fit(sparse.csr_array(weighted > 0, dtype=np.float64), known,
                                 repeats)
    return {"kind": "noise", "n_nodes": n_nodes, "labelled": 0.1,
            "default": float(np.mean(model.predict()[test] == classes[test])),
            "binary_default": float(np.mean(binary.predict()[test] == classes[test])),
            "kernel": " ".join(repr(model.selection_["kernel"]).split()),
            "fit_seconds": seconds, "binary_fit_seconds": binary_seconds}


def one_draw(kind, draw, repeats):
    weighted, classes, train = weighted_sbm(kind, draw)
    known = np.full(classes.size, -1)
    known[train] = classes[train]
    test = np.setdiff1d(np.arange(classes.size), train)
    model, seconds = fit(weighted, known, repeats)
    _, binary_seconds = fit(sparse.csr_array(weighted > 0, dtype=np.float64), known, repeats)
    row = {"kind": kind, "draw": draw, "n_edges": int(weighted.nnz),
           "max_weight": float(weighted.data.max()),
           "default": float(np.mean(model.predict()[test] == classes[test])),
           "kernel": " ".join(repr(model.selection_["kernel"]).split()),
           "screen": model.selection_.get("weights_screen"),
           "chosen": (None if model.selection_.get("weights_screen") is None else
                      max(model.selection_["weights_screen"],
                          key=model.selection_["weights_screen"].get)),
           "fit_seconds": seconds, "binary_fit_seconds": binary_seconds}
    for name in WEIGHTS:
        fixed, fixed_seconds = fit(weighted, known, 1,
                                   kernel=fixed_recipes(classes[train], classes.size, name))
        row[name] = float(np.mean(fixed.predict()[test] == classes[test]))
        row[f"{name}_kernel"] = " ".join(repr(fixed.selection_["kernel"]).split())
        row[f"{name}_fit_seconds"] = fixed_seconds
    return row


def page(rows, large=None):
    """The results page, in markdown."""
    names = {"noise": "counts, not of the classes", "signal": "counts, of the classes",
             "binary": "0/1"}
    shown = {"raw": "raw", "log1p": "log1p", "binary": "0/1"}
    lines = [
        "# Weighted digraphs: the default beside each fixed reading of the weights", "",
        "Directed SBMs of 600 nodes in 4 classes, average out-degree 8, 55 % of the edges "
        "inside the source's class (the rest to the next class), 30 % of the nodes labelled "
        "at random; 3 draws, the same graphs and labelled nodes for the three kinds of "
        "weights of a draw:", "",
        "- *counts, not of the classes*: `floor(pareto(0.8) + 1)` on every edge, "
        "heavy-tailed (the largest of the draws: "
        + ", ".join(f"{row['max_weight']:,.0f}" for row in rows if row["kind"] == "noise")
        + ");",
        "- *counts, of the classes*: `floor(pareto(1.5) + 1)`, times 8 on the edges inside "
        "a class;",
        "- *0/1*: every edge weighs 1.", "",
        "Accuracy on the unlabelled nodes, mean over the draws (smallest and largest in "
        "brackets). *Default*: `NodeClassifier()`, which chooses how the weights enter "
        "([user guide](../guide/weighted.md)); *raw*, *log1p*, *0/1*: the same default with "
        "the transform fixed by hand (its candidate recipes with `weights=\"raw\"`, "
        "`\"log1p\"` or `\"binary\"`).", "",
        "| edge weights | default | raw | log1p | 0/1 | chosen |",
        "|---|---|---|---|---|---|"]

    def cell(values):
        return f"{np.mean(values):.3f} ({min(values):.3f}-{max(values):.3f})"

    kinds = [kind for kind in KINDS if any(row["kind"] == kind for row in rows)]
    for kind in kinds:
        mine = [row for row in rows if row["kind"] == kind]
        chosen = [shown.get(row["chosen"], "not screened") for row in mine]
        counts = {name: chosen.count(name) for name in dict.fromkeys(chosen)}
        lines.append(
            f"| {names[kind]} | {cell([row['default'] for row in mine])} | "
            + " | ".join(cell([row[name] for row in mine]) for name in WEIGHTS) + " | "
            + ", ".join(f"{name} {count} of {len(mine)}" for name, count in counts.items())
            + " |")
    lines += [
        "", "Read as they are, heavy-tailed counts let one edge drown a node's other links in "
        "every degree normalisation, walk and profile. The default's screen "
        "(`selection_[\"weights_screen\"]`) drops them, and keeps the counts that carry the "
        "classes.", "",
        "The cost: the process CPU time of the default's fit on the weighted graph and on "
        "the same graph with 0/1 edges (the same edges, each weighing 1), the best of three "
        "fits each, "
        "one BLAS thread, mean over the draws. On the 0/1 graphs both are the same fit "
        "(nothing is screened).", "",
        "| edge weights | fit s, weighted | fit s, 0/1 edges | ratio (largest) |",
        "|---|---|---|---|"]
    for kind in kinds:
        mine = [row for row in rows if row["kind"] == kind]
        ratios = [row["fit_seconds"] / row["binary_fit_seconds"] for row in mine]
        lines.append(f"| {names[kind]} | {np.mean([r['fit_seconds'] for r in mine]):.2f} | "
                     f"{np.mean([r['binary_fit_seconds'] for r in mine]):.2f} | "
                     f"{np.mean(ratios):.2f} ({max(ratios):.2f}) |")
    if large is not None:
        lines.append(
            f"| counts, not of the classes, {large['n_nodes']:,} nodes, 10 % labelled "
            f"(draw 0) | {large['fit_seconds']:.2f} | {large['binary_fit_seconds']:.2f} | "
            f"{large['fit_seconds'] / large['binary_fit_seconds']:.2f} |")
    lines += [
        "", "Times from a 2-core machine shared with other jobs: compare them as ratios.", "",
        "Made by (about 4 CPU-minutes), from the repository root:", "",
        f"```\n{COMMAND}\n```", "",
        "`weighted.json` holds every fit: the kernel chosen, the screen's held-out accuracy "
        "of each transform and the kernel of each fixed transform."]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--kinds", nargs="+", default=list(KINDS))
    parser.add_argument("--large", type=int, default=100_000,
                        help="nodes of the one larger graph timed (0: none)")
    parser.add_argument("--out", default="docs/results")
    args = parser.parse_args()
    out = Path(args.out)
    rows = []
    with threadpool_limits(1):
        for kind in args.kinds:
            for draw in range(args.draws):
                row = one_draw(kind, draw, args.repeats)
                rows.append(row)
                print(f"{kind} {draw}: default {row['default']:.3f} ({row['chosen']}), raw "
                      f"{row['raw']:.3f}, log1p {row['log1p']:.3f}, 0/1 {row['binary']:.3f}; "
                      f"fit {row['fit_seconds']:.2f} s, 0/1 edges "
                      f"{row['binary_fit_seconds']:.2f} s", flush=True)
                (out / "weighted.json").write_text(json.dumps(
                    {"machine": platform.processor() or platform.machine(),
                     "command": COMMAND, "rows": rows}, indent=1) + "\n")
        large = large_draw(args.large, args.repeats) if args.large else None
    if large is not None:
        print(f"{args.large} nodes: fit {large['fit_seconds']:.2f} s, 0/1 edges "
              f"{large['binary_fit_seconds']:.2f} s, {large['kernel']}", flush=True)
    (out / "weighted.json").write_text(json.dumps(
        {"machine": platform.processor() or platform.machine(), "command": COMMAND,
         "rows": rows, "large": large}, indent=1) + "\n")
    (out / "weighted.md").write_text(page(rows, large))
    print(page(rows, large))


if __name__ == "__main__":
    main()
