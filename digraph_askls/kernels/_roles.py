"""Structural-role features: what a node's position in the digraph says about it.

Hubs, authorities, sinks and isolated nodes play different roles whatever their
neighbours' classes: on Wikipedia graphs the traffic of a page shows in how many pages
link to it. These features describe a node by its degrees, reciprocity and the degrees
of its neighbours, standardised so that each counts alike.
"""

import numpy as np
from scipy import sparse

from digraph_askls.graph import get_adjacency
from digraph_askls.graph._features import check_features
from digraph_askls.kernels._factored import FactoredKernel

__all__ = ["ROLE_FEATURES", "get_role_features", "get_role_kernel"]

#: Names of the columns of :func:`get_role_features`.
ROLE_FEATURES = (
    "log in-degree", "log out-degree", "log in-strength", "log out-strength",
    "reciprocity", "self-loop", "mean log in-degree of targets",
    "mean log out-degree of sources", "mean log in-degree of sources",
    "mean log out-degree of targets",
)


def _mean_over_rows(links, values):
    degrees = np.asarray(links.sum(axis=1)).ravel()
    totals = np.asarray(links @ values).ravel()
    out = np.zeros_like(totals)
    np.divide(totals, degrees, out=out, where=degrees > 0)
    return out


def _reference_rows(reference, n_nodes):
    """Row indices whose statistics standardise the features (all rows when None)."""
    if reference is None:
        return slice(None)
    rows = np.asarray(reference)
    if rows.dtype == bool:
        rows = np.flatnonzero(rows)
    if rows.ndim != 1 or rows.size == 0 or rows.dtype.kind not in "iu" or rows.max() >= n_nodes:
        raise ValueError(f"reference must be a non-empty 1-d array of node indices in "
                         f"[0, {n_nodes}), got {reference!r:.80}")
    return rows


def get_role_features(adjacency, standardize=True, features=None, reference=None):
    """Role features of every node, one row per node (columns :data:`ROLE_FEATURES`).

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
    standardize : bool, default=True
        Centre each column and scale it to unit variance (constant columns become 0).
    features : array-like or sparse matrix of shape (n_nodes, n_features), optional
        Node attributes: adds a last column, ``log(1 + sum_j |x_ij|)``, the amount of
        attributes a node has (for bag-of-words, the length of its text), which the
        unit-length rows of the attribute kernels do not see.

    Returns
    -------
    ndarray of shape (n_nodes, 10) or (n_nodes, 11)
        Degrees count distinct neighbours, strengths sum edge weights, reciprocity is
        the share of a node's out-links to other nodes that are returned, and the
        neighbour columns average ``log(1 + degree)`` over a node's targets (out-links)
        or sources (in-links).

    Examples
    --------
    >>> from digraph_askls.kernels import get_role_features
    >>> roles = get_role_features([(0, 1), (1, 0), (2, 1)], standardize=False)
    >>> roles[:, :2].round(2).tolist()       # log(1 + in-degree), log(1 + out-degree)
    [[0.69, 0.69], [1.1, 0.69], [0.0, 0.69]]
    """
    adjacency, _ = get_adjacency(adjacency)
    pattern = sparse.csr_array(adjacency, copy=True)
    pattern.data[:] = 1.0
    reverse = sparse.csr_array(pattern.T)
    in_degree = np.asarray(reverse.sum(axis=1)).ravel()
    out_degree = np.asarray(pattern.sum(axis=1)).ravel()
    in_strength = np.asarray(adjacency.sum(axis=0)).ravel()
    out_strength = np.asarray(adjacency.sum(axis=1)).ravel()
    loops = pattern.diagonal()
    returned = np.asarray(pattern.multiply(reverse).sum(axis=1)).ravel() - loops
    others = out_degree - loops                  # a self-loop is not a returned link
    reciprocity = np.zeros_like(out_degree)
    np.divide(returned, others, out=reciprocity, where=others > 0)
    log_in, log_out = np.log1p(in_degree), np.log1p(out_degree)
    columns = [
        log_in, log_out, np.log1p(in_strength), np.log1p(out_strength), reciprocity,
        (loops > 0).astype(np.float64),
        _mean_over_rows(pattern, log_in), _mean_over_rows(reverse, log_out),
        _mean_over_rows(reverse, log_in), _mean_over_rows(pattern, log_out),
    ]
    X = check_features(features, adjacency.shape[0])
    if X is not None:
        mass = abs(X).sum(axis=1)
        columns.append(np.log1p(np.asarray(mass, dtype=np.float64).ravel()))
    roles = np.column_stack(columns)
    if standardize:
        rows = _reference_rows(reference, roles.shape[0])
        roles = roles - roles[rows].mean(axis=0)
        spread = roles[rows].std(axis=0)
        roles = np.divide(roles, spread, out=np.zeros_like(roles), where=spread > 0)
    return roles


def get_role_kernel(adjacency, features=None, bins=None, reference=None):
    """The kernel of the nodes' role features, as explicit maps.

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
    features : array-like or sparse matrix, optional
        Adds the amount of attributes of each node (see :func:`get_role_features`).
    bins : int >= 2, optional
        None: the linear kernel of the standardised features. An integer: each of
        log in-degree, log out-degree and (with features) log attribute amount is cut
        into ``bins`` quantile bins and one-hot encoded, so that the kernel is 1 for two
        nodes in the same bin and 0 otherwise, summed over the columns: a non-linear
        (step) response to degree and text length.
    reference : array-like of int, optional
        The nodes whose statistics (means and spreads, or bin edges) set the scale of
        the features (all nodes when None; see :func:`get_role_features`).

    Each row is scaled so that the kernel's diagonal averages 1.

    Examples
    --------
    >>> from digraph_askls.kernels import get_role_kernel
    >>> get_role_kernel([(0, 1), (1, 2)]).n_features
    10
    >>> get_role_kernel([(0, 1), (1, 2), (2, 0), (2, 1)], bins=2).to_dense()
    array([[1. , 0.5, 0.5],
           [0.5, 1. , 0. ],
           [0.5, 0. , 1. ]])
    """
    if bins is None:
        roles = get_role_features(adjacency, features=features, reference=reference)
        names = list(ROLE_FEATURES) + (["log attribute amount"] if roles.shape[1] > 10 else [])
        return FactoredKernel(roles / np.sqrt(roles.shape[1]), feature_names=names)
    if not isinstance(bins, (int, np.integer)) or isinstance(bins, bool) or bins < 2:
        raise ValueError(f"bins must be None or an integer >= 2, got {bins!r}")
    raw = get_role_features(adjacency, standardize=False, features=features)
    rows = _reference_rows(reference, raw.shape[0])
    columns = [0, 1] + ([raw.shape[1] - 1] if raw.shape[1] > 10 else [])
    blocks, names = [], []
    for column in columns:
        values = raw[:, column]
        edges = np.unique(np.quantile(values[rows], np.arange(1, bins) / bins))
        codes = np.searchsorted(edges, values, side="left")   # a tie goes below
        blocks.append(np.eye(edges.size + 1)[codes])
        label = (ROLE_FEATURES[column] if column < len(ROLE_FEATURES)
                 else "log attribute amount")
        names.extend(f"{label} bin {b}" for b in range(edges.size + 1))
    maps = np.hstack(blocks) / np.sqrt(len(columns))
    return FactoredKernel(maps, feature_names=names)
