"""The graph neural network peers: protocol, optional import, cell cache, smoke training."""

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import experiments._gnn_models as gnn_models
import experiments._runner as runner
from experiments import GNN_CONFIGS, GNN_METHODS, CellCache, GNNClassifier, format_gnn, run_directed, run_gnn_table
from digraph_askls.model_selection import evaluate_node_classifier, takes_valid
from experiments._gnn import _stratified_share
from digraph_askls.graph import Graph, Split, get_adjacency


# Every test of the module with PyTorch on one thread (``conftest.py``).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _tiny_graph(splits=None):
    """Two classes of 20 nodes, links mostly within classes, attributes that tell them apart."""
    rng = np.random.default_rng(0)
    labels = np.arange(40) % 2
    edges = [(i, j) for i in range(40) for j in range(40)
             if i != j and rng.random() < (0.25 if labels[i] == labels[j] else 0.03)]
    adjacency, nodes = get_adjacency(edges, nodelist=list(range(40)))
    attributes = np.c_[labels + rng.normal(0, 0.3, 40), rng.normal(size=(40, 3))]
    return Graph(adjacency, labels, nodes, ["a", "b"], name="tiny", features=attributes,
                 splits=splits)


class _ValidSpy:
    """Records the labels and validation nodes ``fit`` received; predicts class 0."""

    def __init__(self, calls):
        self.calls = calls

    def fit(self, graph, labels, *, valid=None):
        self.calls.append((np.array(labels), valid))
        return self

    def predict(self, nodes):
        return np.zeros(len(nodes), dtype=int)


class _PlainSpy(_ValidSpy):
    def fit(self, graph, labels):
        self.calls.append((np.array(labels), "no valid keyword"))
        return self


def test_validation_nodes_reach_only_classifiers_that_take_them():
    graph = _tiny_graph()
    splits = [((0, 0), np.arange(0, 20), np.arange(30, 40))]
    valid = [np.arange(20, 30)]
    calls = []
    for spy in (_ValidSpy, _PlainSpy):
        evaluate_node_classifier(lambda seed, spy=spy: spy(calls), graph.adjacency,
                                 graph.labels, splits=splits, valid=valid, verbose=False)
    (with_valid, nodes), (plain, marker) = calls
    assert takes_valid(_ValidSpy([])) and not takes_valid(_PlainSpy([]))
    assert nodes is valid[0] and marker == "no valid keyword"
    # The validation nodes' labels go only with the keyword; test nodes are never seen.
    assert (with_valid[20:30] == graph.labels[20:30]).all() and (plain[20:30] == -1).all()
    assert (with_valid[30:] == -1).all() and (plain[:20] == graph.labels[:20]).all()
    with pytest.raises(ValueError, match="validation nodes for each"):
        evaluate_node_classifier(lambda seed: _ValidSpy([]), graph.adjacency, graph.labels,
                                 splits=splits, valid=valid * 2, verbose=False)


def test_the_validation_share_is_drawn_per_class_from_the_labelled_nodes():
    codes = np.array([0] * 20 + [1] * 10 + [2] * 2 + [-1] * 5)
    labelled = np.flatnonzero(codes >= 0)
    drawn = _stratified_share(codes, labelled, 0.2, np.random.default_rng(0))
    assert np.bincount(codes[drawn]).tolist() == [4, 2, 1]
    assert set(drawn) <= set(labelled)
    again = _stratified_share(codes, labelled, 0.2, np.random.default_rng(0))
    assert (drawn == again).all()


def test_importing_the_harness_does_not_import_torch():
    code = "import sys, experiments, digraph_askls.cli; print('torch' in sys.modules)"
    root = Path(__file__).resolve().parents[1]
    printed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             cwd=root, check=True).stdout
    assert printed.strip() == "False"


