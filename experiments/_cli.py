"""Command line of the research harness: ``python -m experiments <command> ...``.

Run from the root of the repository, where the folder ``experiments`` lies beside the
library. The commands draw the result tables of ``docs/results``: ``table`` (the directed
graphs, the graph neural networks, the few-label regimes and the comparison) and the
paper's Tables 1, 3 and 4 (``table1``, ``table3``, ``table4``); ``verify`` reruns a
table's stored cells on the current code and lists those that differ.

Examples
--------
``python -m experiments table directed --datasets texas wisconsin --trials 2``
``python -m experiments table comparison --cached-only``
``python -m experiments table4 --datasets heart --trials 2 --cv 3 --quiet``
"""

import argparse
import json
import warnings
from contextlib import contextmanager

from digraph_askls.cli import _global_options, _run_command

__all__ = ["build_parser", "main"]

EPILOG_MAIN = """examples:
  python -m experiments table4 --datasets heart --trials 2 --cv 3 --quiet
  python -m experiments table directed --datasets texas wisconsin --trials 2 --out docs/results
  python -m experiments table gnn --data-home ../shared/datasets --out docs/results
  python -m experiments table comparison --cached-only
  python -m experiments verify comparison --rows 60/40:cora --limit 3 --data-home ../shared/datasets

Run 'python -m experiments <command> --help' for the options of a command.
"""


def _report(stem, rows, markdown, out_dir):
    """Print a result table; with ``out_dir``, also write ``<stem>.md`` and ``<stem>.json``.

    Returns the output folder, or None when nothing was written.
    """
    from pathlib import Path

    print(markdown)
    if not out_dir:
        return None
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.json").write_text(json.dumps(rows, indent=2))
    (out / f"{stem}.md").write_text(markdown + "\n")
    print(f"written to {out}")
    return out


_DATA_HOME_HINT = ("point --data-home at the folder that holds the data (or set the "
                   "environment variable DIGRAPH_ASKLS_DATA)")


def _check_data(rows, key, notes):
    """Raise when no dataset a table asked for could be read; note the missing ones
    when some were read (their rows say "data not available")."""
    missing = {}
    for row in rows:
        status = str(row.get("status", ""))
        if status.startswith("data not available"):
            missing.setdefault(row[key], status.removeprefix("data not available: "))
    read = {row[key] for row in rows if not row.get("published") and row[key] not in missing}
    if not missing:
        return
    names = ", ".join(missing)
    if not read:
        first = next(iter(missing.values()))
        raise FileNotFoundError(f"none of the datasets asked for could be read ({names}); "
                                f"{_DATA_HOME_HINT}. First error: {first}")
    notes.write(f"note: data not available for {names}, whose rows are empty; "
                f"{_DATA_HOME_HINT}")


@contextmanager
def _data_home_hint(option="--data-home"):
    """Add to a missing-data error of a table runner how to point the command at the data."""
    try:
        yield
    except (FileNotFoundError, OSError) as error:
        raise FileNotFoundError(f"{error}\nOn the command line, "
                                f"{_DATA_HOME_HINT.replace('--data-home', option)}.") from None


@contextmanager
def _damped_run(option="--data-home"):
    """Run a cross-validated table of the paper: the singular systems that some folds meet
    are solved damped without a warning each, and a missing-data error says how to point
    the command at the data (:func:`_data_home_hint`)."""
    from digraph_askls.linalg import SingularSystemWarning

    with warnings.catch_warnings(), _data_home_hint(option):
        warnings.simplefilter("ignore", SingularSystemWarning)
        yield


def _draw(notes, what, plot, *arguments):
    """Draw a figure with ``plot(*arguments)``; without matplotlib, note that there is no
    ``what`` instead of failing the command."""
    try:
        plot(*arguments)
    except ImportError as error:
        notes.write(f"no {what}: {error}")


