"""Command line interface: ``digraph-askls <command> ...``.

Examples
--------
``digraph-askls run --dataset cora --preset paper --trials 10``
``digraph-askls run --dataset sbm --json``

The result tables are drawn by the research harness beside the library, from the
root of the repository: ``python -m experiments table comparison`` (see
``experiments/README.md``).
"""

import argparse
import json
import logging
import sys
import warnings

from ._notes import Notes, held_warnings
from ._predict_files import add_predict_parser, plural

__all__ = ["main"]

logger = logging.getLogger(__name__)

# The names of ``NodeClassifier``'s presets (``models.PRESETS``), written here so that
# building the parser (``--help``) imports no estimator; a test checks they agree.
PRESET_NAMES = ("large", "paper")

#: Where the documentation explains why the paper's setting makes the system singular.
SINGULAR_DOCS = "docs/guide/mathematics.md, 'The system, and its singular case'"

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

Run 'digraph-askls <command> --help' for the options of a command.
The result tables (table, table1, table3, table4) are drawn by the research harness beside
the library: 'python -m experiments <command> ...', run from the root of the repository.
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

    from .model_selection import fixed_splits, random_splits

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


def _of_splits(count, n_splits):
    """``"2 of 3 splits"``, or ``"the one split"``."""
    return "the one split" if n_splits == 1 else f"{count} of {n_splits} splits"


def _singular_note(singular, n_splits, preset):
    """One sentence on the splits whose training system was singular, and where the
    documentation explains why; the solver's full message is logged (``-v``)."""
    logger.info("the solver's first message: %s", singular[0].message)
    cause = ", as the paper's gamma = 1 makes it," if preset == "paper" else ""
    return (f"note: the training system was singular in "
            f"{_of_splits(len(singular), n_splits)}{cause} and was solved damped, as the "
            f"paper's authors do (why: {SINGULAR_DOCS}; -v for details)")


def _paper_figure(dataset):
    """(micro-F1, macro-F1) of AsK-LS in the paper's Table 3 on ``dataset``, or None."""
    from ._paper_figures import PAPER_TABLE3

    return PAPER_TABLE3.get(dataset, {}).get("AsK-LS")


def _paper_lines(args, kind):
    """What ``run --preset paper`` prints after its result: the paper's own figure and
    what to expect of the preset and of the default."""
    figure = _paper_figure(args.dataset)
    if figure is None:
        from ._paper_figures import PAPER_TABLE3

        lines = [f"the paper prints no figure for {args.dataset} (its Table 3 has "
                 f"{', '.join(PAPER_TABLE3)})"]
    else:
        same = kind == "random" and args.train_size == 0.6
        lines = [f"the paper (Table 3): micro-F1 {figure[0]:.3f}   macro-F1 {figure[1]:.3f}"
                 f"   on random 60/40 splits{'' if same else ', not the splits of this run'}"]
    lines.append("expect: --preset paper reproduces the paper's protocol; "
                 "without --preset the library chooses the kernel for the graph and is "
                 "usually more accurate")
    return lines


def _evaluate(args, notes, graph, features, splits, valid, params, resolved):
    """Evaluate the classifier on the splits; warnings other than singular systems are
    passed to ``notes``, the singular ones summed up in one note."""
    from .model_selection import evaluate_node_classifier
    from .linalg import SingularSystemWarning
    from .models import NodeClassifier

    with warnings.catch_warnings(record=True) as caught, notes.progress_bars():
        warnings.simplefilter("always", SingularSystemWarning)
        results = evaluate_node_classifier(
            lambda seed: NodeClassifier(random_state=seed, **params), graph.adjacency,
            graph.labels, splits=splits, name=f"AsK-LS ({resolved or 'default'})",
            features=features, verbose=notes.progress, valid=valid)
    singular = [w for w in caught if issubclass(w.category, SingularSystemWarning)]
    for other in caught:
        if other not in singular:
            notes.warning(other)
    if singular:
        notes.write(_singular_note(singular, len(splits), resolved))
    return results


def _command_run(args, notes):
    from .models import NodeClassifier

    graph = _load(args.dataset, args.data_home, not args.no_download, args.seed)
    features = None if args.no_features else graph.features
    splits, kind, valid = _run_splits(args, graph)
    params = {"preset": None if args.preset == "none" else args.preset}
    if args.gamma is not None:
        params["gamma"] = args.gamma
    resolved = NodeClassifier(**params)._resolve_preset()
    unread = None
    if features is not None and resolved is not None:
        from .models import PRESETS
        from .models.selection import as_recipes
        from .models._fit_inputs import reads_features

        preset = PRESETS[resolved]
        if not any(map(reads_features, as_recipes(preset["kernel"], preset["kernel_params"]))):
            # The preset's kernel reads the structure alone: say so once, not per split.
            unread, features = features.shape[1], None
    results = _evaluate(args, notes, graph, features, splits, valid, params, resolved)
    summary = results.summary()
    chosen = summary["selected_kernels"]
    kernel = next(iter(chosen)) if chosen else None     # most common first
    if args.json:
        summary.update(dataset=args.dataset, splits=kind, valid=args.valid,
                       features=features is not None,
                       train_size=args.train_size if kind == "random" else None,
                       seeds=[list(seed) for seed, _, _ in splits], kernel=kernel,
                       micro_f1=results.micro_f1, macro_f1=results.macro_f1)
        figure = _paper_figure(args.dataset) if resolved == "paper" else None
        if figure is not None:
            summary["paper"] = {"micro_f1": figure[0], "macro_f1": figure[1],
                                "source": "the paper's Table 3, random 60/40 splits"}
        print(json.dumps(summary, indent=2))
        return 0
    _print_run(args, graph, features, unread, resolved, kind, splits, summary)
    if resolved == "paper":
        print("\n".join(_paper_lines(args, kind)))
    return 0


