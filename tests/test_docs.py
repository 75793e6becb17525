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
           "digraph_askls.metrics", "digraph_askls.model_selection", "digraph_askls.embedding",
           "digraph_askls.distributed", "digraph_askls.peers"]
DOCUMENTED_ELSEWHERE = {"__version__"}
# Deprecated names stay importable but are kept out of the API reference.
DEPRECATED = {"NodeClassifierCV"}


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
    names = set(_all_of(module)) - DOCUMENTED_ELSEWHERE - DEPRECATED
    if module == "digraph_askls.models":
        names -= set(_all_of("digraph_askls"))
    assert names - _listed(module) == set(), f"docs/api/{module}.rst misses them"


def test_deprecated_names_stay_importable_but_out_of_the_api_reference():
    pages = " ".join(path.read_text() for path in (DOCS / "api").glob("*.rst"))
    for name in DEPRECATED:
        assert name not in pages, f"{name} is deprecated: docs/api should not list it"
        assert name not in _all_of("digraph_askls"), f"{name} is deprecated: out of __all__"
        assert getattr(importlib.import_module("digraph_askls"), name), f"{name} is gone"


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


# Sentences that tell how a figure came to be: they belong in the measurement history
# (docs/results/history.md), not on the pages that tell a user what to do.
HISTORY_PHRASES = ("the one temperature of the earlier calibrator",
                   "calibrations were tried", "measured after the development work",
                   "where it had chosen the walk kernel", "rerun of the rerun",
                   "that of the rerun")
USER_PAGES = sorted([DOCS / "index.md", DOCS / "getting-started.md",
                     *(DOCS / "guide").glob("*.md")])


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda page: str(page.relative_to(DOCS)))
def test_the_user_pages_tell_no_measurement_history(page):
    text = " ".join(page.read_text().split()).lower()
    found = [phrase for phrase in HISTORY_PHRASES if phrase in text]
    assert not found, f"{page.name} tells history ({found}): move it to docs/results/history.md"


def test_the_history_phrases_are_found_where_they_occur(tmp_path):
    # The check above reads sentences across line breaks, whatever their case.
    page = tmp_path / "page.md"
    page.write_text("With the one temperature\nof the Earlier calibrator, 0.030.\n")
    text = " ".join(page.read_text().split()).lower()
    assert any(phrase in text for phrase in HISTORY_PHRASES)


def test_the_results_pages_name_no_file_in_their_titles():
    for page in (DOCS / "tables").glob("*.md"):
        titles = [line for line in page.read_text().splitlines()
                  if line.startswith("#") or line.startswith("![")]
        assert not [t for t in titles if re.search(r"\(\S+\.md\)", t)], page.name
    comparison = " ".join((DOCS / "results" / "comparison.md").read_text().split())
    assert "that of the rerun" not in comparison and "rerun of the rerun" not in comparison


def test_the_getting_started_page_needs_no_checkout_s_data_or_scripts():
    text = (DOCS / "getting-started.md").read_text()
    assert "shared/datasets" not in text and ".ci/run" not in text
    first_block = re.search(r"```\w*\n(.*?)```", text, flags=re.S)[1]
    assert first_block.lstrip().startswith("pip install")


def _conf():
    spec = importlib.util.spec_from_file_location("docs_conf", DOCS / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    return conf


def _table(rows):
    from docutils import nodes

    table = nodes.table()
    group = nodes.tgroup(cols=len(rows[0]))
    body = nodes.tbody()
    for cells in rows:
        body += nodes.row("", *[nodes.entry("", nodes.paragraph(text=cell)) for cell in cells])
    group += body
    table += group
    return table


def test_tables_are_marked_to_fit_the_column():
    pytest.importorskip("docutils")
    from docutils import nodes

    conf = _conf()
    narrow = _table([["method", "cora"], ["GCN", "0.873 ± 0.009"],
                     ["AsK-LS default (train part)", "0.810 ± 0.015 (6 of 10 splits †)"]])
    wide = _table([["graph"] + [f"method {i}" for i in range(9)],
                   ["chameleon"] + ["0.298 ± 0.060"] * 9])
    document = nodes.document(None, None)
    document += [narrow, wide]
    conf._short_cells_on_one_line(None, document, "page")
    entries = list(narrow.findall(nodes.entry))
    # A short figure stays on one line, and its ± std with it; long cells may wrap.
    assert "one-line" in entries[3]["classes"] and "\u00a0±\u00a0" in entries[3].astext()
    assert "one-line" not in entries[4]["classes"]
    assert "one-line" not in entries[5]["classes"]
    assert "wide-table" not in narrow["classes"] and "wide-table" in wide["classes"]
    # In a wide table every cell may wrap.
    assert not any("one-line" in entry["classes"] for entry in wide.findall(nodes.entry))


def test_the_node_classifier_docstring_names_public_places_only():
    import re

    from digraph_askls import NodeClassifier

    doc = NodeClassifier.__doc__ + NodeClassifier.fit.__doc__
    private = re.findall(r"digraph_askls(?:\.\w+)*\._\w+|~\._\w+|\b_\w+\.py\b", doc)
    paths = re.findall(r"\b(?:docs|benchmarks|tests|experiments)/\S+", doc)
    assert private == [] and paths == [], (private, paths)
