"""Vectorised random draws on a directed graph: weighted neighbours and node tables."""

import numpy as np

__all__ = ["NeighborSampler", "NodeTable", "alternating_walks"]


class NeighborSampler:
    """Draws of one neighbour per node along the rows of a CSR matrix, by edge weight."""

    def __init__(self, matrix):
        self.indptr = matrix.indptr.astype(np.int64)
        self.indices = matrix.indices
        cumulative = np.cumsum(matrix.data)
        self.cumulative = cumulative
        self.row_start = np.concatenate(([0.0], cumulative))[self.indptr[:-1]]
        self.row_weight = np.concatenate(([0.0], cumulative))[self.indptr[1:]] - self.row_start

    def neighbors(self, rows, rng):
        """One neighbour of each row, with probability proportional to edge weight."""
        value = self.row_start[rows] + rng.random(rows.size) * self.row_weight[rows]
        position = np.searchsorted(self.cumulative, value, side="right")
        np.clip(position, self.indptr[rows], self.indptr[rows + 1] - 1, out=position)
        return self.indices[position]


class NodeTable:
    """Draws of nodes with probabilities proportional to non-negative ``weights``."""

    def __init__(self, weights):
        self.cdf = np.cumsum(weights, dtype=np.float64)
        self.last = np.flatnonzero(weights)[-1]  # guards against rounding up to the total

    def draw(self, size, rng):
        """Nodes drawn independently, an array of shape ``size``."""
        value = rng.random(size) * self.cdf[-1]
        return np.minimum(np.searchsorted(self.cdf, value, side="right"), self.last)


def alternating_walks(start, first, second, n_walks, walk_size, rng):
    """Walks that alternate a ``first`` and a ``second`` neighbour step.

    Returns the start nodes, shape (n_walks,), and the ``walk_size`` nodes
    reached by the ``first`` steps, shape (n_walks, walk_size).
    """
    node = starts = start.draw(n_walks, rng)
    reached = np.empty((n_walks, walk_size), dtype=np.int64)
    for step in range(walk_size):
        reached[:, step] = first.neighbors(node, rng)
        if step + 1 < walk_size:
            node = second.neighbors(reached[:, step], rng)
    return starts, reached
