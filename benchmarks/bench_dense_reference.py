"""Fit time of the library's solver against the paper's dense reference, 500-10,000 nodes.

The reference builds the paper's label-dependent system (``H = diag(y) K diag(y)``)
densely and solves it with ``numpy.linalg.solve``, as the authors' code does. The
library solves the label-free system with its default solver (``solver="auto"``, sparse
kernel). Kernel: the in-degree normalised adjacency of a directed SBM graph (average
degree 10, 10 classes, p_in = 0.5), one binary task (class 0 against the rest, the
dense reference would otherwise take one solve per class), ``gamma = 0.5`` so that the
system is non-singular (the exact solve, regularization=None, would raise otherwise); all
nodes training nodes. Prints a table and writes JSON.

Usage: python benchmarks/bench_dense_reference.py [--max-nodes 10000]
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np

from digraph_askls.datasets import make_directed_sbm
from digraph_askls.kernels import get_in_degree_kernel
from digraph_askls.linalg import AsKLSSystem, solve_system


def dense_reference(K, y, gamma):
    """The paper's eq. (linear_system) built densely and solved by LAPACK (``gesv``)."""
    m = y.size
    H = (y[:, None] * K.toarray()) * y[None, :]
    A = np.zeros((2 * m + 2, 2 * m + 2))
    A[0, 2:2 + m] = y
    A[1, 2 + m:] = y
    A[2:2 + m, 0] = y
    A[2 + m:, 1] = y
    A[2:2 + m, 2:2 + m] = np.eye(m) / gamma
    A[2:2 + m, 2 + m:] = H
    A[2 + m:, 2:2 + m] = H.T
    A[2 + m:, 2 + m:] = np.eye(m) / gamma
    r = np.concatenate([[0.0, 0.0], np.ones(2 * m)])
    x = np.linalg.solve(A, r)
    return np.concatenate([x[:2], y * x[2:2 + m], y * x[2 + m:]])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-nodes", type=int, default=10_000)
    parser.add_argument("--gamma", type=float, default=0.5)
    parser.add_argument("--out", default="docs/results/bench_dense_reference.json")
    args = parser.parse_args()
    rows = []
    print(f"{'nodes':>6} {'dense s':>9} {'library s':>10} {'speed-up':>9} {'max rel dev':>12}")
    for n in [n for n in (500, 1000, 2000, 5000, 10_000) if n <= args.max_nodes]:
        adjacency, labels = make_directed_sbm(n, 10, 10, p_in=0.5, random_state=0)
        K = get_in_degree_kernel(adjacency)
        y = np.where(labels == 0, 1.0, -1.0)
        start = time.perf_counter()
        reference = dense_reference(K, y, args.gamma)
        dense_seconds = time.perf_counter() - start
        start = time.perf_counter()
        result = solve_system(AsKLSSystem(K, args.gamma), y, regularization=None)
        seconds = time.perf_counter() - start
        deviation = float(np.abs(result.x[:, 0] - reference).max() / np.abs(reference).max())
        rows.append(dict(n_nodes=n, system_size=2 * n + 2, dense_seconds=dense_seconds,
                         library_seconds=seconds, speedup=dense_seconds / seconds,
                         solver=result.solver, iterations=result.n_iter,
                         max_relative_deviation=deviation))
        print(f"{n:6d} {dense_seconds:9.2f} {seconds:10.3f} {dense_seconds / seconds:9.0f} "
              f"{deviation:12.1e}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(gamma=args.gamma, task="class 0 vs rest",
                                   kernel="in_degree", rows=rows), indent=2))
    print(f"written {out}")


if __name__ == "__main__":
    main()
