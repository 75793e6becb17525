"""The long-tail protocol of the harness: its cells, its paired tests and its page."""

import numpy as np
import pytest

from digraph_askls.datasets import make_directed_sbm
from experiments._protocols import long_tail_splits
from digraph_askls.graph import Graph, get_adjacency
from experiments import _long_tail


def _graph():
    adjacency, labels = make_directed_sbm(200, 5, 8.0, p_in=0.6, random_state=0)
    rng = np.random.default_rng(0)
    features = np.eye(5)[labels] + 0.8 * rng.standard_normal((200, 5))
    adjacency, nodes = get_adjacency(adjacency)
    return Graph(adjacency, labels, nodes, list("abcde"), name="sbm", features=features)


@pytest.mark.parametrize("method", ["AsK-LS default", "AsK-LS balanced",
                                    "LR balanced (propagated)"])
def test_a_cell_scores_the_test_nodes_of_its_draw(method):
    graph = _graph()
    (_, train, test), = long_tail_splits(graph.labels, per_class=10, n_trials=1,
                                         random_state=0)
    cell = _long_tail.run_cell(graph, "sbm", method, 0, 0, train, test)
    assert cell["n_labelled"] == 26 and cell["n_test"] == 174
    assert 0.2 < cell["balanced_accuracy"] <= 1.0
    assert 0.0 < cell["f1_macro"] <= 1.0 and cell["seconds"] > 0


def _cells(means):
    rng = np.random.default_rng(1)
    cells = []
    for method, mean in means.items():
        for split in range(10):
            value = mean + 0.01 * rng.standard_normal()
            cells.append({"graph": "cora", "method": method, "seed": 5, "split": split,
                          "balanced_accuracy": value, "f1_macro": value - 0.02,
                          "seconds": 1.0})
    return cells


def test_summary_tests_the_reference_against_each_method_with_holm():
    cells = _cells({"AsK-LS balanced": 0.70, "AsK-LS default": 0.60, "GCN": 0.699,
                    "LR balanced (propagated)": 0.80})
    rows = {row["method"]: row for row in _long_tail.summarize(cells, 5)}
    assert "p" not in rows["AsK-LS balanced"]
    assert rows["AsK-LS default"]["verdict"] == "ahead"
    assert rows["LR balanced (propagated)"]["verdict"] == "behind"
    assert rows["GCN"]["verdict"] == "level"
    assert rows["GCN"]["p_holm"] >= rows["GCN"]["p"]
    # a method with fewer than 10 draws has no row, and another seed's cells are not read
    partial = [cell for cell in _cells({"GCN re-weighted": 0.5}) if cell["split"] < 4]
    assert all(row["method"] != "GCN re-weighted"
               for row in _long_tail.summarize(cells + partial, 5))
    assert _long_tail.summarize(cells, 6) == []


def test_page_shows_every_row_and_the_published_figures():
    cells = _cells({"AsK-LS balanced": 0.70, "AsK-LS default": 0.60})
    page = _long_tail.format_long_tail(cells, 5)
    assert "| AsK-LS balanced | 0.70" in page and "| reference |" in page
    assert "GraphENS 0.709 / 0.709" in page and "arXiv 2303.10371v2" in page


def test_page_names_the_commit_of_each_row_and_how_often_it_was_measured():
    cells = _cells({"AsK-LS balanced": 0.70, "GCN": 0.60})
    for cell in cells:
        if cell["method"] == "AsK-LS balanced":
            cell["commit"] = "0123456789abcdef"
    page = _long_tail.format_long_tail(cells, 5)
    assert "AsK-LS balanced: 0123456 (measured twice, for the same reason)" in page
    assert "GCN: no commit recorded (measured once)" in page
