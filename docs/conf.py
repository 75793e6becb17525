"""Sphinx configuration of the digraph_askls documentation.

Build with ``sphinx-build -W -b html docs docs/_build/html`` after ``pip install ".[docs]"``.
The notebooks are shown with the outputs they were committed with; the scripts of
``examples/`` (the gallery) are run by the build, each in a few seconds, and draw its figures.
Nothing is loaded from the network: formulas are typeset by the copy of MathJax in
``_static/mathjax`` (Apache-2.0, its LICENSE beside it).
"""

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Document the checkout being built, whichever copy of the library is installed.
sys.path.insert(0, str(HERE.parent))

import digraph_askls  # noqa: E402

project = "digraph_askls"
author = "the digraph_askls developers"
copyright = "the digraph_askls developers"
release = digraph_askls.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
    "sphinx_gallery.gen_gallery",
    "sphinx_design",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
# docs/results/*.md are written by the table commands; the pages under tables/ include them.
# auto_examples/ is written by sphinx-gallery: its notebooks are downloads, not pages.
exclude_patterns = ["_build", "results/*.md", "**.ipynb_checkpoints", "api/generated/*.md",
                    "auto_examples/*.ipynb", "auto_examples/*.py"]
templates_path = ["_templates"]

# API reference: one page per public object, from the numpydoc docstrings.
autosummary_generate = True
autosummary_ignore_module_all = False
autodoc_typehints = "none"
autodoc_member_order = "groupwise"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# Notebooks: rendered from their committed outputs, never run at build time.
nb_execution_mode = "off"
nb_merge_streams = True
# Tables that the notebooks display as markdown are drawn as tables.
nb_render_markdown_format = "myst"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]

# Formulas: MathJax 3 (npm package mathjax@3.2.2, es5/tex-svg.js, one file, no fonts to
# fetch) served from _static, so that a page read offline shows them typeset. Its menu
# is off: its accessibility entries would fetch the speech rule engine from a CDN.
mathjax_path = "mathjax/tex-svg.js"
mathjax3_config = {"options": {"enableMenu": False}}

# The example gallery: the scripts of examples/ run at build time (seconds each, on the
# built-in synthetic graphs) and their figures are drawn into the pages.
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "abort_on_example_error": True,
    "remove_config_comments": True,
    "show_memory": False,
    "backreferences_dir": None,
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "reset_modules": ("matplotlib",),
    "first_notebook_cell": None,
    # Its page of computation times loads jQuery and DataTables from a CDN: not written.
    "write_computation_times": False,
}
myst_heading_anchors = 3

html_theme = "pydata_sphinx_theme"
html_title = "digraph_askls"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    # The notebooks' code and figures get the right-hand column too: no page outline there.
    "secondary_sidebar_items": {
        pattern: ["page-toc"] for pattern in ("*", "guide/*", "api/*", "api/generated/*",
                                              "tables/*")
    },
}
html_show_sourcelink = False
# Pages without a section of their own have no section navigation: the text takes its place.
html_sidebars = {"index": [], "getting-started": [], "glossary": [], "changelog": []}

# The pages under tables/ include the files that the table commands write into results/.
# A file that a checkout does not hold yet (the comparison with graph neural networks is
# written by ``python -m experiments table comparison --out docs/results``) makes its page say how
# to produce it, instead of failing the build.
_INCLUDE = re.compile(r"```\{include\} \.\./results/(?P<name>[\w.-]+)\n(?::.*\n)*```")


def _missing_results(app, docname, source):
    if not docname.startswith("tables/"):
        return

    def replace(match):
        if (HERE / "results" / match["name"]).exists():
            return match[0]
        return (f"This checkout has no `docs/results/{match['name']}` yet; "
                "{doc}`../guide/command-line` lists the table commands that write the "
                "files of `docs/results`.")

    source[0] = _INCLUDE.sub(replace, source[0])


# Tables fit the text column at 1280 pixels, without a scrollbar: a cell that holds one
# short figure (``0.478 ± 0.022``, ``Dir-GNN 0.797``) or a single short word is kept on
# one line; longer cells wrap between their parts, and a mean never parts from its
# ``± std``. A table too wide for the column even so (about 95 characters of one-line
# cells, paddings included) is marked ``wide-table``: smaller text, and every cell may
# wrap, a mean above its ``± std``.
SHORT_FIGURE, SHORT_WORD = 14, 12
PLUS_MINUS = (" ± ", "\u00a0±\u00a0")
COLUMN_CHARACTERS, CELL_PADDING = 95, 3


def _keeps_one_line(text):
    if any(character.isdigit() for character in text):
        return len(text) <= SHORT_FIGURE
    return len(text) <= SHORT_WORD


def _narrowest(text):
    """The width in characters below which a cell cannot shrink."""
    if _keeps_one_line(text):
        return len(text)
    return max((len(word) for word in text.replace(" ± ", "±").split()), default=0)


def _is_wide(table):
    from docutils import nodes

    widths = {}
    for row in table.findall(nodes.row):
        for column, entry in enumerate(row.findall(nodes.entry)):
            widths[column] = max(widths.get(column, 0), _narrowest(entry.astext()))
    return sum(widths.values()) + CELL_PADDING * len(widths) > COLUMN_CHARACTERS


def _short_cells_on_one_line(app, doctree, docname):
    from docutils import nodes

    for table in doctree.findall(nodes.table):
        if _is_wide(table):
            table["classes"].append("wide-table")
            continue
        for entry in table.findall(nodes.entry):
            if _keeps_one_line(entry.astext()):
                entry["classes"].append("one-line")
            for text in list(entry.findall(nodes.Text)):
                if PLUS_MINUS[0] in text:
                    text.parent.replace(text, nodes.Text(text.replace(*PLUS_MINUS)))


def setup(app):
    app.connect("source-read", _missing_results)
    app.connect("doctree-resolved", _short_cells_on_one_line)
