"""Node attributes and fixed splits from the readers; the directed benchmarks that have them."""

import numpy as np
import pytest
from scipy import sparse

from digraph_askls.datasets import load_dataset, load_linqs


@pytest.fixture(scope="module")
def shared(shared_datasets):
    cache = {}

    def load(name):
        if name not in cache:
            cache[name] = load_dataset(name, data_home=shared_datasets, download=False)
        return cache[name]

    return load


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