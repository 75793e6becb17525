"""The command line's first minutes: a light ``--help``, ``--version``, and what ``run
--preset paper`` says beside its result (the paper's figure, a one-sentence note on the
singular systems and where the documentation explains them).

The wall time of ``--help`` is measured by ``benchmarks/bench_cli_start.py``; here, what
it depends on: building the parser imports no estimator.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from scipy import sparse

from digraph_askls import __version__, cli
from digraph_askls._paper_figures import PAPER_TABLE3
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.graph import Graph

REPO = Path(__file__).resolve().parents[1]

HEAVY = ("sklearn", "scipy.sparse.linalg", "pandas", "torch", "digraph_askls.models",
         "experiments")


def _small_graph(name, data_home, download, seed):
    adjacency, labels = make_directed_sbm(300, 3, 1, p_in=0.8, random_state=seed)
    return Graph(sparse.csr_array(adjacency), labels, list(range(300)), [0, 1, 2],
                 name="small sbm")


def test_the_parser_and_help_import_no_estimator(tmp_path):
    code = ("import sys, contextlib, io\n"
            "import digraph_askls.cli as cli\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            "        cli.main(['--help'])\n"
            "    except SystemExit:\n"
            "        pass\n"
            f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})))\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}     # this checkout, installed or not
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_estimators_are_still_imported_from_the_package():
    import digraph_askls

    assert digraph_askls.NodeClassifier.__name__ == "NodeClassifier"
    assert "NodeClassifier" in dir(digraph_askls)
    assert digraph_askls.models.NodeClassifier is digraph_askls.NodeClassifier


def test_the_preset_names_of_the_parser_are_the_models():
    from digraph_askls.models import PRESETS

    assert cli.PRESET_NAMES == tuple(sorted(PRESETS))


def test_version_prints_the_version(capsys):
    try:
        cli.main(["--version"])
    except SystemExit as stop:
        assert stop.code == 0
    out = capsys.readouterr().out
    assert out == f"digraph-askls {cli.package_version()}\n"
    assert re.fullmatch(r"digraph-askls \d+\.\d+\.\d+\S*\n", out)


def test_version_falls_back_to_the_package_version(monkeypatch):
    from importlib import metadata

    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    assert cli.package_version() == __version__


def test_run_with_the_paper_preset_prints_the_papers_figure_and_what_to_expect(
        monkeypatch, capsys):
    monkeypatch.setattr(cli, "_load", _small_graph)
    assert cli.main(["run", "--dataset", "cora", "--preset", "paper", "--trials", "2",
                     "--quiet"]) == 0
    out, err = capsys.readouterr()
    micro, macro = PAPER_TABLE3["cora"]["AsK-LS"]
    assert f"the paper (Table 3): micro-F1 {micro:.3f}   macro-F1 {macro:.3f}" in out
    assert "expect: --preset paper reproduces the paper's protocol" in out
    assert "usually more accurate" in out
    # the singular systems: one sentence, naming the page that explains them
    notes = [line for line in err.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and len(notes[0]) < 240, notes
    assert "singular in 2 of 2 splits" in notes[0] and notes[0].count(". ") == 0
    assert cli.SINGULAR_DOCS in notes[0]
    page, section = cli.SINGULAR_DOCS.split(", ", 1)
    assert f"## {section.strip(chr(39))}" in (REPO / page).read_text()
    assert "M^T M" not in err          # the solver's message waits for -v


def test_verbose_run_logs_the_solvers_message(monkeypatch, caplog):
    monkeypatch.setattr(cli, "_load", _small_graph)
    with caplog.at_level("INFO", logger="digraph_askls.cli"):
        assert cli.main(["-v", "run", "--dataset", "sbm", "--preset", "paper", "--trials",
                         "1", "--quiet"]) == 0
    assert "the solver's first message: the AsK-LS system is singular" in caplog.text


def test_run_names_other_splits_and_graphs_the_paper_has_no_figure_for(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_load", _small_graph)
    assert cli.main(["run", "--dataset", "cora", "--preset", "paper", "--trials", "1",
                     "--train-size", "0.5", "--quiet"]) == 0
    assert "on random 60/40 splits, not the splits of this run" in capsys.readouterr().out
    assert cli.main(["run", "--dataset", "sbm", "--preset", "paper", "--trials", "1",
                     "--quiet"]) == 0
    assert "the paper prints no figure for sbm" in capsys.readouterr().out


def test_run_without_the_paper_preset_prints_no_paper_figure(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_load", _small_graph)
    assert cli.main(["run", "--dataset", "cora", "--trials", "1", "--quiet"]) == 0
    assert "the paper" not in capsys.readouterr().out


def test_json_run_with_the_paper_preset_holds_the_papers_figure(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_load", _small_graph)
    assert cli.main(["run", "--dataset", "citeseer", "--preset", "paper", "--trials", "1",
                     "--json", "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out)
    micro, macro = PAPER_TABLE3["citeseer"]["AsK-LS"]
    assert (summary["paper"]["micro_f1"], summary["paper"]["macro_f1"]) == (micro, macro)
