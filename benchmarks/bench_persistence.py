"""How large a saved NodeClassifier is, and that it predicts the same after loading.

On a directed SBM (``make_directed_sbm(n, 10, 10, p_in=0.5)``, 60 % of the nodes
labelled), fits ``NodeClassifier()``, saves it with ``joblib.dump``, loads it in a
fresh process and compares every node's prediction and decision values with the
fitted model's. Reports the file size, the size of the model's parts (pickled one by
one) and what the file would hold with the kernel on all nodes (the state before
:mod:`digraph_askls.models._persistence` left it out), and writes
``docs/results/persistence.json``.

Usage: python benchmarks/bench_persistence.py [--nodes 1000000] [--out docs/results]
"""

import argparse
import json
import os
import pickle
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import joblib
import numpy as np

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm

REPO = Path(__file__).resolve().parents[1]

LOADER = """
import sys, time
import joblib, numpy as np
start = time.perf_counter()
model = joblib.load(sys.argv[1])
loaded = time.perf_counter() - start
np.savez(sys.argv[2], predicted=model.predict(), decision=model.decision_function(),
         seconds=loaded)
"""


def _mib(n_bytes):
    return round(n_bytes / 2**20, 1)


def run(n_nodes):
    adjacency, classes = make_directed_sbm(n_nodes, 10, 10, p_in=0.5, random_state=0)
    labels = np.where(np.random.default_rng(0).random(n_nodes) < 0.6, classes, -1)
    start = time.perf_counter()
    model = NodeClassifier(random_state=0).fit(adjacency, labels)
    fit_seconds = time.perf_counter() - start
    parts = {name: _mib(len(pickle.dumps(value, protocol=5)))
             for name, value in vars(model).items()
             if name.endswith("_") or name == "_node_scores"}
    parts.update({f"estimator_.{name}": _mib(len(pickle.dumps(value, protocol=5)))
                  for name, value in vars(model.estimator_).items() if name.endswith("_")})
    with_kernel = len(pickle.dumps(vars(model), protocol=5))
    with tempfile.TemporaryDirectory() as folder:
        path, out = Path(folder) / "model.joblib", Path(folder) / "out.npz"
        start = time.perf_counter()
        joblib.dump(model, path)
        dump_seconds = time.perf_counter() - start
        size = path.stat().st_size
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
        subprocess.run([sys.executable, "-c", LOADER, str(path), str(out)], check=True,
                       env=env)
        with np.load(out) as loaded:
            same = (bool(np.array_equal(loaded["predicted"], model.predict()))
                    and bool(np.array_equal(loaded["decision"], model.decision_function())))
            load_seconds = float(loaded["seconds"])
    return {
        "nodes": n_nodes, "edges": int(adjacency.nnz), "labelled": int((labels >= 0).sum()),
        "kernel": repr(model.selection_["kernel"]), "kept_node_scores":
            model._node_scores is not None,
        "file_mib": _mib(size), "file_mib_with_kernel": _mib(with_kernel),
        "parts_mib": dict(sorted(parts.items(), key=lambda item: -item[1])),
        "same_predictions_after_loading": same, "fit_seconds": round(fit_seconds, 1),
        "dump_seconds": round(dump_seconds, 1), "load_seconds": round(load_seconds, 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=10**6)
    parser.add_argument("--out", default=None, help="folder for persistence.json")
    args = parser.parse_args()
    result = run(args.nodes)
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "persistence.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
