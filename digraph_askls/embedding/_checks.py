"""Checks of the graph and of the parameters shared by the embeddings."""

import numbers

from scipy import sparse

from ..graph import get_adjacency

__all__ = ["check_adjacency", "check_param"]


def check_adjacency(adjacency):
    """The graph as a canonical CSR float64 matrix (row = source), with at least one edge."""
    matrix = sparse.csr_matrix(get_adjacency(adjacency)[0])
    if matrix.nnz == 0:
        raise ValueError("adjacency must have at least one edge, got none")
    return matrix


def check_param(value, name, kind, minimum):
    types = numbers.Integral if kind is int else numbers.Real
    if isinstance(value, bool) or not isinstance(value, types):
        expected = "an integer" if kind is int else "a number"
        raise TypeError(f"{name} must be {expected}, got {value!r}")
    if not value >= minimum:  # also rejects NaN
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return kind(value)
