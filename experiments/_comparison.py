"""The comparison: AsK-LS's default and its peers on the same labelled nodes, split by split.

Protocols (:data:`COMPARISON_PROTOCOLS`):

* ``"fixed"``: the dataset's 10 published splits (Chameleon, Squirrel, Texas, Wisconsin,
  film); the labelled nodes are the training and validation nodes of the split.
* ``"60/40"``: 10 random draws of 60 % of the labelled nodes (Cora, CiteSeer).
* ``"20 per class"``, ``"5 per class"``: 10 random draws of that many nodes per class.
* ``"planetoid"``: the Planetoid public split of Cora and CiteSeer (20 per class, 500
  validation nodes); one split, so its 10 "splits" are 10 training seeds.

On the fixed splits a reference runs too: the *twin baseline*
(:func:`~experiments._protocols.twin_baseline`), which copies the label of a labelled
node with the same out-links (or in-links), and every cell there records its accuracy on
the test nodes with such a twin and on those without (``accuracy_twin``,
``accuracy_no_twin``, ``n_test_twin``).

Every method gets the same labelled nodes and nothing else, and chooses its settings from
them: AsK-LS's default by its own cross-validation; each peer by validation accuracy on a
part of them (:mod:`._comparison_peers`): the split's validation nodes where the split has
them (fixed, Planetoid), else a stratified fifth of the labelled nodes of each class.
On the fixed and Planetoid splits two more AsK-LS rows take the networks' protocol:
*(train part)* fits the training nodes alone and chooses by their folds, *(validated)*
fits them alone and chooses on the validation nodes.

Graphs without attributes (:data:`STRUCTURE_PROTOCOLS`). Most users' graphs have no node
attributes, so the comparison has rows of the links alone: polblogs (which has none) and
Cora and CiteSeer with their attributes dropped (``"cora-structure"``,
``"citeseer-structure"``; :data:`STRUCTURE_ONLY`), at 60/40 and 20 per class. There the
networks get one-hot node ids as their input (the identity matrix, ``X = I``: Kipf and
Welling's choice for a graph without node features, ICLR 2017, the karate-club example of
Section 3.1 and Appendix A), one rule for every network
(:func:`._comparison_peers.network_inputs`); AsK-LS's default and label propagation read
the links alone. These rows are a table of their own, in their own cells file
(``docs/results/comparison-structure-cells.jsonl``), so that the attributed table's
cells and counts are untouched.

Draws. Random draws and training seeds come from one base seed. Development uses
:data:`DEVELOPMENT_SEED`; the published tables use :data:`SEALED_SEED`, whose draws no
tuning of the library has looked at. The fixed and Planetoid splits are the datasets' own
and cannot be sealed: only the peers' training seeds change with the base seed there.

Every cell (protocol, graph, method, seed, split) is appended to a JSON-lines file as soon
as it is measured (``docs/results/comparison-cells.jsonl``), so that a stopped run keeps
what it measured and a rerun measures only what is missing. Each carries its provenance
(commit, library version; :func:`._cells.stamp`), and the AsK-LS cells the digests of the
estimator's parameters and of its predictions, which ``python -m experiments verify
comparison`` compares with a rerun on today's code.
"""

import json
import logging
import time
from pathlib import Path

import numpy as np

from digraph_askls.model_selection import class_splits, random_splits
from ._cells import params_digest, predictions_digest, split_key, stamp
from ._gnn import _stratified_share

__all__ = ["COMPARISON_PROTOCOLS", "COMPARISON_METHODS", "STRUCTURE_PROTOCOLS",
           "STRUCTURE_ONLY", "load_graph", "DEVELOPMENT_SEED", "SEALED_SEED",
           "HEADLINE", "REFERENCES", "comparison_tasks", "is_stale", "load_cells",
           "run_comparison", "twin_breakdown"]

logger = logging.getLogger(__name__)

#: Base seed of development runs.
DEVELOPMENT_SEED = 0
#: Base seed of the published tables: drawn once, never used while developing the library.
SEALED_SEED = 7_340_611

