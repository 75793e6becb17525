"""Few labelled nodes: the default against each family and the peers, protocol by protocol.

Four protocols, each with ``n_trials`` random draws on every graph (seeds
``(random_state, trial)``), every labelled node not drawn a test node:

* 5 and 20 labelled nodes per class (:func:`class_splits`; 20 per class is the
  semi-supervised protocol of Planetoid, MagNet and DiGCN);
* 1 % and 10 % of the labelled nodes (:func:`random_splits`).

Methods: the default ``NodeClassifier()`` with the graph's attributes where it has them
and on the structure alone, each kernel family alone, and the scikit-network peers
(structure only); with ``digraph-askls[gnn]``, the graph neural networks too. Beside the
default's accuracy the table gives what its selection estimated it to be
(``selection_["accuracy"]``, held-out predictions of the labelled nodes), so that the
estimate can be checked against the test nodes. Every cell is cached as it is measured
(:class:`CellCache`).
"""

import numpy as np

from ._directed import EXTRA_METHODS, run_directed

__all__ = ["FEW_LABEL_METHODS", "FEW_LABEL_PROTOCOLS", "format_few_labels",
           "plot_few_labels", "run_few_labels"]

#: (kind, value): ``("per_class", k)`` or ``("fraction", f)``.
FEW_LABEL_PROTOCOLS = (("per_class", 5), ("per_class", 20), ("fraction", 0.01),
                       ("fraction", 0.1))

#: The methods of the table.
FEW_LABEL_METHODS = ("AsK-LS default",) + EXTRA_METHODS + (
    "AsK-LS walk", "AsK-LS link profile", "AsK-LS attribute", "PageRank undirected",
    "PageRank directed", "diffusion undirected")

_PEERS = ("PageRank undirected", "PageRank directed", "diffusion undirected")


def _protocol_options(protocol):
    kind, value = protocol
    if kind == "per_class":
        return {"per_class": int(value)}
    if kind == "fraction":
        return {"train_size": float(value)}
    raise ValueError(f"unknown protocol {protocol!r}; expected ('per_class', k) or "
                     f"('fraction', f)")


def parse_protocol(text):
    """``"20"`` (labels per class) or ``"1%"`` (a fraction) as a protocol pair.

    Examples
    --------
    >>> parse_protocol("20"), parse_protocol("1%")
    (('per_class', 20), ('fraction', 0.01))
    """
    text = str(text).strip()
    try:
        if text.endswith("%"):
            value = float(text[:-1]) / 100
            if 0 < value < 1:
                return ("fraction", value)
        elif int(text) >= 1:
            return ("per_class", int(text))
    except ValueError:
        pass
    raise ValueError(f"a protocol is a number of labels per class (e.g. 20) or a percentage "
                     f"of labelled nodes (e.g. 1%), got {text!r}")


