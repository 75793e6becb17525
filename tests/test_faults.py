"""Faults a user meets, each one tried: damaged data files, interrupted downloads, a dask
worker killed during a solve, Ctrl-C while results are written.

Surviving a fault means one of two things: the right answer anyway, or an error that
names the cause and the way out. Never a wrong answer, never a half-written file that a
later run would use. No test touches the network: downloads are served from memory.
"""

import dataclasses
import io
import logging
import os
import signal
import tarfile
import urllib.request
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from digraph_askls.datasets import load_dataset
from digraph_askls.datasets._registry import DATASETS
from experiments._cache import load_or_compute


def _files(folder):
    """Every file under ``folder``, hidden and temporary ones included."""
    return sorted(str(path.relative_to(folder)) for path in Path(folder).rglob("*")
                  if path.is_file())


# ---- data files in the data home ---------------------------------------------------

@pytest.fixture
def cora_home(shared_datasets, tmp_path):
    """A data home holding copies of Cora's files, in the LINQS and npz forms."""
    for relative in ("cora_linqs/cora.cites", "cora_linqs/cora.content",
                     "directed_npz/cora.npz"):
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((shared_datasets / relative).read_bytes())
    return tmp_path


def _cut_at_a_line(data):
    return data[:data.index(b"\n", len(data) // 2) + 1]


@pytest.mark.parametrize("name, relative, damage", [
    ("cora", "cora_linqs/cora.cites", _cut_at_a_line),               # truncated, whole lines
    ("cora", "cora_linqs/cora.content", lambda data: data[:len(data) // 3]),   # mid-line
    ("cora-npz", "directed_npz/cora.npz",                             # one byte corrupted
     lambda data: data[:1000] + bytes([data[1000] ^ 0xFF]) + data[1001:]),
    ("cora-npz", "directed_npz/cora.npz",                             # another format
     lambda data: b"<html><body>404 Not Found</body></html>\n"),
])
def test_a_damaged_file_in_the_data_home_is_refused_by_name(cora_home, name, relative,
                                                             damage):
    path = cora_home / relative
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(ValueError, match="does not match the published file") as error:
        load_dataset(name, data_home=cora_home, download=False)
    message = str(error.value)
    assert str(path) in message and "Delete it to download it again" in message


def test_without_verification_a_truncated_file_would_be_read_short(cora_home):
    # Why the check matters: a copy cut at a line boundary parses without complaint.
    path = cora_home / "cora_linqs" / "cora.cites"
    path.write_bytes(_cut_at_a_line(path.read_bytes()))
    graph = load_dataset("cora", data_home=cora_home, download=False, verify=False)
    assert graph.n_edges < 5429


def test_an_npz_of_another_format_is_named_even_unverified(cora_home):
    path = cora_home / "directed_npz" / "cora.npz"
    path.write_bytes(b"<html>Service Unavailable</html>")
    with pytest.raises(ValueError, match=rf"{path} is not an npz file"):
        load_dataset("cora-npz", data_home=cora_home, download=False, verify=False)


# ---- downloads -------------------------------------------------------------------------

class _Response(io.BytesIO):
    """A response body that stops after ``stop`` bytes: with an error, or quietly."""

    def __init__(self, data, stop=None, error=None):
        super().__init__(data)
        self.stop, self.error = stop, error

    def read(self, size=-1):
        if self.stop is None:
            return super().read(size)
        left = self.stop - self.tell()
        if left <= 0:
            if self.error is not None:
                raise self.error
            return b""
        return super().read(left if size < 0 else min(size, left))


@pytest.fixture
def served(shared_datasets, monkeypatch):
    """Serve cora.npz from memory under a fake URL; returns a function setting the
    response of the next downloads."""
    data = (shared_datasets / "directed_npz" / "cora.npz").read_bytes()
    url = "https://data.invalid/cora.npz"
    spec = DATASETS["cora-npz"]
    monkeypatch.setitem(DATASETS, "cora-npz", dataclasses.replace(
        spec, files=tuple(dataclasses.replace(file, url=url) for file in spec.files)))
    state = {"response": lambda: _Response(data)}

    def urlopen(request, timeout=None):
        assert request == url
        return state["response"]()

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)

    def serve(stop=None, error=None):
        state["response"] = lambda: _Response(data, stop, error)

    serve.size = len(data)
    return serve


@pytest.mark.parametrize("error, raised", [
    (ConnectionResetError("connection reset by peer"), OSError),
    (__import__("http.client").client.IncompleteRead(b"", 1000), OSError),
    (TimeoutError("the read timed out"), OSError),
    (KeyboardInterrupt(), KeyboardInterrupt),
])
def test_a_download_interrupted_midway_leaves_nothing_and_the_next_completes(
        served, tmp_path, error, raised):
    served(stop=served.size // 2, error=error)
    with pytest.raises(raised) as caught:
        load_dataset("cora-npz", data_home=tmp_path)
    if raised is OSError:
        assert "the download failed" in str(caught.value)
        assert str(tmp_path / "directed_npz" / "cora.npz") in str(caught.value)
    assert _files(tmp_path) == []                # no partial file, used or not
    served()
    assert load_dataset("cora-npz", data_home=tmp_path).n_edges == 5429
    assert _files(tmp_path) == ["directed_npz/cora.npz"]


def test_a_body_cut_short_without_an_error_fails_its_checksum(served, tmp_path):
    served(stop=served.size - 100)               # the server closes early, quietly
    with pytest.raises(ValueError, match="checksum mismatch"):
        load_dataset("cora-npz", data_home=tmp_path)
    assert _files(tmp_path) == []


def test_a_partial_file_of_a_killed_process_is_never_used(served, tmp_path):
    partial = tmp_path / "directed_npz" / ".cora.npz.kq3x.part"
    partial.parent.mkdir(parents=True)
    partial.write_bytes(b"PK\x03\x04 half of a file")
    graph = load_dataset("cora-npz", data_home=tmp_path)
    assert graph.n_edges == 5429
    assert "directed_npz/cora.npz" in _files(tmp_path)


def test_a_truncated_archive_is_refused_and_nothing_extracted(shared_datasets, tmp_path,
                                                              monkeypatch):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name in ("cora.cites", "cora.content"):
            archive.add(shared_datasets / "cora_linqs" / name, arcname=f"cora/{name}")
    cut = tmp_path / "cora.tgz"
    cut.write_bytes(buffer.getvalue()[:len(buffer.getvalue()) // 2])
    spec = DATASETS["cora"]
    monkeypatch.setitem(DATASETS, "cora", dataclasses.replace(spec, files=tuple(
        dataclasses.replace(file, url=cut.as_uri()) for file in spec.files)))
    home = tmp_path / "home"
    with pytest.raises(ValueError, match="is damaged or incomplete"):
        load_dataset("cora", data_home=home)
    assert _files(home) == []


# ---- caches: Ctrl-C while computing or writing, a damaged cached file --------------------

def test_ctrl_c_during_the_computation_leaves_no_cache(tmp_path):
    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        load_or_compute(tmp_path, "gmm", {"k": 1}, interrupted)
    assert _files(tmp_path) == []
    result = load_or_compute(tmp_path, "gmm", {"k": 1}, lambda: {"x": np.arange(3)})
    assert result["x"].tolist() == [0, 1, 2] and len(_files(tmp_path)) == 1


def test_ctrl_c_while_the_cache_is_written_leaves_no_file(tmp_path, monkeypatch):
    def half_written(file, **arrays):
        file.write(b"PK\x03\x04" + b"\0" * 100)          # the start of a zip, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", half_written)
    with pytest.raises(KeyboardInterrupt):
        load_or_compute(tmp_path, "gmm", {"k": 2}, lambda: {"x": np.ones(4)})
    assert _files(tmp_path) == []
    monkeypatch.undo()
    assert load_or_compute(tmp_path, "gmm", {"k": 2}, lambda: {"x": np.ones(4)})[
        "x"].sum() == 4


def test_a_damaged_cached_file_is_computed_again(tmp_path, caplog):
    load_or_compute(tmp_path, "kl", {"k": 3}, lambda: {"x": np.arange(5.0)})
    [name] = _files(tmp_path)
    (tmp_path / name).write_bytes((tmp_path / name).read_bytes()[:40])    # cut short
    with caplog.at_level(logging.WARNING, logger="experiments"):
        again = load_or_compute(tmp_path, "kl", {"k": 3}, lambda: {"x": np.arange(5.0)})
    assert again["x"].tolist() == [0, 1, 2, 3, 4] and "cannot be read" in caplog.text
    assert load_or_compute(tmp_path, "kl", {"k": 3}, lambda: {"x": np.zeros(5)})[
        "x"].sum() == 10                                               # replaced, whole


# ---- a dask worker killed during a distributed solve (the dask_client fixture skips ----
# ---- these without the dask extra, not the faults above) --------------------------------


class _KillingClient:
    """The client, except that a worker process is killed (SIGKILL) once the tasks of
    the ``after``-th product are submitted, before their results are gathered."""

    def __init__(self, client, after):
        self._client, self.after, self.gathers, self.killed = client, after, 0, None

    def __getattr__(self, name):
        return getattr(self._client, name)

    def gather(self, futures, *args, **kwargs):
        self.gathers += 1
        if self.gathers == self.after:
            pids = self._client.run(os.getpid)
            self.killed = sorted(pids)[0]
            os.kill(pids[self.killed], signal.SIGKILL)
        return self._client.gather(futures, *args, **kwargs)


@pytest.fixture(scope="module")
def training_problem():
    from digraph_askls.datasets import make_directed_sbm
    from digraph_askls.kernels import get_in_degree_kernel, restrict_kernel

    adjacency, labels = make_directed_sbm(6000, n_classes=4, avg_degree=8, p_in=0.7,
                                          random_state=0)
    train = np.flatnonzero(np.random.default_rng(0).random(6000) < 0.6)
    K = sp.csr_matrix(restrict_kernel(get_in_degree_kernel(adjacency), train, train))
    Y = -np.ones((train.size, 4))
    Y[np.arange(train.size), labels[train]] = 1.0
    return K, Y


def _solve(K, Y):
    from digraph_askls.linalg import AsKLSSystem, solve_system

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # a fixed number of iterations, damped
        return solve_system(AsKLSSystem(K, gamma=1.0), Y, solver="batched",
                            regularization=1.0, maxiter=8, preconditioner=None)


def test_a_worker_killed_mid_solve_is_survived_through_the_block_copies(
        dask_client, training_problem):
    from digraph_askls.distributed import DaskKernelOperator

    K, Y = training_problem
    local = _solve(K, Y)
    client = _KillingClient(dask_client, after=4)
    operator = DaskKernelOperator(K, client, replicas=2)
    remote = _solve(operator, Y)
    assert client.killed is not None and client.gathers > 4      # killed mid-solve
    np.testing.assert_array_equal(remote.x, local.x)              # the same answer


def test_a_worker_killed_mid_solve_without_copies_stops_with_an_error_that_says_so(
        dask_client, training_problem):
    from digraph_askls.distributed import DaskKernelOperator, WorkerLostError

    K, Y = training_problem
    dask_client.wait_for_workers(2, timeout=60)       # the worker killed before is back
    with pytest.raises(ValueError, match=r"replicas must be an integer in \[1, 2\]"):
        DaskKernelOperator(K, dask_client, replicas=3)
    client = _KillingClient(dask_client, after=4)
    operator = DaskKernelOperator(K, client)
    with pytest.raises(WorkerLostError, match="was lost during a product .* replicas=2"):
        _solve(operator, Y)
    assert client.killed is not None
