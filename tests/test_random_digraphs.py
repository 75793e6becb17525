"""Property-based tests: node classifiers on random small digraphs of every input form.

Every input either raises a clear ValueError or TypeError, or gives finite predictions
for every node; valid inputs (at least one node, finite non-negative weights, two
classes among the labelled nodes) never raise. Graphs have at most 8 nodes so that
every example runs in milliseconds; the deadline catches anything that hangs.
"""

import math
import warnings
from datetime import timedelta

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import sparse

from digraph_askls import NodeClassifier
from digraph_askls.models._node_cv import NodeClassifierCV
from digraph_askls.peers import PeerClassifier

MAX_NODES = 8
SETTINGS = settings(max_examples=40, deadline=timedelta(seconds=5), database=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _name(kind, i):
    return {"int": i, "str": f"n{i}", "tuple": ("n", i)}[kind]


@st.composite
def digraphs(draw):
    """(graph input, nodes, fit keywords, whether the weights are valid)."""
    n = draw(st.integers(0, MAX_NODES))
    kind = draw(st.sampled_from(["int", "str", "tuple"]))
    nodes = [_name(kind, i) for i in range(n)]
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=3 * n)) if n else []   # self-loops and repeats included
    weighting = draw(st.sampled_from(["none", "positive", "with zero", "negative", "nan"]))
    weights = {"none": lambda: 1.0, "positive": lambda: draw(st.floats(0.1, 10.0)),
               "with zero": lambda: draw(st.sampled_from([0.0, 1.0, 2.5])),
               "negative": lambda: draw(st.sampled_from([-1.0, 1.0])),
               "nan": lambda: draw(st.sampled_from([math.nan, 1.0]))}[weighting]
    edges = [(nodes[u], nodes[v], weights()) for u, v in pairs]
    form = draw(st.sampled_from(["digraph", "multidigraph", "edge list", "weighted edge list",
                                 "sparse"]))
    keywords = {}
    if form in ("digraph", "multidigraph"):
        graph = nx.MultiDiGraph() if form == "multidigraph" else nx.DiGraph()
        graph.add_nodes_from(nodes)    # isolated nodes too
        graph.add_weighted_edges_from(edges)
        if form == "digraph":          # a repeated pair keeps its last weight
            edges = [(u, v, d["weight"]) for u, v, d in graph.edges(data=True)]
    elif form == "sparse":
        index = {node: i for i, node in enumerate(nodes)}
        rows = [index[u] for u, _, _ in edges]
        cols = [index[v] for _, v, _ in edges]
        graph = sparse.csr_array(([w for *_, w in edges], (rows, cols)), shape=(n, n))
        keywords["nodelist"] = nodes   # rows named by the nodes (duplicates summed)
    else:
        graph = ([(u, v) for u, v, _ in edges] if form == "edge list"
                 else [(u, v, w) for u, v, w in edges])
        if form == "edge list":
            edges = [(u, v, 1.0) for u, v, _ in edges]
        keywords["nodelist"] = nodes   # the isolated nodes too
    valid = n > 0 and all(w >= 0 for *_, w in edges)   # False for NaN too
    return graph, nodes, keywords, valid


@st.composite
def labellings(draw, nodes):
    """Labels of ``nodes`` as a list (None or -1 unlabelled) or a dict, and their classes."""
    n = len(nodes)
    names = draw(st.sampled_from([["a", "b", "c"], [0, 1, 2]]))
    kind = draw(st.sampled_from(["random", "one class", "every node", "one per class"]))
    if kind == "one per class" and n:
        k = draw(st.integers(1, min(3, n)))
        chosen = draw(st.permutations(range(n)))[:k]
        values = [None] * n
        for code, node in enumerate(chosen):
            values[node] = names[code]
    elif kind == "one class":
        values = [draw(st.sampled_from([names[0], None])) for _ in range(n)]
    else:
        pool = names[:draw(st.integers(2, 3))]
        if kind == "random":
            pool = pool + [None]
        values = [draw(st.sampled_from(pool)) for _ in range(n)]
    classes = {value for value in values if value is not None}
    form = draw(st.sampled_from(["list", "dict"]))
    if form == "dict":
        labels = {node: value for node, value in zip(nodes, values) if value is not None}
    elif isinstance(names[0], int):
        labels = np.array([-1 if value is None else value for value in values], dtype=int)
    else:
        labels = values
    return labels, classes


