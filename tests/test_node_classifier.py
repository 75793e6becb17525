"""NodeClassifier end to end: input formats, the paper's protocol on the real data, CLI."""

import json

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from digraph_askls import NodeClassifier
from digraph_askls.cli import main
from digraph_askls.datasets import load_dataset, make_directed_sbm
from digraph_askls.model_selection import evaluate_node_classifier, random_splits

# The paper's Table 3, AsK-LS column (micro-F1, 60/40 splits).
PAPER_MICRO_F1 = {"cora": 0.753, "citeseer": 0.605, "pubmed": 0.719}


def small_problem():
    adjacency, labels = make_directed_sbm(300, 3, 6, p_in=0.7, random_state=1)
    known = labels.copy()
    known[np.random.default_rng(0).random(labels.size) < 0.4] = -1
    return sp.csr_matrix(adjacency), labels, known


def test_digraph_edge_list_and_csr_give_identical_predictions():
    adjacency, _, known = small_problem()
    coo = adjacency.tocoo()
    edges = np.column_stack([coo.row, coo.col])
    graph = nx.DiGraph()
    graph.add_nodes_from(range(adjacency.shape[0]))
    graph.add_edges_from(edges.tolist())
    label_dict = {node: int(c) for node, c in enumerate(known) if c >= 0}
    results = []
    for given, labels in [(adjacency, known), (graph, label_dict), (adjacency.toarray(), known)]:
        clf = NodeClassifier(preset="paper", random_state=0).fit(given, labels)
        results.append((clf.predict(), clf.decision_function()))
    edge_clf = NodeClassifier(preset="paper", random_state=0)
    edge_clf.fit(edges, known, nodelist=list(range(known.size)))
    results.append((edge_clf.predict(), edge_clf.decision_function()))
    for predicted, scores in results[1:]:
        assert np.array_equal(predicted, results[0][0])
        np.testing.assert_allclose(scores, results[0][1], rtol=1e-10, atol=1e-12)


def test_labels_as_dict_of_names_and_predict_by_node_name():
    graph = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("d", "e"), ("e", "f"),
                        ("f", "d"), ("c", "d")])
    clf = NodeClassifier(merge="average").fit(graph, {"a": "x", "b": "x", "d": "y", "e": "y"})
    assert clf.predict(["c", "f"]).tolist() == ["x", "y"]
    both = clf.decision_function(["c", "f"], view="both")
    assert set(both) == {"source", "target"} and both["source"].shape == (2,)
    with pytest.raises(ValueError, match="node 'z' is not in the fitted graph"):
        clf.predict(["z"])
    with pytest.raises(ValueError, match="'preset' parameter of NodeClassifier .*'fast'"):
        NodeClassifier(preset="fast").fit(graph, {"a": "x", "d": "y"})
    with pytest.raises(ValueError, match="at least 2 classes"):
        NodeClassifier().fit(graph, {"a": "x"})


@pytest.mark.parametrize("name", ["cora", "citeseer", "pubmed"])
def test_paper_preset_reproduces_table_3(name, shared_datasets):
    graph = load_dataset(name, data_home=shared_datasets, download=False)
    n_trials = 1 if name == "pubmed" else 2
    splits = random_splits(graph.labels, 0.6, n_trials, random_state=0)
    results = evaluate_node_classifier(
        lambda seed: NodeClassifier(preset="paper", random_state=seed), graph.adjacency,
        graph.labels, splits=splits, verbose=False)
    micro = np.mean(results.micro_f1)
    assert abs(micro - PAPER_MICRO_F1[name]) < 0.03, micro


