"""``digraph-askls predict``: one's own files in, a predictions file out, errors by line."""

import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from digraph_askls import cli
from digraph_askls.datasets import load_graph_files, make_directed_sbm

pd = pytest.importorskip("pandas")
REPO = Path(__file__).resolve().parents[1]

EDGES = """source,target
alice,bob
bob,carol
carol,alice
dave,erin
erin,frank
frank,dave
carol,dave
gina,alice
gina,bob
hank,erin
"""

LABELS = """node,label
alice,red
bob,red
carol,
dave,blue
erin,blue
"""


def _write(folder, name, text):
    path = Path(folder) / name
    path.write_text(text)
    return path


def _leftovers(folder):
    return sorted(path.name for path in Path(folder).iterdir() if path.name.startswith("."))


def test_a_new_user_s_hand_written_files_give_a_predictions_file(tmp_path):
    """The README's example, run as a user runs it: the command in a fresh process."""
    _write(tmp_path, "edges.csv", EDGES)
    _write(tmp_path, "labels.csv", LABELS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-m", "digraph_askls.cli", "predict", "--edges",
                           "edges.csv", "--labels", "labels.csv"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "8 nodes, 10 edges, 4 labelled in 2 classes" in done.stdout
    written = pd.read_csv(tmp_path / "predictions.csv")
    assert list(written.columns) == ["node", "predicted"]
    # carol's label is blank; frank, gina and hank have no row.
    assert dict(zip(written["node"], written["predicted"])) == {
        "carol": "red", "frank": "blue", "gina": "red", "hank": "blue"}
    assert _leftovers(tmp_path) == []


def _sbm_files(folder, n=400, seed=0):
    adjacency, classes = make_directed_sbm(n, 3, 6, p_in=0.8, random_state=seed)
    coo = adjacency.tocoo()
    rng = np.random.default_rng(seed)
    names = np.array([f"{i:04d}" for i in range(n)])           # text that looks like numbers
    weights = rng.uniform(0.5, 2.0, coo.nnz).round(3)
    edges = pd.DataFrame({"source": names[coo.row], "target": names[coo.col],
                          "weight": weights})
    labelled = rng.random(n) < 0.5
    labels = pd.DataFrame({"node": names, "label": np.where(labelled, np.array(
        ["x", "y", "z"])[classes], "")})
    features = pd.DataFrame(rng.poisson(1.0, (n, 4)) + 3 * np.eye(4)[classes],
                            columns=["w0", "w1", "w2", "w3"]).assign(node=names)
    edges.to_csv(folder / "edges.csv", index=False)
    labels.to_csv(folder / "labels.csv", index=False)
    features[["node", "w0", "w1", "w2", "w3"]].to_csv(folder / "features.csv", index=False)
    return edges, labels, features, labelled, names


def _predict(folder, *args):
    out = folder / "out.csv"
    code = cli.main(["predict", "--quiet", "--out", str(out), *map(str, args)])
    assert code == 0
    return pd.read_csv(out, dtype={"node": str, "predicted": str})


def test_every_file_format_gives_the_same_predictions(tmp_path):
    edges, labels, _, labelled, names = _sbm_files(tmp_path)
    reference = _predict(tmp_path, "--edges", tmp_path / "edges.csv", "--labels",
                         tmp_path / "labels.csv")
    assert sorted(reference["node"]) == names[~labelled].tolist()
    edges.to_csv(tmp_path / "edges.tsv", sep="\t", index=False, header=False)
    with gzip.open(tmp_path / "edges.csv.gz", "wt") as file:
        edges.to_csv(file, index=False)
    (tmp_path / "edges.txt").write_text("\n\n".join(" ".join(map(str, row)) for row in
                                                   edges.itertuples(index=False)) + "\n")
    edges.rename(columns={"source": "from", "target": "to"})[["to", "from", "weight"]] \
        .to_parquet(tmp_path / "edges.parquet")
    labels.to_parquet(tmp_path / "labels.parquet")
    for edge_file, label_file in (("edges.tsv", "labels.csv"), ("edges.csv.gz", "labels.csv"),
                                  ("edges.txt", "labels.csv"),
                                  ("edges.parquet", "labels.parquet")):
        other = _predict(tmp_path, "--edges", tmp_path / edge_file, "--labels",
                         tmp_path / label_file)
        pd.testing.assert_frame_equal(other, reference, obj=edge_file)


def test_weights_undirected_edges_and_names_that_look_like_numbers(tmp_path):
    edges, _, _, _, names = _sbm_files(tmp_path)
    graph = load_graph_files(tmp_path / "edges.csv", tmp_path / "labels.csv")
    ends = np.column_stack([edges["source"], edges["target"]]).ravel()
    assert graph.node_names[:400] == list(dict.fromkeys(ends))     # first appearance
    assert all(len(name) == 4 for name in graph.node_names)      # '0007' stays '0007'
    i, j = (graph.node_names.index(edges["source"][0]),
            graph.node_names.index(edges["target"][0]))
    assert graph.adjacency[i, j] == edges["weight"][0]
    undirected = load_graph_files(tmp_path / "edges.csv", undirected=True)
    assert (undirected.adjacency != undirected.adjacency.T).nnz == 0
    assert undirected.adjacency[j, i] == max(graph.adjacency[i, j], graph.adjacency[j, i])


def test_probabilities_every_node_and_explanations(tmp_path, capsys):
    _sbm_files(tmp_path)
    out = _predict(tmp_path, "--edges", tmp_path / "edges.csv", "--labels",
                   tmp_path / "labels.csv", "--features", tmp_path / "features.csv",
                   "--proba", "--all", "--explain", "2")
    assert list(out.columns) == ["node", "label", "predicted", "proba_x", "proba_y",
                                 "proba_z"]
    assert len(out) == 400
    proba = out[["proba_x", "proba_y", "proba_z"]].to_numpy()
    np.testing.assert_array_equal(proba, proba.round(4))       # --decimals 4 by default
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1.5e-4)
    assert (np.array(["x", "y", "z"])[proba.argmax(axis=1)] == out["predicted"]).all()
    labelled = out["label"].notna()
    assert (out["label"][labelled] == out["predicted"][labelled]).mean() > 0.9
    text = capsys.readouterr().out
    assert "explain: the 2 features of largest weight in each view" in text
    for label in ("x", "y", "z"):
        assert f"class '{label}'" in text
    # Each class is driven by its own word (the features file's header names it).
    lines = text.splitlines()
    for label, word in (("x", "w0"), ("y", "w1"), ("z", "w2")):
        block = lines[lines.index(f"class '{label}'") + 1]
        assert block.startswith(f"  source view: {word}"), block


