"""The directed-graph results table: protocol, published figures, markdown, figure, CLI."""

import numpy as np
import pytest

from digraph_askls.experiments import PeerClassifier, evaluate_node_classifier
from digraph_askls.graph import get_adjacency
from digraph_askls.kernels import AttributeKernel
from digraph_askls.models import NodeClassifier


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
