"""The harness's protocols and references, beside the library's splits and metrics.

* :func:`check_protocol`: the table runners' check of ``n_trials`` and ``cv``, before hours
  of features or searches;
* :func:`long_tail_splits`: the long-tail protocol of the class-imbalanced papers (few
  labelled nodes in the last classes);
* :func:`planetoid_long_tail_splits`: the same on the Planetoid public split, as GraphENS
  and TAM run it (their minority classes, 500 validation and 1,000 test nodes);
* :func:`has_twin` and :func:`twin_baseline`: nodes with the same links as a labelled node,
  and the reference that copies their labels (duplicated pages of Chameleon and Squirrel);
* :func:`linear_reference_features`: the propagated features of the linear reference set
  beside the default on graphs with node attributes.

The library's protocols (:mod:`digraph_askls.model_selection`) draw the splits of the
result tables; these functions are the harness's own and are not part of the library.
"""

import numbers

import numpy as np
from scipy import sparse
from sklearn.preprocessing import normalize

from digraph_askls.graph import get_adjacency
from digraph_askls.graph._features import check_features
from digraph_askls.kernels._attributes import _mean_operator
from digraph_askls.kernels._smoothed import normalized_undirected
from digraph_askls.model_selection._split import _check_codes, _check_n_trials, _per_class_splits

__all__ = ["PLANETOID_MINORITIES", "check_protocol", "has_twin", "linear_reference_features",
           "long_tail_splits", "planetoid_long_tail_splits", "twin_baseline"]

#: The minority classes of GraphENS (Park et al., ICLR 2022) and TAM (Song et al., ICML
#: 2022) on the Planetoid split: the last three classes in PyTorch Geometric's order, which
#: is the order of the one-hot columns of the Planetoid files (Cora: Theory,
#: Reinforcement_Learning, Genetic_Algorithms, Neural_Networks, Probabilistic_Methods,
#: Case_Based, Rule_Learning, of 351, 217, 418, 818, 426, 298 and 180 nodes; CiteSeer: AI,
#: ML, IR, DB, Agents, HCI, of 264 (249 and 15 featureless), 590, 668, 701, 596 and 508),
#: by their LINQS names.
PLANETOID_MINORITIES = {"cora": ("Probabilistic_Methods", "Case_Based", "Rule_Learning"),
                        "citeseer": ("DB", "Agents", "HCI")}


def check_protocol(n_trials, cv=None):
    """Raise ValueError unless ``n_trials >= 1`` and ``cv`` (if given) ``>= 2`` are integers.

    The table runners call it first, before hours of features or searches.
    """
    _check_n_trials(n_trials)
    if cv is not None and (isinstance(cv, bool) or not isinstance(cv, numbers.Integral)
                           or cv < 2):
        raise ValueError(f"cv must be an integer >= 2, got {cv!r}")


