"""The default against the linear reference a user would set beside it, on attributed graphs.

Two methods on the same labelled and test nodes of the shipped graphs:

* ``reference``: scikit-learn's ``LogisticRegression(C=10, max_iter=500)`` on the
  propagated features ``[X, D_out^-1 A X, D_in^-1 A^T X, S^2 X]`` of
  :func:`experiments._protocols.linear_reference_features` (SGC / SIGN style: rows of
  ``X`` L1-normalised, ``S`` the symmetric normalised undirected graph with self-loops,
  every stacked row of unit length); its time includes building the features;
* ``default``: ``NodeClassifier(random_state=0)`` fitted on the labelled nodes with the
  graph's attributes, then predicting the test nodes.

Settings (seed 0, development draws only): Chameleon, Squirrel, film, Texas and
Wisconsin on their fixed split 0 (labelled = its training and validation nodes, test =
its test nodes, as ``docs/results/comparison.md``); Cora and CiteSeer on one random 60/40
split (``random_splits(labels, 0.6, 1, 0)``); Cora, CiteSeer, Chameleon and Squirrel with
20 labelled nodes per class (``class_splits(labels, 20, 1, 0)``).

Every (setting, method, round) runs in a fresh subprocess on one thread
(``OMP_NUM_THREADS=1``, which also keeps the library's sparse products on one thread,
and ``threadpoolctl.threadpool_limits(1)``); the libraries are imported and the graph
loaded before the clock starts, which then covers fit and predict. ``--repeat`` paired
rounds alternate which method goes first. Peak memory is the child's peak resident set
(``ru_maxrss``): ``peak_mib`` the whole process (interpreter, libraries and graph
included), ``peak_above_load_mib`` what the method added above the peak before its clock
started. Reported per setting: median seconds, test accuracy, peak memory and the median
over the rounds of the paired ratio default / reference. The JSON is rewritten after
every setting.

Usage: python benchmarks/bench_linear_reference.py [--repeat 2] [--settings cora:60/40 ...]
       [--data-home ../shared/datasets] [--out docs/results/linear_reference.json]
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SETTINGS = (("chameleon", "fixed"), ("squirrel", "fixed"), ("film", "fixed"),
            ("texas", "fixed"), ("wisconsin", "fixed"), ("cora", "60/40"),
            ("citeseer", "60/40"), ("cora", "20 per class"), ("citeseer", "20 per class"),
            ("chameleon", "20 per class"), ("squirrel", "20 per class"))
METHODS = ("reference", "default")
MEMORY = ("peak resident set (ru_maxrss) of a fresh subprocess per (setting, method, round); "
          "peak_mib includes the interpreter, libraries and graph, peak_above_load_mib is "
          "the rise above the peak before the clock started")

BENCHMARKS = Path(__file__).resolve().parent


def setting_split(graph, protocol):
    """``(labelled, test)`` nodes of a setting (seed 0): split 0 of the fixed splits with
    its training and validation nodes labelled (``"fixed"``), one random 60/40 split
    (``"60/40"``), or ``"<k> per class"``."""
    from digraph_askls.model_selection import class_splits, fixed_splits, random_splits

    if protocol == "fixed":
        _, labelled, test = fixed_splits(graph, train_on_valid=True)[0]
    elif protocol == "60/40":
        (_, labelled, test), = random_splits(graph.labels, 0.6, 1, 0)
    else:
        (_, labelled, test), = class_splits(graph.labels, int(protocol.split()[0]), 1, 0)
    return labelled, test


def fit_reference(graph, labelled, test):
    """The reference, from building its features to predicting ``test``: the predicted
    labels, the fitted ``LogisticRegression`` and the number of features."""
    from sklearn.linear_model import LogisticRegression

    from experiments._protocols import linear_reference_features

    Z = linear_reference_features(graph.adjacency, graph.features)
    model = LogisticRegression(C=10, max_iter=500).fit(Z[labelled], graph.labels[labelled])
    return model.predict(Z[test]), model, Z.shape[1]


def child_env():
    """The environment of a measuring subprocess: one thread everywhere, the library and
    this folder importable."""
    return dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                MKL_NUM_THREADS="1", PYTHONPATH=os.pathsep.join([str(REPO), str(BENCHMARKS)]))


CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
from digraph_askls import NodeClassifier
from digraph_askls.datasets import load_dataset
from digraph_askls.model_selection import kernel_family
from bench_linear_reference import fit_reference, setting_split
import experiments._protocols, sklearn.linear_model   # imported before the clock starts

name, protocol, method, data_home = sys.argv[1:5]
graph = load_dataset(name, data_home=data_home, download=False)
labels = graph.labels
labelled, test = setting_split(graph, protocol)
warnings.simplefilter("ignore")
loaded_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
with threadpool_limits(1):
    start = time.perf_counter()
    if method == "reference":
        predicted, model, n_features = fit_reference(graph, labelled, test)
        detail = dict(n_features=int(n_features), n_iter=int(np.max(model.n_iter_)))
    else:
        known = np.full(labels.size, -1)
        known[labelled] = labels[labelled]
        model = NodeClassifier(random_state=0).fit(graph.adjacency, known,
                                                   features=graph.features)
        predicted = model.predict(test)
        detail = dict(kernel=kernel_family(model.selection_["kernel"]),
                      gamma=float(model.selection_["gamma"]))
    seconds = time.perf_counter() - start
peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # KiB on Linux
print(json.dumps(dict(seconds=seconds, accuracy=float(np.mean(predicted == labels[test])),
                      peak_mib=peak_mib, peak_above_load_mib=max(peak_mib - loaded_mib, 0.0),
                      n_labelled=int(labelled.size), n_test=int(test.size), **detail)))
"""


