"""The folds of the selection: stratified, every candidate judged on the same ones.

The labelled nodes are dealt once into stratified folds (:func:`make_folds`), in an order
that follows the nodes, not their positions (:func:`node_keys`); the steps that cost per
fold take them joined (:func:`coarsen_folds`). On many labelled nodes, the candidates that
need a decomposition are ranked on a stratified sample (:func:`ranking_sample`).
"""

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state

__all__ = ["coarsen_folds", "make_folds", "node_keys", "ranking_sample"]


def make_folds(codes, n_folds, random_state=None, keys=None):
    """The held-out nodes of each fold, every class dealt out evenly.

    The nodes of each class are shuffled and dealt into the folds in turn (the deal goes
    on from class to class, so the folds' sizes differ by one at most): every fold holds
    about the same share of each class, and the class shares of each fold's training set
    stay those of all the labelled nodes. That matters: a model trained on a set whose
    class shares are off scores the held-out nodes off in proportion, the way
    leave-one-out scores point away from the left-out node's class (see
    :mod:`~digraph_askls.linalg._spectral_folds`).

    ``keys`` (one number per node, see :func:`node_keys`) order the nodes before they
    are shuffled, so that the folds follow the nodes, not their positions: relabelling
    the nodes of a graph permutes the folds with them.

    Parameters
    ----------
    codes : ndarray of int, shape (m,)
    n_folds : int
        At most this many folds; fewer when there are fewer nodes.
    random_state : int, RandomState or None
    keys : ndarray of shape (m,), optional

    Returns
    -------
    list of ndarray of int
        The sorted held-out positions of each fold.

    Examples
    --------
    >>> import numpy as np
    >>> folds = make_folds(np.array([0, 0, 0, 1, 1, 1]), 3, random_state=0)
    >>> sorted(np.concatenate(folds).tolist()), [len(fold) for fold in folds]
    ([0, 1, 2, 3, 4, 5], [2, 2, 2])
    >>> [sorted(np.array([0, 0, 0, 1, 1, 1])[fold].tolist()) for fold in folds]
    [[0, 1], [0, 1], [0, 1]]
    """
    m = codes.size
    n_folds = max(1, min(int(n_folds), m))
    order = np.arange(m) if keys is None else np.argsort(keys, kind="stable")
    shuffled = order[check_random_state(random_state).permutation(m)]
    fold_of = np.empty(m, dtype=int)
    start = 0
    for label in np.unique(codes):
        members = shuffled[codes[shuffled] == label]
        fold_of[members] = (start + np.arange(members.size)) % n_folds
        start = (start + members.size) % n_folds
    return [np.flatnonzero(fold_of == fold) for fold in range(n_folds)]


def coarsen_folds(folds, n_groups):
    """``folds`` joined into at most ``n_groups`` folds (fold ``j`` with ``j + n_groups``,
    ``j + 2 n_groups`` ...): coarser folds whose training sets are unions of the fine
    ones', for the steps that cost per fold."""
    if len(folds) <= n_groups:
        return list(folds)
    return [np.sort(np.concatenate(folds[start::n_groups])) for start in range(n_groups)]


def node_keys(adjacency, features=None, rounds=2):
    """A number per node that does not depend on the node's position: its degrees and a
    random projection of its features, refined ``rounds`` times by the sums of its out-
    and in-neighbours' numbers (in the manner of Weisfeiler and Lehman's colour
    refinement). Nodes alike in all of these share a key; others almost never do.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> A = sparse.csr_array(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]]))
    >>> order = [2, 0, 1]
    >>> bool(np.allclose(node_keys(A[order][:, order]), node_keys(A)[order]))
    True
    """
    adjacency = sparse.csr_array(adjacency, dtype=np.float64)
    out_degree = np.asarray(adjacency.sum(axis=1)).ravel()
    in_degree = np.asarray(adjacency.sum(axis=0)).ravel()
    keys = np.sin(1.3 * out_degree + 0.1) + np.sin(2.9 * in_degree + 0.7)
    if features is not None:
        rng = np.random.default_rng(20261126)
        projection = rng.standard_normal(features.shape[1])
        keys = keys + np.sin(np.asarray(features @ projection, dtype=np.float64).ravel())
    for _ in range(int(rounds)):
        spread = np.sin(7.1 * keys + 0.3)
        keys = keys + 0.5 * np.sin(adjacency @ spread) + 0.25 * np.sin(adjacency.T @ spread)
    # Sums in another order round differently: keep the digits that do not.
    return np.round(keys, 9)


def ranking_sample(codes, random_state, size):
    """Positions of the labelled nodes the candidates are ranked on: all of them, or a
    sample of ``size`` with every class in its share (at least two of each where it has
    two)."""
    m = codes.size
    if m <= size:
        return np.arange(m)
    rng = check_random_state(random_state)
    keep = []
    total = size
    for label in np.unique(codes):
        members = np.flatnonzero(codes == label)
        size = max(min(2, members.size), int(round(total * members.size / m)))
        keep.append(rng.choice(members, size, replace=False))
    return np.sort(np.concatenate(keep))
