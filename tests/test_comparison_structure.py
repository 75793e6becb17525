"""The comparison's rows without node attributes: the graphs, the networks' one-hot node
ids, the order of the runs and the section of the page."""

import dataclasses

import numpy as np
import pytest

import experiments._comparison as comparison
from experiments._comparison_report import format_comparison, format_structure, paired_rows
from digraph_askls.graph import Graph, get_adjacency

# Every test of the module with PyTorch on one thread (``conftest.py``).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _tiny_graph(features=True):
    """Three classes of 20 nodes whose links stay mostly within their class: the
    structure alone tells them apart."""
    rng = np.random.default_rng(0)
    labels = np.arange(60) % 3
    edges = [(i, j) for i in range(60) for j in range(60)
             if i != j and rng.random() < (0.2 if labels[i] == labels[j] else 0.02)]
    adjacency, nodes = get_adjacency(edges, nodelist=list(range(60)))
    attributes = rng.random((60, 4)) if features else None
    return Graph(adjacency, labels, nodes, ["a", "b", "c"], name="tiny", features=attributes)


def test_a_structure_only_graph_is_the_dataset_without_its_attributes(monkeypatch):
    import digraph_askls.datasets as datasets

    asked = []

    def load(name, **options):
        asked.append(name)
        return _tiny_graph()

    monkeypatch.setattr(datasets, "load_dataset", load)
    graph = comparison.load_graph("cora-structure")
    original = _tiny_graph()
    assert asked == ["cora"] and graph.name == "cora-structure"
    assert graph.features is None and graph.feature_names is None
    assert (graph.adjacency != original.adjacency).nnz == 0
    np.testing.assert_array_equal(graph.labels, original.labels)
    # the draws are the attributed graph's: the same labels give the same nodes
    assert ([task["nodes"] for task in comparison.comparison_tasks(graph, "60/40", seed=4)]
            == [task["nodes"] for task in comparison.comparison_tasks(original, "60/40",
                                                                       seed=4)])
    assert comparison.load_graph("cora").features is not None


def test_the_networks_read_one_hot_node_ids_on_a_graph_without_attributes():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from experiments._comparison_peers import _Inputs, network_inputs

    x = network_inputs(_tiny_graph(features=False), torch)
    assert x.layout == torch.sparse_csr and x.shape == (60, 60) and x.dtype == torch.float32
    np.testing.assert_array_equal(x.to_dense().numpy(), np.eye(60))
    # with attributes: the attributes, each row divided by its sum, dense
    graph = _tiny_graph()
    attributes = network_inputs(graph, torch)
    assert attributes.layout == torch.strided
    np.testing.assert_allclose(attributes.numpy(),
                               graph.features / graph.features.sum(1, keepdims=True),
                               rtol=1e-6)
    assert _Inputs(_tiny_graph(features=False), "cpu").x.shape == (60, 60)


@pytest.mark.parametrize("method", ["GCN", "Dir-GNN", "APPNP"])
def test_the_sparse_one_hot_ids_score_as_the_dense_identity(method):
    """GCN, Dir-GNN and APPNP take the ids as a sparse matrix: same scores as dense."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from experiments._comparison_peers import grid_of, network_inputs
    from experiments._gnn_models import build_model

    graph = _tiny_graph(features=False)
    x = network_inputs(graph, torch)
    scores = []
    for given in (x, x.to_dense()):
        torch.manual_seed(1)
        model, score = build_model(method, grid_of(method, "tiny")[0], given, graph.adjacency,
                                   3)
        model.eval()
        with torch.no_grad():
            scores.append(score().numpy())
    np.testing.assert_allclose(scores[0], scores[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("method", ["GCN", "SGC", "APPNP", "Dir-GNN", "MagNet",
                                    "label propagation"])
def test_each_peer_learns_the_classes_from_the_links_alone(method, monkeypatch):
    pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    if method == "MagNet":
        pytest.importorskip("torch_geometric_signed_directed")
    import experiments._comparison_peers as peers

    monkeypatch.setitem(peers.TRAINING, "max_epochs", 60)
    monkeypatch.setitem(peers.TRAINING, "patience", 20)
    graph = _tiny_graph(features=False)
    task = comparison.comparison_tasks(graph, "60/40", seed=1)[0]
    measured = peers.run_peer(graph, "tiny", method, task, protocol="60/40")
    # three classes: chance is a third; the links within the classes carry them
    assert measured["accuracy_early"] > 0.6


def test_the_structure_rows_run_method_by_method_and_split_by_split():
    methods = ["label propagation", "GCN"]
    jobs = comparison.comparison_jobs(methods=methods, n_splits=2,
                                      rows=comparison.STRUCTURE_PROTOCOLS,
                                      done={("60/40", "polblogs", "GCN",
                                             comparison.SEALED_SEED, 0)})
    jobs = comparison.split_major(jobs, methods)
    assert len(jobs) == 2 * 2 * 3 * 2 - 1
    assert {job[1] for job in jobs} == {"polblogs", "cora-structure", "citeseer-structure"}
    assert [job[2] for job in jobs[:12]] == ["label propagation"] * 12
    assert [job[4] for job in jobs[:12]] == [0] * 6 + [1] * 6
    # the attributed table's rows are not among them, nor these among its rows
    assert not {job[1] for job in comparison.comparison_jobs(methods=methods)} \
        & set(comparison.STRUCTURE_ONLY)


def _cells(method, accuracy, splits=10, graph="polblogs"):
    return [{"protocol": "20 per class", "graph": graph, "method": method, "split": s,
             "seed": 1, "accuracy": accuracy + 0.01 * (s % 3), "seconds": 1.0,
             "n_labelled": 40, "n_test": 1450, "commit": "0123456789ab", "dirty": False}
            for s in range(splits)]


def test_the_section_shows_the_peers_with_the_default_pending_and_judges_by_the_rule():
    cells = _cells("GCN", 0.85, splits=5) + _cells("label propagation", 0.9)
    text = "\n".join(format_structure(cells, seed=1))
    assert "| AsK-LS default | pending |" in text
    assert "| GCN | 0.858 ± 0.007 (5 of 10 splits †) |" in text
    assert "20 per class: GCN 0-5, label propagation 0-10" in text and "0123456" in text
    assert "one-hot node ids (X = I" in text and "No row paired yet" in text
    # the default and eight complete peers: the row is judged, by the table's own rule
    peers = ["MLP", "GCN", "GAT", "APPNP", "GraphSAGE", "SGC", "C&S", "label propagation"]
    full = _cells("AsK-LS default", 0.95) + [
        cell for index, method in enumerate(peers)
        for cell in _cells(method, 0.80 + 0.01 * index)]
    row, = paired_rows(full, rows=comparison.STRUCTURE_PROTOCOLS)
    assert (row["graph"], row["peer"], row["verdict"]) == ("polblogs", "label propagation",
                                                           "ahead")
    assert not paired_rows(full)                  # not a row of the attributed table
    assert "| polblogs | 20 per class |" in "\n".join(format_structure(full, seed=1))


def test_the_comparison_page_carries_the_section_when_its_cells_are_given():
    attributed = [{**cell, "graph": "cora"} for cell in _cells("GCN", 0.8)]
    structure = _cells("GCN", 0.85, splits=5)
    assert "## Graphs without node attributes" not in format_comparison(attributed, seed=1)
    assert "## Graphs without node attributes" in format_comparison(attributed, seed=1,
                                                                      structure_cells=structure)
