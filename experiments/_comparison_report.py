"""The comparison's tables, drawn from its cells alone.

Each headline cell is a method's test accuracy over the 10 splits of a (protocol, graph);
a cell with fewer splits is marked and stays out of the paired comparison. Each row then
pairs the default with the best peer of that row (the peer of highest mean accuracy among
those with every split): the mean of the split-by-split differences, its 95 % interval
(Student's t over the splits) and a paired t-test, read as *ahead* (the interval above 0),
*behind* (below 0) or *level*.
"""

from collections import defaultdict

import numpy as np

from ._comparison import COMPARISON_METHODS, COMPARISON_PROTOCOLS, SEALED_SEED

__all__ = ["summarize", "paired_difference", "paired_rows", "format_comparison"]

DEFAULT = "AsK-LS default"
_FULL = 10

#: Published test accuracies for orientation (other code and machines): protocol, graph,
#: method, accuracy, source.
PUBLISHED = [
    ("planetoid", "cora", "GCN", 0.815, "Kipf & Welling 2017"),
    ("planetoid", "citeseer", "GCN", 0.703, "Kipf & Welling 2017"),
    ("planetoid", "cora", "GAT", 0.830, "Velickovic et al. 2018"),
    ("planetoid", "citeseer", "GAT", 0.725, "Velickovic et al. 2018"),
    ("planetoid", "cora", "APPNP", 0.833, "Gasteiger et al. 2019"),
    ("planetoid", "citeseer", "APPNP", 0.718, "Gasteiger et al. 2019"),
    ("planetoid", "cora", "GCNII", 0.855, "Chen et al. 2020"),
    ("planetoid", "citeseer", "GCNII", 0.734, "Chen et al. 2020"),
    ("planetoid", "cora", "SGC", 0.810, "Wu et al. 2019"),
    ("planetoid", "citeseer", "SGC", 0.719, "Wu et al. 2019"),
    ("fixed", "chameleon", "Dir-GNN", 0.797, "Rossi et al. 2023 (directed Chameleon)"),
    ("fixed", "chameleon", "GCNII", 0.606, "Chen et al. 2020 (undirected Chameleon)"),
]


def _groups(cells):
    groups = defaultdict(dict)
    for cell in cells:
        groups[(cell["protocol"], cell["graph"], cell["method"])][int(cell["split"])] = cell
    return groups


def summarize(cells):
    """One row per (protocol, graph, method): splits, mean and std of the accuracy, of the
    refit accuracy (peers), seconds per split, the configurations chosen.

    Examples
    --------
    >>> cells = [{"protocol": "fixed", "graph": "g", "method": "GCN", "split": s,
    ...           "accuracy": 0.5 + 0.1 * s, "seconds": 1.0} for s in range(2)]
    >>> row, = summarize(cells)
    >>> row["n_splits"], round(row["accuracy_mean"], 2)
    (2, 0.55)
    """
    rows = []
    for (protocol, graph, method), by_split in _groups(cells).items():
        values = [by_split[s] for s in sorted(by_split)]
        accuracy = np.array([cell["accuracy"] for cell in values])
        row = {"protocol": protocol, "graph": graph, "method": method,
               "n_splits": len(values), "accuracy_mean": float(accuracy.mean()),
               "accuracy_std": float(accuracy.std()),
               "seconds_per_split": float(np.mean([cell["seconds"] for cell in values]))}
        refit = [cell["accuracy_refit"] for cell in values if "accuracy_refit" in cell]
        if refit:
            row["accuracy_refit_mean"] = float(np.mean(refit))
        epochs = [cell["best_epoch"] for cell in values if cell.get("best_epoch")]
        if epochs:
            row["best_epoch_median"] = float(np.median(epochs))
            row["best_epoch_max"] = int(np.max(epochs))
        estimates = [cell["estimate"] for cell in values if cell.get("estimate") is not None]
        if estimates:
            row["estimate_mean"] = float(np.mean(estimates))
        row["devices"] = sorted({str(cell.get("device", "")) for cell in values})
        configs = defaultdict(int)
        for cell in values:
            configs[_short(cell.get("config"))] += 1
        row["configs"] = dict(configs)
        rows.append(row)
    return rows


