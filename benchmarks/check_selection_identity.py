"""Whether a restructuring of the selection left every fit as it was.

Fits ``NodeClassifier(random_state=0)`` on every path of the selection and keeps, for
each, ``selection_`` (kernel repr, gamma, merge, the accuracy estimates, optimism, score,
engine, n_folds), ``cv_results_``, the predictions and the decision values of every node:

- the folds: a 300-node directed SBM with random features; Texas and Wisconsin on their
  fixed splits 0-2; Chameleon's split 0; Cora and CiteSeer with 20 labelled nodes per
  class; film, Squirrel and both filtered graphs on their split 0 (training nodes only);
  a structure-only directed SBM of 10^5 nodes, 10 % labelled;
- ``fit(valid=...)`` on the validation nodes of a fixed split (Chameleon, film, the
  filtered graphs), as the comparison's validated rows run it;
- class weights with balanced scoring (Cora with three rare classes of 2 labelled nodes,
  folds and ``valid=``);
- a scikit-learn splitter with ``scoring="f1_macro"`` (Wisconsin's split 0);
- several labels per node (a directed SBM whose nodes belong to one class of each of two
  partitions: groups of exclusive labels, one single-label selection each; the same with
  the first label added to every fifth labelled node: the several-label selection).

``compare`` reports the decisions (kernel, gamma, merge, predicted classes) of every case
first, then the finer differences (``cv_results_``, decision values).

Usage (the reference of the main branch is committed beside this script)::

    python benchmarks/check_selection_identity.py save /tmp/reference.pkl.gz
    python benchmarks/check_selection_identity.py compare benchmarks/reference/selection_identity.pkl.gz
    python benchmarks/check_selection_identity.py compare REF --only cora-20 film-0-valid

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
import gzip
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the harness, experiments/

from digraph_askls import NodeClassifier
from digraph_askls.datasets import load_dataset, make_directed_sbm
from digraph_askls.model_selection import class_splits, fixed_splits
from experiments._protocols import long_tail_splits

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


def _known(n_nodes, labels, train):
    known = np.full(n_nodes, -1)
    known[train] = labels[train]
    return known


def _fixed(name, index=0):
    """A fixed split of a shipped graph: (graph, train, valid)."""
    graph = load_dataset(name, data_home=DATA_HOME, download=False)
    train, valid, _ = graph.splits[index]
    return graph, np.asarray(train), np.asarray(valid)


def two_partition_sbm(n_nodes=600, p_same=0.7, seed=0):
    """Nodes in one class of each of two independent partitions (4 classes each), edges
    inside a partition's class with probability ``p_same``: an indicator of 8 labels, two
    per node, 30 % of the rows labelled, the others -1."""
    rng = np.random.default_rng(seed)
    parts = [rng.integers(0, 4, n_nodes) for _ in range(2)]
    rows, cols = [], []
    for part in parts:
        for source in range(n_nodes):
            for _ in range(4):
                if rng.random() < p_same:
                    pool = np.flatnonzero(part == part[source])
                else:
                    pool = np.flatnonzero(part == (part[source] + 1) % 4)
                rows.append(source)
                cols.append(rng.choice(pool))
    from scipy import sparse

    adjacency = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), (n_nodes, n_nodes))
    adjacency.setdiag(0)
    adjacency.eliminate_zeros()
    adjacency.data[:] = 1.0
    Y = np.zeros((n_nodes, 8), dtype=int)
    Y[np.arange(n_nodes), parts[0]] = 1
    Y[np.arange(n_nodes), 4 + parts[1]] = 1
    hidden = rng.random(n_nodes) >= 0.3
    Y[hidden] = -1
    return adjacency, Y


def overlapping_labels(Y):
    """``Y`` with the first label added to every fifth labelled node: labels that no
    longer split into groups of exclusive labels (the several-label selection's route)."""
    Y = Y.copy()
    Y[np.flatnonzero(Y[:, 0] >= 0)[::5], 0] = 1
    return Y


def settings():
    """(name, adjacency, known labels, features, fit keywords, estimator keywords) of
    every setting."""
    yield ("sbm300", *sbm_setting(), {}, {})
    for name, splits in (("texas", (0, 1, 2)), ("wisconsin", (0, 1, 2)), ("chameleon", (0,))):
        graph = load_dataset(name, data_home=DATA_HOME, download=False)
        all_splits = fixed_splits(graph)
        for index in splits:
            _, train, _ = all_splits[index]
            known = _known(graph.n_nodes, graph.labels, train)
            yield f"{name}-{index}", graph.adjacency, known, graph.features, {}, {}
    for name in ("cora", "citeseer"):
        graph = load_dataset(name, data_home=DATA_HOME, download=False)
        (_, train, _), = class_splits(graph.labels, 20, 1, 0)
        yield (f"{name}-20", graph.adjacency, _known(graph.n_nodes, graph.labels, train),
               graph.features, {}, {})
    for name in ("film", "squirrel", "chameleon-filtered", "squirrel-filtered"):
        graph, train, _ = _fixed(name)
        yield (f"{name}-0", graph.adjacency, _known(graph.n_nodes, graph.labels, train),
               graph.features, {}, {})
    for name in ("chameleon", "film", "chameleon-filtered", "squirrel-filtered"):
        graph, train, valid = _fixed(name)
        known = _known(graph.n_nodes, graph.labels, np.union1d(train, valid))
        yield (f"{name}-0-valid", graph.adjacency, known, graph.features,
               dict(valid=valid), {})
    graph = load_dataset("cora", data_home=DATA_HOME, download=False)
    (_, train, _), = long_tail_splits(graph.labels, 20, 2, 3, 1, 0)
    known = _known(graph.n_nodes, graph.labels, train)
    balanced = dict(class_weight="balanced", scoring="balanced_accuracy")
    yield "cora-long-tail-balanced", graph.adjacency, known, graph.features, {}, balanced
    rng = np.random.default_rng(0)
    valid = np.sort(rng.choice(train, train.size // 3, replace=False))
    valid = valid[np.isin(graph.labels[valid], np.unique(graph.labels[np.setdiff1d(
        train, valid)]))]
    yield ("cora-long-tail-balanced-valid", graph.adjacency, known, graph.features,
           dict(valid=valid), balanced)
    graph, train, _ = _fixed("wisconsin")
    yield ("wisconsin-0-splitter-f1", graph.adjacency,
           _known(graph.n_nodes, graph.labels, train), graph.features, {},
           dict(cv=StratifiedKFold(5, shuffle=True, random_state=0), scoring="f1_macro"))
    adjacency, Y = two_partition_sbm()
    yield "two-partitions", adjacency, Y, None, {}, {}
    yield "overlapping-labels", adjacency, overlapping_labels(Y), None, {}, {}
    adjacency, labels = make_directed_sbm(100_000, 4, 8.0, p_in=0.6, random_state=0)
    hidden = np.random.default_rng(0).random(100_000) >= 0.1
    yield "sbm100k", adjacency, np.where(hidden, -1, labels), None, {}, {}


def fit_record(adjacency, known, features, fit_params=None, params=None):
    """What a fit chose and predicts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = NodeClassifier(random_state=0, **(params or {})).fit(
            adjacency, known, features=features, **(fit_params or {}))
        selection = dict(clf.selection_, kernel=repr(clf.selection_["kernel"]))
        cv = {key: [repr(value) if key == "kernel" else value for value in values]
              for key, values in clf.cv_results_.items() if key != "fit_time"}
        return dict(selection=selection, cv_results=cv, predict=clf.predict(),
                    decision=np.asarray(clf.decision_function()),
                    proba=np.asarray(clf.predict_proba()))


def run_all(only=None):
    records = {}
    for name, adjacency, known, features, fit_params, params in settings():
        if only and name not in only:
            continue
        start = time.perf_counter()
        records[name] = fit_record(adjacency, known, features, fit_params, params)
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


#: What a fit decides: compared first, and strictly.
DECISION_KEYS = ("kernel", "gamma", "merge")


def compare(reference, current, ignore_proba=False):
    """Lines describing every difference; empty when identical (the probabilities'
    gap printed but not compared with ``ignore_proba``).

    The decisions (kernel, gamma, merge, predicted classes) are compared for every case;
    then the keys of ``selection_`` and the columns of ``cv_results_`` that both runs
    have (a key added by a change of schema is listed, not compared; a key removed is a
    difference), and the decision values to 1e-12.
    """
    problems = []
    for name, ref in reference.items():
        if name not in current:
            problems.append(f"{name}: not run")
            continue
        cur = current[name]
        ref_sel, cur_sel = _choices(ref["selection"]), _choices(cur["selection"])
        decided = {key: (ref_sel.get(key), cur_sel.get(key)) for key in DECISION_KEYS}
        if any(_comparable(a) != _comparable(b) for a, b in decided.values()):
            problems.append(f"{name}: decision differs (reference, current): {decided}")
        if not np.array_equal(ref["predict"], cur["predict"]):
            problems.append(f"{name}: predictions differ")
        removed = sorted(set(ref_sel) - set(cur_sel))
        if removed:
            problems.append(f"{name}: selection_ lost keys {removed}")
        common = {key: (ref_sel[key], cur_sel[key]) for key in ref_sel if key in cur_sel}
        differing = {key: pair for key, pair in common.items()
                     if _comparable(pair[0]) != _comparable(pair[1])}
        if differing:
            problems.append(f"{name}: selection_ differs (reference, current): {differing}")
        added = sorted(set(cur_sel) - set(ref_sel))
        if added:
            print(f"{name}: selection_ keys added (not compared): {added}")
        ref_cv, cur_cv = ref["cv_results"], cur["cv_results"]
        lost = sorted(set(ref_cv) - set(cur_cv))
        if lost:
            problems.append(f"{name}: cv_results_ lost columns {lost}")
        for key in sorted(set(ref_cv) & set(cur_cv)):
            if _comparable(ref_cv[key]) != _comparable(cur_cv[key]):
                problems.append(f"{name}: cv_results_[{key!r}] differs: {ref_cv[key]} != "
                                f"{cur_cv[key]}")
        estimates = {key: (ref["selection"].get(key), cur["selection"].get(key))
                     for key in ESTIMATE_KEYS}
        print(f"{name}: estimates (reference, current): {estimates}")
        for key in ("decision", "proba"):
            gap = _largest_gap(ref[key], cur[key])
            print(f"{name}: largest {key} gap {gap:.3g}")
            if gap > 1e-12 and not (ignore_proba and key == "proba"):
                problems.append(f"{name}: {key} differs by {gap:.3g}")
    return problems


def _largest_gap(a, b):
    if isinstance(a, dict) or isinstance(b, dict):
        return max(_largest_gap(a[key], b[key]) for key in a)
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return float("inf")
    return float(np.max(np.abs(a - b))) if a.size else 0.0


def _comparable(value):
    if isinstance(value, dict):
        return {key: _comparable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_comparable(item) for item in value]
    if isinstance(value, np.ndarray):
        return _comparable(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value != value:
        return "nan"
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


def _open(path, mode):
    """A reference file, gzip-compressed where its name ends in ``.gz``."""
    return gzip.open(path, mode) if str(path).endswith(".gz") else open(path, mode)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("save", "compare", "trace"))
    parser.add_argument("path", nargs="?")
    parser.add_argument("--ignore-proba", action="store_true",
                        help="print the probabilities' gap without failing on it")
    parser.add_argument("--only", nargs="+", help="run these cases alone")
    args = parser.parse_args(argv)
    if args.action == "trace":
        print(count_module_switches())
        return 0
    records = run_all(args.only)
    if args.action == "save":
        with _open(args.path, "wb") as file:
            pickle.dump(records, file)
        return 0
    with _open(args.path, "rb") as file:
        reference = pickle.load(file)
    if args.only:
        reference = {name: record for name, record in reference.items()
                     if name in args.only}
    problems = compare(reference, records, args.ignore_proba)
    print("\n".join(problems) if problems else "identical: selections, predictions, "
          "and decision values" + ("" if args.ignore_proba else " and probabilities")
          + " to 1e-12")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
