"""Every estimator refuses to work unfitted and refuses bad input with a clear error."""

import networkx as nx
import numpy as np
import pytest
from scipy.sparse.linalg import aslinearoperator
from sklearn.exceptions import DataConversionWarning, NotFittedError

from digraph_askls import AsKLSClassifier, LSSVMClassifier, NodeClassifier
from digraph_askls.models._node_cv import NodeClassifierCV
from digraph_askls.embedding import NERD
from digraph_askls.peers import PeerClassifier

K = np.array([[1.0, 0.8, 0.1, 0.0], [0.8, 1.0, 0.0, 0.2],
              [0.1, 0.0, 1.0, 0.9], [0.0, 0.2, 0.9, 1.0]])
Y = np.array([0, 0, 1, 1])

# (estimator, method or attribute, arguments); every public method that needs a fitted
# model, and every fitted attribute.
UNFITTED = [
    *[(estimator, "predict", (K,)) for estimator in (AsKLSClassifier(), LSSVMClassifier())],
    *[(estimator, "decision_function", (K,))
      for estimator in (AsKLSClassifier(), LSSVMClassifier())],
    *[(estimator, "score", (K, Y)) for estimator in (AsKLSClassifier(), LSSVMClassifier())],
    (AsKLSClassifier(merge="stack"), "predict_proba", (K,)),
    (LSSVMClassifier(calibration="stack"), "predict_proba", (K,)),
    *[(AsKLSClassifier(), name, None)
      for name in ("classes_", "dual_coef_", "intercept_", "solver_result_", "n_iter_")],
    *[(LSSVMClassifier(), name, None) for name in ("classes_", "dual_coef_", "intercept_")],
    (NodeClassifier(), "predict", ()),
    (NodeClassifier(), "predict_proba", ()),
    (NodeClassifier(), "decision_function", ()),
    *[(NodeClassifier(), name, None)
      for name in ("nodes_", "classes_", "kernel_", "train_nodes_", "estimator_", "preset_")],
    (NodeClassifierCV(), "predict", ()),
    *[(NodeClassifierCV(), name, None)
      for name in ("best_params_", "best_score_", "cv_results_", "best_estimator_",
                   "classes_")],
    (PeerClassifier(), "predict", ()),
    *[(PeerClassifier(), name, None) for name in ("estimator_", "labels_", "classes_")],
    (NERD(), "transform", ()),
    *[(NERD(), name, None)
      for name in ("source_embedding_", "target_embedding_", "n_nodes_")],
]


@pytest.mark.parametrize(
    "estimator, name, args", UNFITTED,
    ids=[f"{type(e).__name__}-{name}" for e, name, _ in UNFITTED])
def test_unfitted_estimators_raise_not_fitted_error(estimator, name, args):
    with pytest.raises(NotFittedError, match=f"This {type(estimator).__name__} instance is "
                                             "not fitted yet"):
        value = getattr(estimator, name)
        if args is not None:
            value(*args)


def test_a_missing_attribute_of_a_fitted_estimator_is_a_plain_attribute_error():
    clf = AsKLSClassifier(gamma=10.0).fit(K, Y)
    with pytest.raises(AttributeError) as error:
        clf.stackers_   # only the stacking merges have it
    assert not isinstance(error.value, NotFittedError)
    assert not hasattr(clf, "stackers_") and hasattr(clf, "dual_coef_")


# ---- hyper-parameters: scikit-learn's parameter constraints -------------------------
BAD_PARAMETERS = [
    (AsKLSClassifier, dict(gamma=np.nan), "'gamma' parameter of AsKLSClassifier must be a "
                                          r"float in the range \(0.0, inf\). Got nan"),
    (AsKLSClassifier, dict(gamma=0.0), "'gamma' parameter"),
    (AsKLSClassifier, dict(gamma=np.inf), "'gamma' parameter"),
    (AsKLSClassifier, dict(tol=np.nan), "'tol' parameter"),
    (AsKLSClassifier, dict(tol=-1.0), "'tol' parameter"),
    (AsKLSClassifier, dict(regularization=np.nan), "'regularization' parameter"),
    (AsKLSClassifier, dict(regularization="always"), "'regularization' parameter"),
    (AsKLSClassifier, dict(n_folds=1), "'n_folds' parameter"),
    (AsKLSClassifier, dict(n_folds=2.5), "'n_folds' parameter"),
    (AsKLSClassifier, dict(max_iter=0), "'max_iter' parameter"),
    (AsKLSClassifier, dict(solver="qr"), "'solver' parameter of AsKLSClassifier must be a str "
                                         "among .*Got 'qr' instead"),
    (AsKLSClassifier, dict(kernel="cosine"), "'kernel' parameter"),
    (AsKLSClassifier, dict(kernel=3), "'kernel' parameter"),
    (AsKLSClassifier, dict(preconditioner="amg"), "'preconditioner' parameter"),
    (AsKLSClassifier, dict(random_state="seed"), "'random_state' parameter"),
    (LSSVMClassifier, dict(gamma=np.nan), "'gamma' parameter of LSSVMClassifier"),
    (LSSVMClassifier, dict(calibration="isotonic"), "'calibration' parameter"),
]


