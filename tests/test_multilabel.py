"""Multi-label targets in AsKLSClassifier: one matrix, one right-hand side per label."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import f1_score
from sklearn.multiclass import OneVsRestClassifier

from digraph_askls import AsKLSClassifier, KernelViews
from digraph_askls.models._targets import check_multilabel


def kernel_problem(m=50, n_labels=3, seed=0):
    rng = np.random.default_rng(seed)
    K = rng.uniform(size=(m, m)) * (rng.uniform(size=(m, m)) < 0.4) + np.eye(m)
    Y = (rng.uniform(size=(m, n_labels)) < 0.4).astype(int)
    Y[0], Y[1] = 1, 0          # every label has both values
    views = KernelViews(rng.uniform(size=(12, m)), rng.uniform(size=(m, 12)))
    return K, Y, views


@pytest.mark.parametrize("merge", ["average", "source", "target", "stack_loo", "stack_train"])
def test_equals_one_vs_rest_of_the_single_label_model(merge):
    # The same model: each label's column of the one solve is the binary problem that
    # OneVsRestClassifier solves on its own (the folded "stack" merge differs only in
    # its folds, stratified by each label alone).
    K, Y, views = kernel_problem()
    multi = AsKLSClassifier(gamma=0.5, merge=merge).fit(K, Y)
    ovr = OneVsRestClassifier(AsKLSClassifier(gamma=0.5, merge=merge)).fit(K, Y)
    np.testing.assert_allclose(multi.decision_function(views), ovr.decision_function(views),
                               rtol=0, atol=1e-10)
    expected = np.column_stack([model.predict(views) for model in ovr.estimators_])
    np.testing.assert_array_equal(multi.predict(views), expected)
    assert multi.predict(views).shape == (12, 3)
    if merge.startswith("stack"):
        proba = multi.predict_proba(views)
        np.testing.assert_allclose(
            proba, np.column_stack([m.predict_proba(views)[:, 1] for m in ovr.estimators_]),
            atol=1e-10)
        assert proba.shape == (12, 3)
        np.testing.assert_array_equal(multi.predict(views), (proba > 0.5).astype(int))


def test_sparse_indicator_gives_the_same_model_and_sparse_predictions():
    K, Y, views = kernel_problem(seed=1)
    dense = AsKLSClassifier(gamma=0.5, merge="source").fit(K, Y)
    sparse = AsKLSClassifier(gamma=0.5, merge="source").fit(K, sp.csr_matrix(Y))
    np.testing.assert_array_equal(sparse.decision_function(views.source),
                                  dense.decision_function(views.source))
    predicted = sparse.predict(views.source)
    assert sp.issparse(predicted)
    np.testing.assert_array_equal(predicted.toarray(), dense.predict(views.source))


def test_learns_overlapping_labels_of_clustered_points():
    rng = np.random.default_rng(2)
    centres = rng.normal(scale=4.0, size=(4, 2))
    groups = rng.integers(0, 4, 300)
    X = centres[groups] + rng.normal(size=(300, 2))
    # Labels: "group 0 or 1", "group 1 or 2", "group 3" (some points have two).
    Y = np.column_stack([np.isin(groups, [0, 1]), np.isin(groups, [1, 2]),
                         groups == 3]).astype(int)
    clf = AsKLSClassifier(kernel="rbf", gamma=1.0).fit(X[:200], Y[:200])
    assert f1_score(Y[200:], clf.predict(X[200:]), average="micro") > 0.9


@pytest.mark.parametrize("Y, message", [
    (np.full((50, 3), 2), r"only 0, 1 .* got 2 at row 0"),
    (np.full((50, 3), -1), r"only 0, 1 .* got -1"),
    (np.full((50, 3), 0.5), r"only 0, 1"),
    (np.full((50, 3), "a"), "must hold 0 and 1"),
    (np.ones((49, 3)), "49"),
])
def test_bad_multi_label_targets_are_clear_errors(Y, message):
    K, _, _ = kernel_problem()
    with pytest.raises(ValueError, match=message):
        AsKLSClassifier().fit(K, Y)


def test_unlabelled_rows_for_the_node_api():
    _, labelled = check_multilabel([[1, 0], [-1, -1], [0, 0]], allow_unlabelled=True)
    assert labelled.tolist() == [True, False, True]
    with pytest.raises(ValueError, match="mixing -1 with 0/1 at row 1"):
        check_multilabel([[1, 0], [-1, 1], [0, 0]], allow_unlabelled=True)


def test_joint_merges_refuse_a_multi_label_target():
    K, Y, _ = kernel_problem()
    with pytest.raises(ValueError, match="multinomial model over exclusive classes"):
        AsKLSClassifier(merge="joint").fit(K, Y)


# ---- the embedding literature's protocol -----------------------------------------------
from sklearn.metrics import f1_score as sk_f1

from digraph_askls.metrics import top_k_f1
from digraph_askls.model_selection import multilabel_splits


def test_top_k_f1_by_hand():
    Y = np.array([[1, 0, 1, 0], [0, 1, 0, 0], [1, 1, 1, 0], [0, 0, 0, 1]])
    scores = np.array([[0.9, 0.8, 0.1, 0.0],     # 2 true: predicts 0, 1
                       [0.1, 0.2, 0.3, 0.0],     # 1 true: predicts 2
                       [0.5, 0.4, 0.3, 0.2],     # 3 true: predicts 0, 1, 2
                       [0.0, 0.0, 0.0, 0.0]])    # 1 true: a tie, predicts column 0
    predicted = np.array([[1, 1, 0, 0], [0, 0, 1, 0], [1, 1, 1, 0], [1, 0, 0, 0]])
    # Micro: 4 right of 7 predicted and 7 true.
    micro, macro = top_k_f1(Y, scores)
    assert micro == pytest.approx(4 / 7)
    assert macro == pytest.approx(sk_f1(Y, predicted, average="macro", zero_division=0))
    # Label by label: 0: P 2/3 R 1; 1: P 1/2 R 1/2; 2: P 1/2 R 1/2; 3: 0.
    assert macro == pytest.approx((0.8 + 0.5 + 0.5 + 0.0) / 4)
    assert top_k_f1(sp.csr_matrix(Y), scores) == (micro, macro)


def test_multilabel_splits_draw_only_labelled_nodes():
    rng = np.random.default_rng(0)
    Y = (rng.uniform(size=(200, 5)) < 0.3).astype(int)
    has = np.flatnonzero(Y.sum(axis=1) > 0)
    for fraction in (0.1, 0.5, 0.9):
        splits = multilabel_splits(Y, fraction, n_trials=3, random_state=0)
        for _, train, test in splits:
            assert np.intersect1d(train, test).size == 0
            np.testing.assert_array_equal(np.union1d(train, test), has)
            assert train.size == round(fraction * has.size)
        assert not np.array_equal(splits[0][1], splits[1][1])


@pytest.mark.parametrize("merge", ["stack_loo", "average"])
def test_a_solution_found_elsewhere_fits_a_multi_label_estimator(merge):
    # The path of NodeClassifier, whose selection solves the system its own way.
    K, Y, views = kernel_problem(seed=5)
    fitted = AsKLSClassifier(gamma=0.5, merge=merge).fit(K, Y)
    scores = fitted.stacking_scores_ if merge == "stack_loo" else None
    rebuilt = AsKLSClassifier.from_solution(
        Y, fitted.coefficient_blocks(), fitted.coefficient_blocks(), None,
        stacking_scores=scores, view_scores=np.zeros((2, 50, 3)), gamma=0.5, merge=merge)
    np.testing.assert_array_equal(rebuilt.predict(views), fitted.predict(views))
    np.testing.assert_allclose(rebuilt.decision_function(views),
                               fitted.decision_function(views), atol=1e-12)
    assert hasattr(rebuilt, "predict_proba") == (merge == "stack_loo")
