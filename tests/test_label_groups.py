"""Several labels per node that split into groups of exclusive labels (independent
partitions): one single-label selection per group, answered one label per group, checked
against the trivial answers on the held-out folds."""

import pickle
import warnings

import networkx as nx
import numpy as np
import pytest
from scipy import sparse
from sklearn.metrics import f1_score

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_multilabel_sbm
from digraph_askls.models.selection._groups import _answer
from digraph_askls.models.selection._policy import SelectionPolicy
from digraph_askls.models.selection._results import CV_COLUMNS, SELECTION_KEYS

pytestmark = pytest.mark.filterwarnings("ignore:The inner solver of NewtonCholeskySolver")


def _partitions(n=300, classes=3, p_same=0.8, seed=0, order=None):
    adjacency, Y = make_multilabel_sbm(n, classes, 2, avg_degree=10.0, p_same=p_same,
                                       random_state=seed)
    if order is not None:
        Y = Y[:, order]
    train = np.random.default_rng(seed).random(n) < 0.4
    return adjacency, Y, train


def _fit(adjacency, target, **params):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = NodeClassifier(random_state=0, **params).fit(adjacency, target)
    return model, [str(w.message) for w in caught if "several labels" in str(w.message)]


def test_each_group_is_the_single_label_fit_of_its_classes():
    # Columns shuffled: the groups are found from the labels, not from their order.
    order = np.array([4, 0, 3, 5, 1, 2])
    adjacency, Y, train = _partitions(order=order)
    model, said = _fit(adjacency, np.where(train[:, None], Y, -1))
    groups = model.selection_["label_groups"]
    assert sorted(groups) == [(0, 2, 3), (1, 4, 5)] and said == []
    assert tuple(model.selection_) == SELECTION_KEYS and tuple(model.cv_results_) == CV_COLUMNS
    assert set(model.cv_results_["label_group"]) == {0, 1}
    predicted, proba = model.predict(), model.predict_proba()
    grown = nx.DiGraph(adjacency)
    grown.add_edges_from([("new", 0), (3, "new")])
    asked = ["new", 1, 2]
    grown_proba = model.predict_proba(asked, graph=grown)
    grown_decision = model.decision_function(asked, graph=grown)
    for position, group in enumerate(groups):
        group = np.array(group)
        codes = np.where(train, np.argmax(Y[:, group], axis=1), -1)
        single = NodeClassifier(random_state=0).fit(adjacency, codes)
        assert model.selection_["kernel"][position] == single.selection_["kernel"]
        assert model.selection_["gamma"][position] == single.selection_["gamma"]
        np.testing.assert_array_equal(predicted[:, group],
                                      np.eye(len(group), dtype=int)[single.predict()])
        np.testing.assert_allclose(proba[:, group], single.predict_proba(), atol=1e-12)
        np.testing.assert_allclose(grown_proba[:, group],
                                   single.predict_proba(asked, graph=grown), atol=1e-12)
        np.testing.assert_allclose(grown_decision[:, group], single.decision_function(
            asked, graph=grown).reshape(len(asked), -1), atol=1e-12)
    test = ~train
    every = f1_score(Y[test], np.ones_like(Y[test]), average="micro")
    assert f1_score(Y[test], predicted[test], average="micro") >= every + 0.02
    assert model.selection_["score"] == model.selection_["held_out_score"] > every


def test_structure_without_signal_answers_every_label_and_warns():
    # Two random partitions of two classes each on random links: one label per group is
    # right half the time (micro-F1 about 0.5), every label scores 2/3.
    n, rng = 400, np.random.default_rng(1)
    adjacency = sparse.random(n, n, density=6 / n, random_state=2, format="csr")
    Y = np.zeros((n, 4), dtype=int)
    Y[np.arange(n), rng.integers(0, 2, n)] = 1
    Y[np.arange(n), 2 + rng.integers(0, 2, n)] = 1
    train = rng.random(n) < 0.5
    model, said = _fit(adjacency, np.where(train[:, None], Y, -1))
    assert model.selection_["label_groups"] == ((0, 1), (2, 3))
    assert len(said) == 1 and "f1_micro" in said[0] and "'every label'" in said[0]
    assert (model.predict() == 1).all()
    assert model.decision_function().shape == (n, 4)           # two classes per group


