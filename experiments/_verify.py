"""``python -m experiments verify TABLE``: rerun a table's cells on today's code and list
those that differ from the stored ones.

A stored cell says what a method scored on one split when it was measured; the library
has changed since. ``verify`` measures the cells again, exactly as the table measured
them (same split, same seeds, one BLAS thread), and compares the score and, where the
cell stored one, the digest of the predictions (:func:`._cells.predictions_digest`): two
runs that decide every test node alike have the same digest, whatever their accuracy's
rounding. It also says where the digest of the estimator's parameters
(:func:`._cells.params_digest`) moved, i.e. where the default itself is configured
otherwise. It reports and never writes a cell: the stored cells stay as they are, and
remeasuring a table is the table command's work.

Tables (:data:`VERIFIERS`):

* ``comparison``: the cells of ``docs/results/comparison-cells.jsonl`` (or of another
  file in its format, e.g. ``comparison-twins-cells.jsonl``,
  ``estimate-sealed-cells.jsonl``, with ``--cells``); the AsK-LS forms and the twin
  baseline can be rerun, the networks cannot (they need a device and hours).
* ``long-tail``: the AsK-LS cells of ``docs/results/long_tail-cells.jsonl``.
* ``rare-classes``: the AsK-LS cells of ``docs/results/rare_classes-cells.jsonl`` (their
  ``trial`` is the ``split`` of the other tables).

The other cell files (``gnn``, ``few_labels``, ``blogcatalog``) key their cells by a
digest of the split alone and are not rerun here.
"""

import json
import time
from pathlib import Path


__all__ = ["VERIFIERS", "format_verification", "verify_cells"]


def _comparison_rerun(cell, data_home):
    from . import _comparison

    return _comparison.run_cell((cell["protocol"], cell["graph"], cell["method"],
                                 int(cell["seed"]), int(cell["split"]), data_home, "cpu"))


_LONG_TAIL_DRAWS = {}


def _long_tail_rerun(cell, data_home):
    from digraph_askls.datasets import load_dataset
    from ._protocols import long_tail_splits

    from . import _long_tail

    key = (cell["graph"], int(cell["seed"]), data_home)
    if key not in _LONG_TAIL_DRAWS:
        graph = load_dataset(cell["graph"], data_home=data_home, download=False)
        _LONG_TAIL_DRAWS[key] = graph, long_tail_splits(
            graph.labels, n_trials=_long_tail._N_DRAWS, random_state=int(cell["seed"]))
    graph, draws = _LONG_TAIL_DRAWS[key]
    _, train, test = draws[int(cell["split"])]
    return _long_tail.run_cell(graph, cell["graph"], cell["method"], int(cell["seed"]),
                               int(cell["split"]), train, test)


_RARE_TRIALS = {}


def _rare_classes_rerun(cell, data_home):
    from digraph_askls.datasets import load_dataset

    from . import _rare_classes

    key = (cell["graph"], int(cell["seed"]), data_home)
    if key not in _RARE_TRIALS:
        graph = load_dataset(cell["graph"], data_home=data_home, download=False)
        _RARE_TRIALS[key] = graph, _rare_classes.planetoid_trials(
            graph, cell["graph"], int(cell["seed"]), data_home=data_home)
    graph, trials = _RARE_TRIALS[key]
    _, train, valid, test = trials[int(cell["trial"])]
    now = _rare_classes.run_cell(graph, cell["graph"], cell["method"], int(cell["seed"]),
                                 int(cell["trial"]), train, valid, test)
    return dict(now, split=now["trial"])


def _comparison_cells(path):
    from ._comparison import load_cells

    return list(load_cells(path, current=False).values())


def _long_tail_cells(path):
    from ._long_tail import load_cells

    return list(load_cells(path).values())


def _rare_classes_cells(path):
    from ._rare_classes import load_cells

    return [dict(cell, split=cell["trial"]) for cell in load_cells(path).values()]