def test_without_the_extra_the_error_names_it_and_the_table_says_so(monkeypatch):
    real = importlib.import_module

    def without_torch(name, *args, **kwargs):
        if name.split(".")[0] == "torch":
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(gnn_models.importlib, "import_module", without_torch)
    graph = _tiny_graph()
    labels = np.where(np.arange(40) < 30, graph.labels, -1)
    with pytest.raises(ImportError, match=r'digraph-askls\[gnn\]'):
        GNNClassifier("GCN").fit(graph.adjacency, labels, features=graph.features)
    rows = run_directed([graph], n_trials=1, methods=["GCN"], verbose=False)
    assert rows[0]["status"].startswith("not available") and "[gnn]" in rows[0]["status"]


def test_every_peer_has_cited_settings():
    assert set(GNN_METHODS) == {"MLP", "GCN", "GraphSAGE", "Dir-GNN", "MagNet", "DiGCN"}
    for entry in GNN_CONFIGS.values():
        assert re.search(r"commits? [0-9a-f]{40}", entry["source"])
        assert {"lr", "max_epochs", "patience", "criterion"} <= set(entry["default"])


def test_cells_are_saved_after_each_split_and_reused(tmp_path, monkeypatch):
    path = tmp_path / "cells.jsonl"
    graph = _tiny_graph()
    first = run_directed([graph], n_trials=2, methods=["AsK-LS walk"], cache=path,
                         verbose=False)
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["split"] == [0, 0]

    def fail(*args, **kwargs):
        raise AssertionError("a cached cell was measured again")

    monkeypatch.setattr(runner, "_measure", fail)
    again = run_directed([graph], n_trials=2, methods=["AsK-LS walk"], cache=path,
                         verbose=False)
    assert again[0]["accuracy"] == first[0]["accuracy"] and again[0]["n_splits"] == 2
    # A third split is missing: only cached cells when nothing may be measured.
    partial = run_directed([graph], n_trials=3, methods=["AsK-LS walk"], cache=path,
                           cached_only=True, verbose=False)
    assert partial[0]["n_splits"] == 2
    for cached_only in (False, True):       # recomputed even when the rest is cached only
        with pytest.raises(AssertionError, match="measured again"):
            run_directed([graph], n_trials=2, methods=["AsK-LS walk"], cache=path,
                         recompute=["AsK-LS walk"], cached_only=cached_only, verbose=False)
    # A line cut by a stopped run is skipped, the others kept.
    with open(path, "a") as file:
        file.write('{"graph": "tiny", "accura')
    assert len(CellCache(path)) == 2


def test_the_gnn_table_has_both_regimes(tmp_path):
    graph = _tiny_graph()
    rows = run_gnn_table([graph], [graph], per_class=4, n_trials=2,
                         methods=["AsK-LS default"], cache=tmp_path / "cells.jsonl",
                         verbose=False)
    assert [row["protocol"] for row in rows] == ["random 60/40", "4 labels per class"]
    assert all(row["threads"].startswith("BLAS") for row in rows)
    markdown = format_gnn(rows)
    assert "**4 labels per class**" in markdown and "| tiny | random 60/40 (2) |" in markdown


def test_command_line_gnn_table_writes_cells_table_and_figure(tmp_path, capsys,
                                                              shared_datasets):
    pytest.importorskip("matplotlib")
    from experiments import _cli as harness

    out = tmp_path / "results"
    options = ["table", "gnn", "--datasets", "texas", "--few-label-datasets", "--methods",
               "AsK-LS default", "--trials", "1", "--out", str(out), "--quiet"]
    assert harness.main([*options, "--data-home", str(shared_datasets)]) == 0
    assert "| texas |" in (out / "gnn.md").read_text()
    assert (out / "gnn.png").stat().st_size > 1000
    assert "AsK-LS default" in (out / "gnn-cells.jsonl").read_text()
    # Without any of the data, no empty table: an error that names --data-home.
    empty = tmp_path / "empty"
    assert harness.main([*options[:-3], "--out", str(empty), "--quiet", "--data-home",
                     str(tmp_path / "absent")]) == 2
    assert "--data-home" in capsys.readouterr().err and not empty.exists()


