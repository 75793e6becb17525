"""Command line interface: ``digraph-askls <command> ...``.

Examples
--------
``digraph-askls run --dataset cora --preset paper --trials 10``
``digraph-askls run --dataset sbm --json``
``digraph-askls table directed --datasets texas wisconsin --trials 2``
"""

import argparse
import json
import logging
import sys
import warnings
from contextlib import contextmanager

from ._notes import Notes, held_warnings
from ._predict_files import add_predict_parser
from .models import PRESETS

__all__ = ["main"]

EPILOG_RUN = """examples:
  digraph-askls run --dataset cora --preset paper --trials 10
  digraph-askls run --dataset chameleon --data-home ../shared/datasets
  digraph-askls run --dataset texas --no-features --splits random --trials 5
  digraph-askls run --dataset cora --splits planetoid --valid choose --data-home ../shared/datasets
  DIGRAPH_ASKLS_DATA=../shared/datasets digraph-askls run --dataset pubmed
  digraph-askls run --dataset sbm --trials 3 --json
"""


EPILOG_MAIN = """examples:
  digraph-askls predict --edges edges.csv --labels labels.csv --out predictions.csv
  digraph-askls run --dataset cora --data-home ../shared/datasets
  digraph-askls run --dataset sbm --trials 3 --quiet
  digraph-askls table4 --datasets heart --trials 2 --cv 3 --quiet
  digraph-askls table directed --datasets texas wisconsin --trials 2 --out docs/results
  digraph-askls table gnn --data-home ../shared/datasets --out docs/results

Run 'digraph-askls <command> --help' for the options of a command.
"""


def _load(name, data_home, download, seed):
    """A named dataset, or the built-in synthetic directed SBM ``"sbm"``, as a Graph."""
    from scipy import sparse

    from .datasets import load_dataset, make_directed_sbm
    from .graph import Graph

    if name == "sbm":
        adjacency, labels = make_directed_sbm(10_000, 10, 10, p_in=0.5, random_state=seed)
        return Graph(sparse.csr_array(adjacency), labels, list(range(adjacency.shape[0])),
                     list(range(int(labels.max()) + 1)),
                     name="sbm (10,000 nodes, 10 classes, one-way flows)")
    return load_dataset(name, data_home=data_home, download=download)


def _run_splits(args, graph):
    """The dataset's fixed splits (at most ``--trials``) unless random ones or the Planetoid
    split are asked for, and the validation nodes of each (None where ``--valid`` leaves
    them out)."""
    from dataclasses import replace

    from .evaluation import fixed_splits, random_splits

    kind = args.splits or ("fixed" if graph.splits else "random")
    if kind == "fixed" and not graph.splits:
        raise ValueError(f"{args.dataset} ships no fixed splits; use --splits random")
    if kind == "random":
        if args.valid != "ignore":
            raise ValueError(f"--valid {args.valid} needs validation nodes, which random "
                             f"splits do not hold; use --splits fixed or planetoid")
        return random_splits(graph.labels, args.train_size, args.trials, args.seed), kind, None
    if kind == "planetoid":
        from .datasets import load_planetoid_split

        if args.dataset not in ("cora", "citeseer"):
            raise ValueError(f"the Planetoid split is published for cora and citeseer, got "
                             f"{args.dataset!r}")
        graph = replace(graph, splits=[load_planetoid_split(graph, data_home=args.data_home)])
    published = graph.splits[:args.trials]
    triples = [((kind, index), train, test) for (_, index), train, test
               in fixed_splits(graph, train_on_valid=args.valid == "fit")[:args.trials]]
    valid = [split.valid for split in published] if args.valid == "choose" else None
    return triples, kind, valid


