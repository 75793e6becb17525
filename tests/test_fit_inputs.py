"""NodeClassifier.fit takes what users hold: the library's Graph, labels named by node
attribute, and a warning when node attributes go unread."""

import warnings

import networkx as nx
import numpy as np
import pytest

from digraph_askls import NodeClassifier
from digraph_askls.model_selection import class_splits
from digraph_askls.graph import Graph, get_adjacency, get_labels
from digraph_askls.kernels import AttributeKernel, WalkKernel

EDGES = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3), (0, 2), (4, 3)]
FAST = dict(kernel="ppr", gamma=0.01, merge="average")


def two_communities(with_features=True):
    """A Graph of two triangles, nodes named "n0".."n5", labels on four nodes."""
    adjacency, nodes = get_adjacency([(f"n{u}", f"n{v}") for u, v in EDGES])
    codes, names = get_labels({"n0": "a", "n1": "a", "n3": "b", "n4": "b"}, nodes)
    features = (np.eye(2)[[0 if int(node[1:]) < 3 else 1 for node in nodes]]
                if with_features else None)
    return Graph(adjacency, codes, nodes, names, features=features)


def unread_warnings(record):
    return [str(w.message) for w in record if issubclass(w.category, UserWarning)
            and ("not read" in str(w.message) or "does not use" in str(w.message))]


def fit_recording(classifier, *args, **kwargs):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        classifier.fit(*args, **kwargs)
    return classifier, unread_warnings(record)


def test_graph_with_its_own_labels_and_features():
    graph = two_communities()
    clf, warned = fit_recording(NodeClassifier(kernel=AttributeKernel(), merge="average"),
                                graph)
    assert warned == []
    assert clf.nodes_ == graph.node_names and clf._fitted_features == (None, 2)
    # Predictions are the Graph's class codes; nodes are asked for by name.
    assert clf.predict(["n2", "n5"]).tolist() == [0, 1]
    assert clf.predict_proba(["n2", "n5"]).shape == (2, 2)
    assert clf.decision_function(["n2", "n5"]).shape == (2,)
    np.testing.assert_array_equal(clf.predict(), [0, 0, 0, 1, 1, 1])


def test_graph_with_labels_given_equals_the_graph_with_them():
    graph = two_communities()
    labels = np.array([0, -1, -1, 1, -1, -1])
    own = Graph(graph.adjacency, labels, graph.node_names, graph.class_names,
                features=graph.features)
    given = NodeClassifier(random_state=0).fit(graph, labels)
    held = NodeClassifier(random_state=0).fit(own)
    np.testing.assert_array_equal(given.train_nodes_, [0, 3])
    np.testing.assert_array_equal(given.predict(), held.predict())
    np.testing.assert_allclose(given.predict_proba(), held.predict_proba())


def test_graph_fits_as_its_parts_do():
    graph = two_communities()
    whole = NodeClassifier(random_state=0).fit(graph)
    parts = NodeClassifier(random_state=0).fit(graph.adjacency, graph.labels,
                                               features=graph.features)
    np.testing.assert_allclose(whole.decision_function(), parts.decision_function())
    assert repr(whole.selection_["kernel"]) == repr(parts.selection_["kernel"])


def test_graph_with_a_nodelist_reorders_labels_and_features():
    graph = two_communities()
    order = graph.node_names[::-1]
    clf = NodeClassifier(kernel=AttributeKernel(), merge="average").fit(graph,
                                                                        nodelist=order)
    assert clf.nodes_ == order
    assert clf.predict(["n2", "n5"]).tolist() == [0, 1]
    with pytest.raises(ValueError, match="nodelist must hold exactly the 6 nodes"):
        NodeClassifier(**FAST).fit(graph, nodelist=order[:3])


def test_features_false_fits_the_structure_alone_without_a_warning():
    graph = two_communities()
    clf, warned = fit_recording(NodeClassifier(random_state=0), graph, features=False)
    assert warned == [] and clf._fitted_features == (None, None)
    assert not any("Attribute" in repr(kernel) for kernel in clf.cv_results_["kernel"])


def test_features_given_replace_the_graphs():
    graph = two_communities()
    other = np.eye(2)[[1, 1, 1, 0, 0, 0]] + 0.5
    clf = NodeClassifier(kernel=AttributeKernel(), merge="average").fit(graph,
                                                                        features=other)
    assert clf._fitted_features == (None, 2)
    with pytest.raises(TypeError, match="a Graph holds its node attributes in graph.features"):
        NodeClassifier(**FAST).fit(graph, features="x")
    with pytest.raises(TypeError, match="got True"):
        NodeClassifier(**FAST).fit(graph, features=True)


def test_a_structure_kernel_warns_that_the_graphs_features_go_unread():
    graph = two_communities()
    _, warned = fit_recording(NodeClassifier(**FAST), graph)
    assert len(warned) == 1
    assert "the Graph's features (2 columns) are not read" in warned[0]
    assert "features=False" in warned[0]
    _, warned = fit_recording(NodeClassifier(preset="paper"), graph)
    assert len(warned) == 1 and "NamedKernel(name='in_degree')" in warned[0]
    _, warned = fit_recording(NodeClassifier(**FAST), graph, features=False)
    assert warned == []