def _command_table(args, notes):
    from pathlib import Path

    import experiments

    if args.table == "comparison":
        return _command_comparison(args, notes)
    if args.table == "comparison-structure":
        return _command_comparison_structure(args, notes)
    if args.table == "long-tail":
        return _command_long_tail(args, notes)
    if args.table == "rare-classes":
        return _command_rare_classes(args, notes)
    known = tuple(dict.fromkeys(experiments.DIRECTED_METHODS + experiments.GNN_METHODS
                                + experiments.FEW_LABEL_METHODS))
    for option in ("methods", "recompute"):
        unknown = [name for name in getattr(args, option) or () if name not in known]
        if unknown:
            raise ValueError(f"--{option}: expected names among {', '.join(known)}, got "
                             f"{', '.join(map(repr, unknown))}")
    cache = args.cache
    if cache is None and args.table in ("gnn", "few-labels") and args.out:
        cache = Path(args.out) / f"{args.table.replace('-', '_')}-cells.jsonl"
    options = {"n_trials": args.trials, "data_home": args.data_home,
               "random_state": 0 if args.seed is None else args.seed,
               "verbose": notes.progress, "cache": cache, "recompute": args.recompute or (),
               "cached_only": args.cached_only, "n_threads": args.threads}
    if args.table == "few-labels":
        from experiments._few_labels import parse_protocol

        protocols = ([parse_protocol(text) for text in args.protocols] if args.protocols
                     else experiments.FEW_LABEL_PROTOCOLS)
        rows = experiments.run_few_labels(
            args.datasets or experiments.DIRECTED_DATASETS, protocols,
            methods=args.methods or experiments.FEW_LABEL_METHODS, **options)
        markdown, plot = experiments.format_few_labels(rows), experiments.plot_few_labels
    elif args.table == "gnn":
        rows = experiments.run_gnn_table(
            args.datasets or experiments.GNN_DATASETS,
            experiments.FEW_LABEL_DATASETS if args.few_label_datasets is None
            else args.few_label_datasets, per_class=args.per_class or 20,
            methods=args.methods or experiments.GNN_TABLE_METHODS, **options)
        markdown, plot = experiments.format_gnn(rows), experiments.plot_tradeoff
    else:
        rows = experiments.run_directed(args.datasets or experiments.DIRECTED_DATASETS,
                                        methods=args.methods, per_class=args.per_class,
                                        **options)
        markdown, plot = experiments.format_directed(rows), experiments.plot_directed
    _check_data(rows, "graph", notes)
    stem = args.table.replace("-", "_")
    out = _report(stem, rows, markdown, args.out)
    if out is not None:
        _draw(notes, "figure", plot, rows, out / f"{stem}.png")
        if args.table == "directed":
            # Three of its panels with larger text, for the site's landing page.
            _draw(notes, "figure", experiments.plot_directed_summary, rows,
                  out / "directed-summary.png")
    return 0


def _command_long_tail(args, notes):
    """``table long-tail``: measure the missing cells, then write the page from all."""
    from pathlib import Path

    from experiments import _long_tail
    from experiments._comparison import SEALED_SEED

    out = Path(args.out or "docs/results")
    cells_path = Path(args.cache) if args.cache else out / "long_tail-cells.jsonl"
    seed = SEALED_SEED if args.seed is None else args.seed
    methods = args.methods or _long_tail.LONG_TAIL_METHODS
    unknown = [name for name in methods if name not in _long_tail.LONG_TAIL_METHODS]
    if unknown:
        raise ValueError(f"--methods: expected names among "
                         f"{list(_long_tail.LONG_TAIL_METHODS)}, got {unknown}")
    if not args.cached_only:
        _long_tail.run_long_tail(cells_path, args.datasets or _long_tail.LONG_TAIL_GRAPHS,
                                 methods, seed, args.data_home, notes.progress)
    cells = list(_long_tail.load_cells(cells_path).values())
    if not any(int(cell["seed"]) == seed for cell in cells):
        raise ValueError(f"no measured cell of seed {seed} in {cells_path}; run without "
                         f"--cached-only, with --data-home naming the datasets' folder")
    _report("long_tail", _long_tail.summarize(cells, seed),
            _long_tail.format_long_tail(cells, seed), out)
    return 0


def _command_rare_classes(args, notes):
    """``table rare-classes``: measure the missing cells of the Planetoid long-tail
    protocol, then print the table (the page around it is written by hand)."""
    from pathlib import Path

    from experiments import _rare_classes

    out = Path(args.out or "docs/results")
    cells_path = Path(args.cache) if args.cache else out / "rare_classes-cells.jsonl"
    seed = _rare_classes.RARE_SEED if args.seed is None else args.seed
    methods = args.methods or _rare_classes.RARE_METHODS
    unknown = [name for name in methods if name not in _rare_classes.RARE_METHODS]
    if unknown:
        raise ValueError(f"--methods: expected names among "
                         f"{list(_rare_classes.RARE_METHODS)}, got {unknown}")
    if not args.cached_only:
        _rare_classes.run_rare_classes(cells_path, args.datasets or _rare_classes.RARE_GRAPHS,
                                       methods, seed, args.data_home, notes.progress)
    cells = list(_rare_classes.load_cells(cells_path).values())
    print(_rare_classes.format_rare_classes(cells, seed), end="")
    return 0


