"""The solver layer against dense solves of the paper's own (label-dependent) system."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from scipy.sparse.linalg import aslinearoperator, cg, minres
from sklearn.exceptions import ConvergenceWarning

from digraph_askls.linalg import (
    SOLVERS, AsKLSSystem, LSSVMSystem, NotPositiveDefinite, SingularSystemError,
    SingularSystemWarning,
    batched_cg, batched_minres, solve_system,
)


def paper_system(K, y, gamma):
    """The paper's eq. (linear_system), built entry by entry from K and y."""
    m = y.size
    H = np.outer(y, y) * K
    A = np.zeros((2 * m + 2, 2 * m + 2))
    A[0, 2:2 + m] = y
    A[1, 2 + m:] = y
    A[2:2 + m, 0] = y
    A[2 + m:, 1] = y
    A[2:2 + m, 2:2 + m] = np.eye(m) / gamma
    A[2:2 + m, 2 + m:] = H
    A[2 + m:, 2:2 + m] = H.T
    A[2 + m:, 2 + m:] = np.eye(m) / gamma
    r = np.concatenate([[0.0, 0.0], np.ones(2 * m)])
    return A, r


def to_label_free(x, y):
    m = y.size
    return np.concatenate([x[:2], y * x[2:2 + m], y * x[2 + m:]])


def relative_error(x, reference):
    return np.abs(x - reference).max() / np.abs(reference).max()


problems = st.tuples(
    st.integers(min_value=3, max_value=25),          # n_train
    st.floats(min_value=0.05, max_value=20.0),       # gamma
    st.integers(min_value=0, max_value=2**32 - 1),   # seed
    st.sampled_from(["dense", "sparse", "operator"]),
)


def make_problem(m, seed, form):
    rng = np.random.default_rng(seed)
    K = rng.random((m, m)) * (rng.random((m, m)) < 0.6)
    y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
    y[:2] = [1.0, -1.0]
    kernel = {"dense": K, "sparse": sp.csr_matrix(K), "operator": aslinearoperator(K)}[form]
    return K, kernel, y


# Largest relative deviation from the dense reference seen by the tests below.
DEVIATIONS = {}


@settings(max_examples=40, deadline=None)
@given(problems)
@example((25, 17.5, 25, "dense"))   # restarted GMRES stops just above rtol=1e-13 here
# LSQR's own test (atol ||A|| ||x||) stopped it at relative residual 1e-8 here (cond 1e5)
@example((22, 0.844859379883027, 22, "dense"))
def test_every_solver_matches_dense_solve_of_paper_system(problem):
    m, gamma, seed, form = problem
    K, kernel, y = make_problem(m, seed, form)
    A, r = paper_system(K, y, gamma)
    assume(np.linalg.cond(A) < 1e5)
    reference = to_label_free(np.linalg.solve(A, r), y)
    system = AsKLSSystem(kernel, gamma)
    for solver in SOLVERS:
        if solver == "dense" and form == "operator":
            continue
        with warnings.catch_warnings():
            # Restarted GMRES may stop a little above rtol=1e-13 (it warns); the residual
            # and the deviation from the dense solve are asserted below.
            warnings.simplefilter("ignore", ConvergenceWarning)
            result = solve_system(system, y, solver=solver, regularization=None, rtol=1e-13)
        # A solver that stops short of rtol is at the rounding floor, cond(A) * eps
        # (up to 1e-11 at the cond 1e5 allowed here; batched CG: 1.5e-11, info 111).
        assert result.info == 0 or result.residual_norm.max() < 1e-10
        error = relative_error(result.x[:, 0], reference)
        DEVIATIONS[solver] = max(DEVIATIONS.get(solver, 0.0), error)
        assert error < 1e-8, (solver, error)


@settings(max_examples=25, deadline=None)
@given(problems, st.floats(min_value=0.01, max_value=10.0))
def test_damped_least_squares_matches_dense_normal_equations(problem, lam):
    m, gamma, seed, form = problem
    K, kernel, y = make_problem(m, seed, form)
    A, r = paper_system(K, y, gamma)
    assume(np.linalg.cond(A.T @ A + lam * np.eye(A.shape[0])) < 1e6)
    reference = np.linalg.solve(A.T @ A + lam * np.eye(A.shape[0]), A.T @ r)
    reference = to_label_free(reference, y)
    system = AsKLSSystem(kernel, gamma)
    for solver in SOLVERS:
        if solver == "dense" and form == "operator":
            continue
        result = solve_system(system, y, solver=solver, regularization=lam, rtol=1e-13)
        assert result.regularization == lam
        assert relative_error(result.x[:, 0], reference) < 1e-8, solver


