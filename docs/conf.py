"""Sphinx configuration of the digraph_askls documentation.

Build with ``sphinx-build -W -b html docs docs/_build/html`` after ``pip install ".[docs]"``.
The notebooks are shown with the outputs they were committed with: nothing is executed here.
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
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
# docs/results/*.md are written by the table commands; the pages under tables/ include them.
exclude_patterns = ["_build", "results/*.md", "**.ipynb_checkpoints", "api/generated/*.md"]
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
myst_enable_extensions = ["dollarmath", "colon_fence"]
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
html_sidebars = {"index": [], "getting-started": []}

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


def setup(app):
    app.connect("source-read", _missing_results)
