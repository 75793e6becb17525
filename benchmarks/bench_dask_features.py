"""The default's feature route on a dask cluster against the local fit, same candidates.

A directed SBM (4 classes, average degree 8, p_in 0.5) with ``--features`` attributes of
Gaussian noise carrying the class faintly (+0.5 on one column per class) and
``--labelled`` of the nodes labelled. The distributed fit runs first: the attributes are
drawn on the workers of a ``LocalCluster`` of 2 worker processes x 1 thread (loopback),
so the client never holds them, and ``NodeClassifier().fit(..., features=X)`` with ``X``
a dask array chooses among the default candidates that factor through propagated
attributes. The client's resident memory is sampled every 10 ms during that fit (the
scheduler of a ``LocalCluster`` runs in the client's process: it is counted). Then the
attributes are brought to the client and the local fit runs over the same candidates.

Reported: both fits' seconds and their ratio; whether the configuration, the classes
and the decision values agree (largest deviation relative to the largest value); the
client's peak memory growth against the bytes of the largest propagated attribute
matrix (``n x D`` floats, ``D`` the columns of its map); and the per-entry costs that
``docs/scaling.md`` extrapolates from: a local hop (one-step operator times the
attributes, seconds per stored entry and attribute column) and a hop on the cluster
(the propagation of ``AttributeKernel()``, timed to its maps, per hop).

``--kill-after G`` kills a worker process (SIGKILL) during the distributed fit, once its
``G``-th gather is submitted (the hook of ``tests/test_faults.py``), and checks that the fit
still chooses and predicts as the local one (its memory and times then include the
recomputation).

``--phases`` measures instead where the client's memory goes, after a first fit on a
small graph (the modules imported): building ``AttributeKernel()`` on the cluster (to
its maps), gathering its labelled rows, and the whole distributed fit; no local fit.

The results are written after every phase (with ``"complete": false`` until the last),
so that a run stopped for time keeps the phases it finished.

Usage: python benchmarks/bench_dask_features.py [--nodes 100000] [--features 64]
       [--labelled 0.1] [--phases] [--kill-after G] [--out docs/results/dask_features.json]
"""

import argparse
import json
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import psutil

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.kernels import AttributeKernel, get_attribute_kernel
from digraph_askls.kernels._attributes import _mean_operator

REPO = Path(__file__).resolve().parents[1]


class PeakMemory:
    """The peak resident memory of this process while the block runs, sampled."""

    def __init__(self, interval=0.01):
        self.interval, self.process = interval, psutil.Process()

    def __enter__(self):
        self.start = self.peak = self.process.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self.process.memory_info().rss)
            time.sleep(self.interval)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.process.memory_info().rss)

    @property
    def growth(self):
        return self.peak - self.start


def _attributes(classes, d, seed):
    """Noise with +0.5 on the column of each node's class, for one block of nodes."""
    X = np.random.default_rng(seed).standard_normal((classes.shape[0], d))
    X[np.arange(classes.shape[0]), classes[:, 0] % d] += 0.5
    return X


