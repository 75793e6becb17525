"""The harness's command line, ``python -m experiments``: the result tables of
``docs/results``, their warnings after the bars, and missing data named with the option
that points at it."""

import subprocess
import sys
import warnings
from pathlib import Path

import experiments
from digraph_askls import _notes
from experiments import _cli as harness

ROOT = Path(__file__).resolve().parents[1]


def _subcommands():
    parser = harness.build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return parser, action.choices


def test_every_command_lists_the_global_options_and_every_option_has_help():
    _, commands = _subcommands()
    assert set(commands) == {"table", "table1", "table3", "table4", "verify"}
    for name, parser in commands.items():
        assert "-v, --verbose" in parser.format_help(), name
        for action in parser._actions:
            assert action.help and action.help.strip(), (name, action.option_strings)


def test_verbose_is_taken_before_or_after_the_command():
    parser = harness.build_parser()
    assert parser.parse_args(["table3", "--verbose"]).verbose is True
    assert parser.parse_args(["-v", "table", "comparison"]).verbose is True
    assert parser.parse_args(["table4"]).verbose is False


def test_python_dash_m_experiments_runs_from_the_repository_root(tmp_path):
    done = subprocess.run([sys.executable, "-m", "experiments", "table3", "--datasets", "cora",
                           "--trials", "1", "--data-home", str(tmp_path / "absent"),
                           "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("python -m experiments table3: error: none of the datasets")
    usage = subprocess.run([sys.executable, "-m", "experiments", "--help"], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert usage.returncode == 0 and "usage: python -m experiments" in usage.stdout


def test_warnings_of_other_commands_wait_for_the_bars(monkeypatch, capsys):
    def table4_with_a_warning(*args, verbose=True, **kwargs):
        from tqdm.auto import tqdm

        for _ in tqdm(range(2), desc="heart", disable=not verbose, leave=False):
            warnings.warn("inside the loop", RuntimeWarning)
        return []

    # bars are drawn on a terminal only: the harness's stderr is made to look like one
    monkeypatch.setattr(_notes, "_is_terminal", lambda stream: True)
    monkeypatch.setattr(_notes, "PROGRESS_DELAY", 0.0)
    monkeypatch.setattr(experiments, "run_table4", table4_with_a_warning)
    monkeypatch.setattr(experiments, "format_table4", lambda rows: "| table |")
    assert harness.main(["table4", "--datasets", "heart", "--trials", "1"]) == 0
    captured = capsys.readouterr()
    # each line as a terminal shows it: what was last drawn after a carriage return
    line = next(line.split("\r")[-1] for line in captured.err.split("\n")
                if "inside the loop" in line)
    assert line.lstrip().startswith(str(Path(__file__))) and "heart" not in line
    assert captured.err.index("inside the loop") > captured.err.rindex("heart")


def test_tables_without_any_data_exit_non_zero_naming_the_data_home(tmp_path, capsys):
    absent = str(tmp_path / "absent")
    assert harness.main(["table3", "--datasets", "cora", "--trials", "1", "--data-home",
                     absent, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "none of the datasets asked for could be read (cora)" in err
    assert "point --data-home at the folder" in err
    assert harness.main(["table", "directed", "--datasets", "cora", "citeseer", "--trials", "1",
                     "--methods", "PageRank directed", "--data-home", absent,
                     "--quiet"]) == 2
    captured = capsys.readouterr()
    assert "could be read (cora, citeseer)" in captured.err and "--data-home" in captured.err
    assert "data not available" not in captured.out       # no empty table


def test_a_table_with_some_data_lists_what_is_missing(monkeypatch, capsys):
    rows = [{"dataset": "cora", "method": "AsK-LS", "micro_f1_mean": 0.8},
            {"dataset": "nowhere", "status": "data not available: no file"}]
    monkeypatch.setattr(experiments, "run_table3", lambda *args, **kwargs: rows)
    monkeypatch.setattr(experiments, "format_table3", lambda rows: "| table |")
    assert harness.main(["table3", "--datasets", "cora", "nowhere", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "| table |" in captured.out
    assert "note: data not available for nowhere" in captured.err
    assert "--data-home" in captured.err


def test_table1_and_table4_name_the_option_that_points_at_the_data(monkeypatch, tmp_path,
                                                                  capsys):
    assert harness.main(["table1", "--trials", "1", "--corel-dir", str(tmp_path),
                     "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "Corel-1K image not found" in err and "point --corel-dir at the folder" in err

    def missing(*args, **kwargs):
        raise FileNotFoundError("dataset 'heart' needs 1 file(s) missing")

    monkeypatch.setattr(experiments, "run_table4", missing)
    assert harness.main(["table4", "--datasets", "heart", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "needs 1 file(s) missing" in err and "point --data-home at the folder" in err


def test_the_few_label_table_takes_its_own_methods_by_name(shared_datasets, tmp_path,
                                                          capsys):
    # 'AsK-LS default, structure' is a method of the few-label table only.
    assert harness.main(["table", "few-labels", "--datasets", "texas", "--protocols", "20",
                     "--trials", "1", "--methods", "AsK-LS default, structure",
                     "PageRank undirected", "--data-home", str(shared_datasets),
                     "--out", str(tmp_path), "--quiet"]) == 0
    text = (tmp_path / "few_labels.md").read_text()
    assert "AsK-LS default, structure" in text and "PageRank undirected" in text
    assert harness.main(["table", "few-labels", "--methods", "AsK-LS nothing", "--quiet"]) == 2
    assert "expected names among" in capsys.readouterr().err