@pytest.mark.parametrize("method", GNN_METHODS)
def test_each_peer_trains_two_epochs_on_a_tiny_graph(method):
    pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    pytest.importorskip("torch_geometric_signed_directed")
    valid = np.arange(20, 28)
    graph = _tiny_graph(splits=[Split(np.arange(20), valid, np.arange(28, 40))])
    labels = np.where(np.arange(40) < 28, graph.labels, -1)
    fitted = [GNNClassifier(method, config={"max_epochs": 2}, random_state=1).fit(
        graph.adjacency, labels, features=graph.features, valid=valid) for _ in range(2)]
    clf = fitted[0]
    assert clf.n_epochs_ == 2 and clf.best_epoch_ in (1, 2) and clf.n_threads_ == 1
    assert (clf.valid_ == valid).all()
    predicted = clf.predict(list(range(28, 40)))
    assert predicted.shape == (12,) and set(predicted) <= {0, 1}
    # Seeded: the same seed gives the same model.
    assert (fitted[1].labels_ == clf.labels_).all()
    # Through the tables' harness, on a split with its validation nodes.
    results = evaluate_node_classifier(
        lambda seed: GNNClassifier(method, config={"max_epochs": 2}, random_state=seed),
        graph.adjacency, graph.labels, splits=[((0, 0), np.arange(20), np.arange(28, 40))],
        valid=[valid], features=graph.features, verbose=False)
    assert 0 <= results.micro_f1[0] <= 1 and results.seconds[0] > 0


@pytest.mark.parametrize("method", ["APPNP", "GCNII"])
def test_sparse_attributes_give_the_dense_model(method):
    """APPNP and GCNII take sparse attributes as a sparse matrix: without dropout the scores
    and the input layer's gradient are those of the dense attributes."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    rng = np.random.default_rng(0)
    graph = _tiny_graph()
    dense = torch.as_tensor(rng.random((40, 60)) * (rng.random((40, 60)) < 0.05),
                            dtype=torch.float32)
    assert gnn_models.sparse_rows(dense).layout == torch.sparse_csr
    from experiments._comparison_peers import grid_of

    config = dict(grid_of(method, "tiny", "20 per class")[0], dropout=0.0)
    results = []
    for features in (dense, gnn_models.sparse_rows(dense)):
        torch.manual_seed(0)
        model, _ = gnn_models.build_model(method, config, dense, graph.adjacency, 2)
        edges = torch.as_tensor(np.array(graph.adjacency.nonzero()), dtype=torch.int64)
        out = model(features, torch.cat([edges, edges.flip(0)], 1))
        out.square().sum().backward()
        results.append((out.detach(), model.first.weight.grad.clone()))
    assert torch.allclose(results[0][0], results[1][0], atol=1e-5)
    assert torch.allclose(results[0][1], results[1][1], atol=1e-5)


def test_dropout_of_sparse_attributes_draws_only_stored_entries():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    dense = torch.as_tensor(rng.random((200, 50)) * (rng.random((200, 50)) < 0.05) + 0.1 *
                            (rng.random((200, 50)) < 0.05), dtype=torch.float32)
    stored = gnn_models.sparse_rows(dense)
    identity = torch.nn.Linear(50, 50)
    with torch.no_grad():
        identity.weight.copy_(torch.eye(50))
        identity.bias.zero_()
    torch.manual_seed(0)
    dropped = gnn_models.dropped_linear(identity, stored, 0.5, True).detach()
    assert torch.all(dropped[dense == 0] == 0)
    kept = dropped[dense != 0]
    twice = 2 * dense[dense != 0]
    assert torch.all((kept == 0) | torch.isclose(kept, twice))
    share = float((kept == 0).float().mean())
    assert 0.4 < share < 0.6                        # about p of the stored entries
    # Not training: no entry is dropped, and a dense matrix stays dense.
    assert torch.allclose(gnn_models.dropped_linear(identity, stored, 0.5, False), dense)
    full = torch.ones(10, 10)
    assert gnn_models.sparse_rows(full) is full


def _looped_graph(torch):
    """The tiny graph with three self-loops, and its attributes as a tensor."""
    graph = _tiny_graph()
    adjacency = graph.adjacency.tolil()
    adjacency[[0, 5, 7], [0, 5, 7]] = 1.0
    return adjacency.tocsr(), torch.as_tensor(graph.features, dtype=torch.float32)


def test_gcnii_on_sparse_links_is_gcnii_on_the_edge_list():
    """GCNII propagates over a sparse adjacency without the graph's own self-loops: its
    scores are those of PyG's edge-list path, self-loops of the graph included."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.utils import to_undirected

    from experiments._comparison_peers import grid_of

    adjacency, features = _looped_graph(torch)
    config = dict(grid_of("GCNII", "tiny", "20 per class")[0], dropout=0.0)
    torch.manual_seed(0)
    model, scores = gnn_models.build_model("GCNII", config, features, adjacency, 2)
    model.eval()
    edges = to_undirected(gnn_models._edge_index(adjacency, torch), num_nodes=40)
    with torch.no_grad():
        through_links = scores()
        model.convs.apply(lambda conv: setattr(conv, "_cached_edge_index", None))
        through_edges = model(features, edges)
    assert torch.allclose(through_links, through_edges, atol=1e-6)
    # The loops are what PyG's two paths treat differently: kept, the scores move.
    kept = torch.sparse_coo_tensor(edges, torch.ones(edges.shape[1]), (40, 40)).to_sparse_csr()
    with torch.no_grad():
        model.convs.apply(lambda conv: setattr(conv, "_cached_edge_index", None))
        assert not torch.allclose(model(features, kept), through_edges, atol=1e-6)


