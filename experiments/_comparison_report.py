"""The comparison's tables, drawn from its cells alone.

Each cell of a table is a method's test accuracy over the 10 splits of a (protocol,
graph); a method with fewer splits, and the variants of a network run on a few splits
with its authors' settings, are shown marked and stay out of the paired comparison.

The paired comparison (:func:`paired_rows`) pairs, row by row, the default with the best
peer of the row: the peer of highest mean test accuracy among those with every split.
The rule of its verdict is written once, here (:data:`RULE`, :func:`paired_test`,
:func:`holm`):

* the split-by-split differences (default minus peer) are tested with a paired t-test;
  where the training sets of the splits overlap substantially (the fixed splits, the
  60/40 draws) the variance of their mean is corrected as Nadeau and Bengio propose
  (Machine Learning 52, 2003): multiplied by ``(1/k + n_test/n_train)`` instead of
  ``1/k``, with ``k`` splits; on few-label draws (20 or 5 per class) and on Planetoid's
  one split (10 training seeds) the plain paired t-test holds;
* Holm's step-down correction runs over the rows of each table;
* a row is *ahead* or *behind* when its Holm-corrected p-value is below 0.05 (the sign of
  the mean difference says which), else *level*.
"""

from collections import defaultdict

import numpy as np

from ._comparison import (COMPARISON_METHODS, COMPARISON_PROTOCOLS, REFERENCES, SEALED_SEED,
                          STRUCTURE_PROTOCOLS)

__all__ = ["summarize", "paired_difference", "paired_test", "holm", "paired_rows",
           "headline_default", "format_comparison", "format_structure", "RULE", "PUBLISHED",
           "SOURCES"]

DEFAULT = "AsK-LS default"
VALIDATED = "AsK-LS default (validated)"
_FULL = 10
#: Family-wise error rate of the verdicts of one table.
ALPHA = 0.05
#: Protocols whose splits' training sets overlap substantially: Nadeau-Bengio correction.
CORRECTED = ("fixed", "60/40")
#: Protocols whose splits are the dataset's own (seen during development), not sealed draws.
OWN_SPLITS = ("fixed", "planetoid")

#: The rule of the verdicts, in words (stated above every paired table).
RULE = (
    "Verdict rule, the same for every paired table: a paired t-test of the split-by-split "
    "differences (default minus peer). Where the splits' training sets overlap "
    "substantially (fixed splits, 60/40 draws) the variance of the mean difference is "
    "corrected as Nadeau and Bengio propose (Machine Learning 52, 2003): multiplied by "
    "1/k + n_test/n_train (k = 10 splits, n_train the labelled nodes) instead of 1/k; on "
    "the few-label draws (20 and 5 per class) and on Planetoid's one split, whose 10 runs "
    "differ by their training seeds, the plain paired t-test holds. Holm's correction "
    "runs over the rows of the table; a row is *ahead* or *behind* when its corrected "
    "p-value is below 0.05 (family-wise), else *level*. The interval is the 95 % "
    "interval of the mean difference under the same variance (not widened for the "
    "number of rows). The best peer of a row is the peer of highest mean **test** "
    "accuracy among those with all 10 splits: picked after seeing the test nodes, which "
    "favours the peers. A row is judged once at least 8 peers have run on all 10 splits; "
    "a row with fewer is shown, marked †, and kept out of Holm's family and the counts.")

_PLATONOV = "Platonov et al. 2023 ²"
_CSNN = "Ribeiro et al. (CSNN) ³"
#: The full references of the short sources of :data:`PUBLISHED`, footnotes of its table.
SOURCES = {
    _PLATONOV: 'Platonov et al., "A critical look at the evaluation of GNNs under '
               'heterophily: are we really making progress?", ICLR 2023: their GCN, '
               'GraphSAGE and GAT on the filtered graphs, as Ribeiro et al. table them '
               '(Table 1, beside CSNN)',
    _CSNN: 'Ribeiro et al., "Cooperative Sheaf Neural Networks", Table 1',
}

