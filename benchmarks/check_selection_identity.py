"""Whether a restructuring of the selection left every fit as it was.

Fits ``NodeClassifier(random_state=0)`` on a handful of settings (a 300-node directed SBM
with random features; Texas and Wisconsin on their fixed splits 0-2; Chameleon's split 0;
Cora with 20 labelled nodes per class) and keeps, for each, ``selection_`` (kernel repr,
gamma, merge, the accuracy estimates, optimism, score, engine, n_folds),
``cv_results_``, the predictions and the decision values of every node.

Usage::

    python benchmarks/check_selection_identity.py save /tmp/reference.pkl
    python benchmarks/check_selection_identity.py compare /tmp/reference.pkl

``compare`` fails unless the selections and predictions are identical and the decision
values equal to 1e-12 (and the probabilities, unless ``--ignore-proba``: a change
to their calibration alone, which moves no prediction). The selection's estimate of its accuracy (``accuracy``,
``accuracy_interval``, ``accuracy_reliable``) is printed beside, not compared: it may
change while every choice stays; the raw held-out accuracy of the choice
(``held_out_accuracy``, ``accuracy`` in a reference saved before the estimate was
corrected) is compared. ``--trace`` also counts the module switches of one fit of the
300-node digraph (see :func:`count_module_switches`).
"""

import argparse
import pickle
import sys
import time
import warnings

import numpy as np

from digraph_askls import NodeClassifier
from digraph_askls.datasets import load_dataset, make_directed_sbm
from digraph_askls.model_selection import class_splits, fixed_splits

DATA_HOME = "/work/shared/datasets"


def sbm_setting():
    """The 300-node directed SBM with random features, a third of the nodes labelled."""
    adjacency, labels = make_directed_sbm(300, 3, 8.0, p_in=0.5, random_state=0)
    rng = np.random.default_rng(1)
    features = rng.standard_normal((300, 6)) + 0.8 * np.eye(3)[labels].repeat(2, axis=1)
    known = np.full(300, -1)
    train = np.sort(rng.choice(300, 100, replace=False))
    known[train] = labels[train]
    return adjacency, known, features


def settings():
    """(name, adjacency, known labels, features) of every setting."""
    yield ("sbm300", *sbm_setting())
    for name, splits in (("texas", (0, 1, 2)), ("wisconsin", (0, 1, 2)), ("chameleon", (0,))):
        graph = load_dataset(name, data_home=DATA_HOME, download=False)
        all_splits = fixed_splits(graph)
        for index in splits:
            _, train, _ = all_splits[index]
            known = np.full(graph.n_nodes, -1)
            known[train] = graph.labels[train]
            yield f"{name}-{index}", graph.adjacency, known, graph.features
    graph = load_dataset("cora", data_home=DATA_HOME, download=False)
    (_, train, _), = class_splits(graph.labels, 20, 1, 0)
    known = np.full(graph.n_nodes, -1)
    known[train] = graph.labels[train]
    yield "cora-20", graph.adjacency, known, graph.features


def fit_record(adjacency, known, features):
    """What a fit chose and predicts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = NodeClassifier(random_state=0).fit(adjacency, known, features=features)
        selection = dict(clf.selection_, kernel=repr(clf.selection_["kernel"]))
        cv = {key: [repr(value) if key == "kernel" else value for value in values]
              for key, values in clf.cv_results_.items() if key != "fit_time"}
        return dict(selection=selection, cv_results=cv, predict=clf.predict(),
                    decision=np.asarray(clf.decision_function()),
                    proba=np.asarray(clf.predict_proba()))


def run_all():
    records = {}
    for name, adjacency, known, features in settings():
        start = time.perf_counter()
        records[name] = fit_record(adjacency, known, features)
        print(f"{name}: {records[name]['selection']} ({time.perf_counter() - start:.1f} s)",
              flush=True)
    return records


#: Keys of ``selection_`` that estimate the accuracy: reported, not compared.
ESTIMATE_KEYS = ("accuracy", "accuracy_interval", "accuracy_reliable", "held_out_accuracy")


def _choices(selection):
    """The selection without its estimates, and its raw held-out accuracy."""
    held_out = selection.get("held_out_accuracy", selection.get("accuracy"))
    return dict({key: value for key, value in selection.items()
                 if key not in ESTIMATE_KEYS}, held_out_accuracy=held_out)


def compare(reference, current, ignore_proba=False):
    """Lines describing every difference; empty when identical (the probabilities'
    gap printed but not compared with ``ignore_proba``)."""
    problems = []
    for name, ref in reference.items():
        cur = current[name]
        if _comparable(_choices(ref["selection"])) != _comparable(_choices(cur["selection"])):
            problems.append(f"{name}: selection differs: {ref['selection']} != "
                            f"{cur['selection']}")
        if _comparable(ref["cv_results"]) != _comparable(cur["cv_results"]):
            problems.append(f"{name}: cv_results differs: {ref['cv_results']} != "
                            f"{cur['cv_results']}")
        estimates = {key: (ref["selection"].get(key), cur["selection"].get(key))
                     for key in ESTIMATE_KEYS}
        print(f"{name}: estimates (reference, current): {estimates}")
        if not np.array_equal(ref["predict"], cur["predict"]):
            problems.append(f"{name}: predictions differ")
        for key in ("decision", "proba"):
            gap = float(np.max(np.abs(ref[key] - cur[key]))) if ref[key].size else 0.0
            print(f"{name}: largest {key} gap {gap:.3g}")
            if gap > 1e-12 and not (ignore_proba and key == "proba"):
                problems.append(f"{name}: {key} differs by {gap:.3g}")
    return problems


def _comparable(value):
    if isinstance(value, dict):
        return {key: _comparable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_comparable(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def count_module_switches():
    """Calls and module switches of one fit of the 300-node digraph with features.

    Every ``call`` and ``return`` event of a Python function defined in a
    ``digraph_askls`` module is an event of that module (C calls and other packages'
    functions are not counted); a switch is an event whose module differs from the
    previous counted event's. Calls counts the ``call`` events.
    """
    adjacency, known, features = sbm_setting()
    NodeClassifier(random_state=0).fit(adjacency, known, features=features)   # warm imports
    state = dict(previous=None, switches=0, calls=0, modules=set(), functions=set())

    def profile(frame, event, arg):
        if event not in ("call", "return"):
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("digraph_askls"):
            return
        if event == "call":
            state["calls"] += 1
            state["modules"].add(module)
            state["functions"].add((module, frame.f_code.co_name))
        if state["previous"] is not None and module != state["previous"]:
            state["switches"] += 1
        state["previous"] = module

    sys.setprofile(profile)
    try:
        NodeClassifier(random_state=0).fit(adjacency, known, features=features)
    finally:
        sys.setprofile(None)
    return dict(calls=state["calls"], switches=state["switches"],
                modules=len(state["modules"]), functions=len(state["functions"]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("save", "compare", "trace"))
    parser.add_argument("path", nargs="?")
    parser.add_argument("--ignore-proba", action="store_true",
                        help="print the probabilities' gap without failing on it")
    args = parser.parse_args(argv)
    if args.action == "trace":
        print(count_module_switches())
        return 0
    records = run_all()
    if args.action == "save":
        with open(args.path, "wb") as file:
            pickle.dump(records, file)
        return 0
    with open(args.path, "rb") as file:
        reference = pickle.load(file)
    problems = compare(reference, records, args.ignore_proba)
    print("\n".join(problems) if problems else "identical: selections, predictions, "
          "and decision values" + ("" if args.ignore_proba else " and probabilities")
          + " to 1e-12")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