def _fit_or_raise(make, graph, nodes, keywords, valid, labels, classes):
    """Fit; a valid input must fit, an invalid one must raise ValueError or TypeError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # singular systems and convergence are reported
        try:
            return make().fit(graph, labels, **keywords)
        except (ValueError, TypeError) as error:
            assert str(error), "an error without a message"
            assert not (valid and len(classes) >= 2), f"valid input rejected: {error!r}"
            return None


def _check_predictions(clf, nodes):
    predicted = clf.predict()
    assert len(predicted) == len(nodes)
    assert set(predicted.tolist()) <= set(clf.classes_.tolist())
    return predicted


@pytest.mark.timeout(60)
@pytest.mark.parametrize("params", [
    dict(),                                        # the default: PageRank series, joint
    dict(merge="average", kernel="in_degree"),
    dict(preset="paper"),                          # 1-hop kernel, gamma = 1, stacking
    dict(merge="stack_train", kernel="ppr_out", gamma=1.0),
], ids=["default", "average", "paper", "stack_train"])
@SETTINGS
@given(data=st.data())
def test_node_classifier_fits_or_says_why(params, data):
    graph, nodes, keywords, valid = data.draw(digraphs())
    labels, classes = data.draw(labellings(nodes))
    clf = _fit_or_raise(lambda: NodeClassifier(random_state=0, **params), graph, nodes,
                        keywords, valid, labels, classes)
    if clf is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check_predictions(clf, nodes)
        scores = clf.decision_function()
        assert scores.shape[0] == len(nodes) and np.all(np.isfinite(scores))
        views = clf.decision_function(view="both")
        assert all(np.all(np.isfinite(value)) for value in views.values())
        if clf.estimator_.merge != "average":
            proba = clf.predict_proba(nodes)
            assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)


@pytest.mark.timeout(60)
@settings(SETTINGS, max_examples=20)
@given(data=st.data())
def test_node_classifier_cv_fits_or_says_why(data):
    graph, nodes, keywords, valid = data.draw(digraphs())
    labels, classes = data.draw(labellings(nodes))
    codes = [value for value in (labels.values() if isinstance(labels, dict) else labels)
             if value is not None and not (isinstance(value, (int, np.integer)) and value < 0)]
    counts = [codes.count(c) for c in set(codes)]
    enough = len(counts) >= 2 and min(counts) >= 2   # cv=2 folds need 2 nodes per class
    clf = _fit_or_raise(
        lambda: NodeClassifierCV({"gamma": [0.01, 1.0]}, cv=2, random_state=0,
                                 base_params={"merge": "average", "kernel": "in_degree"}),
        graph, nodes, keywords, valid and enough, labels, classes)
    if clf is not None:
        _check_predictions(clf, nodes)


@pytest.mark.timeout(60)
@settings(SETTINGS, max_examples=20)
@given(data=st.data())
def test_peer_classifier_fits_or_says_why(data):
    pytest.importorskip("sknetwork")
    graph, nodes, keywords, valid = data.draw(digraphs())
    labels, classes = data.draw(labellings(nodes))
    clf = _fit_or_raise(lambda: PeerClassifier(), graph, nodes, keywords, valid, labels,
                        classes)
    if clf is not None:
        _check_predictions(clf, nodes)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kernel", ["sne", "t"])
@settings(SETTINGS, max_examples=25)
@given(data=st.data())
def test_vector_kernel_classifier_on_ties_and_constant_columns(kernel, data):
    # Repeated samples, constant columns and a single distinct point: the data-driven
    # bandwidth and the solver's singular fallback keep every score finite.
    from hypothesis.extra.numpy import arrays

    from digraph_askls import AsKLSClassifier

    n = data.draw(st.integers(2, 10))
    values = st.sampled_from([0.0, 1.0, -2.0, 1e-8, 1e6])
    X = data.draw(arrays(np.float64, (n, 3), elements=values))
    y = data.draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
    if len(set(y)) < 2:
        with pytest.raises(ValueError, match="at least 2 classes"):
            AsKLSClassifier(kernel=kernel).fit(X, y)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = AsKLSClassifier(kernel=kernel).fit(X, y)
        assert np.all(np.isfinite(clf.decision_function(X)))
        assert set(clf.predict(X).tolist()) <= {"a", "b"}


@st.composite
def node_features(draw, n):
    """Features of ``n`` nodes in one of several forms, and whether they are valid."""
    from hypothesis.extra.numpy import arrays

    d = draw(st.integers(1, 4))
    kind = draw(st.sampled_from(["dense", "sparse", "constant columns", "zero rows", "nan",
                                 "inf", "wrong rows"]))
    values = st.sampled_from([0.0, 1.0, 2.0, -0.5, 1e-9])
    X = draw(arrays(np.float64, (n, d), elements=values))
    if kind == "constant columns":
        X[:, :] = X[:1, :] if n else X
    elif kind == "zero rows" and n:
        X[::2] = 0.0
    elif kind == "nan" and n:
        X[0, 0] = np.nan
    elif kind == "inf" and n:
        X[-1, -1] = np.inf
    elif kind == "wrong rows":
        X = np.vstack([X, np.ones((1, d))])
    if kind == "sparse":
        X = sparse.csr_array(X)
    return X, kind not in ("nan", "inf", "wrong rows")


@pytest.mark.timeout(60)
@settings(SETTINGS, max_examples=40)
@given(data=st.data())
def test_node_classifier_with_random_features_fits_or_says_why(data):
    # Features in every form, bad ones included: the default's selection (attribute,
    # walk and link-profile kernels) either says why it cannot fit or predicts every
    # node with finite scores.
    graph, nodes, keywords, valid = data.draw(digraphs())
    labels, classes = data.draw(labellings(nodes))
    X, valid_features = data.draw(node_features(len(nodes)))
    clf = _fit_or_raise(lambda: NodeClassifier(random_state=0), graph, nodes,
                        dict(keywords, features=X), valid and valid_features, labels,
                        classes)
    if clf is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check_predictions(clf, nodes)
        assert np.all(np.isfinite(clf.decision_function()))
        if clf.estimator_.merge != "average":      # too few labelled nodes: no stacker
            assert np.all(np.isfinite(clf.predict_proba(nodes)))
