"""Structure-only peers behind the NodeClassifier protocol."""

import numpy as np
import pytest

from digraph_askls.datasets import make_directed_sbm
from experiments import PeerClassifier
from digraph_askls.model_selection import evaluate_node_classifier, random_splits

pytest.importorskip("sknetwork")


@pytest.mark.parametrize("method", ["pagerank", "diffusion"])
@pytest.mark.parametrize("directed", [False, True])
def test_peers_run_on_splits(method, directed):
    adjacency, labels = make_directed_sbm(600, 3, 8, p_in=0.9, random_state=0)
    splits = random_splits(labels, 0.6, 2, random_state=0)
    result = evaluate_node_classifier(
        lambda seed: PeerClassifier(method, directed=directed), adjacency, labels,
        splits=splits, verbose=False)
    assert len(result.micro_f1) == 2
    if not directed:
        assert np.mean(result.micro_f1) > 0.8  # assortative graph: votes work undirected


def test_peer_keeps_node_names_and_rejects_unknown_nodes():
    edges = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "e"), ("e", "f"), ("f", "d"), ("c", "d")]
    clf = PeerClassifier().fit(edges, {"a": "x", "b": "x", "d": "y", "e": "y"})
    assert clf.predict(["c", "f"]).tolist() == ["x", "y"]
    with pytest.raises(ValueError, match="not in the fitted graph"):
        clf.predict(["z"])
    with pytest.raises(ValueError, match="The 'method' parameter of PeerClassifier must be a "
                                         "str among .*Got 'nope' instead"):
        PeerClassifier("nope").fit(edges, {"a": "x", "d": "y"})


def test_peer_on_a_graph_without_edges_keeps_the_known_labels():
    # scikit-network rejects an adjacency without entries; no vote can travel anyway.
    pytest.importorskip("sknetwork")
    clf = PeerClassifier().fit(np.zeros((4, 4)), [0, 1, 1, -1])
    assert clf.estimator_ is None
    assert clf.predict().tolist() == [0, 1, 1, 1]