@pytest.mark.parametrize("cls, params, match", BAD_PARAMETERS)
def test_bad_hyper_parameters_of_kernel_estimators(cls, params, match):
    with pytest.raises(ValueError, match=match):
        cls(**params).fit(K, Y)


def _graph():
    return nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])


LABELS = {0: "a", 1: "a", 3: "b", 4: "b"}


@pytest.mark.parametrize("params, match", [
    (dict(gamma=np.nan), "'gamma' parameter of NodeClassifier"),
    (dict(gamma=-0.1), "'gamma' parameter"),
    (dict(tol=np.nan), "'tol' parameter"),
    (dict(n_folds=0), "'n_folds' parameter"),
    (dict(merge="vote"), "'merge' parameter"),
    (dict(preset="fast"), "'preset' parameter of NodeClassifier must be a str among .*'fast'"),
    (dict(kernel=None), "'kernel' parameter"),
    (dict(kernel="heat"), r"unknown graph kernel 'heat'; choose from"),
    (dict(kernel="ppr", kernel_params={"alpha": np.nan}),
     r"c must be a number in \[0, 1\], got nan"),
    (dict(kernel="ppr", kernel_params={"beta": -1.0}),
     "beta must be a finite number >= 0, got -1.0"),
    (dict(kernel="ppr", kernel_params={"n_hops": 0}), "n_hops must be an integer >= 1"),
    (dict(kernel_params={"alpha": 0.5}), "kernel_params set the parameters of a kernel given "
                                         "by name"),
    (dict(operator="dask"), "'operator' parameter"),
])
def test_bad_hyper_parameters_of_the_node_classifier(params, match):
    with pytest.raises(ValueError, match=match):
        NodeClassifier(**params).fit(_graph(), LABELS)


@pytest.mark.parametrize("cls, params, match", [
    (NodeClassifierCV, dict(cv=1), "'cv' parameter of NodeClassifierCV"),
    (NodeClassifierCV, dict(param_grid={"gamma": [0.1, np.nan]}),
     "'gamma' parameter of NodeClassifier .* Got nan"),
    (NodeClassifierCV, dict(param_grid="gamma"), "'param_grid' parameter"),
    (PeerClassifier, dict(method="nope"), "'method' parameter of PeerClassifier"),
    (PeerClassifier, dict(directed="yes"), "'directed' parameter"),
])
def test_bad_hyper_parameters_of_the_search_and_the_peer(cls, params, match):
    pytest.importorskip("sknetwork")
    with pytest.raises(ValueError, match=match):
        cls(**params).fit(_graph(), {0: "a", 1: "a", 2: "a", 3: "b", 4: "b", 5: "b"})


# ---- labels ---------------------------------------------------------------------------
@pytest.mark.parametrize("X", [K, aslinearoperator(K)], ids=["array", "operator"])
@pytest.mark.parametrize("y, error, match", [
    ([0.0, 1.0, np.nan, 1.0], ValueError, r"1 NaN value\(s\) among 4 \(first at index 2\)"),
    ([np.nan] * 4, ValueError, "NaN"),
    # a 2-D target is a multi-label indicator: only 0 and 1
    (np.full((4, 2), 2), ValueError, r"multi-label target must hold only 0, 1 .* got 2"),
    ([0.5, 1.5, 0.5, 2.5], ValueError, "Unknown label type: continuous"),
    ([0, 1, 0], ValueError, "inconsistent numbers of samples|one label per training sample"),
    ("abcd", TypeError, "y must be an array-like of class labels, got str"),
])
def test_bad_labels_of_kernel_estimators(X, y, error, match):
    with pytest.raises(error, match=match):
        AsKLSClassifier().fit(X, y)


def test_a_column_of_labels_warns_and_fits_as_a_vector():
    for X in (K, aslinearoperator(K)):
        with pytest.warns(DataConversionWarning):
            column = AsKLSClassifier(gamma=10.0).fit(X, Y[:, None])
        np.testing.assert_array_equal(column.dual_coef_,
                                      AsKLSClassifier(gamma=10.0).fit(X, Y).dual_coef_)


@pytest.mark.parametrize("labels, error, match", [
    ([0, 0, np.nan, 1, 1, -1], ValueError, r"must not be NaN \(node 2\)"),
    (np.full(6, np.nan), ValueError, "must not be NaN"),
    # NodeClassifier reads a 2-D target as labels per node (0, 1, or a row of -1);
    # the deprecated NodeClassifierCV takes one label per node
    (np.full((6, 2), 2), ValueError, r"multi-label target must hold only -1, 0, 1 .* got 2"
                                     r"|labels must be one-dimensional .* got shape \(6, 2\)"),
    ([0.5, 0.5, -1, 1.5, 1.5, -1], ValueError, "whole numbers"),
    ({0: "a", 9: "b"}, ValueError, r"not in the graph, e.g. \[9\]"),
    ([0, 1, 1], ValueError, r"one entry per node \(6\), got 3"),
    ({0: "a", 1: "a"}, ValueError, "at least 2 classes must have labelled nodes, got 1"),
    ([-1] * 6, ValueError, "at least 2 classes must have labelled nodes, got 0"),
])
def test_bad_labels_of_the_node_classifiers(labels, error, match):
    with pytest.raises(error, match=match):
        NodeClassifier().fit(_graph(), labels)
    with pytest.raises(error, match=match):
        NodeClassifierCV(cv=2).fit(_graph(), labels)


