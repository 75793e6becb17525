"""``digraph-askls predict``: one's own edges, labels and features files to predictions.

The files are read as :func:`~digraph_askls.datasets.load_graph_files` reads them, the
default :class:`~digraph_askls.NodeClassifier` is fitted on the labelled nodes, and one
row per unlabelled node (or per node) is written with its predicted class, through a
temporary file renamed into place: an interrupted or failed run leaves no half-written
file. The output's format and the input files are checked before anything is read, and
labels that would fit a model to a mistake (names that mostly match no node of the graph,
continuous values) are refused with exit status 2.

A labels file of several labels per node (``--multilabel``: a node on several rows; or
cells joined by ``--label-separator``) is fitted as a multi-label target, the dict
node -> labels that ``NodeClassifier.fit`` takes, and each row then holds the node's
predicted labels joined by the same separator (``;`` by default). Without either option
a node on two rows with two labels is an error naming the node and both labels.
"""

import argparse
import importlib.util
import os
import re
import secrets
from pathlib import Path

import numpy as np

__all__ = ["add_predict_parser", "check_out", "explain_lines", "plural",
           "write_atomically"]

#: The formats of the predictions file, by suffix.
OUT_SUFFIXES = (".csv", ".tsv", ".parquet")

#: How a labels file of one label per node says that several are read on the command line.
CLI_SEVERAL_HINT = ("; if nodes have several labels, pass --multilabel (one row per label) "
                    "or --label-separator (a node's labels in one cell); if not, remove "
                    "the wrong row")

EPILOG = """examples:
  digraph-askls predict --edges edges.csv --labels labels.csv
  digraph-askls predict --edges links.tsv --labels classes.csv --features words.npz --proba
  digraph-askls predict --edges edges.parquet --labels labels.csv --all --out all.csv
  digraph-askls predict --edges edges.csv --labels labels.csv --features x.csv --explain 5

several labels per node (a multi-label target):
  labels.csv, one row per (node, label):   node,label / alice,red / alice,round / bob,blue
  digraph-askls predict --edges edges.csv --labels labels.csv --multilabel --proba
  labels.csv, the labels in one cell:      node,label / alice,red;round / bob,blue
  digraph-askls predict --edges edges.csv --labels labels.csv --label-separator ";"
  each row of the predictions: node,predicted / carol,red;round (a blank: no label)
"""


def add_predict_parser(commands, parser_class_kwargs):
    """Register the ``predict`` subcommand on the ``commands`` subparsers."""
    parser = commands.add_parser(
        "predict", help="classify the unlabelled nodes of your own graph files",
        description="Read an edges file (one 'source,target[,weight]' per row), a labels "
                    "file ('node,label', a blank label or no row for a node to predict) "
                    "and optionally a features file (node, then numbers), fit AsK-LS "
                    "with the kernel chosen for the graph, and write the predicted class "
                    "of every unlabelled node. CSV, TSV and Parquet. A header is "
                    "told by its names; a first line that looks like a misspelt one "
                    "('node,lable', 'src,tgt') is refused, naming the expected columns "
                    "(--header and --no-header decide). Text files are UTF-8 (a "
                    "byte-order mark, as Excel's 'CSV UTF-8' writes, is read). Several "
                    "labels per node (--multilabel): a node on several rows, one per "
                    "label, or (with --label-separator) its labels in one cell; each "
                    "predicted row then lists the node's labels joined by the separator "
                    "(';' by default). Exit status 2, before fitting, when the labelled "
                    "nodes are mostly not nodes of the graph (names written otherwise: "
                    "case, blanks, numbers) or the labels are continuous values.",
        epilog=EPILOG, **parser_class_kwargs)
    parser.add_argument("--edges", required=True, help="edges file (CSV, TSV or Parquet)")
    parser.add_argument("--labels", required=True,
                        help="labels file: node,label, one row per labelled node (a node "
                             "on two rows is an error unless --multilabel or "
                             "--label-separator)")
    parser.add_argument("--multilabel", action="store_true",
                        help="nodes may have several labels, one row per (node, label) "
                             "(the same label twice is an error); each node's predicted "
                             "labels are joined by ';'")
    parser.add_argument("--label-separator", default=None, metavar="SEP",
                        help="the label cells list several labels joined by SEP (the "
                             "row 'alice,red;round' with --label-separator ';'): the file "
                             "is read as multi-label (--multilabel is implied), a node may "
                             "still have several rows, SEP must appear in some cell, and "
                             "SEP joins each node's predicted labels")
    parser.add_argument("--features", default=None,
                        help="node attributes: CSV/TSV/Parquet (node, then numbers) or npz "
                             "(arrays 'nodes' and 'features', or CSR arrays)")
    parser.add_argument("--out", default="predictions.csv",
                        help="predictions file, .csv, .tsv or .parquet (default "
                             "predictions.csv)")
    parser.add_argument("--all", action="store_true", dest="every_node",
                        help="a row for every node, with its given label (labels) beside")
    parser.add_argument("--proba", action="store_true",
                        help="add the probability of each class (columns proba_<class>; "
                             "multi-label: of each label, columns proba_<label>)")
    parser.add_argument("--decimals", type=_decimals, default=4, metavar="D",
                        help="digits after the point of the probabilities written by "
                             "--proba (default 4; 0 to 15)")
    parser.add_argument("--explain", type=int, default=0, metavar="K",
                        help="print the K features of largest weight in each view, per "
                             "class (kernels with explicit feature maps)")
    parser.add_argument("--weight", default="weight", metavar="COLUMN",
                        help="the column of the edges file that holds the edge weights "
                             "(default: the one named 'weight', or a third column); "
                             "'none': every edge weighs 1. The fit chooses how the weights "
                             "enter (as given, log1p, or 0/1)")
    parser.add_argument("--undirected", action="store_true",
                        help="read every edge both ways")
    header = parser.add_mutually_exclusive_group()
    header.add_argument("--header", action="store_true", default=None,
                        help="the first line of each text file names its columns")
    header.add_argument("--no-header", action="store_false", dest="header",
                        help="no file has a header line (default: told per file by its names)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the stacking folds")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar (bars are shown only on a terminal, and only "
                             "once the work has run for a few seconds)")
    parser.set_defaults(handler=predict_command)
    return parser