def _command_run(args, notes):
    from .evaluation import evaluate_node_classifier
    from .linalg import SingularSystemWarning
    from .models import NodeClassifier

    graph = _load(args.dataset, args.data_home, not args.no_download, args.seed)
    title, adjacency, labels = graph.name, graph.adjacency, graph.labels
    features = None if args.no_features else graph.features
    splits, kind, valid = _run_splits(args, graph)
    params = {"preset": None if args.preset == "none" else args.preset}
    if args.gamma is not None:
        params["gamma"] = args.gamma
    resolved = NodeClassifier(**params)._resolve_preset()
    unread = None
    if features is not None and resolved is not None:
        from .models.selection import as_recipes
        from .models._fit_inputs import reads_features

        preset = PRESETS[resolved]
        if not any(map(reads_features, as_recipes(preset["kernel"], preset["kernel_params"]))):
            # The preset's kernel reads the structure alone: say so once, not per split.
            unread, features = features.shape[1], None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SingularSystemWarning)
        results = evaluate_node_classifier(
            lambda seed: NodeClassifier(random_state=seed, **params), adjacency, labels,
            splits=splits, name=f"AsK-LS ({resolved or 'default'})", features=features,
            verbose=not args.quiet, valid=valid)
    singular = [w for w in caught if issubclass(w.category, SingularSystemWarning)]
    for other in caught:
        if other not in singular:
            notes.warning(other)
    if singular:
        notes.write(f"note: the training system was singular in {len(singular)} of "
                    f"{len(splits)} splits and was solved by damped least squares, as the "
                    f"paper's authors do. First message: {singular[0].message}")
    summary = results.summary()
    chosen = summary["selected_kernels"]
    kernel = next(iter(chosen)) if chosen else None     # most common first
    if args.json:
        summary.update(dataset=args.dataset, splits=kind, valid=args.valid,
                       features=features is not None,
                       train_size=args.train_size if kind == "random" else None,
                       seeds=[list(seed) for seed, _, _ in splits], kernel=kernel,
                       micro_f1=results.micro_f1, macro_f1=results.macro_f1)
        print(json.dumps(summary, indent=2))
        return 0
    n_classes = int(labels.max()) + 1
    attributes = "no attributes" if features is None else f"{features.shape[1]} attributes"
    if unread is not None:
        attributes = f"{unread} attributes, not read by the {resolved!r} preset's kernel"
    print(f"{title}: {adjacency.shape[0]} nodes, {adjacency.nnz} edges, {n_classes} classes, "
          f"{attributes}")
    if kind != "random":
        role = {"ignore": "neither fitted nor scored", "fit": "fitted with the training nodes",
                "choose": "choosing the kernel, gamma and merge"}[args.valid]
        where = (f"{len(splits)} of the dataset's fixed splits" if kind == "fixed"
                 else "the Planetoid public split")
        print(f"{summary['method']}, {where}; validation nodes {role}")
    else:
        print(f"{summary['method']}, {len(splits)} random {round(100 * args.train_size)}/"
              f"{round(100 * (1 - args.train_size))} splits (seed {args.seed})")
    if kernel is not None:
        print(f"kernel selected: {kernel} (in {chosen[kernel]} of {len(splits)} splits)")
    print(f"micro-F1 {summary['micro_f1_mean']:.3f} ± {summary['micro_f1_std']:.3f}   "
          f"macro-F1 {summary['macro_f1_mean']:.3f} ± {summary['macro_f1_std']:.3f}   "
          f"{summary['seconds_per_trial']:.2f} s per split")
    return 0


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


def _command_table(args, notes):
    from pathlib import Path

    from . import experiments

    if args.table == "comparison":
        return _command_comparison(args, notes)
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
               "verbose": not args.quiet, "cache": cache, "recompute": args.recompute or (),
               "cached_only": args.cached_only, "n_threads": args.threads}
    if args.table == "few-labels":
        from .experiments._few_labels import parse_protocol

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
        try:
            plot(rows, out / f"{stem}.png")
        except ImportError as error:
            notes.write(f"no figure: {error}")
    return 0