def run_child(name, protocol, method, args):
    load = os.getloadavg()[0]
    env = child_env()
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, name, protocol, method,
                               args.data_home], stdout=subprocess.PIPE, text=True,
                              check=True, timeout=args.timeout, env=env)
        return dict(load_before=load, **json.loads(done.stdout.splitlines()[-1]))
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        return dict(load_before=load, error=type(exc).__name__)


def _commit():
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=REPO, capture_output=True, text=True).stdout.strip()
        return head + ("+local changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return None


def summarise(name, protocol, runs):
    done = {m: [r for r in runs[m] if "seconds" in r] for m in METHODS}
    row = dict(graph=name, protocol=protocol)
    for method in METHODS:
        if not done[method]:
            row[method] = None
            continue
        row[method] = dict(
            seconds=statistics.median(r["seconds"] for r in done[method]),
            accuracy=statistics.median(r["accuracy"] for r in done[method]),
            peak_mib=max(r["peak_mib"] for r in done[method]),
            peak_above_load_mib=max(r["peak_above_load_mib"] for r in done[method]))
    pairs = [d["seconds"] / r["seconds"] for r, d in zip(runs["reference"], runs["default"])
             if "seconds" in r and "seconds" in d]
    row["ratio"] = statistics.median(pairs) if pairs else None
    row["ratios"] = pairs
    return row


def table(rows):
    lines = ["| graph | protocol | reference s | reference accuracy | default s | "
             "default accuracy | default / reference | peak MiB, reference / default "
             "(above load) |", "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        ref, default = row["reference"], row["default"]
        if ref is None or default is None:
            lines.append(f"| {row['graph']} | {row['protocol']} | failed |  |  |  |  |  |")
            continue
        lines.append(
            f"| {row['graph']} | {row['protocol']} | {ref['seconds']:.2f} | "
            f"{ref['accuracy']:.3f} | {default['seconds']:.2f} | {default['accuracy']:.3f} | "
            f"{row['ratio']:.1f} | {ref['peak_mib']:.0f} / {default['peak_mib']:.0f} "
            f"({ref['peak_above_load_mib']:.0f} / {default['peak_above_load_mib']:.0f}) |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2, help="paired rounds")
    parser.add_argument("--settings", nargs="*", default=None,
                        help="graph:protocol pairs, e.g. cora:60/40 'chameleon:20 per class' "
                             "(default: all)")
    parser.add_argument("--data-home", default=str(REPO.parent / "shared" / "datasets"))
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--out", default="docs/results/linear_reference.json")
    args = parser.parse_args()
    settings = SETTINGS if args.settings is None else [
        tuple(setting.split(":", 1)) for setting in args.settings]
    commit = _commit()
    rows, all_runs = [], []
    for name, protocol in settings:
        runs = {method: [] for method in METHODS}
        for round_ in range(args.repeat):
            order = METHODS if round_ % 2 == 0 else METHODS[::-1]
            for method in order:
                run = dict(graph=name, protocol=protocol, method=method, round=round_,
                           **run_child(name, protocol, method, args))
                runs[method].append(run)
                all_runs.append(run)
                status = (f"{run['seconds']:.2f} s, accuracy {run['accuracy']:.3f}, "
                          f"{run['peak_mib']:.0f} MiB" if "seconds" in run else run["error"])
                print(f"{name:>10} {protocol:>12} {method:>9} round {round_}: {status} "
                      f"(load {run['load_before']:.1f})", flush=True)
        rows.append(summarise(name, protocol, runs))
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(dict(
            commit=commit, command=" ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
            machine=platform.machine(), cpus=os.cpu_count(), threads=1,
            repeat=args.repeat, memory=MEMORY, seed=0,
            reference="LogisticRegression(C=10, max_iter=500) on "
                      "linear_reference_features(adjacency, features)",
            default="NodeClassifier(random_state=0)",
            summary=rows, runs=all_runs), indent=2) + "\n")
    print()
    print(table(rows))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