def attributes_on_workers(classes, d, n_blocks, seed=0):
    """The attributes as a dask array drawn block by block on the workers."""
    import dask.array as da

    chunk = -(-classes.size // n_blocks)
    labels = da.from_array(classes[:, None], chunks=(chunk, 1))
    return labels.map_blocks(
        lambda block, block_info=None: _attributes(
            block, d, seed + block_info[0]["chunk-location"][0]),
        dtype=np.float64, chunks=(labels.chunks[0], (d,)))


def local_hop_seconds_per_entry(adjacency, X, repeats=3):
    """A hop of the undirected mean operator times the attributes, per stored entry
    and attribute column (one thread)."""
    step = _mean_operator(adjacency + adjacency.T, True)
    start = time.perf_counter()
    for _ in range(repeats):
        step @ X
    return (time.perf_counter() - start) / repeats / (step.nnz * X.shape[1]), step.nnz


def cluster_hop_seconds(adjacency, X_dask, client):
    """Seconds per hop of ``AttributeKernel()``'s propagation on the cluster, to its
    maps (the attributes are held by the workers first)."""
    from dask.distributed import wait

    from digraph_askls.distributed import DaskFeatures

    features = DaskFeatures(X_dask, client)
    start = time.perf_counter()
    kernel = get_attribute_kernel(adjacency, features)
    wait(kernel._maps[0])
    seconds = time.perf_counter() - start
    kernel.close()
    return seconds / kernel.hops


def phases(adjacency, labels, X_dask, client):
    """The client's peak memory growth (bytes) of each phase (see the module)."""
    import dask.array as da
    from dask.distributed import wait

    from digraph_askls.distributed import DaskFeatures

    small, _ = make_directed_sbm(300, n_classes=4, avg_degree=8, p_in=0.5, random_state=1)
    NodeClassifier(random_state=0).fit(small, {i: i % 4 for i in range(40)}, features=da.from_array(
        np.random.default_rng(0).standard_normal((300, 8)), chunks=(150, 8)))
    features = DaskFeatures(X_dask, client)
    with PeakMemory() as build:
        kernel = AttributeKernel().make(adjacency, features)
        wait(kernel._maps[0])
    train = np.array(sorted(labels))
    with PeakMemory() as rows:
        kernel.restrict(train, train).factors()
    kernel.close()
    del kernel
    with PeakMemory() as fit:
        NodeClassifier(random_state=0).fit(adjacency, labels, features=X_dask)
    return dict(build_growth_bytes=build.growth, labelled_rows_growth_bytes=rows.growth,
                fit_growth_bytes=fit.growth, labelled_rows_bytes=8 * train.size * 384,
                propagated_matrix_bytes=8 * adjacency.shape[0] * 384)


def _save(path, meta, row, complete):
    """Write the results so far (a stopped run keeps its finished phases)."""
    Path(path).write_text(json.dumps(dict(setup=meta, complete=complete, results=[row]),
                                     indent=2) + "\n")
    print(time.strftime("%H:%M:%S"), "saved", sorted(row), flush=True)


def _features(X_dask, client, kill_after):
    """The attributes as the fit reads them, and the killing client (None: no kill)."""
    if kill_after is None:
        return X_dask, None
    import sys

    from digraph_askls.distributed import DaskFeatures

    sys.path[:0] = [str(REPO), str(REPO / "tests")]     # the test module reads the harness
    from test_faults import _KillingClient

    killing = _KillingClient(client, after=kill_after)
    return DaskFeatures(X_dask, killing), killing


def main():
    from dask.distributed import Client, LocalCluster

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=64)
    parser.add_argument("--labelled", type=float, default=0.1)
    parser.add_argument("--phases", action="store_true",
                        help="where the client's memory goes (no local fit)")
    parser.add_argument("--kill-after", type=int, default=None, metavar="G",
                        help="kill a worker once the fit's G-th gather is submitted")
    parser.add_argument("--out", default=str(REPO / "docs" / "results" /
                                             "dask_features.json"))
    args = parser.parse_args()
    n, d = args.nodes, args.features
    adjacency, classes = make_directed_sbm(n, n_classes=4, avg_degree=8, p_in=0.5,
                                           random_state=0)
    rng = np.random.default_rng(0)
    labels = {int(i): int(classes[i]) for i in np.flatnonzero(rng.random(n) < args.labelled)}
    row = dict(nodes=n, edges=int(adjacency.nnz), features=d, labelled=len(labels))
    meta = dict(cluster="LocalCluster, 2 worker processes x 1 thread, 127.0.0.1",
                graph="make_directed_sbm(n, n_classes=4, avg_degree=8, p_in=0.5, "
                      "random_state=0)",
                command=f"python benchmarks/bench_dask_features.py --nodes {n} "
                        f"--features {d} --labelled {args.labelled}"
                        + ("" if args.kill_after is None else f" --kill-after {args.kill_after}"))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        from dask.distributed import wait

        client.wait_for_workers(2)
        X_dask = attributes_on_workers(classes, d, n_blocks=8).persist()
        wait(X_dask)
        if args.phases:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                row.update(phases(adjacency, labels, X_dask, client))
            Path(args.out).write_text(json.dumps(dict(results=[row]), indent=2) + "\n")
            print(json.dumps(row, indent=2))
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # the candidates left out, named
            features, killing = _features(X_dask, client, args.kill_after)
            with PeakMemory() as memory:
                start = time.perf_counter()
                remote = NodeClassifier(random_state=0).fit(adjacency, labels,
                                                            features=features)
                row["dask_fit_seconds"] = time.perf_counter() - start
            if killing is not None:
                row.update(killed_worker=killing.killed, gathers_in_fit=killing.gathers)
        kernels = list(remote.cv_results_["kernel"])
        widest = max(d * (1 + k.hops * (2 if k.propagation == "both" else 1))
                     for k in {repr(k): k for k in kernels}.values())
        row.update(client_peak_growth_bytes=memory.growth,
                   propagated_matrix_bytes=8 * n * widest, widest_map_columns=widest,
                   memory_growth_share=memory.growth / (8 * n * widest))
        _save(args.out, meta, row, False)
        start = time.perf_counter()
        remote_values, remote_classes = remote.decision_function(), remote.predict()
        row["dask_predict_seconds"] = time.perf_counter() - start
        _save(args.out, meta, row, False)
        row["dask_hop_seconds"] = cluster_hop_seconds(adjacency, X_dask, client)
        _save(args.out, meta, row, False)
        X = X_dask.compute()
    candidates = list({repr(k): k for k in kernels}.values())
    start = time.perf_counter()
    local = NodeClassifier(kernel=candidates, random_state=0).fit(adjacency, labels,
                                                                 features=X)
    row["local_fit_seconds"] = time.perf_counter() - start
    _save(args.out, meta, row, False)
    values = local.decision_function()
    row.update(
        overhead_factor=row["dask_fit_seconds"] / row["local_fit_seconds"],
        candidates=[repr(k) for k in candidates],
        chosen=[repr(local.selection_["kernel"]), local.selection_["gamma"],
                local.selection_["merge"]],
        same_selection=remote.selection_ == local.selection_,
        same_classes=bool(np.array_equal(remote_classes, local.predict())),
        max_relative_deviation=float(np.abs(remote_values - values).max()
                                     / np.abs(values).max()))
    per_entry, step_nnz = local_hop_seconds_per_entry(adjacency, X)
    row.update(local_hop_seconds_per_entry=per_entry, step_nnz=step_nnz,
               dask_hop_seconds_per_entry=row["dask_hop_seconds"] / (step_nnz * d))
    _save(args.out, meta, row, True)
    print(json.dumps(row, indent=2))


if __name__ == "__main__":
    main()