def _command_comparison(args, notes):
    """``table comparison``: measure the missing cells, then draw the tables from all."""
    import time
    from pathlib import Path

    from .experiments import _comparison, _comparison_report

    out = Path(args.out or "docs/results")
    cells_path = Path(args.cache) if args.cache else out / "comparison-cells.jsonl"
    seed = _comparison.SEALED_SEED if args.seed is None else args.seed
    methods = args.methods or _comparison.COMPARISON_METHODS
    unknown = [name for name in methods if name not in _comparison.COMPARISON_METHODS]
    protocols = args.protocols or list(_comparison.COMPARISON_PROTOCOLS)
    unknown += [name for name in protocols if name not in _comparison.COMPARISON_PROTOCOLS]
    if unknown:
        raise ValueError(f"expected methods among {list(_comparison.COMPARISON_METHODS)} and "
                         f"protocols among {list(_comparison.COMPARISON_PROTOCOLS)}, got "
                         f"{unknown}")
    if not args.cached_only:
        deadline = None if args.minutes is None else time.time() + 60 * args.minutes
        _comparison.run_comparison(cells_path, protocols, methods, seed, args.data_home,
                                   args.device, args.workers, deadline, not args.quiet,
                                   args.datasets)
    cells = list(_comparison.load_cells(cells_path).values())
    cells = [cell for cell in cells if cell["seed"] == seed]
    if not cells:
        raise ValueError(f"no measured cell of seed {seed} in {cells_path}; run without "
                         f"--cached-only, with --data-home naming the datasets' folder")
    # the rerun that split the fixed splits' accuracy by twins: <name>-twins-cells.jsonl
    twins_path = cells_path.with_name(cells_path.name.replace("-cells", "-twins-cells"))
    twins = [] if twins_path == cells_path else [
        cell for cell in _comparison.load_cells(twins_path).values() if cell["seed"] == seed]
    markdown = _comparison_report.format_comparison(cells, seed, twins)
    _report("comparison", _comparison_report.summarize(cells), markdown, out)
    try:
        from .experiments._comparison_plot import plot_comparison

        plot_comparison(cells, out / "comparison.png")
    except ImportError as error:
        notes.write(f"no figure: {error}")
    return 0


def _command_table3(args, notes):
    from .experiments import format_table3, plot_table3, run_table3

    rows = run_table3(args.datasets, n_trials=args.trials, data_home=args.data_home,
                      random_state=args.seed, verbose=not args.quiet)
    _check_data(rows, "dataset", notes)
    out = _report("table3", rows, format_table3(rows), args.out)
    if out is not None:
        try:
            plot_table3(rows, out / "table3.png")
        except ImportError as error:
            notes.write(f"no bar chart: {error}")
    return 0


def _command_table1(args, notes):
    from pathlib import Path

    from .datasets import get_data_home
    from .experiments import format_table1, run_table1
    from .linalg import SingularSystemWarning

    if args.corel_dir:
        corel_dir, option = args.corel_dir, "--corel-dir"
    else:
        home = Path(args.data_home).expanduser() if args.data_home else get_data_home()
        corel_dir, option = home / "corel1k", "--data-home (or --corel-dir)"
    with warnings.catch_warnings(), _data_home_hint(option):
        # The symmetrised KL kernel is indefinite: some CV folds meet singular systems,
        # which are solved damped.
        warnings.simplefilter("ignore", SingularSystemWarning)
        rows = run_table1(corel_dir, n_trials=args.trials, n_components=args.n_components,
                          cache_dir=args.cache_dir, random_state=args.seed, cv=args.cv,
                          verbose=not args.quiet)
    _report("table1", rows, format_table1(rows), args.out)
    return 0


def _command_table4(args, notes):
    from .experiments import format_table4, run_table4
    from .linalg import SingularSystemWarning

    with warnings.catch_warnings(), _data_home_hint():
        # Cross-validation meets singular systems on some folds; they are solved damped.
        warnings.simplefilter("ignore", SingularSystemWarning)
        rows = run_table4(args.datasets, n_trials=args.trials, cv=args.cv,
                          data_home=args.data_home, random_state=args.seed,
                          verbose=not args.quiet)
    _report("table4", rows, format_table4(rows), args.out)
    return 0


