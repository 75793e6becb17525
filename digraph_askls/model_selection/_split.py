"""The protocols of the node-classification literature, as lists of ``(seed, train, test)``."""

import numbers

import numpy as np

__all__ = ["random_splits", "class_splits", "fixed_splits", "multilabel_splits"]


def _check_codes(labels):
    """Class codes of the nodes as a 1-D int array (``-1`` unlabelled), or a clear error."""
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise ValueError(f"labels must be one class code per node (1-D), got shape "
                         f"{labels.shape}")
    if labels.dtype == bool or not np.issubdtype(labels.dtype, np.number):
        raise TypeError(f"labels must be integer class codes (-1 for unlabelled nodes), got "
                        f"dtype {labels.dtype}; encode names with digraph_askls.graph.get_labels")
    if not np.issubdtype(labels.dtype, np.integer):
        whole = np.isfinite(labels) & (labels == np.round(labels))
        if not whole.all():
            raise ValueError(f"labels must be integer class codes (-1 for unlabelled nodes), "
                             f"got {float(labels[~whole][0])!r}")
        labels = labels.astype(np.int64)
    return labels


def _check_n_trials(n_trials):
    """Raise ValueError unless ``n_trials`` is an integer >= 1."""
    if isinstance(n_trials, bool) or not isinstance(n_trials, numbers.Integral) or n_trials < 1:
        raise ValueError(f"n_trials must be an integer >= 1, got {n_trials!r}")