def test_features_from_npz_and_nodes_only_in_the_labels_file(tmp_path, capsys):
    _write(tmp_path, "edges.csv", EDGES)
    _write(tmp_path, "labels.csv", LABELS + "ivan,blue\n")
    np.savez(tmp_path / "features.npz", nodes=np.array(["alice", "dave", "ivan"]),
             features=np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 2.0]]),
             feature_names=np.array(["red words", "blue words"]))
    graph = load_graph_files(tmp_path / "edges.csv", tmp_path / "labels.csv",
                             tmp_path / "features.npz")
    assert graph.node_names[-1] == "ivan" and graph.feature_names == ["red words",
                                                                      "blue words"]
    assert graph.features[graph.node_names.index("bob")].tolist() == [0.0, 0.0]
    _predict(tmp_path, "--edges", tmp_path / "edges.csv", "--labels",
             tmp_path / "labels.csv", "--features", tmp_path / "features.npz")
    assert "note: 1 node has no edge, e.g. ['ivan']" in capsys.readouterr().err


@pytest.mark.parametrize("name, text, where, expected", [
    ("edges.csv", "source,target\na,b\nb,c,d\n", ":3:", "expected 2 fields"),
    ("edges.csv", "source,target\na,b\nb\n", ":3:", "expected 2 fields"),
    ("edges.csv", "source,target\na,b\n\nb,\n", ":4:", "expected a target node, got a blank"),
    ("edges.csv", "a,b,1\nb,c,heavy\n", ":2:", "expected a weight (a number >= 0), got 'heavy'"),
    ("edges.csv", "a,b,1\nb,c,-2\n", ":2:", "expected a weight (a number >= 0), got -2"),
    ("edges.csv", "a,b,c,d\n", ":1:", "expected 2 or 3 fields"),
    ("edges.csv", "", "", "the file holds no rows"),
    ("labels.csv", "node,label\na,red\nb,blue\na,red\n", ":4:",
     "node 'a' has the label 'red' twice"),
    ("labels.csv", "node,label\na,red\nb,blue,x\n", ":3:", "expected 1 or 2 fields"),
    ("features.csv", "node,f\na,1\nb,one\n", ":3:", "expected a number, got 'one'"),
    ("features.npz", None, "", "expected the arrays 'nodes' and 'features'"),
])
def test_a_malformed_row_names_the_file_the_line_and_what_was_expected(
        tmp_path, capsys, name, text, where, expected):
    files = {"edges.csv": "source,target\na,b\nb,c\nc,a\n",
             "labels.csv": "node,label\na,red\nb,blue\n", "features.csv": None}
    if name == "features.npz":
        np.savez(tmp_path / name, rows=np.zeros((2, 2)))
    else:
        files[name] = text
    for file, content in files.items():
        if content is not None:
            _write(tmp_path, file, content)
    args = ["predict", "--quiet", "--edges", tmp_path / "edges.csv", "--labels",
            tmp_path / "labels.csv", "--out", tmp_path / "predictions.csv"]
    if name.startswith("features"):
        args += ["--features", tmp_path / name]
    assert cli.main([str(arg) for arg in args]) == 2
    message = capsys.readouterr().err
    assert f"{tmp_path / name}{where}" in message and expected in message, message
    assert not (tmp_path / "predictions.csv").exists()
    assert _leftovers(tmp_path) == []


