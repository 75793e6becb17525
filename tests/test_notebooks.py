"""The notebooks run as a user runs them, from top to bottom, in short mode.

Each test follows the recipe of the examples page: the notebook is copied into an empty
folder and executed there with nbclient (what ``jupyter execute`` does), in a fresh kernel
whose working directory is that folder and whose environment has no ``PYTHONPATH``. The
kernel imports the installed library and nothing else of the repository: the research
harness (``experiments``) is not importable, so a notebook that reaches for it fails. The
data come from the data home named by ``DIGRAPH_ASKLS_DATA``, set to the shared data (the
``shared_datasets`` fixture; a notebook that needs files absent there is skipped), and
left unset for the notebooks that need no data. ``DIGRAPH_ASKLS_SHORT=1`` shortens them.

The library is installed editable from the checkout under test (``pip install -e
".[test]"``, as in CI), so the kernel imports this checkout's library without
``PYTHONPATH``. Where the installed library is another copy (a second working tree of the
repository), the kernel gets on its ``PYTHONPATH`` a folder that holds only a link to
this checkout's ``digraph_askls``: the library under test, and still nothing else.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")
pytest.importorskip("sknetwork")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CELL_TIMEOUT = 60

WHAT_THE_KERNEL_IMPORTS = """
import importlib.util
import digraph_askls
print(digraph_askls.__file__)
print(importlib.util.find_spec("experiments") is not None)
"""


def _library_only(monkeypatch, folder):
    """Strip ``PYTHONPATH`` from the environment the kernel inherits, and check from
    ``folder`` that an interpreter imports this checkout's library and not the harness."""
    monkeypatch.delenv("PYTHONPATH", raising=False)

    def imports():
        done = subprocess.run([sys.executable, "-c", WHAT_THE_KERNEL_IMPORTS], cwd=folder,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        library, harness = done.stdout.split()
        return Path(library).resolve().parent, harness == "True"

    library, harness = imports()
    if library != ROOT / "digraph_askls":   # installed from another copy: link this one
        links = folder.parent / f"{folder.name}-library"
        links.mkdir()
        (links / "digraph_askls").symlink_to(ROOT / "digraph_askls", target_is_directory=True)
        monkeypatch.setenv("PYTHONPATH", str(links))
        library, harness = imports()
    assert library == ROOT / "digraph_askls", library
    assert not harness, "the research harness must not be importable by the kernel"


def _execute(name, monkeypatch, tmp_path, data_home=None):
    """Copy notebook ``name`` into an empty folder and execute it there, the recipe's way."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    shutil.copy(NOTEBOOKS / name, folder / name)
    _library_only(monkeypatch, folder)
    monkeypatch.setenv("DIGRAPH_ASKLS_SHORT", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    if data_home is None:
        monkeypatch.delenv("DIGRAPH_ASKLS_DATA", raising=False)
    else:
        monkeypatch.setenv("DIGRAPH_ASKLS_DATA", str(data_home))
    notebook = nbformat.read(folder / name, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(folder)}})
    client.execute()
    assert sorted(path.name for path in folder.iterdir()) == [name], \
        "the notebook wrote files beside itself"
    return notebook


def _data_home(shared_datasets, *files):
    """The shared data, or a skip naming the first of ``files`` (relative paths) it lacks."""
    for file in files:
        if not (shared_datasets / file).is_file():
            pytest.skip(f"{file} not found in the shared data ({shared_datasets})")
    return shared_datasets


def _printed(notebook):
    return "".join(output.get("text", "") for cell in notebook.cells
                   for output in cell.get("outputs", []))


@pytest.mark.timeout(180)
def test_quickstart_runs(monkeypatch, tmp_path, shared_datasets):
    home = _data_home(shared_datasets, "cora_linqs/cora.cites", "cora_linqs/cora.content")
    text = _printed(_execute("01_quickstart.ipynb", monkeypatch, tmp_path, home))
    assert "mode: short" in text
    assert "cora: 2708 nodes" in text


@pytest.mark.timeout(180)
def test_scaling_runs(monkeypatch, tmp_path):
    text = _printed(_execute("02_scaling.ipynb", monkeypatch, tmp_path))
    assert "sizes: [2000, 5000]" in text
    assert "PageRank peer (undirected)" in text


@pytest.mark.timeout(180)
def test_attributes_and_direction_runs(monkeypatch, tmp_path, shared_datasets):
    """A DiGraph with vector attributes, the selection's report, Cora's primal weights and
    Chameleon's link-profile choice, in short mode (about 35 s on 2 busy cores)."""
    home = _data_home(shared_datasets, "cora_linqs/cora.cites", "cora_linqs/cora.content",
                      "heterophily_directed/chameleon_directed.npz")
    text = _printed(_execute("03_attributes_and_direction.ipynb", monkeypatch, tmp_path, home))
    assert "mode: short" in text
    assert "synthetic: 200 nodes" in text
    assert "cora: 2708 nodes" in text
    assert "primal weights: {'source': (7, 2866), 'target': (7, 2866)}" in text
    assert "chameleon: 2277 nodes" in text
    assert "default" in text and "(link profile" in text       # the kernel chosen on Chameleon


@pytest.mark.timeout(180)
def test_new_nodes_runs(monkeypatch, tmp_path):
    """A paper arriving after the fit, held-out nodes arriving in batches (a synthetic
    graph in short mode, no data needed), the model saved and loaded (about 10 s)."""
    text = _printed(_execute("04_new_nodes.ipynb", monkeypatch, tmp_path))
    assert "mode: short" in text
    assert "predicted: {'new paper': 'theory', 'review': 'systems'}" in text
    assert "synthetic, all 210 held-out nodes: as new nodes" in text
    assert "loaded model predicts the last batch the same: True" in text
