"""Edges as a pandas DataFrame and graphs in the edge_index form, into the one converter."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.graph import get_adjacency, get_features

pd = pytest.importorskip("pandas")


class EdgeIndexGraph:
    """A stand-in for a PyTorch Geometric ``Data``: only the attributes the library reads."""

    def __init__(self, edge_index, num_nodes, x=None, y=None, edge_weight=None):
        self.edge_index, self.num_nodes = edge_index, num_nodes
        self.x, self.y = x, y
        if edge_weight is not None:
            self.edge_weight = edge_weight


def _same(a, b):
    return a.shape == b.shape and (a != b).nnz == 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcdefg"), st.sampled_from("abcdefg"),
                          st.floats(0.25, 4.0, width=16)), min_size=1, max_size=15))
def test_a_frame_of_edges_gives_the_edge_list_adjacency_and_node_order(triples):
    expected, nodes = get_adjacency(triples)
    frame = pd.DataFrame(triples, columns=["source", "target", "weight"])
    for form in (frame, frame[["weight", "target", "source"]],
                 frame.rename(columns={"source": "From", "target": "TO"})):
        adjacency, form_nodes = get_adjacency(form)
        assert form_nodes == nodes and _same(adjacency, expected)
    renamed = frame.set_axis(["a", "b", "c"], axis=1)          # read in order
    assert _same(get_adjacency(renamed)[0], expected)
    pattern, _ = get_adjacency(frame, weight=None)
    assert _same(pattern, get_adjacency([edge[:2] for edge in triples], weight=None)[0])
    chosen, _ = get_adjacency(frame.assign(other=1.0), columns=("source", "target", "other"))
    assert _same(chosen, get_adjacency([(s, t) for s, t, _ in triples])[0])


def test_a_frame_with_a_nodelist_or_integer_ids():
    frame = pd.DataFrame({"src": [2, 0, 2], "dst": [1, 2, 0]})
    adjacency, nodes = get_adjacency(frame, n_nodes=4)
    assert nodes == [0, 1, 2, 3] and adjacency.toarray()[2].tolist() == [1, 1, 0, 0]
    adjacency, nodes = get_adjacency(frame, nodelist=[1, 2, 0, 9])
    assert nodes == [1, 2, 0, 9] and adjacency[1, 0] == 1 and adjacency[2, 1] == 1
    assert get_adjacency(frame)[1] == [2, 1, 0]


@pytest.mark.parametrize("frame, kwargs, error, match", [
    (pd.DataFrame({"a": [1], "b": [2], "c": [3], "d": [4]}), {}, ValueError,
     r"cannot tell the source and target columns .* \['a', 'b', 'c', 'd'\]"),
    (pd.DataFrame({"source": ["x", None], "target": ["y", "x"]}), {}, ValueError,
     "edge 1 .* has no source"),
    (pd.DataFrame({"source": ["x"], "target": ["y"], "weight": ["heavy"]}), {}, ValueError,
     "weight 'heavy' .* expected a finite number"),
    (pd.DataFrame({"source": ["x"], "target": ["y"], "weight": [-1.0]}), {}, ValueError,
     r"edge 0 \('x' -> 'y'\) .* weight -1.0 .* expected a finite number >= 0"),
    (pd.DataFrame({"source": ["x"], "target": ["y"]}), {"columns": ("source", "to")},
     ValueError, r"columns \['to'\] are not in the edges DataFrame"),
    (pd.DataFrame({"source": ["x"], "target": ["y"]}), {"nodelist": ["x"]}, ValueError,
     "nodelist must hold every node of the edges, 'y' is missing"),
    (pd.DataFrame({"source": [0], "target": [5]}), {"n_nodes": 3}, ValueError,
     r"node ids must lie in \[0, 3\), got 5"),
])
def test_bad_frames_are_refused_with_a_clear_message(frame, kwargs, error, match):
    with pytest.raises(error, match=match):
        get_adjacency(frame, **kwargs)


def test_an_edge_index_object_is_read_without_torch():
    data = EdgeIndexGraph(np.array([[0, 1, 3], [1, 2, 0]]), num_nodes=5,
                          x=np.eye(5)[:, :3], edge_weight=np.array([1.0, 2.0, 0.5]))
    adjacency, nodes = get_adjacency(data)
    assert nodes == [0, 1, 2, 3, 4]
    assert adjacency.toarray()[[0, 1, 3], [1, 2, 0]].tolist() == [1.0, 2.0, 0.5]
    assert get_adjacency(data, weight=None)[0].sum() == 3
    assert get_adjacency(data, nodelist=list("abcde"))[1] == list("abcde")
    np.testing.assert_array_equal(get_features("x", nodes, data), np.eye(5)[:, :3])
    with pytest.raises(ValueError, match="names an attribute that the EdgeIndexGraph"):
        get_features("y", nodes, data)


@pytest.mark.parametrize("data, error, match", [
    (EdgeIndexGraph(np.array([0, 1]), 2), ValueError, r"shape \(2, n_edges\), got \(2,\)"),
    (EdgeIndexGraph(np.array([[0], [4]]), 3), ValueError, r"indices in \[0, 3\)"),
    (EdgeIndexGraph(np.array([[0.0], [1.0]]), 3), TypeError, "integer node indices"),
    (EdgeIndexGraph(np.array([[0], [1]]), None), ValueError, "num_nodes .* positive"),
    (EdgeIndexGraph(np.array([[0], [1]]), 2, edge_weight=np.ones(3)), ValueError,
     "one weight per edge"),
])
def test_bad_edge_index_objects_are_refused(data, error, match):
    with pytest.raises(error, match=match):
        get_adjacency(data)


def _forms(adjacency, classes, features):
    """The same graph in every form, nodes named by strings where a form allows."""
    names = [f"n{i}" for i in range(adjacency.shape[0])]
    coo = adjacency.tocoo()
    # Rows in the graph's node order first: the order of first appearance is 0..n-1.
    first = [(names[i], names[i]) for i in range(adjacency.shape[0])]
    edges = [(names[i], names[j]) for i, j in zip(coo.row, coo.col)]
    digraph = nx.DiGraph()
    digraph.add_nodes_from(names)
    digraph.add_edges_from(edges)
    frame = pd.DataFrame({"source": [e[0] for e in edges], "target": [e[1] for e in edges]})
    data = EdgeIndexGraph(np.vstack([coo.row, coo.col]), adjacency.shape[0], x=features)
    by_name = pd.DataFrame(features, index=names)
    labels = {name: int(c) for name, c in zip(names, classes) if c >= 0}
    codes = np.asarray(classes)
    return [
        ("csr", adjacency, codes, features, None),
        ("digraph", digraph, labels, by_name, None),
        ("edge list", edges, labels, by_name, names),
        ("frame", frame, labels, by_name, names),
        ("edge_index", data, codes, "x", None),
    ], first


def test_every_input_form_gives_identical_predictions():
    adjacency, classes = make_directed_sbm(240, 3, 5, p_in=0.7, random_state=3)
    adjacency = sparse.csr_array(adjacency)
    rng = np.random.default_rng(0)
    features = rng.normal(size=(240, 4)) + np.eye(3)[classes] @ rng.normal(size=(3, 4))
    labels = np.where(rng.random(240) < 0.5, classes, -1)
    forms, _ = _forms(adjacency, labels, features)
    results = {}
    for name, graph, form_labels, form_features, nodelist in forms:
        clf = NodeClassifier(random_state=0).fit(graph, form_labels, features=form_features,
                                                 nodelist=nodelist)
        results[name] = (clf.predict(), clf.predict_proba())
    reference, proba = results.pop("csr")
    for name, (predicted, probabilities) in results.items():
        np.testing.assert_array_equal(predicted, reference, err_msg=name)
        np.testing.assert_array_equal(probabilities, proba, err_msg=name)


def test_a_pytorch_geometric_data_gives_the_stand_in_predictions():
    torch = pytest.importorskip("torch", reason="torch is not a dependency of the library")
    geometric = pytest.importorskip("torch_geometric.data",
                                    reason="PyTorch Geometric is not installed")
    adjacency, classes = make_directed_sbm(150, 3, 5, p_in=0.7, random_state=4)
    coo = sparse.coo_array(adjacency)
    edge_index = np.vstack([coo.row, coo.col]).astype(np.int64)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(150, 3)).astype(np.float32)
    weights = rng.uniform(0.5, 2.0, size=edge_index.shape[1]).astype(np.float32)
    data = geometric.Data(edge_index=torch.from_numpy(edge_index), x=torch.from_numpy(x),
                          y=torch.from_numpy(classes), num_nodes=150,
                          edge_weight=torch.from_numpy(weights))
    stand_in = EdgeIndexGraph(edge_index, 150, x=x, edge_weight=weights)
    labels = np.where(rng.random(150) < 0.5, data.y.numpy(), -1)
    first = NodeClassifier(random_state=0).fit(data, labels, features="x")
    second = NodeClassifier(random_state=0).fit(stand_in, labels, features="x")
    np.testing.assert_array_equal(first.predict(), second.predict())
    np.testing.assert_array_equal(first.decision_function(), second.decision_function())
    assert _same(get_adjacency(data)[0], get_adjacency(stand_in)[0])
