"""Preconditioned solvers against dense solves of the same system."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from digraph_askls.linalg import (
    AsKLSSystem, make_preconditioner, saddle_matrix, solve_system,
)


def sparse_kernel(n=60, density=0.08, seed=0):
    rng = np.random.default_rng(seed)
    K = sp.random(n, n, density=density, random_state=rng, format="csr")
    K = K + sp.identity(n)
    row_sums = np.asarray(K.sum(axis=1)).ravel()
    return sp.csr_matrix(sp.diags(1.0 / row_sums) @ K)


def labels(n, k=3, seed=1):
    codes = np.random.default_rng(seed).integers(0, k, n)
    Y = -np.ones((n, k))
    Y[np.arange(n), codes] = 1.0
    return Y


def relative(x, reference):
    return np.abs(x - reference).max() / np.abs(reference).max()


@pytest.mark.parametrize("lam", [0.0, 1.0])
def test_jacobi_inverts_the_diagonal_blocks(lam):
    K = sparse_kernel()
    system = AsKLSSystem(K, gamma=0.5)
    A = system.to_dense()
    if lam:
        A = A @ A + lam * np.eye(system.size)
    m = system.n_train
    M = make_preconditioner(system, "jacobi", regularization=lam)
    P = M(np.eye(system.size))
    assert np.allclose(P, P.T)
    assert np.linalg.eigvalsh(P).min() > 0
    if lam:
        # The exact 2x2 blocks of M^2 + lambda I on the pairs (a_i, b_i).
        i = 7
        pair = [2 + i, 2 + m + i]
        block = A[np.ix_(pair, pair)]
        assert np.allclose(np.linalg.inv(block), P[np.ix_(pair, pair)])
        assert np.isclose(P[0, 0], 1.0 / A[0, 0])


def test_saddle_matrix_is_the_operator():
    system = AsKLSSystem(sparse_kernel(), gamma=0.5)
    assert np.allclose(saddle_matrix(system).toarray(), system.to_dense())


@pytest.mark.parametrize("solver,preconditioner", [
    ("batched", "jacobi"), ("minres", "jacobi"), ("gmres", None), ("gmres", "jacobi"),
    ("gmres", "ilu"),
])
@pytest.mark.parametrize("regularization", [None, 1.0])
def test_preconditioned_solvers_match_dense(solver, preconditioner, regularization):
    if preconditioner == "ilu" and regularization:
        pytest.skip("ilu is for the exact system")
    system = AsKLSSystem(sparse_kernel(), gamma=0.5)
    Y = labels(system.n_train)
    reference = solve_system(system, Y, solver="dense", regularization=regularization).x
    result = solve_system(system, Y, solver=solver, regularization=regularization,
                          preconditioner=preconditioner, rtol=1e-12)
    assert result.converged
    assert relative(result.x, reference) < 1e-8


def test_preconditioner_cuts_batched_iterations():
    system = AsKLSSystem(sparse_kernel(400, density=0.01), gamma=0.5)
    Y = labels(system.n_train)
    plain = solve_system(system, Y, solver="batched", regularization=1.0,
                         preconditioner=None)
    jacobi = solve_system(system, Y, solver="batched", regularization=1.0,
                          preconditioner="jacobi")
    assert jacobi.n_iter < plain.n_iter


def test_ilu_falls_back_to_jacobi_on_singular_systems():
    # gamma * K_ii = 1 on samples without neighbours: singular, damped fallback.
    K = sp.identity(20, format="csr")
    system = AsKLSSystem(K, gamma=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = solve_system(system, labels(20), solver="gmres", preconditioner="ilu")
    reference = solve_system(system, labels(20), solver="dense", regularization=1.0).x
    assert result.regularization == 1.0
    assert relative(result.x, reference) < 1e-8


@pytest.mark.parametrize("solver,preconditioner,message", [
    ("batched", "ilu", "works with solvers"),
    ("lsqr", "jacobi", "works with solvers"),
    ("batched", "diagonal", "unknown preconditioner"),
])
def test_bad_preconditioner_names_the_choices(solver, preconditioner, message):
    system = AsKLSSystem(sparse_kernel(), gamma=0.5)
    with pytest.raises(ValueError, match=message):
        solve_system(system, labels(system.n_train), solver=solver,
                     preconditioner=preconditioner)


def test_auto_preconditions_damped_batched_on_sparse_kernels_only():
    from digraph_askls.linalg import choose_preconditioner

    assert choose_preconditioner(AsKLSSystem(sparse_kernel(), 0.5), "batched") == "jacobi"
    assert choose_preconditioner(AsKLSSystem(sparse_kernel().toarray(), 0.5), "batched") is None
    assert choose_preconditioner(AsKLSSystem(sparse_kernel(), 0.5), "minres") is None
    assert choose_preconditioner(AsKLSSystem(sparse_kernel(), 0.5), "batched", 0.0) is None