#: Graphs of each protocol.
COMPARISON_PROTOCOLS = {
    "fixed": ("chameleon", "squirrel", "texas", "wisconsin", "film", "chameleon-filtered",
              "squirrel-filtered"),
    "60/40": ("cora", "citeseer"),
    "20 per class": ("cora", "citeseer", "chameleon", "squirrel", "chameleon-filtered",
                     "squirrel-filtered"),
    "5 per class": ("cora", "citeseer"),
    "planetoid": ("cora", "citeseer"),
}

#: Graphs of the structure-only table, by protocol: no node attributes reach any method.
STRUCTURE_PROTOCOLS = {
    "60/40": ("polblogs", "cora-structure", "citeseer-structure"),
    "20 per class": ("polblogs", "cora-structure", "citeseer-structure"),
}

#: Structure-only graphs made from a registered dataset by dropping its attributes:
#: name -> the dataset's name. (polblogs is registered without attributes.)
STRUCTURE_ONLY = {"cora-structure": "cora", "citeseer-structure": "citeseer"}

#: Methods, in the order of the table. "AsK-LS default" fits on all labelled nodes;
#: "AsK-LS default (train part)" on the fitted part alone (fixed and Planetoid splits: the
#: split's training nodes, as the published protocols train the networks);
#: "AsK-LS default (validated)" fits that part too and chooses its configuration on the
#: validation nodes, as the networks choose theirs (``NodeClassifier.fit(valid=...)``).
COMPARISON_METHODS = ("AsK-LS default", "AsK-LS default (train part)",
                      "AsK-LS default (validated)", "MLP", "GCN", "GAT",
                      "APPNP", "GCNII", "GraphSAGE", "Dir-GNN", "SGC", "C&S",
                      "label propagation", "MagNet", "DiGCN", "GCNII (authors' depth)",
                      "Dir-GNN (authors' patience)", "twin baseline")

#: Methods that are references, not peers: never the best peer of a row.
REFERENCES = ("twin baseline",)

#: Which accuracy of a peer the tables read, fixed before any run: the model of the best
#: validation epoch, trained on the part of the labelled nodes it does not validate on (the
#: published protocols). The same configuration refit on all labelled nodes for that many
#: epochs is measured too (``accuracy_refit``) and shown beside, never mixed in: refit
#: after an early best epoch it can fall far (APPNP on Texas, best epoch 2).
HEADLINE = {protocol: "accuracy_early" for protocol in COMPARISON_PROTOCOLS}

_N_SPLITS = 10


def comparison_tasks(graph, protocol, seed=SEALED_SEED, data_home=None):
    """The splits of ``protocol`` on ``graph``, as the methods see them.

    Returns
    -------
    list of dict
        One per split: ``split`` (its number), ``labelled`` (every method's labelled
        nodes), ``fit`` and ``valid`` (the part a peer fits and the part it validates
        on), ``test``, ``seed`` (an int seeding the peers' training) and ``nodes``
        (a digest of the node sets, the same for every method).

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.graph import Graph, get_adjacency
    >>> adjacency, nodes = get_adjacency([(i, (i + 1) % 40) for i in range(40)])
    >>> graph = Graph(adjacency, np.arange(40) % 2, nodes, ["a", "b"], name="ring")
    >>> tasks = comparison_tasks(graph, "5 per class", seed=0)
    >>> len(tasks), tasks[0]["labelled"].size, tasks[0]["valid"].size, tasks[0]["test"].size
    (10, 10, 2, 30)
    """
    labels = graph.labels
    if protocol == "fixed":
        parts = [(split.train, split.valid, split.test) for split in graph.splits[:_N_SPLITS]]
    elif protocol == "planetoid":
        from digraph_askls.datasets import load_planetoid_split

        split = load_planetoid_split(graph, data_home=data_home)
        parts = [(split.train, split.valid, split.test)] * _N_SPLITS
    else:
        if protocol == "60/40":
            draws = random_splits(labels, 0.6, _N_SPLITS, seed)
        elif protocol.endswith(" per class"):
            draws = class_splits(labels, int(protocol.split()[0]), _N_SPLITS, seed)
        else:
            raise ValueError(f"unknown protocol {protocol!r}; choose from "
                             f"{sorted(COMPARISON_PROTOCOLS)}")
        parts = []
        for index, (_, labelled, test) in enumerate(draws):
            # a fifth of each class's drawn nodes, for the peers to validate on
            valid = _stratified_share(labels, labelled, 0.2,
                                      np.random.default_rng([seed, index, 1]))
            parts.append((np.setdiff1d(labelled, valid), valid, test))
    tasks = []
    for index, (fit, valid, test) in enumerate(parts):
        fit, valid, test = (np.asarray(part, dtype=np.int64) for part in (fit, valid, test))
        tasks.append({"split": index, "labelled": np.union1d(fit, valid), "fit": fit,
                      "valid": valid, "test": test,
                      "seed": int(np.random.default_rng([seed, index, 2]).integers(2**31)),
                      # the digest of the three node sets, in this order
                      "nodes": split_key(fit, valid, test)})
    return tasks


