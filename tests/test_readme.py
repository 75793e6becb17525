"""The examples of the README and of the guides print what the pages say they print.

How the examples are found (keep these forms when editing the pages):

* a page's section is the text from its ``## <title>`` line to the next ``## `` line;
* **Python examples**: the first fenced ````python`` block of the section is run, one
  top-level statement at a time, in an empty folder. A ``print(...)`` statement with a
  comment at the end of its last line is checked: what it printed must be the comment
  (``# ['a' 'b']``), or end the comment after a colon and a blank
  (``# held-out accuracy of the fit: 1.0``). Statements without such a comment run
  unchecked; a section without any checked print fails.
* **Shell examples**: the first fenced ````bash`` block of the section is run by bash,
  with its ``pip install`` lines left out (the test runs on the installed checkout) and
  ``digraph-askls`` the command line of this checkout (``python -m
  digraph_askls.cli``), in an empty folder standing for the repository root, with
  ``TMPDIR`` in the test's own folder. Its standard output must equal the fenced block that
  follows the line ``prints``. The folder must be left empty: the example writes its files
  in a folder of its own (``cd "$(mktemp -d)"``), not in the checkout.
* **Commands in the text**: ```digraph-askls ...`` prints ... :`` followed by a ````text``
  block: the command's output must equal the block, timings (``0.09 s per split``) aside.
"""

import ast
import contextlib
import io
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def section(path, title):
    """The text of the ``## <title>...`` section of a markdown page."""
    text = path.read_text()
    match = re.search(rf"^## {re.escape(title)}.*?$(.*?)(?=^## |\Z)", text,
                      re.MULTILINE | re.DOTALL)
    assert match, f"{path.name} has no section '## {title}'"
    return match.group(1)


def first_block(text, language):
    """``(body, text after the block)`` of the first fenced block of ``language``."""
    for match in FENCE.finditer(text):
        if match.group(1) == language:
            return match.group(2), text[match.end():]
    raise AssertionError(f"no ```{language} block in the section")


def comments_by_line(source):
    """``{line number: text}`` of the comments of a Python source."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {token.start[0]: token.string.lstrip("#").strip() for token in tokens
            if token.type == tokenize.COMMENT}


def _is_print(statement):
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and getattr(statement.value.func, "id", None) == "print")


def run_python_block(source, replace=()):
    """Run ``source`` statement by statement; the ``(printed, comment)`` pairs of the
    prints that carry a comment."""
    for old, new in replace:
        source = source.replace(old, new)
    comments, namespace, checked = comments_by_line(source), {"__name__": "__main__"}, []
    for statement in ast.parse(source).body:
        code = compile(ast.Module([statement], type_ignores=[]), "<example>", "exec")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(code, namespace)
        comment = comments.get(statement.end_lineno)
        if _is_print(statement) and comment is not None:
            checked.append((out.getvalue().rstrip("\n"), comment))
    return checked


def check_printed(checked):
    assert checked, "the example has no print with the printed text in a comment"
    for printed, comment in checked:
        assert comment == printed or comment.endswith(": " + printed), \
            f"the page says {comment!r}, the code prints {printed!r}"


PYTHON_EXAMPLES = [(README, "Ten lines"), (DOCS / "getting-started.md", "Ten lines")]


@pytest.mark.parametrize("path, title", PYTHON_EXAMPLES,
                         ids=[f"{path.name}:{title}" for path, title in PYTHON_EXAMPLES])
def test_the_python_examples_print_what_the_page_shows(path, title, tmp_path, monkeypatch):
    source, _ = first_block(section(path, title), "python")
    monkeypatch.chdir(tmp_path)
    check_printed(run_python_block(source))
    assert list(tmp_path.iterdir()) == []


def test_the_own_graph_guides_cora_example_prints_what_it_shows(shared_datasets,
                                                                monkeypatch, tmp_path):
    source, _ = first_block(section(DOCS / "guide" / "own-graph.md",
                                    "The graph forms you already hold"), "python")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DIGRAPH_ASKLS_DATA", str(shared_datasets))   # the reader's data home
    check_printed(run_python_block(source))


def _command_line_env(tmp_path):
    return {**os.environ, "TMPDIR": str(tmp_path), "PYTHON": sys.executable,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO),
                                                         os.environ.get("PYTHONPATH")])),
            "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def shell_script(block):
    """The block as a bash script: no ``pip install`` lines, ``digraph-askls`` this
    checkout's command line."""
    lines = [line for line in block.splitlines() if not line.startswith("pip install")]
    return "\n".join(['set -e', 'digraph-askls() { "$PYTHON" -m digraph_askls.cli "$@"; }',
                      *lines]) + "\n"


