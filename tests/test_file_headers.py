"""A first line is read as the user meant: a known header, data, or an error.

A header is told by its names (``source,target``, ``node,label`` and their other
spellings, any case) or by a word above a number. A first line that is neither, and that
looks like column names (``node,lable``, ``src,tgt``) while its names are found nowhere
else, is refused with a message naming the expected columns, the ones found and the
option that says there is no header. Header-less files and the known headers still read.
"""

import pytest

from digraph_askls import cli
from digraph_askls.datasets import load_graph_files

pytest.importorskip("pandas")

EDGES = "alice,bob\nbob,carol\ncarol,alice\ndave,erin\nerin,frank\nfrank,dave\ncarol,dave\n"
LABELS = "alice,red\nbob,red\ndave,blue\nerin,blue\n"


def _files(folder, edges_header="source,target", labels_header="node,label",
           edges=EDGES, labels=LABELS):
    edges_path, labels_path = folder / "edges.csv", folder / "labels.csv"
    edges_path.write_text((edges_header + "\n" if edges_header else "") + edges)
    labels_path.write_text((labels_header + "\n" if labels_header else "") + labels)
    return edges_path, labels_path


@pytest.mark.parametrize("edges_header, labels_header, shown, expected", [
    ("src,tgt", "node,label", "'src,tgt'", "source, target[, weight]"),
    ("source,target", "node,lable", "'node,lable'", "node, label"),
])
def test_predict_refuses_a_misspelt_header_naming_it(tmp_path, capsys, monkeypatch,
                                                     edges_header, labels_header, shown,
                                                     expected):
    monkeypatch.chdir(tmp_path)
    edges, labels = _files(tmp_path, edges_header, labels_header)
    assert cli.main(["predict", "--edges", str(edges), "--labels", str(labels),
                     "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"the first line {shown} is neither a header" in err
    assert f"expected the columns {expected}" in err
    found = shown.strip("'").replace(",", ", ")
    assert f"got {found}." in err and "--no-header" in err
    assert not (tmp_path / "predictions.csv").exists()


@pytest.mark.parametrize("edges_header, labels_header, match", [
    ("src,tgt", "node,label", r"edges.csv:1: the first line 'src,tgt' .*header=False"),
    ("source,target", "node,lable", r"labels.csv:1: the first line 'node,lable' .*header=False"),
    ("from_node,to_node", "node,label", r"'from_node,to_node'"),
    ("source,target", "Node,Labels", r"got Node, Labels\."),
])
def test_load_graph_files_refuses_them_alike(tmp_path, edges_header, labels_header, match):
    edges, labels = _files(tmp_path, edges_header, labels_header)
    with pytest.raises(ValueError, match=match):
        load_graph_files(edges, labels)


def test_header_true_reads_the_first_line_as_a_header_whatever_its_names(tmp_path):
    edges, labels = _files(tmp_path, "src,tgt", "node,lable")
    graph = load_graph_files(edges, labels, header=True)
    assert "src" not in graph.node_names and "node" not in graph.node_names
    assert graph.n_edges == 7 and graph.class_names == ["blue", "red"]


def test_header_false_reads_it_as_data(tmp_path):
    edges, labels = _files(tmp_path, "src,tgt", None)
    graph = load_graph_files(edges, labels, header=False)
    assert graph.node_names[:2] == ["src", "tgt"] and graph.n_edges == 8


@pytest.mark.parametrize("edges_header, labels_header", [
    ("source,target", "node,label"), ("Source,Target", "Node,Label"), ("src,dst", "id,class"),
    ("from,to", "name,category"), ("u,v", "node_id,y"),
])
def test_known_headers_still_read(tmp_path, edges_header, labels_header):
    graph = load_graph_files(*_files(tmp_path, edges_header, labels_header))
    assert graph.n_nodes == 6 and graph.n_edges == 7
    assert graph.class_names == ["blue", "red"] and int((graph.labels >= 0).sum()) == 4


def test_header_less_files_still_read(tmp_path):
    graph = load_graph_files(*_files(tmp_path, None, None))
    assert graph.node_names == ["alice", "bob", "carol", "dave", "erin", "frank"]
    assert graph.n_edges == 7 and int((graph.labels >= 0).sum()) == 4


def test_a_first_line_of_data_that_looks_like_names_is_data_when_they_are_found_again(
        tmp_path):
    # 'tom' is close to the column name 'to', 'id' is one: found again, they are nodes.
    edges = "tom,id\nid,carol\ncarol,tom\ndave,erin\nerin,dave\ncarol,dave\n"
    labels = "tom,red\nid,red\ndave,blue\n"
    graph = load_graph_files(*_files(tmp_path, None, None, edges, labels))
    assert graph.node_names[:2] == ["tom", "id"] and graph.n_edges == 6
    assert graph.labels[graph.node_names.index("tom")] >= 0


def test_a_first_edge_of_its_own_with_names_unlike_columns_is_data(tmp_path):
    # An edge between two nodes of no other edge is plausible data when its names do not
    # look like column names.
    edges = "xavier,yolanda\n" + EDGES
    graph = load_graph_files(*_files(tmp_path, None, None, edges))
    assert graph.node_names[:2] == ["xavier", "yolanda"] and graph.n_edges == 8


def test_a_word_above_numbers_is_a_header_whatever_its_names(tmp_path):
    edges = "0,1\n1,2\n2,0\n3,4\n4,3\n2,3\n"
    graph = load_graph_files(*_files(tmp_path, "src,tgt", "node,lable", edges,
                                     "0,red\n1,red\n3,blue\n"))
    assert graph.node_names == ["0", "1", "2", "3", "4"] and graph.n_edges == 6
