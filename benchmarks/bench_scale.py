"""Fit+predict time, peak memory and accuracy from 10^4 to 10^7 nodes, beside PageRank.

Graphs: ``make_directed_sbm`` (average degree 10, 10 classes, p_in = 0.5), 60 % of the
nodes labelled (``--labelled``: one or more fractions, e.g. ``0.01 0.05 0.1 0.6``),
accuracy on the others; with ``--features``, also the same graphs
with 128 node attributes (class means of norm ``--signal`` per coordinate plus unit
Gaussian noise: the attributes alone classify about half the nodes). Methods:
``askls`` is the default ``NodeClassifier()`` (with the attributes on the feature
graphs), ``pagerank`` scikit-network's ``PageRankClassifier()`` on the same graph in the
same run (its defaults: one worker process); on the feature graphs also
``linear_reference``, scikit-learn's ``LogisticRegression(C=10, max_iter=500)`` on
``experiments._protocols.linear_reference_features`` (the attributes and their out-,
in- and two-step undirected means; building them is timed); ``--methods`` adds
``askls_large`` (``preset="large"``), ``askls_paper``, ``pagerank_all_cores``
(``n_jobs=-1``) and ``pagerank_undirected`` (PageRank on ``A + A^T``, the sum timed).

PageRank is the time baseline, not an accuracy one: on this graph its accuracy is below
chance (0.09 with 10 classes), and not by a misuse (the seeds are the labelled nodes'
classes, -1 elsewhere, as scikit-network reads them). Its personalised walks follow the
edges, and the edges of class ``c`` reach ``c`` and ``c + 1`` alike: a node of class
``c + 1`` hears from its own class's seeds and from class ``c``'s, which also flood
class ``c + 1``'s other in-neighbours, so class ``c`` wins. On the 10^4-node graph it
predicts the class before the true one for 85 % of the test nodes; on the transposed
graph the class after it (84 %); on ``A + A^T`` it is right for 90 %
(``--methods pagerank_undirected``).

Every (graph, method) runs in its own subprocess; the libraries are imported before the
clock starts, which then covers fit and predict. Reported per run: seconds, the peak
resident memory of the process (``ru_maxrss``, graph included) and of its largest child
(PageRank's worker), the 1-minute load average before it (the machine is shared) and the
accuracy; ``--repeat`` runs the methods of a graph that many times in turn, and the
table gives the median time and the median ratio to PageRank of the same rounds (the
JSON also the median ratio to the linear reference where it ran).
10^7 nodes (10^8 edges) run only with ``--max-nodes 10000000`` and when the machine has
the memory (``--min-free-gib``). Progress bars of the long steps go to the terminal
unless ``--quiet``.

Usage: python benchmarks/bench_scale.py [--max-nodes 1000000] [--repeat 3] [--features]
       [--labelled 0.01 0.05 0.1 0.6] [--out docs/results/bench_labels.json]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

SIZES = (10_000, 100_000, 1_000_000, 10_000_000)

CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np
from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from sknetwork.classification import PageRankClassifier
from sklearn.linear_model import LogisticRegression
from experiments._protocols import linear_reference_features

n, method, n_features, signal, quiet, labelled = (
    int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5] == "1",
    float(sys.argv[6]))
adjacency, labels = make_directed_sbm(n, 10, 10, p_in=0.5, random_state=0)
features = None
if n_features:
    rng = np.random.default_rng(1)
    centers = rng.standard_normal((10, n_features))
    features = (signal * centers[labels]
                + rng.standard_normal((n, n_features), dtype=np.float32)).astype(np.float32)
rng = np.random.default_rng(0)
test = rng.permutation(n)[: n - int(round(labelled * n))]
seeds = labels.copy()
seeds[test] = -1
warnings.simplefilter("ignore")
start = time.perf_counter()
if method.startswith("pagerank"):
    model = PageRankClassifier(n_jobs=-1 if method == "pagerank_all_cores" else None)
    model.fit(adjacency + adjacency.T if method == "pagerank_undirected" else adjacency,
              seeds)
    predicted = np.asarray(model.predict())[test]
    preset = "-"
elif method == "linear_reference":
    labelled = np.setdiff1d(np.arange(n), test)
    Z = linear_reference_features(adjacency, features)
    model = LogisticRegression(C=10, max_iter=500).fit(Z[labelled], labels[labelled])
    predicted = model.predict(Z[test])
    preset = "-"
else:
    preset = {"askls": "auto", "askls_large": "large", "askls_paper": "paper"}[method]
    model = NodeClassifier(preset=preset, random_state=0, verbose=not quiet)
    model.fit(adjacency, seeds, features=features)
    predicted = model.predict(test)
    preset = f"{model.preset_}/{model.selection_['engine']}"
seconds = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20        # KiB -> GiB
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
print(json.dumps(dict(seconds=seconds, peak_gib=usage, peak_child_gib=children,
                      preset=preset, accuracy=float(np.mean(predicted == labels[test])))))
"""


