"""``digraph-askls predict`` with several labels per node: a node on several rows
(``--multilabel``), or its labels in one cell joined by ``--label-separator``; the
predictions list each node's labels joined by the separator (``;`` by default), and a
malformed file is refused by its line. Without either option a node with two labels is an
error."""

import numpy as np
import pytest

from digraph_askls import NodeClassifier, cli
from digraph_askls.datasets import make_directed_sbm

pd = pytest.importorskip("pandas")
# The per-label stackers' unpenalised logistic regressions meet nearly separable scores
# on these small graphs and fall back to L-BFGS with a warning; the predictions are
# what is tested here.
pytestmark = pytest.mark.filterwarnings("ignore:The inner solver of NewtonCholeskySolver")

N_NODES = 80
LABELS = np.array(["art", "bio", "chem", "math"])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """An 80-node directed SBM of 4 groups; each node's labels are its group's, and for the
    first two groups' nodes also the label of the group two further on (a second label
    the graph tells); half the nodes are labelled. Written as an
    edges file, a labels file of one row per (node, label) and one of a cell per node."""
    folder = tmp_path_factory.mktemp("multilabel")
    adjacency, groups = make_directed_sbm(N_NODES, 4, 6, p_in=0.7, random_state=0)
    coo = adjacency.tocoo()
    names = np.array([f"n{i:02d}" for i in range(N_NODES)])
    rng = np.random.default_rng(0)
    target = {}
    for i in rng.permutation(N_NODES)[:N_NODES // 2]:
        labels = {LABELS[groups[i]]}
        if groups[i] < 2:
            labels.add(LABELS[groups[i] + 2])
        target[names[i]] = sorted(labels)
    edges = pd.DataFrame({"source": names[coo.row], "target": names[coo.col]})
    assert set(edges["source"]) | set(edges["target"]) == set(names)   # no isolated node
    edges.to_csv(folder / "edges.csv", index=False)
    pairs = [(node, label) for node, labels in target.items() for label in labels]
    pd.DataFrame(pairs, columns=["node", "label"]).to_csv(folder / "pairs.csv", index=False)
    cells = [(node, ";".join(labels)) for node, labels in target.items()]
    pd.DataFrame(cells, columns=["node", "label"]).to_csv(folder / "cells.csv", index=False)
    (folder / "cells.tsv").write_text("node\tlabel\n" + "".join(
        f"{node}\t{' | '.join(labels)}\n" for node, labels in target.items()))
    return folder, edges, target


def _run(folder, labels, *options):
    out = folder / f"out-{labels}-{len(options)}.csv"
    code = cli.main(["predict", "--quiet", "--edges", str(folder / "edges.csv"), "--labels",
                     str(folder / labels), "--out", str(out), *options])
    assert code == 0
    return pd.read_csv(out, dtype=str, keep_default_na=False)


def test_both_layouts_predict_what_the_classifier_predicts_from_the_dict(files, capsys):
    folder, edges, target = files
    reference = NodeClassifier(random_state=0, verbose=False).fit(edges, target)
    unlabelled = [node for node in reference.nodes_ if node not in target]
    expected = reference.predict(unlabelled)
    classes = reference.classes_.tolist()
    assert classes == LABELS.tolist() and expected.shape == (40, 4)

    rows = _run(folder, "pairs.csv", "--multilabel", "--all", "--proba", "--decimals",
                "15")                                       # a node on several rows
    assert list(rows.columns) == ["node", "label", "predicted",
                                  *[f"proba_{label}" for label in LABELS]]
    assert rows["node"].tolist() == list(reference.nodes_)
    assert dict(zip(rows["node"], rows["label"])) == {
        node: ";".join(target[node]) if node in target else "" for node in rows["node"]}
    everyone = reference.predict(list(reference.nodes_))
    assert rows["predicted"].tolist() == [";".join(np.asarray(classes)[np.flatnonzero(row)])
                                          for row in everyone]
    proba = rows[[f"proba_{label}" for label in LABELS]].astype(float).to_numpy()
    np.testing.assert_allclose(proba, reference.predict_proba(list(reference.nodes_)))
    pairs = sum(map(len, target.values()))
    assert f"40 labelled with {pairs} labels in all (several per node, 4 labels" in \
        capsys.readouterr().out

    for labels, options in (("cells.csv", ["--label-separator", ";"]),
                            ("cells.tsv", ["--label-separator", "|"])):
        rows = _run(folder, labels, *options)               # the labels in one cell
        assert list(rows.columns) == ["node", "predicted"]
        assert rows["node"].tolist() == unlabelled
        joiner = options[1]
        assert rows["predicted"].tolist() == [
            joiner.join(np.asarray(classes)[np.flatnonzero(row)]) for row in expected]
    assert any(row.sum() > 1 for row in expected)          # several labels are predicted


def test_a_label_with_the_separator_stays_one_class_in_a_single_label_file(tmp_path):
    """A file of one row per node, no separator given, is the single-label file it was."""
    (tmp_path / "edges.csv").write_text("source,target\na,b\nb,c\nc,a\nd,e\ne,f\nf,d\nc,d\n")
    (tmp_path / "labels.csv").write_text("node,label\na,red;round\nb,red;round\nd,blue\n"
                                         "e,blue\n")
    rows = _run(tmp_path, "labels.csv")
    assert list(rows.columns) == ["node", "predicted"]
    assert set(rows["predicted"]) <= {"red;round", "blue"}


EDGES = "source,target\na,b\nb,c\nc,a\nd,e\ne,f\nf,d\nc,d\n"


@pytest.mark.parametrize("text, options, where, expected", [
    ("node,label\na,red\na,blue\na,red\nd,blue\n", ["--multilabel"], ":4:",
     "node 'a' has the label 'red' twice (first at {labels}:2); expected each label of a "
     "node once"),
    ("node,label\na,red;blue;red\nd,blue\n", ["--label-separator", ";"], ":2:",
     "node 'a' has the label 'red' twice"),
    ("node,label\na,red;;blue\nd,blue\n", ["--label-separator", ";"], ":2:",
     "expected labels joined by ';', got an empty label in 'red;;blue'"),
    ("node,label\na,red\nd,blue;\n", ["--label-separator", ";"], ":3:",
     "got an empty label in 'blue;'"),
    ("node,label\na,red\nd,blue\n", ["--label-separator", ";"], ":2:",
     "the label separator ';' (--label-separator) is in no label cell; expected cells "
     "listing a node's labels joined by it (e.g. 'red;blue'), got cells such as ['red', "
     "'blue']; for one label per node, drop --label-separator"),
    ("node,label\na,red\na,blue\nd,blue\n", ["--label-separator", "|"], ":2:",
     "this file lists a node's labels on several rows: drop --label-separator"),
    ("node,label\na,red|blue\nd,blue\n", ["--label-separator", ";"], ":2:",
     "got cells such as ['red|blue', 'blue']"),
    ("node,label\na,red\na,\nd,blue\n", [], ":3:",
     "node 'a' has a blank label and another row"),
    ("node,label\na,red;round\na,blue\nd,blue\n", ["--multilabel"], ":2:",
     "the label 'red;round' holds ';' in a file that repeats its nodes (one row per "
     "label), where ';' joins a node's labels in the predictions; if the cell lists "
     "several labels, pass --label-separator ';'"),
    ("node,label\na,red,blue\nd,blue\n", ["--label-separator", ","], ":2:",
     "expected 1 or 2 fields (node, label) separated by commas, got 3: 'a,red,blue'; the "
     "label separator ',' is also the file's column separator: quote the cells"),
    ("node,label\na,red\na,red\n", [], ":3:", "node 'a' has the label 'red' twice"),
    ("node,label\na,red\nb,red\nb,red\n", [], ":4:", "node 'b' has the label 'red' twice"),
])
def test_a_malformed_multilabel_file_is_refused_by_its_line(tmp_path, capsys, text, options,
                                                           where, expected):
    (tmp_path / "edges.csv").write_text(EDGES)
    labels = tmp_path / "labels.csv"
    labels.write_text(text)
    code = cli.main(["predict", "--quiet", "--edges", str(tmp_path / "edges.csv"), "--labels",
                     str(labels), "--out", str(tmp_path / "out.csv"), *options])
    message = capsys.readouterr().err
    assert code == 2 and f"{labels}{where} " in message, message
    assert expected.format(labels=labels) in message, message
    assert sorted(path.name for path in tmp_path.iterdir()) == ["edges.csv", "labels.csv"]


@pytest.mark.parametrize("text, options, expected", [
    ("node,label\na,red\na,blue\n", ["--multilabel"],
     "1 node is labelled; expected at least 2"),
    ("node,label\na,red;red\n", ["--label-separator", " "],
     "the label separator must be one or more characters other than blanks, got ' '"),
])
def test_a_multilabel_file_that_cannot_be_fitted_says_why(tmp_path, capsys, text, options,
                                                         expected):
    (tmp_path / "edges.csv").write_text(EDGES)
    (tmp_path / "labels.csv").write_text(text)
    code = cli.main(["predict", "--quiet", "--edges", str(tmp_path / "edges.csv"), "--labels",
                     str(tmp_path / "labels.csv"), "--out", str(tmp_path / "out.csv"),
                     *options])
    message = capsys.readouterr().err
    assert code == 2 and expected in message, message
    assert not (tmp_path / "out.csv").exists()


def test_the_python_reader_of_one_label_per_node_points_to_the_dict(tmp_path):
    from digraph_askls.datasets import load_graph_files

    (tmp_path / "edges.csv").write_text(EDGES)
    (tmp_path / "labels.csv").write_text("node,label\na,red\na,blue\nd,blue\n")
    with pytest.raises(ValueError, match=r"labels.csv:3: node 'a' has two labels, 'red' "
                                         r"\(at .*labels.csv:2\) and 'blue'; expected one "
                                         r"label per node; for several labels per node, "
                                         r"give NodeClassifier a dict node -> list of "
                                         r"labels"):
        load_graph_files(tmp_path / "edges.csv", tmp_path / "labels.csv")