def test_many_right_hand_sides_equal_single_solves():
    K, _, _ = make_problem(20, 3, "dense")
    rng = np.random.default_rng(1)
    Y = np.where(rng.random((20, 4)) < 0.5, -1.0, 1.0)
    system = AsKLSSystem(sp.csr_matrix(K), 0.7)
    block = solve_system(system, Y, solver="batched", regularization=None, rtol=1e-13)
    for j in range(4):
        single = solve_system(system, Y[:, j], solver="dense", regularization=None)
        assert relative_error(block.x[:, j], single.x[:, 0]) < 1e-9


def test_batched_minres_and_cg_agree_with_scipy():
    rng = np.random.default_rng(0)
    B = rng.standard_normal((40, 3))
    S = rng.standard_normal((40, 40))
    indefinite = S + S.T
    spd = S @ S.T + 40 * np.eye(40)
    X, info, _ = batched_minres(lambda V: indefinite @ V, B, rtol=1e-12)
    assert info == 0
    for j in range(3):
        x_ref, flag = minres(indefinite, B[:, j], rtol=1e-14, maxiter=2000)
        assert relative_error(X[:, j], x_ref) < 1e-7
    X, info, _ = batched_cg(lambda V: spd @ V, B, rtol=1e-12)
    assert info == 0
    for j in range(3):
        x_ref, flag = cg(spd, B[:, j], rtol=1e-14)
        assert relative_error(X[:, j], x_ref) < 1e-9


def test_batched_solvers_accept_spd_preconditioner_and_warm_start():
    rng = np.random.default_rng(2)
    S = rng.standard_normal((30, 30))
    A = S + S.T + np.diag(np.linspace(1, 50, 30))
    B = rng.standard_normal((30, 2))
    d = np.abs(np.diag(A))
    X, info, iters = batched_minres(lambda V: A @ V, B, rtol=1e-12, M=lambda R: R / d[:, None])
    assert info == 0 and np.allclose(A @ X, B, atol=1e-9)
    _, info, cold_iters = batched_minres(lambda V: A @ V, B, rtol=1e-8)
    exact = np.linalg.solve(A, B)
    _, info, warm_iters = batched_minres(lambda V: A @ V, B, x0=exact + 1e-10, rtol=1e-8)
    assert info == 0 and warm_iters < cold_iters


def decoupled_kernel():
    """Three training samples with only a unit diagonal: singular for gamma = 1."""
    K = np.array([
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.5, 0.5, 0.0],
        [0.0, 0.0, 0.0, 0.3, 0.4, 0.3],
        [0.0, 0.0, 0.0, 0.0, 0.5, 0.5],
    ])
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    return K, y


@pytest.mark.parametrize("solver", sorted(SOLVERS))
def test_singular_system_warns_and_returns_damped_solution(solver):
    K, y = decoupled_kernel()
    A, r = paper_system(K, y, 1.0)
    assert np.linalg.matrix_rank(A) < A.shape[0]
    system = AsKLSSystem(sp.csr_matrix(K), 1.0)
    with pytest.warns(SingularSystemWarning, match=r"gamma \* s_i\(K\) = 1"):
        result = solve_system(system, y, solver=solver, rtol=1e-13)
    reference = to_label_free(np.linalg.solve(A.T @ A + np.eye(A.shape[0]), A.T @ r), y)
    assert np.all(np.isfinite(result.x))
    assert result.regularization == 1.0
    assert relative_error(result.x[:, 0], reference) < 1e-8


def test_singular_system_raises_when_exact_solution_is_asked():
    K, y = decoupled_kernel()
    with pytest.raises(SingularSystemError, match="null space"):
        solve_system(AsKLSSystem(K, 1.0), y, regularization=None)


def test_numerically_singular_system_found_by_condition_estimate():
    # No decoupled sample, but the singular value 1 has multiplicity 3 and gamma = 1:
    # three null vectors [u; -u] of the inner block, two bias rows, one survives.
    rng = np.random.default_rng(0)
    U = np.linalg.qr(rng.standard_normal((8, 3)))[0]
    K = U @ U.T
    assert np.count_nonzero(K) == K.size
    y = np.array([1.0, -1.0] * 4)
    with pytest.warns(SingularSystemWarning):
        result = solve_system(AsKLSSystem(K, 1.0), y, solver="dense")
    assert result.regularization == 1.0 and result.rcond < 1e-8


