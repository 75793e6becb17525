"""Time and peak memory of the smoothed attribute kernel's fit and prediction, tree by tree.

A directed SBM (``make_directed_sbm(n, 10, 10, p_in=0.5, random_state=0)``) with sparse
binary attributes (1 % random words, and five of the five words typical of the node's
class), 5 labelled nodes per class, ``NodeClassifier(kernel=SmoothedAttributeKernel())``
fitted, then predicting every other node: the setting where the prediction needs the
smoothed attributes of (nearly) every node, as the default's choice with few labels on
CiteSeer does.

Each (tree, round) runs in a fresh subprocess on one thread (``OMP_NUM_THREADS=1``,
``threadpool_limits(1)``) with ``PYTHONPATH`` set to the tree, so that two commits are
compared in the same run (check out the other one with ``git worktree add``). Peak memory
is the child's ``ru_maxrss``: ``peak_mib`` the whole process, ``above_mib`` the rise above
the peak before the fit (the graph and its attributes are built first).

Usage: python benchmarks/bench_smoothed_predict.py [--trees . ../old-tree] [--nodes 100000]
       [--attributes 500] [--repeat 1] [--out FILE]
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits
from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.kernels import SmoothedAttributeKernel

n, d = int(sys.argv[1]), int(sys.argv[2])
adjacency, labels = make_directed_sbm(n, 10, 10, p_in=0.5, random_state=0)
rng = np.random.default_rng(1)
noise = sp.random(n, d, density=0.01, random_state=2, format="csr")
typical = sp.csr_array((np.ones(5 * n), (np.repeat(np.arange(n), 5),
                        ((5 * labels[:, None] + rng.integers(0, 5, (n, 5))) % d).ravel())),
                       shape=(n, d))
features = sp.csr_array(noise + typical)
features.data[:] = 1.0
known = np.full(n, -1)
for c in range(10):
    known[rng.choice(np.flatnonzero(labels == c), 5, replace=False)] = c
test = np.flatnonzero(known < 0)
warnings.simplefilter("ignore")
loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
with threadpool_limits(1):
    start = time.perf_counter()
    model = NodeClassifier(kernel=SmoothedAttributeKernel(), random_state=0).fit(
        adjacency, known, features=features)
    fitted = time.perf_counter()
    predicted = model.predict(test)
    done = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(dict(fit_s=fitted - start, predict_s=done - fitted, peak_mib=peak,
                      above_mib=peak - loaded,
                      accuracy=float(np.mean(predicted == labels[test])))))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", nargs="+", default=[str(REPO)])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--attributes", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    runs = []
    for round_ in range(args.repeat):
        trees = args.trees if round_ % 2 == 0 else args.trees[::-1]
        for tree in trees:
            env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                       PYTHONPATH=str(Path(tree).resolve()))
            commit = subprocess.run(["git", "-C", tree, "rev-parse", "--short", "HEAD"],
                                    capture_output=True, text=True).stdout.strip()
            # Run from the tree: ``python -c`` puts the working directory first on the path.
            out = subprocess.run([sys.executable, "-c", CHILD, str(args.nodes),
                                  str(args.attributes)], env=env, cwd=tree,
                                 capture_output=True, text=True, check=True)
            run = dict(tree=tree, commit=commit, round=round_, load=os.getloadavg()[0],
                       **json.loads(out.stdout.splitlines()[-1]))
            runs.append(run)
            print(f"{commit:>9} round {round_}: fit {run['fit_s']:.2f} s, predict "
                  f"{run['predict_s']:.2f} s, peak {run['peak_mib']:.0f} MiB (+"
                  f"{run['above_mib']:.0f} above the graph), accuracy {run['accuracy']:.4f} "
                  f"(load {run['load']:.1f})", flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(dict(
            nodes=args.nodes, attributes=args.attributes, labelled_per_class=5,
            command=" ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]), runs=runs),
            indent=1) + "\n")


if __name__ == "__main__":
    main()