def available_gib():
    """MemAvailable of /proc/meminfo in GiB (None elsewhere)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 2**20
    except OSError:
        return None
    return None


def run_child(n, method, n_features, args, labelled=0.6):
    load = os.getloadavg()[0]
    command = [sys.executable, "-c", CHILD, str(n), method, str(n_features),
               str(args.signal), "1" if args.quiet else "0", str(labelled)]
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=True,
                              timeout=args.timeout)
        return dict(load_before=load, **json.loads(done.stdout.splitlines()[-1]))
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        return dict(load_before=load, error=type(exc).__name__)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-nodes", type=int, default=1_000_000)
    parser.add_argument("--min-nodes", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--methods", nargs="*", default=[],
                        help="more methods: askls_large askls_paper pagerank_all_cores "
                             "pagerank_undirected")
    parser.add_argument("--features", action="store_true",
                        help="also the graphs with node attributes")
    parser.add_argument("--features-only", action="store_true",
                        help="only the graphs with node attributes (with --features)")
    parser.add_argument("--feature-max-nodes", type=int, default=1_000_000)
    parser.add_argument("--n-features", type=int, default=128)
    parser.add_argument("--signal", type=float, default=0.15)
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--min-free-gib", type=float, default=18.0,
                        help="memory needed before a 10^7-node run")
    parser.add_argument("--labelled", type=float, nargs="+", default=[0.6],
                        help="fractions of labelled nodes, each a graph of its own")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument("--out", default="docs/results/bench_scale.json")
    args = parser.parse_args()
    methods = ["pagerank", "askls", *args.methods]
    graphs = [] if args.features_only else [
        (n, 0, f) for n in SIZES if args.min_nodes <= n <= args.max_nodes
        for f in args.labelled]
    if args.features:
        graphs += [(n, args.n_features, f) for n in SIZES
                   if args.min_nodes <= n <= min(args.max_nodes, args.feature_max_nodes)
                   for f in args.labelled]
    rows, table = [], []
    for n, n_features, labelled in graphs:
        if n >= 10_000_000:
            free = available_gib()
            print(f"memory available before 10^7 nodes: {free:.1f} GiB", flush=True)
            if free is not None and free < args.min_free_gib:
                print(f"skipped: less than {args.min_free_gib} GiB available", flush=True)
                continue
        graph_methods = methods + (["linear_reference"] if n_features else [])
        runs = {method: [] for method in graph_methods}
        for round_ in range(args.repeat):
            for method in graph_methods:
                if method == "askls_paper" and n >= 1_000_000:
                    continue
                row = dict(n_nodes=n, n_features=n_features, labelled=labelled, method=method,
                           round=round_, **run_child(n, method, n_features, args, labelled))
                runs[method].append(row)
                rows.append(row)
                status = (f"{row['seconds']:.2f} s, {row['peak_gib']:.2f} GiB, "
                          f"accuracy {row['accuracy']:.4f}" if "seconds" in row
                          else row["error"])
                print(f"{n:>9} x {n_features:>3} {labelled:>5.0%} {method:>18} round {round_}: "
                      f"{status} "
                      f"(load {row['load_before']:.1f})", flush=True)
        base = [r.get("seconds") for r in runs["pagerank"]]
        reference = [r.get("seconds") for r in runs.get("linear_reference", [])]
        for method in graph_methods:
            done = [r for r in runs[method] if "seconds" in r]
            if not done:
                continue
            ratios = [r["seconds"] / b for r, b in zip(runs[method], base)
                      if "seconds" in r and b]
            to_reference = [r["seconds"] / b for r, b in zip(runs[method], reference)
                            if "seconds" in r and b]
            table.append(dict(
                n_nodes=n, n_features=n_features, labelled=labelled, method=method,
                preset=done[0]["preset"],
                seconds=statistics.median(r["seconds"] for r in done),
                ratio=statistics.median(ratios) if ratios else None,
                ratios=ratios,
                ratio_to_linear_reference=(statistics.median(to_reference)
                                           if to_reference else None),
                peak_gib=max(r["peak_gib"] for r in done),
                peak_child_gib=max(r["peak_child_gib"] for r in done),
                accuracy=statistics.median(r["accuracy"] for r in done)))
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(dict(avg_degree=10, n_classes=10, p_in=0.5,
                                       labelled=args.labelled,
                                       signal=args.signal, repeat=args.repeat,
                                       summary=table, runs=rows), indent=2) + "\n")
    print("\n| nodes | features | labelled | method | preset/engine | seconds | / PageRank | "
          "/ linear model | peak GiB (child) | accuracy |\n"
          "|---|---|---|---|---|---|---|---|---|---|")
    for row in table:
        ratio = "-" if row["ratio"] is None else f"{row['ratio']:.2f}"
        linear = ("-" if row["ratio_to_linear_reference"] is None
                  else f"{row['ratio_to_linear_reference']:.2f}")
        print(f"| {row['n_nodes']:,} | {row['n_features'] or '-'} | {row['labelled']:.0%} | "
              f"{row['method']} | "
              f"{row['preset']} | {row['seconds']:.2f} | {ratio} | {linear} | "
              f"{row['peak_gib']:.2f} ({row['peak_child_gib']:.2f}) | {row['accuracy']:.4f} |")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