def test_gcnii_is_differentiated_through_its_symmetric_links_as_on_the_edge_list(
        monkeypatch):
    """GCNII's propagation over its sparse links takes the gradient through the links
    themselves (:func:`symmetric_product`): every parameter's gradient is the one of PyG's
    edge-list path, with dropout drawn alike; on a non-symmetric matrix the product's
    gradient is not the transpose's, which is why only symmetric links go through it."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.utils import to_undirected

    from experiments._comparison_peers import grid_of

    adjacency, features = _looped_graph(torch)
    config = grid_of("GCNII", "tiny", "20 per class")[0]
    assert config["dropout"] > 0
    torch.manual_seed(0)
    model, scores = gnn_models.build_model("GCNII", config, features, adjacency, 2)
    edges = to_undirected(gnn_models._edge_index(adjacency, torch), num_nodes=40)
    results = []
    for run in (scores, lambda: model(features, edges)):
        model.zero_grad()
        torch.manual_seed(1)
        out = run()
        out[:, 0].square().sum().backward()
        results.append((out.detach(), [p.grad.clone() for p in model.parameters()]))
    (ours, our_grads), (theirs, their_grads) = results
    assert torch.allclose(ours, theirs, atol=1e-5)
    assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(our_grads, their_grads))
    # The sparse links do go through it: once per layer and pass.
    calls = []
    product = gnn_models.symmetric_product
    monkeypatch.setattr(gnn_models, "symmetric_product",
                        lambda *args: calls.append(1) or product(*args))
    scores()
    assert len(calls) == config["layers"]
    # The shortcut is exact only for a symmetric matrix.
    skew = torch.tensor([[0.0, 2.0], [1.0, 0.0]]).to_sparse_csr()
    x = torch.ones(2, 1, requires_grad=True)
    gnn_models.symmetric_product(skew, x).sum().backward()
    assert torch.equal(x.grad, torch.tensor([[2.0], [1.0]]))       # skew @ 1, not skew^T @ 1


def test_graphsage_on_sparse_links_is_graphsage_on_the_edge_list():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.utils import to_undirected

    adjacency, features = _looped_graph(torch)
    torch.manual_seed(0)
    model, scores = gnn_models.build_model(
        "GraphSAGE", {"hidden": 16, "layers": 2, "dropout": 0.0}, features, adjacency, 2)
    model.eval()
    edges = to_undirected(gnn_models._edge_index(adjacency, torch), num_nodes=40)
    with torch.no_grad():
        assert torch.allclose(scores(), model(features, edges), atol=1e-6)


@pytest.mark.parametrize("graph_name", ["tiny", "squirrel"])
def test_dir_gnn_on_direction_links_is_dir_gnn_on_the_edge_list(graph_name):
    """Dir-GNN on the two sparse adjacencies of ``direction_links`` is PyG's
    ``DirGNNConv`` on the edge list (its own forward, which flips it), self-loops of the
    graph included: the searched grid (both directions and the root term) and the
    authors' Squirrel settings (one direction, no root term, unit rows)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    import copy

    from experiments._comparison_peers import grid_of

    adjacency, features = _looped_graph(torch)
    config = dict(grid_of("Dir-GNN", graph_name, "fixed")[0], dropout=0.0)
    assert config["root_weight"] is (graph_name == "tiny")
    torch.manual_seed(0)
    model, scores = gnn_models.build_model("Dir-GNN", config, features, adjacency, 2)
    # Copies before any pass: each keeps its own cache of the normalised links.
    on_edges, swapped = copy.deepcopy(model), copy.deepcopy(model)
    edges = gnn_models._edge_index(adjacency, torch)
    model.eval()
    on_edges.eval()
    with torch.no_grad():
        through_links = scores()
        through_edges = on_edges(features, edges)
    assert torch.allclose(through_links, through_edges, atol=1e-5)
    # The directions are not interchangeable: swapped, the scores move.
    incoming, outgoing = gnn_models.direction_links(edges, 40)
    swapped.eval()
    with torch.no_grad():
        assert not torch.allclose(swapped(features, (outgoing, incoming)), through_edges,
                                  atol=1e-3)


