"""Time NERD and score a linear SVM on its embeddings (60/40 splits), Cora and Pubmed.

Usage: python benchmarks/nerd_quality.py [--samples N] [--walk-size W] [--splits K]
The data are read from ``../shared/datasets`` (or ``$DIGRAPH_ASKLS_SHARED``).
"""

import argparse
import os
import time
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC

from digraph_askls.embedding import NERD

SHARED = Path(os.environ.get("DIGRAPH_ASKLS_SHARED",
                             Path(__file__).resolve().parents[2] / "shared" / "datasets"))


def load_cora():
    with np.load(SHARED / "directed_npz" / "cora.npz", allow_pickle=False) as data:
        adjacency = sparse.csr_matrix(
            (data["adj_data"], data["adj_indices"], data["adj_indptr"]),
            shape=tuple(data["adj_shape"]))
        return adjacency, data["labels"].astype(np.int64)


def load_pubmed():
    folder = SHARED / "pubmed_directed"
    edges = np.loadtxt(folder / "pubmed.edges.tsv", dtype=np.int64, comments="#")
    nodes, labels = np.loadtxt(folder / "pubmed.labels.tsv", dtype=np.int64, comments="#").T
    n_nodes = nodes.max() + 1
    adjacency = sparse.csr_matrix((np.ones(len(edges)), edges.T), shape=(n_nodes, n_nodes))
    return adjacency, labels[np.argsort(nodes)]


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
    loaders = {"cora": load_cora, "pubmed": load_pubmed}
    for name in args.datasets:
        adjacency, labels = loaders[name]()
        start = time.perf_counter()
        embedding = NERD(random_state=0, **params).fit_transform(adjacency)
        seconds = time.perf_counter() - start
        mean, std = micro_f1(embedding, labels, args.splits)
        print(f"{name}: {adjacency.shape[0]} nodes, {adjacency.nnz} edges, {params}, "
              f"NERD {seconds:.1f} s, LinearSVC micro-F1 {mean:.3f} +- {std:.3f}")


if __name__ == "__main__":
    main()
