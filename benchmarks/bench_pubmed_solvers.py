"""Iterations and time per solver and preconditioner on Pubmed, paper protocol, one split.

One 60/40 split of Pubmed (seed 0); the paper's kernel (in-degree normalised 1-hop) on
the training nodes with ``gamma = 1``: the system is singular, so every solver solves the
damped normal equations with ``lambda = 1`` (the authors' fallback). Part 1 times each
solver with and without each preconditioner on the full training system (3 one-vs-rest
columns), coefficients compared with the first row. Part 2 times the whole paper
protocol (full solve, 10-fold stacking, prediction) with ``NodeClassifier(preset="paper")``
and reports the micro-F1. Prints tables and writes JSON.

Usage: python benchmarks/bench_pubmed_solvers.py [--data-home ../shared/datasets]
"""

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

from digraph_askls import NodeClassifier
from digraph_askls.datasets import load_dataset
from digraph_askls.model_selection import random_splits
from digraph_askls.kernels import get_in_degree_kernel, restrict_kernel
from digraph_askls.linalg import AsKLSSystem, solve_system

CASES = [("batched", None), ("batched", "jacobi"), ("lsqr", None), ("minres", None),
         ("minres", "jacobi"), ("gmres", None), ("gmres", "jacobi")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="docs/results/bench_pubmed_solvers.json")
    args = parser.parse_args()
    graph = load_dataset("pubmed", data_home=args.data_home, download=False)
    _, train, test = random_splits(graph.labels, 0.6, 1, random_state=0)[0]
    K = restrict_kernel(get_in_degree_kernel(graph.adjacency), train, train)
    codes = graph.labels[train]
    Y = -np.ones((train.size, graph.n_classes))
    Y[np.arange(train.size), codes] = 1.0
    system = AsKLSSystem(K, gamma=1.0)
    rows, reference = [], None
    print(f"{'solver':>8} {'preconditioner':>14} {'seconds':>8} {'iters':>6} {'max rel dev':>11}")
    for solver, preconditioner in CASES:
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = solve_system(system, Y, solver=solver, regularization=1.0, rtol=1e-8,
                                  preconditioner=preconditioner)
        seconds = time.perf_counter() - start
        reference = result.x if reference is None else reference
        deviation = float(np.abs(result.x - reference).max() / np.abs(reference).max())
        rows.append(dict(solver=solver, preconditioner=preconditioner, seconds=seconds,
                         iterations=result.n_iter, info=result.info,
                         max_relative_deviation=deviation))
        print(f"{solver:>8} {str(preconditioner):>14} {seconds:8.3f} {result.n_iter:6d} "
              f"{deviation:11.1e}", flush=True)
    base = rows[0]["seconds"]
    for row in rows:
        row["time_ratio_vs_batched"] = row["seconds"] / base

    labels = -np.ones(graph.n_nodes, dtype=int)
    labels[train] = graph.labels[train]
    protocol = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = NodeClassifier(preset="paper", random_state=0).fit(graph.adjacency, labels)
            predicted = model.predict(test)
        protocol.append(time.perf_counter() - start)
    micro_f1 = float(np.mean(predicted == graph.labels[test]))
    print(f"paper protocol, one split: best {min(protocol):.2f} s, median "
          f"{np.median(protocol):.2f} s of {args.repeats}; micro-F1 {micro_f1:.4f}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(n_train=int(train.size), regularization=1.0, rtol=1e-8,
                                   solvers=rows, protocol_seconds=protocol,
                                   micro_f1=micro_f1), indent=2))
    print(f"written {out}")


if __name__ == "__main__":
    main()