def _key(cell):
    return (cell["protocol"], cell["graph"], cell["method"], int(cell["seed"]),
            int(cell["split"]))


def load_cells(path, current=True):
    """The cells of a JSON-lines file, the last line of a key winning ({} if no file).

    With ``current``, a peer's cell whose chosen configuration is not in that peer's grid
    today (:func:`._comparison_peers.grid_of`) is left out: it was measured with another
    grid, so it is measured again rather than mixed into the tables."""
    from ._cells import read_cells

    cells = read_cells(path, _key)
    if current:
        cells = {key: cell for key, cell in cells.items() if not is_stale(cell)}
    return cells


def is_stale(cell):
    """Whether a peer's cell chose a configuration outside the peer's grid of today."""
    if cell["method"].startswith("AsK-LS") or "config" not in cell:
        return False
    from ._comparison_peers import grid_of

    # Through JSON, as the cell was saved: tuples become lists, and so on.
    grid = json.loads(json.dumps(grid_of(cell["method"], cell["graph"], cell["protocol"]),
                                 default=float))
    return cell["config"] not in grid


def _run_askls(graph, protocol, method, task):
    """The default NodeClassifier on the labelled nodes (or the fitted part alone, or that
    part with the validation nodes choosing)."""
    from threadpoolctl import threadpool_limits

    from digraph_askls.models import NodeClassifier

    nodes = task["fit"] if method.endswith("(train part)") else task["labelled"]
    known = np.full(graph.labels.size, -1)
    known[nodes] = graph.labels[nodes]
    # (validated): every labelled node is known, the validation part chooses, unfitted.
    valid = {"valid": task["valid"]} if method.endswith("(validated)") else {}
    start = time.perf_counter()
    with threadpool_limits(1):
        model = NodeClassifier(random_state=task["split"]).fit(
            graph.adjacency, known, features=graph.features, **valid)
        predicted = model.predict(task["test"])
    seconds = time.perf_counter() - start
    accuracy = float(np.mean(predicted == graph.labels[task["test"]]))
    selection = model.selection_
    return {"accuracy": accuracy, "seconds": seconds, "estimate": selection.get("accuracy"),
            "config": {"kernel": " ".join(repr(selection.get("kernel")).split()),
                       "gamma": selection.get("gamma"), "merge": selection.get("merge")},
            "params_digest": params_digest(model),
            "predictions_digest": predictions_digest(predicted),
            **twin_breakdown(predicted == graph.labels[task["test"]], task.get("twins"))}


def _run_twins(graph, task):
    """The twin baseline on the labelled nodes of the split (nothing fitted or chosen)."""
    from ._protocols import twin_baseline

    start = time.perf_counter()
    predicted = twin_baseline(graph.adjacency, graph.labels, task["labelled"], task["test"])
    seconds = time.perf_counter() - start
    right = predicted == graph.labels[task["test"]]
    return {"accuracy": float(right.mean()), "seconds": seconds,
            "predictions_digest": predictions_digest(predicted),
            **twin_breakdown(right, task.get("twins"))}


