"""Two independent partitions (``datasets.make_multilabel_sbm``): the several-label
default beside the single-label default fitted on each partition and combined.

1,500 nodes, 4 classes per partition, 10 edge draws per node, 30 % of the nodes labelled
(one draw, seed 0), at each ``p_same``. For each: the micro-F1 of the several-label
default's ``predict`` on the unlabelled nodes and its top-k micro-F1; the single-label
default (``NodeClassifier(random_state=0)``) fitted on each partition's classes, its
predictions combined into one label per partition; the trivial answers (every label;
the most probable label); the warnings the fit gave; the groups of exclusive labels the
fit found (``selection_["label_groups"]``), each then fitted by the single-label
selection. Run from the repository root::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python \\
        benchmarks/bench_multilabel_sbm.py --out docs/results/bench_multilabel_sbm.json
"""

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.metrics import f1_score

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_multilabel_sbm
from digraph_askls.metrics import top_k_f1

N_NODES, N_CLASSES, N_PARTITIONS, AVG_DEGREE = 1500, 4, 2, 10.0


def several_labels(adjacency, Y, train):
    """The several-label default: its fit's seconds, predictions, probabilities and
    warnings."""
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = NodeClassifier(random_state=0).fit(adjacency, np.where(train[:, None], Y, -1))
    return (time.perf_counter() - start, model.predict(), model.predict_proba(),
            [str(w.message) for w in caught if "several labels" in str(w.message)],
            repr(model.selection_["kernel"]), model.selection_["merge"],
            model.selection_["label_groups"])


def one_label_each(adjacency, Y, train):
    """The single-label default on each partition, combined: predictions, seconds."""
    combined = np.zeros_like(Y)
    start = time.perf_counter()
    for partition in range(N_PARTITIONS):
        columns = slice(partition * N_CLASSES, (partition + 1) * N_CLASSES)
        codes = np.where(train, Y[:, columns].argmax(axis=1), -1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = NodeClassifier(random_state=0).fit(adjacency, codes)
        combined[np.arange(len(Y)), partition * N_CLASSES + model.predict()] = 1
    return combined, time.perf_counter() - start


def one_strength(p_same, seed):
    adjacency, Y = make_multilabel_sbm(N_NODES, N_CLASSES, N_PARTITIONS, AVG_DEGREE, p_same,
                                       random_state=seed)
    train = np.random.default_rng(seed).random(N_NODES) < 0.3
    test = ~train
    seconds, predicted, proba, said, kernel, merge, groups = several_labels(adjacency, Y,
                                                                            train)
    combined, single_seconds = one_label_each(adjacency, Y, train)
    top = np.zeros_like(Y[test])
    top[np.arange(len(top)), proba[test].argmax(axis=1)] = 1

    def micro(answer):
        return float(f1_score(Y[test], answer, average="micro"))

    return {"p_same": p_same, "several_labels": {
                "predict_micro_f1": micro(predicted[test]),
                "top_k_micro_f1": top_k_f1(Y[test], proba[test])[0], "seconds": seconds,
                "kernel": kernel, "merge": merge, "label_groups": groups,
                "warnings": said},
            "single_label_per_partition": {"micro_f1": micro(combined[test]),
                                           "seconds": single_seconds},
            "trivial": {"every_label": micro(np.ones_like(top)), "most_probable": micro(top)}}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p-same", type=float, nargs="+", default=[0.5, 0.6, 0.7, 0.8])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="docs/results/bench_multilabel_sbm.json")
    args = parser.parse_args(argv)
    rows = []
    for p_same in args.p_same:
        rows.append(one_strength(p_same, args.seed))
        row = rows[-1]
        print(f"p_same {p_same}: several labels {row['several_labels']['predict_micro_f1']:.4f}"
              f", one label per partition {row['single_label_per_partition']['micro_f1']:.4f}"
              f", trivial {row['trivial']}", flush=True)
    Path(args.out).write_text(json.dumps({"n_nodes": N_NODES, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
