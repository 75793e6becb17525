"""The comparison's figure: every method's mean accuracy and its interval, row by row."""

import numpy as np

from ._comparison import COMPARISON_METHODS, COMPARISON_PROTOCOLS, REFERENCES
from ._comparison_report import _groups, _is_peer, headline_default, paired_rows

__all__ = ["plot_comparison"]


def _interval(values):
    """Mean and half-width of the 95 % t-interval of the mean over the splits."""
    from scipy import stats

    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return float(values.mean()), 0.0
    half = stats.t.ppf(0.975, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size)
    return float(values.mean()), float(half)


def _style(method, headline, best):
    """Colour, marker and whether the marker is filled, by the method's part in the row."""
    if method == headline:
        return "tab:red", "o", True
    if method.startswith("AsK-LS"):
        return "tab:orange", "o", False
    if method in REFERENCES:
        return "0.4", "D", True
    if method == best:
        return "tab:blue", "s", True
    return ("tab:blue", "s", False) if _is_peer(method) else ("tab:purple", "^", False)


def _panel(ax, groups, protocol, graph, methods, best):
    headline = headline_default(protocol)
    for position, method in enumerate(methods):
        by_split = groups.get((protocol, graph, method), {})
        if not by_split:
            continue
        mean, half = _interval([cell["accuracy"] for cell in by_split.values()])
        colour, marker, filled = _style(method, headline, best)
        ax.errorbar(mean, position, xerr=half, fmt=marker, color=colour, ms=4.5, capsize=2,
                    mfc=colour if filled else "white", lw=1)
        if len(by_split) < 10:
            ax.annotate(f"{len(by_split)}/10", (mean + half, position), fontsize=8,
                        xytext=(3, -2), textcoords="offset points")
    sealed = "sealed" if protocol not in ("fixed", "planetoid") else "own splits"
    ax.set_title(f"{graph}\n{protocol} ({sealed})", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    ax.tick_params(labelsize=9)


def _legend(plt):
    from matplotlib.lines import Line2D

    parts = [("matched default", "tab:red", "o", True),
             ("other AsK-LS forms", "tab:orange", "o", False),
             ("best peer", "tab:blue", "s", True), ("other peers", "tab:blue", "s", False),
             ("variants †", "tab:purple", "^", False), ("twin baseline", "0.4", "D", True)]
    return [Line2D([], [], color=colour, marker=marker, ls="", ms=5,
                   mfc=colour if filled else "white", label=label)
            for label, colour, marker, filled in parts]


def plot_comparison(cells, path=None, n_columns=3):
    """One panel per (protocol, graph) row: each method's mean test accuracy with its
    95 % t-interval over the splits; the matched default in red, the other AsK-LS forms
    hollow orange, the best peer solid blue, the other peers hollow blue, the variants
    purple triangles, the twin baseline a grey diamond; "n/10" marks fewer splits.

    Parameters
    ----------
    cells : list of dict
        The comparison's cells.
    path : str or os.PathLike, optional
        Where to save the figure (PNG); the figure is returned either way.
    n_columns : int, default=3
        Panels per row (three keep the text legible at the width of a page).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> cells = [{"protocol": "20 per class", "graph": "cora", "method": m, "split": s,
    ...           "accuracy": a + 0.01 * s, "seconds": 1.0}
    ...          for m, a in (("AsK-LS default", 0.8), ("GCN", 0.7)) for s in range(10)]
    >>> figure = plot_comparison(cells)
    >>> [ax.get_title() for ax in figure.axes if ax.get_visible()]
    ['cora\\n20 per class (sealed)']
    """
    from ._directed_plot import _panel_grid, _pyplot

    plt = _pyplot()
    groups = _groups(cells)
    rows = [(protocol, graph) for protocol, graphs in COMPARISON_PROTOCOLS.items()
            for graph in graphs if (protocol, graph, headline_default(protocol)) in groups]
    methods = [m for m in COMPARISON_METHODS if any(key[2] == m for key in groups)]
    best = {(row["protocol"], row["graph"]): row["peer"] for row in paired_rows(cells)}
    fig, axes = _panel_grid(plt, len(rows), n_columns, (2.6, 0.2 * len(methods) + 0.2),
                            margin=(2.0, 1.2))
    for ax, (protocol, graph) in zip(axes.flat, rows):
        _panel(ax, groups, protocol, graph, methods, best.get((protocol, graph)))
    axes[0, 0].set_yticks(range(len(methods)), methods)
    axes[0, 0].invert_yaxis()
    bottom = 1.0 / fig.get_figheight()         # inches for the axis label and the legend
    fig.tight_layout(rect=(0, bottom, 1, 1))
    fig.supxlabel("test accuracy (mean and 95 % interval over the splits)", fontsize=10,
                  y=0.65 * bottom)
    fig.legend(handles=_legend(plt), loc="lower center", ncol=3, fontsize=9, frameon=False,
               bbox_to_anchor=(0.5, 0.0))
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig
