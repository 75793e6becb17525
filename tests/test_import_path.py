"""The library carries no research harness and imports no PyTorch.

The harness (the result tables, the GNN and scikit-network peers, the cells cache, the
published figures) lies beside the library, in the folder ``experiments`` at the root of the
repository, which ``pip install .`` leaves out. No module of ``digraph_askls`` imports it or
PyTorch, and the ``predict`` and ``run`` commands run without either.
"""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

CHECK = """
import sys
{body}
loaded = sorted(name for name in sys.modules if name.split(".")[0] == "experiments"
                or name.startswith("digraph_askls.experiments")
                or name == "torch" or name.startswith("torch_geometric"))
print("LOADED", loaded)
"""

EVERY_MODULE = """
import importlib, pkgutil
import digraph_askls
names = [info.name for info in pkgutil.walk_packages(digraph_askls.__path__, "digraph_askls.")]
assert len(names) > 30, names
for name in names:
    importlib.import_module(name)
assert not [name for name in names if "experiments" in name], names
assert not hasattr(digraph_askls, "experiments")
print("MODULES", len(names))
"""


def _loaded(body, cwd):
    """What ``body`` loaded of the harness and of PyTorch, run in a fresh interpreter from
    ``cwd`` (not the repository's root, so that ``experiments`` is not importable) that
    imports this checkout's library."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    result = subprocess.run([sys.executable, "-c", CHECK.format(body=body)], cwd=cwd,
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("body", [
    "import digraph_askls",
    "from digraph_askls import NodeClassifier, AsKLSClassifier",
    "import digraph_askls.model_selection, digraph_askls.metrics, digraph_askls.graph",
    "import digraph_askls.cli; digraph_askls.cli.build_parser()",
])
def test_importing_the_library_leaves_the_harness_out(body, tmp_path):
    assert "LOADED []" in _loaded(body, tmp_path)


def test_no_module_of_the_library_imports_torch_or_holds_the_harness(tmp_path):
    printed = _loaded(EVERY_MODULE, tmp_path)
    assert "LOADED []" in printed and "MODULES" in printed


def test_the_predict_and_run_commands_leave_the_harness_out(tmp_path):
    (tmp_path / "edges.csv").write_text("source,target\na,b\nb,c\nc,a\nd,e\ne,f\nf,d\nc,d\n")
    (tmp_path / "labels.csv").write_text("node,label\na,x\nb,x\nd,y\ne,y\n")
    body = ("from digraph_askls.cli import main\n"
            "assert main(['predict', '--edges', 'edges.csv', '--labels', 'labels.csv', "
            "'--out', 'p.csv']) == 0\n"
            "assert main(['run', '--dataset', 'sbm', '--trials', '1', '--quiet']) == 0\n")
    assert "LOADED []" in _loaded(body, tmp_path)
    assert (tmp_path / "p.csv").read_text().startswith("node,predicted")


def test_the_installed_packages_are_the_library_alone():
    setuptools = pytest.importorskip("setuptools")
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = setuptools.find_packages(str(REPO), **config["packages"]["find"])
    assert "digraph_askls" in packages and "digraph_askls.models" in packages
    assert [name for name in packages if not name.startswith("digraph_askls")] == []
    assert [name for name in packages if "experiments" in name] == []
    assert (REPO / "experiments" / "__init__.py").is_file()
