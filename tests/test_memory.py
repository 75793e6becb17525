"""The memory guard: dense n x n allocations past the memory available raise MemoryError."""

import numpy as np
import pytest
import scipy.sparse as sp

from digraph_askls import AsKLSClassifier, LSSVMClassifier, _memory
from digraph_askls._memory import ENVIRONMENT_VARIABLE, available_memory, check_dense_allocation
from digraph_askls.kernels import (
    DiagonalGMMs,
    get_ppr_kernel,
    kl_gmm_kernel,
    restrict_kernel,
    sne_kernel,
)
from digraph_askls.linalg import AsKLSSystem, solve_system


@pytest.fixture
def limit(monkeypatch):
    """Set the memory available to ``bytes`` through the environment variable."""
    def set_limit(n_bytes):
        monkeypatch.setenv(ENVIRONMENT_VARIABLE, str(n_bytes))
    return set_limit


def test_bytes_and_message(limit):
    assert check_dense_allocation((3, 10, 10)) == 2400
    assert check_dense_allocation(5, np.float32) == 20
    limit(10**6)
    assert available_memory() == 10**6
    with pytest.raises(MemoryError) as error:
        check_dense_allocation((1000, 1000), what="the test kernel", remedy="use less")
    message = str(error.value)
    assert "the test kernel needs a dense float64 array of shape (1000, 1000)" in message
    assert "0.00745 GiB, but only 0.000931 GiB of memory are available" in message
    assert f"as set by {ENVIRONMENT_VARIABLE}" in message and message.endswith("Use less.")


@pytest.mark.parametrize("value", ["-1", "lots", "nan", "inf"])
def test_a_bad_limit_is_reported(limit, value):
    limit(value)
    with pytest.raises(ValueError, match=f"{ENVIRONMENT_VARIABLE} must be a number of bytes"):
        available_memory()


@pytest.mark.parametrize("shape", [(-1, 3), (2.5, 2), (True, 2)])
def test_a_bad_shape_is_reported(shape):
    with pytest.raises(ValueError, match="shape must hold non-negative integers"):
        check_dense_allocation(shape)


def test_system_figures_are_read(tmp_path, monkeypatch):
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:  2048 kB\nMemAvailable:  1024 kB\n")
    assert _memory._meminfo_available(meminfo) == 1024 * 1024
    assert _memory._meminfo_available(tmp_path / "absent") is None
    (tmp_path / "memory.max").write_text("5000\n")
    (tmp_path / "memory.current").write_text("1000\n")
    assert _memory._cgroup_available(tmp_path) == 4000
    (tmp_path / "memory.max").write_text("max\n")
    assert _memory._cgroup_available(tmp_path) is None
    # the smaller of the two figures counts
    monkeypatch.setattr(_memory, "_meminfo_available", lambda: 10**9)
    monkeypatch.setattr(_memory, "_cgroup_available", lambda: 10**6)
    assert available_memory() == 10**6
    monkeypatch.setattr(_memory, "_cgroup_available", lambda: None)
    assert available_memory() == 10**9


def test_a_kernel_of_a_million_samples_raises_instead_of_being_killed():
    # The real limit of this machine: 10^6 x 10^6 float64 is 7,450 GiB.
    X = np.zeros((10**6, 1))
    with pytest.raises(MemoryError, match=r"the SNE kernel between 1000000 and 1000000 "
                                          r"samples needs .* GiB"):
        sne_kernel(X, sigma=1.0)


def test_every_dense_path_is_guarded(limit):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.repeat([0, 1], 20)
    K = sne_kernel(X)
    walk = get_ppr_kernel([(i, (i + 1) % 40) for i in range(40)], n_hops=2)
    gmms = DiagonalGMMs(np.ones((20, 1)), np.zeros((20, 1, 1)), np.ones((20, 1, 1)))
    limit(1000)
    guarded = {
        "vector kernel": lambda: AsKLSClassifier(kernel="sne").fit(X, y),
        "rbf kernel": lambda: LSSVMClassifier(kernel="rbf").fit(X, y),
        "dense solve": lambda: solve_system(AsKLSSystem(sp.csr_array(K)), y - 0.5,
                                            solver="dense"),
        "system matrix": lambda: AsKLSSystem(K).to_dense(),
        "walk kernel": walk.to_dense,
        "KL kernel": lambda: kl_gmm_kernel(gmms, n_samples=10),
        "dense block": lambda: restrict_kernel(K, np.arange(40), np.arange(40)),
    }
    for name, call in guarded.items():
        with pytest.raises(MemoryError, match="GiB of memory are available"):
            call()
            pytest.fail(f"the {name} was not guarded")
    # The remedy the dense solve names works within the same limit.
    result = solve_system(AsKLSSystem(sp.csr_array(K), gamma=0.01), y - 0.5,
                          solver="batched")
    assert np.all(np.isfinite(result.x))


def test_dense_solve_names_the_iterative_remedy(limit):
    limit(1000)
    with pytest.raises(MemoryError, match="Pass solver='batched'"):
        solve_system(AsKLSSystem(np.eye(30), gamma=0.5), np.ones(30), solver="dense")