def long_tail_splits(labels, per_class=20, per_minority=2, n_minority=3, n_trials=10,
                     random_state=None):
    """Random splits with few labelled nodes of the last classes: the long-tail protocol.

    The semi-supervised class-imbalanced protocol of GraphSMOTE (Zhao et al., WSDM 2021),
    GraphENS (Park et al., ICLR 2022) and TAM (Song et al., ICML 2022): ``per_class``
    labelled nodes of every class but the last ``n_minority`` (by class code), which get
    ``per_minority`` each; an imbalance ratio of ``per_class / per_minority`` (10 with the
    defaults). Every labelled node not drawn is a test node, so the test nodes keep the
    graph's own class shares; score them with a measure that weighs the classes alike
    (balanced accuracy, macro-F1).

    Parameters
    ----------
    labels : ndarray of int
        Class of each node, ``-1`` for unlabelled nodes (never drawn).
    per_class, per_minority : int, default=20, 2
        Labelled nodes drawn from each majority and each minority class. A class with
        fewer than twice as many nodes gives half of them (at least one), as in
        :func:`~digraph_askls.model_selection.class_splits`.
    n_minority : int, default=3
        How many classes, the last by class code, are the minorities.
    n_trials : int, default=10
    random_state : int or None
        Base seed; trial ``t`` uses ``numpy.random.default_rng([random_state, t])``.

    Returns
    -------
    list of (seed, train, test)
        As :func:`~digraph_askls.model_selection.random_splits`.

    Examples
    --------
    >>> import numpy as np
    >>> labels = np.repeat(np.arange(5), 30)
    >>> (_, train, test), = long_tail_splits(labels, n_trials=1, random_state=0)
    >>> np.bincount(labels[train]).tolist(), test.size
    ([15, 15, 2, 2, 2], 114)
    """
    labels = _check_codes(labels)
    for name, value, low in (("per_class", per_class, 1), ("per_minority", per_minority, 1),
                             ("n_minority", n_minority, 0)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    _check_n_trials(n_trials)
    n_classes = np.unique(labels[labels >= 0]).size
    if n_minority >= n_classes:
        raise ValueError(f"n_minority must leave at least one majority class: the labels "
                         f"have {n_classes} classes, got n_minority={n_minority}")
    counts = np.where(np.arange(n_classes) >= n_classes - n_minority, per_minority, per_class)
    return _per_class_splits(labels, counts, n_trials, random_state)


def planetoid_long_tail_splits(labels, split, minority, per_minority=2, n_trials=10,
                               random_state=None):
    """The long-tail protocol on a public split: few labelled nodes of a few classes.

    The protocol of GraphENS (Park et al., ICLR 2022) and TAM (Song et al., ICML 2022) on
    the Planetoid split (:func:`~digraph_askls.datasets.load_planetoid_split`): every
    training node of the split is labelled, except in the ``minority`` classes, which
    keep ``per_minority`` of theirs (2 of 20: an imbalance ratio of 10); the validation
    and test nodes are the split's, the same in every trial. Trial ``t`` draws the kept
    nodes with ``numpy.random.default_rng([random_state, t])``: for each minority class in
    the order given, ``per_minority`` of its training nodes (sorted by position) without
    replacement.

    Parameters
    ----------
    labels : ndarray of int
        Class of each node.
    split : Split
        The public split (``train``, ``valid``, ``test`` node positions).
    minority : sequence of int
        The class codes of the minority classes (:data:`PLANETOID_MINORITIES` names them).
    per_minority : int, default=2
        Training nodes kept in each minority class (all of them where it has fewer).
    n_trials : int, default=10
    random_state : int or None
        Base seed of the draws.

    Returns
    -------
    list of (seed, train, valid, test)
        ``seed`` is ``[random_state, t]``; ``train`` sorted.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.graph import Split
    >>> labels = np.repeat(np.arange(3), 10)
    >>> split = Split(np.array([0, 1, 2, 10, 11, 12, 20, 21, 22]), np.array([3, 13, 23]),
    ...               np.array([4, 14, 24]))
    >>> (_, train, valid, test), = planetoid_long_tail_splits(
    ...     labels, split, minority=[2], per_minority=1, n_trials=1, random_state=0)
    >>> np.bincount(labels[train]).tolist(), valid.tolist()
    ([3, 3, 1], [3, 13, 23])
    """
    labels = _check_codes(labels)
    if isinstance(per_minority, bool) or not isinstance(per_minority, numbers.Integral) \
            or per_minority < 1:
        raise ValueError(f"per_minority must be an integer >= 1, got {per_minority!r}")
    _check_n_trials(n_trials)
    train = np.sort(np.asarray(split.train, dtype=np.int64))
    minority = [int(code) for code in minority]
    present = set(labels[train].tolist())
    if not minority or any(code not in present for code in minority):
        raise ValueError(f"minority must name classes with training nodes in the split "
                         f"(codes {sorted(present)}), got {minority}")
    if len(present - set(minority)) < 1:
        raise ValueError("minority must leave at least one majority class")
    majority = train[~np.isin(labels[train], minority)]
    trials = []
    for trial in range(n_trials):
        seed = [random_state, trial] if random_state is not None else None
        rng = np.random.default_rng(seed)
        kept = [majority]
        for code in minority:
            pool = train[labels[train] == code]
            kept.append(rng.choice(pool, min(per_minority, pool.size), replace=False))
        trials.append((seed, np.sort(np.concatenate(kept)),
                       np.asarray(split.valid, dtype=np.int64),
                       np.asarray(split.test, dtype=np.int64)))
    return trials


def _link_groups(adjacency):
    """A group number per node for its set of out-links and one for its set of in-links:
    two nodes share a number when their non-empty sets of neighbours are identical; -1
    for a node without links that way. Each set is hashed as two sums of random 64-bit
    words, one per neighbour, with its size: no loop over pairs of nodes."""
    adjacency = sparse.csr_array(adjacency)
    if adjacency.ndim != 2 or adjacency.shape[0] != adjacency.shape[1]:
        raise ValueError(f"expected a square adjacency matrix, got shape {adjacency.shape}")
    words = np.random.default_rng(0).integers(0, 2**63, (2, adjacency.shape[0]),
                                              dtype=np.uint64)
    groups = []
    for matrix in (adjacency, adjacency.T.tocsr()):
        matrix = sparse.csr_array(matrix, copy=True)
        matrix.sum_duplicates()
        sizes = np.diff(matrix.indptr)
        rows = np.repeat(np.arange(matrix.shape[0]), sizes)
        keys = np.zeros((matrix.shape[0], 3), dtype=np.uint64)
        for column in range(2):
            np.add.at(keys[:, column], rows, words[column][matrix.indices])
        keys[:, 2] = sizes
        _, number = np.unique(keys, axis=0, return_inverse=True)
        groups.append(np.where(sizes > 0, number.ravel(), -1))
    return groups


def _twin_votes(adjacency, labels, train, nodes):
    """Labels of each node's twins among ``train`` (itself left out), as vote counts per
    class: one (n_nodes, n_classes) array for the out-link twins, one for the in-link."""
    labels = _check_codes(labels)
    train = np.asarray(train, dtype=np.int64)
    nodes = np.asarray(nodes, dtype=np.int64)
    if train.size and labels[train].min() < 0:
        raise ValueError("expected labelled training nodes, got a node of label -1")
    n_classes = int(labels.max()) + 1
    votes = []
    for group in _link_groups(adjacency):
        counts = np.zeros((group.max() + 2, n_classes), dtype=np.int64)
        np.add.at(counts, (group[train], labels[train]), 1)
        counts[-1] = 0                                  # the row of "no links"
        mine = counts[group[nodes]]
        own = np.isin(nodes, train)
        mine[np.flatnonzero(own), labels[nodes[own]]] -= 1
        votes.append(mine)
    return votes


def has_twin(adjacency, train, nodes):
    """Whether each of ``nodes`` has a *twin* among the nodes ``train``: another node with
    the same non-empty set of out-links, or the same non-empty set of in-links.

    Duplicated pages make such twins common in some benchmarks (about 80 % of the nodes
    of Chameleon and Squirrel; Platonov et al., ICLR 2023), where copying a twin's label
    scores well without learning anything (:func:`twin_baseline`).

    Parameters
    ----------
    adjacency : sparse matrix of shape (n_nodes, n_nodes)
        ``adjacency[i, j] != 0`` for a link ``i -> j``; weights are ignored.
    train : array of int
        The labelled nodes a twin may be.
    nodes : array of int
        The nodes to look up (a node is not its own twin).

    Returns
    -------
    numpy.ndarray of bool, shape (len(nodes),)

    Examples
    --------
    >>> from scipy import sparse
    >>> # nodes 0 and 1 both link to 2 and 3; node 4 links to 3 alone
    >>> adjacency = sparse.csr_array(([1] * 5, ([0, 0, 1, 1, 4], [2, 3, 2, 3, 3])),
    ...                              shape=(5, 5))
    >>> has_twin(adjacency, train=[0], nodes=[0, 1, 4]).tolist()
    [False, True, False]
    """
    labels = np.zeros(sparse.csr_array(adjacency).shape[0], dtype=np.int64)
    return np.logical_or(*(votes.sum(axis=1) > 0
                           for votes in _twin_votes(adjacency, labels, train, nodes)))


def twin_baseline(adjacency, labels, train, nodes):
    """Predict by copying labels of twins: the reference a node classifier must beat on
    graphs with duplicated nodes.

    Each node of ``nodes`` takes the majority label of the training nodes that have the
    same non-empty set of out-links (ties: the lower class code); failing such nodes,
    of those with the same non-empty set of in-links; failing those too, the majority
    class of the training nodes. Nothing is fitted and no attribute is read.

    Parameters
    ----------
    adjacency : sparse matrix of shape (n_nodes, n_nodes)
        ``adjacency[i, j] != 0`` for a link ``i -> j``; weights are ignored.
    labels : array of int, shape (n_nodes,)
        Class codes; only those of ``train`` are read.
    train : array of int
        The labelled nodes.
    nodes : array of int
        The nodes to predict.

    Returns
    -------
    numpy.ndarray of int, shape (len(nodes),)

    See Also
    --------
    has_twin : which nodes have a twin to copy.

    Examples
    --------
    >>> from scipy import sparse
    >>> # 0 and 1 link to 2 and 3; 4 and 5 are linked from 2 alone; 6 has no link
    >>> adjacency = sparse.csr_array(([1] * 6, ([0, 0, 1, 1, 2, 2], [2, 3, 2, 3, 4, 5])),
    ...                              shape=(7, 7))
    >>> labels = [1, 1, 2, 2, 0, 0, 2]
    >>> twin_baseline(adjacency, labels, train=[0, 2, 3, 5], nodes=[1, 4, 6]).tolist()
    [1, 0, 2]
    """
    labels = _check_codes(labels)
    train = np.asarray(train, dtype=np.int64)
    if train.size == 0:
        raise ValueError("expected at least one training node, got none")
    out_votes, in_votes = _twin_votes(adjacency, labels, train, nodes)
    majority = int(np.argmax(np.bincount(labels[train])))
    predicted = np.full(len(out_votes), majority, dtype=np.int64)
    for votes in (in_votes, out_votes):                 # out-links win: applied last
        found = votes.sum(axis=1) > 0
        predicted[found] = votes[found].argmax(axis=1)
    return predicted


def linear_reference_features(adjacency, features):
    """The propagated features of the linear reference: ``[X, P_out X, P_in X, S^2 X]``.

    The feature map of the baseline that users set beside :class:`~digraph_askls.NodeClassifier` on
    graphs with node attributes (SGC / SIGN style): a logistic regression on it, e.g.
    scikit-learn's ``LogisticRegression(C=10, max_iter=500)``, is what
    ``benchmarks/bench_linear_reference.py`` measures against the default.

    * ``X``: the attributes, each row scaled to unit L1 norm (a row of zeros stays zero);
    * ``P_out X = D_out^-1 A X``: the mean of the rows of a node's out-neighbours (``A``'s
      row is the source), zeros for a node without out-links;
    * ``P_in X = D_in^-1 A^T X``: the same over in-neighbours;
    * ``S^2 X``, ``S = D^-1/2 (A + A^T + I) D^-1/2``: two steps of the graph convolution
      on the undirected graph with self-loops.

    Each link counts once whatever its weight, and an explicit self-loop is no
    neighbour of its node in ``P_out`` and ``P_in`` (the means of the library's attribute
    kernels). Every row of the stacked map is then scaled to unit Euclidean length.

    Parameters
    ----------
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
    features : array-like or sparse matrix of shape (n_nodes, n_features)

    Returns
    -------
    ndarray or sparse CSR array of shape (n_nodes, 4 * n_features)
        Sparse when ``features`` is sparse.

    Examples
    --------
    >>> import numpy as np
    >>> Z = linear_reference_features([(0, 1), (0, 2)], np.eye(3))
    >>> Z.shape, bool(np.allclose(np.linalg.norm(Z, axis=1), 1.0))
    ((3, 12), True)
    >>> Z[0, 3:6] / Z[0, 3:6].sum()            # node 0 averages nodes 1 and 2
    array([0. , 0.5, 0.5])
    """
    adjacency, _ = get_adjacency(adjacency)
    X = check_features(features, adjacency.shape[0])
    if X is None:
        raise ValueError("the linear reference needs node features, got features=None")
    X = normalize(X, norm="l1")
    smooth = normalized_undirected(adjacency)
    blocks = [X, _mean_operator(adjacency, self_loops=False) @ X,
              _mean_operator(adjacency.T, self_loops=False) @ X, smooth @ (smooth @ X)]
    stacked = (sparse.hstack(blocks, format="csr") if sparse.issparse(X)
               else np.hstack(blocks))
    return normalize(stacked, norm="l2")