def twin_breakdown(right, twins):
    """Accuracy on the test nodes with a twin among the labelled nodes and on those
    without, from whether each test node was predicted right ({} without ``twins``).

    >>> right, twins = np.array([1, 0, 1, 1]), np.array([1, 1, 0, 0])
    >>> twin_breakdown(right, twins)
    {'accuracy_twin': 0.5, 'accuracy_no_twin': 1.0, 'n_test_twin': 2}
    """
    if twins is None:
        return {}
    right, twins = np.asarray(right, dtype=bool), np.asarray(twins, dtype=bool)
    part = (lambda mask: float(right[mask].mean()) if mask.any() else None)
    return {"accuracy_twin": part(twins), "accuracy_no_twin": part(~twins),
            "n_test_twin": int(twins.sum())}


_GRAPHS = {}
_TASKS = {}


def load_graph(name, data_home=None):
    """The graph of a comparison row: a registered dataset, or for a name of
    :data:`STRUCTURE_ONLY` that dataset without its node attributes (same links, labels
    and nodes; named ``name``)."""
    import dataclasses

    from digraph_askls.datasets import load_dataset

    if name in STRUCTURE_ONLY:
        graph = load_dataset(STRUCTURE_ONLY[name], data_home=data_home, download=False)
        return dataclasses.replace(graph, name=name, features=None, feature_names=None)
    return load_dataset(name, data_home=data_home, download=False)


def _graph(name, data_home):
    if name not in _GRAPHS:
        _GRAPHS[name] = load_graph(name, data_home)
    return _GRAPHS[name]


def _tasks(name, protocol, seed, data_home):
    """The splits of a (graph, protocol, seed), drawn once per process."""
    key = (name, protocol, seed, data_home)
    if key not in _TASKS:
        graph = _graph(name, data_home)
        _TASKS[key] = comparison_tasks(graph, protocol, seed, data_home)
        if protocol == "fixed":
            from ._protocols import has_twin

            for task in _TASKS[key]:
                task["twins"] = has_twin(graph.adjacency, task["labelled"], task["test"])
    return _TASKS[key]


def run_cell(job):
    """Measure one cell: ``job`` = (protocol, graph name, method, seed, split, data_home,
    device). Returns the cell as a dict (JSON-ready)."""
    protocol, name, method, seed, split, data_home, device = job
    graph = _graph(name, data_home)
    task = _tasks(name, protocol, seed, data_home)[split]
    if method.startswith("AsK-LS"):
        measured = _run_askls(graph, protocol, method, task)
        where = "cpu, 1 BLAS thread"
    elif method in REFERENCES:
        measured = _run_twins(graph, task)
        where = "cpu"
    else:
        from ._comparison_peers import run_peer

        measured = run_peer(graph, name, method, task, device=device, protocol=protocol,
                            twins=task.get("twins"))
        measured["accuracy"] = measured[HEADLINE[protocol]]
        where = device
    cell = {"protocol": protocol, "graph": name, "method": method, "seed": seed,
            "split": split, "nodes": task["nodes"], "n_labelled": int(task["labelled"].size),
            "n_test": int(task["test"].size), "device": where,
            "finished": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), **measured}
    return json.loads(json.dumps(stamp(cell), default=float))


def _runs_on(method, name, protocol):
    if method.startswith("AsK-LS"):
        return True
    if method in REFERENCES:
        return protocol == "fixed"
    from ._comparison_peers import runs_on

    return runs_on(method, name, protocol)


def comparison_jobs(protocols=None, methods=COMPARISON_METHODS, seed=SEALED_SEED,
                    data_home=None, device="cpu", done=(), graphs=None, n_splits=_N_SPLITS,
                    rows=None):
    """The cells still to measure, slowest graphs first: the first ``n_splits`` splits of
    each row of ``rows`` (default :data:`COMPARISON_PROTOCOLS`; the structure-only table:
    :data:`STRUCTURE_PROTOCOLS`)."""
    rows = COMPARISON_PROTOCOLS if rows is None else rows
    protocols = protocols or list(rows)
    jobs = []
    for protocol in protocols:
        for name in rows.get(protocol, ()):
            if graphs and name not in graphs:
                continue
            for method in methods:
                if method.endswith(("(train part)", "(validated)")) \
                        and protocol not in ("fixed", "planetoid"):
                    continue
                if not _runs_on(method, name, protocol):
                    continue
                for split in range(min(n_splits, _N_SPLITS)):
                    if (protocol, name, method, seed, split) not in done:
                        jobs.append((protocol, name, method, seed, split, data_home, device))
    order = {"film": 0, "squirrel": 1, "citeseer": 2, "chameleon": 3, "cora": 4}
    return sorted(jobs, key=lambda job: (order.get(job[1], 9), job[2]))


