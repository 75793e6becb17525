"""Step 3 of the selection, the folds: stratified, every candidate judged on the same
ones.

The labelled nodes are dealt once into stratified folds
(:func:`~digraph_askls.models._folds.make_folds`), in an order that follows the nodes,
not their positions (:func:`node_keys`). On many labelled nodes, the candidates that
need a decomposition are ranked on a stratified sample (:func:`ranking_sample`), with
folds of their own (:func:`selection_folds`).
"""

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state

from .._folds import make_folds

__all__ = ["node_keys", "ranking_sample", "selection_folds", "splitter_folds"]


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


def selection_folds(codes, max_folds, random_state, keys, ranked, splitter=None):
    """The folds of every labelled node, and those of the ranking sample ``ranked``.

    As many folds as the median class has labelled nodes (one of each per fold, where
    few), at most ``max_folds``; the sample's folds are the same when it holds every
    node. With a scikit-learn ``splitter`` (``NodeClassifier(cv=StratifiedKFold(5))``)
    its test sets are the folds (:func:`splitter_folds`).
    """
    if splitter is not None:
        folds = splitter_folds(splitter, codes)
        return folds, (folds if ranked.size == codes.size
                       else splitter_folds(splitter, codes[ranked]))
    n_folds = max(2, min(max_folds, int(np.median(np.bincount(codes)))))
    folds = make_folds(codes, n_folds, random_state, keys)
    if ranked.size == codes.size:
        return folds, folds
    return folds, make_folds(codes[ranked], n_folds, random_state,
                             None if keys is None else keys[ranked])


def splitter_folds(splitter, codes):
    """The sorted test positions of each split of a scikit-learn ``splitter`` (an object
    with ``split(X, y)``) of nodes of classes ``codes``; they must hold every node once.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import StratifiedKFold
    >>> folds = splitter_folds(StratifiedKFold(2), np.array([0, 0, 1, 1]))
    >>> [fold.tolist() for fold in folds]
    [[0, 2], [1, 3]]
    """
    folds = [np.sort(np.asarray(test, dtype=np.int64))
             for _, test in splitter.split(np.zeros((codes.size, 1)), codes)]
    held = np.concatenate(folds) if folds else np.zeros(0, dtype=np.int64)
    if len(folds) < 2 or held.size != codes.size or np.unique(held).size != codes.size:
        raise ValueError(f"cv={splitter!r} must split the labelled nodes into at least 2 "
                         f"test sets that hold every node once (as KFold and "
                         f"StratifiedKFold do); got {len(folds)} test sets holding "
                         f"{np.unique(held).size} distinct of {codes.size} nodes "
                         f"({held.size} in all)")
    return folds
