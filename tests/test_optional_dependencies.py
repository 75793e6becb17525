"""The core works without any optional extra installed (a fresh `pip install .`)."""

import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys
for name in ("PIL", "matplotlib", "sknetwork", "dask", "distributed", "ogb"):
    sys.modules[name] = None          # importing any of them now raises ImportError
import networkx as nx
import digraph_askls, digraph_askls.cli, digraph_askls.datasets, experiments
from digraph_askls import NodeClassifier
graph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
print(NodeClassifier(merge="average").fit(graph, {0: "a", 1: "a", 3: "b", 4: "b"})
      .predict([2, 5]).tolist())
"""


def test_core_imports_and_runs_without_optional_extras():
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                            cwd=root, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['a', 'b']"
