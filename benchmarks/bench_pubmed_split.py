"""Time of the paper protocol on one 60/40 split of Pubmed, beside PageRank.

``NodeClassifier(preset="paper")`` (full solve, 10-fold stacking, prediction of the 40 %)
and scikit-network's ``PageRankClassifier`` on the same split, each repeated and timed
in the same run; the ratio of the medians is reported with the 1-minute load average
(the machine is shared). Also the default and ``preset="large"`` for reference.

Usage: python benchmarks/bench_pubmed_split.py [--data-home /work/shared/datasets]
"""

import argparse
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import sparse

from digraph_askls.datasets import load_dataset
from digraph_askls.model_selection import random_splits
from digraph_askls.models import NodeClassifier


def _timed(function, repeats):
    seconds, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        seconds.append(time.perf_counter() - start)
    return float(np.median(seconds)), seconds, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default="/work/shared/datasets")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default="docs/results/bench_pubmed_split.json")
    args = parser.parse_args()
    from sknetwork.classification import PageRankClassifier

    graph = load_dataset("pubmed", data_home=args.data_home, download=False)
    labels = np.asarray(graph.labels)
    _, train, test = random_splits(labels, 0.6, 1, random_state=0)[0]
    known = np.full(labels.size, -1)
    known[train] = labels[train]
    adjacency = sparse.csr_matrix(graph.adjacency)

    def pagerank():
        model = PageRankClassifier()
        model.fit(adjacency, known)
        return np.asarray(model.predict())[test]

    def askls(preset):
        def run():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = NodeClassifier(preset=preset, random_state=0).fit(graph.adjacency, known)
                return model.predict(test)
        return run

    rows = []
    load = os.getloadavg()[0]
    base, _, predicted = _timed(pagerank, args.repeats)
    rows.append(dict(method="pagerank", seconds=base, ratio=1.0,
                     accuracy=float(np.mean(predicted == labels[test]))))
    for preset in ("paper", None, "large"):
        median, _, predicted = _timed(askls(preset), args.repeats)
        rows.append(dict(method=f"askls_{preset or 'default'}", seconds=median,
                         ratio=median / base,
                         accuracy=float(np.mean(predicted == labels[test]))))
    print(f"load {load:.1f} -> {os.getloadavg()[0]:.1f}")
    for row in rows:
        print(f"{row['method']:>15} {row['seconds']:7.2f} s  x{row['ratio']:6.2f}  "
              f"accuracy {row['accuracy']:.4f}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(dataset="pubmed", split="60/40, random_splits seed 0",
                                   repeats=args.repeats, load_before=load,
                                   load_after=os.getloadavg()[0], rows=rows), indent=2))


if __name__ == "__main__":
    main()
