"""Dataset registry, readers on the real shared files, verified downloads, data home."""

import dataclasses
import gzip
import io
import logging
import re
import sys
import tarfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

from digraph_askls.datasets import (
    get_data_home,
    list_datasets,
    load_dataset,
    load_linqs,
    load_npz,
    load_ogb_raw,
    load_pubmed_linqs,
)
from digraph_askls.datasets import _base
from digraph_askls.datasets._base import file_checksum
from digraph_askls.datasets._registry import DATASETS


def _class_counts(graph):
    return {graph.class_names[code]: count for code, count in Counter(graph.labels).items()}


def _reciprocal_pairs(adjacency):
    pattern = (adjacency != 0).astype(np.int8)
    both = pattern.multiply(pattern.T)
    return int((both.sum() - both.diagonal().sum()) // 2)


CORA_COUNTS = {"Neural_Networks": 818, "Probabilistic_Methods": 426, "Genetic_Algorithms": 418,
               "Theory": 351, "Case_Based": 298, "Reinforcement_Learning": 217,
               "Rule_Learning": 180}
CITESEER_COUNTS = {"DB": 701, "IR": 668, "Agents": 596, "ML": 590, "HCI": 508, "AI": 249}


@pytest.mark.parametrize(
    "name, n_nodes, n_edges, self_loops, reciprocal, counts",
    [
        ("cora", 2708, 5429, 0, 151, CORA_COUNTS),
        ("citeseer", 3312, 4715, 124, 55, CITESEER_COUNTS),
        ("pubmed", 19717, 44338, 3, 11, {1: 4103, 2: 7875, 3: 7739}),
        ("cora-npz", 2708, 5429, 0, 151, CORA_COUNTS),
        ("citeseer-npz", 3312, 4715, 124, 55, CITESEER_COUNTS),
        ("cora-askls", 2708, 5429, 0, 151,
         dict(zip(range(1, 8), [426, 180, 351, 298, 217, 418, 818]))),
        ("citeseer-askls", 3312, 4587, 0, None,
         dict(zip(range(1, 7), [596, 668, 590, 508, 249, 701]))),
    ],
)
def test_shared_files_give_the_manifest_counts(
    shared, name, n_nodes, n_edges, self_loops, reciprocal, counts
):
    graph = shared(name)
    assert graph.name == name
    assert (graph.n_nodes, graph.n_edges, graph.n_classes) == (n_nodes, n_edges, len(counts))
    assert isinstance(graph.adjacency, sparse.csr_array)
    assert graph.adjacency.has_canonical_format and graph.adjacency.dtype == np.float64
    assert int(graph.adjacency.diagonal().sum()) == self_loops
    if reciprocal is not None:
        assert _reciprocal_pairs(graph.adjacency) == reciprocal
    assert _class_counts(graph) == counts


@pytest.mark.parametrize("linqs, other", [("cora", "cora-npz"), ("citeseer", "citeseer-npz"),
                                          ("cora", "cora-askls")])
def test_formats_of_the_same_data_give_the_same_graph(shared, linqs, other):
    a, b = shared(linqs), shared(other)
    if other.endswith("askls"):  # the authors' nodes are in .content order
        order = np.arange(a.n_nodes)
    else:
        position = {node: i for i, node in enumerate(a.node_names)}
        order = np.array([position[node] for node in b.node_names])
        assert [a.class_names[c] for c in a.labels[order]] == [b.class_names[c] for c in b.labels]
    assert (a.adjacency[order][:, order] != b.adjacency).nnz == 0


def test_linqs_cora_follows_the_cites_convention(shared):
    graph = shared("cora")  # first line of cora.cites: "35 1033", so 1033 -> 35
    index = {node: i for i, node in enumerate(graph.node_names)}
    assert graph.adjacency[index["1033"], index["35"]] == 1
    assert graph.adjacency[index["35"], index["1033"]] == 0


def test_citeseer_drops_and_logs_edges_to_papers_without_content(shared_datasets, caplog):
    folder = shared_datasets / "citeseer_linqs"
    with caplog.at_level(logging.INFO, logger="digraph_askls.datasets"):
        graph = load_linqs(folder / "citeseer.cites", folder / "citeseer.content")
    assert graph.n_edges == 4715
    assert "dropped 17 of 4732 citation lines" in caplog.text


def test_pubmed_linqs_cites_file_matches_the_tsv_graph(shared, shared_datasets):
    path = shared_datasets / "pubmed_linqs" / "Pubmed-Diabetes.DIRECTED.cites.tab"
    graph = load_pubmed_linqs(path)
    assert (graph.n_nodes, graph.n_edges, graph.n_classes) == (19717, 44338, 0)
    assert np.all(graph.labels == -1) and graph.node_names[0] == "19127292"
    assert int(graph.adjacency.diagonal().sum()) == 3
    assert _reciprocal_pairs(graph.adjacency) == 11
    tsv = shared("pubmed").adjacency
    for axis in (0, 1):  # same in- and out-degree sequences
        assert np.array_equal(np.sort(graph.adjacency.sum(axis=axis)), np.sort(tsv.sum(axis=axis)))


def test_pubmed_linqs_with_node_file(tmp_path, caplog):
    cites, nodes = tmp_path / "c.tab", tmp_path / "n.tab"
    cites.write_text("DIRECTED\tcites\nNO_FEATURES\n1\tpaper:5\t|\tpaper:9\n"
                     "2\tpaper:9\t|\tpaper:5\n3\tpaper:9\t|\tpaper:77\n")
    nodes.write_text("NODE\tpaper\ncat=1,2,3:label\tnumeric:w-a:0.0\n"
                     "9\tlabel=3\tw-a=0.1\tsummary=w-a\n5\tlabel=1\tw-a=0.2\tsummary=w-a\n")
    with caplog.at_level(logging.INFO, logger="digraph_askls.datasets"):
        graph = load_pubmed_linqs(cites, nodes)
    assert graph.node_names == ["9", "5"] and graph.class_names == [1, 3]
    assert graph.labels.tolist() == [1, 0]
    assert graph.adjacency.toarray().tolist() == [[0, 1], [1, 0]]
    assert "dropped 1 edges" in caplog.text


def test_registered_checksums_match_the_manifest_and_the_shared_files(shared_datasets):
    manifest = (shared_datasets / "MANIFEST.md").read_text()
    listed = dict(
        (path, digest) for digest, path in re.findall(r"^([0-9a-f]{64})  (\S+)$", manifest, re.M)
    )
    checked = 0
    for spec in DATASETS.values():
        for file in spec.files:
            if file.checksum is None or not file.checksum.startswith("sha256:"):
                continue
            digest = file.checksum.split(":")[1]
            if file.path in listed:
                assert listed[file.path] == digest, file.path
            elif file.path.startswith("geom_gcn/"):
                pass  # the manifest gives no sha256 for these: the shared copies decide
            else:  # Pubmed TSV (section 1) and Amazon LFS ids (section 2) are in the text,
                # the newer npz files as their first 16 hex digits ("sha256 34aea6b6...")
                assert digest in manifest or f"sha256 {digest[:16]}..." in manifest, file.path
            if (shared_datasets / file.path).is_file():
                assert file_checksum(shared_datasets / file.path, "sha256") == digest
                checked += 1
    # 5 npz; Geom-GCN: 2 text files and 10 splits each; BlogCatalog's .mat
    assert checked == 11 + 5 + 3 * 12 + 1


def test_git_blob_checksum_is_the_git_object_id(shared_datasets):
    path = shared_datasets / "cora_linqs" / "cora.cites"
    assert file_checksum(path, "git-blob") == "d971e9d07e5f439864ac216697287faad7eb4406"
    with pytest.raises(ValueError, match="unknown checksum algorithm 'md5'"):
        file_checksum(path, "md5")


def test_unknown_dataset_lists_the_valid_names():
    assert list_datasets() == sorted(DATASETS)
    assert {"cora", "citeseer", "pubmed", "amazon-photo", "amazon-computers", "cora-npz",
            "citeseer-npz", "cora-askls", "citeseer-askls", "ogbn-arxiv", "chameleon",
            "squirrel", "texas", "wisconsin", "film", "polblogs"} <= set(list_datasets())
    with pytest.raises(ValueError, match=r"unknown dataset 'corra'; choose from \[.*'cora'"):
        load_dataset("corra")


def _with_urls(monkeypatch, name, url):
    """Point every file of a registered dataset at ``url`` (no network in tests)."""
    spec = DATASETS[name]
    files = tuple(dataclasses.replace(file, url=url) for file in spec.files)
    monkeypatch.setitem(DATASETS, name, dataclasses.replace(spec, files=files))


def _leftovers(folder):
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*") if p.is_file())


def test_download_verifies_and_renames(shared_datasets, tmp_path, monkeypatch):
    _with_urls(monkeypatch, "cora-npz", (shared_datasets / "directed_npz/cora.npz").as_uri())
    graph = load_dataset("cora-npz", data_home=tmp_path)
    assert (graph.n_nodes, graph.n_edges) == (2708, 5429)
    assert _leftovers(tmp_path) == ["directed_npz/cora.npz"]


def test_checksum_mismatch_raises_and_leaves_nothing(shared_datasets, tmp_path, monkeypatch):
    _with_urls(monkeypatch, "cora-npz", (shared_datasets / "directed_npz/citeseer.npz").as_uri())
    with pytest.raises(ValueError, match="checksum mismatch .* expected sha256 068e22d9"):
        load_dataset("cora-npz", data_home=tmp_path)
    assert _leftovers(tmp_path) == []


def test_members_are_extracted_from_a_zip_archive(shared_datasets, tmp_path, monkeypatch):
    _with_urls(monkeypatch, "cora", (shared_datasets / "cora_linqs/cora.zip").as_uri())
    graph = load_dataset("cora", data_home=tmp_path)
    assert (graph.n_nodes, graph.n_edges, graph.n_classes) == (2708, 5429, 7)
    assert _leftovers(tmp_path) == ["cora_linqs/cora.cites", "cora_linqs/cora.content"]


def _tgz(path, members):
    """Write a gzipped tar; ``members`` maps names to bytes, or to ``("link", target)``."""
    with tarfile.open(path, "w:gz", compresslevel=1) as archive:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            if isinstance(content, tuple):
                info.type, info.linkname = tarfile.SYMTYPE, content[1]
                archive.addfile(info)
            else:
                info.size = len(content)
                archive.addfile(info, io.BytesIO(content))
    return path


@pytest.fixture(scope="module")
def cora_bytes(shared_datasets):
    folder = shared_datasets / "cora_linqs"
    return {name: (folder / name).read_bytes() for name in ("cora.cites", "cora.content")}


def test_members_are_extracted_from_a_tgz_archive(cora_bytes, tmp_path, monkeypatch):
    archive = _tgz(tmp_path / "cora.tgz", {f"cora/{k}": v for k, v in cora_bytes.items()})
    _with_urls(monkeypatch, "cora", archive.as_uri())
    home = tmp_path / "home"
    assert load_dataset("cora", data_home=home).n_edges == 5429
    assert _leftovers(home) == ["cora_linqs/cora.cites", "cora_linqs/cora.content"]


@pytest.mark.parametrize(
    "members, match",
    [
        ({"cora/cora.cites": b"35\t1033\n", "cora/cora.content": None}, "checksum mismatch"),
        ({"../cora.cites": None, "cora/cora.content": None}, "unsafe member path '../cora.cites'"),
        ({"cora/cora.cites": None, "cora/cora.content": ("link", "/etc/passwd")},
         "'cora/cora.content' .* is not a regular file"),
        ({"cora/cora.cites": None}, "one member named 'cora.content' .* found 0"),
    ],
)
def test_bad_archives_are_refused(cora_bytes, tmp_path, monkeypatch, members, match):
    members = {
        name: cora_bytes[Path(name).name] if content is None else content
        for name, content in members.items()
    }
    archive = _tgz(tmp_path / "bad.tgz", members)
    _with_urls(monkeypatch, "cora", archive.as_uri())
    home = tmp_path / "home"
    with pytest.raises(ValueError, match=match):
        load_dataset("cora", data_home=home)
    assert not (home / "cora_linqs" / "cora.content").exists()
    assert not list(home.glob(".*")) and not list(home.rglob("*.part"))


def test_offline_error_says_where_it_looked_and_how_to_provide(tmp_path):
    with pytest.raises(FileNotFoundError) as error:
        load_dataset("cora", data_home=tmp_path, download=False)
    message = str(error.value)
    assert str(tmp_path / "cora_linqs" / "cora.cites") in message
    assert str(tmp_path / "cora_linqs" / "cora.content") in message
    assert "https://linqs-data.soe.ucsc.edu/public/lbc/cora.tgz" in message
    assert "DIGRAPH_ASKLS_DATA" in message and "download=False" in message


def test_failed_download_explains_how_to_provide(tmp_path, monkeypatch):
    _with_urls(monkeypatch, "cora-askls", (tmp_path / "nowhere.mat").as_uri())
    with pytest.raises(OSError, match="the download failed") as error:
        load_dataset("cora-askls", data_home=tmp_path / "home")
    assert str(tmp_path / "home" / "askls_mat" / "cora.mat") in str(error.value)
    assert _leftovers(tmp_path) == []


def test_files_without_url_cannot_be_downloaded(tmp_path):
    with pytest.raises(FileNotFoundError, match="no download URL is known") as error:
        load_dataset("pubmed", data_home=tmp_path)
    assert str(tmp_path / "pubmed_directed" / "pubmed.edges.tsv") in str(error.value)


def _write_gz(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as file:
        file.write(text)


def test_ogb_raw_files_are_read_without_ogb(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ogb", None)
    raw = tmp_path / "ogbn_arxiv" / "raw"
    _write_gz(raw / "edge.csv.gz", "0,1\n1,2\n3,2\n0,1\n")
    _write_gz(raw / "node-label.csv.gz", "5\n0\nnan\n5\n")
    _write_gz(raw / "num-node-list.csv.gz", "4\n")
    graph = load_dataset("ogbn-arxiv", data_home=tmp_path, download=False)
    assert graph.name == "ogbn-arxiv" and graph.n_nodes == 4
    assert graph.adjacency.toarray().tolist() == [[0, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0],
                                                  [0, 0, 1, 0]]
    assert graph.labels.tolist() == [1, 0, -1, 1] and graph.class_names == [0, 5]
    _write_gz(raw / "edge.csv.gz", "source,target\n2,0\n")  # a header line is tolerated
    assert load_ogb_raw(raw).adjacency[2, 0] == 1
    _write_gz(raw / "num-node-list.csv.gz", "7\n")
    with pytest.raises(ValueError, match=r"one graph of 4 nodes .* got \[7\]"):
        load_ogb_raw(raw)


def test_ogb_download_without_ogb_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ogb", None)
    monkeypatch.setitem(sys.modules, "ogb.nodeproppred", None)
    with pytest.raises(ImportError, match=r'pip install "\.\[ogb\]" from the repository root'):
        load_dataset("ogbn-arxiv", data_home=tmp_path, download=True)


def test_npz_reader_never_unpickles(tmp_path, caplog):
    path = tmp_path / "toy.npz"
    np.savez(path, adj_data=[1.0, 1.0], adj_indices=[1, 2], adj_indptr=[0, 1, 2, 2],
             adj_shape=[3, 3], labels=np.array([0, 1, 0], dtype=np.int8),
             node_names=np.array([{"a": 1}, None, 3], dtype=object))
    with caplog.at_level(logging.INFO, logger="digraph_askls.datasets"):
        graph = load_npz(path)
    assert "skipped 'node_names'" in caplog.text
    assert graph.node_names == [0, 1, 2] and graph.class_names == [0, 1]
    assert load_npz(path, reverse_edges=True).adjacency[1, 0] == 1
    np.savez(path, adj_data=[1.0])
    with pytest.raises(ValueError, match=r"lacks the keys \['adj_indices'"):
        load_npz(path)


def test_readers_reject_malformed_files(tmp_path):
    content, cites = tmp_path / "x.content", tmp_path / "x.cites"
    content.write_text("a\t1\tAI\nb\t0\tDB\n")
    cites.write_text("a\tb\tc\n")
    with pytest.raises(ValueError, match=r"x.cites:1: expected '<cited id> <citing id>'"):
        load_linqs(cites, content)
    content.write_text("a\t1\tAI\na\t0\tDB\n")
    with pytest.raises(ValueError, match="x.content:2: paper id 'a' appears twice"):
        load_linqs(cites, content)
    cites.write_text("DIRECTED\tcites\nNO_FEATURES\n1\t5\t|\t9\n")
    with pytest.raises(ValueError, match=r":3: expected '<id> TAB paper:<citing>"):
        load_pubmed_linqs(cites)


def test_data_home_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv("DIGRAPH_ASKLS_DATA", str(tmp_path / "from_env"))
    assert get_data_home(tmp_path / "given") == tmp_path / "given"
    assert (tmp_path / "given").is_dir()
    assert get_data_home() == tmp_path / "from_env" and (tmp_path / "from_env").is_dir()
    monkeypatch.delenv("DIGRAPH_ASKLS_DATA")
    repository = Path(__file__).resolve().parents[1]
    assert get_data_home() == repository / "datasets"
    monkeypatch.setattr(_base, "_source_checkout_data_dir", lambda: None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert get_data_home() == tmp_path / "cache" / "digraph_askls"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert get_data_home() == tmp_path / "home" / ".cache" / "digraph_askls"
    monkeypatch.setenv("DIGRAPH_ASKLS_DATA", "~/data")
    assert get_data_home() == tmp_path / "home" / "data"


def test_environment_variable_serves_the_shared_layout(shared_datasets, monkeypatch):
    monkeypatch.setenv("DIGRAPH_ASKLS_DATA", str(shared_datasets))
    assert load_dataset("citeseer-npz", download=False).n_nodes == 3312
