"""Fit+predict time, peak memory and accuracy from 10^4 to 10^6 nodes, beside PageRank.

Graphs: ``make_directed_sbm`` (average degree 10, 10 classes, p_in = 0.5), 60 % of the
nodes labelled, accuracy on the other 40 %. Methods: the default ``NodeClassifier()``
(``preset="auto"``: the defaults below 2 million edges, ``"large"`` from there on),
``NodeClassifier(preset=None)`` (the defaults at every size), ``preset="large"``,
``preset="paper"`` and scikit-network's ``PageRankClassifier`` on the same graph in the
same run, with its default ``n_jobs=None`` (one process) and with ``n_jobs=-1`` (all cores,
as AsK-LS's threaded sparse products use them). Every (size, method) pair runs
in its own subprocess, whose peak resident memory (``ru_maxrss``) is reported, with the
1-minute load average before it starts (the machine is shared). Prints a table and
writes JSON.

Usage: python benchmarks/bench_scale.py [--max-nodes 1000000] [--skip askls_paper@1000000]
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

METHODS = ("pagerank", "pagerank_all_cores", "askls_auto", "askls_large", "askls_default", "askls_paper")

CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np
from digraph_askls.datasets import make_directed_sbm
n, method = int(sys.argv[1]), sys.argv[2]
adjacency, labels = make_directed_sbm(n, 10, 10, p_in=0.5, random_state=0)
rng = np.random.default_rng(0)
test = rng.permutation(n)[: int(0.4 * n)]
seeds = labels.copy()
seeds[test] = -1
warnings.simplefilter("ignore")
start = time.perf_counter()
if method.startswith("pagerank"):
    from sknetwork.classification import PageRankClassifier
    model = PageRankClassifier(n_jobs=-1 if method == "pagerank_all_cores" else None)
    model.fit(adjacency, seeds)
    predicted = np.asarray(model.predict())[test]
else:
    from digraph_askls import NodeClassifier
    preset = {"askls_paper": "paper", "askls_large": "large", "askls_default": None,
              "askls_auto": "auto"}[method]
    model = NodeClassifier(preset=preset, random_state=0).fit(adjacency, seeds)
    predicted = model.predict(test)
    resolved = model.preset_
seconds = time.perf_counter() - start
resolved = locals().get("resolved", "-")
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20   # KiB -> GiB
print(json.dumps(dict(seconds=seconds, peak_gib=peak, preset=resolved,
                      accuracy=float(np.mean(predicted == labels[test])))))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-nodes", type=int, default=1_000_000)
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--out", default="docs/results/bench_scale.json")
    parser.add_argument("--skip", nargs="*", default=[],
                        help="method@nodes pairs not to run, e.g. askls_paper@1000000")
    args = parser.parse_args()
    rows = []
    print(f"{'nodes':>8} {'method':>18} {'preset':>7} {'seconds':>9} {'peak GiB':>9} "
          f"{'accuracy':>9} {'/ PageRank':>11} {'/ PR all cores':>15} {'load':>5}")
    for n in [n for n in (10_000, 100_000, 1_000_000) if n <= args.max_nodes]:
        batch = []
        for method in METHODS:
            if f"{method}@{n}" in args.skip:
                batch.append(dict(n_nodes=n, method=method, error="skipped"))
                continue
            load = os.getloadavg()[0]
            try:
                done = subprocess.run([sys.executable, "-c", CHILD, str(n), method],
                                      capture_output=True, text=True, check=True,
                                      timeout=args.timeout)
                row = dict(n_nodes=n, method=method, load_before=load,
                           **json.loads(done.stdout.splitlines()[-1]))
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
                row = dict(n_nodes=n, method=method, load_before=load,
                           error=type(exc).__name__)
            batch.append(row)
        base = next((r.get("seconds") for r in batch if r["method"] == "pagerank"), None)
        cores = next((r.get("seconds") for r in batch
                      if r["method"] == "pagerank_all_cores"), None)
        for row in batch:
            if "seconds" in row and base:
                row["time_ratio_vs_pagerank"] = row["seconds"] / base
                if cores:
                    row["time_ratio_vs_pagerank_all_cores"] = row["seconds"] / cores
                print(f"{n:8d} {row['method']:>18} {str(row['preset']):>7} "
                      f"{row['seconds']:9.2f} {row['peak_gib']:9.2f} {row['accuracy']:9.3f} "
                      f"{row['time_ratio_vs_pagerank']:11.2f} "
                      f"{row.get('time_ratio_vs_pagerank_all_cores', float('nan')):15.2f} "
                      f"{row['load_before']:5.1f}", flush=True)
            else:
                print(f"{n:8d} {row['method']:>18} failed: {row.get('error')}", flush=True)
        rows.extend(batch)
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(dict(avg_degree=10, n_classes=10, p_in=0.5,
                                       labelled=0.6, rows=rows), indent=2))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