#: Per table: its cells' file (under ``docs/results``), how to read them, how to rerun
#: one, the methods that can be rerun, and the scores compared.
VERIFIERS = {
    "comparison": {"file": "comparison-cells.jsonl", "read": _comparison_cells,
                   "rerun": _comparison_rerun, "scores": ("accuracy",),
                   "methods": ("AsK-LS default", "AsK-LS default (train part)",
                               "AsK-LS default (validated)", "twin baseline")},
    "long-tail": {"file": "long_tail-cells.jsonl", "read": _long_tail_cells,
                  "rerun": _long_tail_rerun,
                  "scores": ("balanced_accuracy", "f1_macro", "accuracy"),
                  "methods": ("AsK-LS default", "AsK-LS balanced")},
    "rare-classes": {"file": "rare_classes-cells.jsonl", "read": _rare_classes_cells,
                     "rerun": _rare_classes_rerun,
                     "scores": ("balanced_accuracy", "f1_macro", "accuracy"),
                     "methods": ("AsK-LS balanced", "AsK-LS balanced, self-trained")},
}


def _row(cell):
    """The table row of a cell: ``protocol:graph`` (the graph alone without a protocol)."""
    return f"{cell['protocol']}:{cell['graph']}" if "protocol" in cell else cell["graph"]


def select_cells(cells, methods, rows=None, splits=None, seed=None, limit=None):
    """The cells to rerun: of ``methods``, of the ``rows`` (``protocol:graph`` or a graph
    alone, any protocol) and ``splits`` where given, of ``seed``; in the table's order
    (row, method, split), at most ``limit``.

    Examples
    --------
    >>> cells = [{"protocol": "60/40", "graph": g, "method": "AsK-LS default", "seed": 1,
    ...           "split": s} for g in ("cora", "citeseer") for s in range(3)]
    >>> [(c["graph"], c["split"]) for c in select_cells(cells, ["AsK-LS default"],
    ...                                                  rows=["60/40:cora"], limit=2)]
    [('cora', 0), ('cora', 1)]
    """
    chosen = []
    for cell in cells:
        if cell["method"] not in methods or "error" in cell:
            continue
        if seed is not None and int(cell["seed"]) != int(seed):
            continue
        if rows and not any(row in (_row(cell), cell["graph"]) for row in rows):
            continue
        if splits is not None and int(cell["split"]) not in splits:
            continue
        chosen.append(cell)
    chosen.sort(key=lambda cell: (_row(cell), list(methods).index(cell["method"]),
                                  int(cell["split"])))
    return chosen if limit is None else chosen[:limit]


def compare(stored, now, scores, tolerance=0.0):
    """How a rerun cell ``now`` differs from the ``stored`` one: one dict per cell with
    the scores of both, whether the split, a score (by more than ``tolerance``), the
    predictions or the parameters differ (None where the stored cell has no digest) and
    ``differs``, whether any of the split, the scores or the predictions does.

    Examples
    --------
    >>> cell = {"graph": "cora", "method": "AsK-LS default", "seed": 1, "split": 0,
    ...         "accuracy": 0.5}
    >>> compare({**cell, "predictions_digest": "a"}, {**cell, "predictions_digest": "b"},
    ...         ["accuracy"])["differs"]
    True
    >>> compare(cell, {**cell, "predictions_digest": "b"}, ["accuracy"])["predictions_differ"]
    >>> compare(cell, {**cell, "accuracy": 0.6}, ["accuracy"])["scores_differ"]
    ['accuracy']
    """
    found = {"row": _row(stored), "method": stored["method"], "seed": int(stored["seed"]),
             "split": int(stored["split"])}
    moved = []
    for score in scores:
        before, after = stored.get(score), now.get(score)
        found[score], found[f"{score}_now"] = before, after
        if before is None or after is None:
            continue
        if abs(float(before) - float(after)) > tolerance:
            moved.append(score)
    found["scores_differ"] = moved
    found["split_differs"] = ("nodes" in stored and "nodes" in now
                              and stored["nodes"] != now["nodes"])
    for field, name in (("predictions_digest", "predictions_differ"),
                        ("params_digest", "params_differ")):
        found[name] = (None if field not in stored or field not in now
                       else stored[field] != now[field])
    found["stored_commit"] = stored.get("commit")
    found["differs"] = bool(moved or found["split_differs"] or found["predictions_differ"])
    return found


