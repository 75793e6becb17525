"""The distributed kernel operator and the joblib dask backend on a local 2-process cluster."""

import functools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip(
    "dask.distributed", reason='dask is an optional extra: pip install ".[dask]"')
joblib = pytest.importorskip("joblib", reason="joblib is part of the dask extra")

from digraph_askls.datasets import load_dataset, make_directed_sbm  # noqa: E402
from digraph_askls.distributed import DaskKernelOperator, row_block_bounds  # noqa: E402
from digraph_askls.model_selection import evaluate_node_classifier, random_splits  # noqa: E402
from digraph_askls.kernels import get_in_degree_kernel, restrict_kernel  # noqa: E402
from digraph_askls.linalg import AsKLSSystem, SingularSystemWarning, solve_system  # noqa: E402
from digraph_askls.models import NodeClassifier  # noqa: E402


def _one_vs_rest(codes):
    Y = -np.ones((codes.size, codes.max() + 1))
    Y[np.arange(codes.size), codes] = 1.0
    return Y


def _relative_deviation(x, reference):
    return np.abs(x - reference).max() / np.abs(reference).max()


def _training_problem(adjacency, labels):
    _, train, _ = random_splits(labels, train_size=0.6, n_trials=1, random_state=0)[0]
    kernel = restrict_kernel(get_in_degree_kernel(adjacency), train, train)
    return sp.csr_matrix(kernel), _one_vs_rest(labels[train])


def test_row_block_bounds_balance_nonzeros():
    indptr = np.array([0, 10, 10, 10, 11, 12, 13])
    bounds = row_block_bounds(6, 2, indptr)
    assert bounds.tolist() == [0, 1, 6]
    with pytest.raises(ValueError, match="n_blocks must be an integer in"):
        row_block_bounds(3, 4)


@pytest.mark.parametrize("transpose", ["reduce", "store"])
def test_products_and_structure_match_the_local_kernel(dask_client, transpose):
    K = sp.random(300, 300, density=0.02, format="csr", random_state=1) + sp.eye(300)
    op = DaskKernelOperator(K, dask_client, n_blocks=3, transpose=transpose)
    X = np.random.default_rng(0).standard_normal((300, 4))
    assert op.n_blocks == 3
    if transpose == "store":
        np.testing.assert_array_equal(op.T @ X, K.T @ X)
    np.testing.assert_array_equal(op @ X, K @ X)
    np.testing.assert_allclose(op.T @ X, K.T @ X, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(op.rmatvec(X[:, 0]), K.T @ X[:, 0], rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(op.diagonal(), K.diagonal())
    offdiag = K - sp.diags(K.diagonal())
    offdiag.eliminate_zeros()
    rows, cols = op.off_diagonal_counts()
    np.testing.assert_array_equal(rows, np.diff(offdiag.tocsr().indptr))
    np.testing.assert_array_equal(cols, np.diff(offdiag.tocsc().indptr))
    with pytest.raises(TypeError, match="scipy sparse matrix, got ndarray"):
        DaskKernelOperator(K.toarray(), dask_client)
    with pytest.raises(ValueError, match="transpose must be 'reduce' or 'store', got 'x'"):
        DaskKernelOperator(K, dask_client, transpose="x")


def test_pubmed_distributed_solve_equals_local(dask_client, shared_datasets):
    graph = load_dataset("pubmed", data_home=shared_datasets, download=False)
    K, Y = _training_problem(graph.adjacency, graph.labels)
    with pytest.warns(SingularSystemWarning, match="singular"):
        # The same iteration on both sides: no preconditioner (the local sparse kernel
        # would otherwise get the block Jacobi one, which the operator cannot build).
        local = solve_system(AsKLSSystem(K, gamma=1.0), Y, solver="batched",
                             preconditioner=None)
    op = DaskKernelOperator(K, dask_client)
    with pytest.warns(SingularSystemWarning, match="singular"):
        remote = solve_system(AsKLSSystem(op, gamma=1.0), Y, solver="batched",
                              preconditioner=None)
    assert local.regularization == remote.regularization == 1.0
    assert abs(local.n_iter - remote.n_iter) <= 2
    assert _relative_deviation(remote.x, local.x) < 1e-8


def test_sbm_1e5_distributed_solve_equals_local(dask_client):
    adjacency, labels = make_directed_sbm(100_000, n_classes=4, avg_degree=8, p_in=0.7,
                                          random_state=0)
    K, Y = _training_problem(adjacency, labels)
    options = dict(solver="batched", regularization=1.0, maxiter=5, preconditioner=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fixed number of iterations on both sides
        local = solve_system(AsKLSSystem(K, gamma=1.0), Y, **options)
        for transpose in ("reduce", "store"):
            op = DaskKernelOperator(K, dask_client, n_blocks=4, transpose=transpose)
            remote = solve_system(AsKLSSystem(op, gamma=1.0), Y, **options)
            op.close()
            assert local.n_iter == remote.n_iter == 5
            deviation = _relative_deviation(remote.x, local.x)
            # "store" repeats the local products bit for bit; "reduce" sums K_b^T X_b in
            # another order and CG amplifies that rounding (3e-8 after 10 iterations here).
            assert deviation == 0.0 if transpose == "store" else deviation < 1e-6, (
                transpose, deviation)


def _classifier(seed):
    return NodeClassifier(merge="average", random_state=seed)


def test_joblib_dask_backend_gives_the_serial_trials(dask_client):
    adjacency, labels = make_directed_sbm(2000, n_classes=3, avg_degree=6, p_in=0.7,
                                          random_state=0)
    splits = random_splits(labels, train_size=0.6, n_trials=4, random_state=0)
    run = functools.partial(evaluate_node_classifier, _classifier, adjacency, labels,
                            splits=splits, verbose=False)
    serial = run()
    with joblib.parallel_backend("dask"):
        parallel = run(n_jobs=-1)
    assert len(parallel.micro_f1) == 4
    assert parallel.micro_f1 == serial.micro_f1
    assert parallel.macro_f1 == serial.macro_f1


def test_node_classifier_operator_hook(dask_client):
    adjacency, classes = make_directed_sbm(600, n_classes=3, avg_degree=6, p_in=0.7,
                                           random_state=1)
    labels = np.where(np.arange(600) % 3 == 0, -1, classes)
    local = NodeClassifier(kernel="in_degree", gamma=1.0, merge="average", solver="batched",
                           tol=1e-12).fit(adjacency, labels)
    remote = NodeClassifier(kernel="in_degree", gamma=1.0, merge="average", solver="batched",
                            tol=1e-12,
                            operator=functools.partial(DaskKernelOperator, client=dask_client))
    remote.fit(adjacency, labels)
    assert remote.estimator_.solver_result_.solver == "batched"
    np.testing.assert_allclose(remote.decision_function(), local.decision_function(),
                               rtol=1e-8, atol=1e-8)


def test_missing_extra_is_named(monkeypatch):
    import sys

    from digraph_askls.distributed import import_optional

    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(ImportError, match=r'pip install "\.\[dask\]" from the repository root'):
        import_optional("dask.distributed")


def test_importing_the_subpackage_does_not_import_dask():
    import subprocess
    import sys

    code = ("import sys, digraph_askls.distributed; "
            "print(any(name.split('.')[0] in ('dask', 'distributed') for name in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
