"""The one graph converter, label encoding and the Graph object."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from digraph_askls.graph import Graph, get_adjacency, get_labels


def _same(a, b):
    return a.shape == b.shape and (a != b).nnz == 0


@st.composite
def weighted_digraphs(draw):
    n = draw(st.integers(1, 8))
    pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    edges = draw(st.dictionaries(pairs, st.floats(0.25, 4.0, width=16), max_size=20))
    return n, edges


@settings(max_examples=40, deadline=None)
@given(weighted_digraphs())
def test_all_input_forms_give_the_same_adjacency(graph):
    n, edges = graph
    dense = np.zeros((n, n))
    for (i, j), w in edges.items():
        dense[i, j] = w
    digraph = nx.DiGraph()
    digraph.add_nodes_from(range(n))
    digraph.add_weighted_edges_from((i, j, w) for (i, j), w in edges.items())
    triples = [(i, j, w) for (i, j), w in edges.items()]

    expected, nodes = get_adjacency(dense)
    assert nodes == list(range(n))
    forms = [
        get_adjacency(digraph),
        get_adjacency(sparse.csr_array(dense)),
        get_adjacency(sparse.coo_matrix(dense)),
        get_adjacency(triples, n_nodes=n),
        get_adjacency(triples, nodelist=range(n)),
    ]
    if len(triples) != 3:  # a square array is read as a matrix
        forms.append(get_adjacency(np.array(triples, dtype=float).reshape(-1, 3), n_nodes=n))
    for adjacency, form_nodes in forms:
        assert isinstance(adjacency, sparse.csr_array)
        assert adjacency.dtype == np.float64 and adjacency.has_canonical_format
        assert form_nodes == nodes
        assert _same(adjacency, expected)


@settings(max_examples=30, deadline=None)
@given(weighted_digraphs(), st.randoms(use_true_random=False))
def test_nodelist_permutes_rows_and_columns(graph, random):
    n, edges = graph
    digraph = nx.DiGraph()
    digraph.add_nodes_from(range(n))
    digraph.add_weighted_edges_from((i, j, w) for (i, j), w in edges.items())
    order = list(range(n))
    random.shuffle(order)
    base, _ = get_adjacency(digraph)
    permuted, nodes = get_adjacency(digraph, nodelist=order)
    assert nodes == order
    assert _same(permuted, base[order][:, order])


def test_edge_list_of_hashables_uses_first_appearance():
    adjacency, nodes = get_adjacency([("x", (1, 2)), ((1, 2), "x"), ("z", "x")])
    assert nodes == ["x", (1, 2), "z"]
    assert adjacency.toarray().tolist() == [[0, 1, 0], [1, 0, 0], [1, 0, 0]]


def test_edge_list_duplicates_are_summed_and_nodelist_adds_isolated_nodes():
    adjacency, nodes = get_adjacency([("a", "b"), ("a", "b", 2.0)], nodelist=["c", "b", "a"])
    assert nodes == ["c", "b", "a"]
    assert adjacency.toarray().tolist() == [[0, 0, 0], [0, 0, 0], [0, 3, 0]]


def test_integer_edge_array_with_n_nodes_keeps_ids():
    adjacency, nodes = get_adjacency(np.array([[3, 0], [0, 2], [2, 0]]), n_nodes=5)
    assert nodes == [0, 1, 2, 3, 4]
    assert adjacency.shape == (5, 5) and adjacency[3, 0] == 1 and adjacency.nnz == 3


def test_undirected_graph_gives_symmetric_adjacency():
    adjacency, _ = get_adjacency(nx.path_graph(4))
    assert _same(adjacency, adjacency.T)
    assert adjacency.nnz == 6


def test_weight_attribute_and_unweighted():
    digraph = nx.DiGraph()
    digraph.add_edge(0, 1, weight=5.0, cost=2.0)
    assert get_adjacency(digraph)[0][0, 1] == 5.0
    assert get_adjacency(digraph, weight="cost")[0][0, 1] == 2.0
    assert get_adjacency(digraph, weight=None)[0][0, 1] == 1.0
    assert get_adjacency(np.array([[0, 7.0], [0, 0]]), weight=None)[0][0, 1] == 1.0


def test_boolean_matrix_is_a_pattern():
    adjacency, _ = get_adjacency(np.array([[False, True], [False, False]]))
    assert adjacency.dtype == np.float64 and adjacency.toarray().tolist() == [[0, 1], [0, 0]]


def test_zero_weights_are_not_stored():
    adjacency, _ = get_adjacency(sparse.csr_array(([0.0, 1.0], ([0, 1], [1, 0])), shape=(2, 2)))
    assert adjacency.nnz == 1


@pytest.mark.parametrize(
    "graph, kwargs, error, match",
    [
        (np.zeros((3, 4)), {}, ValueError, r"shape \(E, 2\) or \(E, 3\), got .*\(3, 4\)"),
        (sparse.csr_array((2, 3)), {}, ValueError, r"square, got shape \(2, 3\)"),
        (np.zeros((4, 5)), {}, ValueError, r"got an array of shape \(4, 5\)"),
        (np.array([[0, -1.0], [0, 0]]), {}, ValueError, "got -1.0 on the edge 0 -> 1"),
        (np.array([[0, np.nan], [0, 0]]), {}, ValueError, "finite"),
        ([(0, 1, np.inf)], {}, ValueError, "finite"),
        (np.zeros((0, 0)), {}, ValueError, "at least one node, got 0"),
        ([], {}, ValueError, "at least one node, got 0"),
        ([(0, 1, 2, 3)], {}, ValueError, r"pairs .* or triples .*got the item \(0, 1, 2, 3\)"),
        ([0, 1], {}, ValueError, "got the item 0"),
        ([("a", "b")], {"nodelist": ["a", "a", "b"]}, ValueError, r"duplicates, got \['a'\]"),
        ([("a", "b")], {"nodelist": ["a"]}, ValueError, "'b' is missing"),
        (nx.DiGraph([(0, 1)]), {"nodelist": [0]}, ValueError, r"missing from nodelist: \[1\]"),
        (nx.DiGraph([(0, 1)]), {"nodelist": [0, 1, 2]}, ValueError, r"not in the graph: \[2\]"),
        (np.eye(2), {"nodelist": ["a"]}, ValueError, "2 rows .* got 1"),
        ([(0, 5)], {"n_nodes": 3}, ValueError, r"\[0, 3\), got 5"),
        ([("a", "b")], {"n_nodes": 2}, TypeError, "integers in"),
        (nx.DiGraph([(0, 1)]), {"n_nodes": 3}, ValueError, "n_nodes=3 but the graph has 2"),
        (np.array([["a", "b"], ["c", "d"]]), {}, TypeError, "numbers, got dtype <U1"),
        ("ab", {}, TypeError, "got str"),
        ({0: 1}, {}, TypeError, "got dict"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(graph, kwargs, error, match):
    with pytest.raises(error, match=match):
        get_adjacency(graph, **kwargs)


def test_an_empty_networkx_graph_is_a_value_error():
    # networkx itself raises NetworkXError, which callers catching ValueError miss.
    with pytest.raises(ValueError, match="at least one node, got 0 nodes"):
        get_adjacency(nx.DiGraph())


def test_labels_from_mapping_and_sequence():
    nodes = ["a", "b", "c", "d"]
    codes, names = get_labels({"d": "y", "a": "x", "b": None}, nodes)
    assert codes.tolist() == [0, -1, -1, 1] and names == ["x", "y"]
    codes, names = get_labels(np.array([2.0, -1.0, 7.0, 2.0]), nodes)
    assert codes.tolist() == [0, -1, 1, 0] and names == [2, 7]
    codes, names = get_labels([("t", 1), "s", ("t", 1), None], nodes)
    assert codes.dtype == np.int64 and codes.tolist() == [0, 1, 0, -1]
    assert names == [("t", 1), "s"]  # not comparable: first appearance


def test_labels_errors():
    with pytest.raises(ValueError, match=r"not in the graph, e.g. \['z'\]"):
        get_labels({"z": 1}, ["a"])
    with pytest.raises(ValueError, match=r"one entry per node \(2\), got 3"):
        get_labels([0, 1, 1], ["a", "b"])
    with pytest.raises(TypeError, match="got int"):
        get_labels(3, ["a"])


@pytest.mark.parametrize("labels, error, match", [
    # NaN is not a mark of an unlabelled node (-1 and None are): it raises wherever it is.
    (np.array([0.0, np.nan, 1.0]), ValueError, r"must not be NaN \(node 'b'\): mark unlabelled"),
    ([0, float("nan"), 1], ValueError, r"must not be NaN \(node 'b'\)"),
    ({"a": 0, "c": np.nan}, ValueError, r"must not be NaN \(node 'c'\)"),
    (np.array(["x", None, np.nan], dtype=object), ValueError, r"must not be NaN \(node 'c'\)"),
    (np.full(3, np.nan), ValueError, "must not be NaN"),
    (np.array([0.0, 0.5, 1.0]), ValueError, r"whole numbers \(class codes\), got 0.5 for node 'b'"),
    (np.array([0.0, np.inf, 1.0]), ValueError, "whole numbers"),
    (np.zeros((3, 2)), ValueError, r"one-dimensional \(one label per node\), got shape \(3, 2\)"),
    (np.zeros((3, 1, 1)), ValueError, "one-dimensional"),
    ([[0], [1], [0]], TypeError, r"hashable .* got list \[0\] for node 'a'"),
    ({"a": {1}}, TypeError, "hashable .* got set"),
])
def test_bad_labels_are_reported(labels, error, match):
    with pytest.raises(error, match=match):
        get_labels(labels, ["a", "b", "c"])


def test_a_column_of_labels_is_flattened_with_a_warning():
    from sklearn.exceptions import DataConversionWarning

    with pytest.warns(DataConversionWarning, match=r"shape \(3, 1\) .* flattened"):
        codes, names = get_labels(np.array([[1], [-1], [2]]), ["a", "b", "c"])
    assert codes.tolist() == [0, -1, 1] and names == [1, 2]


def test_graph_checks_and_round_trip():
    adjacency, nodes = get_adjacency([("a", "b", 2.0), ("b", "b")], nodelist=["a", "b", "c"])
    labels, names = get_labels({"a": 0, "c": 1}, nodes)
    graph = Graph(adjacency, labels, nodes, names, name="toy")
    assert (graph.n_nodes, graph.n_edges, graph.n_classes) == (3, 2, 2)
    digraph = graph.to_networkx()
    assert _same(get_adjacency(digraph, nodelist=nodes)[0], adjacency)
    assert digraph.nodes["c"]["label"] == 1 and "label" not in digraph.nodes["b"]
    assert "n_edges=2" in repr(graph)
    with pytest.raises(AttributeError):
        graph.name = "other"
    with pytest.raises(ValueError, match=r"labels must lie in \[-1, 2\)"):
        Graph(adjacency, np.array([0, 5, 1]), nodes, names)
    with pytest.raises(ValueError, match=r"shape \(3,\), got int64 of shape \(2,\)"):
        Graph(adjacency, np.array([0, 1]), nodes, names)
    with pytest.raises(TypeError, match="csr_array"):
        Graph(adjacency.toarray(), labels, nodes, names)
