"""Directed graphs of every kind: the default against each kernel family and the peers.

Every method runs on the same splits, in one process: the dataset's fixed splits where
it ships them (train on the training nodes only, score on the test nodes), else random
60/40 splits of the labelled nodes. Accuracy is micro-F1. The rerun methods are

* ``"AsK-LS default"``: ``NodeClassifier()``, which chooses its kernel family, gamma and
  merge per split by cross-validation, with the dataset's node attributes where it has
  them;
* each kernel family on its own (``NodeClassifier(kernel=WalkKernel())`` and so on; the
  attribute kernel only on graphs with attributes);
* the scikit-network peers: PageRank votes on the undirected and the directed graph, and
  heat diffusion on the undirected graph (:class:`PeerClassifier`, structure only).

Published figures (:data:`PUBLISHED_DIRECTED`) are listed apart, with their source, and
marked "published, not rerun": they come from other code and other protocols.
"""

import logging

from digraph_askls.datasets import load_dataset
from digraph_askls.kernels import (AttributeKernel, LinkProfileKernel, RoleKernel,
                                   SmoothedAttributeKernel, WalkKernel)
from digraph_askls.models import NodeClassifier
from digraph_askls.peers import PeerClassifier
from ._cells import CellCache
from ._directed_plot import plot_directed
from ._gnn import GNNClassifier
from ._gnn_config import GNN_METHODS, get_config
from digraph_askls.peers import PeerClassifier
from ._protocols import check_protocol
from digraph_askls.model_selection import class_splits, fixed_splits, random_splits
from ._published import PUBLISHED_DIRECTED, published_rows
from ._runner import run_graph

__all__ = ["DIRECTED_DATASETS", "DIRECTED_METHODS", "EXTRA_METHODS", "PUBLISHED_DIRECTED",
           "run_directed",
           "format_directed", "plot_directed"]

logger = logging.getLogger(__name__)

#: The graphs of the table: directed, with or without attributes and fixed splits.
DIRECTED_DATASETS = ("chameleon", "squirrel", "texas", "wisconsin", "film", "polblogs",
                     "cora", "citeseer", "pubmed")

#: Rerun methods, in the order of the table.
DIRECTED_METHODS = ("AsK-LS default", "AsK-LS walk", "AsK-LS link profile",
                    "AsK-LS attribute", "AsK-LS role", "PageRank undirected",
                    "PageRank directed", "diffusion undirected")

#: Methods that only some tables run: the default on the structure alone (on graphs with
#: attributes) and the family for few labelled nodes.
EXTRA_METHODS = ("AsK-LS default, structure", "AsK-LS smoothed attribute")

_FAMILIES = {"AsK-LS walk": WalkKernel, "AsK-LS link profile": LinkProfileKernel,
             "AsK-LS attribute": AttributeKernel, "AsK-LS role": RoleKernel,
             "AsK-LS smoothed attribute": SmoothedAttributeKernel}
#: Methods that need node attributes: left out on graphs without them.
_NEED_FEATURES = ("AsK-LS attribute", "AsK-LS smoothed attribute", "AsK-LS default, structure")


class _StructureOnly(NodeClassifier):
    """``NodeClassifier()`` that never takes node attributes: the structure alone."""

    def fit(self, graph, labels, *, nodelist=None, weight="weight"):
        return super().fit(graph, labels, nodelist=nodelist, weight=weight)
_PEERS = {"PageRank undirected": ("pagerank", False), "PageRank directed": ("pagerank", True),
          "diffusion undirected": ("diffusion", False)}


def _make(method, graph_name=None, n_threads=1):
    """``make_classifier(seed)`` of a rerun method, by name: the AsK-LS methods and
    scikit-network peers of :data:`DIRECTED_METHODS` and the graph neural networks of
    :data:`GNN_METHODS` (with their authors' settings for ``graph_name`` where published,
    on ``n_threads`` torch threads)."""
    if method == "AsK-LS default":
        return lambda seed: NodeClassifier(random_state=seed)
    if method == "AsK-LS default, structure":
        return lambda seed: _StructureOnly(random_state=seed)
    if method in _FAMILIES:
        family = _FAMILIES[method]
        return lambda seed: NodeClassifier(kernel=family(), random_state=seed)
    if method in GNN_METHODS:
        config = get_config(method, graph_name)
        return lambda seed: GNNClassifier(method, config=config, n_threads=n_threads,
                                          random_state=seed)
    peer, directed = _PEERS[method]
    return lambda seed: PeerClassifier(method=peer, directed=directed)


def _check_methods(methods):
    if methods is None:
        return DIRECTED_METHODS
    methods = [methods] if isinstance(methods, str) else list(methods)
    known = DIRECTED_METHODS + EXTRA_METHODS + GNN_METHODS
    unknown = [method for method in methods if method not in known]
    if unknown or not methods:
        raise ValueError(f"unknown methods {unknown}; choose from {list(known)}")
    return tuple(methods)


