"""BlogCatalog: the multi-label graph of the embedding literature, as the manifest measures it."""

import numpy as np
import pytest
import scipy.sparse as sp

from digraph_askls.graph import Graph, get_adjacency


def test_counts_equal_the_manifests(shared):
    graph = shared("blogcatalog")
    assert graph.n_nodes == 10312 and graph.n_classes == 39
    # 333,983 friendships, each stored in both directions (667,966 entries), no self-loop.
    assert graph.n_edges == 667966
    assert (graph.adjacency != graph.adjacency.T).nnz == 0
    assert graph.adjacency.diagonal().sum() == 0
    assert sp.triu(graph.adjacency, k=1).nnz == 333983
    labels_per_node = np.asarray(graph.label_matrix.sum(axis=1)).ravel()
    counts = [int(np.sum(labels_per_node == k)) for k in (1, 2, 3)]
    assert counts + [int(np.sum(labels_per_node >= 4))] == [7460, 2011, 564, 277]
    sizes = np.asarray(graph.label_matrix.sum(axis=0)).ravel()
    assert sizes.min() == 8 and sizes.max() == 1623
    assert int(np.sum(labels_per_node >= 2)) == 2852     # "nodes with several" (the issue)
    assert np.all(graph.labels == -1)                    # no node has a single class


def test_label_matrix_is_checked():
    adjacency, nodes = get_adjacency([(0, 1), (1, 2)])
    graph = Graph(adjacency, [-1, -1, -1], nodes, ["x", "y"],
                  label_matrix=np.array([[1, 0], [1, 1], [0, 0]]))
    assert graph.label_matrix.dtype == np.int8 and "multi_label=True" in repr(graph)
    with pytest.raises(ValueError, match=r"shape \(3, 2\)"):
        Graph(adjacency, [-1, -1, -1], nodes, ["x", "y"], label_matrix=np.ones((3, 3)))
    with pytest.raises(ValueError, match="hold 0 and 1"):
        Graph(adjacency, [-1, -1, -1], nodes, ["x", "y"], label_matrix=2 * np.ones((3, 2)))
