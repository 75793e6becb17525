"""Weighted digraphs: how the edge weights enter the kernels (raw, log1p, 0/1), the choice
the selection makes among them, every input form keeping them, and bad weights refused."""

import warnings

import networkx as nx
import numpy as np
import pytest
from scipy import sparse

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.graph import Graph, get_adjacency
from digraph_askls.kernels import (AttributeKernel, InDegreeKernel, LinkProfileKernel,
                                   RoleKernel, VoteKernel, WalkKernel)
from digraph_askls.kernels._weights import has_equal_weights, transform_weights
from digraph_askls.models.selection._weights import screen_weights, with_weights

pd = pytest.importorskip("pandas")


class EdgeIndexGraph:
    """A stand-in for a PyTorch Geometric ``Data``: only the attributes the library reads."""

    def __init__(self, edge_index, num_nodes, edge_weight=None):
        self.edge_index, self.num_nodes = edge_index, num_nodes
        if edge_weight is not None:
            self.edge_weight = edge_weight


def weighted_sbm(kind, seed=0, n_nodes=300, n_classes=3):
    """A directed SBM whose edges carry counts: ``"noise"`` heavy-tailed counts that say
    nothing of the classes, ``"signal"`` counts 8 times larger inside a class. Returns
    the weighted adjacency, the classes and the labels of 30 % of the nodes."""
    adjacency, classes = make_directed_sbm(n_nodes, n_classes, 8.0, p_in=0.55,
                                           random_state=seed)
    coo = sparse.coo_array(adjacency)
    rng = np.random.default_rng(seed + 100)
    if kind == "noise":
        weights = np.floor(rng.pareto(0.8, coo.nnz) + 1)
    else:
        weights = np.floor(rng.pareto(1.5, coo.nnz) + 1)
        weights[classes[coo.row] == classes[coo.col]] *= 8
    weighted = sparse.csr_array((weights, (coo.row, coo.col)), shape=adjacency.shape)
    known = np.full(n_nodes, -1)
    train = np.random.default_rng(seed).choice(n_nodes, int(0.3 * n_nodes), replace=False)
    known[train] = classes[train]
    return weighted, classes, known


