"""Time NERD and score a linear SVM on its embeddings (60/40 splits), Cora and Pubmed.

Usage: python benchmarks/nerd_quality.py [--samples N] [--walk-size W] [--splits K]
The data are read from ``../shared/datasets`` (or ``$DIGRAPH_ASKLS_DATA``).
"""

import argparse
import os
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC

from digraph_askls.datasets import load_dataset
from digraph_askls.embedding import NERD

DATA_HOME = os.environ.get("DIGRAPH_ASKLS_DATA",
                           Path(__file__).resolve().parents[2] / "shared" / "datasets")


def load_graph(name):
    graph = load_dataset(name, data_home=DATA_HOME, download=False)
    return graph.adjacency, graph.labels


def micro_f1(embedding, labels, n_splits):
    scores = []
    for split in range(n_splits):
        train, test = train_test_split(np.arange(len(labels)), train_size=0.6,
                                       random_state=split, stratify=labels)
        model = LinearSVC().fit(embedding[train], labels[train])
        scores.append(f1_score(labels[test], model.predict(embedding[test]), average="micro"))
    return np.mean(scores), np.std(scores)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=None)
    parser.add_argument("--walk-size", type=int, default=None)
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--learning-rate", type=float, default=None)
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--datasets", nargs="+", default=["cora", "pubmed"])
    args = parser.parse_args()
    params = {key: value for key, value in [
        ("n_samples", args.samples), ("walk_size", args.walk_size),
        ("batch_size", args.batch_size), ("learning_rate", args.learning_rate)]
        if value is not None}
    for name in args.datasets:
        adjacency, labels = load_graph(name)
        start = time.perf_counter()
        embedding = NERD(random_state=0, **params).fit_transform(adjacency)
        seconds = time.perf_counter() - start
        mean, std = micro_f1(embedding, labels, args.splits)
        print(f"{name}: {adjacency.shape[0]} nodes, {adjacency.nnz} edges, {params}, "
              f"NERD {seconds:.1f} s, LinearSVC micro-F1 {mean:.3f} +- {std:.3f}")


if __name__ == "__main__":
    main()
