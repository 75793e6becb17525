"""The spectral solver: every gamma and exact leave-one-out scores from one SVD.

Compared with dense solves of the paper's system (the label-dependent form, as the
paper writes it) and with brute-force refits that leave one sample out.
"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from digraph_askls import AsKLSClassifier, KernelViews, LSSVMClassifier
from digraph_askls.kernels import FactoredKernel
from digraph_askls.linalg import AsKLSSystem, SingularSystemError, SpectralAsKLS


def paper_system(K, y, gamma):
    """The paper's eq. (linear_system) with H = diag(y) K diag(y), built densely."""
    m = len(y)
    H = y[:, None] * K * y[None, :]
    M = np.zeros((2 * m + 2, 2 * m + 2))
    M[0, 2:2 + m] = M[2:2 + m, 0] = y
    M[1, 2 + m:] = M[2 + m:, 1] = y
    M[2:2 + m, 2:2 + m] = np.eye(m) / gamma
    M[2 + m:, 2 + m:] = np.eye(m) / gamma
    M[2:2 + m, 2 + m:] = H
    M[2 + m:, 2:2 + m] = H.T
    rhs = np.concatenate([[0.0, 0.0], np.ones(2 * m)])
    x = np.linalg.solve(M, rhs)
    return x[:2], x[2:2 + m], x[2 + m:]       # (b1, b2), alpha, beta


def kernels(kind, rng, m):
    if kind == "asymmetric":
        K = rng.normal(size=(m, m))
        return K, SpectralAsKLS(K)
    if kind == "symmetric":
        K = rng.normal(size=(m, m))
        K = K + K.T
        return K, SpectralAsKLS(K)
    U, V = rng.normal(size=(m, 4)), rng.normal(size=(m, 4))
    return U @ V.T, SpectralAsKLS(factors=(U, V))