def _command_comparison(args, notes):
    """``table comparison``: measure the missing cells, then draw the tables from all."""
    from experiments import _comparison, _comparison_report
    from experiments._comparison_plot import plot_comparison

    out, cells_path, seed = _measure_comparison(args, notes, "comparison-cells.jsonl",
                                                _comparison.COMPARISON_PROTOCOLS)
    cells = _seed_cells(cells_path, seed)
    if not cells:
        raise ValueError(f"no measured cell of seed {seed} in {cells_path}; run without "
                         f"--cached-only, with --data-home naming the datasets' folder")
    # the rerun that split the fixed splits' accuracy by twins: <name>-twins-cells.jsonl
    twins_path = cells_path.with_name(cells_path.name.replace("-cells", "-twins-cells"))
    twins = [] if twins_path == cells_path else _seed_cells(twins_path, seed)
    # the rows without node attributes: <name>-structure-cells.jsonl beside it
    structure_path = cells_path.with_name(cells_path.name.replace("-cells",
                                                                  "-structure-cells"))
    structure = [] if structure_path == cells_path else _seed_cells(structure_path, seed)
    markdown = _comparison_report.format_comparison(cells, seed, twins, structure)
    _report("comparison", _comparison_report.summarize(cells), markdown, out)
    _draw(notes, "figure", plot_comparison, cells, out / "comparison.png")
    return 0


def _measure_comparison(args, notes, cells_name, known_protocols, **rows):
    """Measure the missing cells of a comparison table (unless ``--cached-only``) into
    ``--cache`` or ``<out>/<cells_name>``; returns ``(out, cells_path, seed)``. ``rows``:
    the keyword arguments of :func:`~experiments._comparison.run_comparison` that choose
    the table's rows and splits."""
    import time
    from pathlib import Path

    from experiments import _comparison

    out = Path(args.out or "docs/results")
    cells_path = Path(args.cache) if args.cache else out / cells_name
    seed = _comparison.SEALED_SEED if args.seed is None else args.seed
    methods, protocols = _comparison_choice(args, known_protocols)
    if not args.cached_only:
        deadline = None if args.minutes is None else time.time() + 60 * args.minutes
        _comparison.run_comparison(cells_path, protocols, methods, seed, args.data_home,
                                   args.device, args.workers, deadline, notes.progress,
                                   args.datasets, **rows)
    return out, cells_path, seed


def _seed_cells(path, seed):
    """The cells of a comparison cells file measured on ``seed``."""
    from experiments import _comparison

    return [cell for cell in _comparison.load_cells(path).values() if cell["seed"] == seed]


def _comparison_choice(args, known_protocols):
    """The methods and protocols ``args`` names (all by default), each checked against
    the comparison's methods and ``known_protocols``."""
    from experiments import _comparison

    methods = args.methods or _comparison.COMPARISON_METHODS
    protocols = args.protocols or list(known_protocols)
    unknown = [name for name in methods if name not in _comparison.COMPARISON_METHODS]
    unknown += [name for name in protocols if name not in known_protocols]
    if unknown:
        raise ValueError(f"expected methods among {list(_comparison.COMPARISON_METHODS)} and "
                         f"protocols among {list(known_protocols)}, got {unknown}")
    return methods, protocols


def _command_comparison_structure(args, notes):
    """``table comparison-structure``: the rows without node attributes (polblogs, Cora
    and CiteSeer without theirs), measured into their own cells file, method by method in
    the order given and split by split (the first ``--trials`` splits), then their
    section of the comparison page (``<out>/comparison-structure.md``)."""
    from experiments import _comparison, _comparison_report

    out, cells_path, seed = _measure_comparison(
        args, notes, "comparison-structure-cells.jsonl", _comparison.STRUCTURE_PROTOCOLS,
        n_splits=args.trials, rows=_comparison.STRUCTURE_PROTOCOLS)
    cells = _seed_cells(cells_path, seed)
    markdown = "\n".join(_comparison_report.format_structure(cells, seed))
    _report("comparison-structure", _comparison_report.summarize(cells), markdown, out)
    return 0


