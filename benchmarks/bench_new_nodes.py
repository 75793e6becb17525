"""Nodes held out of the fit and classified as new nodes, against the transductive fit.

On a dataset with node attributes (Cora by default), for each seed: 10 % of the nodes are
held out, 60 % of the others labelled. ``NodeClassifier(random_state=0)`` is fitted once
on the whole graph (held-out nodes unlabelled: the transductive fit) and once on the
graph without the held-out nodes; the held-out nodes are then added back at once and
classified from the grown graph (``predict(nodes, graph=..., features=...)``). Prints
and writes (``docs/results/new_nodes.json``) both accuracies on the held-out nodes and
their difference per seed. ``tests/test_new_nodes.py`` checks seed 0 within 0.02.

Usage: python benchmarks/bench_new_nodes.py [--dataset cora] [--seeds 5]
                                            [--data-home ../shared/datasets] [--out docs/results]
"""

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from digraph_askls import NodeClassifier
from digraph_askls.datasets import load_dataset


def one_seed(graph, seed):
    n = graph.n_nodes
    rng = np.random.default_rng(seed)
    held = rng.random(n) < 0.1
    labels = np.where((rng.random(n) < 0.6) & ~held, graph.labels, -1)
    new, kept = np.flatnonzero(held), np.flatnonzero(~held)
    start = time.perf_counter()
    transductive = NodeClassifier(random_state=0).fit(graph.adjacency, labels,
                                                      features=graph.features)
    seconds_transductive = time.perf_counter() - start
    start = time.perf_counter()
    inductive = NodeClassifier(random_state=0).fit(
        graph.adjacency[kept][:, kept], labels[kept], features=graph.features[kept],
        nodelist=list(kept))
    predicted = inductive.predict(new, graph=graph.adjacency, features=graph.features)
    seconds_new = time.perf_counter() - start
    accuracy = float(np.mean(transductive.predict(new) == graph.labels[new]))
    new_accuracy = float(np.mean(predicted == graph.labels[new]))
    return {"seed": seed, "held_out": int(new.size), "labelled": int((labels >= 0).sum()),
            "kernel": repr(inductive.selection_["kernel"]),
            "transductive_accuracy": round(accuracy, 4),
            "new_node_accuracy": round(new_accuracy, 4),
            "difference": round(new_accuracy - accuracy, 4),
            "seconds": {"transductive fit": round(seconds_transductive, 1),
                        "fit without them and predict them as new": round(seconds_new, 1)}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="cora")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--out", default=None, help="folder for new_nodes.json")
    args = parser.parse_args()
    graph = load_dataset(args.dataset, data_home=args.data_home, download=False)
    runs = []
    for seed in range(args.seeds):
        runs.append(one_seed(graph, seed))
        print(json.dumps(runs[-1]), flush=True)
    differences = [run["difference"] for run in runs]
    result = {"dataset": args.dataset, "runs": runs,
              "mean_difference": round(float(np.mean(differences)), 4),
              "worst_difference": round(float(min(differences)), 4),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared)"}
    print(json.dumps({k: v for k, v in result.items() if k != "runs"}, indent=2))
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "new_nodes.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
