"""Cells carry their provenance, and ``verify`` reruns them and lists those that differ."""

import json

import numpy as np
import pytest

import experiments._comparison as comparison
from experiments import _cells, _cli, _verify
from digraph_askls import NodeClassifier
from digraph_askls.graph import Graph, get_adjacency


def _tiny_graph():
    """Three classes of 20 nodes, links mostly within classes, attributes that tell them
    apart a little."""
    rng = np.random.default_rng(0)
    labels = np.arange(60) % 3
    edges = [(i, j) for i in range(60) for j in range(60)
             if i != j and rng.random() < (0.2 if labels[i] == labels[j] else 0.02)]
    adjacency, nodes = get_adjacency(edges, nodelist=list(range(60)))
    attributes = np.c_[np.eye(3)[labels] + rng.normal(0, 0.8, (60, 3)), rng.random((60, 4))]
    return Graph(adjacency, labels, nodes, ["a", "b", "c"], name="tiny", features=attributes)


@pytest.fixture
def tiny(monkeypatch):
    """The comparison's cells of the tiny graph are measured on it, never on shared data."""
    monkeypatch.setitem(comparison._GRAPHS, "tiny", _tiny_graph())
    monkeypatch.setattr(comparison, "_TASKS", {})


def test_a_cell_of_the_default_records_its_commit_parameters_and_predictions(tiny):
    cell = comparison.run_cell(("5 per class", "tiny", "AsK-LS default", 0, 0, None, "cpu"))
    assert cell["commit"] == _cells.provenance()["commit"]
    assert cell["library_version"] == _cells.provenance()["library_version"]
    assert cell["params_digest"] == _cells.params_digest(NodeClassifier(random_state=0))
    assert isinstance(cell["dirty"], (bool, type(None)))
    # the digest is that of the predictions that scored the cell
    again = comparison.run_cell(("5 per class", "tiny", "AsK-LS default", 0, 0, None, "cpu"))
    assert again["predictions_digest"] == cell["predictions_digest"]
    other = comparison.run_cell(("5 per class", "tiny", "AsK-LS default", 0, 1, None, "cpu"))
    assert other["predictions_digest"] != cell["predictions_digest"]
    json.dumps(cell)


def test_the_commit_is_read_from_the_checkout_that_holds_the_library():
    import subprocess
    from pathlib import Path

    import digraph_askls

    root = Path(digraph_askls.__file__).resolve().parents[1]
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=False)
    if head.returncode != 0:
        pytest.skip("the library is not in a git checkout")
    assert _cells.provenance()["commit"] == head.stdout.strip()


def test_the_cell_cache_stamps_every_line_it_writes_and_reads_old_lines(tmp_path):
    path = tmp_path / "cells.jsonl"
    old = {"graph": "g", "protocol": "p", "method": "m", "split": [0, 0], "split_key": "a",
           "settings": None, "accuracy": 0.5}
    path.write_text(json.dumps(old) + "\n")          # a line from before provenance
    cache = _cells.CellCache(path)
    assert cache.get(old)["accuracy"] == 0.5 and "commit" not in cache.get(old)
    key = {**old, "split_key": "b"}
    cache.put(key, {"accuracy": 0.75})
    written = [json.loads(line) for line in path.read_text().splitlines()]
    assert "commit" not in written[0]
    assert written[1]["commit"] == _cells.provenance()["commit"]
    assert written[1]["library_version"] == _cells.provenance()["library_version"]


def test_the_digests_tell_configurations_and_predictions_apart():
    assert _cells.params_digest(NodeClassifier()) == _cells.params_digest(NodeClassifier())
    assert _cells.params_digest(NodeClassifier()) != _cells.params_digest(
        NodeClassifier(random_state=1))
    assert _cells.predictions_digest([[1, 0], [0, 1]]) != _cells.predictions_digest([1, 0, 0, 1])
    with pytest.raises(TypeError, match="expected integer classes.*float64"):
        _cells.predictions_digest([0.5, 1.0])
    with pytest.raises(TypeError, match="expected an estimator with get_params.*list"):
        _cells.params_digest([1, 2])