def _splits(graph, n_trials, random_state, per_class=None, train_size=None):
    """(splits, protocol, validation nodes): ``per_class`` labelled nodes of each class if
    given, else a fraction ``train_size`` of the labelled nodes if given, else the fixed
    splits (at most ``n_trials``, with their validation nodes) where shipped, else random
    60/40 splits."""
    if per_class is not None:
        return (class_splits(graph.labels, per_class, n_trials, random_state),
                f"{per_class} labels per class", None)
    if train_size is not None:
        return (random_splits(graph.labels, train_size, n_trials, random_state),
                f"{train_size:.0%} labelled", None)
    if getattr(graph, "splits", None):
        valid = [split.valid for split in graph.splits[:n_trials]]
        return fixed_splits(graph)[:n_trials], "fixed splits", valid
    return random_splits(graph.labels, 0.6, n_trials, random_state), "random 60/40", None


def _run_graph(name, graph, n_trials, random_state, verbose, methods, per_class=None,
               cache=None, recompute=(), cached_only=False, n_threads=1, train_size=None):
    splits, protocol, valid = _splits(graph, n_trials, random_state, per_class, train_size)
    if graph.features is None:
        methods = [method for method in methods if method not in _NEED_FEATURES]

    def skip(method):
        if method in GNN_METHODS and graph.features is None:
            return "not run: the GNN peers need node attributes"
        return None

    def settings(method):
        return get_config(method, name) if method in GNN_METHODS else None

    return run_graph(name, graph, methods, splits, valid, protocol,
                     make=lambda method: _make(method, name, n_threads), settings=settings,
                     cache=CellCache() if cache is None else cache, recompute=recompute,
                     cached_only=cached_only, verbose=verbose, skip=skip,
                     # The validation nodes are the networks' stopping set; the AsK-LS
                     # rows fit the training nodes alone and choose by their folds.
                     validates=lambda method: method in GNN_METHODS)


def run_directed(datasets=DIRECTED_DATASETS, n_trials=10, data_home=None, random_state=0,
                 verbose=True, methods=None, per_class=None, cache=None, recompute=(),
                 cached_only=False, n_threads=1, train_size=None):
    """Accuracy of the default, each kernel family and the peers on the same splits.

    Parameters
    ----------
    datasets : sequence of str or Graph
        Registered dataset names (read from ``data_home``, never downloaded), or graphs
        already in memory (:class:`~digraph_askls.graph.Graph`, named by ``graph.name``).
        A missing file gives a row whose status is "data not available".
    n_trials : int, default=10
        Number of splits: the first ``n_trials`` fixed splits of a dataset that ships
        them, else ``n_trials`` random 60/40 splits of the labelled nodes (seeds
        ``(random_state, trial)``).
    data_home : str or os.PathLike, optional
        Data folder (see :func:`digraph_askls.datasets.get_data_home`).
    random_state : int, default=0
        Base seed of the random splits.
    verbose : bool, default=True
        Progress bars.
    methods : sequence of str, optional
        Rerun methods among :data:`DIRECTED_METHODS` (default: all of them) and the
        graph neural networks of :data:`GNN_METHODS` (``pip install
        "digraph-askls[gnn]"``; without it their rows say "not available").
    per_class : int, optional
        Instead of the splits above, ``n_trials`` random splits with ``per_class``
        labelled nodes of each class (:func:`class_splits`, seeds ``(random_state,
        trial)``), every other labelled node a test node.
    train_size : float, optional
        Instead of the splits above, ``n_trials`` random splits that label this fraction
        of the labelled nodes (:func:`random_splits`), every other one a test node.
    cache : str, os.PathLike or CellCache, optional
        JSON-lines file of measured cells (graph, protocol, method, split): each cell is
        appended as soon as it is measured, and cells found there are not measured again.
    recompute : collection of str
        Methods measured again even where ``cache`` has their cells.
    cached_only : bool, default=False
        Measure only the ``recompute`` methods; the others from the cached cells alone
        (``n_splits`` says how many).
    n_threads : int, default=1
        torch threads of the graph neural networks.

    Returns
    -------
    list of dict
        JSON-serialisable rows. Rerun rows (``published`` False, ``status`` "ok"):
        ``graph``, ``method``, ``protocol`` ("fixed splits" or "random 60/40"),
        ``n_splits``, ``seeds``, ``accuracy_mean``/``_std`` (micro-F1),
        ``macro_f1_mean``/``_std``, ``seconds_per_split``, the per-split ``accuracy``
        and ``seconds``, ``threads`` (torch threads of a GNN, else BLAS threads), and for
        AsK-LS ``selected_families`` (family -> number of
        splits) and ``selected_gammas``. Published rows (``published`` True, ``status``
        "published, not rerun") carry ``accuracy_mean``, ``protocol`` and ``source``.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.graph import Graph, Split, get_adjacency
    >>> edges = [(i, (i + 1) % 8) for i in range(8)] + [(i, (i + 3) % 8) for i in range(8)]
    >>> adjacency, nodes = get_adjacency(edges)
    >>> labels = np.array([0, 1] * 4)
    >>> graph = Graph(adjacency, labels, nodes, ["a", "b"], name="tiny",
    ...               splits=[Split([0, 1, 2, 3, 4, 5], [], [6, 7])])
    >>> rows = run_directed([graph], methods=["AsK-LS walk", "AsK-LS role"], verbose=False)
    >>> [(row["method"], row["protocol"], row["n_splits"]) for row in rows]
    [('AsK-LS walk', 'fixed splits', 1), ('AsK-LS role', 'fixed splits', 1)]
    """
    check_protocol(n_trials)
    methods = _check_methods(methods)
    if not isinstance(cache, CellCache):
        cache = CellCache(cache)
    recompute = set(_check_methods(recompute)) if recompute else set()
    rows = []
    for dataset in datasets:
        name, graph = (dataset, None) if isinstance(dataset, str) else (dataset.name, dataset)
        if graph is None:
            try:
                graph = load_dataset(name, data_home=data_home, download=False)
            except (FileNotFoundError, OSError) as error:
                rows.append({"graph": name, "status": f"data not available: {error}",
                             "published": False})
        if graph is not None:
            rows.extend(_run_graph(name, graph, n_trials, random_state, verbose, methods,
                                   per_class, cache, recompute, cached_only, n_threads,
                                   train_size))
        if train_size is None:
            rows.extend(published_rows(name, per_class))
    return rows