def run_few_labels(datasets, protocols=FEW_LABEL_PROTOCOLS, n_trials=10, data_home=None,
                   random_state=0, methods=FEW_LABEL_METHODS, cache=None, recompute=(),
                   cached_only=False, n_threads=1, verbose=True):
    """Rows of :func:`run_directed` for every protocol (see there for the parameters).

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.graph import Graph, get_adjacency
    >>> adjacency, nodes = get_adjacency([(i, (i + 1) % 40) for i in range(40)])
    >>> graph = Graph(adjacency, np.arange(40) // 20, nodes, ["a", "b"], name="ring")
    >>> rows = run_few_labels([graph], [("per_class", 3), ("fraction", 0.25)], n_trials=2,
    ...                       methods=["AsK-LS default", "PageRank undirected"],
    ...                       verbose=False)
    >>> [(row["protocol"], row["method"], row["n_splits"]) for row in rows]
    [('3 labels per class', 'AsK-LS default', 2), ('3 labels per class', 'PageRank undirected', 2), ('25% labelled', 'AsK-LS default', 2), ('25% labelled', 'PageRank undirected', 2)]
    """
    from digraph_askls.datasets import load_dataset
    from ._cells import CellCache

    if not isinstance(cache, CellCache):
        cache = CellCache(cache)
    graphs = []
    for dataset in datasets:            # loaded once for all protocols
        if isinstance(dataset, str):
            try:
                dataset = load_dataset(dataset, data_home=data_home, download=False)
            except (FileNotFoundError, OSError):
                pass                    # run_directed gives its "data not available" row
        graphs.append(dataset)
    rows = []
    for protocol in protocols:
        for row in run_directed(graphs, n_trials=n_trials, data_home=data_home,
                                random_state=random_state, verbose=verbose, methods=methods,
                                cache=cache, recompute=recompute, cached_only=cached_only,
                                n_threads=n_threads, **_protocol_options(protocol)):
            if row.get("published"):
                continue
            graph = next((g for g in graphs if not isinstance(g, str)
                          and g.name == row["graph"]), None)
            per_class = None
            if graph is not None:
                counts = np.bincount(graph.labels[graph.labels >= 0])
                per_class = (float(np.minimum(counts // 2, protocol[1]).mean())
                             if protocol[0] == "per_class"
                             else protocol[1] * counts.sum() / np.count_nonzero(counts))
            rows.append(dict(row, protocol_kind=protocol[0], protocol_value=protocol[1],
                             labels_per_class=per_class))
    return rows


def _ok(row):
    return row.get("status") == "ok" and row.get("n_splits")


def estimate_gaps(rows):
    """Per (graph, protocol) of the default with attributes (else on the structure): the
    mean estimate, the mean test accuracy and the mean absolute gap between the two over
    the draws."""
    gaps = {}
    for row in rows:
        if not _ok(row) or not row["method"].startswith("AsK-LS default"):
            continue
        estimates = [e for e in row.get("estimates") or [] if e is not None]
        if len(estimates) != len(row["accuracy"]):
            continue
        key = (row["graph"], row["protocol"], row["method"])
        gaps[key] = (float(np.mean(estimates)), float(np.mean(row["accuracy"])),
                     float(np.mean(np.abs(np.subtract(estimates, row["accuracy"])))))
    return gaps


def estimate_errors(rows):
    """Per protocol: the mean of the default's estimate minus its test accuracy over
    every draw of every graph (signed: below zero the estimate is pessimistic), and the
    number of fits behind it."""
    errors = {}
    for row in rows:
        if not _ok(row) or row["method"] != "AsK-LS default":
            continue
        estimates = row.get("estimates") or []
        pairs = [(e, a) for e, a in zip(estimates, row["accuracy"]) if e is not None]
        errors.setdefault(row["protocol"], []).extend(e - a for e, a in pairs)
    return {protocol: (float(np.mean(values)), len(values))
            for protocol, values in errors.items() if values}


def peer_verdicts(rows):
    """Per (protocol, graph): the default against the most accurate scikit-network peer
    on the same draws: the peer, the mean paired difference (default minus peer), its
    95 % t-interval over the draws, and "ahead", "level" or "behind" by whether the
    interval lies above zero, spans it, or lies below
    (:func:`~._comparison_report.paired_difference`)."""
    from ._comparison_report import paired_difference

    found = {(row["protocol"], row["graph"], row["method"]): row for row in rows
             if _ok(row)}
    verdicts = {}
    for (protocol, graph, method), default in found.items():
        if method != "AsK-LS default":
            continue
        peers = [found[protocol, graph, peer] for peer in _PEERS
                 if (protocol, graph, peer) in found
                 and len(found[protocol, graph, peer]["accuracy"]) == len(default["accuracy"])]
        if not peers:
            continue
        best = max(peers, key=lambda row: np.mean(row["accuracy"]))
        verdicts[protocol, graph] = (best["method"], *paired_difference(default["accuracy"],
                                                                         best["accuracy"]))
    return verdicts


def _cell(row):
    if row is None:
        return ""
    if not _ok(row):
        return row.get("status", "")
    return f"{row['accuracy_mean']:.3f} ± {row['accuracy_std']:.3f}"


def format_few_labels(rows):
    """Markdown: one table per protocol (graphs by methods), then the estimates' gaps.

    Examples
    --------
    >>> rows = [{"graph": "g", "protocol": "20 labels per class", "method": m,
    ...          "status": "ok", "n_splits": 2, "accuracy": [0.7, 0.8],
    ...          "accuracy_mean": 0.75, "accuracy_std": 0.05, "seconds_per_split": 0.5,
    ...          "estimates": [0.72, 0.78] if m == "AsK-LS default" else [None, None]}
    ...         for m in ("AsK-LS default", "PageRank undirected")]
    >>> text = format_few_labels(rows)
    >>> "| g | 0.750 ± 0.050 (est. 0.750, gap 0.020) | 0.50 |" in text
    True
    """
    protocols = list(dict.fromkeys(row["protocol"] for row in rows))
    methods = [m for m in FEW_LABEL_METHODS if any(r["method"] == m for r in rows)]
    methods += [m for m in dict.fromkeys(r["method"] for r in rows) if m not in methods]
    others = [m for m in methods if m != "AsK-LS default"]
    gaps = estimate_gaps(rows)
    lines = []
    for protocol in protocols:
        chosen = [row for row in rows if row["protocol"] == protocol]
        graphs = list(dict.fromkeys(row["graph"] for row in chosen))
        lines += [f"**{protocol}**", "",
                  "| graph | AsK-LS default | s / split | " + " | ".join(others) + " |",
                  "|---" * (len(others) + 3) + "|"]
        for graph in graphs:
            found = {row["method"]: row for row in chosen if row["graph"] == graph}
            default = found.get("AsK-LS default")
            cell = _cell(default)
            if (graph, protocol, "AsK-LS default") in gaps:
                estimate, _, gap = gaps[graph, protocol, "AsK-LS default"]
                cell += f" (est. {estimate:.3f}, gap {gap:.3f})"
            seconds = f"{default['seconds_per_split']:.2f}" if default is not None and \
                _ok(default) else ""
            lines.append(f"| {graph} | {cell} | {seconds} | "
                         + " | ".join(_cell(found.get(m)) for m in others) + " |")
        lines.append("")
    if gaps:
        mean_gap = np.mean([gap for _, _, gap in gaps.values()])
        lines += [f"Mean absolute gap between the default's estimate and its test accuracy, "
                  f"over the {len(gaps)} (graph, protocol, variant) rows above, draw by "
                  f"draw: **{mean_gap:.3f}**.", ""]
    errors = estimate_errors(rows)
    if errors:
        lines += ["| protocol | estimate minus test accuracy, mean over the draws | fits |",
                  "|---|---|---|"]
        lines += [f"| {protocol} | {error:+.3f} | {count} |"
                  for protocol, (error, count) in errors.items()]
        lines.append("")
    verdicts = peer_verdicts(rows)
    if verdicts:
        lines += ["The default against the most accurate scikit-network peer on the same "
                  "draws (default minus peer, mean and 95 % t-interval over the draws):", "",
                  "| protocol | graph | peer | difference [95 %] | verdict |",
                  "|---|---|---|---|---|"]
        lines += [f"| {protocol} | {graph} | {peer} | {mean:+.3f} [{low:+.3f}, {high:+.3f}] "
                  f"| {verdict} |"
                  for (protocol, graph), (peer, mean, low, high, verdict) in verdicts.items()]
        lines.append("")
    lines += ["Accuracy is micro-F1 on the test nodes (every labelled node not drawn), "
              "mean ± std over the draws. \"est.\": the default's own estimate "
              "(`selection_[\"accuracy\"]`), \"gap\": the mean absolute difference between "
              "estimate and test accuracy, draw by draw. AsK-LS uses the node attributes "
              "where the data has them (\"default, structure\": without them); the "
              "scikit-network peers use the structure only."]
    return "\n".join(lines)


def plot_few_labels(rows, path):
    """Accuracy against labelled nodes per class (log scale), one panel per graph: the
    default (with attributes and on the structure), the best peer of each protocol."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    graphs = list(dict.fromkeys(row["graph"] for row in rows if _ok(row)))
    columns = min(3, len(graphs)) or 1
    figure, axes = plt.subplots((len(graphs) + columns - 1) // columns, columns,
                                figsize=(4.2 * columns, 3.2 * ((len(graphs) + columns - 1)
                                                               // columns)), squeeze=False)
    series = {"AsK-LS default": "C0", "AsK-LS default, structure": "C2", "best peer": "C3"}
    for ax, graph in zip(axes.ravel(), graphs):
        chosen = [row for row in rows if row["graph"] == graph and _ok(row)]
        points = {name: [] for name in series}
        for protocol in dict.fromkeys(row["protocol"] for row in chosen):
            found = {row["method"]: row for row in chosen if row["protocol"] == protocol}
            per_class = _labels_per_class(next(iter(found.values())))
            for name in ("AsK-LS default", "AsK-LS default, structure"):
                if name in found:
                    points[name].append((per_class, found[name]["accuracy_mean"]))
            peers = [found[m]["accuracy_mean"] for m in _PEERS if m in found]
            if peers:
                points["best peer"].append((per_class, max(peers)))
        for name, colour in series.items():
            if points[name]:
                x, y = zip(*sorted(points[name]))
                ax.plot(x, y, "o-", color=colour, label=name)
        ax.set(xscale="log", title=graph, xlabel="labelled nodes per class (mean)",
               ylabel="accuracy")
        # Plain numbers at 1, 2, 5, 10, ...; no minor labels to overlap them.
        ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(graphs):]:
        ax.axis("off")
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="upper center", ncol=len(series))
    figure.tight_layout(rect=(0, 0, 1, 0.95))
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _labels_per_class(row):
    """Mean labelled nodes per class of a row's protocol."""
    value = row.get("labels_per_class")
    if value is None and row.get("protocol_kind") == "per_class":
        value = row["protocol_value"]
    return float(np.nan if value is None else value)
