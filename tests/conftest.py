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