def test_graph_without_labels_needs_them_elsewhere():
    with pytest.raises(TypeError, match="labels are required .* got a graph of type DiGraph"):
        NodeClassifier(**FAST).fit(nx.DiGraph(EDGES))


def test_new_nodes_of_a_grown_graph():
    graph = two_communities()
    clf = NodeClassifier(kernel=AttributeKernel(), merge="average").fit(graph)
    edges = [(f"n{u}", f"n{v}") for u, v in EDGES] + [("new", "n0"), ("n5", "other")]
    adjacency, nodes = get_adjacency(edges)
    features = np.array([[1.0, 0.0] if node in ("n0", "n1", "n2", "new") else [0.0, 1.0]
                         for node in nodes])
    grown = Graph(adjacency, np.full(len(nodes), -1), nodes, [], features=features)
    # The grown Graph brings its features; fitting without them is refused.
    assert clf.predict(["new", "other"], graph=grown).tolist() == [0, 1]
    np.testing.assert_allclose(clf.predict_proba(["new", "other"], graph=grown),
                               clf.predict_proba(["new", "other"], graph=grown.to_networkx(),
                                                 features=features))
    bare = Graph(adjacency, np.full(len(nodes), -1), nodes, [])
    with pytest.raises(ValueError, match="fitted with node features"):
        clf.predict(["new"], graph=bare)
    structure = NodeClassifier(**FAST).fit(graph, features=False)
    assert structure.predict(["new"], graph=grown).tolist() == [0]


def test_labels_named_by_node_attribute():
    digraph = nx.DiGraph(EDGES)
    nx.set_node_attributes(digraph, {0: "a", 1: "a", 3: "b", 4: "b"}, "club")
    by_name = NodeClassifier(**FAST).fit(digraph, "club")
    by_dict = NodeClassifier(**FAST).fit(digraph, {0: "a", 1: "a", 3: "b", 4: "b"})
    np.testing.assert_array_equal(by_name.train_nodes_, [0, 1, 3, 4])
    np.testing.assert_array_equal(by_name.predict(), by_dict.predict())
    assert by_name.predict([2, 5]).tolist() == ["a", "b"]


def test_labels_named_by_an_attribute_no_node_holds():
    digraph = nx.DiGraph(EDGES)
    nx.set_node_attributes(digraph, {0: "a"}, "club")
    with pytest.raises(ValueError, match=r"labels='klub' names a node attribute that no node "
                                         r"of the graph holds; the nodes hold \['club'\]"):
        NodeClassifier(**FAST).fit(digraph, "klub")
    with pytest.raises(TypeError, match="labels='club' names a node attribute, which needs a "
                                        "networkx graph"):
        NodeClassifier(**FAST).fit(EDGES, "club")


def test_numeric_node_attributes_left_unread_warn():
    digraph = nx.DiGraph(EDGES)
    nx.set_node_attributes(digraph, {n: [1.0, 0.0] if n < 3 else [0.0, 1.0] for n in digraph},
                           "x")
    nx.set_node_attributes(digraph, {n: 2000 + n for n in digraph}, "year")
    labels = {0: "a", 1: "a", 3: "b", 4: "b"}
    _, warned = fit_recording(NodeClassifier(merge="average"), digraph, labels)
    assert warned == ["the nodes hold numeric attribute ['x'], which the fit does not use: "
                      "pass features='x' to use them, or features=False to fit on the "
                      "structure alone"]
    _, warned = fit_recording(NodeClassifier(**FAST), digraph, labels)
    assert len(warned) == 1 and "with a kernel that reads node attributes" in warned[0]
    for features in ("x", False):
        _, warned = fit_recording(NodeClassifier(merge="average"), digraph, labels,
                                  features=features)
        assert warned == []


def test_an_attribute_naming_the_labels_is_not_taken_for_features():
    digraph = nx.DiGraph(EDGES)
    nx.set_node_attributes(digraph, {0: 0.0, 1: 0.0, 3: 1.0, 4: 1.0}, "code")
    _, warned = fit_recording(NodeClassifier(**FAST), digraph, "code")
    assert warned == []


def test_a_walk_kernel_with_given_features_warns():
    graph = two_communities()
    _, warned = fit_recording(NodeClassifier(kernel=WalkKernel(), merge="average"),
                              graph.adjacency, graph.labels, features=graph.features)
    assert len(warned) == 1 and warned[0].startswith("the features given (2 columns)")


def test_integer_positions_on_named_nodes_are_explained():
    clf = NodeClassifier(**FAST).fit(two_communities(), features=False)
    with pytest.raises(ValueError, match="nodes are named .*'n0'.*not numbered"):
        clf.predict([2])


def test_cora_graph_with_20_labels_per_class_uses_its_features(shared):
    graph = shared("cora")
    (_, train, test), = class_splits(graph.labels, 20, 1, 0)
    labels = np.full(graph.n_nodes, -1)
    labels[train] = graph.labels[train]
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        clf = NodeClassifier().fit(graph, labels)
    assert unread_warnings(record) == []
    assert clf._fitted_features == (None, graph.n_features)
    accuracy = np.mean(clf.predict()[test] == graph.labels[test])
    assert 0.77 < accuracy < 0.84, accuracy
    names = [graph.node_names[i] for i in test[:10]]
    np.testing.assert_array_equal(clf.predict(names), clf.predict()[test[:10]])
