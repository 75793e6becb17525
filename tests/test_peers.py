"""digraph_askls.peers: scikit-network's classifiers behind the node-classifier protocol.

The module imports without scikit-network (an optional extra) and says what to install
when a peer is fitted without it; with it, the peers run on the same splits as AsK-LS and
give scikit-network's own answers.
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from digraph_askls.datasets import make_directed_sbm
from digraph_askls.model_selection import evaluate_node_classifier, random_splits
from digraph_askls.peers import PEERS, PeerClassifier

needs_sknetwork = pytest.mark.skipif(importlib.util.find_spec("sknetwork") is None,
                                     reason='scikit-network is not installed: '
                                            'pip install ".[peers]"')

ROOT = Path(__file__).resolve().parents[1]
EDGES = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "e"), ("e", "f"), ("f", "d"), ("c", "d")]


def test_without_sknetwork_the_module_imports_and_fit_says_what_to_install():
    script = """
import sys
sys.modules["sknetwork"] = None             # importing it now raises ImportError
import digraph_askls
from digraph_askls.peers import PeerClassifier
assert digraph_askls.peers.PeerClassifier is PeerClassifier
peer = PeerClassifier(method="diffusion")  # building one needs nothing either
try:
    peer.fit([(0, 1), (1, 2)], [0, -1, 1])
except ImportError as error:
    print(error)
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "PeerClassifier needs scikit-network" in done.stdout
    assert 'pip install "digraph_askls[peers]"' in done.stdout


@needs_sknetwork
@pytest.mark.parametrize("method", sorted(PEERS))
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


@needs_sknetwork
@pytest.mark.parametrize("method", sorted(PEERS))
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("params", [None, "other"])
def test_peers_give_scikit_networks_own_answers(method, directed, params):
    from sknetwork import classification

    if params == "other":   # a setting far from the default, passed through
        params = {"pagerank": {"damping_factor": 0.3}, "diffusion": {"n_iter": 2}}[method]
    adjacency, labels = make_directed_sbm(300, 3, 6, p_in=0.6, random_state=1)
    known = np.where(np.random.default_rng(0).random(300) < 0.3, labels, -1)
    peer = PeerClassifier(method, directed=directed, params=params).fit(adjacency, known)
    matrix = (adjacency if directed else adjacency + adjacency.T).astype(float)
    expected = getattr(classification, PEERS[method])(**(params or {})).fit(
        matrix, known).predict()
    np.testing.assert_array_equal(peer.labels_, expected)
    np.testing.assert_array_equal(peer.classes_, [0, 1, 2])


@needs_sknetwork
def test_peer_keeps_node_names_and_rejects_unknown_nodes():
    clf = PeerClassifier().fit(EDGES, {"a": "x", "b": "x", "d": "y", "e": "y"})
    assert clf.predict(["c", "f"]).tolist() == ["x", "y"]
    assert clf.nodes_ == ["a", "b", "c", "d", "e", "f"]
    with pytest.raises(ValueError, match="not in the fitted graph"):
        clf.predict(["z"])


@needs_sknetwork
def test_labels_may_be_a_node_attribute_of_a_networkx_graph():
    graph = nx.DiGraph(EDGES)
    nx.set_node_attributes(graph, {"a": "x", "b": "x", "d": "y", "e": "y"}, "topic")
    assert PeerClassifier().fit(graph, "topic").predict(["c", "f"]).tolist() == ["x", "y"]


@needs_sknetwork
def test_directed_votes_flow_from_source_to_target():
    # x -> u and v -> y: along the edges only x's vote reaches u; y's reaches w.
    edges = [("x", "u"), ("v", "y"), ("y", "w")]
    labels = {"x": "a", "y": "b"}
    directed = PeerClassifier(directed=True).fit(edges, labels)
    assert directed.predict(["u", "w"]).tolist() == ["a", "b"]
    undirected = PeerClassifier().fit(edges, labels)
    assert undirected.predict(["v"]).tolist() == ["b"]     # v is y's neighbour both ways


@needs_sknetwork
def test_nodes_no_vote_reaches_get_the_most_frequent_class():
    # Diffusion leaves the unlabelled component {p, q} without a class (-1); predict gives
    # it the most frequent class among the other nodes: "b" (5 nodes) over "a" (3).
    edges = [("x", "u"), ("x", "w"), ("v", "y"), ("y", "w2"), ("y", "w3"), ("y", "w4"),
             ("p", "q")]
    peer = PeerClassifier("diffusion").fit(edges, {"x": "a", "y": "b"})
    position = {node: i for i, node in enumerate(peer.nodes_)}
    assert peer.labels_[[position["p"], position["q"]]].tolist() == [-1, -1]
    assert peer.predict(["p", "q", "u", "w3"]).tolist() == ["b", "b", "a", "b"]


@needs_sknetwork
def test_peer_on_a_graph_without_edges_keeps_the_known_labels():
    # scikit-network refuses an adjacency without entries; no vote can travel anyway.
    clf = PeerClassifier().fit(np.zeros((4, 4)), [0, 1, 1, -1])
    assert clf.estimator_ is None
    assert clf.predict().tolist() == [0, 1, 1, 1]


def test_bad_parameters_are_refused_before_scikit_network_is_needed():
    with pytest.raises(ValueError, match="The 'method' parameter of PeerClassifier must be a "
                                         "str among .*Got 'nope' instead"):
        PeerClassifier("nope").fit(EDGES, {"a": "x", "d": "y"})
    with pytest.raises(ValueError, match="The 'directed' parameter of PeerClassifier"):
        PeerClassifier(directed="yes").fit(EDGES, {"a": "x", "d": "y"})


@needs_sknetwork
def test_one_labelled_class_is_refused():
    with pytest.raises(ValueError, match="at least 2 classes must have labelled nodes, got 1"):
        PeerClassifier().fit(EDGES, {"a": "x", "d": "x"})