def _short(config):
    if not isinstance(config, dict):
        return str(config)
    return ", ".join(f"{key} {value}" for key, value in config.items())


def paired_difference(a, b):
    """The mean of ``a - b`` over paired splits, its 95 % interval (Student's t) and the
    verdict: "ahead" (the interval above 0), "behind" (below 0) or "level". With fewer
    than two splits the interval is unbounded.

    Examples
    --------
    >>> mean, low, high, verdict = paired_difference([0.8, 0.9, 0.85], [0.7, 0.8, 0.8])
    >>> round(mean, 3), verdict
    (0.083, 'ahead')
    """
    from scipy import stats

    difference = np.subtract(a, b)
    mean = float(difference.mean())
    if difference.size < 2:
        half = np.inf
    else:
        half = float(stats.t.ppf(0.975, difference.size - 1) * difference.std(ddof=1)
                     / np.sqrt(difference.size))
    low, high = mean - half, mean + half
    return mean, low, high, "ahead" if low > 0 else "behind" if high < 0 else "level"


def paired_rows(cells, metric="accuracy", default=DEFAULT):
    """The default against the best complete peer, row by row (see the module's note).

    ``default`` names the AsK-LS row to pair (``"AsK-LS default (train part)"``: the
    default fitted on the nodes the peers fit).

    Returns a list of dicts: protocol, graph, peer, the two means, ``difference`` (mean
    of default minus peer), ``low`` and ``high`` (95 % interval), ``p`` (paired t-test)
    and ``verdict``.
    """
    from scipy import stats

    groups = _groups(cells)
    rows = []
    for protocol, graphs in COMPARISON_PROTOCOLS.items():
        for graph in graphs:
            mine = groups.get((protocol, graph, default), {})
            if len(mine) < _FULL:
                continue
            peers = []
            for method in COMPARISON_METHODS:
                if method.startswith("AsK-LS"):
                    continue
                theirs = groups.get((protocol, graph, method), {})
                if len(theirs) >= _FULL and any(metric in c for c in theirs.values()):
                    mean = np.mean([theirs[s][metric] for s in sorted(theirs)])
                    peers.append((mean, method, theirs))
            if not peers:
                continue
            _, method, theirs = max(peers)
            splits = sorted(set(mine) & set(theirs))
            a = np.array([mine[s]["accuracy"] for s in splits])
            b = np.array([theirs[s][metric] for s in splits])
            mean, low, high, verdict = paired_difference(a, b)
            spread = float((a - b).std(ddof=1)) if len(splits) > 1 else 0.0
            p = float(stats.ttest_rel(a, b).pvalue) if spread > 0 else (
                1.0 if mean == 0 else 0.0)
            rows.append({"protocol": protocol, "graph": graph, "peer": method,
                         "default": float(a.mean()), "peer_accuracy": float(b.mean()),
                         "difference": mean, "low": low, "high": high, "p": p,
                         "n_splits": len(splits), "verdict": verdict})
    return rows


def _seconds_text(row):
    """Seconds per split, marked "g" where measured on the GPU."""
    on_gpu = any(device.startswith("cuda") for device in row.get("devices", ()))
    return f"{row['seconds_per_split']:.1f}" + (" g" if on_gpu else "")


def _cell_text(row):
    text = f"{row['accuracy_mean']:.3f} ± {row['accuracy_std']:.3f}"
    if row["n_splits"] < _FULL:
        text += f" ({row['n_splits']} of {_FULL} †)"
    return text


