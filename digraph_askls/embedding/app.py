"""APP: source and target embeddings of the asymmetric proximity of rooted random walks.

Reference: C. Zhou, Y. Liu, X. Liu, Z. Liu, J. Gao, "Scalable Graph Embedding for
Asymmetric Proximity", AAAI 2017.
"""

import logging
import time

import numpy as np
from sklearn.base import BaseEstimator
from tqdm.auto import tqdm

from .._fitted import FittedAttributesMixin
from ._source_target import SourceTargetMixin
from ._checks import check_adjacency, check_param
from ._sampling import NeighborSampler, NodeTable
from ._sgd import sgd_step

__all__ = ["APP", "rooted_walk_ends"]

logger = logging.getLogger(__name__)

_NOISE_POWER = 0.75
_MAX_STEPS = 200  # a walk on still walking after this many steps ends there


def rooted_walk_ends(roots, out_edges, restart, rng):
    """Where rooted random walks with restart stop, one walk per root.

    Each walk takes one step along an out-edge (by weight), then after every step
    stops with probability ``restart`` or walks on; it also stops at a node without
    out-edges. The end ``v`` of a walk from ``u`` is drawn with a probability
    proportional to the rooted PageRank ``PPR_u(v)`` less its zero-step term.

    Parameters
    ----------
    roots : ndarray of int
    out_edges : NeighborSampler
        Out-edges of the graph.
    restart : float in (0, 1]
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int, the same shape as ``roots``
    """
    ends = out_edges.neighbors(roots, rng)
    walking = np.flatnonzero(rng.random(roots.size) >= restart)
    for _ in range(_MAX_STEPS):
        walking = walking[out_edges.row_weight[ends[walking]] > 0]
        if walking.size == 0:
            break
        ends[walking] = out_edges.neighbors(ends[walking], rng)
        walking = walking[rng.random(walking.size) >= restart]
    return ends


