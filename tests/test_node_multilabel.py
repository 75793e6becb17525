"""Multi-label targets in ``NodeClassifier``: several labels per node, one ``+1`` /
``-1`` column per label through the same system; micro-F1 chooses by default."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import f1_score

from digraph_askls import AsKLSClassifier, KernelViews, NodeClassifier
from digraph_askls.kernels import restrict_kernel


def overlapping_sbm(n=300, k=4, seed=0):
    """A directed SBM where each node belongs to two of ``k`` blocks and a link i -> j
    is the likelier the more blocks the two share (each direction drawn on its own)."""
    rng = np.random.default_rng(seed)
    member = np.zeros((n, k), dtype=int)
    for i in range(n):
        member[i, rng.choice(k, 2, replace=False)] = 1
    shared = member @ member.T
    probability = np.where(shared > 0, 0.08 * shared, 0.005)
    adjacency = (rng.uniform(size=(n, n)) < probability).astype(float)
    np.fill_diagonal(adjacency, 0.0)
    Y = member.copy()
    hidden = np.sort(rng.choice(n, n // 2, replace=False))
    Y[hidden] = -1
    return sp.csr_array(adjacency), member, Y, hidden


def _fit(adjacency, Y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return NodeClassifier(random_state=0, **params).fit(adjacency, Y)


def test_two_memberships_per_node_are_recovered():
    adjacency, member, Y, hidden = overlapping_sbm()
    clf = _fit(adjacency, Y)
    predicted = clf.predict()
    assert predicted.shape == member.shape and set(np.unique(predicted)) <= {0, 1}
    assert f1_score(member[hidden], predicted[hidden], average="micro") >= 0.9
    assert clf.selection_["scoring"] == "f1_micro"
    proba = clf.predict_proba(list(hidden[:20]))
    assert proba.shape == (20, member.shape[1])
    assert np.all((proba >= 0) & (proba <= 1))
    assert not np.allclose(proba.sum(axis=1), 1.0)        # one probability per label


def test_average_merge_equals_the_multilabel_estimator_on_the_chosen_block():
    adjacency, _, Y, _ = overlapping_sbm(160)
    clf = _fit(adjacency, Y, kernel="in_degree", gamma=0.5, merge="average")
    train = clf.train_nodes_
    K = restrict_kernel(clf.kernel_, np.arange(160), np.arange(160)).toarray()
    reference = AsKLSClassifier(gamma=0.5).fit(K[np.ix_(train, train)], Y[train])
    views = KernelViews(K[:, train], K[train, :])
    decision = reference.decision_function(views)
    np.testing.assert_allclose(clf.decision_function(), decision, atol=1e-10)
    assert np.array_equal(clf.predict(), (decision > clf.thresholds_).astype(int))


def test_thresholds_give_each_label_its_best_f1():
    from digraph_askls.models.selection._multilabel import label_thresholds

    rng = np.random.default_rng(0)
    decision = rng.standard_normal((200, 3))
    Y = (decision + rng.standard_normal((200, 3)) > 1.0).astype(int)
    thresholds = label_thresholds(decision, Y)
    for label in range(3):
        best = f1_score(Y[:, label], decision[:, label] > thresholds[label])
        for cut in np.linspace(-3, 3, 121):
            assert f1_score(Y[:, label], decision[:, label] > cut, zero_division=0) <= best + 1e-12


def test_sparse_and_dict_targets_give_the_same_fit():
    adjacency, member, Y, _ = overlapping_sbm(160)
    dense = _fit(adjacency, Y, kernel="in_degree", gamma=0.5, merge="average")
    labelled = np.flatnonzero(Y[:, 0] >= 0)
    as_dict = {int(i): [f"b{c}" for c in np.flatnonzero(member[i])] for i in labelled}
    named = _fit(adjacency, as_dict, kernel="in_degree", gamma=0.5, merge="average")
    assert named.classes_.tolist() == ["b0", "b1", "b2", "b3"]
    assert np.array_equal(named.predict(), dense.predict())
    # A sparse indicator: every row labelled (a row of zeros has no label).
    full = _fit(adjacency, sp.csr_array(member), kernel="in_degree", gamma=0.5,
                merge="average")
    assert full.train_nodes_.size == 160


@pytest.mark.parametrize("scoring", ["f1_macro", "f1_samples"])
def test_another_f1_chooses_when_asked(scoring):
    adjacency, _, Y, _ = overlapping_sbm(160)
    clf = _fit(adjacency, Y, kernel="in_degree", scoring=scoring)
    assert clf.selection_["scoring"] == scoring
    assert max(clf.cv_results_["mean_test_score"]) == clf.selection_["score"]


def test_bad_multilabel_input_is_a_clear_error():
    adjacency, _, Y, _ = overlapping_sbm(120)
    bad = Y.copy()
    bad[0, 0] = 2
    with pytest.raises(ValueError, match="only -1, 0, 1"):
        _fit(adjacency, bad)
    mixed = Y.copy()
    labelled = np.flatnonzero(Y[:, 0] >= 0)[0]
    mixed[labelled, 0] = -1
    with pytest.raises(ValueError, match="mixing -1 with 0/1"):
        _fit(adjacency, mixed)
    with pytest.raises(ValueError, match="class_weight is not defined for a multi-label"):
        _fit(adjacency, Y, class_weight="balanced")
    with pytest.raises(ValueError, match="not defined for a multi-label"):
        _fit(adjacency, Y, merge="joint")
    with pytest.raises(ValueError, match="f1_micro"):
        _fit(adjacency, Y, scoring="roc_auc")


def test_the_guide_page_runs_as_shown():
    import contextlib
    import io
    import re
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "guide" / "targets.md"
    # the page's opening example (its other examples run in test_docs_examples)
    code = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)[0]
    output = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(output):
        warnings.simplefilter("ignore")
        exec(compile(code, str(page), "exec"), {})
    lines = output.getvalue().splitlines()
    # the balanced accuracy the page prints is the one it states in its comment
    stated, = re.findall(r"\), 3\)\)\s+# (\d\.\d+)", code)
    assert lines[0] == stated and lines[-1] == "f1_micro"
    assert lines[1] == "True" and lines[2] == "(300, 3) True"


def test_two_labels_keep_a_column_each():
    adjacency, _, Y, _ = overlapping_sbm(160)
    clf = NodeClassifier(kernel="in_degree", gamma=0.5, merge="average").fit(
        adjacency, Y[:, :2], features=False)
    assert clf.predict().shape == (160, 2)
    assert clf.decision_function().shape == (160, 2)
    assert clf.decision_function(view="source").shape == (160, 2)
    assert clf.predict_proba().shape == (160, 2)


def test_a_graphs_label_matrix_is_its_target():
    from digraph_askls.graph import Graph

    adjacency, member, Y, _ = overlapping_sbm(120)
    nodes = list(range(120))
    graph = Graph(adjacency, np.full(120, -1), nodes, ["w", "x", "y", "z"],
                  label_matrix=sp.csr_array(member))
    clf = NodeClassifier(kernel="in_degree", gamma=0.5, merge="average").fit(graph)
    assert clf.classes_.tolist() == ["w", "x", "y", "z"]
    assert clf.train_nodes_.size == 120
    hide = NodeClassifier(kernel="in_degree", gamma=0.5, merge="average").fit(graph, Y)
    assert np.array_equal(hide.train_nodes_, np.flatnonzero(Y[:, 0] >= 0))