_NOTE = """\
Every method on the same labelled nodes of the same splits; test accuracy (micro-F1),
mean ± std over the splits. Base seed {seed}{sealed}: the random draws (60/40, 20 and
5 per class) and the peers' training seeds come from it; the fixed and Planetoid splits are
the datasets' own (Planetoid: one split, 10 training seeds).

* **Labelled nodes.** Fixed splits: the split's training and validation nodes. Planetoid:
  the 20 per class and the 500 validation nodes. Random draws: the drawn nodes.
* **AsK-LS default** (`NodeClassifier()`) fits on all of them and chooses its kernel, gamma
  and merge by its own stratified cross-validation; *(train part)* fits on the training
  nodes alone, as the published protocols train the networks; *(validated)* fits them
  alone too and chooses on the validation nodes, as the networks choose.
* **Peers** validate on the split's validation nodes (fixed, Planetoid) or on a stratified
  fifth of the drawn nodes (random draws), fit the rest, search a grid of at most 8
  configurations on validation accuracy (listed below), train up to 1,000 epochs with
  patience 100 and keep the best validation epoch. The table reads that early-stopped
  model; the same configuration refit on all labelled nodes is in its own table below.
* † marks a cell with fewer splits than 10: it stays out of the paired comparison.
* Seconds per split: AsK-LS on one CPU core (one BLAS thread, its selection included);
  peers their whole grid search and refit, on the device named in the cells (an H200 or H100 GPU
  shared by 16 processes at once, or one CPU thread).
"""


