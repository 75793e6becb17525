"""Nodes that join the graph after the fit, classified from their kernel rows, no refit."""

import networkx as nx
import numpy as np
import pytest
from scipy import sparse

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.kernels import (AttributeKernel, LinkProfileKernel, RoleKernel,
                                   WalkKernel)

N = 300

KERNELS = {
    "walk": WalkKernel(),
    "link profile": LinkProfileKernel(),
    "link profile maps": LinkProfileKernel(power=1),
    "attributes": AttributeKernel(),
    "directed attributes": AttributeKernel(propagation="directed"),
    "roles": RoleKernel(),
    "role bins": RoleKernel(bins=8),
    "sum": LinkProfileKernel() + 0.1 * RoleKernel(bins=16) + 0.05 * AttributeKernel(hops=0),
    "squared attributes": AttributeKernel(hops=1) ** 2,
    "ppr by name": "ppr",
    "paper's kernel": "in_degree",
    "default": "auto",
}


@pytest.fixture(scope="module")
def problem():
    adjacency, classes = make_directed_sbm(N, 3, 6, p_in=0.7, random_state=0)
    rng = np.random.default_rng(0)
    features = rng.normal(size=(N, 5)) + np.eye(3)[classes] @ rng.normal(size=(3, 5))
    labels = np.where(rng.random(N) < 0.5, classes, -1)
    # The last node is unlabelled, isolated and without attributes.
    adjacency = sparse.lil_array(adjacency)
    adjacency[N - 1, :] = 0
    adjacency[:, N - 1] = 0
    features[N - 1], labels[N - 1] = 0.0, -1
    return sparse.csr_array(adjacency), features, labels, classes


def _with_isolated(adjacency, features, k):
    """The graph with ``k`` isolated nodes ``N .. N + k - 1`` appended, without features."""
    n = adjacency.shape[0] + k
    indptr = np.concatenate([adjacency.indptr, np.full(k, adjacency.indptr[-1])])
    grown = sparse.csr_array((adjacency.data, adjacency.indices, indptr), shape=(n, n))
    return grown, np.vstack([features, np.zeros((k, features.shape[1]))])


@pytest.fixture(scope="module", params=list(KERNELS), ids=list(KERNELS))
def fitted(request, problem):
    adjacency, features, labels, _ = problem
    kernel = KERNELS[request.param]
    clf = NodeClassifier(kernel=kernel, random_state=0).fit(adjacency, labels,
                                                            features=features)
    return request.param, clf


def _tolerance(clf):
    # A fit that kept every node's scores predicts them from sums of the solver's
    # float32 products, the grown-graph path from the final coefficients times the
    # kernel: the same numbers in exact arithmetic, 1e-7 relative apart in float32.
    # Otherwise both paths multiply the same coefficients by the same kernel rows, up to
    # the order of the sums.
    return dict(rtol=1e-5, atol=1e-5) if clf._node_scores is not None else dict(
        rtol=1e-12, atol=1e-12)


def test_the_fitted_graph_through_the_new_node_path_gives_predict(fitted, problem):
    name, clf = fitted
    adjacency, features, _, _ = problem
    assert clf._node_scores is not None if name == "walk" else True
    np.testing.assert_array_equal(clf.predict(graph=adjacency, features=features),
                                  clf.predict())
    np.testing.assert_allclose(clf.decision_function(graph=adjacency, features=features),
                               clf.decision_function(), **_tolerance(clf))
    both = clf.decision_function([0, 5], view="both", graph=adjacency, features=features)
    np.testing.assert_allclose(both["source"], clf.decision_function([0, 5], view="source"),
                               **_tolerance(clf))
    if clf.selection_["merge"] != "average":
        np.testing.assert_allclose(clf.predict_proba(graph=adjacency, features=features),
                                   clf.predict_proba(), **_tolerance(clf))


def test_isolated_nodes_joining_change_no_existing_prediction(fitted, problem):
    _, clf = fitted
    adjacency, features, _, _ = problem
    grown, grown_features = _with_isolated(adjacency, features, 7)
    existing = list(range(N))
    np.testing.assert_array_equal(
        clf.predict(existing, graph=grown, features=grown_features), clf.predict())
    np.testing.assert_allclose(
        clf.decision_function(existing, graph=grown, features=grown_features),
        clf.decision_function(), **_tolerance(clf))
    # The newcomers, without links or attributes, are classified as the fitted graph's
    # own such node.
    newcomers = clf.decision_function(list(range(N, N + 7)), graph=grown,
                                      features=grown_features)
    np.testing.assert_allclose(newcomers, np.repeat(clf.decision_function([N - 1]), 7, axis=0),
                               **_tolerance(clf))