def _decimals(text):
    """``--decimals``: a whole number from 0 to 15."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 15:
        raise argparse.ArgumentTypeError(f"expected a whole number from 0 to 15, got "
                                         f"{text!r}")
    return value


def plural(count, word, words=None):
    """``"1 row"``, ``"2 rows"``: ``count`` and ``word``, or ``words`` (default ``word``
    and an s) unless the count is one."""
    return f"{count} {word if count == 1 else words or word + 's'}"


def check_out(path):
    """Refuse a predictions file of a format that cannot be written (the suffix, or the
    Parquet engine missing), before any input is read."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in OUT_SUFFIXES:
        advice = (" (spreadsheets open .csv files)" if suffix in (".xlsx", ".xls", ".ods")
                  else "")
        raise ValueError(f"--out must end in {', '.join(OUT_SUFFIXES[:-1])} or "
                         f"{OUT_SUFFIXES[-1]}, got {path.name!r}{advice}")
    if suffix == ".parquet" and not any(map(importlib.util.find_spec,
                                            ("pyarrow", "fastparquet"))):
        raise ImportError(f"--out {path.name}: writing Parquet needs pyarrow: pip install "
                          "pyarrow (or write .csv)")
    if path.is_dir():
        raise ValueError(f"--out {path}: is a folder; expected a file name")
    return path


def _check_inputs(args):
    """Refuse a missing input file, naming its option."""
    for option, path in (("--edges", args.edges), ("--labels", args.labels),
                         ("--features", args.features)):
        if path is None:
            continue
        if not Path(path).exists():
            raise FileNotFoundError(f"{option} {path}: no such file (looked in "
                                    f"{Path(path).resolve().parent})")
        if Path(path).is_dir():
            raise ValueError(f"{option} {path}: is a folder; expected a file")


def write_atomically(frame, path):
    """Write ``frame`` (CSV, TSV or Parquet by suffix) through a temporary file beside
    ``path``, renamed into place; on any error or interruption nothing is left."""
    path = check_out(path)
    suffix = path.suffix.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    # A fresh name beside the target, created by the writer with the usual permissions.
    temporary = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part"
    try:
        if suffix == ".parquet":
            frame.to_parquet(temporary, index=False)
        else:
            frame.to_csv(temporary, index=False, sep="," if suffix == ".csv" else "\t")
        os.replace(temporary, path)
    except BaseException:
        if temporary.exists():
            temporary.unlink()
        raise
    return path


def _readable(name, columns):
    """An attribute kernel's feature name with the features file's column name in it."""
    match = re.fullmatch(r"(?:part\d+:)?(x|c(\d+)h(\d+)):(\d+)", str(name))
    if match is None or columns is None:
        return str(name)
    block, chain, hop, column = match.groups()
    word = columns[int(column)]
    if block == "x":
        return word
    return f"{word} @{hop} hop{'s' * (hop != '1')}" + (f" (chain {chain})" if chain != "0"
                                                        else "")


