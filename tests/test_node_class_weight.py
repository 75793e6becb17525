"""``NodeClassifier(class_weight=...)``: the weighted system in every engine of the
selection, checked against ``AsKLSClassifier(class_weight=...)`` on the chosen kernel's
dense block and against the engines' unweighted twins."""

import warnings

import numpy as np
import pytest

from digraph_askls import AsKLSClassifier, KernelViews, NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.kernels import restrict_kernel
from digraph_askls.models._decomposition import decompose_dense, dense_training_block
from digraph_askls.models._folds import make_folds
from digraph_askls.models.selection._out_of_fold import (cholesky_out_of_fold,
                                                         solved_out_of_fold,
                                                         spectral_out_of_fold,
                                                         walk_out_of_fold)
from digraph_askls.models.selection._policy import FitSettings


def _imbalanced(n=150, seed=0):
    adjacency, labels = make_directed_sbm(n, 3, 6.0, p_in=0.6, random_state=seed)
    known = np.full(n, -1)
    train = np.concatenate([np.flatnonzero(labels == 0)[:20],
                            np.flatnonzero(labels == 1)[:8],
                            np.flatnonzero(labels == 2)[:4]])
    known[train] = labels[train]
    return adjacency, known, labels


def _dense(kernel, n):
    block = restrict_kernel(kernel, np.arange(n), np.arange(n))
    return block.toarray() if hasattr(block, "toarray") else np.asarray(block)


@pytest.mark.parametrize("class_weight", ["balanced", {2: 5.0, 0: 0.5}])
@pytest.mark.parametrize("merge", ["average", "joint"])
def test_weighted_fit_equals_the_weighted_estimator_on_the_chosen_block(class_weight, merge):
    adjacency, known, _ = _imbalanced()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = NodeClassifier(kernel="in_degree", gamma=[0.01, 0.1, 1.0], merge=merge,
                             class_weight=class_weight, random_state=0).fit(adjacency, known)
    assert clf.selection_["engine"] == "spectral"
    train = clf.train_nodes_
    K = _dense(clf.kernel_, adjacency.shape[0])
    reference = AsKLSClassifier(gamma=clf.selection_["gamma"], class_weight=class_weight,
                                merge="average").fit(K[np.ix_(train, train)], known[train])
    views = KernelViews(K[:, train], K[train, :])
    ours = clf.decision_function(view="both")
    theirs = reference.view_decisions(views)
    np.testing.assert_allclose(ours["source"], theirs[0], atol=1e-10)
    np.testing.assert_allclose(ours["target"], theirs[1], atol=1e-10)
    np.testing.assert_allclose(clf.estimator_.class_weight_, reference.class_weight_)
    unweighted = AsKLSClassifier(gamma=clf.selection_["gamma"], merge="average").fit(
        K[np.ix_(train, train)], known[train]).view_decisions(views)
    assert np.abs(unweighted[0] - theirs[0]).max() > 1e-3      # the weights matter


def test_balanced_weights_raise_the_minority_class_recall():
    adjacency, known, labels = _imbalanced()
    test = np.flatnonzero(known < 0)
    recall = {}
    for class_weight in (None, "balanced"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = NodeClassifier(kernel="in_degree", gamma=1.0, merge="average",
                                 class_weight=class_weight).fit(adjacency, known)
        predicted = clf.predict()[test]
        minority = test[labels[test] == 2]
        recall[class_weight] = np.mean(predicted[np.isin(test, minority)] == 2)
    assert recall["balanced"] >= recall[None]


def _weighted_block(seed=0, m=60, symmetric=True):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 5))
    K = X @ X.T + 0.5 * np.eye(m)
    if not symmetric:
        K = K + 0.3 * rng.standard_normal((m, m))
    codes = np.repeat([0, 1, 2], [30, 20, 10])
    weights = np.array([0.5, 1.0, 3.0])[codes]
    folds = make_folds(codes, 5, 0)
    return K, codes, weights, folds


def test_cholesky_folds_with_weights_equal_the_weighted_decomposition():
    K, codes, weights, folds = _weighted_block()
    spectral = spectral_out_of_fold(decompose_dense(K, weights=weights), codes, 0.5, folds)
    cholesky = cholesky_out_of_fold(K, codes, 0.5, folds, weights)
    np.testing.assert_allclose(cholesky.scores, spectral.scores, atol=1e-8)
    plain = cholesky_out_of_fold(K, codes, 0.5, folds)
    assert np.abs(plain.scores - cholesky.scores).max() > 1e-3


def test_solved_folds_with_weights_equal_the_weighted_decomposition():
    K, codes, weights, folds = _weighted_block(symmetric=False)
    spectral = spectral_out_of_fold(decompose_dense(K, weights=weights), codes, 0.5, folds)
    solved = solved_out_of_fold(K, codes, 0.5, folds, weights, solver="dense")
    np.testing.assert_allclose(solved.scores, spectral.scores, atol=1e-6)


