"""How fast an edges file is read: the library's reader against ``pandas.read_csv`` alone.

Writes the edges of a directed SBM (``make_directed_sbm(n, 10, 10)``: 10^6 nodes give
10^7 edges) as a CSV file ``source,target`` with a header, then times, in this process
and alternating, ``repeats`` times each:

* ``pandas.read_csv(path)``: pandas alone, its default (C) engine, types inferred
  (integers), nothing more;
* ``pandas.read_csv(path, engine="pyarrow")``: the same with pyarrow's reader;
* ``pandas.read_csv(path, dtype=str)``: pandas alone keeping the names as text, as
  the library does (``007`` is not ``7``);
* the library's reader (``digraph_askls.datasets._files.read_edges``): the file read
  with node names as text, checked (blanks, field counts), the names factorised and the
  CSR adjacency built: everything ``digraph-askls predict`` does before the fit.

Prints the median times and the ratio of the library's reader to ``pandas.read_csv``
alone (same run), and writes ``docs/results/read_edges.json``.

Usage: python benchmarks/bench_read_edges.py [--nodes 1000000] [--repeats 3]
                                             [--folder /tmp] [--out docs/results]
"""

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse

from digraph_askls.datasets import make_directed_sbm
from digraph_askls.datasets._files import read_edges


def write_edges(path, n_nodes):
    adjacency, _ = make_directed_sbm(n_nodes, 10, 10, p_in=0.5, random_state=0)
    coo = sparse.coo_array(adjacency)
    pd.DataFrame({"source": coo.row, "target": coo.col}).to_csv(path, index=False)
    return coo.nnz


def _timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def run(n_nodes, repeats, folder):
    path = Path(folder) / f"edges_{n_nodes}.csv"
    n_edges = write_edges(path, n_nodes)
    readers = {
        "pandas.read_csv": lambda: pd.read_csv(path),
        "pandas.read_csv(engine='pyarrow')": lambda: pd.read_csv(path, engine="pyarrow"),
        "pandas.read_csv(dtype=str)": lambda: pd.read_csv(path, dtype=str),
        "digraph_askls read_edges": lambda: read_edges(path),
    }
    times = {name: [] for name in readers}
    checks = {}
    for _ in range(repeats):
        for name, reader in readers.items():
            seconds, result = _timed(reader)
            times[name].append(seconds)
            if name == "digraph_askls read_edges":
                adjacency, nodes = result
                checks = {"edges_read": int(adjacency.sum()), "nodes_read": len(nodes)}
            del result
    median = {name: float(np.median(values)) for name, values in times.items()}
    size = path.stat().st_size
    path.unlink()
    return {
        "nodes": n_nodes, "edges": n_edges, "file_mib": round(size / 2**20, 1),
        "repeats": repeats, "seconds_median": {k: round(v, 2) for k, v in median.items()},
        "seconds_all": {k: [round(x, 2) for x in v] for k, v in times.items()},
        "ratio_to_pandas_read_csv": round(median["digraph_askls read_edges"]
                                          / median["pandas.read_csv"], 2),
        **checks, "pandas": pd.__version__,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared)",
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=10**6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--folder", default=None, help="where the CSV file is written")
    parser.add_argument("--out", default=None, help="folder for read_edges.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        result = run(args.nodes, args.repeats, folder)
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "read_edges.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