def split_major(jobs, methods):
    """``jobs`` in the order of ``methods``, then split by split over the rows: a run
    stopped early leaves the first methods with the same first splits on every row."""
    rank = {method: index for index, method in enumerate(methods)}
    return sorted(jobs, key=lambda job: (rank.get(job[2], len(rank)), job[4], job[0],
                                         job[1]))


def run_comparison(cells_path, protocols=None, methods=COMPARISON_METHODS, seed=SEALED_SEED,
                   data_home=None, device="cpu", n_workers=1, deadline=None, verbose=True,
                   graphs=None, n_splits=_N_SPLITS, rows=None):
    """Measure every missing cell, appending each to ``cells_path`` as it comes.

    Parameters
    ----------
    cells_path : path
        The JSON-lines file of cells (read first: measured cells are not run again).
    protocols, methods : sequence of str, optional
        Parts of :data:`COMPARISON_PROTOCOLS` and :data:`COMPARISON_METHODS`.
    graphs : sequence of str, optional
        Only these graphs of the protocols.
    seed : int
        Base seed (:data:`SEALED_SEED` for the published tables).
    device : str
        Torch device of the peers ("cpu" or "cuda"); AsK-LS runs on the CPU.
    n_workers : int
        Processes measuring cells at once.
    deadline : float, optional
        ``time.time()`` after which no new cell is started.
    n_splits : int
        Only the first this many splits of each row (10: all).
    rows : dict, optional
        Graphs of each protocol (default :data:`COMPARISON_PROTOCOLS`; the
        structure-only table: :data:`STRUCTURE_PROTOCOLS`). With ``rows`` given, the
        cells are measured method by method in the order of ``methods``, split by split
        (:func:`split_major`).

    Returns
    -------
    int
        Number of cells measured.
    """
    from tqdm.auto import tqdm

    path = Path(cells_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    jobs = comparison_jobs(protocols, methods, seed, data_home, device, load_cells(path),
                           graphs, n_splits, rows)
    if rows is not None:
        jobs = split_major(jobs, methods)
    if any(not job[2].startswith("AsK-LS") and job[2] not in REFERENCES for job in jobs):
        from ._gnn_models import SIGNED_METHODS, import_torch

        # A clear ImportError before hours of cells.
        import_torch(signed=any(job[2] in SIGNED_METHODS for job in jobs))
    measured = 0
    bar = tqdm(total=len(jobs), desc="comparison cells", disable=not verbose)
    with open(path, "a") as out:
        if n_workers <= 1:
            results = (run_cell(job) for job in jobs
                       if deadline is None or time.time() < deadline)
        else:
            import multiprocessing

            context = multiprocessing.get_context("spawn")
            pool = context.Pool(n_workers, initializer=_worker_start, initargs=(deadline,))
            results = (cell for cell in pool.imap_unordered(run_cell_or_skip, jobs)
                       if cell is not None)
        for cell in results:
            out.write(json.dumps(cell) + "\n")
            out.flush()
            measured += 1
            bar.update()
            logger.info("%s %s %s split %d: %.3f", cell["protocol"], cell["graph"],
                        cell["method"], cell["split"], cell["accuracy"])
        if n_workers > 1:
            pool.close()
            pool.join()
    bar.close()
    return measured


_DEADLINE = None


def _worker_start(deadline):
    global _DEADLINE
    _DEADLINE = deadline
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


def run_cell_or_skip(job):
    """:func:`run_cell`, or None once the deadline has passed or when the cell fails
    (the failure is logged; the cell stays missing and is tried by the next run)."""
    if _DEADLINE is not None and time.time() > _DEADLINE:
        return None
    try:
        return run_cell(job)
    except Exception as error:          # a worker keeps going; the cell stays missing
        logger.warning("cell %s failed: %r", job[:5], error)
        return None
