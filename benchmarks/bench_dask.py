"""Overhead of the distributed kernel operator against the local solver, same iterations.

For each graph (Pubmed, directed SBMs of 10^5 and optionally 10^6 nodes; 60/40 split,
in-degree kernel, gamma = 1, the damped system with lambda = 1 as for Pubmed's singular
system) the batched solver runs first on the local CSR kernel, then on a
``DaskKernelOperator`` over a local 2-process cluster with the same ``maxiter``. The
table gives the seconds per iteration of both, their ratio (the overhead factor), the
largest relative deviation of the coefficients, and the local cost of one kernel
product per stored entry, which ``docs/scaling.md`` extrapolates from.

Usage: python benchmarks/bench_dask.py [--large] [--out docs/results/dask.json]
"""

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from digraph_askls.datasets import load_dataset, make_directed_sbm
from digraph_askls.distributed import DaskKernelOperator
from digraph_askls.model_selection import random_splits
from digraph_askls.kernels import get_in_degree_kernel, restrict_kernel
from digraph_askls.linalg import AsKLSSystem, solve_system

REPO = Path(__file__).resolve().parents[1]


def training_problem(adjacency, labels):
    _, train, _ = random_splits(labels, train_size=0.6, n_trials=1, random_state=0)[0]
    K = sp.csr_matrix(restrict_kernel(get_in_degree_kernel(adjacency), train, train))
    codes = labels[train]
    Y = -np.ones((codes.size, codes.max() + 1))
    Y[np.arange(codes.size), codes] = 1.0
    return K, Y


def product_seconds_per_nnz(K, k, repeats=5):
    X = np.random.default_rng(0).standard_normal((K.shape[0], k))
    KT = K.T
    start = time.perf_counter()
    for _ in range(repeats):
        K @ X
        KT @ X
    return (time.perf_counter() - start) / (2 * repeats) / K.nnz


def timed_solve(K, Y, maxiter):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fixed iteration budgets may stop short of rtol
        start = time.perf_counter()
        result = solve_system(AsKLSSystem(K, gamma=1.0), Y, solver="batched",
                              regularization=1.0, maxiter=maxiter)
    return result, time.perf_counter() - start


def bench(name, K, Y, client, maxiter):
    local, local_seconds = timed_solve(K, Y, maxiter)
    start = time.perf_counter()
    op = DaskKernelOperator(K, client)
    scatter_seconds = time.perf_counter() - start
    remote, remote_seconds = timed_solve(op, Y, local.n_iter)
    op.close()
    deviation = float(np.abs(remote.x - local.x).max() / np.abs(local.x).max())
    # One CG iteration on the damped normal equations applies K twice and K^T twice.
    return dict(
        graph=name, n_train=K.shape[0], nnz=int(K.nnz), n_classes=Y.shape[1],
        n_blocks=op.n_blocks, local_iterations=local.n_iter, dask_iterations=remote.n_iter,
        local_seconds=local_seconds, dask_seconds=remote_seconds,
        scatter_seconds=scatter_seconds,
        local_seconds_per_iteration=local_seconds / max(local.n_iter, 1),
        dask_seconds_per_iteration=remote_seconds / max(remote.n_iter, 1),
        overhead_factor=remote_seconds / local_seconds,
        max_relative_deviation=deviation,
        product_seconds_per_nnz=product_seconds_per_nnz(K, Y.shape[1]),
        kernel_products_per_iteration=4,
    )


def main():
    from dask.distributed import Client, LocalCluster

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="add a 10^6-node SBM")
    parser.add_argument("--data-home", default=str(REPO.parent / "shared" / "datasets"))
    parser.add_argument("--out", default=str(REPO / "docs" / "results" / "dask.json"))
    args = parser.parse_args()

    problems = []
    graph = load_dataset("pubmed", data_home=args.data_home, download=False)
    problems.append(("pubmed", *training_problem(graph.adjacency, graph.labels), None))
    sizes = [100_000] + ([1_000_000] if args.large else [])
    for n_nodes in sizes:
        adjacency, labels = make_directed_sbm(n_nodes, n_classes=4, avg_degree=8, p_in=0.7,
                                              random_state=0)
        problems.append((f"sbm-{n_nodes:.0e}", *training_problem(adjacency, labels), 30))

    rows = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        for name, K, Y, maxiter in problems:
            rows.append(bench(name, K, Y, client, maxiter))
    header = (f"{'graph':<10} {'n_train':>9} {'nnz':>10} {'iters':>6} {'local s/it':>11} "
              f"{'dask s/it':>10} {'overhead':>9} {'max dev':>9} {'ns/nnz':>7}")
    print(header)
    for r in rows:
        print(f"{r['graph']:<10} {r['n_train']:>9} {r['nnz']:>10} {r['local_iterations']:>6} "
              f"{r['local_seconds_per_iteration']:>11.4f} {r['dask_seconds_per_iteration']:>10.4f} "
              f"{r['overhead_factor']:>9.1f} {r['max_relative_deviation']:>9.1e} "
              f"{1e9 * r['product_seconds_per_nnz']:>7.2f}")
    meta = dict(cluster="LocalCluster, 2 worker processes x 1 thread, 127.0.0.1",
                solver="batched (block CG on the damped normal equations, lambda = 1)",
                split="60/40, random_state=0", kernel="in_degree", gamma=1.0)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(dict(setup=meta, results=rows), indent=2) + "\n")


if __name__ == "__main__":
    main()
