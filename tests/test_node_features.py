"""NodeClassifier with node attributes: every input form, bad input, selection, weights."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.kernels import (AttributeKernel, LinkProfileKernel,
                                   SmoothedAttributeKernel, WalkKernel)
from digraph_askls.models.selection import default_kernels


def problem(seed=0, n=120):
    adjacency, labels = make_directed_sbm(n, 3, 5, p_in=0.5, random_state=seed)
    rng = np.random.default_rng(seed)
    features = rng.random((n, 8)) * 0.5
    features[np.arange(n), labels] += 1.0          # the class shows in the attributes
    known = labels.copy()
    known[rng.random(n) < 0.4] = -1
    return sp.csr_array(adjacency), labels, known, features


def test_attributes_as_array_sparse_dataframe_and_node_attribute_agree():
    pd = pytest.importorskip("pandas")
    adjacency, labels, known, features = problem()
    names = [f"n{i}" for i in range(adjacency.shape[0])]
    graph = nx.DiGraph()
    graph.add_nodes_from((name, {"x": row}) for name, row in zip(names, features))
    coo = adjacency.tocoo()
    graph.add_edges_from((names[i], names[j]) for i, j in zip(coo.row, coo.col))
    label_dict = {names[i]: int(c) for i, c in enumerate(known) if c >= 0}
    frame = pd.DataFrame(features, index=names).iloc[::-1]     # rows in another order
    fits = [
        NodeClassifier(random_state=0).fit(adjacency, known, features=features),
        NodeClassifier(random_state=0).fit(adjacency, known, features=sp.csr_array(features)),
        NodeClassifier(random_state=0).fit(graph, label_dict, features="x"),
        NodeClassifier(random_state=0).fit(graph, label_dict, features=frame),
    ]
    reference = fits[0].decision_function()
    for model in fits[1:]:
        assert model.selection_["kernel"] == fits[0].selection_["kernel"]
        np.testing.assert_allclose(model.decision_function(), reference, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("make_bad, error, match", [
    (lambda X: X[:-1], ValueError, "one row per node"),
    (lambda X: np.where(X > 0.9, np.nan, X), ValueError, "features must be finite"),
    (lambda X: np.where(X > 0.9, np.inf, X), ValueError, "features must be finite"),
    (lambda X: X.astype(str), TypeError, "features must hold numbers"),
    (lambda X: X[:, 0], ValueError, "2-d with one row per node"),
])
def test_bad_attributes_are_refused_with_what_came(make_bad, error, match):
    adjacency, _, known, features = problem()
    with pytest.raises(error, match=match):
        NodeClassifier().fit(adjacency, known, features=make_bad(features))


def test_attribute_names_and_frames_that_miss_nodes_are_refused():
    pd = pytest.importorskip("pandas")
    graph = nx.DiGraph([("a", "b"), ("b", "c")])
    nx.set_node_attributes(graph, {"a": [1.0], "b": [0.0]}, "x")
    labels = {"a": 0, "b": 1}
    with pytest.raises(ValueError, match="1 of 3 nodes have no attribute 'x'"):
        NodeClassifier().fit(graph, labels, features="x")
    with pytest.raises(TypeError, match="names a node attribute, which needs a networkx graph"):
        NodeClassifier().fit(np.eye(3), [0, 1, -1], features="x")
    frame = pd.DataFrame({"f": [1.0, 2.0, 3.0]}, index=["a", "b", "z"])
    with pytest.raises(ValueError, match=r"1 node\(s\) have no row .*'c'.* 1 row\(s\) name no node"):
        NodeClassifier().fit(graph, labels, features=frame)


def test_selection_reports_every_candidate_and_chooses_the_best():
    adjacency, labels, known, features = problem(1)
    model = NodeClassifier(random_state=0).fit(adjacency, known, features=features)
    results = model.cv_results_
    per_class = np.median(np.bincount(known[known >= 0]))
    assert set(results["kernel"]) == set(default_kernels(np.sum(known >= 0), True, per_class))
    assert len(results["gamma"]) == len(results["mean_test_score"]) == len(results["fit_time"])
    best = int(np.argmin(results["rank_test_score"]))
    assert model.selection_["score"] == results["mean_test_score"][best]
    assert model.selection_["kernel"] is results["kernel"][best]
    assert all(t > 0 for t in results["fit_time"])
    test = labels[known < 0] == model.predict(np.flatnonzero(known < 0))
    assert test.mean() > 0.8


def test_one_configuration_is_still_judged_on_folds():
    adjacency, _, known, features = problem(2)
    # One kernel, one gamma and one merge: nothing to choose, but the fit goes through
    # the same folds and reports its held-out accuracy.
    model = NodeClassifier(kernel=LinkProfileKernel(), gamma=10.0, merge="joint",
                           random_state=0).fit(adjacency, known)
    assert model.selection_["engine"] == "spectral" and model.cv_results_["gamma"] == [10.0]
    assert model.selection_["merge"] == "joint" and 0 <= model.selection_["accuracy"] <= 1
    # A merge the folds do not make (here the stackers on leave-one-out scores) is fitted
    # by AsKLSClassifier as asked, and no estimate is claimed.
    fixed = NodeClassifier(kernel=LinkProfileKernel(), gamma=10.0, merge="joint_loo").fit(
        adjacency, known)
    assert fixed.selection_["engine"] == "fixed" and fixed.selection_["accuracy"] is None
    assert fixed.cv_results_["gamma"] == []
    # A walk kernel's gamma 1.0 makes its inner block indefinite: skipped, not solved.
    listed = NodeClassifier(kernel=[WalkKernel(), AttributeKernel(hops=2)], gamma=[0.01, 1.0],
                            random_state=0).fit(adjacency, known, features=features)
    assert listed.cv_results_["gamma"] == [0.01, 0.01, 1.0]
    assert listed.cv_results_["engine"] == ["walk", "spectral", "spectral"]


def test_primal_weights_of_both_views_reproduce_the_decisions():
    adjacency, labels, known, features = problem(3)
    model = NodeClassifier(kernel=AttributeKernel(hops=1, propagation="directed"),
                           gamma=0.1, merge="average").fit(adjacency, known, features=features)
    weights = model.primal_weights()
    assert weights["source"].shape == weights["target"].shape == (3, 16)
    assert weights["feature_names"][8] == "c0h1:0"      # chain 0, one hop, feature 0
    U, V = model.kernel_.factors()
    views = model.decision_function(view="both")
    intercepts = model.estimator_.intercept_                 # (n_classes, 2)
    np.testing.assert_allclose(U @ weights["source"].T + intercepts[:, 0], views["source"],
                               atol=1e-9)
    np.testing.assert_allclose(V @ weights["target"].T + intercepts[:, 1], views["target"],
                               atol=1e-9)
    assert not np.allclose(weights["source"], weights["target"])   # an asymmetric kernel
    with pytest.raises(ValueError, match="no explicit feature maps"):
        NodeClassifier(kernel="ppr", gamma=0.01).fit(adjacency, known).primal_weights()


def test_relabelling_the_nodes_permutes_the_predictions():
    adjacency, labels, known, features = problem(4)
    order = np.random.default_rng(0).permutation(adjacency.shape[0])
    first = NodeClassifier(random_state=0).fit(adjacency, known, features=features)
    permuted = NodeClassifier(random_state=0).fit(adjacency[order][:, order], known[order],
                                                  features=features[order])
    # The default chooses the smoothed attributes here, diffused in float32: the sums of
    # its steps run in node order, so relabelling moves them by float32 rounding.
    assert first.selection_["kernel"] == permuted.selection_["kernel"] \
        == SmoothedAttributeKernel()
    assert first.selection_["gamma"] == permuted.selection_["gamma"]
    np.testing.assert_array_equal(permuted.predict(), first.predict()[order])
    np.testing.assert_allclose(permuted.decision_function(),
                               first.decision_function()[order], rtol=1e-4, atol=1e-5)
    # In float64 steps the same kernel and gamma are equivariant to float64 rounding.
    exact = {"kernel": SmoothedAttributeKernel(dtype="float64"),
             "gamma": first.selection_["gamma"], "random_state": 0}
    first = NodeClassifier(**exact).fit(adjacency, known, features=features)
    permuted = NodeClassifier(**exact).fit(adjacency[order][:, order], known[order],
                                           features=features[order])
    np.testing.assert_allclose(permuted.decision_function(),
                               first.decision_function()[order], rtol=1e-9, atol=1e-11)
