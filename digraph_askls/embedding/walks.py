"""Random-walk embeddings of the undirected graph: DeepWalk and node2vec.

The walks are drawn here, all of a pass at once; the skip-gram model is gensim's
``Word2Vec`` (the optional extra ``walks``: ``pip install ".[walks]"`` from the repository root).

References: B. Perozzi, R. Al-Rfou, S. Skiena, "DeepWalk: Online Learning of Social
Representations", KDD 2014. A. Grover, J. Leskovec, "node2vec: Scalable Feature Learning
for Networks", KDD 2016.
"""

import logging
import time
import zlib

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._fitted import FittedAttributesMixin
from ._checks import check_adjacency, check_param
from ._sampling import NeighborSampler

__all__ = ["DeepWalk", "Node2Vec", "node2vec_walks"]

logger = logging.getLogger(__name__)

_MAX_TRIES = 100  # rejection rounds of a node2vec step before the last proposal stands


def _undirected(matrix):
    """``A + A^T`` without self-loops, weights summed: the graph the walks move on."""
    both = sparse.csr_matrix(matrix + matrix.T)
    both.setdiag(0.0)
    both.eliminate_zeros()
    both.sort_indices()
    return both


def node2vec_walks(adjacency, n_walks=10, walk_length=40, p=1.0, q=1.0, random_state=None):
    """Second-order random walks of node2vec (first-order, DeepWalk's, when ``p = q = 1``).

    A step from ``v``, having come from ``t``, goes to a neighbour ``x`` of ``v`` with
    probability proportional to ``w(v, x)`` times ``1 / p`` if ``x = t``, 1 if ``x`` is
    a neighbour of ``t`` and ``1 / q`` otherwise. The steps of all walks are drawn
    together, the biased ones by rejection from the weighted proposal (no alias table
    per edge). A walk that reaches a node without neighbours stays there.

    Parameters
    ----------
    adjacency : sparse matrix of shape (n, n)
        A symmetric matrix of non-negative weights.
    n_walks : int
        Walks from every node (a pass over all nodes in a random order each).
    walk_length : int
        Nodes per walk, the start included.
    p, q : float
        node2vec's return and in-out parameters.
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    ndarray of shape (n_walks * n, walk_length), int

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.embedding import node2vec_walks
    >>> path = sparse.csr_matrix(np.eye(4, k=1) + np.eye(4, k=-1))   # 0 - 1 - 2 - 3
    >>> walks = node2vec_walks(path, n_walks=2, walk_length=5, random_state=0)
    >>> walks.shape, bool(np.all(np.abs(np.diff(walks, axis=1)) == 1))
    ((8, 5), True)
    """
    matrix = sparse.csr_matrix(adjacency, dtype=np.float64)
    matrix.sort_indices()
    rng = np.random.default_rng(random_state)
    n = matrix.shape[0]
    sampler = NeighborSampler(matrix)
    starts = np.concatenate([rng.permutation(n) for _ in range(n_walks)])
    walks = np.empty((starts.size, walk_length), dtype=np.int64)
    walks[:, 0] = starts
    stuck = sampler.row_weight[starts] == 0
    for step in range(1, walk_length):
        here = walks[:, step - 1]
        if step == 1 or (p == 1.0 and q == 1.0):
            following = sampler.neighbors(here, rng)
        else:
            following = _biased_step(matrix, sampler, walks[:, step - 2], here, p, q, rng)
        walks[:, step] = np.where(stuck, here, following)
    return walks


def _biased_step(matrix, sampler, previous, here, p, q, rng):
    """node2vec's second-order step by rejection: propose by weight, accept by the bias."""
    n = matrix.shape[0]
    edge_keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(matrix.indptr)) * n \
        + matrix.indices
    top = max(1.0 / p, 1.0, 1.0 / q)
    chosen = sampler.neighbors(here, rng)
    pending = np.arange(here.size)
    for _ in range(_MAX_TRIES):
        proposal = chosen[pending]
        back = previous[pending]
        keys = back.astype(np.int64) * n + proposal
        found = np.minimum(np.searchsorted(edge_keys, keys), edge_keys.size - 1)
        bias = np.where(proposal == back, 1.0 / p,
                        np.where(edge_keys[found] == keys, 1.0, 1.0 / q))
        rejected = rng.random(pending.size) * top >= bias
        pending = pending[rejected]
        if pending.size == 0:
            break
        chosen[pending] = sampler.neighbors(here[pending], rng)
    return chosen


def _stable_hash(token):
    """A hash of a token that is the same in every process (Python's is salted)."""
    return zlib.crc32(str(token).encode())


