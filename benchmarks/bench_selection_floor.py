"""What the selection costs, and what the model it chooses costs alone, against the linear
reference.

For each setting of ``bench_linear_reference.py`` (seed 0, development draws only), two
fresh subprocesses on one thread, each timing the linear reference first (scikit-learn's
``LogisticRegression(C=10, max_iter=500)`` on
:func:`experiments._protocols.linear_reference_features`, building the features
included), then:

1. ``default``: ``NodeClassifier(random_state=0)``, fit and predict; it prints its choice
   (kernel recipe, gamma, merge);
2. ``chosen``: ``NodeClassifier(kernel=<that recipe>, gamma=<that gamma>,
   merge=<that merge>, random_state=0)``: the same model with nothing to choose (no
   candidates, no gamma grid, no merge comparison; its merge's own folds kept), in a
   process of its own so that nothing the first fit computed is reused.

Times are process CPU seconds (``time.process_time``; one BLAS thread, and
``OMP_NUM_THREADS=1`` keeps the library's sparse products on one thread), so the load of
other jobs on the machine changes them little. Reported per setting: each time, the
ratios to the reference measured in the same process, and the accuracies. ``chosen /
reference`` is the price of the model class itself: what no cheaper selection can go
below.

Usage: python benchmarks/bench_selection_floor.py [--settings cora:60/40 ...]
       [--data-home ../shared/datasets] [--out docs/results/selection_floor.json]
"""

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_linear_reference import SETTINGS, _commit, child_env  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
from digraph_askls import NodeClassifier
from digraph_askls.datasets import load_dataset
from digraph_askls.kernels import *   # the recipes a choice's repr names
from bench_linear_reference import fit_reference, setting_split
import experiments._protocols, sklearn.linear_model   # imported before the clock starts

name, protocol, data_home, mode = sys.argv[1:5]
graph = load_dataset(name, data_home=data_home, download=False)
labels = graph.labels
labelled, test = setting_split(graph, protocol)
known = np.full(labels.size, -1)
known[labelled] = labels[labelled]
warnings.simplefilter("ignore")
out = {}
with threadpool_limits(1):
    start = time.process_time()
    predicted = fit_reference(graph, labelled, test)[0]
    out["reference"] = dict(cpu=time.process_time() - start,
                            accuracy=float(np.mean(predicted == labels[test])))
    if mode == "default":
        model = NodeClassifier(random_state=0)
    else:
        kernel, gamma, merge = json.loads(sys.argv[5])
        model = NodeClassifier(kernel=eval(kernel), gamma=gamma, merge=merge,
                               random_state=0)
    start = time.process_time()
    model.fit(graph.adjacency, known, features=graph.features)
    predicted = model.predict(test)
    out[mode] = dict(cpu=time.process_time() - start,
                     accuracy=float(np.mean(predicted == labels[test])))
selection = model.selection_
out["choice"] = [" ".join(repr(selection["kernel"]).split()), float(selection["gamma"]),
                 selection["merge"]]
print(json.dumps(out))
"""


def run_child(name, protocol, mode, args, choice=None):
    env = child_env()
    command = [sys.executable, "-c", CHILD, name, protocol, args.data_home, mode]
    if choice is not None:
        command.append(json.dumps(choice))
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=True,
                              timeout=args.timeout, env=env)
        return json.loads(done.stdout.splitlines()[-1])
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        return dict(error=type(exc).__name__)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", nargs="*", default=None,
                        help="graph:protocol pairs, e.g. cora:60/40 (default: all)")
    parser.add_argument("--data-home", default=str(REPO.parent / "shared" / "datasets"))
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--out", default="docs/results/selection_floor.json")
    args = parser.parse_args()
    settings = SETTINGS if args.settings is None else [
        tuple(setting.split(":", 1)) for setting in args.settings]
    rows, commit = [], _commit()
    print("| graph | protocol | reference CPU s | default CPU s (/ reference) | chosen model "
          "alone CPU s (/ reference) | accuracy: reference, default, chosen alone | choice |")
    print("|---|---|---|---|---|---|---|")
    for name, protocol in settings:
        default = run_child(name, protocol, "default", args)
        chosen = (run_child(name, protocol, "chosen", args, default["choice"])
                  if "choice" in default else dict(error="no choice"))
        row = dict(graph=name, protocol=protocol, default_run=default, chosen_run=chosen)
        if "error" not in default and "error" not in chosen:
            row.update(
                default_ratio=default["default"]["cpu"] / default["reference"]["cpu"],
                chosen_ratio=chosen["chosen"]["cpu"] / chosen["reference"]["cpu"])
            print(f"| {name} | {protocol} | {default['reference']['cpu']:.2f}, "
                  f"{chosen['reference']['cpu']:.2f} | {default['default']['cpu']:.2f} "
                  f"({row['default_ratio']:.2f}) | {chosen['chosen']['cpu']:.2f} "
                  f"({row['chosen_ratio']:.2f}) | {default['reference']['accuracy']:.3f}, "
                  f"{default['default']['accuracy']:.3f}, "
                  f"{chosen['chosen']['accuracy']:.3f} | {default['choice'][0]} gamma "
                  f"{default['choice'][1]:g} {default['choice'][2]} |", flush=True)
        else:
            print(f"| {name} | {protocol} | failed: {default.get('error')} "
                  f"{chosen.get('error')} |  |  |  |  |", flush=True)
        rows.append(row)
        Path(args.out).write_text(json.dumps(dict(
            commit=commit, command=" ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
            machine=platform.machine(), cpus=os.cpu_count(), threads=1, seed=0,
            rows=rows), indent=1) + "\n")


if __name__ == "__main__":
    main()