def test_grown_graph_and_pickle_answer_as_the_fit():
    adjacency, Y, train = _partitions(n=240)
    graph = nx.DiGraph(adjacency)
    target = {node: list(np.flatnonzero(Y[node])) for node in np.flatnonzero(train)}
    model, _ = _fit(graph, target)
    assert model.selection_["label_groups"] is not None
    grown = graph.copy()
    grown.add_edges_from([("new", 0), ("new", 1), (2, "new")])
    nodes = [0, 5, 17]
    np.testing.assert_array_equal(model.predict(nodes, graph=grown), model.predict(nodes))
    assert model.predict(["new"], graph=grown).sum() == 2
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(), model.predict())
    with pytest.raises(ValueError, match="its own kernel and model"):
        model.primal_weights()
    model.estimator_.answer = "most probable label"     # a trivial answer, as chosen
    top = np.argmax(model.predict_proba(), axis=1)
    np.testing.assert_array_equal(model.predict(), np.eye(Y.shape[1], dtype=int)[top])


def test_labels_that_overlap_keep_the_several_label_selection():
    adjacency, Y, train = _partitions(n=200)
    Y[::7, 0] = Y[::7, 1] = 1                    # two labels of one group on some nodes
    model, _ = _fit(adjacency, np.where(train[:, None], Y, -1), kernel="in_degree")
    assert model.selection_["label_groups"] is None
    assert isinstance(model.selection_["kernel"], object) and model.selection_["engine"] == \
        "spectral"


def test_the_answer_beats_the_trivial_ones_or_says_so():
    policy = SelectionPolicy()
    columns = [np.array([0, 1]), np.array([2, 3])]
    Y = np.array([[1, 0, 1, 0], [0, 1, 1, 0], [1, 0, 0, 1], [0, 1, 0, 1]])
    sure = np.where(Y > 0, 0.9, 0.1)
    assert _answer(Y, sure, columns, "f1_micro", policy) == ("one per group", 1.0)
    # Group 0 always right and sure, group 1 always wrong: one label per group scores
    # 0.5; group 0's label alone 2/3, every label 2/3 too (the first of equals).
    proba = sure.copy()
    proba[:, 2:] = np.where(Y[:, 2:] > 0, 0.4, 0.6)
    with pytest.warns(UserWarning, match="not 0.02 above the trivial answer 'every label'"):
        assert _answer(Y, proba, columns, "f1_micro", policy) == ("every label", 0.5)
    # With eight labels, every label scores 0.4: the most probable label alone wins.
    wide = [np.arange(4), np.arange(4, 8)]
    Y8 = np.zeros((4, 8), dtype=int)
    Y8[np.arange(4), np.arange(4)] = Y8[np.arange(4), [5, 6, 7, 4]] = 1
    proba8 = np.where(Y8 > 0, 0.7, 0.1)
    proba8[:, 4:] = np.where(Y8[:, 4:] > 0, 0.1, 0.3)
    with pytest.warns(UserWarning, match="'most probable label'"):
        answer, value = _answer(Y8, proba8, wide, "f1_micro", policy)
    assert answer == "most probable label" and value == 0.5


def test_groups_are_an_exact_cover_of_the_labelled_nodes():
    from digraph_askls.models.selection._answers import label_groups

    # Three partitions of four classes on ten labelled nodes: some labels of different
    # partitions never meet there, and the partitions are still found.
    _, Y = make_multilabel_sbm(40, 4, 3, avg_degree=6.0, random_state=2)
    groups = label_groups(Y[:10])
    assert [group.tolist() for group in groups] == [[0, 1, 2, 3], [4, 5, 6, 7],
                                                   [8, 9, 10, 11]]
    assert label_groups(Y[:10], max_steps=3) is None            # the search's budget
    Y[0, 0] = 1 - Y[0, 0]                                       # one node of 2 or 4 labels
    assert label_groups(Y[:10]) is None
