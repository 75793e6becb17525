"""``digraph-askls predict`` refuses what would give a wrong answer with exit status 0, and
reads files as spreadsheets write them.

Labels that mostly name no node of the graph (written in another case, with other
blanks, or numbers written otherwise) and continuous label values stop the command with
status 2 before anything is fitted; a node on two rows with two labels needs
``--multilabel``; a byte-order mark is read; another encoding is named; a missing file
names its option; the output's format is checked before the graph is read; progress
bars only where someone watches; counts in the singular where there is one.
"""

import warnings
from pathlib import Path

import numpy as np
import pytest

from digraph_askls import NodeClassifier, _notes, cli
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.models._targets import check_multilabel

pd = pytest.importorskip("pandas")

EDGES = """source,target
alice,bob
bob,carol
carol,alice
dave,erin
erin,frank
frank,dave
carol,dave
gina,alice
"""

LABELS = "node,label\nalice,red\nbob,red\ndave,blue\nerin,blue\n"


def _predict(folder, edges, labels, *options, out="out.csv"):
    """Run ``predict`` on the texts (or bytes) ``edges`` and ``labels`` written in
    ``folder``; the exit status and the path of the output."""
    for name, content in (("edges.csv", edges), ("labels.csv", labels)):
        if content is not None:
            path = Path(folder) / name
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code = cli.main(["predict", "--quiet", "--edges", str(Path(folder) / "edges.csv"),
                     "--labels", str(Path(folder) / "labels.csv"), "--out",
                     str(Path(folder) / out), *map(str, options)])
    return code, Path(folder) / out


def _refused(tmp_path, capsys, edges, labels, *options):
    """The error message of a run that must stop with status 2 and write nothing."""
    (tmp_path / "out.csv").unlink(missing_ok=True)
    code, out = _predict(tmp_path, edges, labels, *options)
    err = capsys.readouterr().err
    assert code == 2, err
    assert not out.exists()
    assert "digraph-askls predict: error: " in err
    return err


# -- labels that name no node of the graph ------------------------------------------------

@pytest.mark.parametrize("edges, labels, examples, near", [
    (EDGES, LABELS.replace("alice", "Alice").replace("bob", "Bob").replace("dave", "Dave")
     .replace("erin", "Erin"), "['Alice', 'Bob', 'Dave', 'Erin']",
     "differing in case: 'Alice' is 'alice' there, 'Bob' is 'bob' there"),
    (EDGES.replace("alice", "Alice Smith").replace("dave", "Dave Jones"),
     LABELS.replace("alice", "Alice  Smith").replace("dave", "Dave  Jones")
     .replace("bob", "b ob").replace("erin", "e rin"), "['Alice  Smith', 'b ob'",
     "differing in blanks: 'Alice  Smith' is 'Alice Smith' there, 'b ob' is 'bob' there"),
    ("1,2\n2,3\n3,1\n4,5\n5,6\n6,4\n3,4\n",
     "node,label\n1.0,red\n2.0,red\n004,blue\n5,blue\n",
     "['1.0', '2.0', '004']", "differing in how the number is written: '1.0' is '1' there, "
                              "'2.0' is '2' there, '004' is '4' there"),
])
def test_labels_that_name_no_node_of_the_graph_stop_with_near_matches(
        tmp_path, capsys, edges, labels, examples, near):
    err = _refused(tmp_path, capsys, edges, labels)
    assert "labelled nodes" in err and f"of the edges file {tmp_path / 'edges.csv'}" in err
    assert f"e.g. {examples}" in err, err
    assert near in err, err
    assert "write each node's name alike in both files" in err


def test_no_near_match_shows_what_the_edges_file_names(tmp_path, capsys):
    err = _refused(tmp_path, capsys, EDGES, "node,label\nx1,red\nx2,red\nx3,blue\n")
    assert "none of the 3 labelled nodes is a node of the edges file" in err
    assert "the edges file names nodes such as ['alice', 'bob', 'carol', 'dave', 'erin']" \
        in err


def test_fewer_than_half_of_the_labelled_nodes_in_the_graph_stop(tmp_path, capsys):
    labels = LABELS + "Carol,red\nFrank,blue\nGina,red\n"       # 3 of 7 outside
    code, out = _predict(tmp_path, EDGES, labels)
    assert code == 0 and out.exists()
    assert "note: 3 nodes have no edge, e.g. ['Carol', 'Frank', 'Gina']" in \
        capsys.readouterr().err
    labels = LABELS.replace("alice", "Alice") + "Carol,red\nFrank,blue\nGina,red\n"
    err = _refused(tmp_path, capsys, EDGES, labels)                # 4 of 7 outside
    assert ("4 of the 7 labelled nodes are not nodes of the edges file" in err
            and "expected at least half of them" in err), err
    assert "'Alice' is 'alice' there" in err and "'Carol' is 'carol' there" in err


