"""The committed notebooks hold their figures: a notebook that draws shows what it drew.

Read as JSON, without running anything (``tests/test_notebooks.py`` runs them). A
notebook executed with a non-interactive backend (``MPLBACKEND=Agg``) keeps its text but
loses its figures; re-execute it as its first cells say (``jupyter execute --inplace``).
"""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))

#: Any call that draws (in a function definition too): the notebook must hold an image.
DRAWS = re.compile(r"\bplt\.|\.plot\(|\.imshow\(|\.scatter\(|\.barh?\(|\.hist\(|"
                   r"\bsubplots\(|\.savefig\(")
#: A top-level statement that makes a figure: the inline backend shows it below the cell.
MAKES_FIGURE = re.compile(r"^\S.*\bplt\.(subplots|figure|imshow|plot|show)\(", re.MULTILINE)

#: Committed notebooks stay small enough to read in a diff and to render quickly.
MAX_BYTES = 1_500_000


def _code_cells(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for number, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code":
            source = cell["source"]
            yield number, "".join(source) if isinstance(source, list) else source, cell


def _has_image(cell):
    return any("image/png" in output.get("data", {}) for output in cell.get("outputs", []))


def test_notebooks_are_found():
    assert len(NOTEBOOKS) >= 4, NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def test_a_notebook_that_draws_holds_its_figures(path):
    cells = list(_code_cells(path))
    if not any(DRAWS.search(source) for _, source, _ in cells):
        pytest.skip(f"{path.name} draws nothing")
    assert any(_has_image(cell) for _, _, cell in cells), (
        f"{path.name} draws figures but holds no image output: re-execute it with "
        f"'jupyter execute --inplace {path.name}' from notebooks/ (without MPLBACKEND=Agg)")
    blank = [number for number, source, cell in cells
             if MAKES_FIGURE.search(source) and not _has_image(cell)]
    assert blank == [], f"{path.name}: cells {blank} make a figure but show none"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def test_a_notebook_stays_small(path):
    assert path.stat().st_size < MAX_BYTES, f"{path.name}: {path.stat().st_size} bytes"


def test_a_notebook_without_its_figures_is_caught(tmp_path):
    cell = {"cell_type": "code", "source": ["fig, ax = plt.subplots()\n", "ax.plot([1, 2])"],
            "outputs": [{"output_type": "stream", "text": "done"}], "metadata": {},
            "execution_count": 1}
    path = tmp_path / "blank.ipynb"
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}))
    with pytest.raises(AssertionError, match="draws figures but holds no image output"):
        test_a_notebook_that_draws_holds_its_figures(path)
    cell["outputs"].append({"output_type": "display_data",
                            "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"},
                            "metadata": {}})
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}))
    test_a_notebook_that_draws_holds_its_figures(path)