def format_comparison(cells, seed=SEALED_SEED):
    """Markdown: headline grids, the paired comparison, refits, seconds, settings.

    Examples
    --------
    >>> cells = [{"protocol": "fixed", "graph": "texas", "method": m, "split": s, "seed": 1,
    ...           "accuracy": a + 0.01 * s + 0.02 * (s % 2) * (m == "GCN"), "seconds": 1.0}
    ...          for m, a in (("AsK-LS default", 0.8), ("GCN", 0.6)) for s in range(10)]
    >>> text = format_comparison(cells, seed=1)
    >>> "| texas | 0.845 ± 0.029 | 0.655 ± 0.032 |" in text
    True
    >>> row, = paired_rows(cells)
    >>> row["peer"], round(row["difference"], 3), row["verdict"]
    ('GCN', 0.19, 'ahead')
    """
    from ._comparison_peers import PEER_GRIDS, _product

    rows = summarize(cells)
    index = {(r["protocol"], r["graph"], r["method"]): r for r in rows}
    methods = [m for m in COMPARISON_METHODS if any(r["method"] == m for r in rows)]
    lines = [_NOTE.format(seed=seed, sealed=" (the sealed seed of the published tables)"
                          if seed == SEALED_SEED else " (not the sealed seed)"), ""]
    for protocol, graphs in COMPARISON_PROTOCOLS.items():
        here = [m for m in methods if any(index.get((protocol, g, m)) for g in graphs)]
        if not here:
            continue
        lines += [f"## {protocol}", "", "| graph | " + " | ".join(here) + " |",
                  "|---" * (len(here) + 1) + "|"]
        for graph in graphs:
            texts = [_cell_text(index[(protocol, graph, m)]) if (protocol, graph, m) in index
                     else "not run" for m in here]
            lines.append(f"| {graph} | " + " | ".join(texts) + " |")
        lines.append("")
    sections = [
        ("The default against the best peer, split by split",
         "Best peer: highest mean among the peers with all 10 splits of the row. Difference: "
         "default minus peer, mean over the splits [95 % interval]; p: paired t-test.",
         "best peer", "default", {}),
        ("The default fitted on the training part alone",
         "Fixed and Planetoid splits: `AsK-LS default (train part)` fits the nodes the peers "
         "fit, without the validation nodes the peers choose their settings and epoch on, "
         "against the same best peer as above:",
         "best peer", "default (train part)", {"default": "AsK-LS default (train part)"}),
        ("The default choosing on the validation nodes",
         "Fixed and Planetoid splits: `AsK-LS default (validated)` fits the training nodes "
         "alone, as above, and chooses its kernel, gamma and merge on the validation nodes "
         "(`NodeClassifier().fit(..., valid=...)`), as the peers choose their settings and "
         "epoch, against the same best peer:",
         "best peer", "default (validated)", {"default": "AsK-LS default (validated)"}),
        ("Peers refit on all labelled nodes",
         "The chosen configuration trained again on every labelled node for its best epoch "
         "count; the best refit peer beside the default:",
         "best refit peer", "default", {"metric": "accuracy_refit"}),
    ]
    for title, note, peer, mine, options in sections:
        lines += [f"## {title}", "", note, "",
                  f"| protocol | graph | {peer} | {mine} | peer | difference | p | splits "
                  f"| verdict |", "|---" * 9 + "|"]
        lines += [f"| {row['protocol']} | {row['graph']} | {row['peer']} "
                  f"| {row['default']:.3f} | {row['peer_accuracy']:.3f} "
                  f"| {row['difference']:+.3f} [{row['low']:+.3f}, {row['high']:+.3f}] "
                  f"| {row['p']:.2g} | {row['n_splits']} | {row['verdict']} |"
                  for row in paired_rows(cells, **options)]
        lines.append("")
    lines += ["## Seconds per split", "",
              "g: a peer measured on the GPU (16 processes sharing it); else one CPU core.",
              "", "| protocol | graph | " + " | ".join(methods)
              + " |", "|---" * (len(methods) + 2) + "|"]
    for protocol, graphs in COMPARISON_PROTOCOLS.items():
        for graph in graphs:
            texts = [_seconds_text(index[(protocol, graph, m)]) if (protocol, graph, m) in index
                     else "" for m in methods]
            if any(texts):
                lines.append(f"| {protocol} | {graph} | " + " | ".join(texts) + " |")
    lines += ["", "## Best validation epochs of the peers (median, max)", "",
              "| protocol | graph | " + " | ".join(m for m in methods
                                                  if not m.startswith("AsK-LS")) + " |",
              "|---" * (len([m for m in methods if not m.startswith("AsK-LS")]) + 2) + "|"]
    for protocol, graphs in COMPARISON_PROTOCOLS.items():
        for graph in graphs:
            texts = []
            for m in methods:
                if m.startswith("AsK-LS"):
                    continue
                row = index.get((protocol, graph, m))
                texts.append(f"{row['best_epoch_median']:.0f}, {row['best_epoch_max']}"
                             if row and "best_epoch_median" in row else "")
            if any(texts):
                lines.append(f"| {protocol} | {graph} | " + " | ".join(texts) + " |")
    published = [p for p in PUBLISHED if (p[0], p[1], p[2]) in index]
    if published:
        lines += ["", "## Published figures beside ours (other code and machines)", "",
                  "| protocol | graph | method | published | here |", "|---|---|---|---|---|"]
        for protocol, graph, method, value, source in published:
            here = index[(protocol, graph, method)]
            lines.append(f"| {protocol} | {graph} | {method} | {value:.3f} ({source}) "
                         f"| {_cell_text(here)} |")
    lines += ["", "## Grids searched", ""]
    for method, entry in PEER_GRIDS.items():
        if method in methods:
            axes = defaultdict(set)
            for point in entry["grid"]:
                for key, value in point.items():
                    axes[key].add(value)
            grid = "; ".join(f"{key} {sorted(values)}" for key, values in axes.items())
            combinations = int(np.prod([len(values) for values in axes.values()]))
            if combinations > len(entry["grid"]):
                every = _product(**{key: sorted(values) for key, values in axes.items()})
                left = [point for point in every if point not in entry["grid"]]
                grid += (f"; {len(entry['grid'])} of the {combinations} combinations, "
                         f"without {'; '.join(_short(point) for point in left)}")
            own = list(entry.get("graphs", {})) + [
                f"{graph} ({protocol} splits: {'; '.join(_short(point) for point in points)})"
                for (graph, protocol), points in entry.get("splits", {}).items()]
            extra = f"; own settings on {', '.join(own)}" if own else ""
            lines.append(f"* {method}: {_short(entry['fixed'])}; searched: {grid} "
                         f"({len(entry['grid'])} configurations){extra}.")
    return "\n".join(lines)