def explain_lines(model, k, columns=None, class_names=None):
    """The ``k`` features of largest weight in each view, per class, as lines of text.

    ``columns`` names the node attributes (the features file's header), ``class_names``
    the classes when the model was fitted on class codes. A multi-label model has a row
    of weights per label, two labels included.
    """
    try:
        weights = model.primal_weights()
    except ValueError as error:
        return [f"explain: no feature weights: {error}"]
    names = weights["feature_names"] or [f"feature {j}" for j in
                                         range(weights["source"].shape[1])]
    names = [_readable(name, columns) for name in names]
    classes = [label if class_names is None else class_names[label]
               for label in np.asarray(model.classes_).tolist()]
    binary = len(classes) == 2 and not getattr(model, "_multilabel", False)
    rows = [(classes[1], 1.0), (classes[0], -1.0)] if binary else \
        [(label, 1.0) for label in classes]
    kind = "label" if getattr(model, "_multilabel", False) else "class"
    lines = [f"explain: the {k} features of largest weight in each view, per {kind} "
             f"(kernel {model.selection_['kernel']!r})"]
    for row, (label, sign) in enumerate(rows):
        lines.append(f"{kind} {label!r}")
        for view in ("source", "target"):
            values = sign * weights[view][0 if binary else row]
            top = np.argsort(-values, kind="stable")[:k]
            listed = ", ".join(f"{names[j]} {values[j]:+.3g}" for j in top)
            lines.append(f"  {view} view: {listed}")
    return lines


def _note_isolated(graph, notes):
    """A note naming the nodes of no edge, if any."""
    degree = np.diff(graph.adjacency.indptr) + np.bincount(graph.adjacency.indices,
                                                           minlength=graph.n_nodes)
    isolated = np.flatnonzero(degree == 0)
    if isolated.size:
        have = "has" if isolated.size == 1 else "have"
        notes.write(f"note: {plural(isolated.size, 'node')} {have} no edge, e.g. "
                    f"{[graph.node_names[i] for i in isolated[:5]]} (named only in the "
                    "labels or features file, or in edges to themselves)")


def _attributes(graph):
    return "" if graph.features is None else f", {plural(graph.n_features, 'attribute')}"


def _no_rows_note(rows, notes):
    if rows.size == 0:
        notes.write("note: every node is labelled, so none is left to predict; --all "
                    "writes the predictions of every node")


def _probabilities(columns, names, proba, decimals):
    """The columns ``proba_<name>`` of ``proba``, rounded to ``decimals`` digits."""
    proba = np.round(proba, decimals)
    for index, name in enumerate(names):
        columns[f"proba_{name}"] = proba[:, index]


def _write_and_report(args, pd, model, graph, columns, rows):
    """Write the predictions, then print the kernel, the file and the explanations."""
    out = write_atomically(pd.DataFrame(columns), args.out)
    print(f"kernel selected: {model.selection_['kernel']!r}")
    print(f"wrote {out}: {plural(rows.size, 'row')} ({', '.join(columns)})")
    if args.explain:
        named = getattr(model, "_multilabel", False)        # classes_ are the labels
        print("\n".join(explain_lines(model, args.explain, graph.feature_names,
                                      None if named else graph.class_names)))
    return 0


def _read(args):
    """The graph and label sets of the files, after the checks that read nothing."""
    from .datasets._files import read_graph_files

    check_out(args.out)
    _check_inputs(args)
    return read_graph_files(
        args.edges, args.labels, args.features, header=args.header,
        undirected=args.undirected, label_separator=args.label_separator,
        multilabel=args.multilabel, several_hint=CLI_SEVERAL_HINT, strict=True,
        weight=None if args.weight.lower() == "none" else args.weight)