#: Published test accuracies for orientation (other code and machines): protocol, graph,
#: method, accuracy, source. A method not run here is listed as "not run here".
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
    # The filtered graphs, on the same 10 fixed splits (mean of their 10 runs).
    ("fixed", "chameleon-filtered", "GCN", 0.4089, _PLATONOV),
    ("fixed", "chameleon-filtered", "GraphSAGE", 0.3777, _PLATONOV),
    ("fixed", "chameleon-filtered", "GAT", 0.3921, _PLATONOV),
    ("fixed", "chameleon-filtered", "CSNN", 0.4309, _CSNN),
    ("fixed", "squirrel-filtered", "GCN", 0.3947, _PLATONOV),
    ("fixed", "squirrel-filtered", "GraphSAGE", 0.3609, _PLATONOV),
    ("fixed", "squirrel-filtered", "GAT", 0.3562, _PLATONOV),
    ("fixed", "squirrel-filtered", "CSNN", 0.4118, _CSNN),
]


def _variants():
    from ._comparison_peers import VARIANTS

    return tuple(VARIANTS)


def _is_peer(method):
    """A method that may be the best peer of a row: not AsK-LS, not a reference, not a
    variant run on a few splits."""
    return not (method.startswith("AsK-LS") or method in REFERENCES
                or method in _variants())


def headline_default(protocol):
    """The form of the default the headline pairs on ``protocol``: fitted on the nodes the
    networks fit and choosing on their validation nodes on the datasets' own splits (fixed,
    Planetoid), as the networks do; fitted on the drawn nodes on the random draws, which
    every method gets alike.

    >>> headline_default("fixed"), headline_default("20 per class")
    ('AsK-LS default (validated)', 'AsK-LS default')
    """
    return VALIDATED if protocol in OWN_SPLITS else DEFAULT


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
    than two splits the interval is unbounded. (One row alone, uncorrected; the
    comparison's tables use :func:`paired_test` and :func:`holm`.)

    Examples
    --------
    >>> mean, low, high, verdict = paired_difference([0.8, 0.9, 0.85], [0.7, 0.8, 0.8])
    >>> round(mean, 3), verdict
    (0.083, 'ahead')
    """
    mean, low, high, _ = paired_test(a, b)
    return mean, low, high, "ahead" if low > 0 else "behind" if high < 0 else "level"


def paired_test(a, b, n_train=None, n_test=None):
    """A paired t-test of ``a - b`` over ``k`` splits: (mean, low, high, p).

    With ``n_train`` and ``n_test`` the variance of the mean is Nadeau and Bengio's
    corrected one, ``s**2 * (1/k + n_test/n_train)``, for splits whose training sets
    overlap; without, the plain ``s**2 / k``. ``low`` and ``high`` bound the 95 %
    interval of the mean; ``p`` is two-sided, from Student's t with ``k - 1`` degrees of
    freedom (:data:`scipy.stats.t`).

    Examples
    --------
    >>> a, b = [0.80, 0.82, 0.85, 0.81], [0.78, 0.80, 0.80, 0.80]
    >>> mean, low, high, p = paired_test(a, b)
    >>> round(mean, 3), round(p, 3)
    (0.025, 0.063)
    >>> round(paired_test(a, b, n_train=60, n_test=40)[3], 3)   # overlapping training sets
    0.229
    """
    from scipy import stats

    difference = np.subtract(a, b, dtype=float)
    k, mean = difference.size, float(difference.mean())
    if (n_train is None) != (n_test is None):
        raise ValueError(f"expected both n_train and n_test or neither, got {n_train!r} "
                         f"and {n_test!r}")
    factor = 1 / k + (n_test / n_train if n_train else 0.0)
    spread = float(difference.std(ddof=1)) if k > 1 else np.inf
    if spread == 0:
        return mean, mean, mean, 1.0 if mean == 0 else 0.0
    scale = spread * np.sqrt(factor)
    half = float(stats.t.ppf(0.975, k - 1) * scale) if k > 1 else np.inf
    p = float(2 * stats.t.sf(abs(mean) / scale, k - 1)) if k > 1 else 1.0
    return mean, mean - half, mean + half, p


def holm(p_values):
    """Holm's step-down adjusted p-values (family-wise error), in the order given.

    >>> [round(p, 3) for p in holm([0.01, 0.04, 0.03])]
    [0.03, 0.06, 0.06]
    """
    p_values = np.asarray(p_values, dtype=float)
    adjusted = np.empty_like(p_values)
    running = 0.0
    for rank, index in enumerate(np.argsort(p_values, kind="stable")):
        running = max(running, (p_values.size - rank) * p_values[index])
        adjusted[index] = min(1.0, running)
    return adjusted.tolist()


#: Complete peers (every split) a row needs before its verdict counts: with fewer, the best
#: of the few is no fair stand-in for the tuned peers, so the row is shown, marked, and
#: kept out of Holm's family and the counts.
MIN_PEERS = 8


def _complete_peers(groups, protocol, graph, metric):
    return sum(1 for method in COMPARISON_METHODS
               if _is_peer(method)
               and len(theirs := groups.get((protocol, graph, method), {})) >= _FULL
               and all(metric in cell for cell in theirs.values()))


def _best_peer(groups, protocol, graph, metric, pick=None):
    """The complete peer of highest mean ``pick`` (default: ``metric``, the test accuracy
    read), as (mean, method, cells by split), or None."""
    pick = pick or metric
    peers = []
    for method in COMPARISON_METHODS:
        theirs = groups.get((protocol, graph, method), {})
        if (_is_peer(method) and len(theirs) >= _FULL
                and all(metric in cell and pick in cell for cell in theirs.values())):
            peers.append((np.mean([theirs[s][pick] for s in sorted(theirs)]), method,
                          theirs))
    return max(peers, key=lambda peer: peer[:2]) if peers else None


def _paired_row(protocol, graph, mine, theirs, method, metric, corrected=None):
    splits = sorted(set(mine) & set(theirs))
    a = np.array([mine[s]["accuracy"] for s in splits])
    b = np.array([theirs[s][metric] for s in splits])
    sizes = {}
    if protocol in (CORRECTED if corrected is None else corrected):
        first = mine[splits[0]]
        sizes = {"n_train": first["n_labelled"], "n_test": first["n_test"]}
    mean, low, high, p = paired_test(a, b, **sizes)
    return {"protocol": protocol, "graph": graph, "peer": method,
            "default": float(a.mean()), "peer_accuracy": float(b.mean()),
            "difference": mean, "low": low, "high": high, "p": p,
            "test": "Nadeau-Bengio" if sizes else "paired t", "n_splits": len(splits),
            "sealed": protocol not in OWN_SPLITS}


def paired_rows(cells, metric="accuracy", default=None, min_peers=MIN_PEERS, pick=None,
                corrected=None, holm_correction=True, rows=None):
    """The default against the best complete peer, row by row, with the verdicts of
    :data:`RULE` (Holm's correction over the rows returned).

    ``default`` names the AsK-LS form to pair on every row; None: the matched form of
    each protocol (:func:`headline_default`). ``metric`` is the peers' accuracy read
    (``"accuracy_refit"``: refit on all labelled nodes). The other analyses of
    :mod:`._comparison_robust`: ``pick`` the score the best peer is picked on (default
    ``metric``, its test mean; ``"valid_accuracy"``: its validation mean), ``corrected``
    the protocols whose variance takes Nadeau and Bengio's correction (None:
    :data:`CORRECTED`), and
    ``holm_correction`` (False: each row's own p-value decides). ``rows``: the graphs of
    each protocol (default :data:`COMPARISON_PROTOCOLS`; the structure-only table's:
    :data:`STRUCTURE_PROTOCOLS`), Holm's family.

    Returns a list of dicts: protocol, graph, peer, the two means, ``difference`` (mean
    of default minus peer), ``low`` and ``high`` (95 % interval), ``p`` (the row's own
    test), ``p_holm``, ``test``, ``sealed``, ``n_peers`` (the peers run on every split)
    and ``verdict``: a row with fewer than ``min_peers`` such peers is "not judged" and
    stays out of Holm's family.
    """
    groups = _groups(cells)
    table = COMPARISON_PROTOCOLS if rows is None else rows
    rows = []
    for protocol, graphs in table.items():
        mine_name = default or headline_default(protocol)
        for graph in graphs:
            mine = groups.get((protocol, graph, mine_name), {})
            best = _best_peer(groups, protocol, graph, metric, pick)
            if len(mine) < _FULL or best is None:
                continue
            row = _paired_row(protocol, graph, mine, best[2], best[1], metric, corrected)
            row["n_peers"] = _complete_peers(groups, protocol, graph, metric)
            rows.append(row)
    judged = [row for row in rows if row["n_peers"] >= min_peers]
    p_values = [row["p"] for row in judged]
    for row, adjusted in zip(judged, holm(p_values) if holm_correction else p_values):
        row["p_holm"] = adjusted
        row["verdict"] = ("level" if adjusted >= ALPHA
                          else "ahead" if row["difference"] > 0 else "behind")
    for row in rows:
        if row["n_peers"] < min_peers:
            row["p_holm"], row["verdict"] = None, "not judged"
    return rows


def verdict_counts(rows):
    """How many rows are ahead, level and behind.

    >>> verdict_counts([{"verdict": "ahead"}, {"verdict": "level"}])
    {'ahead': 1, 'level': 1, 'behind': 0}
    """
    return {verdict: sum(row["verdict"] == verdict for row in rows)
            for verdict in ("ahead", "level", "behind")}


def _verdict_text(row):
    if row["p_holm"] is None:
        return f"† {row['n_peers']} of {MIN_PEERS} peers"
    return f"{row['verdict']} ({_p_text(row['p_holm'])})"


def _signed(value):
    return f"{value:+.3f}".replace("-", "−")


def _p_text(p):
    return f"{p:.2g}" if p >= 0.001 else f"{p:.0e}"


def _paired_table(rows, mine="default"):
    """The paired rows as a table of 6 narrow columns (¹ beside the protocol: the
    dataset's own splits, not sealed)."""
    lines = [f"| graph | protocol | {mine} | best peer | difference [95 %] "
             "| verdict (p, Holm) |", "|---" * 6 + "|"]
    for row in rows:
        lines.append(
            f"| {row['graph']} | {row['protocol']}{'' if row['sealed'] else ' ¹'} "
            f"| {row['default']:.3f} | {row['peer']} {row['peer_accuracy']:.3f} "
            f"| {_signed(row['difference'])} [{_signed(row['low'])}, {_signed(row['high'])}] "
            f"| {_verdict_text(row)} |")
    counts = verdict_counts(rows)
    judged = sum(counts.values())
    partial = len(rows) - judged
    lines += ["", f"Ahead on {counts['ahead']} of {judged} rows, level on "
              f"{counts['level']}, behind on {counts['behind']}."
              + (" ¹ The dataset's own splits, seen during development (not sealed); the "
                 "other rows are sealed draws (seed 7340611)."
                 if any(not row["sealed"] for row in rows) else
                 " Every row is on sealed draws (seed 7340611).")]
    if partial:
        lines[-1] += (f" † Not judged: {partial} row(s) with fewer than {MIN_PEERS} peers run "
                      "on every split so far, out of Holm's family and the counts.")
    return lines


_NOTE = """\
Every method on the same labelled nodes of the same splits; test accuracy (micro-F1),
mean over the splits. Base seed {seed}{sealed}: the random draws (60/40, 20 and 5 per
class) and the peers' training seeds come from it. The fixed and Planetoid splits are the
datasets' own and were seen during development: they cannot be sealed (Planetoid: one
split, 10 training seeds).

* **Labelled nodes.** Fixed splits: the split's training and validation nodes. Planetoid:
  the 20 per class and the 500 validation nodes. Random draws: the drawn nodes.
* **AsK-LS default** (`NodeClassifier()`) fits on all of them and chooses its kernel, gamma
  and merge by its own stratified cross-validation; *(train part)* fits on the training
  nodes alone, as the published protocols train the networks; *(validated)* fits them
  alone too and chooses on the validation nodes, as the networks choose
  (`NodeClassifier().fit(..., valid=...)`).
* **Peers** validate on the split's validation nodes (fixed, Planetoid) or on a stratified
  fifth of the drawn nodes (random draws), fit the rest, search a grid of at most 8
  configurations on validation accuracy (listed below), train up to 1,000 epochs with
  patience 100 and keep the best validation epoch (early-stopped). The same configuration
  refit on all labelled nodes is compared in its own table.
* **Twin baseline** (fixed splits, a reference, never a peer): each test node copies the
  label of a labelled node with the same out-links (else the same in-links), else takes
  the majority class (`twin_baseline` in `experiments/_protocols.py`).
* † marks a cell with fewer splits than 10, or a variant of a network at its authors'
  settings run on the rows they published them for: shown, kept out of the paired rows.
"""


def _twin_warning(cells, rows):
    """A sentence naming the fixed rows where copying twins beats the default or the peer."""
    groups = _groups(cells)
    beaten = []
    for row in rows:
        twins = groups.get((row["protocol"], row["graph"], "twin baseline"), {})
        if len(twins) >= _FULL:
            score = _mean(list(twins.values()), "accuracy")
            if score >= min(row["default"], row["peer_accuracy"]):
                beaten.append(f"{row['graph']} ({score:.3f})")
    if not beaten:
        return []
    return ["", "Copying the label of a labelled twin (the twin baseline, a reference) scores "
            "at least as high as the default or the best peer on the fixed splits of "
            + " and ".join([", ".join(beaten[:-1]), beaten[-1]] if len(beaten) > 1
                           else beaten) + ": those rows mostly measure duplicated pages (see "
            "*Duplicated pages* below and the filtered graphs)."]


#: Graphs most of whose nodes duplicate another node's links (a labelled twin's label is
#: the answer): their rows form a family of their own, beside the headline, not in it.
DUPLICATED = ("chameleon", "squirrel")


def split_duplicated(cells):
    """The cells of the headline rows and those of the graphs with duplicated pages."""
    cells = list(cells)
    return ([cell for cell in cells if cell["graph"] not in DUPLICATED],
            [cell for cell in cells if cell["graph"] in DUPLICATED])


def _duplicated_section(cells):
    if not cells:
        return []
    rows = paired_rows(cells)
    return [
        "## Chameleon and Squirrel with their duplicated pages", "",
        "About 80 % of their nodes share their out-links with another node, and copying a "
        "labelled twin's label is right 98 % of the time: these rows mostly measure "
        "memorisation of duplicated pages, so they form their own family (same rule, Holm "
        "over these rows) and stay out of the headline's counts. Their filtered versions "
        "(chameleon-filtered, squirrel-filtered) are in the headline.", "",
        *_paired_table(rows), *_twin_warning(cells, rows), ""]


def _headline_sections(cells):
    cells, duplicated = split_duplicated(cells)
    from ._comparison_robust import format_robustness

    matched = paired_rows(cells)
    refit = paired_rows(cells, metric="accuracy_refit", default=DEFAULT)
    return [
        "## The default against the best peer: the matched protocol", "", RULE, "",
        "On the datasets' own splits (fixed, Planetoid) the default is *(validated)*: it "
        "fits the nodes the networks fit and chooses on the validation nodes, as they do. "
        "On the random draws it is the default fitted on the drawn nodes, which every "
        "method gets alike.", "", *_paired_table(matched), "", *format_robustness(cells),
        "![The default and its peers, row by row](comparison.png)", "",
        *_duplicated_section(duplicated),
        "## The default on all labelled nodes, against the peers refit on them", "",
        "`AsK-LS default` fits every labelled node (fixed splits: training and validation "
        "nodes); beside it each peer's chosen configuration trained again on every "
        "labelled node for its best epoch count. Same rule, Holm over these rows (the "
        "graphs with duplicated pages aside, as in the headline).", "",
        *_paired_table(refit), ""]



def _mean(cells, key):
    values = [cell[key] for cell in cells if cell.get(key) is not None]
    return float(np.mean(values)) if values else None


def _twin_sections(cells, twin_cells):
    """The twin baseline beside the default and the best peer; the accuracy of the methods
    on the test nodes with a twin and without (from ``twin_cells``, a separate rerun)."""
    groups = _groups(cells)
    matched = {(row["protocol"], row["graph"]): row for row in paired_rows(cells)}
    lines = ["## Duplicated pages: the twin baseline", "",
             "On the fixed splits, the share of test nodes with a *twin* among the labelled "
             "nodes (a node with the same non-empty out-links or in-links) and the "
             "accuracy of copying the twin's label (else the majority class), beside the "
             "matched default and the best peer. Chameleon and Squirrel are mostly "
             "duplicated pages (Platonov et al., ICLR 2023); their filtered versions drop "
             "the duplicates.", "",
             "| graph | twin baseline | test nodes with a twin | default (validated) "
             "| best peer |", "|---" * 5 + "|"]
    for graph in COMPARISON_PROTOCOLS["fixed"]:
        twins = list(groups.get(("fixed", graph, "twin baseline"), {}).values())
        if len(twins) < _FULL:
            continue
        shares = [cell["n_test_twin"] / cell["n_test"] for cell in twins
                  if "n_test_twin" in cell]
        share = f"{np.mean(shares):.0%}" if len(shares) == len(twins) else "—"
        row = matched.get(("fixed", graph))
        pair = (f"{row['default']:.3f} | {row['peer']} {row['peer_accuracy']:.3f}" if row
                else " | ")
        lines.append(f"| {graph} | {_mean(twins, 'accuracy'):.3f} | {share} | {pair} |")
    return lines + [""] + _breakdown_table(groups, _groups(twin_cells))


def _breakdown_table(groups, rerun):
    """Every rerun method's accuracy on the test nodes with and without a twin; a method
    rerun on fewer splits is marked, its headline read on the same splits."""
    methods = [m for m in COMPARISON_METHODS if any(key[2] == m for key in rerun)]
    if not methods:
        return []
    lines = ["### Accuracy on the test nodes with a twin and without", "",
             "Unfiltered Chameleon and Squirrel, fixed splits. The main cells predate this "
             "breakdown, so these methods were run again on the same splits and seeds for "
             "it, one CPU thread: " + ", ".join(methods) + ". *Headline* is the accuracy "
             "of the main cells (the tables above) on the same splits; *rerun* is the "
             "accuracy of this second run, whose test nodes the last two columns divide "
             "into those with a twin and those without; the twin baseline's figures are "
             "its own cells. The headline accuracies of the page are those of the main "
             "cells.",
             "", "| graph | method | headline | rerun | with a twin | without |",
             "|---" * 6 + "|"]
    for graph in ("chameleon", "squirrel"):
        for method in ["twin baseline"] + methods:
            source = groups if method == "twin baseline" else rerun
            parts = source.get(("fixed", graph, method), {})
            main = groups.get(("fixed", graph, method), {})
            if not parts:
                continue
            name = method if len(parts) >= _FULL else \
                f"{method} ({len(parts)} of {_FULL} splits †)"
            same = [main[s] for s in parts if s in main]
            headline = f"{_mean(same, 'accuracy'):.3f}" if len(same) == len(parts) else "—"
            cells = list(parts.values())
            values = [_mean(cells, key) for key in ("accuracy", "accuracy_twin",
                                                     "accuracy_no_twin")]
            lines.append(f"| {graph} | {name} | {headline} | " + " | ".join(
                "—" if value is None else f"{value:.3f}" for value in values) + " |")
    return lines + [""]


def _label(method):
    if method in REFERENCES:
        return f"{method} (reference)"
    return f"{method} †" if method in _variants() else method


def _method_tables(index, protocol, graphs, text, per_table=4):
    """Tables of methods (rows) by graphs (at most ``per_table`` columns) of one protocol;
    ``text(row)`` writes a cell; methods without any cell are left out."""
    lines = []
    graphs = [g for g in graphs if any(key[:2] == (protocol, g) for key in index)]
    for start in range(0, len(graphs), per_table):
        chunk = graphs[start:start + per_table]
        rows = []
        for method in COMPARISON_METHODS:
            texts = [text(index[(protocol, g, method)]) if (protocol, g, method) in index
                     else "" for g in chunk]
            if any(texts):
                rows.append(f"| {_label(method)} | " + " | ".join(texts) + " |")
        if rows:
            lines += ["| method | " + " | ".join(chunk) + " |",
                      "|---" * (len(chunk) + 1) + "|", *rows, ""]
    return lines


def _cell_text(row):
    text = f"{row['accuracy_mean']:.3f} ± {row['accuracy_std']:.3f}"
    if row["n_splits"] < _FULL:
        text += f" ({row['n_splits']} of {_FULL} splits †)"
    return text


def _seconds_text(row):
    """Seconds per split, marked "g" where measured on the GPU."""
    on_gpu = any(device.startswith("cuda") for device in row.get("devices", ()))
    return f"{row['seconds_per_split']:.1f}" + (" g" if on_gpu else "")


def _epochs_text(row):
    if "best_epoch_median" not in row:
        return ""
    return f"{row['best_epoch_median']:.0f}, {row['best_epoch_max']}"


def _detail_sections(index):
    lines = ["## Every method, protocol by protocol", "",
             "Test accuracy, mean ± std over the splits (early-stopped peers)."]
    for protocol, graphs in COMPARISON_PROTOCOLS.items():
        lines += ["", f"### {protocol}", "", *_method_tables(index, protocol, graphs,
                                                              _cell_text)]
    lines += ["## Seconds per split", "",
              "AsK-LS on one CPU core (one BLAS thread, its selection included); peers their "
              "whole grid search and refit; g: on a GPU (an H200 or H100 shared by 16 "
              "processes at once), else one CPU thread."]
    for protocol, graphs in COMPARISON_PROTOCOLS.items():
        lines += ["", f"### {protocol}", "", *_method_tables(index, protocol, graphs,
                                                              _seconds_text)]
    lines += ["## Best validation epochs of the peers (median, max)", ""]
    for protocol, graphs in COMPARISON_PROTOCOLS.items():
        tables = _method_tables(index, protocol, graphs, _epochs_text)
        if tables:
            lines += [f"### {protocol}", "", *tables]
    return lines


def _published_section(index):
    lines = ["## Published figures beside ours (other code and machines)", "",
             "| protocol | graph | method | published | source | here |", "|---" * 6 + "|"]
    for protocol, graph, method, value, source in PUBLISHED:
        if not any(key[:2] == (protocol, graph) for key in index):
            continue
        here = index.get((protocol, graph, method))
        lines.append(f"| {protocol} | {graph} | {method} | {value:.3f} | {source} "
                     f"| {_cell_text(here) if here else 'not run here'} |")
    used = {entry[4] for entry in PUBLISHED if any(key[:2] == entry[:2] for key in index)}
    notes = [f"{short[-1]} {full}." for short, full in SOURCES.items() if short in used]
    return lines + ([""] + [" ".join(notes)] if notes else []) + [""]


def _grid_section(methods):
    from ._comparison_peers import PEER_GRIDS, _product

    lines = ["## Grids searched", ""]
    for method, entry in PEER_GRIDS.items():
        if method not in methods:
            continue
        axes = defaultdict(set)
        for point in entry["grid"]:
            for key, value in point.items():
                axes[key].add(value)
        grid = "; ".join(f"{key} {sorted(values)}" for key, values in axes.items())
        combinations = int(np.prod([len(values) for values in axes.values()]))
        if combinations > len(entry["grid"]) and entry["grid"]:
            every = _product(**{key: sorted(values) for key, values in axes.items()})
            left = [point for point in every if point not in entry["grid"]]
            grid += (f"; {len(entry['grid'])} of the {combinations} combinations, "
                     f"without {'; '.join(_short(point) for point in left)}")
        own = [f"{graph} ({_short(points[0])}{'; ...' if len(points) > 1 else ''})"
               if method in _variants() else graph
               for graph, points in entry.get("graphs", {}).items()]
        own += [f"{graph} ({protocol} splits: {'; '.join(_short(p) for p in points)})"
                for (graph, protocol), points in entry.get("splits", {}).items()]
        extra = f"; own settings on {', '.join(own)}" if own else ""
        lines.append(f"* {_label(method)}: {_short(entry['fixed']) or 'nothing fixed'}; "
                     f"searched: {grid or 'nothing'} ({len(entry['grid'])} "
                     f"configurations){extra}.")
    return lines


def _split_counts(index, rows):
    """Per protocol of ``rows``, the splits each method has run, "k" or "k-m" over the
    graphs of the protocol (0 where a graph has none yet), in table order."""
    parts = []
    for protocol, graphs in rows.items():
        counts = []
        for method in COMPARISON_METHODS:
            splits = [index[(protocol, g, method)]["n_splits"]
                      if (protocol, g, method) in index else 0 for g in graphs]
            if any(splits):
                low, high = min(splits), max(splits)
                counts.append(f"{method} {low}" + (f"-{high}" if high > low else ""))
        if counts:
            parts.append(f"{protocol}: {', '.join(counts)}")
    return parts


def _provenance_text(cells):
    commits = sorted({str(cell.get("commit"))[:7] for cell in cells})
    dirty = sum(bool(cell.get("dirty")) for cell in cells)
    return (f"Commit(s) the cells ran on: {', '.join(commits)}"
            + (f" ({dirty} cell(s) from a checkout with uncommitted changes)." if dirty
               else "; none from uncommitted code."))


def format_structure(cells, seed=SEALED_SEED):
    """Markdown lines of the structure-only rows (:data:`STRUCTURE_PROTOCOLS`): what the
    networks read, the splits run per method, every method's accuracy, and the verdicts of
    :data:`RULE` for the rows it can judge; the default's cells may be missing ("pending").

    Examples
    --------
    >>> cells = [{"protocol": "60/40", "graph": "polblogs", "method": "GCN", "split": s,
    ...           "seed": 1, "accuracy": 0.9, "seconds": 1.0, "commit": "abc1234"}
    ...          for s in range(5)]
    >>> text = "\\n".join(format_structure(cells, seed=1))
    >>> "| GCN | 0.900 ± 0.000 (5 of 10 splits †) |" in text, "pending" in text
    (True, True)
    >>> "60/40: GCN 0-5" in text       # two of the three graphs have no cell
    True
    """
    from ._comparison_peers import FEATURELESS_INPUT
    from ._comparison_robust import format_robustness

    index = {(r["protocol"], r["graph"], r["method"]): r for r in summarize(cells)}
    lines = [
        "## Graphs without node attributes", "",
        "Most graphs users bring have no node attributes. These rows give no method any: "
        "polblogs has none, and *cora-structure* and *citeseer-structure* are Cora and "
        "CiteSeer with their attributes dropped (same links, labels and draws). AsK-LS's "
        "default and label propagation read the links alone; every network reads "
        f"{FEATURELESS_INPUT}, one rule for all of them. Same draws (base seed {seed}), "
        "same grids, the same training rule and the same verdict rule as the attributed "
        "rows of the comparison; their cells are kept apart "
        "(`comparison-structure-cells.jsonl`), and so is Holm's family.", "",
        "Splits run so far, per method (each method runs the first splits of every row, "
        "split by split; a full row has 10, fewer are marked †): "
        + "; ".join(_split_counts(index, STRUCTURE_PROTOCOLS)) + ". "
        + _provenance_text(cells) if cells else "No cell measured yet."]
    for protocol, graphs in STRUCTURE_PROTOCOLS.items():
        table = _method_tables(index, protocol, graphs, _cell_text)
        if not table:
            continue
        pending = [g for g in graphs if any(key[:2] == (protocol, g) for key in index)
                   and (protocol, g, headline_default(protocol)) not in index]
        if pending:
            table.insert(2, f"| {headline_default(protocol)} | "
                         + " | ".join("pending" if g in pending else "" for g in
                                      [g for g in graphs if any(key[:2] == (protocol, g)
                                                                for key in index)]) + " |")
        lines += ["", f"### {protocol}", "", *table]
    lines += [""] if lines[-1] else []
    paired = paired_rows(cells, rows=STRUCTURE_PROTOCOLS)
    lines += ["### Verdicts", "",
              "A row is paired once the default and a peer have all 10 splits, and judged "
              f"once at least {MIN_PEERS} peers have them (the comparison's verdict rule); "
              "*pending*: the default's cells of the row are not measured yet.", ""]
    if paired:
        robust = format_robustness(cells, rows=STRUCTURE_PROTOCOLS)
        lines += [*_paired_table(paired), *([""] + robust if robust else [])]
    else:
        lines.append("No row paired yet.")
    return lines + [""]


def format_comparison(cells, seed=SEALED_SEED, twin_cells=(), structure_cells=()):
    """Markdown: the matched paired table, the refit one, the twin baseline and the
    breakdown by twins (``twin_cells``: the cells of the rerun that recorded it), every
    method's accuracy, seconds, epochs, published figures, grids.

    Examples
    --------
    >>> cells = [{"protocol": "fixed", "graph": "texas", "method": m, "split": s, "seed": 1,
    ...           "accuracy": a + 0.01 * s + 0.02 * (s % 2) * (m == "GCN"), "seconds": 1.0,
    ...           "n_labelled": 146, "n_test": 37}
    ...          for m, a in (("AsK-LS default (validated)", 0.8), ("GCN", 0.6))
    ...          for s in range(10)]
    >>> text = format_comparison(cells, seed=1)
    >>> "| AsK-LS default (validated) | 0.845 ± 0.029 |" in text
    True
    >>> row, = paired_rows(cells)            # one peer: shown, not judged
    >>> row["peer"], round(row["difference"], 3), row["test"], row["verdict"]
    ('GCN', 0.19, 'Nadeau-Bengio', 'not judged')
    >>> paired_rows(cells, min_peers=1)[0]["verdict"]
    'ahead'
    """
    rows = summarize(cells)
    index = {(r["protocol"], r["graph"], r["method"]): r for r in rows}
    methods = {r["method"] for r in rows}
    lines = [_NOTE.format(seed=seed, sealed=" (the sealed seed of the published tables)"
                          if seed == SEALED_SEED else " (not the sealed seed)"), ""]
    lines += _headline_sections(cells)
    lines += _twin_sections(cells, list(twin_cells))
    lines += _detail_sections(index)
    lines += _published_section(index)
    lines += _grid_section(methods)
    if structure_cells:
        lines += ["", *format_structure(list(structure_cells), seed)]
    return "\n".join(lines)
