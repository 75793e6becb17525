"""The weighted least-squares SVM: every solver path against a dense numpy solve of the
weighted saddle-point system written out here, and class weights in AsKLSClassifier."""

import numpy as np
import pytest
import scipy.sparse as sp

from digraph_askls.linalg import AsKLSSystem, SpectralAsKLS, solve_system


def weighted_saddle(K, gamma, w):
    """The weighted AsK-LS system ``[[0,0,1^T,0],[0,0,0,1^T],[1,0,D,K],[0,1,K^T,D]]`` with
    ``D = diag(1 / (gamma * w))``, assembled entry by entry."""
    m = K.shape[0]
    A = np.zeros((2 * m + 2, 2 * m + 2))
    A[0, 2:2 + m] = A[2:2 + m, 0] = 1.0
    A[1, 2 + m:] = A[2 + m:, 1] = 1.0
    A[2:2 + m, 2 + m:] = K
    A[2 + m:, 2:2 + m] = K.T
    for i in range(m):
        A[2 + i, 2 + i] = A[2 + m + i, 2 + m + i] = 1.0 / (gamma * w[i])
    return A


def reference(K, gamma, w, Y):
    m = K.shape[0]
    R = np.zeros((2 * m + 2, Y.shape[1]))
    R[2:2 + m] = R[2 + m:] = Y
    return np.linalg.solve(weighted_saddle(K, gamma, w), R)


def problem(m=30, k=3, seed=0):
    rng = np.random.default_rng(seed)
    K = rng.uniform(0, 1, (m, m)) * (rng.uniform(size=(m, m)) < 0.3)
    K += np.eye(m)
    codes = rng.integers(0, k, m)
    Y = -np.ones((m, k))
    Y[np.arange(m), codes] = 1.0
    w = np.array([1.0, 3.0, 0.5])[codes]
    return K, codes, Y, w