class Node2Vec(FittedAttributesMixin, BaseEstimator):
    """node2vec embedding of the undirected graph: skip-gram on biased random walks.

    The graph is made undirected (``A + A^T``); :func:`node2vec_walks` draws ``n_walks``
    walks of ``walk_length`` nodes from every node, and gensim's ``Word2Vec`` (skip-gram,
    negative sampling) learns one vector per node from them. ``p = q = 1`` is DeepWalk.
    One vector per node, so the source and target embeddings are the same array: the
    embedding kernel ``K = U U^T`` is symmetric and AsK-LS on it is the LS-SVM (the
    paper's Proposition 2).

    Needs gensim (``pip install ".[walks]"`` from the repository root). With an integer
    ``random_state`` the walks and the training (one worker thread, a seed, and a
    process-independent hash) are reproducible.

    Parameters
    ----------
    n_components : int, default=128
        Dimension of the embedding.
    n_walks : int, default=10
        Walks from every node.
    walk_length : int, default=40
        Nodes per walk.
    window : int, default=5
        Skip-gram context size.
    p, q : float, default=1.0
        node2vec's return and in-out parameters.
    n_negative : int, default=5
        Negative samples per positive pair.
    epochs : int, default=1
        Passes of ``Word2Vec`` over the walks.
    random_state : int or None, default=None

    Attributes
    ----------
    source_embedding_ : ndarray of shape (n_nodes, n_components), float32
        The node vectors (zero for nodes without any edge).
    target_embedding_ : ndarray
        The same array as :attr:`source_embedding_`.
    n_nodes_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.embedding import Node2Vec
    >>> edges = np.array([[0, 1], [1, 2], [2, 0], [3, 4], [4, 5], [5, 3], [2, 3]])
    >>> adjacency = sparse.csr_matrix((np.ones(7), edges.T), shape=(6, 6))
    >>> model = Node2Vec(n_components=4, q=0.5, epochs=5, random_state=0)
    >>> model.fit_transform(adjacency).shape
    (6, 4)
    """

    def __init__(self, n_components=128, n_walks=10, walk_length=40, window=5, p=1.0,
                 q=1.0, n_negative=5, epochs=1, random_state=None):
        self.n_components = n_components
        self.n_walks = n_walks
        self.walk_length = walk_length
        self.window = window
        self.p = p
        self.q = q
        self.n_negative = n_negative
        self.epochs = epochs
        self.random_state = random_state

    def _walk_params(self):
        return self.p, self.q

    def fit(self, adjacency, y=None):
        """Learn the node vectors of a graph (edge directions are dropped).

        Parameters
        ----------
        adjacency : sparse matrix or array-like of shape (n_nodes, n_nodes)
            At least one edge.
        y : None
            Ignored.

        Returns
        -------
        self
        """
        try:
            from gensim.models import Word2Vec
        except ImportError as error:
            raise ImportError(f"{type(self).__name__} needs gensim: pip install "
                              "\".[walks]\" from the repository root (or pip install "
                              "gensim)") from error
        sizes = {name: check_param(getattr(self, name), name, int, 1) for name in (
            "n_components", "n_walks", "walk_length", "window", "n_negative", "epochs")}
        p, q = (check_param(value, name, float, 0.0)
                for name, value in zip("pq", self._walk_params()))
        if p == 0.0 or q == 0.0:
            raise ValueError(f"p and q must be positive, got p={p!r}, q={q!r}")
        matrix = _undirected(check_adjacency(adjacency))
        seed = np.random.default_rng(self.random_state).integers(2 ** 31 - 1)
        started = time.perf_counter()
        walks = node2vec_walks(matrix, sizes["n_walks"], sizes["walk_length"], p, q,
                               np.random.default_rng(seed))
        model = Word2Vec(sentences=walks.astype(str).tolist(),
                         vector_size=sizes["n_components"], window=sizes["window"],
                         min_count=0, sg=1, hs=0, negative=sizes["n_negative"],
                         epochs=sizes["epochs"], workers=1, seed=int(seed),
                         hashfxn=_stable_hash)
        vectors = np.zeros((matrix.shape[0], sizes["n_components"]), dtype=np.float32)
        present = np.array([int(key) for key in model.wv.index_to_key])
        vectors[present] = model.wv.vectors
        vectors[np.diff(matrix.indptr) == 0] = 0.0
        self.source_embedding_ = self.target_embedding_ = vectors
        self.n_nodes_ = matrix.shape[0]
        logger.info("%s: %d nodes, %d walks in %.1f s", type(self).__name__,
                    self.n_nodes_, walks.shape[0], time.perf_counter() - started)
        return self

    def transform(self):
        """Return the node vectors, shape (n_nodes, n_components)."""
        check_is_fitted(self, ["source_embedding_"])
        return self.source_embedding_

    def fit_transform(self, adjacency, y=None):
        """Fit on ``adjacency`` and return the node vectors."""
        return self.fit(adjacency).transform()


class DeepWalk(Node2Vec):
    """DeepWalk: :class:`Node2Vec` with uniform (first-order) walks, ``p = q = 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.embedding import DeepWalk
    >>> edges = np.array([[0, 1], [1, 2], [2, 0], [3, 4], [4, 5], [5, 3], [2, 3]])
    >>> adjacency = sparse.csr_matrix((np.ones(7), edges.T), shape=(6, 6))
    >>> DeepWalk(n_components=4, random_state=0).fit_transform(adjacency).shape
    (6, 4)
    """

    def __init__(self, n_components=128, n_walks=10, walk_length=40, window=5,
                 n_negative=5, epochs=1, random_state=None):
        super().__init__(n_components=n_components, n_walks=n_walks,
                         walk_length=walk_length, window=window, n_negative=n_negative,
                         epochs=epochs, random_state=random_state)

    def _walk_params(self):
        return 1.0, 1.0
