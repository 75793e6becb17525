"""Calibrated ``NodeClassifier.predict_proba``: a temperature fitted on the labelled
nodes' out-of-fold probabilities, shrunk to the class prior; predictions unchanged."""

import warnings

import networkx as nx
import numpy as np

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm


def _readme_fit():
    graph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
    nx.set_node_attributes(graph, {n: [1.0, 0.0] if n < 3 else [0.0, 1.0] for n in graph},
                           "x")
    labels = {0: "a", 1: "a", 3: "b", 4: "b"}
    return NodeClassifier().fit(graph, labels, features="x")


def test_four_labels_give_no_certainty():
    clf = _readme_fit()
    proba = clf.predict_proba()
    assert proba.max() <= 0.99
    assert proba.max() <= 5 / 6 + 1e-12          # 4 labels of 2 classes
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert clf.predict([2, 5]).tolist() == ["a", "b"]
    assert clf.classes_[np.argmax(clf.predict_proba([2, 5]), axis=1)].tolist() == ["a", "b"]


def _sbm_fit(**params):
    adjacency, labels = make_directed_sbm(300, 3, 8.0, p_in=0.5, random_state=0)
    rng = np.random.default_rng(1)
    known = np.full(300, -1)
    train = np.sort(rng.choice(300, 60, replace=False))
    known[train] = labels[train]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return NodeClassifier(random_state=0, **params).fit(adjacency, known), labels


def test_calibrator_learns_every_labelled_node_and_moves_no_prediction():
    clf, _ = _sbm_fit()
    calibrator = clf.calibrator_
    assert calibrator.n_evidence_ == clf.train_nodes_.size
    calibrated = clf.predict_proba()
    clf.calibrator_ = None
    raw = clf.predict_proba()
    assert np.abs(calibrated - raw).max() > 1e-6       # the calibration does something
    assert calibrated.max() <= calibrator.max_probability() + 1e-12
    # The arg-max is kept but where the prior breaks a near tie.
    assert np.mean(calibrated.argmax(axis=1) == raw.argmax(axis=1)) >= 0.98
    assert np.array_equal(clf.predict(), clf.classes_[raw.argmax(axis=1)])


def test_a_fixed_configuration_has_no_calibrator():
    clf, _ = _sbm_fit(kernel="ppr", gamma=0.01, merge="joint_train")
    assert clf.selection_["engine"] == "fixed"
    assert clf.calibrator_ is None
    np.testing.assert_allclose(clf.predict_proba().sum(axis=1), 1.0)
