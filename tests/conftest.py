"""Shared fixtures: the real data files live in ``../shared/datasets`` beside the repo."""

import os
from pathlib import Path

import pytest

from digraph_askls.datasets import load_dataset

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DIGRAPH_ASKLS_SHARED", REPO.parent / "shared" / "datasets"))


@pytest.fixture(scope="session")
def shared_datasets():
    """Path of the shared benchmark data; skips the test when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"shared datasets not found at {SHARED} (set DIGRAPH_ASKLS_SHARED)")
    return SHARED


@pytest.fixture(scope="module")
def shared(shared_datasets):
    """Load a dataset from the shared data once per module."""
    cache = {}

    def load(name):
        if name not in cache:
            cache[name] = load_dataset(name, data_home=shared_datasets, download=False)
        return cache[name]

    return load


@pytest.fixture(scope="module")
def dask_client():
    """A client of a local dask cluster of two single-thread worker processes, one per
    test module (a module that kills workers leaves the others theirs); skips without
    the dask extra."""
    distributed = pytest.importorskip(
        "dask.distributed", reason='dask is an optional extra: pip install ".[dask]"')
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            yield client


@pytest.fixture(scope="module")
def one_torch_thread():
    """PyTorch on one intra-op thread for a module of smoke tests (graphs of a few dozen
    nodes, where more threads only wait on each other; on a machine whose cores are
    busy they spin for minutes), the previous count restored after; nothing without
    PyTorch."""
    try:
        import torch
    except ImportError:
        yield
        return
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