def _stored_cells(tmp_path):
    """Cells of the default on the tiny graph as the table writes them, one of them with
    another accuracy, one with other predictions, one from before the digests."""
    cells = [comparison.run_cell(("5 per class", "tiny", "AsK-LS default", 0, split, None,
                                  "cpu")) for split in range(4)]
    cells[1]["accuracy"] += 0.1
    cells[2]["predictions_digest"] = "0" * 16
    for field in ("predictions_digest", "params_digest", "commit", "dirty",
                  "library_version"):
        del cells[3][field]
    path = tmp_path / "comparison-cells.jsonl"
    path.write_text("".join(json.dumps(cell) + "\n" for cell in cells))
    return path, cells


def test_verify_lists_the_cells_that_differ_and_writes_no_cell(tiny, tmp_path):
    path, cells = _stored_cells(tmp_path)
    before = path.read_text()
    results = _verify.verify_cells("comparison", cells, seed=0, verbose=False)
    assert [result["split"] for result in results] == [0, 1, 2, 3]
    assert [result["differs"] for result in results] == [False, True, True, False]
    assert results[1]["scores_differ"] == ["accuracy"]
    assert results[2]["scores_differ"] == [] and results[2]["predictions_differ"]
    assert results[3]["predictions_differ"] is None      # an old cell: its score alone
    assert path.read_text() == before


def test_verify_takes_rows_splits_and_a_limit(tiny, tmp_path):
    _, cells = _stored_cells(tmp_path)
    pick = _verify.select_cells
    methods = ["AsK-LS default"]
    assert len(pick(cells, methods, rows=["5 per class:tiny"])) == 4
    assert pick(cells, methods, rows=["60/40:tiny"]) == []
    assert len(pick(cells, methods, rows=["tiny"], limit=2)) == 2
    assert [cell["split"] for cell in pick(cells, methods, splits={1, 3})] == [1, 3]
    assert pick(cells, methods, seed=5) == []
    with pytest.raises(ValueError, match="expected methods among .* got \\['GCN'\\]"):
        _verify.verify_cells("comparison", cells, methods=["GCN"], verbose=False)
    with pytest.raises(ValueError, match="expected a table among"):
        _verify.verify_cells("gnn", cells, verbose=False)


def test_the_verify_command_reports_and_exits_one_when_a_cell_differs(tiny, tmp_path, capsys):
    path, _ = _stored_cells(tmp_path)
    report = tmp_path / "report.json"
    status = _cli.main(["verify", "comparison", "--cells", str(path), "--seed", "0",
                        "--splits", "0", "1", "--report", str(report), "--quiet"])
    out = capsys.readouterr().out
    assert status == 1
    assert "2 cells rerun, 1 differ (1 in a score, 0 in their predictions alone)" in out
    assert "| 5 per class:tiny | AsK-LS default | 1 |" in out
    assert len(json.loads(report.read_text())["results"]) == 2
    assert _cli.main(["verify", "comparison", "--cells", str(path), "--seed", "0",
                      "--splits", "0", "--quiet"]) == 0
    assert _cli.main(["verify", "comparison", "--cells", str(path), "--seed", "0",
                      "--rows", "60/40:cora", "--quiet"]) == 2
    assert "no cell of" in capsys.readouterr().err


def test_the_table_runner_digests_what_the_classifier_predicted(tmp_path):
    from experiments._runner import run_graph

    graph = _tiny_graph()
    train, test = np.arange(0, 60, 2), np.arange(1, 60, 2)
    path = tmp_path / "cells.jsonl"
    run_graph("tiny", graph, ["AsK-LS default"], [((0, 0), train, test)], None, "halves",
              make=lambda method: (lambda seed: NodeClassifier(random_state=seed)),
              settings=lambda method: None, cache=_cells.CellCache(path), verbose=False)
    cell = json.loads(path.read_text())
    known = np.full(60, -1)
    known[train] = graph.labels[train]
    model = NodeClassifier(random_state=0).fit(graph.adjacency, known,
                                               features=graph.features)
    assert cell["predictions_digest"] == _cells.predictions_digest(model.predict(test))
    assert cell["params_digest"] == _cells.params_digest(model)
    assert cell["commit"] == _cells.provenance()["commit"]