def test_an_interrupted_write_leaves_the_previous_file_whole(tmp_path, monkeypatch):
    _write(tmp_path, "edges.csv", EDGES)
    _write(tmp_path, "labels.csv", LABELS)
    previous = _write(tmp_path, "predictions.csv", "node,predicted\nold,run\n")

    def interrupted(self, path, **kwargs):
        Path(path).write_text("node,predicted\ncar")       # half a file, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cli.main(["predict", "--quiet", "--edges", str(tmp_path / "edges.csv"), "--labels",
                  str(tmp_path / "labels.csv"), "--out", str(previous)])
    assert previous.read_text() == "node,predicted\nold,run\n"
    assert _leftovers(tmp_path) == []


def test_a_word_among_numbers_past_the_first_block_is_found_by_its_line(tmp_path):
    # pyarrow infers the weights' type from the first block of the file and refuses a
    # word further down; the file is then read as text and the word named by its line.
    rows = "".join(f"n{i},n{i + 1},1.5\n" for i in range(120_000))
    path = _write(tmp_path, "edges.csv", "source,target,weight\n" + rows + "x,y,heavy\n")
    with pytest.raises(ValueError, match=rf"{path}:120002: expected a weight .* 'heavy'"):
        load_graph_files(path)


@pytest.mark.parametrize("text, nodes", [
    ("10,2\n2,0\n", ["10", "2", "0"]),                  # plain numbers: hashed as numbers
    ("10,02\n2,0\n", ["10", "02", "2", "0"]),           # a leading zero: names as text
    ("10,-2\n+2,0\n", ["10", "-2", "+2", "0"]),
    ("1,a\n", ["1", "a"]),
])
def test_names_are_the_text_written_whatever_they_look_like(tmp_path, text, nodes):
    graph = load_graph_files(_write(tmp_path, "edges.csv", text))
    assert graph.node_names == nodes
    assert graph.adjacency[0, 1] == 1


@pytest.mark.parametrize("name, content, expected", [
    ("edges.csv.gz", gzip.compress("source,target\n".encode() + "".join(
        f"n{i * 7919 % 10007},n{i * 104729 % 10007}\n" for i in range(5000)).encode())[:2000],
     "cut short, damaged or of another format"),                     # a truncated gzip
    ("edges.parquet", b"source,target\na,b\n", "Parquet magic bytes not found"),
])
def test_a_file_cut_short_or_of_another_format_is_named(tmp_path, capsys, name, content,
                                                        expected):
    (tmp_path / name).write_bytes(content)
    _write(tmp_path, "labels.csv", "node,label\na,red\nb,blue\n")
    code = cli.main(["predict", "--quiet", "--edges", str(tmp_path / name), "--labels",
                     str(tmp_path / "labels.csv"), "--out", str(tmp_path / "out.csv")])
    message = capsys.readouterr().err
    assert code == 2 and f"{tmp_path / name}: cannot be read as a table of edges" in message
    assert expected in message, message
    assert not (tmp_path / "out.csv").exists() and _leftovers(tmp_path) == []


