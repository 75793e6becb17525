"""Node attributes and fixed splits from the readers; the directed benchmarks that have them."""

import logging
from collections import Counter

import numpy as np
import pytest
from scipy import sparse

from digraph_askls import NodeClassifier
from digraph_askls.datasets import (
    load_dataset,
    load_geom_gcn,
    load_heterophilous_npz,
    load_linqs,
    load_npz,
)
from digraph_askls.datasets._registry import DATASETS
from digraph_askls.model_selection import evaluate_node_classifier, fixed_splits, random_splits
from digraph_askls.graph import Graph, Split, get_adjacency
from digraph_askls.linalg import SingularSystemWarning


def _reciprocal_pairs(adjacency):
    pattern = (adjacency != 0).astype(np.int8)
    both = pattern.multiply(pattern.T)
    return int((both.sum() - both.diagonal().sum()) // 2)


# From the data manifest, section "Added 2026-11-26". Edges of film: distinct pairs.
NEW = {
    # name: nodes, edges, features, class counts, self-loops, reciprocal pairs, splits
    "chameleon": (2277, 36101, 2325, [456, 460, 453, 521, 387], 50, 4680, 10),
    "squirrel": (5201, 217073, 2089, [1042, 1040, 1039, 1040, 1040], 140, 18580, 10),
    "texas": (183, 325, 1703, [33, 1, 18, 101, 30], 16, None, 10),
    "wisconsin": (251, 515, 1703, [10, 70, 118, 32, 21], None, None, 10),
    "film": (7600, 30019, 932, [853, 1337, 1630, 1815, 1965], None, None, 10),
    "polblogs": (1490, 19025, 0, [758, 732], 3, 2307, 0),
    # Section "Added 2026-12-01": the two graphs without their duplicated pages. The
    # manifest's reciprocal pairs (4,705 and 18,650) count each self-loop as half a pair:
    # 4,680 + 50 / 2 and 18,580 + 140 / 2.
    "chameleon-filtered": (890, 13584, 2325, [242, 134, 209, 164, 141], 50, 4680, 10),
    "squirrel-filtered": (2223, 65718, 2089, [756, 516, 397, 321, 233], 140, 18580, 10),
}


@pytest.mark.parametrize("name", sorted(NEW))
def test_new_datasets_give_the_manifest_counts(shared, name):
    n_nodes, n_edges, n_features, counts, loops, reciprocal, n_splits = NEW[name]
    graph = shared(name)
    assert (graph.name, graph.n_nodes, graph.n_edges) == (name, n_nodes, n_edges)
    assert graph.n_classes == len(counts) and graph.n_features == n_features
    assert [Counter(graph.labels.tolist())[code] for code in range(len(counts))] == counts
    adjacency = graph.adjacency
    assert adjacency.has_canonical_format and set(adjacency.data.tolist()) == {1.0}
    assert (adjacency != adjacency.T).nnz > 0, "directed, as stored: never symmetrised"
    if loops is not None:
        assert int(adjacency.diagonal().sum()) == loops
    if reciprocal is not None:
        assert _reciprocal_pairs(adjacency) == reciprocal
    if n_features:
        assert isinstance(graph.features, sparse.csr_array)  # about 1 % non-zero
        assert graph.features.dtype == np.float64 and set(graph.features.data.tolist()) == {1.0}
    else:
        assert graph.features is None
    assert len(graph.splits or ()) == n_splits


@pytest.mark.parametrize("name, sizes", [
    ("chameleon", (1092, 729, 456)),
    ("squirrel", (2496, 1664, 1041)),
    ("texas", (87, 59, 37)),
    ("wisconsin", (120, 80, 51)),
    ("film", (3648, 2432, 1520)),
])
def test_fixed_splits_are_48_32_20_percent_and_differ(shared, name, sizes):
    graph = shared(name)
    assert {tuple(len(part) for part in split) for split in graph.splits} == {sizes}
    assert np.allclose(np.array(sizes) / graph.n_nodes, [0.48, 0.32, 0.20], atol=0.005)
    assert sum(sizes) == graph.n_nodes  # every node in one part of each split
    assert len({split.train.tobytes() for split in graph.splits}) == 10


@pytest.mark.parametrize("name", ["chameleon-filtered", "squirrel-filtered"])
def test_filtered_splits_cover_every_node_once_and_differ(shared, name):
    graph = shared(name)
    for split in graph.splits:
        parts = np.concatenate([split.train, split.valid, split.test])
        assert np.array_equal(np.sort(parts), np.arange(graph.n_nodes))
        assert 0.45 < split.train.size / graph.n_nodes < 0.51
    assert len({split.train.tobytes() for split in graph.splits}) == 10


def test_chameleon_keeps_the_stored_edge_direction(shared, shared_datasets):
    with np.load(shared_datasets / "heterophily_directed/chameleon_directed.npz") as data:
        source, target = data["edges"][0]
        masks = data["train_masks"][3]
    adjacency = shared("chameleon").adjacency
    assert adjacency[source, target] == 1 and adjacency[target, source] == 0
    assert np.array_equal(shared("chameleon").splits[3].train, np.flatnonzero(masks))


def test_film_repeated_edge_lines_are_kept_once(shared_datasets, caplog):
    folder = shared_datasets / "geom_gcn" / "film"
    lines = np.loadtxt(folder / "out1_graph_edges.txt", dtype=np.int64, skiprows=1)
    assert len(lines) == 33391 and len(np.unique(lines, axis=0)) == 30019
    with caplog.at_level(logging.INFO, logger="digraph_askls.datasets"):
        graph = load_geom_gcn(folder / "out1_graph_edges.txt",
                              folder / "out1_node_feature_label.txt", n_features=932)
    assert graph.n_edges == 30019 and graph.adjacency.max() == 1
    assert "3372 lines repeat an edge" in caplog.text


def test_film_features_are_active_indices_out_of_932(shared, shared_datasets):
    path = shared_datasets / "geom_gcn" / "film" / "out1_node_feature_label.txt"
    header, first = path.read_text().splitlines()[:2]
    assert "feature_amount:931" in header  # the largest index, not the count
    node, active, _ = first.split("\t")
    features = shared("film").features
    assert features.shape == (7600, 932) and features.indices.max() == 931
    assert np.flatnonzero(features[[int(node)]].toarray()).tolist() == sorted(
        {int(index) for index in active.split(",")}
    )
    with pytest.raises(ValueError, match=r"feature indices in \[0, 931\), got .* 931\]"):
        load_geom_gcn(path.with_name("out1_graph_edges.txt"), path, n_features=931)


def test_polblogs_stored_values_count_repeated_links(shared, shared_datasets):
    weighted = load_npz(shared_datasets / "polblogs" / "polblogs.npz")
    assert Counter(weighted.adjacency.data.tolist()) == {1.0: 18960, 2.0: 65}
    assert weighted.adjacency.sum() == 19090
    assert (shared("polblogs").adjacency != (weighted.adjacency != 0)).nnz == 0


@pytest.mark.parametrize("linqs, npz", [("cora", "cora-npz"), ("citeseer", "citeseer-npz")])
def test_linqs_and_npz_features_agree(shared, linqs, npz):
    a, b = shared(linqs), shared(npz)
    position = {node: i for i, node in enumerate(a.node_names)}
    order = np.array([position[node] for node in b.node_names])
    assert isinstance(a.features, sparse.csr_array) and isinstance(b.features, sparse.csr_array)
    words, nonzero = {"cora": (1433, 49216), "citeseer": (3703, 105165)}[linqs]
    assert a.features.shape == b.features.shape == (a.n_nodes, words)
    assert a.features.nnz == nonzero and set(a.features.data.tolist()) == {1.0}
    assert (a.features[order] != b.features).nnz == 0


def test_pubmed_has_no_features(shared):
    assert shared("pubmed").features is None and shared("pubmed").splits is None


def test_linqs_reads_any_numeric_attributes(tmp_path):
    content, cites = tmp_path / "x.content", tmp_path / "x.cites"
    cites.write_text("a\tb\n")
    content.write_text("a\t10\t0.5\t0\tAI\nb\t0\t0\t0\tDB\nc\t0\t0\t0\tAI\n")
    graph = load_linqs(cites, content)
    assert isinstance(graph.features, sparse.csr_array)  # 2 of 9 non-zero
    assert graph.features.toarray().tolist() == [[10, 0.5, 0], [0, 0, 0], [0, 0, 0]]
    content.write_text("a\t1\t0\tAI\nb\t1\tDB\n")
    with pytest.raises(ValueError, match="same number of numeric attributes on every line"):
        load_linqs(cites, content)
    content.write_text("a\tAI\nb\tDB\n")
    assert load_linqs(cites, content).features is None


def test_new_readers_reject_malformed_files(tmp_path):
    path = tmp_path / "x.npz"
    np.savez(path, node_features=np.ones((2, 1)), node_labels=[0, 1])
    with pytest.raises(ValueError, match=r"lacks the keys \['edges'\]"):
        load_heterophilous_npz(path)
    np.savez(path, node_features=np.ones((2, 1)), node_labels=[0, 1], edges=[[0, 1]],
             train_masks=[[True, False]])
    with pytest.raises(ValueError, match="all of .*'train_masks'.* or none"):
        load_heterophilous_npz(path)
    edges, table = tmp_path / "e.txt", tmp_path / "t.txt"
    edges.write_text("h\th\n0\t1\n")
    table.write_text("h\th\th\n0\t1,0\t0\n2\t0,1\t1\n")
    with pytest.raises(ValueError, match=r"node ids 0..1 once each"):
        load_geom_gcn(edges, table)
    table.write_text("h\th\th\n0\t1,0\t0\n1\t0\t1\n")
    with pytest.raises(ValueError, match=r"same number of features .* pass n_features="):
        load_geom_gcn(edges, table)
    table.write_text("h\th\th\n0\t1,1\t0\n1\t\t1\n")
    assert load_geom_gcn(edges, table, n_features=3).features.toarray().tolist() == [
        [0, 1, 0], [0, 0, 0]]
    split = tmp_path / "s.npz"
    np.savez(split, train_mask=[1, 0], val_mask=[0, 1])
    with pytest.raises(ValueError, match=r"lacks the keys \['test_mask'\]"):
        load_geom_gcn(edges, table, split_paths=[split], n_features=3)
    np.savez(split, train_mask=[1, 0], val_mask=[0, 1], test_mask=[0, 0])
    (only,) = load_geom_gcn(edges, table, split_paths=[split], n_features=3).splits
    assert isinstance(only, Split) and only.train.tolist() == [0] and only.test.size == 0


@pytest.mark.parametrize("name", sorted(NEW))
def test_new_datasets_offline_say_where_and_from_where(tmp_path, name):
    with pytest.raises(FileNotFoundError) as error:
        load_dataset(name, data_home=tmp_path, download=False)
    message = str(error.value)
    for file in DATASETS[name].files:
        assert str(tmp_path.joinpath(*file.path.split("/"))) in message
        assert file.url in message
        assert file.url.startswith("https://github.com/") and "/raw/" in file.url
        commit = file.url.split("/raw/")[1].split("/")[0]
        assert len(commit) == 40, "download addresses are pinned at a commit"
    assert "DIGRAPH_ASKLS_DATA" in message and "download=False" in message
    expected = {"chameleon": 1, "squirrel": 1, "chameleon-filtered": 1, "squirrel-filtered": 1,
                "polblogs": 1}.get(name, 12)
    assert len(DATASETS[name].files) == expected


def test_fixed_splits_feed_the_evaluation(shared):
    graph = shared("texas")
    splits = fixed_splits(graph)
    assert [seed for seed, _, _ in splits] == [("fixed", i) for i in range(10)]
    for (_, train, test), split in zip(splits, graph.splits):
        assert np.array_equal(train, split.train) and np.array_equal(test, split.test)
    seeds = []

    def make(seed):
        seeds.append(seed)
        return NodeClassifier(preset="paper", random_state=seed)

    with pytest.warns(SingularSystemWarning):
        results = evaluate_node_classifier(make, graph.adjacency, graph.labels,
                                           splits=splits[:3], verbose=False)
    assert seeds == [0, 1, 2] and len(results.micro_f1) == 3
    assert all(0.3 < score <= 1 for score in results.micro_f1)  # 5 classes, 55 % majority
    joined = fixed_splits(graph, train_on_valid=True)[0][1]
    assert np.array_equal(joined, np.union1d(graph.splits[0].train, graph.splits[0].valid))


def test_fixed_splits_match_random_splits_in_form():
    adjacency, nodes = get_adjacency([(0, 1), (1, 2), (2, 3), (3, 4)])
    labels = np.array([0, 1, 0, 1, -1])
    graph = Graph(adjacency, labels, nodes, ["a", "b"], splits=[([1, 0], [2], [3])])
    ((seed, train, test),) = fixed_splits(graph)
    ((_, random_train, random_test),) = random_splits(labels, 0.5, 1, random_state=0)
    assert seed == ("fixed", 0)
    assert train.dtype == random_train.dtype and test.dtype == random_test.dtype
    assert train.tolist() == [0, 1] and test.tolist() == [3]
    with pytest.raises(ValueError, match="expected a graph with fixed splits .* random_splits"):
        fixed_splits(Graph(adjacency, labels, nodes, ["a", "b"], name="plain"))