def test_regular_system_gives_no_warning():
    K, _, y = make_problem(10, 0, "dense")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        solve_system(AsKLSSystem(K, 0.3), y)


def test_lssvm_system_matches_dense_solve():
    rng = np.random.default_rng(0)
    S = rng.random((12, 12))
    K = (S + S.T) / 2
    y = np.where(rng.random(12) < 0.5, -1.0, 1.0)
    A = np.zeros((13, 13))
    A[0, 1:] = y
    A[1:, 0] = y
    A[1:, 1:] = np.outer(y, y) * K + np.eye(12) / 2.0
    reference = np.linalg.solve(A, np.concatenate([[0.0], np.ones(12)]))
    reference[1:] *= y
    for solver in SOLVERS:
        result = solve_system(LSSVMSystem(K, 2.0), y, solver=solver, rtol=1e-13)
        assert relative_error(result.x[:, 0], reference) < 1e-8


@pytest.mark.parametrize("bad, message", [
    (np.ones((3, 4)), "square"),
    (np.array([[1.0, np.nan], [0.0, 1.0]]), "finite"),
    (np.ones(3), "2-dimensional"),
])
def test_bad_kernels_are_rejected(bad, message):
    with pytest.raises(ValueError, match=message):
        AsKLSSystem(bad, 1.0)


def test_bad_arguments_name_what_was_expected():
    system = AsKLSSystem(np.eye(3), 1.0)
    with pytest.raises(ValueError, match="unknown solver 'cholesky'; choose from"):
        solve_system(system, np.ones(3), solver="cholesky")
    with pytest.raises(ValueError, match="gamma must be a positive"):
        AsKLSSystem(np.eye(3), 0.0)
    with pytest.raises(ValueError, match="regularization must be"):
        solve_system(system, np.ones(3), regularization=-1.0)
    with pytest.raises(ValueError, match="3 rows"):
        solve_system(system, np.ones(4))


@pytest.mark.parametrize("system_class", [AsKLSSystem, LSSVMSystem])
def test_bias_eliminated_cg_matches_dense_solve(system_class, monkeypatch):
    # Small gamma: the block without the intercept rows is positive definite, so the
    # batched solver runs CG on it and eliminates the intercepts; it must give the dense
    # solution and report the true residual (known from CG's recurrence, no product).
    from digraph_askls.linalg import _solve

    taken = []
    original = _solve._solve_deflated
    monkeypatch.setattr(_solve, "_solve_deflated",
                        lambda *a, **k: taken.append(1) or original(*a, **k))
    rng = np.random.default_rng(4)
    m = 300
    K = sp.random_array((m, m), density=0.05, random_state=5, format="csr")
    if system_class is LSSVMSystem:
        K = K + K.T + sp.eye_array(m)
    Y = np.where(rng.random((m, 3)) < 0.3, 1.0, -1.0)
    system = system_class(aslinearoperator(K), gamma=0.05)   # g * s_max(K) ~ 0.4
    result = solve_system(system, Y, solver="batched", regularization=None, rtol=1e-10)
    assert taken and result.info == 0 and result.n_iter < 30
    dense = system_class(K.toarray(), gamma=0.05)
    R = dense.rhs(Y)
    reference = np.linalg.solve(dense.to_dense(), R)
    assert relative_error(result.x, reference) < 1e-8
    true = np.linalg.norm(R - dense.to_dense() @ result.x, axis=0) / np.linalg.norm(R, axis=0)
    assert true.max() < 2e-10
    np.testing.assert_allclose(result.residual_norm, true, rtol=1e-2, atol=1e-14)


def test_indefinite_inner_block_falls_back_to_minres(monkeypatch):
    from digraph_askls.linalg import _solve

    failures = []
    original = _solve._solve_deflated

    def spy(*args, **kwargs):
        try:
            return original(*args, **kwargs)
        except NotPositiveDefinite:
            failures.append(1)
            raise

    monkeypatch.setattr(_solve, "_solve_deflated", spy)
    K, kernel, y = make_problem(40, 3, "sparse")
    gamma = 5.0                      # g * s_max(K) >> 1: H is indefinite
    A, r = paper_system(K, y, gamma)
    result = solve_system(AsKLSSystem(kernel, gamma), y, solver="batched",
                          regularization=None, rtol=1e-12)
    assert failures
    reference = to_label_free(np.linalg.solve(A, r), y)
    assert relative_error(result.x[:, 0], reference) < 1e-8


