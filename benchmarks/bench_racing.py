"""What the race changes: the default's choice, accuracy and CPU time with the candidates
raced on a sample of the labelled nodes, against the exhaustive ranking on all of them.

For each setting (development splits only: the shipped fixed splits 0, 1, 2 of the graphs
with many labelled nodes, and random 60/40 draws 0, 1, 2 of base seed 0), fits
``NodeClassifier(random_state=0)`` under each policy, one after the other in this process
on one BLAS thread, and records the chosen kernel, gamma and merge, the test accuracy,
``selection_["accuracy"]`` and the process CPU time of fit and predict
(``time.process_time``: the load of other jobs on the machine inflates wall-clock time but
hardly the CPU time of a single-threaded fit). Policies:

* ``exhaustive``: ``SelectionPolicy(racing_sample=None)``, every candidate ranked on every
  labelled node (up to ``spectral_max_train``);
* ``race 1000``: ``SelectionPolicy(racing_sample=1000, racing_keep=2)``, which races
  graphs of more than 2,000 labelled nodes;
* ``race 500``: ``SelectionPolicy(racing_sample=500, racing_keep=2)``, which also races
  graphs of 1,000 to 2,000 labelled nodes, with at most two finalists;
* ``race 500, 1 finalist``: ``SelectionPolicy(racing_sample=500, racing_keep=1)``: the
  sample's best kernel alone goes on, scored at each of its gammas on every labelled node.

Writes a JSON list of rows after every fit and prints a markdown table.

Usage: python benchmarks/bench_racing.py [--datasets squirrel film ...] [--splits 0 1 2]
                                         [--data-home ../shared/datasets] [--out FILE]
"""

import argparse
import json
import platform
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from digraph_askls import NodeClassifier
from digraph_askls.datasets import load_dataset
from digraph_askls.model_selection import fixed_splits, random_splits
from digraph_askls.models.selection import SelectionPolicy

POLICIES = {"exhaustive": SelectionPolicy(racing_sample=None),
            "race 1000": SelectionPolicy(racing_sample=1000, racing_keep=2),
            "race 500": SelectionPolicy(racing_sample=500, racing_keep=2),
            "race 500, 1 finalist": SelectionPolicy(racing_sample=500, racing_keep=1)}
FIXED = ("squirrel", "film", "chameleon")
RANDOM = ("cora", "citeseer", "pubmed")


def splits_of(graph, name, indices):
    """(protocol, split, labelled nodes, test nodes) of the development splits."""
    if name in FIXED:
        every = fixed_splits(graph, train_on_valid=True)
        for index in indices:
            _, labelled, test = every[index]
            yield "fixed", index, labelled, test
    else:
        every = random_splits(graph.labels, 0.6, max(indices) + 1, 0)
        for index in indices:
            _, labelled, test = every[index]
            yield "60/40", index, labelled, test


def measure(graph, labelled, test, policy):
    known = np.full(graph.n_nodes, -1)
    known[labelled] = graph.labels[labelled]
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.process_time()
        model = NodeClassifier(random_state=0, policy=policy).fit(
            graph.adjacency, known, features=graph.features)
        predicted = model.predict(test)
        seconds = time.process_time() - start
    selection = model.selection_
    return {"kernel": " ".join(repr(selection["kernel"]).split()),
            "gamma": selection["gamma"], "merge": selection["merge"],
            "accuracy": float(np.mean(predicted == graph.labels[test])),
            "estimate": selection["accuracy"], "cpu_seconds": seconds,
            "scored_on_all": int(sum(size == labelled.size
                                     for size in model.cv_results_["scored_on"]))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(FIXED + RANDOM))
    parser.add_argument("--splits", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--policies", nargs="+", default=list(POLICIES))
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--out", default="docs/results/bench_racing.json")
    args = parser.parse_args()
    rows = []
    for name in args.datasets:
        graph = load_dataset(name, data_home=args.data_home)
        for protocol, split, labelled, test in splits_of(graph, name, args.splits):
            for label in args.policies:
                row = {"graph": name, "protocol": protocol, "split": split,
                       "n_labelled": int(labelled.size), "policy": label,
                       **measure(graph, labelled, test, POLICIES[label])}
                rows.append(row)
                print(f"{name} {protocol} split {split} {label}: {row['cpu_seconds']:.1f} s, "
                      f"accuracy {row['accuracy']:.4f}, {row['kernel']} gamma {row['gamma']}"
                      f" {row['merge']}", flush=True)
                Path(args.out).write_text(json.dumps(
                    {"machine": platform.processor() or platform.machine(),
                     "rows": rows}, indent=1) + "\n")
    print("\n| graph | protocol | splits | policy | CPU s per split | accuracy | same choice as "
          "exhaustive |\n|---|---|---|---|---|---|---|")
    for name in args.datasets:
        for label in args.policies:
            mine = [r for r in rows if r["graph"] == name and r["policy"] == label]
            if not mine:
                continue
            full = {(r["split"]): r for r in rows
                    if r["graph"] == name and r["policy"] == "exhaustive"}
            same = sum(full.get(r["split"], {}).get("kernel") == r["kernel"]
                       and full[r["split"]]["gamma"] == r["gamma"] for r in mine)
            print(f"| {name} | {mine[0]['protocol']} | {len(mine)} | {label} | "
                  f"{np.mean([r['cpu_seconds'] for r in mine]):.1f} | "
                  f"{np.mean([r['accuracy'] for r in mine]):.4f} | {same} of {len(mine)} |")


if __name__ == "__main__":
    main()