@pytest.mark.parametrize("nodes, error, match", [
    (3, TypeError, r"list of node names .* got int 3; pass \[3\] for one node"),
    ("a", TypeError, "got str 'a'"),
    (np.zeros((2, 2), dtype=int), ValueError, r"one-dimensional, got shape \(2, 2\)"),
    ([[0, 1]], TypeError, r"hashable, got \[0, 1\]"),
    ([7], ValueError, r"node 7 is not in the fitted graph \(6 nodes\)"),
])
def test_bad_nodes_to_predict(nodes, error, match):
    clf = NodeClassifier(merge="average").fit(_graph(), LABELS)
    with pytest.raises(error, match=match):
        clf.predict(nodes)


def test_tuple_node_names_are_names_not_arrays():
    graph = nx.relabel_nodes(_graph(), {i: ("n", i) for i in range(6)})
    clf = NodeClassifier(merge="average").fit(graph, {("n", k): v for k, v in LABELS.items()})
    assert clf.predict([("n", 2), ("n", 5)]).tolist() == ["a", "b"]


@pytest.mark.parametrize("labels, kwargs, error, match", [
    (np.array([0.0, np.nan, 1.0, 1.0]), {}, ValueError, "integer class codes .* got nan"),
    (np.zeros((4, 2), dtype=int), {}, ValueError, r"1-D\), got shape \(4, 2\)"),
    (np.array(["a", "b", "a", "b"]), {}, TypeError, "get_labels"),
    (np.array([0, 1, 0, 1]), dict(train_size=np.nan), ValueError, "train_size must be a number"),
    (np.array([0, 1, 0, 1]), dict(n_trials=0), ValueError, "n_trials must be an integer >= 1"),
])
def test_bad_input_of_the_split_protocol(labels, kwargs, error, match):
    from digraph_askls.model_selection import random_splits

    with pytest.raises(error, match=match):
        random_splits(labels, **kwargs)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(per_class=0), ValueError, "per_class must be an integer >= 1, got 0"),
    (dict(per_class=2.5), ValueError, "per_class must be an integer >= 1, got 2.5"),
    (dict(n_trials=0), ValueError, "n_trials must be an integer >= 1"),
])
def test_bad_input_of_the_labels_per_class_protocol(kwargs, error, match):
    from digraph_askls.model_selection import class_splits

    with pytest.raises(error, match=match):
        class_splits(np.array([0, 1, 0, 1]), **kwargs)


def test_labels_per_class_splits_draw_each_class_apart_and_test_on_the_rest():
    from digraph_askls.model_selection import class_splits

    labels = np.array([0] * 50 + [1] * 30 + [2] * 7 + [3] + [-1] * 5)
    splits = class_splits(labels, per_class=5, n_trials=3, random_state=1)
    for seed, train, test in splits:
        assert np.bincount(labels[train], minlength=4).tolist() == [5, 5, 3, 0]
        assert np.intersect1d(train, test).size == 0
        assert np.union1d(train, test).tolist() == np.flatnonzero(labels >= 0).tolist()
    assert not np.array_equal(splits[0][1], splits[1][1])
    again = class_splits(labels, per_class=5, n_trials=3, random_state=1)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(splits, again))


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_trials=0), "n_trials must be an integer >= 1, got 0"),
    (dict(cv=1), "cv must be an integer >= 2, got 1"),
])
def test_the_table_runners_check_their_protocol_before_any_work(tmp_path, kwargs, match):
    from experiments import run_table1, run_table4

    with pytest.raises(ValueError, match=match):
        run_table4(["heart"], data_home=tmp_path, **kwargs)   # no file: it would download
    with pytest.raises(ValueError, match=match):
        run_table1(tmp_path, **kwargs)                         # no images there


def test_long_tail_splits_draw_few_labels_of_the_last_classes():
    from experiments._protocols import long_tail_splits

    labels = np.repeat(np.arange(7), 100)
    labels[:5] = -1
    splits = long_tail_splits(labels, n_trials=3, random_state=4)
    for _, train, test in splits:
        assert np.bincount(labels[train]).tolist() == [20, 20, 20, 20, 2, 2, 2]
        assert np.intersect1d(train, test).size == 0
        assert np.union1d(train, test).size == 695          # every labelled node
    assert not np.array_equal(splits[0][1], splits[1][1])
    again = long_tail_splits(labels, n_trials=3, random_state=4)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(splits, again))
    with pytest.raises(ValueError, match="n_minority must leave"):
        long_tail_splits(labels, n_minority=7)
    with pytest.raises(ValueError, match="per_minority must be an integer"):
        long_tail_splits(labels, per_minority=0)
