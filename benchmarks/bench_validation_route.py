"""What fitting the candidates of ``fit(valid=...)`` kernel by kernel saves.

``NodeClassifier(random_state=0).fit(graph, labels, valid=nodes)`` on split 0 of every
shipped graph with fixed splits (the training nodes fitted, the validation nodes
judging), as the comparison's validated rows run it, two ways in the same run:

- *kernel by kernel* (the library): the candidates are fitted grouped by kernel and
  each kernel's dense training block and decomposition are kept for all its gammas
  (:class:`~digraph_askls.models.selection._engines.BlockMemo`);
- *as ranked* (the baseline, the library before): the candidates in their ranking
  order, each forming and decomposing its kernel's block again.

The baseline is the same code with no memo in the search cache and the ranking
order restored (patched here, not kept in the library). Both ways alternate, ``REPEATS``
times each; the median seconds and their ratio are reported, and the two fits' predictions
and probabilities are checked equal. One thread, from the repository root::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_validation_route.py \\
        --data-home ../shared/datasets --out docs/results

writes ``bench_validation_route.json`` after every graph.
"""

import argparse
import json
import platform
import subprocess
import time
import warnings
from pathlib import Path

import numpy as np

from digraph_askls import NodeClassifier
from digraph_askls.datasets import load_dataset
from digraph_askls.models.selection import _cache, _search

GRAPHS = ("texas", "wisconsin", "chameleon", "chameleon-filtered",
          "squirrel-filtered", "squirrel", "film")
REPEATS = 3
_KERNEL_MAJOR = _search.kernel_major
_MEMO = _cache.BlockMemo


def _as_ranked(on):
    """Switch the baseline (the candidates as ranked, nothing kept) on or off: a search
    cache without a memo leaves each scoring to form and decompose its block itself."""
    _search.kernel_major = ((lambda candidates: list(range(len(candidates)))) if on
                            else _KERNEL_MAJOR)
    _cache.BlockMemo = (lambda: None) if on else _MEMO


def _fit(graph, known, valid):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        clf = NodeClassifier(random_state=0).fit(graph.adjacency, known,
                                                 features=graph.features, valid=valid)
        seconds = time.perf_counter() - start
    return seconds, clf.predict(), clf.predict_proba()


def _commit():
    def git(*args):
        return subprocess.run(["git", *args], capture_output=True, text=True,
                              cwd=Path(__file__).parent).stdout.strip()
    return git("rev-parse", "--short", "HEAD") + (
        "+" if git("status", "--porcelain", "--untracked-files=no") else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--out", default="docs/results")
    parser.add_argument("--graphs", nargs="+", default=list(GRAPHS))
    args = parser.parse_args()
    result = {"machine": platform.processor() or platform.machine(), "commit": _commit(),
              "repeats": REPEATS, "rows": []}
    out = Path(args.out) / "bench_validation_route.json"
    for name in args.graphs:
        graph = load_dataset(name, data_home=args.data_home, download=False)
        if not graph.splits:
            continue
        train, valid, _ = graph.splits[0]
        known = np.full(graph.n_nodes, -1)
        both = np.union1d(train, valid)
        known[both] = graph.labels[both]
        valid = np.asarray(valid)
        seconds = {"kernel by kernel": [], "as ranked": []}
        answers = {}
        for _ in range(REPEATS):
            for way in ("as ranked", "kernel by kernel"):
                _as_ranked(way == "as ranked")
                try:
                    elapsed, predicted, proba = _fit(graph, known, valid)
                finally:
                    _as_ranked(False)
                seconds[way].append(elapsed)
                answers[way] = (predicted, proba)
        same = (np.array_equal(answers["as ranked"][0], answers["kernel by kernel"][0])
                and np.array_equal(answers["as ranked"][1], answers["kernel by kernel"][1]))
        row = {"graph": name, "n_train": int(np.asarray(train).size),
               "n_valid": int(valid.size), "identical": bool(same),
               **{f"seconds {way}": float(np.median(s)) for way, s in seconds.items()},
               "every time": seconds}
        row["ratio"] = row["seconds kernel by kernel"] / row["seconds as ranked"]
        result["rows"].append(row)
        print(f"{name}: as ranked {row['seconds as ranked']:.1f} s, kernel by kernel "
              f"{row['seconds kernel by kernel']:.1f} s ({row['ratio']:.2f}x), identical "
              f"{same}", flush=True)
        out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
