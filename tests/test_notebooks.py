"""The notebooks run from top to bottom, in short mode (``DIGRAPH_ASKLS_SHORT=1``).

Each notebook is executed with nbclient in a fresh kernel, from the ``notebooks`` folder,
and fails on the first cell that raises. The kernel inherits this process's environment,
so ``PYTHONPATH`` and ``DIGRAPH_ASKLS_DATA`` reach it. The quickstart needs Cora, the
attributes notebook Cora (with its word features) and Chameleon: each is skipped when
neither ``DIGRAPH_ASKLS_DATA`` nor the shared folder beside the repository holds its files
(the notebook itself would download them).
"""

import os
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


def _has(*files):
    """Whether one data home holds all ``files`` (paths relative to the data home)."""
    homes = [os.environ.get("DIGRAPH_ASKLS_DATA"), ROOT.parent / "shared" / "datasets"]
    return any(home and all((Path(home) / file).is_file() for file in files)
               for home in homes)


def _has_cora():
    return _has("cora_linqs/cora.cites")


def _execute(name, monkeypatch):
    monkeypatch.setenv("DIGRAPH_ASKLS_SHORT", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # The kernel must import this checkout, whatever is installed.
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), path])))
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    return notebook


@pytest.mark.timeout(150)
def test_quickstart_runs(monkeypatch):
    if not _has_cora():
        pytest.skip("Cora not found in DIGRAPH_ASKLS_DATA or ../shared/datasets")
    notebook = _execute("01_quickstart.ipynb", monkeypatch)
    text = "".join(output.get("text", "") for cell in notebook.cells
                   for output in cell.get("outputs", []))
    assert "mode: short" in text
    assert "cora: 2708 nodes" in text


@pytest.mark.timeout(150)
def test_scaling_runs(monkeypatch):
    notebook = _execute("02_scaling.ipynb", monkeypatch)
    text = "".join(output.get("text", "") for cell in notebook.cells
                   for output in cell.get("outputs", []))
    assert "sizes: [2000, 5000]" in text


def _printed(notebook):
    return "".join(output.get("text", "") for cell in notebook.cells
                   for output in cell.get("outputs", []))


@pytest.mark.timeout(150)
def test_attributes_and_direction_runs(monkeypatch):
    """A DiGraph with vector attributes, the selection's report, Cora's primal weights and
    Chameleon's link-profile choice, in short mode (about 35 s on 2 busy cores)."""
    if not _has("cora_linqs/cora.cites", "cora_linqs/cora.content",
                "heterophily_directed/chameleon_directed.npz"):
        pytest.skip("Cora or Chameleon not found in DIGRAPH_ASKLS_DATA or ../shared/datasets")
    text = _printed(_execute("03_attributes_and_direction.ipynb", monkeypatch))
    assert "mode: short" in text
    assert "synthetic: 200 nodes" in text
    assert "cora: 2708 nodes" in text
    assert "primal weights: {'source': (7, 2866), 'target': (7, 2866)}" in text
    assert "chameleon: 2277 nodes" in text
    assert "default" in text and "(link profile" in text       # the kernel chosen on Chameleon


@pytest.mark.timeout(150)
def test_new_nodes_runs(monkeypatch):
    """A paper arriving after the fit, held-out nodes arriving in batches (a synthetic
    graph in short mode, no data needed), the model saved and loaded (about 10 s)."""
    text = _printed(_execute("04_new_nodes.ipynb", monkeypatch))
    assert "mode: short" in text
    assert "predicted: {'new paper': 'theory', 'review': 'systems'}" in text
    assert "synthetic, all 210 held-out nodes: as new nodes" in text
    assert "loaded model predicts the last batch the same: True" in text
