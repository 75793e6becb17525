"""The command line prints its warnings and notes on lines of their own, after the bars."""

import warnings

from scipy import sparse

import digraph_askls.evaluation as evaluation
import digraph_askls.experiments as experiments
from digraph_askls import cli
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.graph import Graph


def _small_graph(name, data_home, download, seed):
    adjacency, labels = make_directed_sbm(300, 3, 1, p_in=0.8, random_state=seed)
    return Graph(sparse.csr_array(adjacency), labels, list(range(300)), [0, 1, 2],
                 name="small sbm")


def _lines_of(err):
    """What a log file shows: lines split at newlines, each as last drawn after '\\r'."""
    return [line.split("\r")[-1] for line in err.split("\n")]


def test_run_prints_the_singular_note_and_warnings_after_the_progress_bar(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_load", _small_graph)
    original = evaluation.evaluate_node_classifier

    def evaluate_with_a_warning(*args, **kwargs):
        warnings.warn("a warning raised while the bar is drawn", UserWarning)
        return original(*args, **kwargs)

    monkeypatch.setattr(evaluation, "evaluate_node_classifier", evaluate_with_a_warning)
    assert cli.main(["run", "--dataset", "small", "--preset", "paper", "--trials", "2"]) == 0
    err = capsys.readouterr().err
    assert "AsK-LS (paper)" in err      # the bar was drawn
    bar_end = err.rindex("AsK-LS (paper)")
    for text in ("note: the training system was singular in 2 of 2 splits",
                 "UserWarning: a warning raised while the bar is drawn"):
        assert err.index(text) > bar_end
        # its own line: the line holding it starts with it (or with the warning's place),
        # and no carriage return of the bar precedes it on that line
        line = next(line for line in err.split("\n") if text in line)
        assert "\r" not in line and "AsK-LS" not in line.split(text)[0], line
    assert any(line.startswith("note: ") for line in _lines_of(err))


def test_quiet_run_prints_the_note_without_a_blank_line(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_load", _small_graph)
    assert cli.main(["run", "--dataset", "small", "--preset", "paper", "--trials", "1",
                     "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("note: the training system was singular in 1 of 1 splits")


def test_warnings_of_other_commands_wait_for_the_bars(monkeypatch, capsys):
    def table4_with_a_warning(*args, verbose=True, **kwargs):
        from tqdm.auto import tqdm

        for _ in tqdm(range(2), desc="heart", disable=not verbose, leave=False):
            warnings.warn("inside the loop", RuntimeWarning)
        return []

    monkeypatch.setattr(experiments, "run_table4", table4_with_a_warning)
    monkeypatch.setattr(experiments, "format_table4", lambda rows: "| table |")
    assert cli.main(["table4", "--datasets", "heart", "--trials", "1"]) == 0
    captured = capsys.readouterr()
    line = next(line for line in captured.err.split("\n") if "inside the loop" in line)
    assert "\r" not in line and "heart" not in line
    assert captured.err.index("inside the loop") > captured.err.rindex("heart")



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
