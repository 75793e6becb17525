"""The figure of the directed-graph table: one group of bars per graph."""

__all__ = ["plot_directed"]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError('plotting needs matplotlib: pip install "digraph-askls[plot]"') \
            from error
    return plt


def plot_directed(rows, path=None):
    """Mean test accuracy of every method, one group of bars per graph.

    Rerun methods are solid bars with their standard deviation over the splits, one
    colour per method. Published figures follow in the same group as hatched white bars
    named by their method and labelled "published, not rerun". Graphs without data are
    left out.

    Parameters
    ----------
    rows : list of dict
        Output of :func:`~digraph_askls.experiments.run_directed`.
    path : str or os.PathLike, optional
        Where to save the figure (PNG); the figure is returned either way.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> rows = [{"graph": "tiny", "method": "AsK-LS default", "status": "ok",
    ...          "published": False, "accuracy_mean": 0.8, "accuracy_std": 0.05},
    ...         {"graph": "tiny", "method": "GCN", "status": "published, not rerun",
    ...          "published": True, "accuracy_mean": 0.7, "accuracy_std": None}]
    >>> figure = plot_directed(rows)
    >>> [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    ['AsK-LS default', 'published, not rerun']
    """
    plt = _pyplot()
    rerun = [row for row in rows if not row.get("published") and row.get("status") == "ok"]
    graphs = list(dict.fromkeys(row["graph"] for row in rerun))
    methods = list(dict.fromkeys(row["method"] for row in rerun))
    colours = {method: plt.get_cmap("tab10")(i % 10) for i, method in enumerate(methods)}
    published = [row for row in rows if row.get("published") and row["graph"] in graphs]
    n_bars = len(rerun) + len(published)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.32 * n_bars + 1.2 * len(graphs)), 4.5))
    x, centres, ticks, labelled = 0.0, [], [], set()
    for graph in graphs:
        start = x
        first = next(r for r in rerun if r["graph"] == graph)
        ticks.append(f"{graph}\n{first.get('protocol', '')} ({first.get('n_splits', '?')})"
                     if "protocol" in first else graph)
        for row in (r for r in rerun if r["graph"] == graph):
            label = None if row["method"] in labelled else row["method"]
            labelled.add(row["method"])
            ax.bar(x, row["accuracy_mean"], 0.9, yerr=row["accuracy_std"], capsize=2,
                   color=colours[row["method"]], label=label)
            x += 1
        for row in (r for r in published if r["graph"] == graph):
            label = None if "published" in labelled else "published, not rerun"
            labelled.add("published")
            ax.bar(x, row["accuracy_mean"], 0.9, color="white", edgecolor="0.3",
                   hatch="//", label=label)
            ax.text(x, 0.02, row["method"], rotation=90, ha="center", va="bottom",
                    fontsize=7, backgroundcolor="white")
            x += 1
        centres.append((start + x - 1) / 2)
        x += 1.5
    ax.set_xticks(centres, ticks, fontsize=8)
    ax.set(ylim=(0, 1), ylabel="test accuracy (micro-F1)",
           title="Directed graphs: AsK-LS and peers on the same splits")
    if graphs:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    else:
        ax.text(0.5, 0.5, "no results", ha="center", va="center", transform=ax.transAxes)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig

