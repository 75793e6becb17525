"""Every split of labelled samples into folds, in one place.

:func:`make_folds` deals each class's samples into stratified folds (the selection's
folds, judged by every candidate, :mod:`~digraph_askls.models.selection`);
:func:`coarsen_folds` joins folds for the steps that cost per fold; :func:`kfold_splits`
gives scikit-learn's stratified k-fold splits (the stacking folds of
:class:`~digraph_askls.AsKLSClassifier`, the folds of
:class:`~digraph_askls.models.NodeClassifierCV`).
"""

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils import check_random_state

__all__ = ["coarsen_folds", "kfold_splits", "make_folds"]


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


def kfold_splits(codes, n_folds, random_state=None):
    """``(train, valid)`` positions of scikit-learn's shuffled k-fold splits: stratified
    when every class has ``n_folds`` samples, else plain (and at most one fold per
    sample).

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([0, 0, 1, 1])
    >>> [sorted(codes[valid].tolist()) for _, valid in kfold_splits(codes, 2, random_state=0)]
    [[0, 1], [0, 1]]
    """
    if np.bincount(codes).min() >= n_folds:
        splitter = StratifiedKFold(n_folds, shuffle=True, random_state=random_state)
    else:
        splitter = KFold(min(n_folds, codes.size), shuffle=True, random_state=random_state)
    return list(splitter.split(np.zeros(codes.size), codes))
