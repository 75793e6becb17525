"""Where explicit maps are cheaper to decompose than the block they form.

A training kernel with explicit maps ``K = U V^T`` (``m x d`` each, ``d < m``) can be
decomposed two ways (:func:`digraph_askls.models._decomposition.decompose`):

* ``thin``: the thin SVD of the maps (:class:`~digraph_askls.linalg.SpectralAsKLS` with
  ``factors``): a QR of each map, ``O(m d^2)``, and an SVD of the ``d x d`` core,
  ``O(d^3)``; one QR when ``V`` is ``U``;
* ``block``: the ``m x m`` block formed, then reduced to tridiagonal form for the folds
  where it is symmetric (:class:`~digraph_askls.linalg.TridiagonalLSSVM`), or decomposed
  by a full SVD where it is not: ``O(m^3)`` whatever ``d``.

For each ``d`` of ``--dims`` (as shares of ``--samples``) both are timed in the same
process on one BLAS thread, on Gaussian maps, for a symmetric kernel (``V = U``) and an
asymmetric one; the block's time includes forming it. The rule
:func:`~digraph_askls.models._decomposition.thin_route` is printed beside: the route it takes.

Usage: python benchmarks/bench_thin_route.py [--samples 2000] [--dims 0.125 0.25 0.5 0.75
       0.95] [--repeat 2] [--out docs/results/bench_thin_route.json]
"""

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from digraph_askls.linalg import SpectralAsKLS, TridiagonalLSSVM
from digraph_askls.models._decomposition import thin_route


def timed(build, repeat):
    """The median seconds of ``repeat`` calls of ``build``."""
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        build()
        seconds.append(time.perf_counter() - start)
    return float(np.median(seconds))


def measure(m, d, symmetric, repeat, rng):
    """Seconds of the two routes on ``m x d`` Gaussian maps, and the route the rule takes."""
    U = rng.standard_normal((m, d))
    V = U if symmetric else U + 0.1 * rng.standard_normal((m, d))
    thin = timed(lambda: SpectralAsKLS(factors=(U, V)), repeat)
    if symmetric:
        block = timed(lambda: TridiagonalLSSVM(U @ U.T), repeat)
    else:
        block = timed(lambda: SpectralAsKLS(U @ V.T), repeat)
    rule = "thin" if thin_route(m, d, symmetric, for_folds=True) else "block"
    return dict(samples=m, features=d, symmetric=symmetric, thin_seconds=thin,
                block_seconds=block, thin_over_block=thin / block,
                cheaper="thin" if thin < block else "block", rule=rule)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--dims", type=float, nargs="+",
                        default=[0.125, 0.25, 0.5, 0.625, 0.75, 0.95])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--out", default="docs/results/bench_thin_route.json")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    with threadpool_limits(1):
        for symmetric in (True, False):
            for share in args.dims:
                row = measure(args.samples, int(round(share * args.samples)), symmetric,
                              args.repeat, rng)
                rows.append(row)
                print(f"{'symmetric' if symmetric else 'asymmetric':>10} m={row['samples']} "
                      f"d={row['features']:>5}: thin {row['thin_seconds']:.2f} s, block "
                      f"{row['block_seconds']:.2f} s ({row['thin_over_block']:.2f}); "
                      f"rule: {row['rule']}", flush=True)
    out = dict(command=" ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
               machine=platform.processor() or platform.machine(), cpus=os.cpu_count(),
               threads=1, load=os.getloadavg()[0], rows=rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print("\n| kernel | m | d | thin s | block s | thin / block | rule takes |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {'symmetric' if row['symmetric'] else 'asymmetric'} | {row['samples']:,} | "
              f"{row['features']:,} | {row['thin_seconds']:.2f} | {row['block_seconds']:.2f} | "
              f"{row['thin_over_block']:.2f} | {row['rule']} |")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
