"""Time every solver on one 10-class AsK-LS fit with a 10,000-node sparse graph kernel.

The kernel is the paper's in-degree normalised adjacency of a directed SBM graph
(10,000 nodes, average degree 10, 10 classes); all nodes are training nodes, so the
system has 20,002 unknowns and 10 right-hand sides. Each solver is run with and
without the authors' damped fallback (lambda = 1); coefficients are compared with the
dense LAPACK solution of the same run. ``batched`` solves the exact system by CG on the
block without the intercept rows (then eliminates them); ``batched-saddle`` is the same
solver forced onto its fallback, block MINRES on the whole saddle matrix, for
comparison. Prints a table and writes JSON.

Usage: python benchmarks/bench_solvers.py [--n-nodes 10000] [--skip-dense]
"""

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

from digraph_askls.datasets import make_directed_sbm
from digraph_askls.kernels import get_in_degree_kernel
from digraph_askls.linalg import SOLVERS, AsKLSSystem, NotPositiveDefinite, solve_system
from digraph_askls.linalg import _solve


def _saddle_only(*args, **kwargs):
    raise NotPositiveDefinite("benchmark: block MINRES on the saddle matrix")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-nodes", type=int, default=10_000)
    parser.add_argument("--gamma", type=float, default=0.5)
    parser.add_argument("--skip-dense", action="store_true")
    parser.add_argument("--out", default="docs/results/bench_solvers.json")
    args = parser.parse_args()

    adjacency, labels = make_directed_sbm(args.n_nodes, 10, 10, p_in=0.5, random_state=0)
    K = get_in_degree_kernel(adjacency)
    Y = -np.ones((args.n_nodes, 10))
    Y[np.arange(args.n_nodes), labels] = 1.0
    system = AsKLSSystem(K, args.gamma)
    rows = []
    reference = {}
    names = [name for name in SOLVERS if not (args.skip_dense and name == "dense")]
    names.insert(names.index("batched") + 1, "batched-saddle")
    for regularization in (None, 1.0):
        for name in names:
            deflated = _solve._solve_deflated
            if name == "batched-saddle":
                _solve._solve_deflated = _saddle_only
            start = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = solve_system(system, Y, solver=name.split("-")[0],
                                          regularization=regularization, rtol=1e-10)
            finally:
                _solve._solve_deflated = deflated
            seconds = time.perf_counter() - start
            key = "exact" if regularization is None else "damped"
            if name == names[0]:
                reference[key] = result.x
            deviation = float(np.abs(result.x - reference[key]).max()
                              / np.abs(reference[key]).max())
            rows.append(dict(problem=key, solver=name, seconds=seconds,
                             iterations=result.n_iter, info=result.info,
                             residual=float(result.residual_norm.max()),
                             deviation_from_first=deviation))
            print(f"{key:7s} {name:14s} {seconds:9.3f} s  iters {result.n_iter:5d}  "
                  f"residual {result.residual_norm.max():.1e}  dev {deviation:.1e}", flush=True)
    for key in ("exact", "damped"):
        base = next(r["seconds"] for r in rows if r["problem"] == key and r["solver"] == names[0])
        for row in rows:
            if row["problem"] == key:
                row["speedup_vs_" + names[0]] = base / row["seconds"]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(n_nodes=args.n_nodes, n_classes=10, gamma=args.gamma,
                                   rows=rows), indent=2))
    print(f"written {out}")


if __name__ == "__main__":
    main()
