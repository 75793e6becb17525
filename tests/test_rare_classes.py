"""Rare classes on the protocol of GraphENS and TAM: the Planetoid split with 2 labelled
nodes in each of the last three classes of PyG's order, its cells and its table."""

import numpy as np
import pytest

from digraph_askls.datasets import make_directed_sbm
from digraph_askls.graph import Graph, Split, get_adjacency
from experiments import _rare_classes
from experiments._protocols import PLANETOID_MINORITIES, planetoid_long_tail_splits


def _split(labels, per_class=10, n_valid=40, seed=0):
    rng = np.random.default_rng(seed)
    train = np.concatenate([rng.choice(np.flatnonzero(labels == code), per_class,
                                       replace=False) for code in np.unique(labels)])
    rest = rng.permutation(np.setdiff1d(np.arange(labels.size), train))
    return Split(np.sort(train), np.sort(rest[:n_valid]), np.sort(rest[n_valid:]))


def test_trials_keep_the_majority_and_draw_the_minority_nodes_of_the_public_split():
    labels = np.repeat(np.arange(5), 40)
    split = _split(labels)
    trials = planetoid_long_tail_splits(labels, split, minority=[4, 1], n_trials=3,
                                        random_state=3)
    kept = []
    for seed, train, valid, test in trials:
        assert seed[0] == 3
        assert np.bincount(labels[train]).tolist() == [10, 2, 10, 10, 2]
        assert np.isin(train, split.train).all()
        np.testing.assert_array_equal(valid, split.valid)
        np.testing.assert_array_equal(test, split.test)
        kept.append(tuple(train))
    assert len(set(kept)) == 3                              # each trial draws anew
    again = planetoid_long_tail_splits(labels, split, minority=[4, 1], n_trials=3,
                                       random_state=3)
    assert [tuple(train) for _, train, _, _ in again] == kept


def test_a_class_without_training_nodes_is_no_minority():
    labels = np.repeat(np.arange(3), 20)
    split = _split(labels, per_class=5, n_valid=10)
    with pytest.raises(ValueError, match="minority must name classes"):
        planetoid_long_tail_splits(labels, split, minority=[7])
    with pytest.raises(ValueError, match="per_minority"):
        planetoid_long_tail_splits(labels, split, minority=[2], per_minority=0)


def _graph():
    adjacency, labels = make_directed_sbm(200, 4, 8.0, p_in=0.6, random_state=0)
    rng = np.random.default_rng(0)
    features = np.eye(4)[labels] + 0.8 * rng.standard_normal((200, 4))
    adjacency, nodes = get_adjacency(adjacency)
    return Graph(adjacency, labels, nodes, list("abcd"), name="sbm", features=features)


def test_askls_cell_chooses_on_the_validation_nodes_and_scores_the_test_nodes():
    graph = _graph()
    split = _split(graph.labels)
    (_, train, valid, test), = planetoid_long_tail_splits(graph.labels, split, [3],
                                                          n_trials=1, random_state=0)
    cell = _rare_classes.run_cell(graph, "sbm", "AsK-LS balanced", 0, 0, train, valid, test)
    assert (cell["n_labelled"], cell["n_valid"], cell["n_test"]) == (32, 40, 120)
    assert 0.3 < cell["balanced_accuracy"] <= 1.0
    assert "commit" in cell and len(cell["predictions_digest"]) == 16


def test_gcn_cell_is_tuned_and_stopped_on_the_validation_nodes():
    pytest.importorskip("torch")
    graph = _graph()
    split = _split(graph.labels)
    (_, train, valid, test), = planetoid_long_tail_splits(graph.labels, split, [3],
                                                          n_trials=1, random_state=0)
    cell = _rare_classes.run_cell(graph, "sbm", "GCN re-weighted", 0, 0, train, valid, test)
    assert cell["config"] in [dict(config, **_rare_classes.GCN_TRAINING)
                              for config in _rare_classes.GCN_GRID]
    assert 1 <= cell["best_epoch"] <= _rare_classes.GCN_TRAINING["max_epochs"]
    assert 0.3 < cell["valid_balanced_accuracy"] <= 1.0
    assert 0.3 < cell["balanced_accuracy"] <= 1.0


def test_table_has_the_measured_rows_and_the_published_ones():
    cells = [{"graph": "citeseer", "method": "AsK-LS balanced", "seed": 5, "trial": trial,
              "balanced_accuracy": 0.6 + 0.01 * trial, "f1_macro": 0.5, "seconds": 2.0}
             for trial in range(10)]
    text = _rare_classes.format_rare_classes(cells, seed=5)
    assert "| citeseer | DB, Agents, HCI | AsK-LS balanced (10 trials) | 0.645 ± 0.029 |" in text
    assert "GraphENS + TAM, published (5 runs) | 0.580 |" in text
    assert _rare_classes.summarize(cells[:9], seed=5) == []


def test_minority_classes_keep_2_public_training_nodes(shared, shared_datasets):
    for name, minority in PLANETOID_MINORITIES.items():
        graph = shared(name)
        assert set(minority) <= set(graph.class_names)
        (_, train, valid, test), = _rare_classes.planetoid_trials(
            graph, name, 0, n_trials=1, data_home=shared_datasets)
        counts = dict(zip(graph.class_names, np.bincount(graph.labels[train])))
        assert all(counts[label] == 2 for label in minority)
        assert valid.size >= 496 and test.size >= 991


def test_verify_reruns_the_rare_class_cells_by_their_trial(tmp_path):
    import json

    from experiments import _verify

    verifier = _verify.VERIFIERS["rare-classes"]
    assert verifier["methods"] == ("AsK-LS balanced", "AsK-LS balanced, self-trained")
    path = tmp_path / "cells.jsonl"
    path.write_text("".join(json.dumps({"graph": "cora", "method": method, "seed": 5,
                                        "trial": trial}) + "\n"
                            for method in _rare_classes.RARE_METHODS for trial in (2, 0)))
    cells = verifier["read"](path)
    chosen = _verify.select_cells(cells, verifier["methods"], seed=5)
    assert [(cell["method"], cell["split"]) for cell in chosen] == [
        ("AsK-LS balanced", 0), ("AsK-LS balanced", 2),
        ("AsK-LS balanced, self-trained", 0), ("AsK-LS balanced, self-trained", 2)]


@pytest.mark.parametrize("method", ["AsK-LS balanced, self-trained",
                                    "GCN re-weighted, self-trained"])
def test_self_trained_cells_fill_the_minority_class_with_pseudo_labels(method):
    if method.startswith("GCN"):
        pytest.importorskip("torch")
    graph = _graph()
    split = _split(graph.labels)
    (_, train, valid, test), = planetoid_long_tail_splits(graph.labels, split, [3],
                                                          n_trials=1, random_state=0)
    cell = _rare_classes.run_cell(graph, "sbm", method, 0, 0, train, valid, test)
    assert cell["n_pseudo_labels"] == 10 - 2          # the minority filled to 10
    assert 0.0 <= cell["pseudo_label_accuracy"] <= 1.0
    assert 0.3 < cell["balanced_accuracy"] <= 1.0
    assert cell["n_labelled"] == 32                   # the protocol's labels, as given