def _command_table3(args, notes):
    from experiments import format_table3, plot_table3, run_table3

    rows = run_table3(args.datasets, n_trials=args.trials, data_home=args.data_home,
                      random_state=args.seed, verbose=notes.progress)
    _check_data(rows, "dataset", notes)
    out = _report("table3", rows, format_table3(rows), args.out)
    if out is not None:
        _draw(notes, "bar chart", plot_table3, rows, out / "table3.png")
    return 0


def _command_table1(args, notes):
    from pathlib import Path

    from digraph_askls.datasets import get_data_home
    from experiments import format_table1, run_table1

    if args.corel_dir:
        corel_dir, option = args.corel_dir, "--corel-dir"
    else:
        home = Path(args.data_home).expanduser() if args.data_home else get_data_home()
        corel_dir, option = home / "corel1k", "--data-home (or --corel-dir)"
    # The symmetrised KL kernel is indefinite: some CV folds meet singular systems.
    with _damped_run(option):
        rows = run_table1(corel_dir, n_trials=args.trials, n_components=args.n_components,
                          cache_dir=args.cache_dir, random_state=args.seed, cv=args.cv,
                          verbose=notes.progress)
    _report("table1", rows, format_table1(rows), args.out)
    return 0


def _command_table4(args, notes):
    from experiments import format_table4, run_table4

    with _damped_run():  # cross-validation meets singular systems on some folds
        rows = run_table4(args.datasets, n_trials=args.trials, cv=args.cv,
                          data_home=args.data_home, random_state=args.seed,
                          verbose=notes.progress)
    _report("table4", rows, format_table4(rows), args.out)
    return 0


def _add_table(commands, common):
    table = commands.add_parser(
        "table", help="a results table of the library: 'directed' (every kind of digraph), "
                      "'gnn' (AsK-LS beside graph neural networks), 'few-labels' (5 and 20 "
                      "labels per class, 1 %% and 10 %% labelled)",
        description="'directed': on each graph, the default NodeClassifier (kernel chosen "
                    "per split, node attributes where the data has them), each kernel "
                    "family on its own and the scikit-network peers, all on the same "
                    "splits (the dataset's fixed splits where shipped, else random 60/40), "
                    "with published figures beside, marked as not rerun. 'gnn': the "
                    "default NodeClassifier and the graph neural network peers (pip install "
                    "\"digraph-askls[gnn]\") on the same splits, and with --per-class "
                    "labels per class on --few-label-datasets; every (graph, protocol, "
                    "method, split) is saved to --cache as soon as it is measured, and a "
                    "rerun measures only what is missing. 'few-labels': the default (with "
                    "and without attributes), each family and the peers with 5 and 20 "
                    "labelled nodes per class and 1 % and 10 % of the nodes labelled "
                    "(--protocols), 10 random draws each, beside the default's own "
                    "estimate of its accuracy; cached cell by cell like 'gnn'.",
        epilog="examples:\n  python -m experiments table directed --datasets chameleon squirrel "
               "texas wisconsin --trials 10 --data-home ../shared/datasets --out docs/results\n"
               "  python -m experiments table gnn --data-home ../shared/datasets --out "
               "docs/results\n"
               "  python -m experiments table gnn --datasets texas --few-label-datasets "
               "--methods GCN MLP --trials 2\n"
               "  python -m experiments table few-labels --datasets cora chameleon --protocols "
               "20 1% --trials 3",
        formatter_class=argparse.RawDescriptionHelpFormatter, parents=common)
    table.add_argument("table", choices=["directed", "gnn", "few-labels", "comparison",
                                         "comparison-structure", "long-tail",
                                         "rare-classes"],
                       help="which table ('comparison': the default beside its peers, "
                            "tuned alike, on the sealed draws; 'comparison-structure': "
                            "the same on graphs without node attributes, the networks "
                            "given one-hot node ids, --trials splits, its own cells "
                            "file; 'long-tail': class weights "
                            "on 20 labels per class and 2 in the last three classes, beside "
                            "a weighted linear model and re-weighted GCN, sealed draws; "
                            "'rare-classes': the same on the Planetoid split as GraphENS and "
                            "TAM run it, beside a re-weighted GCN tuned on its validation "
                            "nodes)")
    table.add_argument("--protocols", nargs="+", default=None,
                       help="'few-labels': labelled nodes per class (e.g. 20) or percentages "
                            "of labelled nodes (e.g. 1%%); default: 5 20 1%% 10%%")
    table.add_argument("--datasets", nargs="+", default=None,
                       help="dataset names (default: all graphs of the table); missing data "
                            "gives a 'data not available' row, and an error when no "
                            "dataset could be read")
    table.add_argument("--few-label-datasets", nargs="*", default=None,
                       help="'gnn': graphs of the few-label regime (default: cora citeseer "
                            "chameleon; none when given without names)")
    table.add_argument("--per-class", type=int, default=None,
                       help="labelled nodes per class: 'directed' runs this protocol instead "
                            "of the fixed or 60/40 splits; 'gnn' uses it for the few-label "
                            "regime (default 20)")
    table.add_argument("--methods", nargs="+", default=None,
                       metavar="METHOD",
                       help="rerun methods (default: all of 'directed', or AsK-LS default "
                            "and the GNNs for 'gnn'); quote names with spaces, e.g. "
                            "'AsK-LS default'")
    table.add_argument("--trials", type=int, default=10,
                       help="number of splits: the first fixed splits, else random 60/40 "
                            "splits ('comparison-structure': the first this many splits "
                            "of each row; default 10)")
    table.add_argument("--seed", type=int, default=None,
                       help="base seed of the random splits (default 0; 'comparison': the "
                            "sealed seed of the published tables)")
    _add_table_run_options(table)