def _chosen(row):
    """"AttributeKernel 7, LinkProfileKernel 3": the families the default selected."""
    counts = row.get("selected_families") or {}
    return ", ".join(f"{family} {count}" for family, count
                     in sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def format_directed(rows):
    """Markdown: the rerun methods in one table, the published figures in another.

    Parameters
    ----------
    rows : list of dict
        Output of :func:`run_directed`.

    Returns
    -------
    str

    Examples
    --------
    >>> rows = [{"graph": "tiny", "method": "AsK-LS default", "status": "ok",
    ...          "published": False, "protocol": "fixed splits", "n_splits": 1,
    ...          "accuracy_mean": 1.0, "accuracy_std": 0.0, "macro_f1_mean": 1.0,
    ...          "macro_f1_std": 0.0, "seconds_per_split": 0.1,
    ...          "selected_families": {"WalkKernel": 1}},
    ...         {"graph": "other", "status": "data not available: no file", "published": False}]
    >>> print(format_directed(rows).splitlines()[4])
    | tiny | fixed splits (1) | AsK-LS default | 1.000 ± 0.000 | 1.000 ± 0.000 | 0.10 | WalkKernel 1 |
    """
    lines = ["**Run here**: every method on the same splits, in one process.", "",
             "| graph | protocol | method | accuracy | macro-F1 | s / split "
             "| kernel selected (splits) |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        if row.get("published"):
            continue
        graph, status = row["graph"], row.get("status", "ok")
        if status.startswith("data not available"):
            lines.append(f"| {graph} | | | data not available | | | |")
            continue
        protocol = f"{row['protocol']} ({row['n_splits']})"
        if status != "ok":
            lines.append(f"| {graph} | {protocol} | {row['method']} | {status} | | | |")
            continue
        lines.append(
            f"| {graph} | {protocol} | {row['method']} "
            f"| {row['accuracy_mean']:.3f} ± {row['accuracy_std']:.3f} "
            f"| {row['macro_f1_mean']:.3f} ± {row['macro_f1_std']:.3f} "
            f"| {row['seconds_per_split']:.2f} "
            f"| {_chosen(row) if row['method'] == 'AsK-LS default' else ''} |")
    lines += ["", "Accuracy is micro-F1 on the test nodes, mean ± std over the splits; the "
              "seconds per split include the kernel selection. AsK-LS uses the node "
              "attributes where the data has them; the peers use the structure only."]
    published = [row for row in rows if row.get("published")]
    if published:
        lines += ["", "**Published, not rerun**: figures from the papers, other code and "
                  "possibly other splits; for orientation only.", "",
                  "| graph | method | accuracy | protocol | source |", "|---|---|---|---|---|"]
        lines += [f"| {row['graph']} | {row['method']} (published, not rerun) "
                  f"| {row['accuracy_mean']:g} | {row['protocol']} | {row['source']} |"
                  for row in published]
    return "\n".join(lines)