def printed_block(after):
    """The fenced block that follows the line ``prints`` after a shell block."""
    match = re.match(r"\s*prints\s*\n\s*```\w*\n(.*?)^```$", after, re.MULTILINE | re.DOTALL)
    assert match, "the shell block is not followed by 'prints' and a fenced block"
    return match.group(1)


SHELL_EXAMPLES = [(README, "Your own files"),
                  (DOCS / "guide" / "own-graph.md", "From files, on the command line")]


@pytest.mark.parametrize("path, title", SHELL_EXAMPLES,
                         ids=[f"{path.name}:{title}" for path, title in SHELL_EXAMPLES])
def test_the_shell_examples_print_what_the_page_shows(path, title, tmp_path):
    pytest.importorskip("pandas")
    block, after = first_block(section(path, title), "bash")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    result = subprocess.run(["bash", "-c", shell_script(block)], cwd=checkout,
                            env=_command_line_env(tmp_path), capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout == printed_block(after)
    assert list(checkout.iterdir()) == [], "the example wrote into the folder it ran from"


def _without_timings(text):
    return re.sub(r"\d+\.\d+ s per split", "<t> s per split", text)


COMMANDS = re.compile(r"`(digraph-askls [^`]+)` prints[^:`]*:\s*```text\n(.*?)^```$",
                      re.MULTILINE | re.DOTALL)


def test_the_command_line_guides_example_prints_what_it_shows(tmp_path):
    examples = COMMANDS.findall((DOCS / "guide" / "command-line.md").read_text())
    assert examples, "command-line.md shows no command with its output"
    for command, shown in examples:
        result = subprocess.run(["bash", "-c", shell_script(command.replace("\n", " "))],
                                cwd=tmp_path, env=_command_line_env(tmp_path),
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        assert _without_timings(result.stdout) == _without_timings(shown)


def _prose_paragraphs(text):
    """The README's prose paragraphs: code blocks, tables, headings, figures aside, each
    list item a paragraph of its own."""
    inside, paragraph, paragraphs = False, [], []
    for line in text.splitlines() + [""]:
        if line.startswith("```"):
            inside, paragraph = not inside, []
            continue
        if inside:
            continue
        if not line.strip() or line.startswith(("|", "#", "![", "- ")):
            if paragraph:
                paragraphs.append(" ".join(paragraph))
            paragraph = [line] if line.startswith("- ") else []
            continue
        paragraph.append(line.strip())
    return paragraphs


def test_no_prose_paragraph_of_the_readme_is_over_400_characters():
    paragraphs = _prose_paragraphs((REPO / "README.md").read_text())
    assert len(paragraphs) > 10
    assert [p[:60] for p in paragraphs if len(p) > 400] == []


def test_the_readme_counts_are_those_of_the_corrected_table():
    import re

    from experiments import _comparison
    from experiments._comparison_report import paired_rows, split_duplicated, verdict_counts

    cells = [cell for cell in _comparison.load_cells(
        REPO / "docs/results/comparison-cells.jsonl").values()
        if cell["seed"] == _comparison.SEALED_SEED]
    rows = paired_rows(split_duplicated(cells)[0])
    counts = verdict_counts(rows)
    text = (REPO / "README.md").read_text()
    said = re.search(r"ahead on (\d+) of (\d+)\s+judged rows, level on (\d+) and behind on "
                     r"(\d+)", text)
    assert said, "the README's summary sentence"
    assert tuple(map(int, said.groups())) == (counts["ahead"], sum(counts.values()),
                                              counts["level"], counts["behind"])
    table = [line for line in text.splitlines()
             if line.startswith("| ") and line.count("|") == 7 and "graph" not in line]
    assert len(table) == len(rows)
    for line, row in zip(table, rows):
        assert line.startswith(f"| {row['graph']} | {row['protocol']}")
        assert f"| {row['default']:.3f} |" in line and row["peer"] in line
