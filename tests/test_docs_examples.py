"""The examples of the documentation's pages run and print what the pages show.

Every fenced ``python`` block of a page whose first line starts with ``>>>`` is a doctest;
the blocks of one page run in order in one namespace, as a reader would run them, on the
small in-memory graphs they build (no dataset file, no network).
"""

import doctest
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted([DOCS / "index.md", DOCS / "getting-started.md", DOCS / "glossary.md",
                *(DOCS / "guide").glob("*.md")])
FENCE = re.compile(r"^```python\n(>>> .*?)^```", flags=re.S | re.M)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _doctest_of(page):
    return "\n".join(FENCE.findall(page.read_text()))


def test_the_guide_pages_open_with_an_example():
    # Every page of the user guide but its index shows code before its first section.
    for page in (DOCS / "guide").glob("*.md"):
        if page.name == "index.md":
            continue
        head = page.read_text().split("\n## ", 1)[0]
        assert "```" in head, f"{page.name} has no example before its first section"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("page", [page for page in PAGES if _doctest_of(page)],
                         ids=lambda page: str(page.relative_to(DOCS)))
def test_the_page_s_examples_print_what_it_shows(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)            # examples that write files write them here
    test = doctest.DocTestParser().get_doctest(
        _doctest_of(page), {"__name__": "__docs__"}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    failures = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)


def test_a_wrong_output_fails(tmp_path):
    # The runner above would report a page whose printed output differs.
    page = tmp_path / "page.md"
    page.write_text("```python\n>>> 1 + 1\n3\n```\n")
    test = doctest.DocTestParser().get_doctest(_doctest_of(page), {}, "page", None, 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=lambda text: None)
    assert runner.failures == 1
