"""What the per-graph selection costs: the default against the single walk kernel.

For each graph, on the same splits (the dataset's fixed splits where it ships them, else
random 60/40 splits of the labelled nodes), times fit and predict of

* ``NodeClassifier()``: the kernel family and gamma chosen per split by cross-validation,
  with the node attributes where the data has them;
* ``NodeClassifier(kernel="ppr", gamma=0.01, merge="joint")``: the single configuration
  that was the default before the selection (the asymmetric 20-hop walk kernel, joint
  stacking on 5 folds), structure only;
* scikit-network's ``PageRankClassifier`` on the undirected graph (the peer).

Every method runs in this process, one after the other on each split, so the ratios are
measured under the same load. Prints a markdown table (accuracy, seconds per split,
ratio of the default's time to the single kernel's and to the peer's) and writes
``docs/results/bench_selection.json``.

Usage: python benchmarks/bench_selection.py [--datasets chameleon cora ...] [--trials 10]
                                             [--data-home ../shared/datasets]
"""

import argparse
import json
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # this checkout's package
from digraph_askls import NodeClassifier  # noqa: E402
from digraph_askls.datasets import load_dataset  # noqa: E402
from digraph_askls.model_selection import fixed_splits, random_splits  # noqa: E402
from digraph_askls.peers import PeerClassifier  # noqa: E402

METHODS = ("default (selection)", "walk kernel alone (the former default)", "PageRank peer")


def _fit_predict(method, graph, train, test, seed):
    known = np.full(graph.n_nodes, -1)
    known[train] = graph.labels[train]
    start = time.perf_counter()
    if method == METHODS[0]:
        model = NodeClassifier(random_state=seed).fit(graph.adjacency, known,
                                                      features=graph.features)
    elif method == METHODS[1]:
        model = NodeClassifier(kernel="ppr", gamma=0.01, merge="joint",
                               random_state=seed).fit(graph.adjacency, known)
    else:
        model = PeerClassifier("pagerank").fit(graph.adjacency, known)
    predicted = model.predict(test)
    return float(np.mean(predicted == graph.labels[test])), time.perf_counter() - start


def run(datasets, trials, data_home):
    rows = []
    for name in datasets:
        graph = load_dataset(name, data_home=data_home, download=False)
        splits = (fixed_splits(graph)[:trials] if graph.splits
                  else random_splits(graph.labels, 0.6, trials, random_state=0))
        results = {method: ([], []) for method in METHODS}
        for seed, train, test in splits:
            for method in METHODS:
                accuracy, seconds = _fit_predict(method, graph, train, test, seed[1])
                results[method][0].append(accuracy)
                results[method][1].append(seconds)
        default_time = np.mean(results[METHODS[0]][1])
        for method in METHODS:
            accuracies, seconds = results[method]
            rows.append({"graph": name, "method": method, "trials": len(splits),
                         "attributes": graph.features is not None,
                         "accuracy_mean": float(np.mean(accuracies)),
                         "accuracy_std": float(np.std(accuracies)),
                         "seconds_per_split": float(np.mean(seconds)),
                         "seconds": [float(s) for s in seconds],
                         "default_time_ratio": float(default_time / np.mean(seconds))})
    return rows


def table(rows):
    lines = ["| graph | method | accuracy | s / split | default's time / this |",
             "|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['graph']} | {row['method']} | {row['accuracy_mean']:.3f} ± "
                     f"{row['accuracy_std']:.3f} | {row['seconds_per_split']:.2f} | "
                     f"{row['default_time_ratio']:.1f}× |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+",
                        default=["chameleon", "texas", "wisconsin", "cora", "citeseer", "pubmed"])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--out", default="docs/results/bench_selection.json")
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = run(args.datasets, args.trials, args.data_home)
    print(table(rows))
    Path(args.out).write_text(json.dumps({"machine": platform.machine(), "rows": rows},
                                         indent=2))


if __name__ == "__main__":
    main()