def _print_run(args, graph, features, unread, resolved, kind, splits, summary):
    """The lines of ``run``'s result: the graph, the protocol, the kernel, the scores."""
    adjacency, n_classes = graph.adjacency, int(graph.labels.max()) + 1
    attributes = ("no attributes" if features is None
                  else plural(features.shape[1], "attribute"))
    if unread is not None:
        attributes = (f"{plural(unread, 'attribute')}, not read by the {resolved!r} "
                      f"preset's kernel")
    print(f"{graph.name}: {plural(adjacency.shape[0], 'node')}, "
          f"{plural(adjacency.nnz, 'edge')}, {plural(n_classes, 'class', 'classes')}, "
          f"{attributes}")
    if kind != "random":
        role = {"ignore": "neither fitted nor scored", "fit": "fitted with the training nodes",
                "choose": "choosing the kernel, gamma and merge"}[args.valid]
        where = (f"{len(splits)} of the dataset's fixed splits" if kind == "fixed"
                 else "the Planetoid public split")
        print(f"{summary['method']}, {where}; validation nodes {role}")
    else:
        ratio = f"{round(100 * args.train_size)}/{round(100 * (1 - args.train_size))}"
        print(f"{summary['method']}, {plural(len(splits), f'random {ratio} split')} "
              f"(seed {args.seed})")
    chosen = summary["selected_kernels"]
    if chosen:
        kernel = next(iter(chosen))
        print(f"kernel selected: {kernel} (in {_of_splits(chosen[kernel], len(splits))})")
    print(f"micro-F1 {summary['micro_f1_mean']:.3f} ± {summary['micro_f1_std']:.3f}   "
          f"macro-F1 {summary['macro_f1_mean']:.3f} ± {summary['macro_f1_std']:.3f}   "
          f"{summary['seconds_per_trial']:.2f} s per split")


def package_version():
    """The installed distribution's version, else the package's ``__version__`` (a
    checkout run without installing)."""
    from importlib import metadata

    try:
        return metadata.version("digraph-askls")
    except metadata.PackageNotFoundError:
        from . import __version__

        return __version__


class _Version(argparse.Action):
    """``--version``: print ``digraph-askls <version>`` and exit (looked up only then)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"digraph-askls {package_version()}")
        parser.exit()


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
                    "files, or run it on a dataset.",
        epilog=EPILOG_MAIN, formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[_global_options(after_command=False)])
    parser.add_argument("--version", action=_Version, help="print the version and exit")
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
    run.add_argument("--preset", choices=["auto", "none", *PRESET_NAMES], default="auto",
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
    run.add_argument("--quiet", action="store_true",
                     help="no progress bar (bars are shown only on a terminal, and only "
                          "once the work has run for a few seconds)")
    run.set_defaults(handler=_command_run)

    return parser


#: The commands of the research harness, once commands of ``digraph-askls``.
HARNESS_COMMANDS = ("table", "table1", "table3", "table4")


def _moved_to_the_harness(argv):
    """Say where a table command went, when ``argv`` names one; True when it did."""
    words = [word for word in argv if not word.startswith("-")]
    if not words or words[0] not in HARNESS_COMMANDS:
        return False
    import shlex

    print(f"digraph-askls: error: the '{words[0]}' command moved to the research harness "
          f"beside the library; from the root of the repository, run:\n"
          f"  python -m experiments {shlex.join(argv)}\n(see experiments/README.md)",
          file=sys.stderr)
    return True


def main(argv=None):
    """Entry point of the ``digraph-askls`` command."""
    if _moved_to_the_harness(sys.argv[1:] if argv is None else list(argv)):
        return 2
    return _run_command(build_parser(), argv, "digraph-askls")


def _run_command(parser, argv, prog):
    """Parse ``argv`` with ``parser`` and run the command's handler; returns the exit status.

    Logging follows ``--verbose``, warnings are held for the handler's notes, and an error
    of the input, a file or an import ends the command with status 2 and the line
    ``<prog> <command>: error: <message>``.
    """
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    notes = Notes(quiet=getattr(args, "quiet", True))
    try:
        with held_warnings(notes):
            return args.handler(args, notes)
    except (ValueError, FileNotFoundError, OSError, ImportError) as exc:
        notes.write(f"{prog} {args.command}: error: {exc}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