def _per_class_splits(labels, counts, n_trials, random_state):
    """Splits that draw ``counts[c]`` training nodes of the ``c``-th class (by code), the
    other labelled nodes for testing.

    A class with fewer than ``2 * counts[c]`` nodes gives half of them (a class of one node
    none), so that every class keeps test nodes. ``labels`` are checked class codes;
    trial ``t`` draws with ``numpy.random.default_rng([random_state, t])``, class by class.
    """
    labelled = np.flatnonzero(labels >= 0)
    classes = np.unique(labels[labelled])
    base = 0 if random_state is None else int(random_state)
    splits = []
    for trial in range(int(n_trials)):
        rng = np.random.default_rng([base, trial])
        drawn = []
        for label, count in zip(classes, counts):
            members = np.flatnonzero(labels == label)
            drawn.append(rng.choice(members, min(int(count), members.size // 2),
                                    replace=False))
        train = np.sort(np.concatenate(drawn))
        splits.append(((base, trial), train, np.setdiff1d(labelled, train)))
    return splits


def random_splits(labels, train_size=0.6, n_trials=10, random_state=None):
    """Random train/test splits of the labelled nodes, one seed per trial.

    Parameters
    ----------
    labels : ndarray of int
        Class of each node, ``-1`` for unlabelled nodes (never drawn).
    train_size : float
        Fraction of the labelled nodes used for training (the paper: 0.6).
    n_trials : int
        Number of splits.
    random_state : int or None
        Base seed; trial ``t`` uses ``numpy.random.default_rng([random_state, t])``.

    Returns
    -------
    list of (seed, train, test)
        ``seed`` is the pair that reproduces the split; ``train`` and ``test`` are sorted
        node indices.

    Examples
    --------
    >>> import numpy as np
    >>> splits = random_splits(np.array([0, 1, 0, 1, -1]), train_size=0.5, n_trials=2,
    ...                        random_state=0)
    >>> [(len(train), len(test)) for _, train, test in splits]
    [(2, 2), (2, 2)]
    """
    labels = _check_codes(labels)
    if isinstance(train_size, bool) or not isinstance(train_size, numbers.Real) \
            or not 0 < train_size < 1:
        raise ValueError(f"train_size must be a number in (0, 1), got {train_size!r}")
    _check_n_trials(n_trials)
    labelled = np.flatnonzero(labels >= 0)
    n_train = int(round(train_size * labelled.size))
    base = 0 if random_state is None else int(random_state)
    splits = []
    for trial in range(int(n_trials)):
        rng = np.random.default_rng([base, trial])
        perm = rng.permutation(labelled)
        splits.append(((base, trial), np.sort(perm[:n_train]), np.sort(perm[n_train:])))
    return splits


def class_splits(labels, per_class=20, n_trials=10, random_state=None):
    """Random splits with ``per_class`` labelled nodes of every class, the rest for testing.

    The semi-supervised protocol of Planetoid, MagNet and DiGCN (20 labelled nodes per
    class). A class with fewer than ``2 * per_class`` nodes gives half of them (at least
    one) to training, so that every class keeps test nodes; a class of one node is not
    trained on.

    Parameters
    ----------
    labels : ndarray of int
        Class of each node, ``-1`` for unlabelled nodes (never drawn).
    per_class : int, default=20
        Labelled nodes drawn from each class.
    n_trials : int, default=10
        Number of splits.
    random_state : int or None
        Base seed; trial ``t`` uses ``numpy.random.default_rng([random_state, t])``.

    Returns
    -------
    list of (seed, train, test)
        As :func:`random_splits`: the test nodes are all labelled nodes not drawn.

    Examples
    --------
    >>> import numpy as np
    >>> labels = np.array([0] * 10 + [1] * 10 + [2] * 3 + [-1])
    >>> (seed, train, test), = class_splits(labels, per_class=4, n_trials=1, random_state=0)
    >>> np.bincount(labels[train]).tolist(), test.size
    ([4, 4, 1], 14)
    """
    labels = _check_codes(labels)
    if isinstance(per_class, bool) or not isinstance(per_class, numbers.Integral) \
            or per_class < 1:
        raise ValueError(f"per_class must be an integer >= 1, got {per_class!r}")
    _check_n_trials(n_trials)
    n_classes = np.unique(labels[labels >= 0]).size
    return _per_class_splits(labels, np.full(n_classes, int(per_class)), n_trials,
                             random_state)


def fixed_splits(graph, train_on_valid=False):
    """The fixed splits published with a dataset, in the form of :func:`random_splits`.

    Benchmarks such as Chameleon, Squirrel or the Geom-GCN graphs come with 10 fixed
    train / validation / test splits (``graph.splits``); scoring on them makes results
    comparable with the published ones.

    Parameters
    ----------
    graph : Graph
        A graph with ``splits``, e.g. from ``load_dataset("chameleon")``.
    train_on_valid : bool, default=False
        Train on the training and validation nodes together. By default the validation
        nodes are neither trained on nor scored: the classifier sees only the training
        labels, as in the published protocols that keep validation for model selection.

    Returns
    -------
    list of (seed, train, test)
        ``seed`` is ``("fixed", i)`` for ``graph.splits[i]``; ``train`` and ``test``
        are sorted node indices. Pass the list as ``splits=`` to
        :func:`evaluate_node_classifier`, which calls ``make_classifier(i)``.

    Raises
    ------
    ValueError
        If the graph has no fixed splits.

    Examples
    --------
    >>> from digraph_askls.graph import Graph, Split, get_adjacency
    >>> adjacency, nodes = get_adjacency([(0, 1), (1, 2), (2, 3)])
    >>> graph = Graph(adjacency, [0, 1, 0, 1], nodes, ["a", "b"],
    ...               splits=[Split([0, 1], [2], [3])])
    >>> fixed_splits(graph)
    [(('fixed', 0), array([0, 1]), array([3]))]
    >>> fixed_splits(graph, train_on_valid=True)[0][1]
    array([0, 1, 2])
    """
    if not getattr(graph, "splits", None):
        raise ValueError(
            f"expected a graph with fixed splits (graph.splits), got "
            f"{getattr(graph, 'splits', 'no splits attribute')!r:.60} for "
            f"{getattr(graph, 'name', type(graph).__name__)!r}; use random_splits instead"
        )
    triples = []
    for index, (train, valid, test) in enumerate(graph.splits):
        if train_on_valid:
            train = np.union1d(train, valid)
        triples.append((("fixed", index), train, test))
    return triples


def multilabel_splits(label_matrix, train_size=0.5, n_trials=10, random_state=None):
    """Random splits of the nodes that have labels, for several labels per node.

    The protocol of the embedding literature on BlogCatalog, PPI and Flickr (DeepWalk,
    node2vec, NetMF): a random ``train_size`` (10 % to 90 %) of the labelled nodes for
    training, the rest for testing, scored by :func:`~digraph_askls.metrics.top_k_f1`.
    Nodes without a label are never drawn. The draws are those of :func:`random_splits` on
    the labelled nodes.

    Parameters
    ----------
    label_matrix : array-like or sparse matrix of shape (n_nodes, n_labels)
        0/1 indicator (``Graph.label_matrix``).
    train_size : float, default=0.5
    n_trials : int, default=10
    random_state : int or None

    Returns
    -------
    list of (seed, train, test)

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0]])
    >>> [(t.tolist(), s.tolist()) for _, t, s in multilabel_splits(Y, 0.5, 1, 0)]
    [([0, 2], [1, 4])]
    """
    from ..models._targets import check_multilabel

    Y, _ = check_multilabel(label_matrix)
    has_labels = np.where(Y.sum(axis=1) > 0, 0, -1)
    return random_splits(has_labels, train_size=train_size, n_trials=n_trials,
                         random_state=random_state)
