"""The library's import path never pulls in the research harness.

``import digraph_askls``, the estimators, and the ``predict`` and ``run`` commands must not
import :mod:`digraph_askls.experiments` (tables, GNN peers, result caches, figures): only
the ``table*`` commands do.
"""

import subprocess
import sys

import pytest

CHECK = """
import sys
{body}
loaded = sorted(name for name in sys.modules if name.startswith("digraph_askls.experiments")
                or name == "torch" or name.startswith("torch_geometric"))
print("LOADED", loaded)
"""


def _loaded(body, cwd):
    result = subprocess.run([sys.executable, "-c", CHECK.format(body=body)], cwd=cwd,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    line = [row for row in result.stdout.splitlines() if row.startswith("LOADED")][-1]
    return line


@pytest.mark.parametrize("body", [
    "import digraph_askls",
    "from digraph_askls import NodeClassifier, AsKLSClassifier",
    "import digraph_askls.evaluation, digraph_askls.datasets, digraph_askls.graph",
    "import digraph_askls.cli; digraph_askls.cli.build_parser()",
])
def test_importing_the_library_leaves_the_harness_out(body, tmp_path):
    assert _loaded(body, tmp_path) == "LOADED []"


def test_the_predict_and_run_commands_leave_the_harness_out(tmp_path):
    (tmp_path / "edges.csv").write_text("source,target\na,b\nb,c\nc,a\nd,e\ne,f\nf,d\nc,d\n")
    (tmp_path / "labels.csv").write_text("node,label\na,x\nb,x\nd,y\ne,y\n")
    body = ("from digraph_askls.cli import main\n"
            "assert main(['predict', '--edges', 'edges.csv', '--labels', 'labels.csv', "
            "'--out', 'p.csv']) == 0\n"
            "assert main(['run', '--dataset', 'sbm', '--trials', '1', '--quiet']) == 0\n")
    assert _loaded(body, tmp_path) == "LOADED []"
    assert (tmp_path / "p.csv").read_text().startswith("node,predicted")


def test_the_table_commands_do_import_it(tmp_path):
    body = ("from digraph_askls.cli import main\n"
            "main(['table4', '--datasets', 'heart', '--trials', '1', '--data-home', "
            "'nowhere', '--quiet'])\n")
    assert "digraph_askls.experiments" in _loaded(body, tmp_path)