class APP(SourceTargetMixin, FittedAttributesMixin, BaseEstimator):
    """Source and target node embeddings of rooted-PageRank proximity (APP).

    APP samples, from every node ``u`` with out-edges, ``n_walks`` random walks with
    restart (:func:`rooted_walk_ends`): each ends at a node ``v`` with probability about
    the rooted PageRank ``PPR_u(v)``, and ``(u, v)`` is a positive pair. Every positive
    pair comes with ``n_negative`` negative ones ``(u, v')``, ``v'`` drawn with
    probability proportional to ``in_degree ** 0.75``. The logistic loss of
    ``phi_s(u) . phi_t(v)`` over all pairs is minimised by stochastic gradient descent
    whose rate decays linearly from ``learning_rate``: the inner products then follow
    the logarithm of the rooted PageRank, shifted (the paper's analysis), so ``u`` and
    ``v`` play asymmetric roles. The walks are sampled and the gradients summed in
    blocks of ``batch_size`` roots, as in :class:`NERD`.

    Parameters
    ----------
    n_components : int, default=128
        Dimension of *each* of the source and target embeddings.
    restart : float, default=0.15
        Probability that a walk stops after each step (the paper's jump factor).
    n_walks : int or None, default=None
        Walks from each node with out-edges (the number of passes over the roots).
        None: ``max(100, ceil(1e6 / n_roots))``, at least a million walks in all (on
        small graphs 100 walks per node leave the vectors near their start).
    n_negative : int, default=5
        Negative pairs per positive pair.
    learning_rate : float, default=0.1
        Initial step of the stochastic gradient descent (larger than NERD's: one
        positive pair per walk; at 0.025 the vectors of Cora are still near their
        start after 100 walks per node).
    batch_size : int or None, default=None
        Roots per mini-batch; None means ``min(1000, n_nodes)``.
    random_state : int, numpy.random.Generator or None, default=None
        An integer makes :meth:`fit` deterministic.
    verbose : bool, default=False
        Show a tqdm progress bar.

    Attributes
    ----------
    source_embedding_ : ndarray of shape (n_nodes, n_components), float32
        Zero for nodes without out-edges (never a root).
    target_embedding_ : ndarray of shape (n_nodes, n_components), float32
        Zero for nodes without in-edges (never reached).
    n_nodes_ : int

    References
    ----------
    C. Zhou, Y. Liu, X. Liu, Z. Liu, J. Gao, "Scalable Graph Embedding for Asymmetric
    Proximity", AAAI 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from digraph_askls.embedding import APP
    >>> edges = np.array([[0, 1], [1, 2], [2, 0], [3, 4], [4, 5], [5, 3]])
    >>> adjacency = sparse.csr_matrix((np.ones(6), edges.T), shape=(6, 6))
    >>> app = APP(n_components=8, n_walks=200, random_state=0)
    >>> app.fit_transform(adjacency).shape
    (6, 16)
    >>> scores = app.source_embedding_ @ app.target_embedding_.T
    >>> bool(scores[0, 1] > scores[0, 4])
    True
    """

    def __init__(self, n_components=128, restart=0.15, n_walks=None, n_negative=5,
                 learning_rate=0.1, batch_size=None, random_state=None, verbose=False):
        self.n_components = n_components
        self.restart = restart
        self.n_walks = n_walks
        self.n_negative = n_negative
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.random_state = random_state
        self.verbose = verbose

    def _checked(self):
        params = {name: check_param(getattr(self, name), name, int, 1)
                  for name in ("n_components", "n_negative")}
        params["n_walks"] = (None if self.n_walks is None
                             else check_param(self.n_walks, "n_walks", int, 1))
        params["batch_size"] = (None if self.batch_size is None
                                else check_param(self.batch_size, "batch_size", int, 1))
        restart = check_param(self.restart, "restart", float, 0.0)
        if not 0.0 < restart <= 1.0:
            raise ValueError(f"restart must be in (0, 1], got {self.restart!r}")
        rate = check_param(self.learning_rate, "learning_rate", float, 0.0)
        if rate == 0.0 or not np.isfinite(rate):
            raise ValueError(f"learning_rate must be positive and finite, got "
                             f"{self.learning_rate!r}")
        return params, restart, rate

    def fit(self, adjacency, y=None):
        """Learn the source and target embeddings of a directed graph.

        Parameters
        ----------
        adjacency : sparse matrix or array-like of shape (n_nodes, n_nodes)
            ``adjacency[i, j]`` is the non-negative weight of the edge ``i -> j``; at
            least one edge.
        y : None
            Ignored; present for the scikit-learn API.

        Returns
        -------
        self : APP
        """
        params, restart, learning_rate = self._checked()
        matrix = check_adjacency(adjacency)
        rng = np.random.default_rng(self.random_state)
        n_nodes, dim = matrix.shape[0], params["n_components"]
        batch_size = params["batch_size"] or min(1000, n_nodes)
        out_edges = NeighborSampler(matrix)
        noise = NodeTable(NeighborSampler(matrix.T.tocsr()).row_weight ** _NOISE_POWER)
        roots = np.flatnonzero(out_edges.row_weight > 0)
        if params["n_walks"] is None:
            params["n_walks"] = max(100, -(-1_000_000 // roots.size))
        source = (rng.random((n_nodes, dim), dtype=np.float32) - 0.5) / dim
        target = np.zeros((n_nodes, dim), dtype=np.float32)
        label = np.zeros(1 + params["n_negative"], dtype=np.float32)
        label[0] = 1.0
        total, done = params["n_walks"] * roots.size, 0
        started = time.perf_counter()
        with tqdm(total=total, disable=not self.verbose, unit="walk", desc="APP") as bar:
            for _ in range(params["n_walks"]):
                order = rng.permutation(roots)
                for block in range(0, order.size, batch_size):
                    centres = order[block:block + batch_size]
                    ends = rooted_walk_ends(centres, out_edges, restart, rng)
                    negatives = noise.draw((centres.size, params["n_negative"]), rng)
                    rate = learning_rate * max(1.0 - done / total, 1e-4)
                    sgd_step(source, target, centres, np.column_stack((ends, negatives)),
                             label, rate)
                    done += centres.size
                    bar.update(centres.size)
        source[out_edges.row_weight == 0] = 0.0
        self.source_embedding_, self.target_embedding_ = source, target
        self.n_nodes_ = n_nodes
        logger.info("APP: %d nodes, %d edges, %d walks in %.1f s", n_nodes, matrix.nnz,
                    total, time.perf_counter() - started)
        return self