def test_large_dense_cholesky_runs_on_one_blas_thread(monkeypatch):
    # OpenBLAS's threaded Cholesky crashed the process from ~16,000 unknowns: above
    # CHOLESKY_THREADED_MAX the damped dense solve limits BLAS to one thread.
    from threadpoolctl import threadpool_info

    from digraph_askls.linalg import _dense

    K, kernel, y = make_problem(20, 7, "dense")
    system = AsKLSSystem(kernel, 1.0)
    reference = solve_system(system, y, solver="dense", regularization=1.0).x
    seen = []
    original = _dense._one_blas_thread

    def spy():
        limiter = original()
        seen.append([pool["num_threads"] for pool in threadpool_info()
                     if pool["user_api"] == "blas"])
        return limiter

    monkeypatch.setattr(_dense, "THREADED_MIN", 0)
    monkeypatch.setattr(_dense, "CHOLESKY_THREADED_MAX", 10)
    monkeypatch.setattr(_dense, "_one_blas_thread", spy)
    limited = solve_system(system, y, solver="dense", regularization=1.0).x
    assert seen and all(n == 1 for n in seen[0])
    np.testing.assert_allclose(limited, reference, rtol=1e-12, atol=1e-14)


def test_small_dense_solves_run_on_one_blas_thread(monkeypatch):
    # Starting threads costs more than a small factorisation; on a busy machine, far more.
    from threadpoolctl import threadpool_info

    from digraph_askls.linalg import _dense

    seen = []
    original = _dense._one_blas_thread

    def spy():
        limiter = original()
        seen.append([pool["num_threads"] for pool in threadpool_info()
                     if pool["user_api"] == "blas"])
        return limiter

    monkeypatch.setattr(_dense, "_one_blas_thread", spy)
    K, kernel, y = make_problem(20, 8, "dense")
    solve_system(AsKLSSystem(kernel, 0.5), y, solver="dense", regularization=None)
    assert len(seen) == 1 and all(n == 1 for n in seen[0])
    monkeypatch.setattr(_dense, "THREADED_MIN", 10)
    solve_system(AsKLSSystem(kernel, 0.5), y, solver="dense", regularization=None)
    assert len(seen) == 1


def test_cg_with_no_iteration_allowed_reports_not_converged():
    A = np.diag([1.0, 2.0, 3.0])
    X, info, n_iter = batched_cg(lambda V: A @ V, np.ones((3, 1)), maxiter=0)
    assert n_iter == 0 and info != 0 and not X.any()


def _record_limits(monkeypatch, dense):
    """Replace the process's controller by one that records each limit asked of it."""
    built = []

    class Controller:
        def limit(self, limits, user_api):
            built.append((limits, user_api))
            return dense.nullcontext()

    monkeypatch.setattr(dense, "_blas_controller", Controller)
    return built


@pytest.mark.parametrize("variables, started_on_one", [
    ({"OMP_NUM_THREADS": "1"}, True),
    ({"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}, True),
    ({"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "2"}, False),
    ({"OMP_NUM_THREADS": "4"}, False),
    ({}, False),
])
def test_one_blas_thread_inspects_no_library_where_the_environment_pins_one(
        monkeypatch, variables, started_on_one):
    # Building the process's controller inspects every loaded library (20-70 ms, the
    # first time): where the environment started BLAS on one thread there is nothing to
    # limit; elsewhere the limit is applied through the controller.
    from digraph_askls.linalg import _dense

    for name in ("OMP_NUM_THREADS", *_dense.BLAS_THREAD_VARIABLES):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    # as the module reads them once, at its import
    monkeypatch.setattr(_dense, "STARTED_ON_ONE_THREAD", _dense._started_on_one_thread())
    built = _record_limits(monkeypatch, _dense)
    with _dense.one_blas_thread():
        pass
    with _dense.one_blas_thread(2):       # more than one thread: always through it
        pass
    assert built == ([] if started_on_one else [(1, "blas")]) + [(2, "blas")]


def test_a_thread_variable_set_after_the_import_does_not_lift_the_limit(monkeypatch):
    # Dask's nanny sets OMP_NUM_THREADS=1 in the parent process when a LocalCluster
    # starts; BLAS already runs on the threads it started on, so the limit still applies.
    from digraph_askls.linalg import _dense

    monkeypatch.setattr(_dense, "STARTED_ON_ONE_THREAD", False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    built = _record_limits(monkeypatch, _dense)
    with _dense.one_blas_thread():
        pass
    assert built == [(1, "blas")]