def predict_command(args, notes):
    """Handler of ``digraph-askls predict``: fit, predict, write, report."""
    from .datasets._tables import pandas_module
    from .models import NodeClassifier

    pd = pandas_module()
    graph, label_sets = _read(args)
    if label_sets is not None:
        return _predict_multilabel(args, notes, pd, graph, label_sets)
    labelled = int((graph.labels >= 0).sum())
    if graph.n_classes < 2:
        raise ValueError(f"{args.labels}: the labelled nodes hold "
                         f"{plural(graph.n_classes, 'class', 'classes')} "
                         f"{graph.class_names}; expected at least 2 classes to tell apart")
    print(f"{graph.name}: {plural(graph.n_nodes, 'node')}, "
          f"{plural(graph.n_edges, 'edge')}, "
          f"{labelled} labelled in {plural(graph.n_classes, 'class', 'classes')} "
          f"{graph.class_names[:10]}, {graph.n_nodes - labelled} to predict"
          f"{_attributes(graph)}")
    _note_isolated(graph, notes)
    rows = np.arange(graph.n_nodes) if args.every_node else np.flatnonzero(graph.labels < 0)
    _no_rows_note(rows, notes)
    model = NodeClassifier(random_state=args.seed, verbose=notes.progress)
    with notes.progress_bars():
        model.fit(graph.adjacency, graph.labels, features=graph.features)
        codes = model.predict(rows) if rows.size else np.zeros(0, dtype=np.int64)
        if args.proba and hasattr(model.estimator_, "predict_proba"):
            proba = (model.predict_proba(rows) if rows.size
                     else np.zeros((0, model.classes_.size)))
    names = np.asarray(graph.node_names, dtype=object)
    columns = {"node": names[rows]}
    if args.every_node:
        given = np.asarray(graph.class_names + [None], dtype=object)
        columns["label"] = given[graph.labels[rows]]
    columns["predicted"] = np.asarray(graph.class_names, dtype=object)[codes]
    if args.proba:
        if not hasattr(model.estimator_, "predict_proba"):
            raise ValueError(f"--proba: the fitted model (merge "
                             f"{model.selection_['merge']!r}) gives no probabilities")
        _probabilities(columns, [graph.class_names[code] for code in model.classes_],
                       proba, args.decimals)
    return _write_and_report(args, pd, model, graph, columns, rows)


def _joined(indicator, labels, joiner):
    """Each row's labels (the columns of its 1s) joined by ``joiner``; '' for none."""
    labels = np.asarray(labels, dtype=object)
    return np.asarray([joiner.join(labels[np.flatnonzero(row)]) for row in indicator],
                      dtype=object)


def _predict_multilabel(args, notes, pd, graph, label_sets):
    """``predict`` with several labels per node: the node -> labels dict fitted as
    ``NodeClassifier.fit`` takes it, each row's predicted labels joined by the label
    separator (``;`` by default), sorted as the labels are."""
    from .datasets._files import DEFAULT_LABEL_SEPARATOR
    from .models import NodeClassifier

    joiner = args.label_separator or DEFAULT_LABEL_SEPARATOR
    names = graph.class_names
    position = {node: index for index, node in enumerate(graph.node_names)}
    target = {position[node]: list(labels) for node, labels in label_sets.items()}
    if len(names) < 2:
        raise ValueError(f"{args.labels}: the labelled nodes hold "
                         f"{plural(len(names), 'label')} {names}; expected at least 2 "
                         "labels to tell apart")
    if len(target) < 2:
        raise ValueError(f"{args.labels}: {len(target)} node is labelled; expected at "
                         "least 2 labelled nodes")
    pairs = sum(map(len, target.values()))
    print(f"{graph.name}: {plural(graph.n_nodes, 'node')}, "
          f"{plural(graph.n_edges, 'edge')}, "
          f"{len(target)} labelled with {plural(pairs, 'label')} in all (several per node, "
          f"{len(names)} labels {names[:10]}), {graph.n_nodes - len(target)} to predict"
          f"{_attributes(graph)}")
    _note_isolated(graph, notes)
    is_labelled = np.zeros(graph.n_nodes, dtype=bool)
    is_labelled[list(target)] = True
    rows = np.arange(graph.n_nodes) if args.every_node else np.flatnonzero(~is_labelled)
    _no_rows_note(rows, notes)
    model = NodeClassifier(random_state=args.seed, verbose=notes.progress)
    with notes.progress_bars():
        model.fit(graph.adjacency, target, features=graph.features)
        classes = np.asarray(model.classes_).tolist()
        indicator = (model.predict(rows) if rows.size
                     else np.zeros((0, len(classes)), dtype=int))
        if args.proba:
            proba = (model.predict_proba(rows) if rows.size
                     else np.zeros((0, len(classes))))
    given = np.zeros((graph.n_nodes, len(classes)), dtype=int)
    column = {label: index for index, label in enumerate(classes)}
    for node, labels in target.items():
        given[node, [column[label] for label in labels]] = 1
    columns = {"node": np.asarray(graph.node_names, dtype=object)[rows]}
    if args.every_node:
        columns["label"] = np.where(is_labelled[rows], _joined(given[rows], classes, joiner),
                                    None)
    columns["predicted"] = _joined(indicator, classes, joiner)
    if args.proba:
        _probabilities(columns, classes, proba, args.decimals)
    return _write_and_report(args, pd, model, graph, columns, rows)
