"""Whether a peer's lead depends on the order of the class codes: the default
``NodeClassifier()`` and scikit-network's vote (``PageRankClassifier`` on the undirected
graph) on the same random draws, once with the dataset's class codes and once with them
reversed (code ``c`` becomes ``k - 1 - c``), with the accuracy on the nodes that have at
least one link and on those without any reported apart.

A node with no link gets no score from the vote, whose arg-max then falls on the first
class; the default gives it the class most common among the labelled nodes like it
(``silent_prior`` in ``digraph_askls.models.selection``). Reversing the codes changes
what the first class is and nothing else.

Development draws only (``random_splits(labels, fraction, draws, seed)``, seed 0 by
default); the sealed seed of the published tables is not for this.

Usage: python benchmarks/class_order.py [--dataset polblogs] [--fraction 0.01]
                                        [--draws 10] [--seed 0]
                                        [--data-home ../shared/datasets] [--out FILE]
"""

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the harness, experiments/
from digraph_askls import NodeClassifier  # noqa: E402
from digraph_askls.datasets import load_dataset  # noqa: E402
from digraph_askls.model_selection import random_splits  # noqa: E402
from digraph_askls.peers import PeerClassifier  # noqa: E402
from experiments._comparison_report import paired_difference  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="polblogs")
    parser.add_argument("--fraction", type=float, default=0.01)
    parser.add_argument("--draws", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    graph = load_dataset(args.dataset, data_home=args.data_home, download=False)
    adjacency = graph.adjacency
    linked = np.asarray((adjacency + adjacency.T).sum(axis=1)).ravel() > 0
    n_classes = int(graph.labels.max()) + 1
    result = dict(dataset=args.dataset, fraction=args.fraction, draws=args.draws,
                  seed=args.seed, unlinked=int((~linked).sum()), orders={})
    for order, labels in (("as given", graph.labels),
                          ("reversed", n_classes - 1 - graph.labels)):
        rows = []
        for _, train, test in random_splits(graph.labels, args.fraction, args.draws,
                                            args.seed):
            known = np.full(labels.size, -1)
            known[train] = labels[train]
            ours = NodeClassifier(random_state=0).fit(adjacency, known).predict(test)
            vote = PeerClassifier(method="pagerank", directed=False).fit(
                adjacency, known).predict(test)
            truth, has_link = labels[test], linked[test]
            rows.append({name: [float(np.mean(p[part] == truth[part]))
                                for part in (slice(None), has_link, ~has_link)]
                         for name, p in (("default", ours), ("vote", vote))})
        summary = {}
        for i, part in enumerate(("all", "linked", "unlinked")):
            summary[part] = dict(
                default=float(np.mean([r["default"][i] for r in rows])),
                vote=float(np.mean([r["vote"][i] for r in rows])),
                difference=paired_difference([r["default"][i] for r in rows],
                                             [r["vote"][i] for r in rows])[:3])
        result["orders"][order] = summary
        print(f"class codes {order}:")
        for part, s in summary.items():
            mean, low, high = s["difference"]
            print(f"  {part:>8}: default {s['default']:.3f}, vote {s['vote']:.3f}, "
                  f"difference {mean:+.3f} [{low:+.3f}, {high:+.3f}]")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