def test_labelled_nodes_with_attributes_but_no_edge_are_in_the_graph(tmp_path, capsys):
    labels = LABELS + "ivan,red\njudy,blue\nkim,red\nlee,blue\nmo,red\n"   # 5 of 9 isolated
    featured = ["alice", "dave", "ivan", "judy", "kim", "lee", "mo"]
    (tmp_path / "x.csv").write_text("node,f\n" + "".join(
        f"{node},{value}\n" for node, value in zip(featured, [1, -1, 1, -1, 1, -1, 1])))
    code, out = _predict(tmp_path, EDGES, labels, "--features", tmp_path / "x.csv")
    assert code == 0 and out.exists(), capsys.readouterr().err
    err = _refused(tmp_path, capsys, EDGES, labels)                 # without the features
    assert "5 of the 9 labelled nodes are not nodes of the edges file" in err


# -- continuous label values --------------------------------------------------------------

@pytest.mark.parametrize("options", [[], ["--multilabel"]])
def test_continuous_labels_are_refused_with_the_way_to_pass_classes(tmp_path, capsys,
                                                                   options):
    labels = "node,label\nalice,0.5\nbob,0.7\ndave,1.2\nerin,3.3\n"
    err = _refused(tmp_path, capsys, EDGES, labels, *options)
    assert "the labels are numbers with fractions, continuous values rather than classes" \
        in err and "got 0.5 for node 'alice'" in err, err
    assert "Give each node a class: a name ('low', 'high') or a whole number" in err


def test_whole_numbers_written_with_a_point_are_classes(tmp_path, capsys):
    code, out = _predict(tmp_path, EDGES, "node,label\nalice,1.0\nbob,1.0\ndave,2.0\n"
                                          "erin,2.0\n")
    assert code == 0
    assert set(pd.read_csv(out, dtype=str)["predicted"]) <= {"1.0", "2.0"}


# -- several labels per node only when asked ----------------------------------------------

def test_a_node_on_two_rows_with_two_labels_needs_multilabel(tmp_path, capsys):
    labels = "node,label\nalice,red\nbob,red\nalice,blue\ndave,blue\nerin,blue\n"
    err = _refused(tmp_path, capsys, EDGES, labels)
    assert (f"{tmp_path / 'labels.csv'}:4: node 'alice' has two labels, 'red' (at "
            f"{tmp_path / 'labels.csv'}:2) and 'blue'; expected one label per node; if "
            f"nodes have several labels, pass --multilabel") in err, err
    assert "--label-separator" in err and "remove the wrong row" in err
    code, out = _predict(tmp_path, EDGES, labels, "--multilabel", "--all")
    assert code == 0
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert dict(zip(written["node"], written["label"]))["alice"] == "blue;red"


def test_a_fully_labelled_indicator_warns_how_unlabelled_rows_are_written():
    with pytest.warns(UserWarning, match=r"every row of the multi-label target is "
                                         r"labelled .* Write each unlabelled row as a row "
                                         r"of -1"):
        _, labelled = check_multilabel([[1, 0], [0, 0], [0, 1]], allow_unlabelled=True)
    assert labelled.all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_multilabel([[1, 0], [-1, -1], [0, 1]], allow_unlabelled=True)
        check_multilabel([[1, 0], [0, 0]])         # samples, not nodes: nothing to predict


def test_node_classifier_warns_on_an_indicator_without_unlabelled_rows():
    adjacency, groups = make_directed_sbm(40, 2, 4, p_in=0.8, random_state=0)
    Y = np.eye(2, dtype=int)[groups]
    with pytest.warns(UserWarning, match="a 0 reads 'has not the label', not 'unknown'"):
        NodeClassifier(kernel="in_degree", gamma=0.5, merge="average",
                       verbose=False).fit(adjacency, Y)


# -- files as spreadsheets write them -----------------------------------------------------

def test_a_byte_order_mark_before_the_header_is_read(tmp_path, capsys):
    code, out = _predict(tmp_path, EDGES, LABELS, out="plain.csv")
    assert code == 0
    plain = pd.read_csv(out)
    bom = b"\xef\xbb\xbf"
    code, out = _predict(tmp_path, bom + EDGES.encode(), bom + LABELS.encode(),
                         out="bom.csv")
    assert code == 0, capsys.readouterr().err
    pd.testing.assert_frame_equal(pd.read_csv(out), plain)
    code, out = _predict(tmp_path, bom + EDGES.split("\n", 1)[1].encode(),  # no header
                         bom + LABELS.split("\n", 1)[1].encode(), out="bare.csv")
    assert code == 0
    pd.testing.assert_frame_equal(pd.read_csv(out), plain)