@pytest.mark.parametrize("K, q", [(1, 0.25), (2, 0.05), (1, 0.0)])
def test_magnet_on_sparse_steps_is_magnet_on_the_edge_list(K, q):
    """MagNet's scores through :func:`magnetic_steps` (its layers' propagation as sparse
    complex products, the first layer's taken once) are those of the model's own
    ``forward`` on the edge list, in training (the same dropout draws) and in evaluation,
    and so are the gradients of every parameter; a step with the wrong orientation (the
    Laplacian's transpose) moves the scores."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric_signed_directed")
    adjacency, features = _looped_graph(torch)
    config = {"hidden": 8, "layers": 2, "K": K, "q": q, "dropout": 0.5}
    torch.manual_seed(0)
    model, scores = gnn_models.build_model("MagNet", config, features, adjacency, 2)
    edges = gnn_models._edge_index(adjacency, torch)
    for training in (True, False):
        model.train(training)
        results = []
        for run in (scores, lambda: model(features, features, edges)):
            model.zero_grad()
            torch.manual_seed(1)
            out = run()
            out[:, 0].sum().backward()
            results.append((out.detach(), [p.grad.clone() for p in model.parameters()]))
        (ours, our_grads), (theirs, their_grads) = results
        assert torch.allclose(ours, theirs, atol=1e-5)
        assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(our_grads, their_grads))
    if q > 0:     # with q = 0 the Laplacian is symmetric
        step_real, step_imag = gnn_models.magnetic_steps(model.Chebs[0], 40, edges,
                                                         torch.float32)
        transposed = (step_real.to_dense().T.to_sparse_csr(),
                      step_imag.to_dense().T.to_sparse_csr())
        # The real part is symmetric (a cosine of the phase), the imaginary part is not.
        _, moved = gnn_models._chebyshev_terms(transposed, features, features, 2)[1]
        _, kept = gnn_models._chebyshev_terms((step_real, step_imag), features, features, 2)[1]
        assert not torch.allclose(moved, kept, atol=1e-4)