def test_command_line_run_prints_json(shared_datasets, capsys):
    code = main(["run", "--dataset", "cora", "--preset", "paper", "--trials", "1",
                 "--data-home", str(shared_datasets), "--no-download", "--json", "--quiet"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["trials"] == 1 and 0.72 < summary["micro_f1_mean"] < 0.80


def test_command_line_reports_unknown_dataset(capsys):
    assert main(["run", "--dataset", "nope", "--quiet"]) == 2
    assert "unknown dataset 'nope'; choose from" in capsys.readouterr().err


def test_joint_stacking_reads_one_way_flows_that_votes_and_per_class_stacking_miss():
    from digraph_askls.peers import PeerClassifier

    adjacency, labels = make_directed_sbm(4000, 5, 10, p_in=0.5, random_state=3)
    splits = random_splits(labels, 0.6, 1, random_state=0)
    scores = {}
    for name, make in [
        ("joint", lambda seed: NodeClassifier(random_state=seed)),
        ("stack", lambda seed: NodeClassifier(merge="stack", random_state=seed)),
        ("peer", lambda seed: PeerClassifier(method="pagerank", directed=False)),
    ]:
        result = evaluate_node_classifier(make, adjacency, labels, splits=splits, verbose=False)
        scores[name] = result.micro_f1[0]
    assert scores["joint"] > 0.95, scores
    assert scores["joint"] > max(scores["stack"], scores["peer"]) + 0.05, scores


def test_joint_probabilities_sum_to_one_and_match_predictions():
    adjacency, _, known = small_problem()
    clf = NodeClassifier(random_state=0).fit(adjacency, known)
    proba = clf.predict_proba()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict())


def test_auto_preset_keeps_the_defaults_and_large_is_taken_when_asked():
    adjacency, labels, known = small_problem()
    assert NodeClassifier().fit(adjacency, known).preset_ is None
    assert NodeClassifier(preset=None).fit(adjacency, known).preset_ is None
    large = NodeClassifier(preset="large", random_state=0).fit(adjacency, known)
    assert large.preset_ == "large" and large.kernel_.n_hops == 3
    with pytest.raises(ValueError, match="'preset' parameter of NodeClassifier .*'huge'"):
        NodeClassifier(preset="huge").fit(adjacency, known)


def test_node_indices_by_integer_array_match_the_name_lookup():
    adjacency, labels, known = small_problem()
    clf = NodeClassifier(preset="large", random_state=0).fit(adjacency, known)
    test = np.flatnonzero(known < 0)
    np.testing.assert_array_equal(clf.predict(test), clf.predict(test.tolist()))
    np.testing.assert_array_equal(clf.predict(test), clf.predict()[test])
    with pytest.raises(ValueError, match="node 300 is not in the fitted graph"):
        clf.predict(np.array([0, 300]))


def test_stackers_on_a_random_subset_of_many_training_samples(monkeypatch):
    from digraph_askls.models import _base

    adjacency, labels, known = small_problem()
    full = NodeClassifier(preset="large", random_state=0).fit(adjacency, known)
    monkeypatch.setattr(_base, "MAX_STACKING_SAMPLES", 100)
    monkeypatch.setattr(_base, "SAMPLES_PER_STACKING_COEFFICIENT", 1)
    subset = NodeClassifier(preset="large", random_state=0).fit(adjacency, known)
    test = np.flatnonzero(known < 0)
    # Same AsK-LS model; the per-class logistic regressions saw 100 of ~180 samples.
    np.testing.assert_array_equal(full.estimator_.solver_result_.x,
                                  subset.estimator_.solver_result_.x)
    assert subset.estimator_.stackers_[0][-1].n_features_in_ == 2 * 3   # 2 views x 3 classes
    assert subset.estimator_.stackers_[0][0].n_samples_seen_ == 100
    assert full.estimator_.stackers_[0][0].n_samples_seen_ > 150
    agree = np.mean(full.predict(test) == subset.predict(test))
    accuracy = np.mean(subset.predict(test) == labels[test])
    assert agree > 0.9 and accuracy > 0.8, (agree, accuracy)


def test_walk_kernels_hop_in_float32_unless_asked_and_predict_the_same():
    adjacency, labels, known = small_problem()
    fast = NodeClassifier(kernel="ppr", gamma=0.01, random_state=0).fit(adjacency, known)
    exact = NodeClassifier(kernel="ppr", gamma=0.01, kernel_params={"dtype": "float64"},
                           random_state=0).fit(adjacency, known)
    assert fast.kernel_.hop_dtype == np.float32 and exact.kernel_.hop_dtype == np.float64
    np.testing.assert_array_equal(fast.predict(), exact.predict())
    np.testing.assert_allclose(fast.decision_function(), exact.decision_function(),
                               rtol=1e-4, atol=1e-4)
    assert NodeClassifier(preset="paper").fit(adjacency, known).kernel_.dtype == np.float64
