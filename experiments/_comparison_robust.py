"""The comparison's headline under other defensible analyses, and its peers by kind.

The verdicts of ``comparison.md`` follow one rule (:data:`._comparison_report.RULE`), and
two of its choices could defensibly have gone the other way: the variance of the fixed
splits and the 60/40 draws is corrected for their overlapping training sets (Nadeau and
Bengio), and the best peer of a row is the one of highest mean *test* accuracy (picked
after seeing the test nodes). :func:`analyses` redraws the verdicts under the four
combinations, Holm's correction over the rows kept, and names the rows ahead under each:
the claim the headline makes is what holds under all of them. Without Holm's correction
each row's own test decides; the rows behind then are named too, since a reader may run
that analysis.
"""

import itertools

from ._comparison_report import (CORRECTED, MIN_PEERS, _groups, _is_peer, paired_rows,
                                 split_duplicated)
from ._comparison import COMPARISON_METHODS

__all__ = ["ANALYSES", "PEER_KINDS", "analyses", "format_robustness", "peer_kinds"]

#: The analyses the headline is checked under: (name, Nadeau-Bengio correction where the
#: training sets overlap, the score the best peer is picked on). The first is the page's.
ANALYSES = tuple(
    (f"{'corrected' if corrected else 'plain'} variance, best peer on "
     f"{'test' if pick == 'accuracy' else 'validation'} means", corrected, pick)
    for corrected, pick in itertools.product((True, False), ("accuracy", "valid_accuracy")))

#: What each peer is; every peer not named here is a graph neural network.
PEER_KINDS = {"MLP": "multilayer perceptron", "label propagation": "label propagation",
              "C&S": "C&S"}


def _rows(cells, corrected, pick, holm_correction=True, rows=None):
    return [row for row in paired_rows(cells, pick=pick,
                                       corrected=CORRECTED if corrected else (),
                                       holm_correction=holm_correction, rows=rows)
            if row["verdict"] != "not judged"]


def analyses(cells, rows=None):
    """The headline's verdicts under every analysis of :data:`ANALYSES` (Holm's correction
    over the judged rows), then row by row without it. ``rows``: the table's graphs of
    each protocol, Holm's family (:func:`~._comparison_report.paired_rows`; default the
    attributed comparison's).

    Returns
    -------
    list of dict
        One per analysis: ``name``, ``holm`` (whether Holm's correction ran), ``ahead``,
        ``level``, ``behind`` (counts) and ``rows_ahead``, ``rows_behind`` (``"graph
        protocol"`` with the peer for the rows behind).

    Examples
    --------
    >>> import numpy as np
    >>> peers = ["GCN", "GAT", "APPNP", "SGC", "MLP", "C&S", "label propagation", "GCNII"]
    >>> cells = [{"protocol": "20 per class", "graph": "cora", "method": method,
    ...           "split": s, "accuracy": accuracy + 0.001 * (s % 3),
    ...           "valid_accuracy": 0.5, "n_labelled": 140, "n_test": 2568}
    ...          for method, accuracy in [("AsK-LS default", 0.8)]
    ...          + [(peer, 0.7) for peer in peers] for s in range(10)]
    >>> [(found["ahead"], found["behind"]) for found in analyses(cells)][:2]
    [(1, 0), (1, 0)]
    """
    found = []
    for (name, corrected, pick), holm_correction in itertools.product(ANALYSES, (True, False)):
        judged = _rows(cells, corrected, pick, holm_correction, rows)
        found.append({
            "name": name, "holm": holm_correction,
            **{verdict: sum(row["verdict"] == verdict for row in judged)
               for verdict in ("ahead", "level", "behind")},
            "rows_ahead": [f"{row['graph']} {row['protocol']}" for row in judged
                           if row["verdict"] == "ahead"],
            "rows_behind": [f"{row['graph']} {row['protocol']} ({row['peer']}, "
                            f"{row['difference']:+.3f}, p {row['p']:.2g})"
                            for row in judged if row["verdict"] == "behind"]})
    return found