def _fit(graph, known, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return NodeClassifier(random_state=0).fit(graph, known, **kwargs)


# -- the transforms as a parameter of the recipes -------------------------------------------

def test_the_default_repr_is_unchanged_and_a_transform_shows():
    assert repr(WalkKernel()) == "WalkKernel()"
    assert repr(WalkKernel(weights="raw")) == "WalkKernel()"
    assert repr(LinkProfileKernel(weights="log1p")) == "LinkProfileKernel(weights='log1p')"
    assert WalkKernel(weights="binary") != WalkKernel()
    with pytest.raises(ValueError, match=r"unknown weights 'log'; choose from \['raw', "
                                         r"'log1p', 'binary'\]"):
        WalkKernel(weights="log").make([(0, 1, 2.0)])


@pytest.mark.parametrize("recipe", [WalkKernel(n_hops=3, dtype="float64"),
                                    VoteKernel(n_hops=3, dtype="float64"), InDegreeKernel(),
                                    LinkProfileKernel(power=1), RoleKernel()])
@pytest.mark.parametrize("weights", ["raw", "log1p", "binary"])
def test_a_recipe_reads_the_graph_with_its_weights_transformed(recipe, weights):
    adjacency, _, _ = weighted_sbm("noise", n_nodes=60)
    by_hand = transform_weights(adjacency, weights)
    expected = {"raw": adjacency.data, "log1p": np.log1p(adjacency.data),
                "binary": np.ones(adjacency.nnz)}[weights]
    np.testing.assert_array_equal(by_hand.data, expected)
    probe = np.random.default_rng(0).standard_normal((60, 2))
    kernel = recipe.set_params(weights=weights).make(adjacency)
    reference = recipe.set_params(weights="raw").make(by_hand)
    np.testing.assert_allclose(kernel @ probe, reference @ probe, rtol=1e-10, atol=1e-12)
    if weights != "raw":     # the weights of this graph change every one of these kernels
        raw = recipe.set_params(weights="raw").make(adjacency)
        assert not np.allclose(kernel @ probe, raw @ probe)


def test_with_weights_sets_every_part_that_reads_weights():
    recipe = LinkProfileKernel() + 0.1 * RoleKernel(bins=16) + 0.05 * AttributeKernel(hops=0)
    parts = with_weights(recipe, "log1p").parts
    assert [getattr(part, "weights") for _, part in parts] == ["log1p", "log1p", "raw"]
    assert repr(parts[2][1]) == "AttributeKernel(hops=0)"
    assert with_weights(WalkKernel() ** 2, "binary").base == WalkKernel(weights="binary")
    assert recipe.parts[0][1].weights == "raw"            # the recipe given is not changed


def test_equal_weights_are_told_apart_from_unequal_ones():
    assert has_equal_weights(get_adjacency([(0, 1, 3.0), (1, 2, 3.0)])[0])
    assert not has_equal_weights(get_adjacency([(0, 1, 3.0), (1, 2, 1.0)])[0])


# -- the choice -------------------------------------------------------------------------------

def test_heavy_counts_that_say_nothing_of_the_classes_are_dropped():
    weighted, classes, known = weighted_sbm("noise")
    clf = _fit(weighted, known)
    screen = clf.selection_["weights_screen"]
    assert max(screen, key=screen.get) == "binary" and screen["binary"] > screen["raw"] + 0.1
    assert "weights='binary'" in repr(clf.selection_["kernel"])
    assert all("weights='binary'" in repr(kernel) for kernel in clf.cv_results_["kernel"])
    test = known < 0
    as_binary = transform_weights(weighted, "binary")
    by_hand = _fit(as_binary, known)
    assert np.mean(clf.predict()[test] == classes[test]) >= np.mean(
        by_hand.predict()[test] == classes[test]) - 0.02


def test_counts_that_carry_the_classes_are_kept():
    weighted, classes, known = weighted_sbm("signal")
    clf = _fit(weighted, known)
    screen = clf.selection_["weights_screen"]
    assert max(screen, key=screen.get) == "raw" and screen["raw"] > screen["binary"] + 0.1
    assert "weights=" not in repr(clf.selection_["kernel"])      # raw: the default
    test = known < 0
    binary = _fit(weighted, known, weight=None)
    assert np.mean(clf.predict()[test] == classes[test]) > np.mean(
        binary.predict()[test] == classes[test])


@pytest.mark.parametrize("value", [1.0, 5.0])
def test_a_graph_whose_edges_weigh_the_same_is_not_screened(value):
    weighted, _, known = weighted_sbm("noise", n_nodes=120)
    weighted.data[:] = value
    recipes = [WalkKernel(), LinkProfileKernel()]
    assert screen_weights(recipes, weighted, np.flatnonzero(known >= 0),
                          known[known >= 0]) == (recipes, None)
    clf = _fit(weighted, known)
    assert clf.selection_["weights_screen"] is None        # the one schema: None
    assert not any("weights=" in repr(kernel) for kernel in clf.cv_results_["kernel"])


def test_recipes_given_keep_their_weights():
    weighted, _, known = weighted_sbm("noise", n_nodes=120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = NodeClassifier(kernel=[WalkKernel(weights="log1p")], random_state=0).fit(
            weighted, known)
    assert clf.selection_["kernel"] == WalkKernel(weights="log1p")
    assert clf.selection_["weights_screen"] is None        # the one schema: None


# -- every input form keeps its weights -------------------------------------------------------

def _forms(adjacency):
    """The same weighted graph in every form ``fit`` takes, nodes 0 .. n-1."""
    coo = sparse.coo_array(adjacency)
    n = adjacency.shape[0]
    triples = list(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist()))
    digraph = nx.DiGraph()
    digraph.add_nodes_from(range(n))
    digraph.add_weighted_edges_from(triples)
    frame = pd.DataFrame(triples, columns=["source", "target", "weight"])
    data = EdgeIndexGraph(np.vstack([coo.row, coo.col]), n, edge_weight=coo.data)
    labels = np.full(n, -1)
    return {"sparse": adjacency, "dense": adjacency.toarray(), "edge list": triples,
            "networkx": digraph, "DataFrame": frame, "edge_index": data,
            "Graph": Graph(get_adjacency(adjacency)[0], labels, list(range(n)), [])}


def test_every_input_form_keeps_the_weights_the_same_way():
    weighted, _, known = weighted_sbm("noise", n_nodes=150)
    expected = _fit(weighted, known)
    for name, form in _forms(weighted).items():
        kwargs = {"nodelist": list(range(150))} if name in ("edge list", "DataFrame") else {}
        adjacency, _ = get_adjacency(form, **kwargs)
        assert (adjacency != get_adjacency(weighted)[0]).nnz == 0, name
        clf = _fit(form, known, **kwargs)
        assert clf.selection_["weights_screen"] == expected.selection_["weights_screen"], name
        assert clf.selection_["kernel"] == expected.selection_["kernel"], name
        np.testing.assert_array_equal(clf.predict(), expected.predict(), err_msg=name)
        dropped = _fit(form, known, weight=None, **kwargs)      # weight=None: 0/1 edges
        assert dropped.selection_["weights_screen"] is None, name


# -- bad weights ------------------------------------------------------------------------------

def _bad_forms(value):
    """A graph a -> b (weight 1), b -> c (weight ``value``), c -> a (weight -2) in every
    form, the nodes a, b, c (0, 1, 2 for the forms without names)."""
    triples = [("a", "b", 1.0), ("b", "c", value), ("c", "a", -2.0)]
    digraph = nx.DiGraph()
    digraph.add_weighted_edges_from(triples)
    matrix = np.array([[0, 1.0, 0], [0, 0, value], [-2.0, 0, 0]])
    return {"edge list": (triples, ("'b'", "'c'")),
            "networkx": (digraph, ("'b'", "'c'")),
            "DataFrame": (pd.DataFrame(triples, columns=["source", "target", "weight"]),
                          ("'b'", "'c'")),
            "edge array": (np.array([[0, 1, 1.0], [1, 2, value], [2, 0, -2.0]]),
                           ("1", "2")),
            "dense": (matrix, ("1", "2")),
            "sparse": (sparse.csr_array(matrix), ("1", "2")),
            "edge_index": (EdgeIndexGraph(np.array([[0, 1, 2], [1, 2, 0]]), 3,
                                          edge_weight=np.array([1.0, value, -2.0])),
                           ("1", "2"))}


@pytest.mark.parametrize("value", [-0.5, np.nan, np.inf])
@pytest.mark.parametrize("form", ["edge list", "networkx", "DataFrame", "edge array", "dense",
                                  "sparse", "edge_index"])
def test_a_bad_weight_names_the_first_offending_edge(form, value):
    graph, (source, target) = _bad_forms(value)[form]
    shown = str(value)
    match = (rf"{source} -> {target}\) of the edges DataFrame has the weight {shown}"
             if form == "DataFrame" else
             rf"finite and >= 0 .* got {shown} on the edge {source} -> {target} "
             rf"\(1 more bad weight after it\)")
    with pytest.raises(ValueError, match=match):
        get_adjacency(graph)
    with pytest.raises(ValueError, match=match):
        NodeClassifier().fit(graph, {"a": 0, "b": 1} if form in ("edge list", "networkx",
                                                                    "DataFrame")
                             else [0, 1, -1])


def test_the_edges_file_refuses_a_bad_weight_naming_its_line(tmp_path):
    from digraph_askls.datasets import load_graph_files

    path = tmp_path / "edges.csv"
    path.write_text("source,target,weight\na,b,1\nb,c,-3\n")
    with pytest.raises(ValueError, match=r"edges.csv:3: expected a weight .* got -3"):
        load_graph_files(path)


@pytest.mark.parametrize("form", ["edge list", "networkx", "DataFrame", "sparse",
                                  "edge_index"])
def test_an_edge_of_weight_zero_is_no_edge(form):
    graph = _bad_forms(0.0)[form][0]
    if form == "sparse":
        graph = sparse.csr_array(np.abs(graph.toarray()))
    elif form == "edge_index":
        graph.edge_weight = np.abs(graph.edge_weight)
    elif form == "networkx":
        graph["c"]["a"]["weight"] = 2.0
    else:
        graph = ([(s, t, abs(w)) for s, t, w in graph] if form == "edge list"
                 else graph.assign(weight=graph["weight"].abs()))
    adjacency, nodes = get_adjacency(graph)
    assert adjacency.nnz == 2 and len(nodes) == 3


# -- the command line -------------------------------------------------------------------------

def test_predict_reads_the_weight_column_it_is_told(tmp_path, capsys):
    from digraph_askls import cli
    from digraph_askls.datasets._files import read_edges

    weighted, classes, known = weighted_sbm("noise", n_nodes=150)
    coo = sparse.coo_array(weighted)
    frame = pd.DataFrame({"source": [f"n{i}" for i in coo.row],
                          "target": [f"n{j}" for j in coo.col],
                          "count": coo.data, "other": np.ones(coo.nnz)})
    frame.to_csv(tmp_path / "edges.csv", index=False)
    labelled = np.flatnonzero(known >= 0)
    pd.DataFrame({"node": [f"n{i}" for i in labelled],
                  "label": classes[labelled]}).to_csv(tmp_path / "labels.csv", index=False)
    adjacency, nodes = read_edges(tmp_path / "edges.csv", weight="count")
    assert sorted(adjacency.data.tolist()) == sorted(coo.data.tolist())
    assert read_edges(tmp_path / "edges.csv", weight=None)[0].data.tolist() == [1.0] * coo.nnz
    with pytest.raises(ValueError, match=r"no column 'amount' of edge weights, the columns "
                                         r"are \['source', 'target', 'count', 'other'\]"):
        read_edges(tmp_path / "edges.csv", weight="amount")
    arguments = ["predict", "--quiet", "--edges", str(tmp_path / "edges.csv"), "--labels",
                 str(tmp_path / "labels.csv"), "--out", str(tmp_path / "out.csv")]
    assert cli.main(arguments + ["--weight", "count"]) == 0
    assert "weights='binary'" in capsys.readouterr().out       # the counts say nothing
    assert cli.main(arguments + ["--weight", "none"]) == 0
    assert "weights=" not in capsys.readouterr().out


def test_a_recipe_saved_before_it_had_weights_reads_them_as_given():
    import pickle

    recipe = LinkProfileKernel(power=1)
    del recipe.weights                       # as unpickled from a version without it
    loaded = pickle.loads(pickle.dumps(recipe))
    assert repr(loaded) == "LinkProfileKernel(power=1)" and loaded == LinkProfileKernel(power=1)
    adjacency, _, _ = weighted_sbm("signal", n_nodes=60)
    probe = np.ones((60, 1))
    np.testing.assert_allclose(loaded.make(adjacency) @ probe,
                               LinkProfileKernel(power=1).make(adjacency) @ probe)


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_the_screen_s_votes_are_the_walk_kernel_s_first_terms(hops):
    from digraph_askls.kernels import get_ppr_kernel
    from digraph_askls.models.selection._weights import walk_votes

    adjacency, _, _ = weighted_sbm("noise", n_nodes=80)
    rng = np.random.default_rng(hops)
    X, Y = rng.standard_normal((80, 3)), rng.standard_normal((80, 2))
    kernel = get_ppr_kernel(adjacency, alpha=0.9, beta=2.0, n_hops=hops)
    forward, backward = walk_votes(adjacency, X, Y, 0.9, 2.0, hops)
    np.testing.assert_allclose(forward, kernel @ X, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(backward, kernel.T @ Y, rtol=1e-12, atol=1e-12)


def test_a_grown_graph_is_read_with_the_weights_chosen():
    weighted, _, known = weighted_sbm("noise")
    clf = _fit(weighted, known)
    assert clf.selection_["kernel"].weights == "binary"
    test = np.flatnonzero(known < 0)
    # The kernel of the grown graph (here the same graph) is the recipe chosen, built on
    # it: the same predictions as the fitted nodes' own scores.
    np.testing.assert_array_equal(clf.predict(test, graph=weighted), clf.predict(test))