@pytest.mark.parametrize("content, where, expected", [
    ("node,label\nalice,red\nJosé,blue\n".encode("cp1252"), ":3:",
     ["byte 0xe9 is not UTF-8; read as Windows-1252", "'José,blue'",
      "iconv -f WINDOWS-1252 -t UTF-8 labels.csv > utf8-labels.csv"]),
    (LABELS.encode("utf-16"), ":1:", ["the file starts with the byte-order mark of UTF-16",
                                      "iconv -f UTF-16 -t UTF-8"]),
    (b"PK\x03\x04\x14\x00\x06\x00\x08\x00\xff\xfe", ":1:",
     ["the file is a zip archive, such as an Excel workbook (.xlsx)"]),
])
def test_another_encoding_is_named_with_the_one_to_use(tmp_path, capsys, content, where,
                                                       expected):
    err = _refused(tmp_path, capsys, EDGES, content)
    assert f"{tmp_path / 'labels.csv'}{where} expected text in UTF-8 (a byte-order mark " \
           "before it is fine), but" in err, err
    assert "Save the file as UTF-8 (in Excel: 'CSV UTF-8 (Comma delimited)')" in err
    for words in expected:
        assert words in err, err


# -- options, messages and output ---------------------------------------------------------

@pytest.mark.parametrize("option", ["--edges", "--labels", "--features"])
def test_a_missing_file_names_its_option(tmp_path, capsys, option):
    (tmp_path / "edges.csv").write_text(EDGES)
    (tmp_path / "labels.csv").write_text(LABELS)
    files = {"--edges": tmp_path / "edges.csv", "--labels": tmp_path / "labels.csv",
             "--features": None}
    files[option] = tmp_path / "missing.csv"
    args = ["predict", "--quiet", "--out", str(tmp_path / "out.csv")]
    for name, path in files.items():
        if path is not None:
            args += [name, str(path)]
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert f"error: {option} {tmp_path / 'missing.csv'}: no such file (looked in " \
           f"{tmp_path})" in err, err


def test_the_output_format_is_checked_before_the_graph_is_read(tmp_path, capsys):
    # the edges file is malformed: only the output's error may be reported
    code, out = _predict(tmp_path, "a,b,c,d\n", LABELS, out="predictions.xlsx")
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert ("--out must end in .csv, .tsv or .parquet, got 'predictions.xlsx' "
            "(spreadsheets open .csv files)") in err, err
    assert "edges.csv" not in err


def test_probabilities_have_the_digits_asked_for(tmp_path, capsys):
    code, out = _predict(tmp_path, EDGES, LABELS, "--proba")
    assert code == 0
    proba = pd.read_csv(out)[["proba_blue", "proba_red"]].to_numpy()
    np.testing.assert_array_equal(proba, proba.round(4))       # the default: 4 digits
    assert (proba != proba.round(3)).any()                     # and not fewer
    assert all(len(line) < 40 for line in out.read_text().splitlines())
    code, out = _predict(tmp_path, EDGES, LABELS, "--proba", "--decimals", "2")
    proba2 = pd.read_csv(out)[["proba_blue", "proba_red"]].to_numpy()
    np.testing.assert_array_equal(proba2, proba.round(2))
    with pytest.raises(SystemExit) as stop:
        _predict(tmp_path, EDGES, LABELS, "--proba", "--decimals", "-1")
    assert stop.value.code == 2
    assert "argument --decimals: expected a whole number from 0 to 15, got '-1'" in \
        capsys.readouterr().err


def test_counts_of_one_are_singular(tmp_path, capsys):
    labels = ("node,label\nalice,red\nbob,red\ncarol,red\ndave,blue\nerin,blue\n"
              "frank,blue\nivan,red\n")                        # gina alone to predict
    code, out = _predict(tmp_path, EDGES, labels)
    captured = capsys.readouterr()
    assert code == 0
    assert f"wrote {out}: 1 row (node, predicted)" in captured.out, captured.out
    assert "1 to predict" in captured.out
    assert "note: 1 node has no edge, e.g. ['ivan']" in captured.err


def test_no_progress_bar_where_no_one_watches(tmp_path, capsys, monkeypatch):
    """Without --quiet: stderr that is not a terminal gets no bar; a terminal gets one
    only once the work has run for the delay."""
    (tmp_path / "edges.csv").write_text(EDGES)
    (tmp_path / "labels.csv").write_text(LABELS)
    args = ["predict", "--edges", str(tmp_path / "edges.csv"), "--labels",
            str(tmp_path / "labels.csv"), "--out", str(tmp_path / "out.csv")]
    assert cli.main(args) == 0
    assert "\r" not in capsys.readouterr().err                   # capsys: not a terminal
    monkeypatch.setattr(_notes, "_is_terminal", lambda stream: True)
    monkeypatch.setattr(_notes, "PROGRESS_DELAY", 60.0)
    assert cli.main(args) == 0
    assert "\r" not in capsys.readouterr().err                   # shorter than the delay
    monkeypatch.setattr(_notes, "PROGRESS_DELAY", 0.0)
    assert cli.main(args) == 0
    assert "AsK-LS" in capsys.readouterr().err                   # watched: drawn