def _labels_error(tmp_path, capsys, labels_name, labels_text):
    _write(tmp_path, "edges.csv", EDGES)
    _write(tmp_path, labels_name, labels_text)
    code = cli.main(["predict", "--quiet", "--edges", str(tmp_path / "edges.csv"),
                     "--labels", str(tmp_path / labels_name), "--out",
                     str(tmp_path / "out.csv")])
    assert code == 2 and not (tmp_path / "out.csv").exists()
    return capsys.readouterr().err


@pytest.mark.parametrize("edges_name, labels_name, edges_sep, labels_sep", [
    ("edges.csv", "labels.csv", "\t", "\t"),       # tabs in files named .csv
    ("edges.tsv", "labels.tsv", ",", ","),         # commas in files named .tsv
    ("edges.csv", "labels.tsv", ",", ","),
])
def test_a_separator_other_than_the_name_says_is_read_as_written(
        tmp_path, edges_name, labels_name, edges_sep, labels_sep):
    _write(tmp_path, edges_name, EDGES.replace(",", edges_sep))
    _write(tmp_path, labels_name, LABELS.replace(",", labels_sep))
    _write(tmp_path, "features.csv", "node\tf\nalice\t1\ndave\t-1\n")
    graph = load_graph_files(tmp_path / edges_name, tmp_path / labels_name,
                             tmp_path / "features.csv")
    expected = load_graph_files(_write(tmp_path, "e.csv", EDGES),
                                _write(tmp_path, "l.csv", LABELS))
    assert graph.node_names == expected.node_names
    assert graph.class_names == ["blue", "red"]
    np.testing.assert_array_equal(graph.labels, expected.labels)
    assert (graph.adjacency != expected.adjacency).nnz == 0
    assert graph.feature_names == ["f"] and graph.features[:, 0].tolist()[:2] == [1.0, 0.0]


def test_a_line_of_another_separator_is_refused_with_its_line(tmp_path, capsys):
    err = _labels_error(tmp_path, capsys, "labels.csv", "node,label\nalice,red\ndave\tblue\n")
    assert (f"{tmp_path / 'labels.csv'}:3: expected node, label separated by commas, as the "
            "file's first line is, got a line separated by tabs: 'dave\\tblue'") in err
    _write(tmp_path, "labels.csv", LABELS)
    _write(tmp_path, "edges.csv", "source,target\nalice,bob\nbob\tcarol\n")
    with pytest.raises(ValueError, match=r"edges.csv:3: expected 2 fields \(source, target"
                                         r"\[, weight\]\) separated by commas, got 1: 'bob\\tcarol'; "
                                         r"the line is separated by tabs"):
        load_graph_files(tmp_path / "edges.csv", tmp_path / "labels.csv")
    _write(tmp_path, "edges.csv", "alice bob\nbob carol\n")
    with pytest.raises(ValueError, match=r"edges.csv:1: expected 2 or 3 fields .* separated "
                                         r"by commas, got 1: \['alice bob'\]; the line is "
                                         r"separated by blanks"):
        load_graph_files(tmp_path / "edges.csv", tmp_path / "labels.csv")


@pytest.mark.parametrize("text, expected", [
    ("alice\nbob\ndave\n", "expected two columns (node, label) separated by commas, but "
                           "every row holds one field: there is no label column (first row "
                           "['alice'])"),
    ("node\nalice\nbob\n", "there is no label column (first row ['alice'])"),
    ("node label\nalice red\n", "there is no label column (first row ['node label']; the "
                                "line is separated by blanks)"),
    ("node,label\n", "the file holds a header line only (node, label) and no labels"),
    ("node,label\nalice,\nbob,\n", "no row has a label (every label is blank)"),
    ("node,label\nalice,red\nbob,red\n", "the labelled nodes hold 1 class ['red']; expected "
                                         "at least 2 classes"),
])
def test_a_labels_file_without_labels_says_why(tmp_path, capsys, text, expected):
    err = _labels_error(tmp_path, capsys, "labels.csv", text)
    assert f"{tmp_path / 'labels.csv'}: " in err and expected in err, err
    assert "at least 2 classes must have labelled nodes" not in err


def test_a_parquet_labels_file_without_a_label_column(tmp_path):
    pytest.importorskip("pyarrow")
    _write(tmp_path, "edges.csv", EDGES)
    pd.DataFrame({"node": ["alice", "bob"]}).to_parquet(tmp_path / "labels.parquet")
    with pytest.raises(ValueError, match=r"expected two columns \(node, label\), got 1: "
                                         r"\['node'\]; there is no label column"):
        load_graph_files(tmp_path / "edges.csv", tmp_path / "labels.parquet")
