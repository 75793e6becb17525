"""The documentation: the site builds without a warning, its API reference is complete, and
the README's examples run as shown."""

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
# The public modules of the API reference (docs/api), each with the names of its __all__.
# digraph_askls.models re-exports the estimators that the top level documents.
MODULES = ["digraph_askls", "digraph_askls.graph", "digraph_askls.datasets",
           "digraph_askls.kernels", "digraph_askls.linalg", "digraph_askls.models",
           "digraph_askls.evaluation", "digraph_askls.embedding", "digraph_askls.distributed",
           "digraph_askls.peers"]
DOCUMENTED_ELSEWHERE = {"__version__"}


def _all_of(module):
    path = REPO / Path(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(
                getattr(target, "id", None) == "__all__" for target in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{path} has no __all__")


def _listed(module):
    """The names listed in the autosummary tables of the module's API page."""
    page = (DOCS / "api" / f"{module}.rst").read_text()
    return {line.strip() for line in page.splitlines() if line.startswith("   ")
            and line.strip() and not line.strip().startswith(":")}


@pytest.mark.parametrize("module", MODULES)
def test_every_public_name_is_in_the_api_reference(module):
    names = set(_all_of(module)) - DOCUMENTED_ELSEWHERE
    if module == "digraph_askls.models":
        names -= set(_all_of("digraph_askls"))
    assert names - _listed(module) == set(), f"docs/api/{module}.rst misses them"


def test_the_research_harness_stays_out_of_the_api_reference():
    pages = " ".join(path.read_text() for path in (DOCS / "api").glob("*.rst"))
    assert "automodule:: digraph_askls.experiments" not in pages
    assert "digraph_askls.experiments." not in pages


@pytest.mark.timeout(600)
def test_the_site_builds_without_a_warning(tmp_path):
    for package in ("sphinx", "numpydoc", "myst_nb", "pydata_sphinx_theme", "sphinx_gallery",
                    "sphinx_design"):
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"{package} is not installed: pip install \".[docs]\" builds the site")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")],
        cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-5000:]
    html = tmp_path / "html"
    for page in ("index.html", "api/generated/digraph_askls.NodeClassifier.html",
                 "guide/own-graph.html", "examples/01_quickstart.html",
                 "tables/directed.html", "auto_examples/plot_03_direction.html",
                 "guide/mathematics.html", "glossary.html"):
        assert (html / page).is_file(), page
    # The gallery's scripts ran: their figures are in the pages.
    assert list((html / "_images").glob("sphx_glr_plot_03_direction_*.png"))
    # Nothing is fetched from the network: the formulas are typeset by the site's MathJax.
    offline = subprocess.run([sys.executable, str(REPO / ".ci" / "check_site_offline.py"),
                              str(html)], capture_output=True, text=True)
    assert offline.returncode == 0, offline.stderr[-3000:]
    assert "_static/mathjax/tex-svg.js" in (html / "guide" / "mathematics.html").read_text()
    # The notebooks are shown from their committed outputs, never run by the build.
    assert "mode: full" in (html / "examples" / "01_quickstart.html").read_text()


def _blocks(language):
    text = (REPO / "README.md").read_text()
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def test_the_readme_s_ten_lines_print_what_their_comments_say():
    (code,) = _blocks("python")
    assert len([line for line in code.splitlines() if line.strip()]) <= 12
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    assert printed[:3] == ["['a' 'b']", "SmoothedAttributeKernel() 0.1", "1.0"]


def test_the_readme_s_files_are_those_the_predict_command_is_tested_on():
    constants = {}
    for node in ast.parse((REPO / "tests" / "test_predict_command.py").read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") in (
                "EDGES", "LABELS"):
            constants[node.targets[0].id] = ast.literal_eval(node.value)
    (shell,) = [block for block in _blocks("bash") if "digraph-askls predict" in block]
    assert f"cat > edges.csv <<'EOF'\n{constants['EDGES']}EOF" in shell
    assert f"cat > labels.csv <<'EOF'\n{constants['LABELS']}EOF" in shell