def _add_table_run_options(table):
    """The options of ``table`` that say how to measure and where to write."""
    table.add_argument("--device", default="cpu",
                       help="'comparison': torch device of the peers, e.g. cuda (default cpu)")
    table.add_argument("--workers", type=int, default=1,
                       help="'comparison': processes measuring cells at once (default 1)")
    table.add_argument("--minutes", type=float, default=None,
                       help="'comparison': start no new cell after this many minutes")
    table.add_argument("--data-home", default=None,
                       help="data folder (default: $DIGRAPH_ASKLS_DATA, then ./datasets, "
                            "then the user cache); nothing is downloaded")
    table.add_argument("--out", default=None,
                       help="folder for <table>.md, <table>.json and <table>.png "
                            "('comparison': default docs/results, whose "
                            "comparison-cells.jsonl holds the measured cells)")
    table.add_argument("--cache", default=None,
                       help="JSON-lines file of measured cells, appended after every split "
                            "(default for 'gnn' and 'few-labels' with --out: "
                            "<out>/gnn-cells.jsonl, <out>/few_labels-cells.jsonl; for "
                            "'comparison': <out>/comparison-cells.jsonl)")
    table.add_argument("--recompute", nargs="+", default=None,
                       metavar="METHOD",
                       help="methods measured again even where the cache has them")
    table.add_argument("--cached-only", action="store_true",
                       help="measure nothing but the --recompute methods: the table "
                            "from the cached cells")
    table.add_argument("--threads", type=int, default=1,
                       help="torch threads of the graph neural networks (default 1)")
    table.add_argument("--quiet", action="store_true", help="no progress bars")
    table.set_defaults(handler=_command_table)


def _add_outputs(command, stem, handler):
    """The last options of a table of the paper: the folder for ``<stem>.md`` and
    ``<stem>.json``, and no progress bars; then the command's handler."""
    command.add_argument("--out", default=None, help=f"folder for {stem}.md and {stem}.json")
    command.add_argument("--quiet", action="store_true", help="no progress bars")
    command.set_defaults(handler=handler)


def _add_table3(commands, common):
    table3 = commands.add_parser(
        "table3", help="the paper's Table 3: AsK-LS against NERD and symmetrised baselines",
        description="Every method of the paper's Table 3 (SVM and LS-SVM on NERD "
                    "embeddings, SVM and LS-SVM with (P + P^T)/2, AsK-LS) on the same "
                    "random 60/40 splits, with the paper's numbers beside ours.",
        epilog="example:\n  python -m experiments table3 --datasets cora citeseer pubmed "
               "--trials 10 --data-home ../shared/datasets --out docs/results",
        formatter_class=argparse.RawDescriptionHelpFormatter, parents=common)
    table3.add_argument("--datasets", nargs="+", default=["cora", "citeseer", "pubmed"],
                        help="dataset names; missing data gives a 'data not available' "
                             "row, and an error when no dataset could be read")
    table3.add_argument("--trials", type=int, default=10,
                        help="number of random 60/40 splits (default 10)")
    table3.add_argument("--seed", type=int, default=0, help="base seed of the splits")
    table3.add_argument("--data-home", default=None,
                        help="data folder (default: $DIGRAPH_ASKLS_DATA, then ./datasets, "
                             "then the user cache); nothing is downloaded")
    _add_outputs(table3, "table3", _command_table3)


