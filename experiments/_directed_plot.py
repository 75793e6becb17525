"""The figure of the directed-graph table: one panel of bars per graph."""

__all__ = ["plot_directed", "plot_directed_summary", "plot_tradeoff"]

#: The panels of the summary figure: one graph per kind of link (Wikipedia pages, web
#: pages, citations), each read best by a different kernel family.
SUMMARY_GRAPHS = ("chameleon", "texas", "cora")


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError('plotting needs matplotlib: pip install "digraph-askls[plot]"') \
            from error
    return plt


def _panel_grid(plt, n_panels, n_columns, panel_size, margin=(0.0, 0.0)):
    """A figure of ``n_panels`` panels sharing their y axis, ``n_columns`` a row (fewer
    when there are fewer panels); the panels left over are hidden.

    A panel takes ``panel_size`` (width, height) inches and the figure ``margin`` more.
    Returns the figure and its 2-D array of axes.
    """
    n_columns = max(1, min(n_columns, n_panels))
    n_rows = max(1, -(-n_panels // n_columns))
    fig, axes = plt.subplots(n_rows, n_columns, squeeze=False, sharey=True,
                             figsize=(panel_size[0] * n_columns + margin[0],
                                      panel_size[1] * n_rows + margin[1]))
    for ax in axes.flat[n_panels:]:
        ax.set_visible(False)
    return fig, axes


def plot_directed(rows, path=None, n_columns=3, graphs=None, text_scale=1.0):
    """Mean test accuracy of every method, one panel per graph.

    Rerun methods are solid bars with their standard deviation over the splits, one
    colour per method, in the same order in every panel. Published figures follow as
    hatched white bars named by their method and labelled "published, not rerun". One
    legend serves all panels. Graphs without data are left out.

    Parameters
    ----------
    rows : list of dict
        Output of :func:`~experiments.run_directed`.
    path : str or os.PathLike, optional
        Where to save the figure (PNG); the figure is returned either way.
    n_columns : int, default=3
        Panels per row.
    graphs : sequence of str, optional
        The graphs to draw, in this order (default: every graph of ``rows``).
    text_scale : float, default=1.0
        Multiplies every font size, for a figure shown smaller than its size.

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
    >>> [text.get_text() for text in figure.legends[0].get_texts()]
    ['AsK-LS default', 'published, not rerun']
    """
    plt = _pyplot()
    rerun = [row for row in rows if not row.get("published") and row.get("status") == "ok"]
    measured = list(dict.fromkeys(row["graph"] for row in rerun))
    graphs = measured if graphs is None else [graph for graph in graphs if graph in measured]
    rerun = [row for row in rerun if row["graph"] in graphs]
    methods = list(dict.fromkeys(row["method"] for row in rerun))
    size = {name: points * text_scale for name, points in
            (("label", 7), ("legend", 8), ("title", 9), ("axis", 10), ("suptitle", 11))}
    colours = {method: plt.get_cmap("tab10")(i % 10) for i, method in enumerate(methods)}
    published = [row for row in rows if row.get("published") and row["graph"] in graphs]
    n_labels = len(methods) + bool(published)
    n_legend = min(max(n_labels, 1), 5 if text_scale <= 1 else 4)
    # The legend's height in inches: 0.36 for its first row, 0.27 for each other.
    legend = (0.36 + 0.27 * (-(-n_labels // n_legend) - 1)) * text_scale
    fig, axes = _panel_grid(plt, len(graphs), n_columns, (4.2, 3.0 + text_scale - 1),
                            margin=(0.0, legend - 0.36 - 0.27 * (n_labels > 5)))
    handles = {}
    for ax, graph in zip(axes.flat, graphs):
        first = next(r for r in rerun if r["graph"] == graph)
        title = (f"{graph}, {first['protocol']} ({first.get('n_splits', '?')})"
                 if "protocol" in first else graph)
        x = 0
        for method in methods:
            row = next((r for r in rerun if r["graph"] == graph and r["method"] == method),
                       None)
            if row is not None:
                handles[method] = ax.bar(x, row["accuracy_mean"], 0.85,
                                         yerr=row["accuracy_std"], capsize=2,
                                         color=colours[method])
            x += 1
        for row in (r for r in published if r["graph"] == graph):
            handles["published, not rerun"] = ax.bar(x, row["accuracy_mean"], 0.85,
                                                     color="white", edgecolor="0.3",
                                                     hatch="//")
            ax.text(x, 0.02, row["method"], rotation=90, ha="center", va="bottom",
                    fontsize=size["label"], backgroundcolor="white")
            x += 1
        ax.set_title(title, fontsize=size["title"])
        ax.tick_params(labelsize=size["axis"])
        ax.set_xticks([])
        ax.set_ylim(0, 1)
        ax.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.grid(axis="y", alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel("test accuracy", fontsize=size["axis"])
    if graphs:
        labels = [label for label in (*methods, "published, not rerun") if label in handles]
        fig.legend([handles[label] for label in labels], labels, loc="lower center",
                   ncol=n_legend, fontsize=size["legend"], frameon=False)
        fig.suptitle("Directed graphs: AsK-LS and peers on the same splits (micro-F1)",
                     fontsize=size["suptitle"])
        fig.tight_layout(rect=(0, legend / fig.get_figheight(), 1, 1))
    else:
        axes[0, 0].text(0.5, 0.5, "no results", ha="center", va="center",
                        transform=axes[0, 0].transAxes)
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig


def plot_directed_summary(rows, path=None):
    """The landing page's figure: three panels of :func:`plot_directed`
    (``SUMMARY_GRAPHS``, one per kind of link) with text large enough to read when the
    figure is shown at the width of a page.

    Parameters
    ----------
    rows : list of dict
        Output of :func:`~experiments.run_directed`.
    path : str or os.PathLike, optional
        Where to save the figure (PNG); the figure is returned either way.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> rows = [{"graph": graph, "method": "AsK-LS default", "status": "ok",
    ...          "published": False, "accuracy_mean": 0.8, "accuracy_std": 0.05}
    ...         for graph in ("cora", "texas", "polblogs")]
    >>> figure = plot_directed_summary(rows)
    >>> [ax.get_title() for ax in figure.axes if ax.get_visible()]
    ['texas', 'cora']
    """
    return plot_directed(rows, path, n_columns=len(SUMMARY_GRAPHS), graphs=SUMMARY_GRAPHS,
                         text_scale=1.6)


def plot_tradeoff(rows, path=None):
    """Accuracy against seconds per split (log scale), one point per method and graph.

    One panel per protocol; a colour per method, a marker per graph. Only rerun rows
    with a measured time are drawn.

    Parameters
    ----------
    rows : list of dict
        Output of :func:`~experiments.run_gnn_table` or ``run_directed``.
    path : str or os.PathLike, optional
        Where to save the figure (PNG); the figure is returned either way.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> rows = [{"graph": "tiny", "method": "GCN", "status": "ok", "protocol": "fixed splits",
    ...          "accuracy_mean": 0.8, "seconds_per_split": 3.0}]
    >>> figure = plot_tradeoff(rows)
    >>> figure.axes[0].get_xscale()
    'log'
    """
    plt = _pyplot()
    rerun = [row for row in rows if not row.get("published") and row.get("status") == "ok"]
    protocols = list(dict.fromkeys(row["protocol"] for row in rerun)) or ["no results"]
    methods = list(dict.fromkeys(row["method"] for row in rerun))
    graphs = list(dict.fromkeys(row["graph"] for row in rerun))
    colours = {method: plt.get_cmap("tab10")(i % 10) for i, method in enumerate(methods)}
    markers = dict(zip(graphs, "osD^vP*Xh<>"))
    fig, axes = plt.subplots(1, len(protocols), figsize=(5.5 * len(protocols), 4.4),
                             squeeze=False, sharey=True)
    for ax, protocol in zip(axes.flat, protocols):
        for row in (r for r in rerun if r["protocol"] == protocol):
            ax.scatter(row["seconds_per_split"], row["accuracy_mean"], s=40,
                       color=colours[row["method"]], marker=markers.get(row["graph"], "o"),
                       edgecolor="black", linewidth=0.4)
        ax.set_xscale("log")
        ax.set_xlabel("seconds per split (log scale)")
        ax.set_title(protocol, fontsize=10)
        ax.grid(alpha=0.3, which="both")
    axes[0, 0].set_ylabel("test accuracy")
    method_handles = [plt.Line2D([], [], linestyle="", marker="o", color=colours[method])
                      for method in methods]
    graph_handles = [plt.Line2D([], [], linestyle="", marker=markers[g], color="0.4")
                     for g in graphs]
    if methods:
        fig.legend(method_handles + graph_handles, methods + graphs, loc="center right",
                   fontsize=8, frameon=False)
        fig.tight_layout(rect=(0, 0, 1 - 1.6 / fig.get_figwidth(), 1))
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