def peer_kinds(cells):
    """The complete peers (every split) of the rows judged (those with at least
    :data:`._comparison_report.MIN_PEERS`), by kind: for each kind of :data:`PEER_KINDS`
    (and "graph neural network") the fewest and most per row, and under ``"peers"`` the
    fewest and most peers in all.

    >>> peers = ("GCN", "GAT", "APPNP", "SGC", "GCNII", "MLP", "C&S", "label propagation")
    >>> cells = [{"protocol": "60/40", "graph": "cora", "method": m, "split": s}
    ...          for m in peers for s in range(10)]
    >>> peer_kinds(cells)["graph neural network"], peer_kinds(cells)["peers"]
    ((5, 5), (8, 8))
    """
    groups = _groups(cells)
    rows = {(protocol, graph) for protocol, graph, _ in groups}
    counts = []
    for protocol, graph in rows:
        peers = [method for method in COMPARISON_METHODS if _is_peer(method)
                 and len(groups.get((protocol, graph, method), {})) >= 10]
        if len(peers) >= MIN_PEERS:
            counts.append(peers)
    kinds = {}
    for kind in ("graph neural network", *PEER_KINDS.values()):
        per_row = [sum(PEER_KINDS.get(method, "graph neural network") == kind
                       for method in peers) for peers in counts]
        kinds[kind] = (min(per_row), max(per_row)) if per_row else (0, 0)
    totals = [len(peers) for peers in counts]
    kinds["peers"] = (min(totals), max(totals)) if totals else (0, 0)
    return kinds


def _span(low, high):
    return str(low) if low == high else f"{low} to {high}"


def _peers_text(kinds):
    """The peers of the judged rows in words, by kind (:func:`peer_kinds`).

    >>> _peers_text({"peers": (8, 8), "graph neural network": (6, 6),
    ...              "multilayer perceptron": (0, 0), "label propagation": (1, 1),
    ...              "C&S": (1, 1)})
    'the best of 8 tuned peers per row (6 graph neural networks, label propagation and C&S, a linear model whose errors are propagated)'
    """
    names = {"multilayer perceptron": "a multilayer perceptron",
             "graph neural network": f"{_span(*kinds['graph neural network'])} graph neural "
                                     "networks",
             "label propagation": "label propagation",
             "C&S": "C&S, a linear model whose errors are propagated"}
    parts = [text + ("" if kinds[kind][0] else " (on some rows)")
             for kind, text in names.items() if kinds[kind][1]]
    listed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    return f"the best of {_span(*kinds['peers'])} tuned peers per row ({listed})"


def format_robustness(cells, rows=None):
    """The headline's claim and the table of analyses under it (markdown lines), drawn
    from the cells of the headline's rows (the graphs with duplicated pages aside); no
    lines when no row is judged. ``rows``: the table's graphs of each protocol (default
    the attributed comparison's, whose closing paragraph names how to rerun its cells)."""
    cells, _ = split_duplicated(cells)
    found = analyses(cells, rows)
    kinds = peer_kinds(cells)
    with_holm = [entry for entry in found if entry["holm"]]
    without = [entry for entry in found if not entry["holm"]]
    published = with_holm[0]
    judged = published["ahead"] + published["level"] + published["behind"]
    if not judged:
        return []
    never_behind = all(entry["behind"] == 0 for entry in with_holm)
    ahead = [entry["ahead"] for entry in with_holm]
    peers = _peers_text(kinds)
    claim = (f"Never behind {peers}, on the {judged} judged rows under each of the four "
             "analyses below" if never_behind else
             f"Behind on at least one row under some analysis below, against {peers}")
    lines = [
        "### What holds under every analysis", "",
        f"{claim} (Holm's correction over the rows in each). How many rows are *ahead* depends on "
        f"the analysis: {_span(min(ahead), max(ahead))}. Under the page's (the first), "
        f"{published['ahead']}: {', '.join(published['rows_ahead']) or 'none'}.", "",
        "| analysis (Holm over the rows) | ahead | level | behind | rows ahead |",
        "|---|---|---|---|---|"]
    for entry in with_holm:
        lines.append(f"| {entry['name']} | {entry['ahead']} | {entry['level']} | "
                     f"{entry['behind']} | {', '.join(entry['rows_ahead'])} |")
    behind = sorted({row for entry in without for row in entry["rows_behind"]})
    lines += ["", f"Without Holm's correction (each row's own p-value below 0.05, {judged} "
              "tests at once), the rows ahead are "
              f"{_span(min(e['ahead'] for e in without), max(e['ahead'] for e in without))} "
              "and "
              + (f"{'one row is' if len(behind) == 1 else 'some rows are'} behind under "
                 f"{'every' if all(e['rows_behind'] for e in without) else 'some'} "
                 f"such analysis: {'; '.join(behind)}."
                 if behind else "none is behind."),
              ""]
    if rows is None:
        lines += ["The default's cells of several rows were measured more than once, each "
                  "time after a change of the library; how often, row by row, is in "
                  "`history.md` (*How often each sealed row was measured*), and `python -m "
                  "experiments verify comparison` reruns them on the current code and lists "
                  "those that differ.", ""]
    return lines
