"""Frictions of a first hour: the messages say what the problem is and what to pass."""

import re
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from digraph_askls import NodeClassifier
from digraph_askls.graph import get_labels
from digraph_askls.kernels import KERNELS, WalkKernel

REPO = Path(__file__).resolve().parents[1]
GRAPH = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
LABELS = {0: "a", 1: "a", 3: "b", 4: "b"}


def test_the_walk_kernel_by_a_name_points_at_its_recipe():
    with pytest.raises(ValueError) as error:
        NodeClassifier(kernel="walk").fit(GRAPH, LABELS)
    message = str(error.value)
    assert str(sorted(KERNELS)) in message
    assert "pass kernel=WalkKernel() (from digraph_askls.kernels import WalkKernel)" in message
    # and what it points at works
    assert NodeClassifier(kernel=WalkKernel()).fit(GRAPH, LABELS).predict([2, 5]).tolist() \
        == ["a", "b"]


def test_an_unknown_kernel_name_lists_the_names_and_the_recipes():
    with pytest.raises(ValueError, match=r"choose from \[.*'ppr'.*\], or pass a recipe of "
                                         r"digraph_askls.kernels: .*WalkKernel\(\)"):
        NodeClassifier(kernel="pagerank").fit(GRAPH, LABELS)


@pytest.mark.parametrize("labels, nodes, said", [
    ({"0": "a", "1": "b"}, [0, 1, 2], "the keys are str and the graph's nodes int"),
    ({0: "a", 1: "b"}, ["0", "1", "2"], "the keys are int and the graph's nodes str"),
    ({"0": "a"}, list(np.arange(3)), "e.g. {int(node): label for node, label in"),
])
def test_labels_keyed_by_another_type_say_the_type_is_the_problem(labels, nodes, said):
    with pytest.raises(ValueError, match="not in the graph") as error:
        get_labels(labels, nodes)
    assert said in str(error.value)


def test_labels_of_unknown_nodes_of_the_same_type_say_only_that():
    with pytest.raises(ValueError) as error:
        get_labels({"x": "a"}, ["0", "1"])
    assert str(error.value) == "labels name 1 node(s) that are not in the graph, e.g. ['x']"


def test_fit_with_string_keys_for_integer_nodes_names_the_types():
    with pytest.raises(ValueError, match="the keys are str and the graph's nodes int"):
        NodeClassifier().fit(GRAPH, {str(node): label for node, label in LABELS.items()})


def test_the_extras_are_spelled_as_they_install():
    # No registry has "digraph-askls": an extra installs from the repository root as
    # pip install ".[name]". The research harness (experiments/) is checked apart.
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")),
             *[path for path in sorted((REPO / "digraph_askls").rglob("*.py"))
               if "experiments" not in path.parts]]
    wrong = [str(path.relative_to(REPO)) for path in pages
             if "_build" not in path.parts and 'digraph-askls[' in path.read_text()]
    assert wrong == []


def test_the_committed_notebooks_show_no_path_of_the_machine_that_ran_them():
    nbformat = pytest.importorskip("nbformat")
    machine_path = re.compile(r"(?<![\w.])/(?:work|home|root|Users|tmp|mnt|opt|srv)/"
                              r"|\b[A-Za-z]:\\\\")
    found = []
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        for number, cell in enumerate(nbformat.read(path, as_version=4).cells):
            for output in cell.get("outputs", []):
                texts = [output.get("text", "")] + [
                    value for kind, value in output.get("data", {}).items()
                    if kind.startswith("text/")]
                found += [f"{path.name} cell {number}: {match.group(0)}"
                          for text in texts
                          for match in machine_path.finditer("".join(text))]
    assert found == []
