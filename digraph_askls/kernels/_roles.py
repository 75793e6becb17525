"""Structural-role features: what a node's position in the digraph says about it.

Hubs, authorities, sinks and isolated nodes play different roles whatever their
neighbours' classes: on Wikipedia graphs the traffic of a page shows in how many pages
link to it. These features describe a node by its degrees, reciprocity and the degrees
of its neighbours, standardised so that each counts alike.
"""

import numpy as np
from scipy import sparse

from digraph_askls.graph import get_adjacency
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


def get_role_features(adjacency, standardize=True):
    """Role features of every node, one row per node (columns :data:`ROLE_FEATURES`).

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
    standardize : bool, default=True
        Centre each column and scale it to unit variance (constant columns become 0).

    Returns
    -------
    ndarray of shape (n_nodes, 10)
        Degrees count distinct neighbours, strengths sum edge weights, reciprocity is
        the share of a node's out-links to other nodes that are returned, and the neighbour columns
        average ``log(1 + degree)`` over a node's targets (out-links) or sources
        (in-links).

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
    roles = np.column_stack(columns)
    if standardize:
        roles = roles - roles.mean(axis=0)
        spread = roles.std(axis=0)
        roles = np.divide(roles, spread, out=np.zeros_like(roles), where=spread > 0)
    return roles


def get_role_kernel(adjacency):
    """The linear kernel of the standardised role features, as explicit maps.

    Each row is divided by ``sqrt(10)`` so that the kernel's diagonal averages 1.

    Examples
    --------
    >>> from digraph_askls.kernels import get_role_kernel
    >>> get_role_kernel([(0, 1), (1, 2)]).n_features
    10
    """
    roles = get_role_features(adjacency) / np.sqrt(len(ROLE_FEATURES))
    return FactoredKernel(roles, feature_names=ROLE_FEATURES)
