"""AsKLSClassifier and LSSVMClassifier: the paper's propositions and the estimator contract."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from scipy.sparse.linalg import lsqr
from sklearn.utils.estimator_checks import parametrize_with_checks

from digraph_askls import AsKLSClassifier, KernelViews, LSSVMClassifier
from digraph_askls.linalg import SingularSystemWarning


def asymmetric_kernel(A, B):
    """A simple asymmetric kernel on vectors: a skewed Gaussian similarity."""
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    skew = np.tanh(A[:, None, 0] - B[None, :, 0])
    return np.exp(-d2 / 4.0) * (1.0 + 0.3 * skew)


def gaussian_kernel(A, B):
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / 4.0)


@parametrize_with_checks([
    AsKLSClassifier(kernel=asymmetric_kernel, gamma=100.0),
    AsKLSClassifier(kernel="precomputed", merge="source"),
    AsKLSClassifier(kernel=asymmetric_kernel, merge="stack", n_folds=3, random_state=0),
    AsKLSClassifier(kernel=asymmetric_kernel, merge="joint", n_folds=3, random_state=0),
    LSSVMClassifier(kernel="precomputed"),
    LSSVMClassifier(kernel=gaussian_kernel, calibration="stack", n_folds=3),
])
def test_scikit_learn_contract(estimator, check):
    # Every check, none expected to fail.
    check(estimator)


def test_check_estimator_passes_in_full():
    from sklearn.utils.estimator_checks import check_estimator

    results = check_estimator(AsKLSClassifier(kernel=asymmetric_kernel, gamma=100.0),
                              on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results
              if r["status"] == "failed"]
    assert len(results) > 40 and failed == []


@pytest.mark.parametrize("solver", ["dense", "auto"])
def test_n_iter_counts_a_direct_solve_as_one(solver):
    X, y, K = random_problem()
    clf = AsKLSClassifier(gamma=3.0, solver=solver).fit(K, y)
    assert clf.solver_result_.n_iter == 0 and clf.n_iter_ == 1
    loo = AsKLSClassifier(gamma=3.0, merge="stack_loo").fit(K, y)
    assert loo.n_iter_ == 1


def random_problem(n=40, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = np.digitize(X[:, 0] + 0.3 * rng.standard_normal(n), [-0.5, 0.5])[:n] % n_classes
    return X, y, asymmetric_kernel(X, X)


def test_proposition_2_symmetric_kernel_gives_lssvm():
    X, y, _ = random_problem()
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    ask = AsKLSClassifier(gamma=3.0, regularization=None).fit(K, y)
    ls = LSSVMClassifier(gamma=3.0, regularization=None).fit(K, y)
    # alpha = beta and b1 = b2 ...
    np.testing.assert_allclose(ask.dual_coef_[:, 0], ask.dual_coef_[:, 1], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ask.intercept_[:, 0], ask.intercept_[:, 1], rtol=1e-9)
    # ... and both equal the classical LS-SVM solution; f_s and f_t coincide.
    np.testing.assert_allclose(ask.dual_coef_[:, 0], ls.dual_coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ask.intercept_[:, 0], ls.intercept_, rtol=1e-9)
    source = AsKLSClassifier(gamma=3.0, merge="source").fit(K, y).decision_function(K)
    target = AsKLSClassifier(gamma=3.0, merge="target").fit(K, y).decision_function((None, K))
    np.testing.assert_allclose(source, target, rtol=1e-9, atol=1e-12)


def test_multiclass_fit_equals_separate_binary_fits():
    _, y, K = random_problem()
    multi = AsKLSClassifier(gamma=2.0).fit(K, y)
    assert multi.dual_coef_.shape == (3, 2, y.size)
    for c in range(3):
        binary = AsKLSClassifier(gamma=2.0).fit(K, y == c)
        np.testing.assert_allclose(multi.dual_coef_[c], binary.dual_coef_, rtol=1e-10)
        np.testing.assert_allclose(multi.intercept_[c], binary.intercept_, rtol=1e-10)


def test_dual_coefficients_solve_the_papers_system():
    X, y, K = random_problem(n=30)
    labels = (y == 1)
    clf = AsKLSClassifier(gamma=0.5, regularization=None).fit(K, labels)
    s = np.where(labels, 1.0, -1.0)
    alpha, beta = s * clf.dual_coef_[0], s * clf.dual_coef_[1]
    b1, b2 = clf.intercept_
    H = np.outer(s, s) * K
    np.testing.assert_allclose(s * b1 + alpha / 0.5 + H @ beta, 1.0, atol=1e-9)
    np.testing.assert_allclose(s * b2 + H.T @ alpha + beta / 0.5, 1.0, atol=1e-9)
    assert abs(s @ alpha) < 1e-9 and abs(s @ beta) < 1e-9


def test_permutation_equivariance():
    _, y, K = random_problem()
    perm = np.random.default_rng(5).permutation(y.size)
    base = AsKLSClassifier(gamma=1.5).fit(K, y)
    permuted = AsKLSClassifier(gamma=1.5).fit(K[np.ix_(perm, perm)], y[perm])
    np.testing.assert_allclose(permuted.dual_coef_, base.dual_coef_[:, :, perm], rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_allclose(permuted.intercept_, base.intercept_, rtol=1e-9)


@pytest.mark.parametrize("form", ["dense", "sparse", "tuple", "views"])
def test_precomputed_views_in_every_form_agree(form):
    X, y, K = random_problem(n=50)
    train, test = np.arange(35), np.arange(35, 50)
    clf = AsKLSClassifier(gamma=1.0, solver="batched").fit(sp.csr_matrix(K[np.ix_(train, train)]),
                                                           y[train])
    source, target = K[np.ix_(test, train)], K[np.ix_(train, test)]
    expected = (source @ clf.dual_coef_[:, 1].T + clf.intercept_[:, 0]
                + target.T @ clf.dual_coef_[:, 0].T + clf.intercept_[:, 1]) / 2
    given = {
        "dense": (source, target),
        "sparse": (sp.csr_matrix(source), sp.csr_matrix(target)),
        "tuple": (source, target),
        "views": KernelViews(source=source, target=target),
    }[form]
    np.testing.assert_allclose(clf.decision_function(given), expected, rtol=1e-10)


def test_missing_view_raises_clear_error():
    _, y, K = random_problem()
    clf = AsKLSClassifier().fit(K, y)
    with pytest.raises(ValueError, match="needs the target view: pass KernelViews"):
        clf.predict(K)
    with pytest.raises(ValueError, match="X has 30 features, but AsKLSClassifier is expecting 40"):
        clf.predict((K[:5, :30], K[:, :5]))
    with pytest.raises(ValueError, match=r"K\(train, new\) must have shape \(40, 5\)"):
        clf.predict((K[:5], K[:30, :5]))


def test_stacking_probabilities_and_predictions():
    X, y, K = random_problem(n=80)
    clf = AsKLSClassifier(merge="stack", n_folds=5, random_state=0).fit(K, y)
    proba = clf.predict_proba((K, K))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict((K, K)))
    assert clf.score((K, K), y) > 0.8
    assert not hasattr(AsKLSClassifier(merge="average"), "predict_proba")


def test_stack_train_features_are_the_training_view_scores():
    X, y, K = random_problem(n=80)
    clf = AsKLSClassifier(merge="stack_train", gamma=0.5, tol=1e-12).fit(K, y)
    intercepts, dual = clf._coefficient_blocks()
    _, codes = np.unique(y, return_inverse=True)
    computed = clf._train_view_scores(clf._label_columns(codes), dual)
    direct = clf._view_scores(KernelViews(K, K), intercepts, dual).transpose(1, 0, 2)
    np.testing.assert_allclose(computed, direct, rtol=1e-8, atol=1e-8)
    proba = clf.predict_proba((K, K))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict((K, K)))
    assert clf.score((K, K), y) > 0.8


def test_bad_parameters_raise():
    _, y, K = random_problem()
    with pytest.raises(ValueError, match="The 'merge' parameter of AsKLSClassifier must be "
                                         "a str among .* Got 'max' instead"):
        AsKLSClassifier(merge="max").fit(K, y)
    with pytest.raises(ValueError, match=r"The 'gamma' parameter of AsKLSClassifier must be "
                                         r"a float in the range \(0.0, inf\). Got -1.0"):
        AsKLSClassifier(gamma=-1.0).fit(K, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        AsKLSClassifier().fit(K, np.zeros(y.size))
    with pytest.raises(ValueError, match="symmetric kernel"):
        LSSVMClassifier().fit(K, y)


@pytest.fixture(scope="module")
def cora_kernel(shared_datasets):
    data = scipy.io.loadmat(shared_datasets / "askls_mat" / "cora.mat")
    return sp.csr_matrix(data["G"]), data["label"].ravel()


def test_authors_cora_kernel_is_singular_and_gives_damped_solution(cora_kernel):
    G, labels = cora_kernel
    rng = np.random.default_rng(0)
    perm = rng.permutation(labels.size)
    train = np.sort(perm[: int(0.6 * labels.size)])
    K = G[train][:, train]
    y = labels[train] == 1
    with pytest.warns(SingularSystemWarning, match="training samples have no kernel entry"):
        clf = AsKLSClassifier(gamma=1.0, solver="batched", tol=1e-12).fit(K, y)
    assert np.all(np.isfinite(clf.dual_coef_)) and np.abs(clf.dual_coef_).max() < 10
    # The authors' fallback on their label-dependent system: LSQR with damp = 1.
    s = np.where(y, 1.0, -1.0)
    m = s.size
    H = sp.diags(s) @ K @ sp.diags(s)
    col = sp.csr_matrix(s[:, None])
    zero = sp.csr_matrix((m, 1))
    A = sp.bmat([[None, None, col.T, None], [None, None, None, col.T],
                 [col, zero, sp.eye(m), H], [zero, col, H.T, sp.eye(m)]], format="csr")
    r = np.concatenate([[0.0, 0.0], np.ones(2 * m)])
    x = lsqr(A, r, damp=1.0, atol=1e-14, btol=1e-14, iter_lim=10000)[0]
    np.testing.assert_allclose(clf.intercept_, x[:2], rtol=1e-7)
    np.testing.assert_allclose(clf.dual_coef_[0], s * x[2:2 + m], atol=1e-8)
    np.testing.assert_allclose(clf.dual_coef_[1], s * x[2 + m:], atol=1e-8)
