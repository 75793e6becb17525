"""The command line prints its warnings and notes on lines of their own, after the bars."""

import json
import warnings

import pytest
from scipy import sparse

import digraph_askls.model_selection as model_selection
from digraph_askls import _notes, cli
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.graph import Graph


def _small_graph(name, data_home, download, seed):
    adjacency, labels = make_directed_sbm(300, 3, 1, p_in=0.8, random_state=seed)
    return Graph(sparse.csr_array(adjacency), labels, list(range(300)), [0, 1, 2],
                 name="small sbm")


def _lines_of(err):
    """What a log file shows: lines split at newlines, each as last drawn after '\\r'."""
    return [line.split("\r")[-1] for line in err.split("\n")]


def _as_a_terminal(monkeypatch, delay=0.0):
    """Make the command see its stderr as a terminal, with bars after ``delay`` seconds."""
    monkeypatch.setattr(_notes, "_is_terminal", lambda stream: True)
    monkeypatch.setattr(_notes, "PROGRESS_DELAY", delay)


def test_run_prints_the_singular_note_and_warnings_after_the_progress_bar(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_load", _small_graph)
    _as_a_terminal(monkeypatch)
    original = model_selection.evaluate_node_classifier

    def evaluate_with_a_warning(*args, **kwargs):
        warnings.warn("a warning raised while the bar is drawn", UserWarning)
        return original(*args, **kwargs)

    monkeypatch.setattr(model_selection, "evaluate_node_classifier", evaluate_with_a_warning)
    assert cli.main(["run", "--dataset", "small", "--preset", "paper", "--trials", "2"]) == 0
    err = capsys.readouterr().err
    assert "AsK-LS (paper)" in err      # the bar was drawn
    bar_end = err.rindex("AsK-LS (paper)")
    for text in ("note: the training system was singular in 2 of 2 splits",
                 "UserWarning: a warning raised while the bar is drawn"):
        assert err.index(text) > bar_end
    # on a terminal the bar clears its line: each note starts a line as it is seen
    shown = _lines_of(err)
    assert any(line.startswith("note: the training system") for line in shown), shown
    assert not any("AsK-LS (paper)" in line for line in shown), shown


def test_no_bar_where_stderr_is_not_a_terminal_or_the_work_is_short(monkeypatch, capsys):
    """A log file or a pipe gets no bar, nor does a terminal for work shorter than the
    delay; the notes are the same."""
    monkeypatch.setattr(cli, "_load", _small_graph)
    args = ["run", "--dataset", "small", "--preset", "paper", "--trials", "2"]
    assert cli.main(args) == 0                              # capsys: not a terminal
    err = capsys.readouterr().err
    assert "AsK-LS (paper)" not in err and "\r" not in err
    assert err.startswith("note: the training system was singular in 2 of 2 splits"), err
    _as_a_terminal(monkeypatch, delay=60.0)
    assert cli.main(args) == 0
    err = capsys.readouterr().err
    assert "AsK-LS (paper)" not in err and "\r" not in err, err


def test_quiet_run_prints_the_note_without_a_blank_line(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_load", _small_graph)
    _as_a_terminal(monkeypatch)
    assert cli.main(["run", "--dataset", "small", "--preset", "paper", "--trials", "1",
                     "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("note: the training system was singular in the one "
                                   "split"), captured.err
    assert "1 random 60/40 split (seed 0)" in captured.out       # one split, not "1 splits"
    assert "(in the one split)" in captured.out


def test_run_uses_the_fixed_splits_and_attributes_and_names_the_kernel(shared_datasets,
                                                                        capsys):
    data = ["--dataset", "texas", "--data-home", str(shared_datasets), "--trials", "2",
            "--quiet"]
    assert cli.main(["run", *data]) == 0
    out = capsys.readouterr().out
    assert "1703 attributes" in out and "2 of the dataset's fixed splits" in out
    assert "kernel selected: AttributeKernel(" in out and "(in 2 of 2 splits)" in out
    assert cli.main(["run", *data, "--no-features", "--splits", "random"]) == 0
    out = capsys.readouterr().out
    assert "no attributes" in out and "2 random 60/40 splits" in out
    assert "AttributeKernel" not in out
    assert cli.main(["run", "--dataset", "polblogs", "--data-home", str(shared_datasets),
                     "--splits", "fixed", "--quiet"]) == 2
    assert "ships no fixed splits; use --splits random" in capsys.readouterr().err


def _subcommands():
    parser = cli.build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return parser, action.choices


def test_predict_is_listed_first():
    parser, commands = _subcommands()
    assert list(commands)[0] == "predict"
    listed = [line.split()[0] for line in parser.format_help().split("positional arguments:")[1]
              .splitlines() if line.startswith("    ") and not line.startswith("      ")]
    assert listed[:2] == ["predict", "run"]


def test_verbose_is_taken_before_or_after_the_command():
    parser = cli.build_parser()
    assert parser.parse_args(["-v", "run", "--dataset", "sbm"]).verbose is True
    assert parser.parse_args(["run", "--dataset", "sbm", "-v"]).verbose is True
    assert parser.parse_args(["run", "--dataset", "sbm"]).verbose is False
    assert parser.parse_args(["predict", "--edges", "e.csv", "--labels", "l.csv",
                              "-v"]).verbose is True


def test_run_with_verbose_after_the_command(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_load", _small_graph)
    assert cli.main(["run", "--dataset", "sbm", "--trials", "1", "--quiet", "-v"]) == 0
    assert "micro-F1" in capsys.readouterr().out


def test_every_command_lists_the_global_options_and_every_option_has_help():
    _, commands = _subcommands()
    assert set(commands) == {"predict", "run"}
    for name, parser in commands.items():
        assert "-v, --verbose" in parser.format_help(), name
        for action in parser._actions:
            assert action.help and action.help.strip(), (name, action.option_strings)


def test_run_help_says_which_splits_and_what_each_preset_does():
    _, commands = _subcommands()
    text = " ".join(commands["run"].format_help().split())
    assert "random train/test splits" not in text
    assert "published with the dataset where it ships them" in text
    preset = next(a for a in commands["run"]._actions if a.dest == "preset").help
    assert "the defaults" not in preset
    for name in ("'none': no preset", "'auto' (default): a preset chosen from the graph",
                 "'paper': the authors' protocol", "'large': a 3-hop"):
        assert name in preset


def test_run_with_a_preset_that_reads_no_attributes_says_so(shared_datasets, capsys):
    assert cli.main(["run", "--dataset", "texas", "--data-home", str(shared_datasets),
                     "--trials", "1", "--preset", "paper", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "1703 attributes, not read by the 'paper' preset's kernel" in captured.out
    assert "are not read by the kernel" not in captured.err


def test_run_lets_the_validation_nodes_be_fitted_or_choose(shared_datasets, capsys):
    import numpy as np

    from digraph_askls import NodeClassifier
    from digraph_askls.datasets import load_dataset

    graph = load_dataset("texas", data_home=shared_datasets, download=False)
    split = graph.splits[0]
    data = ["run", "--dataset", "texas", "--data-home", str(shared_datasets), "--trials", "1",
            "--quiet"]
    scores = {}
    for mode in ("ignore", "fit", "choose"):
        assert cli.main([*data, "--valid", mode, "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["valid"] == mode
        scores[mode] = report["micro_f1"][0]
    known = np.full(graph.labels.size, -1)
    labelled = np.union1d(split.train, split.valid)
    known[labelled] = graph.labels[labelled]
    test = graph.labels[split.test]
    chosen = NodeClassifier(random_state=0).fit(graph, known, valid=split.valid)
    fitted = NodeClassifier(random_state=0).fit(graph, known)
    known[split.valid] = -1
    alone = NodeClassifier(random_state=0).fit(graph, known)
    assert scores == {"ignore": np.mean(alone.predict(split.test) == test),
                      "fit": np.mean(fitted.predict(split.test) == test),
                      "choose": np.mean(chosen.predict(split.test) == test)}
    assert cli.main([*data, "--valid", "choose"]) == 0
    assert "validation nodes choosing the kernel, gamma and merge" in capsys.readouterr().out
    assert cli.main([*data, "--splits", "random", "--valid", "fit"]) == 2
    assert "random splits do not hold" in capsys.readouterr().err
    assert cli.main([*data, "--splits", "planetoid"]) == 2
    assert "published for cora and citeseer, got 'texas'" in capsys.readouterr().err


def test_run_on_the_planetoid_split(shared_datasets, capsys):
    assert cli.main(["run", "--dataset", "cora", "--splits", "planetoid", "--data-home",
                     str(shared_datasets), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "the Planetoid public split; validation nodes neither fitted nor scored" in out
    assert "micro-F1 0.822" in out          # the 140 training nodes alone, comparison.md


@pytest.mark.parametrize("argv, command", [
    (["table", "comparison", "--cached-only"], "table"),
    (["-v", "table4", "--datasets", "heart"], "table4"),
    (["table1"], "table1"),
    (["table3", "--trials", "2"], "table3"),
])
def test_a_table_command_names_the_harness_that_draws_it_now(argv, command, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert f"the '{command}' command moved to the research harness" in err
    assert f"python -m experiments {' '.join(argv)}" in err
    assert "root of the repository" in err and "invalid choice" not in err


def test_the_main_help_says_where_the_tables_went():
    text = " ".join(cli.build_parser().format_help().split())
    assert "'python -m experiments <command> ...', run from the root of the repository" in text