def verify_cells(table, cells, methods=None, rows=None, splits=None, seed=None, limit=None,
                 data_home=None, tolerance=0.0, verbose=True):
    """Rerun the selected cells of ``table`` (:func:`select_cells`) and compare each with
    its stored self (:func:`compare`). Nothing is written.

    Parameters
    ----------
    table : str
        A key of :data:`VERIFIERS`.
    cells : list of dict
        The stored cells (e.g. ``VERIFIERS[table]["read"](path)``).
    methods : sequence of str, optional
        Methods to rerun (default: the table's first rerunnable one, ``"AsK-LS
        default"``, or ``"AsK-LS balanced"`` for ``rare-classes``); among the table's
        rerunnable ones.
    rows, splits, seed, limit
        See :func:`select_cells`.
    data_home : str, optional
        The datasets' folder.
    tolerance : float
        A score differs when it moves by more than this (default 0: any change).

    Returns
    -------
    list of dict
        One per rerun cell (:func:`compare`), with ``seconds`` of the rerun.
    """
    from tqdm.auto import tqdm

    if table not in VERIFIERS:
        raise ValueError(f"expected a table among {sorted(VERIFIERS)}, got {table!r}")
    verifier = VERIFIERS[table]
    methods = list(methods or verifier["methods"][:1])
    unknown = [method for method in methods if method not in verifier["methods"]]
    if unknown:
        raise ValueError(f"{table}: expected methods among {list(verifier['methods'])} (the "
                         f"ones a rerun can measure here), got {unknown}")
    chosen = select_cells(cells, methods, rows, splits, seed, limit)
    results = []
    for stored in tqdm(chosen, desc=f"verify {table}", disable=not verbose):
        start = time.perf_counter()
        now = verifier["rerun"](stored, data_home)
        result = compare(stored, now, verifier["scores"], tolerance)
        result["seconds"] = time.perf_counter() - start
        results.append(result)
    return results


def _score(value):
    return "" if value is None else f"{value:.4f}"


def format_verification(table, results, scores, provenance=None):
    """The report of :func:`verify_cells`: a summary and a table of the cells that
    differ.

    Examples
    --------
    >>> result = {"row": "60/40:cora", "method": "AsK-LS default", "seed": 1, "split": 0,
    ...           "accuracy": 0.8, "accuracy_now": 0.8, "scores_differ": [],
    ...           "split_differs": False, "predictions_differ": False,
    ...           "params_differ": False, "differs": False, "stored_commit": None}
    >>> print(format_verification("comparison", [result], ["accuracy"]))
    comparison: 1 cell rerun, 0 differ (0 in a score, 0 in their predictions alone)
    1 with a stored predictions digest, 0 whose parameters' digest moved
    """
    differing = [result for result in results if result["differs"]]
    in_score = sum(1 for result in differing if result["scores_differ"])
    digested = sum(1 for result in results if result["predictions_differ"] is not None)
    params = sum(1 for result in results if result["params_differ"])
    noun = "cell" if len(results) == 1 else "cells"
    lines = [f"{table}: {len(results)} {noun} rerun, {len(differing)} differ ({in_score} in "
             f"a score, {len(differing) - in_score} in their predictions alone)",
             f"{digested} with a stored predictions digest, {params} whose parameters' "
             f"digest moved"]
    if provenance:
        lines.append("rerun on commit {commit}{dirty}, library {library_version}".format(
            commit=provenance.get("commit") or "unknown",
            dirty=" (with uncommitted changes)" if provenance.get("dirty") else "",
            library_version=provenance.get("library_version")))
    if differing:
        header = " | ".join(f"{score} stored | now" for score in scores)
        lines += ["", f"| row | method | split | {header} | predictions | stored on |",
                  "|---|---|---|" + "---|---|" * len(scores) + "---|---|"]
        for result in differing:
            values = " | ".join(f"{_score(result[score])} | {_score(result[score + '_now'])}"
                                for score in scores)
            predictions = {None: "no digest stored", True: "differ",
                           False: "same"}[result["predictions_differ"]]
            if result["split_differs"]:
                predictions += "; the split's nodes differ"
            lines.append(f"| {result['row']} | {result['method']} | {result['split']} | "
                         f"{values} | {predictions} | "
                         f"{(result['stored_commit'] or 'not recorded')[:10]} |")
    return "\n".join(lines)