def _add_table1(commands, common):
    table1 = commands.add_parser(
        "table1", help="the paper's Table 1: SVM, LS-SVM vs AsK-LS, KL kernel on Corel",
        description="Micro- and macro-F1 on random 90/10 per-class splits of the Corel-1K "
                    "images with the kernel exp(-a KL(P_i || P_j)) between image GMMs "
                    "(symmetrised for SVM and LS-SVM), a, gamma and C chosen by "
                    "cross-validation on the training part, beside the paper's.",
        epilog="example:\n  python -m experiments table1 --corel-dir ../shared/datasets/corel1k "
               "--cache-dir /tmp/corel_cache --trials 10 --out docs/results",
        formatter_class=argparse.RawDescriptionHelpFormatter, parents=common)
    table1.add_argument("--corel-dir", default=None,
                        help="folder of the 1000 Corel images (default: <data home>/corel1k)")
    table1.add_argument("--data-home", default=None,
                        help="data folder holding corel1k/ (default: $DIGRAPH_ASKLS_DATA, "
                             "then ./datasets, then the user cache)")
    table1.add_argument("--trials", type=int, default=10,
                        help="number of random 90/10 per-class splits (default 10)")
    table1.add_argument("--n-components", type=int, default=16,
                        help="GMM components per image (default 16; the paper uses 256)")
    table1.add_argument("--cache-dir", default=None,
                        help="folder caching features, GMMs and KL divergences")
    table1.add_argument("--cv", type=int, default=10,
                        help="cross-validation folds choosing a, gamma and C (default 10)")
    table1.add_argument("--seed", type=int, default=0,
                        help="seed of the image features, the GMMs, their Monte Carlo "
                             "draws and the splits (default 0)")
    _add_outputs(table1, "table1", _command_table1)


def _add_table4(commands, common):
    table4 = commands.add_parser(
        "table4", help="the paper's Table 4: LS-SVM (RBF) vs AsK-LS (SNE, T) on UCI tables",
        description="Accuracy on random 60/40 splits of the UCI tables, gamma and sigma "
                    "chosen by cross-validation on the training part, beside the paper's.",
        epilog="example:\n  python -m experiments table4 --datasets heart sonar --trials 10 "
               "--data-home ../shared/datasets --out docs/results",
        formatter_class=argparse.RawDescriptionHelpFormatter, parents=common)
    table4.add_argument("--datasets", nargs="+", default=None,
                        help="UCI tables (default: all eight of the paper)")
    table4.add_argument("--trials", type=int, default=10,
                        help="number of random 60/40 splits (default 10)")
    table4.add_argument("--cv", type=int, default=10,
                        help="cross-validation folds choosing gamma and sigma (default 10)")
    table4.add_argument("--seed", type=int, default=0, help="base seed of the splits")
    table4.add_argument("--data-home", default=None,
                        help="data folder (default: $DIGRAPH_ASKLS_DATA, then ./datasets, "
                             "then the user cache); missing files are downloaded")
    _add_outputs(table4, "table4", _command_table4)


def build_parser():
    """The argument parser of ``python -m experiments`` (exposed for documentation and tests).

    Examples
    --------
    >>> from experiments._cli import build_parser
    >>> args = build_parser().parse_args(["table", "comparison", "--cached-only"])
    >>> args.table, args.cached_only, args.out
    ('comparison', True, None)
    """
    parser = argparse.ArgumentParser(
        prog="python -m experiments",
        description="The research harness of digraph-askls, beside the library: reproduce "
                    "the paper's Tables 1, 3 and 4, and draw the tables of directed graphs, "
                    "graph neural networks, few labels and the comparison of docs/results. "
                    "Run it from the root of the repository.",
        epilog=EPILOG_MAIN, formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[_global_options(after_command=False)])
    commands = parser.add_subparsers(dest="command", metavar="command", required=True)
    common = [_global_options(after_command=True)]
    from ._verify import add_verify

    for add in (_add_table, _add_table3, _add_table1, _add_table4, add_verify):
        add(commands, common)
    return parser


def main(argv=None):
    """Entry point of ``python -m experiments``; returns the exit status."""
    return _run_command(build_parser(), argv, "python -m experiments")