@pytest.mark.parametrize("kernel", [WalkKernel(), LinkProfileKernel(), "ppr", "in_degree"])
def test_a_new_node_without_links_gets_the_prior_class(kernel):
    # Two classes of one and two thirds, the graph informative about them; where the
    # kernel holds nothing between a node and the training nodes, the model answers
    # with what the labels alone say: the class of two thirds.
    adjacency, classes = make_directed_sbm(N, 3, 6, p_in=0.8, random_state=1)
    classes = np.minimum(classes, 1)
    labels = np.where(np.random.default_rng(1).random(N) < 0.6, classes, -1)
    majority = np.bincount(labels[labels >= 0]).argmax()
    assert majority == 1
    clf = NodeClassifier(kernel=kernel, random_state=0).fit(adjacency, labels)
    grown, _ = _with_isolated(sparse.csr_array(adjacency), np.zeros((N, 1)), 1)
    views = clf._where([N], grown, None)[2]          # the kernel blocks of the new node
    assert abs(views.source @ np.ones(views.source.shape[1])).max() == 0   # no kernel row
    assert abs(views.target.T @ np.ones(views.target.shape[0])).max() == 0
    assert clf.predict([N], graph=grown).tolist() == [majority]


def test_new_nodes_are_classified_by_their_links_and_attributes():
    graph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
    nx.set_node_attributes(graph, {n: [1.0, 0.0] if n < 3 else [0.0, 1.0] for n in graph},
                           "x")
    clf = NodeClassifier(kernel=AttributeKernel(hops=1), merge="average").fit(
        graph, {0: "a", 1: "a", 3: "b", 4: "b"}, features="x")
    grown = graph.copy()
    grown.add_edges_from([("paper", 0), ("paper", 1), ("review", 4)])
    grown.nodes["paper"]["x"] = [0.9, 0.1]
    grown.nodes["review"]["x"] = [0.0, 1.0]
    # The attribute name given to fit is read from the grown graph again.
    assert clf.predict(["paper", "review"], graph=grown).tolist() == ["a", "b"]
    proba = clf.decision_function(["paper", "review"], graph=grown)
    assert proba.shape == (2,)


def test_grown_graphs_that_do_not_fit_the_model_are_refused(problem):
    adjacency, features, labels, _ = problem
    clf = NodeClassifier(kernel=AttributeKernel(), gamma=1.0).fit(adjacency, labels,
                                                                  features=features)
    missing = int(clf.train_nodes_[0])
    smaller = nx.from_scipy_sparse_array(adjacency, create_using=nx.DiGraph)
    smaller.remove_node(missing)
    with pytest.raises(ValueError, match=r"must hold every training node of the fit; 1 are "
                                         rf"missing, e.g. \[{missing}\]"):
        clf.predict(graph=smaller, features=np.delete(features, missing, axis=0))
    with pytest.raises(ValueError, match=r"fitted with node features \(5 columns\)"):
        clf.predict(graph=adjacency)
    with pytest.raises(ValueError, match="must have the 5 columns of the fit, got 4"):
        clf.predict(graph=adjacency, features=features[:, :4])
    plain = NodeClassifier(kernel="ppr", gamma=0.01, merge="average").fit(adjacency, labels)
    with pytest.raises(ValueError, match="fitted without node features"):
        plain.predict(graph=adjacency, features=features)
    with pytest.raises(ValueError, match="node 'nowhere' is not in the fitted graph"):
        plain.predict(["nowhere"], graph=adjacency)


def test_cora_nodes_held_out_of_the_fit_score_as_new_nodes_as_in_the_transductive_fit(
        shared):
    # Three draws: on one draw of 270-odd held-out nodes a difference of 0.02 is 5 nodes.
    graph = shared("cora")
    n = graph.n_nodes
    # The family, gamma and merge the default selects on Cora on these draws, given outright
    # to spare the selection's other candidates (benchmarks/bench_new_nodes.py runs the
    # default: same figures).
    kernel = AttributeKernel()
    chosen = {"kernel": kernel, "gamma": 3.0, "merge": "blend", "random_state": 0}
    gaps = []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        held = rng.random(n) < 0.1
        labels = np.where((rng.random(n) < 0.6) & ~held, graph.labels, -1)
        new = np.flatnonzero(held)
        transductive = NodeClassifier(**chosen).fit(
            graph.adjacency, labels, features=graph.features)
        accuracy = np.mean(transductive.predict(new) == graph.labels[new])
        kept = np.flatnonzero(~held)
        inductive = NodeClassifier(**chosen).fit(
            graph.adjacency[kept][:, kept], labels[kept], features=graph.features[kept],
            nodelist=list(kept))
        assert not set(new) & set(inductive.nodes_)
        predicted = inductive.predict(new, graph=graph.adjacency, features=graph.features)
        assert accuracy > 0.85
        gaps.append(np.mean(predicted == graph.labels[new]) - accuracy)
    assert abs(np.mean(gaps)) <= 0.02 and min(gaps) > -0.04, gaps
