"""Threaded against single-call sparse products with the links of a 1M-node digraph.

One step of a walk kernel adds ``A X + A^T X`` (the in-links ``A`` of a
``make_directed_sbm`` graph, 10^6 nodes, average degree 10: 1.0e7 stored entries each)
for dense float32 blocks of 10, 20 and 40 columns: once by SciPy in two calls, once by
the walk kernel's row blocks in ``n_threads`` threads, added into one array
(``digraph_askls.kernels._hops.LinkProducts``). Both results are compared entry by
entry, the median of ``--repeats`` runs is reported with the ratio, and the 1-minute
load average.

Usage: python benchmarks/bench_threads.py [--nodes 1000000] [--threads 2]
"""

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from scipy import sparse

from digraph_askls.datasets import make_directed_sbm
from digraph_askls.kernels._hops import LinkProducts, default_n_threads


def _median_seconds(function, repeats):
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        seconds.append(time.perf_counter() - start)
    return float(np.median(seconds)), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--threads", type=int, default=default_n_threads())
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default="docs/results/bench_threads.json")
    args = parser.parse_args()
    adjacency, _ = make_directed_sbm(args.nodes, 10, 10, p_in=0.5, random_state=0)
    out_links = sparse.csr_array(adjacency, dtype=np.float32)                # A^T
    in_links = out_links.T.tocsr()                                            # A
    links = LinkProducts(in_links, out_links, dtype=np.float32, n_threads=args.threads)
    rng = np.random.default_rng(0)
    rows = []
    print(f"nnz = {in_links.nnz:,} (each), threads = {args.threads}, "
          f"load = {os.getloadavg()[0]:.1f}")
    print(f"{'columns':>8} {'one call s':>11} {'threaded s':>11} {'speed-up':>9} {'equal':>6}")
    for k in (10, 20, 40):
        X = rng.random((links.shape[0], k), dtype=np.float32)

        def threaded_step():
            out = np.zeros_like(X)
            links.accumulate(out, X, X)
            return out

        single, expected = _median_seconds(lambda: in_links @ X + out_links @ X,
                                           args.repeats)
        threaded, got = _median_seconds(threaded_step, args.repeats)
        equal = bool(np.allclose(expected, got, rtol=1e-6, atol=0))
        rows.append(dict(columns=k, single_seconds=single, threaded_seconds=threaded,
                         speedup=single / threaded, equal=equal))
        print(f"{k:8d} {single:11.3f} {threaded:11.3f} {single / threaded:9.2f} {equal!s:>6}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(n_nodes=args.nodes, nnz=int(in_links.nnz),
                                   threads=args.threads, load=os.getloadavg()[0],
                                   rows=rows), indent=2))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