def test_walk_folds_with_weights_equal_one_solve_per_fold():
    adjacency, known, _ = _imbalanced(120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = NodeClassifier(kernel="ppr", gamma=0.01, merge="average").fit(adjacency, known)
    train = clf.train_nodes_
    codes = known[train]
    weights = np.array([0.5, 1.0, 3.0])[codes]
    folds = make_folds(codes, 4, 0)
    train_kernel = restrict_kernel(clf.kernel_, train, train)
    walk = walk_out_of_fold(train_kernel, codes, 0.01, folds, rtol=1e-10, weights=weights)
    dense = dense_training_block(train_kernel)
    solved = solved_out_of_fold(dense, codes, 0.01, folds, weights, solver="dense")
    np.testing.assert_allclose(walk.mean_model[1], solved.mean_model[1], atol=1e-7)


def test_settings_keep_the_weights_of_every_labelled_node():
    # Codes 0 and 2 labelled: the selection numbers them 0 and 1.
    settings = FitSettings(class_weights=((0, 0.5), (2, 4.0)))
    assert settings.node_weights(np.array([1, 1, 0])).tolist() == [4.0, 4.0, 0.5]
    assert settings.estimator_params(gamma=1.0)["class_weight"] == {0: 0.5, 2: 4.0}
    assert FitSettings().node_weights(np.array([0, 1])) is None


def test_class_weight_of_an_unknown_class_is_a_clear_error():
    adjacency, known, _ = _imbalanced()
    with pytest.raises(ValueError, match="not among the training labels"):
        NodeClassifier(kernel="in_degree", gamma=1.0, merge="average",
                       class_weight={7: 2.0}).fit(adjacency, known)
    with pytest.raises(ValueError, match="class_weight"):
        NodeClassifier(class_weight="often").fit(adjacency, known)


def test_train_score_merge_solves_the_weighted_system():
    adjacency, known, _ = _imbalanced(120)
    fits = {}
    for class_weight in (None, {2: 4.0}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits[class_weight is None] = NodeClassifier(
                kernel="ppr", gamma=0.01, merge="joint_train", class_weight=class_weight,
                random_state=0).fit(adjacency, known)
    weighted = fits[False].estimator_
    assert weighted.class_weight_.tolist() == [1.0, 1.0, 4.0]
    gap = np.abs(fits[False].decision_function(view="source")
                 - fits[True].decision_function(view="source")).max()
    assert gap > 1e-8


def test_weights_follow_the_classes_when_a_class_has_no_labelled_node():
    adjacency, known, _ = _imbalanced()
    known[known == 1] = -1                  # class 1 unlabelled: codes 0 and 2 remain
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = NodeClassifier(kernel="in_degree", gamma=[0.1, 1.0], merge="joint",
                             class_weight={2: 3.0}, random_state=0).fit(adjacency, known)
    train = clf.train_nodes_
    K = _dense(clf.kernel_, adjacency.shape[0])
    reference = AsKLSClassifier(gamma=clf.selection_["gamma"], class_weight={2: 3.0}).fit(
        K[np.ix_(train, train)], known[train])
    np.testing.assert_allclose(clf.decision_function(view="source"),
                               reference.view_decisions(KernelViews(K[:, train],
                                                                    K[train, :]))[0][:, 0],
                               atol=1e-10)


def test_prediction_is_the_class_of_least_expected_cost():
    # A class's weight is the cost of an error on one of its nodes: the prediction is
    # argmax_c w_c p_c over predict_proba's probabilities (calibrated where a calibrator
    # was fitted: those that judge candidates on validation nodes).
    adjacency, known, _ = _imbalanced()
    costs = np.array([1.0, 1.0, 6.0])
    for options in ({"kernel": "in_degree", "gamma": 1.0, "merge": "average"}, {}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = NodeClassifier(class_weight={2: 6.0}, random_state=0,
                                 **options).fit(adjacency, known)
        proba = clf.predict_proba()
        expected = clf.classes_[np.argmax(proba * costs, axis=1)]
        np.testing.assert_array_equal(clf.predict(), expected)
        assert not np.array_equal(expected, clf.classes_[np.argmax(proba, axis=1)])
    assert clf.calibrator_ is not None
    unweighted = NodeClassifier(kernel="in_degree", gamma=1.0, merge="average",
                                random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        unweighted.fit(adjacency, known)
    plain = unweighted.predict_proba()
    np.testing.assert_array_equal(unweighted.predict(),
                                  unweighted.classes_[np.argmax(plain, axis=1)])


def test_selection_scores_the_decisions_of_least_cost():
    from digraph_askls.models.selection._scoring import Scoring

    codes = np.array([0, 0, 0, 1])
    proba = np.array([[0.9, 0.1], [0.8, 0.2], [0.6, 0.4], [0.7, 0.3]])
    assert Scoring("balanced_accuracy")(codes, proba) == 0.5
    # at cost 3 for class 1 the third and fourth nodes go to class 1
    weighted = Scoring("balanced_accuracy").with_costs([1.0, 3.0])
    assert weighted(codes, proba) == pytest.approx((2 / 3 + 1) / 2)
    assert Scoring("accuracy").with_costs([1.0, 3.0])(codes, proba) == pytest.approx(0.75)
    assert not Scoring("accuracy").with_costs([1.0, 3.0]).is_accuracy


def test_weighted_selection_leaves_out_stackers_for_a_class_of_few_labels():
    from digraph_askls.models.selection._policy import DEFAULT_POLICY
    from digraph_askls.models.selection._scoring import Scoring
    from digraph_askls.models.selection._select import merges_for

    codes = np.repeat([0, 1, 2], [20, 20, 2])
    weighted = Scoring("accuracy").with_costs([1.0, 1.0, 10.0])
    assert merges_for("auto", codes, DEFAULT_POLICY, weighted)(None) == ["average"]
    assert "joint" in merges_for("auto", codes, DEFAULT_POLICY)(None)
    assert "joint" in merges_for("auto", np.repeat([0, 1, 2], 20), DEFAULT_POLICY,
                                 weighted)(None)
    assert merges_for("joint", codes, DEFAULT_POLICY, weighted)(None) == ["joint"]
    four = np.repeat([0, 1, 2], [20, 20, 4])       # a stacker can learn a class of 4
    assert "joint" in merges_for("auto", four, DEFAULT_POLICY, weighted)(None)