@pytest.mark.parametrize("kind", ["asymmetric", "symmetric", "low rank"])
@pytest.mark.parametrize("gamma", [0.01, 0.3, 7.0])
def test_solution_equals_a_dense_solve_of_the_papers_system(kind, gamma):
    rng = np.random.default_rng(3)
    K, spectral = kernels(kind, rng, 25)
    y = np.where(rng.random(25) < 0.5, -1.0, 1.0)
    intercepts, dual = spectral.solve(y, gamma)
    (b1, b2), alpha, beta = paper_system(K, y, gamma)
    np.testing.assert_allclose(intercepts[:, 0], [b1, b2], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(dual[0, :, 0], y * alpha, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(dual[1, :, 0], y * beta, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("kind", ["asymmetric", "symmetric", "low rank"])
def test_leave_one_out_scores_equal_refits_without_the_sample(kind):
    rng = np.random.default_rng(4)
    m, gamma = 18, 0.2
    K, spectral = kernels(kind, rng, m)
    Y = np.where(rng.random((m, 3)) < 0.4, 1.0, -1.0)
    loo = spectral.loo_scores(Y, gamma)
    for i in range(m):
        keep = np.delete(np.arange(m), i)
        system = AsKLSSystem(K[np.ix_(keep, keep)], gamma=gamma)
        intercepts, dual = system.split(np.linalg.solve(system.to_dense(), system.rhs(Y[keep])))
        np.testing.assert_allclose(loo[0, i], K[i, keep] @ dual[1] + intercepts[0],
                                   rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(loo[1, i], K[keep, i] @ dual[0] + intercepts[1],
                                   rtol=1e-7, atol=1e-9)



@pytest.mark.parametrize("kind", ["asymmetric", "symmetric", "low rank"])
@pytest.mark.parametrize("batched", [True, False])
def test_folds_of_unequal_sizes_equal_refits_without_each_fold(kind, batched, monkeypatch):
    # Folds of one size are refitted as one stack (one batched solve); sizes 3, 4, 4 and 6
    # make three stacks, and the low-rank kernel (rank 4 < fold size 6) takes the
    # Woodbury route for its largest fold. Without SciPy's batched solve (before 1.15)
    # the stack is solved one system at a time: the same numbers.
    from digraph_askls.linalg import _spectral_folds
    from digraph_askls.linalg._spectral_folds import spectral_fold_scores
    monkeypatch.setattr(_spectral_folds, "_BATCHED_SOLVE", batched)
    rng = np.random.default_rng(5)
    m, gamma = 17, 0.2
    K, spectral = kernels(kind, rng, m)
    Y = np.where(rng.random((m, 2)) < 0.4, 1.0, -1.0)
    order = rng.permutation(m)
    folds = [np.sort(order[:3]), np.sort(order[3:7]), np.sort(order[7:11]),
             np.sort(order[11:])]
    scores, _ = spectral_fold_scores(spectral, Y, gamma, folds)
    for held in folds:
        keep = np.setdiff1d(np.arange(m), held)
        system = AsKLSSystem(K[np.ix_(keep, keep)], gamma=gamma)
        intercepts, dual = system.split(np.linalg.solve(system.to_dense(), system.rhs(Y[keep])))
        np.testing.assert_allclose(scores[0, held], K[np.ix_(held, keep)] @ dual[1]
                                   + intercepts[0], rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(scores[1, held], K[np.ix_(keep, held)].T @ dual[0]
                                   + intercepts[1], rtol=1e-7, atol=1e-9)

def test_a_symmetric_kernel_gives_the_lssvm_proposition_2():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 3))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    intercepts, dual = SpectralAsKLS(K).solve(y, 2.0)
    lssvm = LSSVMClassifier(gamma=2.0).fit(K, y)
    np.testing.assert_allclose(dual[0, :, 0], dual[1, :, 0], atol=1e-10)
    np.testing.assert_allclose(intercepts[0], intercepts[1], atol=1e-10)
    np.testing.assert_allclose(dual[0, :, 0], lssvm.dual_coef_, rtol=1e-8, atol=1e-10)


def test_gamma_at_a_singular_value_is_refused():
    K = np.diag([2.0, 1.0, 0.5])
    with pytest.raises(SingularSystemError, match="gamma \\* s_i\\(K\\) = 1"):
        SpectralAsKLS(K).solve(np.array([1.0, -1.0, 1.0]), gamma=1.0)


def test_permuting_the_samples_permutes_the_scores():
    rng = np.random.default_rng(6)
    K, _ = kernels("asymmetric", rng, 20)
    Y = np.where(rng.random((20, 2)) < 0.5, 1.0, -1.0)
    order = rng.permutation(20)
    loo = SpectralAsKLS(K).loo_scores(Y, 0.1)
    permuted = SpectralAsKLS(K[np.ix_(order, order)]).loo_scores(Y[order], 0.1)
    np.testing.assert_allclose(permuted, loo[:, order], rtol=1e-8, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(m=st.integers(3, 12), d=st.integers(1, 5), gamma=st.floats(0.01, 5.0),
       seed=st.integers(0, 10_000))
def test_feature_maps_and_their_dense_kernel_agree(m, d, gamma, seed):
    rng = np.random.default_rng(seed)
    U, V = rng.normal(size=(m, d)), rng.normal(size=(m, d))
    Y = np.where(rng.random((m, 2)) < 0.5, 1.0, -1.0)
    try:
        thin = SpectralAsKLS(factors=(U, V)).loo_scores(Y, gamma)
        full = SpectralAsKLS(U @ V.T).loo_scores(Y, gamma)
    except SingularSystemError:
        return                                   # gamma * s_i = 1 within rounding
    scale = 1 + np.abs(full).max()
    np.testing.assert_allclose(thin, full, atol=1e-6 * scale)


@pytest.mark.parametrize("merge", ["joint_loo", "stack_loo"])
def test_loo_merges_predict_through_the_usual_views(merge):
    rng = np.random.default_rng(7)
    U = rng.normal(size=(60, 5))
    V = U + 0.3 * rng.normal(size=(60, 5))
    y = np.argmax(U[:, :3], axis=1)
    train, test = np.arange(40), np.arange(40, 60)
    dense = U @ V.T
    model = AsKLSClassifier(gamma=0.05, merge=merge).fit(dense[np.ix_(train, train)], y[train])
    assert model.solver_result_.solver == "spectral"
    assert model.solver_result_.residual_norm.max() < 1e-10
    factored = FactoredKernel(U, V)
    other = AsKLSClassifier(gamma=0.05, merge=merge).fit(factored.restrict(train, train),
                                                         y[train])
    views = KernelViews(dense[np.ix_(test, train)], dense[np.ix_(train, test)])
    np.testing.assert_allclose(model.decision_function(views),
                               other.decision_function(views), rtol=1e-6, atol=1e-8)
    assert model.score(views, y[test]) > 0.7


def test_the_tridiagonal_reduction_gives_what_the_decomposition_gives_for_a_symmetric_kernel():
    """``TridiagonalLSSVM`` (``K = Q T Q^T``) solves, scores folds of unequal sizes and
    refuses singular gammas as ``SpectralAsKLS`` does for a symmetric, indefinite kernel."""
    from digraph_askls.linalg import SingularSystemError, SpectralAsKLS, TridiagonalLSSVM

    rng = np.random.default_rng(4)
    A = rng.standard_normal((90, 20))
    K = A @ A.T / 20 - 0.3 * np.eye(90)
    Y = np.where(rng.random((90, 3)) < 0.4, 1.0, -1.0)
    folds = np.array_split(rng.permutation(90), 7)
    tridiagonal, spectral = TridiagonalLSSVM(K), SpectralAsKLS(K)
    np.testing.assert_allclose(np.sort(np.abs(tridiagonal.eigenvalues)),
                               np.sort(spectral.singular_values), atol=1e-12)
    for gamma in (0.05, 2.0, 50.0):
        for mine, theirs in zip(tridiagonal.solve(Y, gamma), spectral.solve(Y, gamma)):
            np.testing.assert_allclose(mine, theirs, rtol=1e-8, atol=1e-10)
        scores, (intercepts, dual) = tridiagonal.fold_scores(Y, gamma, folds)
        reference, (ref_intercepts, ref_dual) = spectral.fold_scores(Y, gamma, folds)
        np.testing.assert_allclose(scores, reference, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(intercepts, ref_intercepts, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(dual, ref_dual, rtol=1e-8, atol=1e-10)
    # gamma * s_i = 1: singular for both.
    singular = 1.0 / np.abs(tridiagonal.eigenvalues)[10]
    for solver in (tridiagonal, spectral):
        with pytest.raises(SingularSystemError, match="singular for gamma"):
            solver.solve(Y, singular)
    one = TridiagonalLSSVM(np.array([[2.0]]))
    assert one.eigenvalues.tolist() == [2.0]
    for m in (1, 2, 3):                     # the smallest blocks, SciPy's n = 2 included
        small = np.eye(m) + 0.1
        for mine, theirs in zip(TridiagonalLSSVM(small).solve(np.ones(m), 0.5),
                                SpectralAsKLS(small).solve(np.ones(m), 0.5)):
            np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="finite"):
        TridiagonalLSSVM(np.full((3, 3), np.nan))
    with pytest.raises(ValueError, match="rows"):
        tridiagonal.solve(Y[:5], 1.0)


@pytest.mark.parametrize("symmetric", [True, False])
def test_decompositions_run_on_the_decomposition_threads(monkeypatch, symmetric):
    # OpenBLAS's threaded SVD and eigh slow down tenfold when another process holds a core;
    # the decomposition limits BLAS to DECOMPOSITION_THREADS through the process's one
    # controller, and gives the threads back afterwards.
    from threadpoolctl import threadpool_info

    from digraph_askls.linalg import _spectral

    def blas_threads():
        return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]

    seen = []
    for name in ("eigh", "svd"):
        original = getattr(np.linalg, name)

        def spy(*args, _original=original, **kwargs):
            seen.append(blas_threads())
            return _original(*args, **kwargs)

        monkeypatch.setattr(np.linalg, name, spy)
    before = blas_threads()
    rng = np.random.default_rng(0)
    K = rng.normal(size=(30, 30))
    SpectralAsKLS(K @ K.T if symmetric else K)
    assert seen and all(n == _spectral.DECOMPOSITION_THREADS for pools in seen for n in pools)
    assert blas_threads() == before


@pytest.mark.parametrize("second", ["same object", "equal copy", "sparse, same object"])
def test_a_symmetric_kernels_maps_are_factorised_once(monkeypatch, second):
    # K = U U^T: the thin SVD reduces the one map, whether the kernel hands it over once
    # (U is V), as an equal copy, or sparse; it solves what the dense kernel solves.
    from scipy import sparse

    rng = np.random.default_rng(4)
    U = rng.normal(size=(40, 6))
    y = np.where(rng.random(40) < 0.5, -1.0, 1.0)
    dense = SpectralAsKLS(U @ U.T).solve(y, 0.3)
    calls = []
    original = np.linalg.qr

    def counted(matrix, *args, **kwargs):
        calls.append(matrix.shape)
        return original(matrix, *args, **kwargs)

    monkeypatch.setattr(np.linalg, "qr", counted)
    maps = {"same object": (U, U), "equal copy": (U, U.copy()),
            "sparse, same object": (sparse.csr_matrix(U),) * 2}[second]
    once = SpectralAsKLS(factors=maps)
    assert calls == [(40, 6)]
    for got, expected in zip(once.solve(y, 0.3), dense):
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    calls.clear()
    SpectralAsKLS(factors=(U, U + 0.1 * rng.normal(size=U.shape)))   # both reduced
    assert len(calls) == 2
