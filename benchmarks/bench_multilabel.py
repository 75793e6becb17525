"""BlogCatalog, several labels per node: the default's fit beside the spectral embedding,
timed in the same run, at several labelled fractions.

* ``reference``: the 128 leading eigenvectors of ``D^-1/2 A D^-1/2`` of the symmetrised
  graph (scipy ``eigsh``), standardised, then one logistic regression per label
  (scikit-learn's ``OneVsRestClassifier(LogisticRegression())``) on the labelled nodes;
  its time is the whole of it, eigenvectors included.
* ``default``: ``NodeClassifier(random_state=0).fit(adjacency, Y)`` with the test rows of
  ``Y`` set to -1; its time is the whole fit (kernel, selection, final model).

Both on one development draw per fraction (``multilabel_splits``, seed 0), scored the
embedding literature's way (:func:`~digraph_askls.metrics.top_k_f1`: each test node
its true number of labels, ranked by ``predict_proba``, and for the default also by
``decision_function``) and the realistic way, with no test label counts: the
default's ``predict`` beside the trivial answers (every label; the single most probable
label) and beside what a probability threshold chosen on the test nodes themselves would
reach (an upper bound of the realistic answer, not a method). Run from the repository
root on one thread::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python \\
        benchmarks/bench_multilabel.py --data-home ../shared/datasets \\
        --out docs/results/bench_multilabel.json
"""

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import eigsh
from sklearn.metrics import f1_score

from digraph_askls import NodeClassifier
from digraph_askls.datasets import load_dataset
from digraph_askls.metrics import top_k_f1
from digraph_askls.model_selection import multilabel_splits


def spectral_vectors(adjacency, n_components=128):
    """The standardised leading eigenvectors of ``D^-1/2 A D^-1/2`` of the symmetrised
    graph (scipy ``eigsh``): the reference embedding."""
    links = sparse.csr_array(adjacency, dtype=np.float64)
    links = ((links + links.T) > 0).astype(np.float64)
    degree = np.asarray(links.sum(axis=1)).ravel()
    scale = sparse.diags_array(1.0 / np.sqrt(np.maximum(degree, 1.0)))
    start_vector = np.random.default_rng(0).standard_normal(links.shape[0])
    _, vectors = eigsh(scale @ links @ scale, k=n_components, which="LA", v0=start_vector)
    return (vectors - vectors.mean(axis=0)) / vectors.std(axis=0)


def reference(adjacency, Y, train, test, n_components=128):
    """Scores (test nodes x labels) of the spectral embedding + one-vs-rest logistic
    regression, and its seconds."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    start = time.perf_counter()
    vectors = spectral_vectors(adjacency, n_components)
    model = OneVsRestClassifier(LogisticRegression(max_iter=1000)).fit(vectors[train],
                                                                        Y[train])
    scores = model.predict_proba(vectors[test])
    return scores, time.perf_counter() - start


def trivial_answers(Y_test, proba):
    """Micro-F1 of answering every label, and of the single most probable label."""
    every = np.ones_like(Y_test)
    top = np.zeros_like(Y_test)
    top[np.arange(len(top)), np.argmax(proba, axis=1)] = 1
    return {"every_label": float(f1_score(Y_test, every, average="micro")),
            "most_probable": float(f1_score(Y_test, top, average="micro"))}


def best_threshold_on_test(Y_test, proba):
    """An upper bound, not a method: the micro-F1 of the most probable label plus every
    label above one probability threshold, the threshold chosen on the test nodes
    themselves (what the realistic answer of :func:`default` could reach at best)."""
    top = np.zeros_like(Y_test)
    top[np.arange(len(top)), np.argmax(proba, axis=1)] = 1
    grid = np.unique(np.quantile(proba, np.linspace(0.5, 0.9999, 400)))
    return max(float(f1_score(Y_test, top | (proba > t), average="micro")) for t in grid)


def default(adjacency, Y, train, test):
    """The default's fit: its seconds, test scores, predictions and what it chose."""
    known = np.full(Y.shape, -1)
    known[train] = Y[train]
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = NodeClassifier(random_state=0).fit(adjacency, known)
    seconds = time.perf_counter() - start
    selection = model.selection_
    return {"seconds": seconds, "proba": model.predict_proba()[test],
            "decision": model.decision_function()[test],
            "predicted": model.predict()[test],
            "warnings": [str(w.message) for w in caught],
            "chosen": {"kernel": " ".join(repr(selection["kernel"]).split()),
                       "gamma": selection["gamma"], "merge": selection["merge"]}}


def one_fraction(graph, Y, fraction, seed):
    """The measured row of one labelled fraction."""
    (draw, train, test), = multilabel_splits(Y, fraction, 1, seed)
    ref_scores, ref_seconds = reference(graph.adjacency, Y, train, test)
    fitted = default(graph.adjacency, Y, train, test)
    Y_test = Y[test]
    return {"fraction": fraction, "seed": [int(value) for value in draw],
            "n_train": int(train.size),
            "reference": dict(zip(("micro_f1", "macro_f1"), top_k_f1(Y_test, ref_scores)),
                              seconds=ref_seconds),
            "default": dict(zip(("micro_f1", "macro_f1"), top_k_f1(Y_test, fitted["proba"])),
                            seconds=fitted["seconds"], chosen=fitted["chosen"],
                            decision_top_k=top_k_f1(Y_test, fitted["decision"]),
                            predict_micro_f1=float(f1_score(Y_test, fitted["predicted"],
                                                            average="micro")),
                            predict_macro_f1=float(f1_score(Y_test, fitted["predicted"],
                                                            average="macro",
                                                            zero_division=0)),
                            warnings=fitted["warnings"]),
            "trivial": trivial_answers(Y_test, fitted["proba"]),
            "best_threshold_on_test": best_threshold_on_test(Y_test, fitted["proba"])}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--fractions", type=float, nargs="+", default=[0.1, 0.5, 0.9])
    parser.add_argument("--seed", type=int, default=0, help="development draws only")
    parser.add_argument("--out", default="docs/results/bench_multilabel.json")
    args = parser.parse_args(argv)
    graph = load_dataset("blogcatalog", data_home=args.data_home)
    Y = graph.label_matrix.toarray().astype(int)
    rows = []
    for fraction in args.fractions:
        rows.append(one_fraction(graph, Y, fraction, args.seed))
        row = rows[-1]
        print(f"{fraction:.0%}: default {row['default']['seconds']:.1f} s "
              f"top-k {row['default']['micro_f1']:.3f}/{row['default']['macro_f1']:.3f} "
              f"predict {row['default']['predict_micro_f1']:.3f}; reference "
              f"{row['reference']['seconds']:.1f} s {row['reference']['micro_f1']:.3f}/"
              f"{row['reference']['macro_f1']:.3f}; trivial {row['trivial']}", flush=True)
    by_fraction = {row["fraction"]: row for row in rows}
    summary = {}
    if 0.5 in by_fraction:
        half = by_fraction[0.5]
        summary["time_ratio_to_reference_at_50"] = (half["default"]["seconds"]
                                                    / half["reference"]["seconds"])
    if 0.1 in by_fraction and 0.9 in by_fraction:
        summary["time_ratio_90_to_10"] = (by_fraction[0.9]["default"]["seconds"]
                                          / by_fraction[0.1]["default"]["seconds"])
    Path(args.out).write_text(json.dumps({"dataset": "blogcatalog", "threads": 1,
                                          "rows": rows, "summary": summary}, indent=2)
                              + "\n")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