def _global_options(after_command):
    """The options every command takes, before or after its name.

    After the command their default is left out (``SUPPRESS``), so that a value given
    before the command is not overwritten by the subcommand's default.
    """
    parser = argparse.ArgumentParser(add_help=False)
    group = parser.add_argument_group("global options (before or after the command)")
    group.add_argument("-v", "--verbose", action="store_true",
                       default=argparse.SUPPRESS if after_command else False,
                       help="log the library's progress details (INFO messages) on stderr")
    return parser


def build_parser():
    """The argument parser of ``digraph-askls`` (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(
        prog="digraph-askls",
        description="Node classification on directed graphs with AsK-LS, the least-squares "
                    "SVM for asymmetric kernels: classify the nodes of your own graph "
                    "files, run it on a dataset, reproduce the paper's Tables 1, 3 and 4, "
                    "or build the table of directed graphs.",
        epilog=EPILOG_MAIN, formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[_global_options(after_command=False)])
    commands = parser.add_subparsers(dest="command", metavar="command", required=True)
    common = [_global_options(after_command=True)]

    add_predict_parser(commands, dict(formatter_class=argparse.RawDescriptionHelpFormatter,
                                      parents=common))
    run = commands.add_parser(
        "run", help="classify the nodes of a dataset on its fixed or random splits",
        description="Fit AsK-LS on train/test splits of a dataset's labelled nodes and "
                    "report micro- and macro-F1 (mean ± std over the splits): the splits "
                    "published with the dataset where it ships them, else random splits "
                    "of --train-size (see --splits).",
        epilog=EPILOG_RUN, formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=common)
    run.add_argument("--dataset", default="cora",
                     help="dataset name (see digraph_askls.datasets.list_datasets()) or "
                          "'sbm' for the built-in synthetic graph (default: cora)")
    run.add_argument("--preset", choices=["auto", "none", *sorted(PRESETS)], default="auto",
                     help="'none': no preset, NodeClassifier's own choice: the kernel "
                          "family, its parameters, gamma and the merge of the two views "
                          "chosen for the graph by cross-validation on the labelled nodes; "
                          "'auto' (default): a preset chosen from the graph's size, today "
                          "none at every size (the choice costs less than a PageRank vote "
                          "up to 10^8 edges); 'paper': the authors' protocol (in-degree "
                          "1-hop kernel, gamma=1, 10-fold stacking), no selection; "
                          "'large': a 3-hop PageRank series in float32, gamma=0.01 and "
                          "joint stacking on the training scores, no selection (fewer "
                          "products, a little less accurate)")
    run.add_argument("--gamma", type=float, default=None,
                     help="regularisation coefficient of AsK-LS, fixed instead of chosen "
                          "per graph (or set by the preset)")
    run.add_argument("--trials", type=int, default=10, help="number of splits (default 10)")
    run.add_argument("--seed", type=int, default=0,
                     help="base seed of the random splits and of the 'sbm' graph "
                          "(default 0)")
    run.add_argument("--train-size", type=float, default=0.6,
                     help="fraction of labelled nodes used for training (default 0.6)")
    run.add_argument("--data-home", default=None,
                     help="data folder (default: $DIGRAPH_ASKLS_DATA, then ./datasets, "
                          "then the user cache)")
    run.add_argument("--no-download", action="store_true",
                     help="fail instead of downloading missing files")
    run.add_argument("--splits", choices=["fixed", "random", "planetoid"], default=None,
                     help="'fixed': the dataset's published splits (the first --trials of "
                          "them); 'random': random splits of --train-size; 'planetoid': "
                          "the Planetoid public split of cora and citeseer (20 per class, "
                          "500 validation nodes, one split) (default: fixed where the "
                          "dataset ships them)")
    run.add_argument("--valid", choices=["ignore", "fit", "choose"], default="ignore",
                     help="the validation nodes of fixed and Planetoid splits: 'ignore' "
                          "(default): neither fitted nor scored; 'fit': fitted with the "
                          "training nodes; 'choose': they choose the kernel, gamma and "
                          "merge, the training nodes alone are fitted, as the graph neural "
                          "networks' protocols choose their settings "
                          "(NodeClassifier.fit(valid=...))")
    run.add_argument("--no-features", action="store_true",
                     help="ignore the dataset's node attributes (structure only)")
    run.add_argument("--json", action="store_true", help="print the results as JSON")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.set_defaults(handler=_command_run)

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
        epilog="examples:\n  digraph-askls table directed --datasets chameleon squirrel texas "
               "wisconsin --trials 10 --data-home ../shared/datasets --out docs/results\n"
               "  digraph-askls table gnn --data-home ../shared/datasets --out docs/results\n"
               "  digraph-askls table gnn --datasets texas --few-label-datasets --methods GCN "
               "MLP --trials 2\n"
               "  digraph-askls table few-labels --datasets cora chameleon --protocols 20 1% "
               "--trials 3",
        formatter_class=argparse.RawDescriptionHelpFormatter, parents=common)
    table.add_argument("table", choices=["directed", "gnn", "few-labels", "comparison"],
                       help="which table ('comparison': the default beside its peers, "
                            "tuned alike, on the sealed draws)")
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
                            "splits (default 10)")
    table.add_argument("--seed", type=int, default=None,
                       help="base seed of the random splits (default 0; 'comparison': the "
                            "sealed seed of the published tables)")
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

    table3 = commands.add_parser(
        "table3", help="the paper's Table 3: AsK-LS against NERD and symmetrised baselines",
        description="Every method of the paper's Table 3 (SVM and LS-SVM on NERD "
                    "embeddings, SVM and LS-SVM with (P + P^T)/2, AsK-LS) on the same "
                    "random 60/40 splits, with the paper's numbers beside ours.",
        epilog="example:\n  digraph-askls table3 --datasets cora citeseer pubmed --trials 10 "
               "--data-home ../shared/datasets --out docs/results",
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
    table3.add_argument("--out", default=None, help="folder for table3.md and table3.json")
    table3.add_argument("--quiet", action="store_true", help="no progress bars")
    table3.set_defaults(handler=_command_table3)

    table1 = commands.add_parser(
        "table1", help="the paper's Table 1: SVM, LS-SVM vs AsK-LS, KL kernel on Corel",
        description="Micro- and macro-F1 on random 90/10 per-class splits of the Corel-1K "
                    "images with the kernel exp(-a KL(P_i || P_j)) between image GMMs "
                    "(symmetrised for SVM and LS-SVM), a, gamma and C chosen by "
                    "cross-validation on the training part, beside the paper's.",
        epilog="example:\n  digraph-askls table1 --corel-dir ../shared/datasets/corel1k "
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
    table1.add_argument("--out", default=None, help="folder for table1.md and table1.json")
    table1.add_argument("--quiet", action="store_true", help="no progress bars")
    table1.set_defaults(handler=_command_table1)

    table4 = commands.add_parser(
        "table4", help="the paper's Table 4: LS-SVM (RBF) vs AsK-LS (SNE, T) on UCI tables",
        description="Accuracy on random 60/40 splits of the UCI tables, gamma and sigma "
                    "chosen by cross-validation on the training part, beside the paper's.",
        epilog="example:\n  digraph-askls table4 --datasets heart sonar --trials 10 "
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
    table4.add_argument("--out", default=None, help="folder for table4.md and table4.json")
    table4.add_argument("--quiet", action="store_true", help="no progress bars")
    table4.set_defaults(handler=_command_table4)

    return parser


def main(argv=None):
    """Entry point of the ``digraph-askls`` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    notes = Notes(progress=not getattr(args, "quiet", True))
    try:
        with held_warnings(notes):
            return args.handler(args, notes)
    except (ValueError, FileNotFoundError, OSError, ImportError) as exc:
        notes.write(f"digraph-askls {args.command}: error: {exc}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
