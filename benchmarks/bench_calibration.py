"""Expected calibration error of ``NodeClassifier.predict_proba`` on the test nodes,
uncalibrated (the merge's probabilities) and calibrated (``calibrator_``).

Development draws only: Cora and CiteSeer with 20 labelled nodes per class
(``class_splits(labels, 20, 5, 0)``), Texas's 10 fixed splits (pooled over the splits, 37
test nodes each). ``NodeClassifier(random_state=0)``; 10 bins. Run on one thread from the
repository root::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. \\
        python benchmarks/bench_calibration.py --data-home ../shared/datasets
"""

import argparse
import warnings

import numpy as np

from digraph_askls import NodeClassifier
from digraph_askls.datasets import load_dataset
from digraph_askls.evaluation import class_splits, expected_calibration_error, fixed_splits


def draws(name, data_home):
    """(graph, train, test) of each draw of ``name``."""
    graph = load_dataset(name, data_home=data_home, download=False)
    splits = fixed_splits(graph) if name == "texas" else class_splits(graph.labels, 20, 5, 0)
    for _, train, test in splits:
        yield graph, train, test


def probabilities(graph, train, test):
    """Uncalibrated and calibrated probabilities of the test nodes, columns = classes."""
    known = np.full(graph.n_nodes, -1)
    known[train] = graph.labels[train]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = NodeClassifier(random_state=0).fit(graph.adjacency, known,
                                                 features=graph.features)
    found = {}
    for name, calibrator in (("calibrated", clf.calibrator_), ("uncalibrated", None)):
        clf.calibrator_ = calibrator
        proba = np.zeros((test.size, int(graph.labels.max()) + 1))
        proba[:, clf.classes_] = clf.predict_proba()[test]
        found[name] = proba
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default="../shared/datasets")
    args = parser.parse_args(argv)
    for name in ("cora", "citeseer", "texas"):
        per_draw, pooled, truth = {}, {}, []
        for graph, train, test in draws(name, args.data_home):
            truth.append(graph.labels[test])
            for kind, proba in probabilities(graph, train, test).items():
                per_draw.setdefault(kind, []).append(
                    expected_calibration_error(graph.labels[test], proba))
                pooled.setdefault(kind, []).append(proba)
        y = np.concatenate(truth)
        for kind in ("uncalibrated", "calibrated"):
            proba = np.vstack(pooled[kind])
            print(f"{name} {kind}: ECE mean over draws {np.mean(per_draw[kind]):.4f}, "
                  f"pooled {expected_calibration_error(y, proba):.4f}; accuracy "
                  f"{np.mean(proba.argmax(axis=1) == y):.4f}, mean confidence "
                  f"{proba.max(axis=1).mean():.4f}", flush=True)


if __name__ == "__main__":
    main()
