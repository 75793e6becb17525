"""Random walks of the undirected graph (DeepWalk, node2vec) and their gensim training."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

from digraph_askls.datasets import make_directed_sbm
from digraph_askls.embedding import DeepWalk, Node2Vec, node2vec_walks


def cycle(n=50):
    return sparse.csr_matrix(np.roll(np.eye(n), 1, axis=1) + np.roll(np.eye(n), -1, axis=1))


@pytest.mark.parametrize("p, q", [(0.5, 2.0), (1.0, 1.0), (4.0, 0.25)])
def test_node2vec_returns_as_often_as_its_bias_says(p, q):
    # On a cycle every node has two neighbours and no triangle: a step goes back with
    # probability (1/p) / (1/p + 1/q).
    walks = node2vec_walks(cycle(), n_walks=40, walk_length=30, p=p, q=q, random_state=0)
    back = walks[:, 2:] == walks[:, :-2]
    assert back.mean() == pytest.approx((1 / p) / (1 / p + 1 / q), abs=0.01)


def test_triangles_weigh_one_between_return_and_outward():
    # Node 1's neighbours 0 (the previous node), 2 (also a neighbour of 0) and 3 (not):
    # weights 1/p, 1 and 1/q.
    A = sparse.csr_matrix(([1.0] * 4, ([0, 1, 0, 1], [1, 2, 2, 3])), shape=(4, 4))
    A = sparse.csr_matrix(A + A.T)
    walks = node2vec_walks(A, n_walks=1, walk_length=2, random_state=0)
    starts = np.zeros(60_000, dtype=int)
    previous, here = starts, np.ones_like(starts)
    from digraph_askls.embedding._sampling import NeighborSampler
    from digraph_askls.embedding.walks import _biased_step
    A.sort_indices()
    step = _biased_step(A, NeighborSampler(A), previous, here, 0.5, 4.0,
                        np.random.default_rng(0))
    share = np.bincount(step, minlength=4)[[0, 2, 3]] / step.size
    np.testing.assert_allclose(share, np.array([2.0, 1.0, 0.25]) / 3.25, atol=6e-3)
    assert walks.shape == (4, 2)


def test_walks_stay_on_edges_and_isolated_nodes_stay_put():
    A = sparse.csr_matrix(([1.0, 1.0], ([0, 1], [1, 0])), shape=(3, 3))
    walks = node2vec_walks(A, n_walks=3, walk_length=6, p=0.5, q=2.0, random_state=1)
    assert walks.shape == (9, 6)
    assert np.all(walks[walks[:, 0] == 2] == 2)
    moving = walks[walks[:, 0] != 2]
    assert np.all(moving[:, 1:] != moving[:, :-1])


@pytest.fixture(scope="module")
def gensim():
    return pytest.importorskip("gensim")


def test_communities_are_closer_than_other_pairs(gensim):
    A, labels = make_directed_sbm(120, 3, 6, p_in=0.9, random_state=0)
    vectors = DeepWalk(n_components=16, random_state=0).fit_transform(A)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    cosine = unit @ unit.T
    same = labels[:, None] == labels[None, :]
    np.fill_diagonal(same, False)
    other = labels[:, None] != labels[None, :]
    assert cosine[same].mean() > cosine[other].mean() + 0.3


def test_one_vector_per_node_reproducible_across_processes(gensim):
    script = ("import numpy as np; from digraph_askls.datasets import make_directed_sbm; "
              "from digraph_askls.embedding import Node2Vec; "
              "A, _ = make_directed_sbm(60, 2, 4, random_state=0); "
              "m = Node2Vec(n_components=8, p=0.5, q=2.0, random_state=5).fit(A); "
              "print(repr(m.source_embedding_.sum(dtype=np.float64)))")
    root = Path(__file__).resolve().parents[1]
    outputs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              cwd=root, env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin"},
                              timeout=120, check=True).stdout for seed in ("1", "2")}
    assert len(outputs) == 1 and outputs.pop().strip()
    A, _ = make_directed_sbm(60, 2, 4, random_state=0)
    model = Node2Vec(n_components=8, p=0.5, q=2.0, random_state=5).fit(A)
    assert model.source_embedding_ is model.target_embedding_
    again = Node2Vec(n_components=8, p=0.5, q=2.0, random_state=5).fit(A)
    np.testing.assert_array_equal(model.transform(), again.transform())


def test_bad_parameters_and_graphs_are_refused(gensim):
    A = cycle(6)
    with pytest.raises(ValueError, match="p and q must be positive, got p=0.0"):
        Node2Vec(p=0.0).fit(A)
    with pytest.raises(ValueError, match="walk_length must be >= 1, got 0"):
        DeepWalk(walk_length=0).fit(A)
    with pytest.raises(ValueError, match="adjacency must have at least one edge, got none"):
        DeepWalk().fit(sparse.csr_matrix((3, 3)))


def test_a_clear_error_without_gensim(monkeypatch):
    monkeypatch.setitem(sys.modules, "gensim", None)
    monkeypatch.setitem(sys.modules, "gensim.models", None)
    with pytest.raises(ImportError, match=r'DeepWalk needs gensim: pip install '
                                          r'"\.\[walks\]" from the repository root'):
        DeepWalk().fit(cycle(6))
