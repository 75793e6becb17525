"""The directed-graph results table: protocol, published figures, markdown, figure, CLI."""

import json

import numpy as np
import pytest

import experiments._directed as directed
import experiments._runner as runner
from digraph_askls.peers import PeerClassifier
from experiments import (DIRECTED_METHODS, PUBLISHED_DIRECTED, format_directed, plot_directed,
                         run_directed)
from digraph_askls.model_selection import evaluate_node_classifier
from digraph_askls.graph import Graph, get_adjacency
from digraph_askls.kernels import AttributeKernel
from digraph_askls.models import NodeClassifier

PEERS = {"PageRank undirected", "PageRank directed", "diffusion undirected"}


def _two_triangles():
    adjacency, _ = get_adjacency([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
    labels = np.array([0, 0, 0, 1, 1, 1])
    features = np.array([[1.0, 0.0]] * 3 + [[0.0, 1.0]] * 3)
    splits = [((0, 0), np.array([0, 1, 3, 4]), np.array([2, 5]))]
    return adjacency, labels, features, splits


class _Spy:
    """Records the keywords that ``fit`` received; predicts class 0."""

    def __init__(self, calls, with_features):
        self.calls = calls
        if with_features:
            self.fit = self._fit_with_features

    def _fit_with_features(self, graph, labels, *, features=None):
        self.calls.append(("features", features))
        return self

    def fit(self, graph, labels):
        self.calls.append(("structure only", None))
        return self

    def predict(self, nodes):
        return np.zeros(len(nodes), dtype=int)


def test_features_reach_classifiers_that_take_them_and_not_the_peers():
    adjacency, labels, features, splits = _two_triangles()
    calls = []
    for with_features in (True, False):
        evaluate_node_classifier(lambda seed: _Spy(calls, with_features), adjacency, labels,
                                 splits=splits, features=features, verbose=False)
    assert calls[0][0] == "features" and calls[0][1] is features
    assert calls[1] == ("structure only", None)
    # The real thing: the attribute kernel needs them, the peer runs without them.
    attributes = evaluate_node_classifier(
        lambda seed: NodeClassifier(kernel=AttributeKernel(), merge="average"), adjacency,
        labels, splits=splits, features=features, verbose=False)
    assert attributes.micro_f1 == [1.0]
    pytest.importorskip("sknetwork")
    peer = evaluate_node_classifier(lambda seed: PeerClassifier(), adjacency, labels,
                                    splits=splits, features=features, verbose=False)
    assert len(peer.micro_f1) == 1


def _tiny_graph(features=True, name="tiny"):
    """Two classes of 20 nodes linked mostly across classes (links are not votes)."""
    rng = np.random.default_rng(0)
    labels = np.arange(40) % 2
    edges = [(i, j) for i in range(40) for j in range(40)
             if i != j and rng.random() < (0.2 if labels[i] != labels[j] else 0.03)]
    adjacency, nodes = get_adjacency(edges, nodelist=list(range(40)))
    attributes = np.c_[labels + rng.normal(0, 0.5, 40), rng.normal(size=40)]
    return Graph(adjacency, labels, nodes, ["a", "b"], name=name,
                 features=attributes if features else None)


@pytest.fixture(scope="module")
def tiny_rows():
    pytest.importorskip("sknetwork")
    return run_directed([_tiny_graph(), _tiny_graph(features=False, name="bare")],
                        n_trials=2, random_state=3, verbose=False)


def test_protocol_on_a_tiny_graph_in_memory(tiny_rows):
    tiny = {row["method"]: row for row in tiny_rows if row["graph"] == "tiny"}
    assert set(tiny) == set(DIRECTED_METHODS)
    for row in tiny.values():
        assert row["status"] == "ok" and not row["published"]
        assert row["protocol"] == "random 60/40" and row["n_splits"] == 2
        assert row["seeds"] == [[3, 0], [3, 1]] and len(row["accuracy"]) == 2
        assert 0 <= row["accuracy_mean"] <= 1 and row["seconds_per_split"] > 0
    default = tiny["AsK-LS default"]
    assert default["features"] and sum(default["selected_families"].values()) == 2
    assert len(default["selected_gammas"]) == 2
    assert tiny["AsK-LS attribute"]["selected_families"] == {"AttributeKernel()": 2}
    assert tiny["PageRank directed"]["selected_families"] is None
    assert not tiny["PageRank undirected"]["features"]
    assert default["accuracy_mean"] >= max(tiny[peer]["accuracy_mean"] for peer in PEERS)
    # Without attributes there is no attribute kernel to run.
    bare = {row["method"] for row in tiny_rows if row["graph"] == "bare"}
    assert bare == set(DIRECTED_METHODS) - {"AsK-LS attribute"}
    json.dumps(tiny_rows)


def test_every_method_sees_the_same_splits(monkeypatch):
    pytest.importorskip("sknetwork")
    seen = {}

    def spy(make, adjacency, labels, *, splits, name, **kwargs):
        # The table measures one split at a time, so that each is saved as it is measured.
        seen.setdefault(name, []).extend(
            (seed, train.tolist(), test.tolist()) for seed, train, test in splits)
        return evaluate_node_classifier(make, adjacency, labels, splits=splits, name=name,
                                        **kwargs)

    monkeypatch.setattr(runner, "evaluate_node_classifier", spy)
    run_directed([_tiny_graph()], n_trials=3, verbose=False)
    assert len(seen) == len(DIRECTED_METHODS)
    first = next(iter(seen.values()))
    assert len(first) == 3 and all(splits == first for splits in seen.values())


def test_texas_on_its_fixed_splits(shared_datasets):
    pytest.importorskip("sknetwork")
    rows = run_directed(["texas"], n_trials=2, data_home=shared_datasets, verbose=False)
    rerun = {row["method"]: row for row in rows if not row["published"]}
    assert set(rerun) == set(DIRECTED_METHODS)
    assert all(row["protocol"] == "fixed splits" and row["seeds"] == [["fixed", 0], ["fixed", 1]]
               for row in rerun.values())
    default = rerun["AsK-LS default"]
    assert default["features"] and sum(default["selected_families"].values()) == 2
    assert default["accuracy_mean"] > 0.7       # 5 classes; about 0.8 on the 10 splits
    assert default["accuracy_mean"] > max(rerun[peer]["accuracy_mean"] for peer in PEERS)
    published = [row for row in rows if row["published"]]
    assert [row["method"] for row in published] == ["MagNet"]


def test_published_rows_are_marked_cited_and_kept_apart(tiny_rows, tmp_path):
    for graph, entries in PUBLISHED_DIRECTED.items():
        for method, entry in entries.items():
            assert 0 < entry["accuracy"] < 1 and method not in DIRECTED_METHODS
            assert any(str(year) in entry["source"] for year in range(2016, 2026))
    rows = run_directed(["chameleon"], data_home=tmp_path, verbose=False) + tiny_rows
    published = [row for row in rows if row["published"]]
    assert {row["method"] for row in published} == {"Dir-GNN", "FaberNet", "GCN"}
    assert all(row["status"] == "published, not rerun" and row["source"]
               and row["n_splits"] is None for row in published)
    assert all(row["status"] != "published, not rerun" for row in rows if not row["published"])
    markdown = format_directed(rows)
    rerun_table, published_table = markdown.split("**Published, not rerun**")
    assert "Dir-GNN" not in rerun_table and "Rossi et al." in published_table
    assert published_table.count("(published, not rerun)") == 3
    assert not any(method in published_table for method in DIRECTED_METHODS)


def test_missing_data_gives_a_row_not_a_crash(tmp_path):
    rows = run_directed(["texas", "polblogs"], data_home=tmp_path, verbose=False)
    missing = [row for row in rows if not row["published"]]
    assert [row["graph"] for row in missing] == ["texas", "polblogs"]
    assert all(row["status"].startswith("data not available") for row in missing)
    assert "| texas | | | data not available |" in format_directed(rows)
    with pytest.raises(ValueError, match="unknown methods"):
        run_directed(["texas"], methods=["GCNII"], data_home=tmp_path)


def test_markdown_and_figure_are_written(tiny_rows, tmp_path):
    markdown = format_directed(tiny_rows)
    assert "| tiny | random 60/40 (2) | AsK-LS default |" in markdown
    (tmp_path / "directed.md").write_text(markdown)
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    rows = tiny_rows + directed.published_rows("tiny") + [
        {"graph": "tiny", "method": "GCN", "status": "published, not rerun", "published": True,
         "accuracy_mean": 0.6, "accuracy_std": None}]
    figure = plot_directed(rows, tmp_path / "directed.png")
    assert (tmp_path / "directed.png").stat().st_size > 1000
    legend = [text.get_text() for text in figure.legends[0].get_texts()]
    assert legend[-1] == "published, not rerun" and legend.count("published, not rerun") == 1
    assert set(legend[:-1]) == set(DIRECTED_METHODS)


def test_the_summary_figure_keeps_three_graphs_with_larger_text(tiny_rows):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from experiments import plot_directed_summary

    rows = [dict(row, graph=graph) for graph in ("chameleon", "polblogs", "cora", "texas")
            for row in tiny_rows]
    full, summary = plot_directed(rows), plot_directed_summary(rows)
    titles = [ax.get_title() for ax in summary.axes if ax.get_visible()]
    assert [title.split(",")[0] for title in titles] == ["chameleon", "texas", "cora"]
    size = [figure.axes[0].title.get_fontsize() for figure in (full, summary)]
    assert size[1] >= 1.5 * size[0]
    # The same bars: the panels draw the figures of the rows, not others.
    heights = [sorted(bar.get_height() for bar in figure.axes[0].patches)
               for figure in (full, summary)]
    assert heights[0] == heights[1]


def test_command_line_writes_the_table_the_json_and_the_figure(shared_datasets, tmp_path,
                                                               capsys):
    pytest.importorskip("sknetwork")
    pytest.importorskip("matplotlib")
    from experiments import _cli as harness

    out = tmp_path / "results"
    assert harness.main(["table", "directed", "--datasets", "texas", "--trials", "1",
                     "--data-home", str(shared_datasets), "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "| texas | fixed splits (1) | AsK-LS default |" in printed
    rows = json.loads((out / "directed.json").read_text())
    assert {row["method"] for row in rows if not row["published"]} == set(DIRECTED_METHODS)
    assert "MagNet (published, not rerun)" in (out / "directed.md").read_text()
    assert (out / "directed.png").stat().st_size > 1000
    assert (out / "directed-summary.png").stat().st_size > 1000


def test_a_draw_a_method_cannot_learn_from_gives_a_row_not_a_crash(tmp_path):
    # 1 % of a 40-node graph is one labelled node: nothing to learn two classes from.
    from experiments import run_few_labels

    graph = _tiny_graph(features=False, name="small")
    cache = tmp_path / "cells.jsonl"
    options = dict(n_trials=2, methods=["AsK-LS default", "PageRank undirected"],
                   verbose=False, cache=cache)
    rows = run_few_labels([graph], [("fraction", 0.01)], **options)
    assert [row["method"] for row in rows] == ["AsK-LS default", "PageRank undirected"]
    assert all(row["status"].startswith("not run: split [0, 0]: at least 2 classes")
               for row in rows)
    # The table redrawn from its cells alone says the same.
    again = run_few_labels([graph], [("fraction", 0.01)], cached_only=True, **options)
    assert [row["status"] for row in again] == [row["status"] for row in rows]


def test_the_askls_rows_fit_the_training_nodes_alone_on_fixed_splits(monkeypatch):
    from digraph_askls.graph import Split

    seen = {}

    def spy(make, adjacency, labels, *, splits, name, valid=None, **kwargs):
        seen[name.split(": ", 1)[1]] = valid
        return evaluate_node_classifier(make, adjacency, labels, splits=splits, name=name,
                                        valid=valid, **kwargs)

    monkeypatch.setattr(runner, "evaluate_node_classifier", spy)
    tiny = _tiny_graph()
    graph = Graph(tiny.adjacency, tiny.labels, tiny.node_names, tiny.class_names, name="tiny",
                  features=tiny.features,
                  splits=[Split(np.arange(0, 20), np.arange(20, 30), np.arange(30, 40))])
    run_directed([graph], n_trials=1, verbose=False,
                 methods=["AsK-LS default", "AsK-LS attribute"])
    # NodeClassifier takes valid= (it would choose on them): the table, as measured,
    # fits the training nodes and chooses by their folds.
    assert seen == {"AsK-LS default": None, "AsK-LS attribute": None}