def command_verify(args, notes):
    """``python -m experiments verify TABLE``: the handler of the command line."""
    from ._cells import provenance

    verifier = VERIFIERS[args.table]
    path = Path(args.cells) if args.cells else Path("docs/results") / verifier["file"]
    if not path.is_file():
        raise FileNotFoundError(f"no cells file at {path}; name one with --cells")
    cells = verifier["read"](path)
    seed = args.seed
    if seed is None:
        from ._comparison import SEALED_SEED

        seed = SEALED_SEED
    results = verify_cells(args.table, cells, args.methods, args.rows,
                           None if args.splits is None else set(args.splits), seed,
                           args.limit, args.data_home, args.tolerance, notes.progress)
    if not results:
        raise ValueError(f"no cell of {path} matches the methods "
                         f"{args.methods or list(verifier['methods'][:1])}, rows {args.rows}, splits "
                         f"{args.splits} and seed {seed}")
    print(format_verification(args.table, results, verifier["scores"], provenance()))
    if args.report:
        Path(args.report).write_text(json.dumps(
            {"table": args.table, "cells": str(path), "rerun_on": provenance(),
             "results": results}, indent=1, default=float) + "\n")
        print(f"report written to {args.report}")
    return 1 if any(result["differs"] for result in results) else 0


def add_verify(commands, common):
    """The ``verify`` command of ``python -m experiments``."""
    import argparse

    verify = commands.add_parser(
        "verify", help="rerun the default's cells of a table on the current code and list "
                       "those that differ (reports; never writes a cell)",
        description="Rerun the stored cells of a table (by default those of 'AsK-LS "
                    "default' on the sealed seed) exactly as the table measured them, and "
                    "list the cells whose score or predictions' digest differs from the "
                    "stored one. Exit status 0 when none differs, 1 when some do. Cells "
                    "written before the digests existed are compared by their scores "
                    "alone. Nothing is written but --report.",
        epilog="examples:\n  python -m experiments verify comparison --data-home "
               "../shared/datasets\n  python -m experiments verify comparison --rows "
               "60/40:cora fixed:texas --limit 5 --data-home ../shared/datasets\n"
               "  python -m experiments verify comparison --cells "
               "docs/results/comparison-twins-cells.jsonl --methods 'AsK-LS default "
               "(validated)'",
        formatter_class=argparse.RawDescriptionHelpFormatter, parents=common)
    verify.add_argument("table", choices=sorted(VERIFIERS),
                        help="which table's cells to rerun")
    verify.add_argument("--cells", default=None,
                        help="the JSON-lines file of cells (default: "
                             "docs/results/<table's file>, e.g. comparison-cells.jsonl)")
    verify.add_argument("--methods", nargs="+", default=None, metavar="METHOD",
                        help="methods rerun (default: 'AsK-LS default'); comparison: the "
                             "AsK-LS forms and 'twin baseline'; long-tail: 'AsK-LS "
                             "default', 'AsK-LS balanced'")
    verify.add_argument("--rows", nargs="+", default=None, metavar="ROW",
                        help="rows rerun: PROTOCOL:GRAPH (e.g. 60/40:cora, 'fixed:texas') "
                             "or a graph alone, every protocol (default: all)")
    verify.add_argument("--splits", nargs="+", type=int, default=None,
                        help="split numbers rerun (default: all)")
    verify.add_argument("--limit", type=int, default=None,
                        help="rerun at most this many cells, in the table's order")
    verify.add_argument("--seed", type=int, default=None,
                        help="base seed of the cells (default: the sealed seed)")
    verify.add_argument("--tolerance", type=float, default=0.0,
                        help="a score differs when it moves by more than this (default 0)")
    verify.add_argument("--data-home", default=None,
                        help="data folder (default: $DIGRAPH_ASKLS_DATA, then ./datasets, "
                             "then the user cache); nothing is downloaded")
    verify.add_argument("--report", default=None,
                        help="also write every rerun cell's comparison to this JSON file")
    verify.add_argument("--quiet", action="store_true", help="no progress bar")
    verify.set_defaults(handler=command_verify)