@pytest.mark.parametrize("solver", ["dense", "minres", "batched", "gmres"])
def test_exact_solvers_match_dense_weighted_solve(solver):
    K, _, Y, w = problem()
    gamma = 0.3
    expected = reference(K, gamma, w, Y)
    result = solve_system(AsKLSSystem(K, gamma, weights=w), Y, solver=solver,
                          regularization=None, rtol=1e-12)
    np.testing.assert_allclose(result.x, expected, rtol=1e-7, atol=1e-8)
    # A sparse kernel takes the same path with the same answer.
    sparse_result = solve_system(AsKLSSystem(sp.csr_matrix(K), gamma, weights=w), Y,
                                 solver=solver, regularization=None, rtol=1e-12)
    np.testing.assert_allclose(sparse_result.x, expected, rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("solver", ["dense", "batched", "lsqr"])
def test_damped_least_squares_matches_dense_weighted_normal_equations(solver):
    K, _, Y, w = problem(seed=1)
    gamma, lam = 2.0, 0.5
    A = weighted_saddle(K, gamma, w)
    R = np.zeros((A.shape[0], Y.shape[1]))
    R[2:2 + K.shape[0]] = R[2 + K.shape[0]:] = Y
    expected = np.linalg.solve(A.T @ A + lam * np.eye(A.shape[0]), A.T @ R)
    result = solve_system(AsKLSSystem(sp.csr_matrix(K), gamma, weights=w), Y, solver=solver,
                          regularization=lam, rtol=1e-13)
    np.testing.assert_allclose(result.x, expected, rtol=1e-6, atol=1e-7)


def test_jacobi_and_ilu_preconditioners_take_the_weights():
    K, _, Y, w = problem(seed=2)
    expected = reference(K, 0.3, w, Y)
    system = AsKLSSystem(sp.csr_matrix(K), 0.3, weights=w)
    for solver, preconditioner in (("minres", "jacobi"), ("gmres", "ilu")):
        result = solve_system(system, Y, solver=solver, regularization=None, rtol=1e-12,
                              preconditioner=preconditioner)
        np.testing.assert_allclose(result.x, expected, rtol=1e-7, atol=1e-8)


def test_to_dense_is_the_weighted_matrix():
    K, _, _, w = problem(m=7)
    np.testing.assert_array_equal(AsKLSSystem(K, 0.7, weights=w).to_dense(),
                                  weighted_saddle(K, 0.7, w))


@pytest.mark.parametrize("kernel", ["asymmetric", "symmetric", "maps"])
def test_spectral_solve_loo_and_folds_match_dense_weighted_solves(kernel):
    K, _, Y, w = problem(m=24, seed=3)
    rng = np.random.default_rng(5)
    if kernel == "symmetric":
        K = K + K.T
    if kernel == "maps":
        U, V = rng.normal(size=(24, 6)), rng.normal(size=(24, 6))
        K = U @ V.T
        spectral = SpectralAsKLS(factors=(U, V), weights=w)
    else:
        spectral = SpectralAsKLS(K, weights=w)
    m = K.shape[0]
    for gamma in (0.05, 0.4):
        expected = reference(K, gamma, w, Y)
        intercepts, dual = spectral.solve(Y, gamma)
        np.testing.assert_allclose(np.vstack([intercepts, dual[0], dual[1]]), expected,
                                   rtol=1e-7, atol=1e-9)
        loo = spectral.loo_scores(Y, gamma)
        folds = [np.arange(0, 8), np.arange(8, 16), np.arange(16, 24)]
        scores, _ = spectral.fold_scores(Y, gamma, folds)
        for held in [np.array([i]) for i in (0, 5, 23)] + folds:
            keep = np.setdiff1d(np.arange(m), held)
            x = reference(K[np.ix_(keep, keep)], gamma, w[keep], Y[keep])
            b1, b2 = x[0], x[1]
            a, b = x[2:2 + keep.size], x[2 + keep.size:]
            source = K[np.ix_(held, keep)] @ b + b1
            target = K[np.ix_(keep, held)].T @ a + b2
            held_scores = loo if held.size == 1 else scores
            np.testing.assert_allclose(held_scores[0, held], source, rtol=1e-6, atol=1e-8)
            np.testing.assert_allclose(held_scores[1, held], target, rtol=1e-6, atol=1e-8)


def test_unit_weights_give_todays_solution_exactly():
    K, _, Y, _ = problem(seed=4)
    ones = np.ones(K.shape[0])
    for solver in ("dense", "batched"):
        plain = solve_system(AsKLSSystem(K, 0.3), Y, solver=solver, regularization=None)
        unit = solve_system(AsKLSSystem(K, 0.3, weights=ones), Y, solver=solver,
                            regularization=None)
        np.testing.assert_array_equal(unit.x, plain.x)
    plain = SpectralAsKLS(K).loo_scores(Y, 0.3)
    unit = SpectralAsKLS(K, weights=ones).loo_scores(Y, 0.3)
    np.testing.assert_allclose(unit, plain, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("weights, message", [
    (np.ones(3), r"shape \(30,\)"), (-np.ones(30), "positive"),
    (np.full(30, np.nan), "positive"), ("x", "numeric"),
])
def test_bad_weights_are_clear_errors(weights, message):
    K, _, _, _ = problem()
    with pytest.raises((ValueError, TypeError), match=message):
        AsKLSSystem(K, 1.0, weights=weights)


# ---- AsKLSClassifier(class_weight=...) -------------------------------------------------
from sklearn.utils.estimator_checks import parametrize_with_checks

from digraph_askls import AsKLSClassifier, KernelViews


def asymmetric_kernel(A, B):
    """A skewed Gaussian similarity on vectors (as the contract tests of the models)."""
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / 4.0) * (1.0 + 0.3 * np.tanh(A[:, None, 0] - B[None, :, 0]))


@parametrize_with_checks([
    AsKLSClassifier(kernel=asymmetric_kernel, gamma=100.0, class_weight="balanced"),
    AsKLSClassifier(kernel="precomputed", merge="source", class_weight="balanced"),
    AsKLSClassifier(kernel=asymmetric_kernel, merge="stack", n_folds=3, random_state=0,
                    class_weight="balanced"),
    AsKLSClassifier(kernel=asymmetric_kernel, merge="joint", n_folds=3, random_state=0,
                    class_weight="balanced"),
])
def test_scikit_learn_contract_with_class_weight(estimator, check):
    check(estimator)


def test_check_estimator_passes_in_full_with_class_weight():
    from sklearn.utils.estimator_checks import check_estimator

    results = check_estimator(AsKLSClassifier(kernel=asymmetric_kernel, gamma=100.0,
                                              class_weight="balanced"), on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results
              if r["status"] == "failed"]
    assert len(results) > 40 and failed == []


def test_class_weighted_fit_is_the_dense_weighted_solve():
    K, codes, Y, _ = problem(m=30, seed=6)
    weights = {0: 1.0, 1: 3.0, 2: 0.5}
    for solver in ("dense", "batched"):
        clf = AsKLSClassifier(gamma=0.3, solver=solver, class_weight=weights,
                              regularization=None).fit(K, codes)
        x = reference(K, 0.3, np.array([1.0, 3.0, 0.5])[codes], Y)
        intercepts, dual = clf.coefficient_blocks()
        np.testing.assert_allclose(np.vstack([intercepts, dual[0], dual[1]]), x,
                                   rtol=1e-7, atol=1e-9)


def test_leave_one_out_merge_decomposes_the_weighted_system():
    K, codes, Y, _ = problem(m=30, seed=7)
    clf = AsKLSClassifier(gamma=0.3, merge="stack_loo", class_weight="balanced").fit(K, codes)
    w = clf.class_weight_[codes]
    intercepts, dual = clf.coefficient_blocks()
    np.testing.assert_allclose(np.vstack([intercepts, dual[0], dual[1]]),
                               reference(K, 0.3, w, Y), rtol=1e-7, atol=1e-9)
    # Its stacking scores are the leave-one-out scores of the weighted system.
    held = 4
    keep = np.setdiff1d(np.arange(30), [held])
    x = reference(K[np.ix_(keep, keep)], 0.3, w[keep], Y[keep])
    source = K[held, keep] @ x[2 + keep.size:] + x[0]
    np.testing.assert_allclose(clf.stacking_scores_[held, 0], source, rtol=1e-6)


def test_balanced_weights_are_scikit_learns():
    from sklearn.utils.class_weight import compute_class_weight

    K, codes, _, _ = problem(m=30, seed=8)
    labels = np.array(["a", "b", "c"])[codes]
    clf = AsKLSClassifier(gamma=0.3, class_weight="balanced").fit(K, labels)
    np.testing.assert_array_equal(
        clf.class_weight_, compute_class_weight("balanced", classes=clf.classes_, y=labels))
    assert clf.class_weight_.std() > 0    # the draw is imbalanced: the test means something


def test_unit_class_weights_give_the_unweighted_model():
    K, codes, _, _ = problem(m=30, seed=9)
    for merge in ("average", "stack", "stack_loo", "joint_train"):
        plain = AsKLSClassifier(gamma=0.3, merge=merge, random_state=0).fit(K, codes)
        unit = AsKLSClassifier(gamma=0.3, merge=merge, random_state=0,
                               class_weight={0: 1.0, 1: 1.0, 2: 1.0}).fit(K, codes)
        views = KernelViews(K[:5], K[:, :5])
        np.testing.assert_allclose(unit.decision_function(views),
                                   plain.decision_function(views), rtol=1e-9, atol=1e-9)


def test_stackers_learn_with_the_class_weights_as_sample_weights():
    from sklearn.linear_model import LogisticRegression

    K, codes, _, _ = problem(m=60, seed=10)
    clf = AsKLSClassifier(gamma=0.3, merge="stack_train",
                          class_weight={0: 1.0, 1: 4.0, 2: 0.5}).fit(K, codes)
    weights = clf.class_weight_[codes]
    features = clf.stacking_scores_[:, :, 1]
    scaled = (features - features.mean(axis=0)) / features.std(axis=0)
    expected = LogisticRegression(C=np.inf, solver="newton-cholesky", max_iter=1000).fit(
        scaled, (codes == 1).astype(int), sample_weight=weights)
    fitted = clf.stackers_[1][-1]
    np.testing.assert_allclose(fitted.coef_, expected.coef_, rtol=1e-5)
    unweighted = LogisticRegression(C=np.inf, solver="newton-cholesky", max_iter=1000).fit(
        scaled, (codes == 1).astype(int))
    assert not np.allclose(fitted.coef_, unweighted.coef_, rtol=1e-3)


@pytest.mark.parametrize("class_weight, message", [
    ({0: 1.0, 7: 2.0}, r"not among the training labels: \[7\]"),
    ({0: -1.0}, "positive finite"),
    ({0: float("nan")}, "positive finite"),
])
def test_bad_class_weights_are_clear_errors(class_weight, message):
    K, codes, _, _ = problem(m=30)
    with pytest.raises(ValueError, match=message):
        AsKLSClassifier(class_weight=class_weight).fit(K, codes)


def test_class_weight_with_a_multi_label_target_is_an_error():
    K, _, _, _ = problem(m=30)
    Y = np.random.default_rng(0).integers(0, 2, (30, 3))
    with pytest.raises(ValueError, match="class_weight is not defined for a multi-label"):
        AsKLSClassifier(class_weight="balanced").fit(K, Y)


def test_cg_with_scores_solves_the_weighted_system_and_scores_every_sample():
    from digraph_askls.linalg._scores import solve_many_with_scores, solve_with_scores

    rng = np.random.default_rng(11)
    K_all = rng.uniform(size=(40, 40)) / 40
    rows = np.sort(rng.choice(40, 25, replace=False))
    codes = rng.integers(0, 3, 25)
    Y = -np.ones((25, 3))
    Y[np.arange(25), codes] = 1.0
    w = np.array([1.0, 3.0, 0.5])[codes]

    def products(B, A):
        return K_all[:, rows] @ B, K_all[rows, :].T @ A

    solution = solve_with_scores(products, rows, 40, Y, 0.5, rtol=1e-12, weights=w)
    x = reference(K_all[np.ix_(rows, rows)], 0.5, w, Y)
    np.testing.assert_allclose(solution.result.x, x, rtol=1e-8, atol=1e-10)
    b1, b2, a, b = x[0], x[1], x[2:27], x[27:]
    np.testing.assert_allclose(solution.source + solution.intercepts[0],
                               K_all[:, rows] @ b + b1, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(solution.target + solution.intercepts[1],
                               K_all[rows, :].T @ a + b2, rtol=1e-8, atol=1e-10)
    # Several weighted training sets through shared products, as the folds go.
    both = solve_many_with_scores(
        lambda blocks: [products(*block[1:]) if block[0] is rows else
                        (K_all[:, block[0]] @ block[1], K_all[block[0], :].T @ block[2])
                        for block in blocks],
        [(rows, Y, w), (rows[:10], Y[:10], w[:10])], 40, 0.5, rtol=1e-12)
    np.testing.assert_allclose(both[0].result.x, x, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(both[1].result.x,
                               reference(K_all[np.ix_(rows[:10], rows[:10])], 0.5, w[:10],
                                         Y[:10]), rtol=1e-8, atol=1e-10)


def test_tridiagonal_lssvm_solves_the_weighted_symmetric_system():
    from digraph_askls.linalg import TridiagonalLSSVM

    K, _, Y, w = problem(m=24, seed=12)
    K = (K + K.T) / 2
    tridiagonal = TridiagonalLSSVM(K, weights=w)
    folds = [np.arange(0, 8), np.arange(8, 16), np.arange(16, 24)]
    for gamma in (0.05, 0.4):
        intercepts, dual = tridiagonal.solve(Y, gamma)
        np.testing.assert_allclose(np.vstack([intercepts, dual[0], dual[1]]),
                                   reference(K, gamma, w, Y), rtol=1e-7, atol=1e-9)
        scores, _ = tridiagonal.fold_scores(Y, gamma, folds)
        expected, _ = SpectralAsKLS(K, weights=w).fold_scores(Y, gamma, folds)
        np.testing.assert_allclose(scores, expected, rtol=1e-7, atol=1e-9)
