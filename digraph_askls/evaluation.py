"""Evaluation: splits of the labelled nodes and the scores of a node classifier on them.

The protocols of the node-classification literature, as lists of ``(seed, train, test)``:

* :func:`random_splits`: a fraction of the labelled nodes for training (the paper: 60 %);
* :func:`class_splits`: a number of labelled nodes per class (Planetoid: 20);
* :func:`fixed_splits`: the splits published with a dataset (Chameleon, Squirrel, ...).

:func:`evaluate_node_classifier` fits a classifier on each split and records micro- and
macro-F1 and seconds (:class:`TrialResults`).

Examples
--------
>>> from digraph_askls import NodeClassifier
>>> from digraph_askls.datasets import make_directed_sbm
>>> from digraph_askls.evaluation import class_splits, evaluate_node_classifier
>>> adjacency, labels = make_directed_sbm(300, 3, 8, p_in=0.6, random_state=0)
>>> splits = class_splits(labels, per_class=10, n_trials=2, random_state=0)
>>> results = evaluate_node_classifier(lambda seed: NodeClassifier(random_state=seed),
...                                    adjacency, labels, splits=splits, verbose=False)
>>> len(results.micro_f1), min(results.micro_f1) > 0.5
(2, True)
"""

import inspect
import logging
import numbers
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from sklearn.metrics import f1_score
from sklearn.preprocessing import normalize
from tqdm.auto import tqdm

from .graph import get_adjacency
from .graph._features import check_features
from .kernels import NamedKernel, SumKernel
from .kernels._attributes import _mean_operator
from .kernels._smoothed import normalized_undirected

__all__ = ["random_splits", "class_splits", "fixed_splits", "evaluate_node_classifier",
           "TrialResults", "kernel_family", "takes_valid", "linear_reference_features",
           "expected_calibration_error", "multilabel_splits", "top_k_f1", "twin_baseline",
           "has_twin", "long_tail_splits"]

logger = logging.getLogger(__name__)


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


def check_protocol(n_trials, cv=None):
    """Raise ValueError unless ``n_trials >= 1`` and ``cv`` (if given) ``>= 2`` are integers.

    The table runners call it first, before hours of features or searches.
    """
    if isinstance(n_trials, bool) or not isinstance(n_trials, numbers.Integral) or n_trials < 1:
        raise ValueError(f"n_trials must be an integer >= 1, got {n_trials!r}")
    if cv is not None and (isinstance(cv, bool) or not isinstance(cv, numbers.Integral)
                           or cv < 2):
        raise ValueError(f"cv must be an integer >= 2, got {cv!r}")


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
    check_protocol(n_trials)
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
    check_protocol(n_trials)
    labelled = np.flatnonzero(labels >= 0)
    classes = np.unique(labels[labelled])
    base = 0 if random_state is None else int(random_state)
    splits = []
    for trial in range(int(n_trials)):
        rng = np.random.default_rng([base, trial])
        drawn = []
        for label in classes:
            members = np.flatnonzero(labels == label)
            size = min(int(per_class), members.size // 2)
            drawn.append(rng.choice(members, size, replace=False))
        train = np.sort(np.concatenate(drawn))
        splits.append(((base, trial), train, np.setdiff1d(labelled, train)))
    return splits


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
        :func:`class_splits`.
    n_minority : int, default=3
        How many classes, the last by class code, are the minorities.
    n_trials : int, default=10
    random_state : int or None
        Base seed; trial ``t`` uses ``numpy.random.default_rng([random_state, t])``.

    Returns
    -------
    list of (seed, train, test)
        As :func:`random_splits`.

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
    check_protocol(n_trials)
    labelled = np.flatnonzero(labels >= 0)
    classes = np.unique(labels[labelled])
    if n_minority >= classes.size:
        raise ValueError(f"n_minority must leave at least one majority class: the labels "
                         f"have {classes.size} classes, got n_minority={n_minority}")
    counts = np.where(np.arange(classes.size) >= classes.size - n_minority, per_minority,
                      per_class)
    base = 0 if random_state is None else int(random_state)
    splits = []
    for trial in range(int(n_trials)):
        rng = np.random.default_rng([base, trial])
        drawn = []
        for label, count in zip(classes, counts):
            members = np.flatnonzero(labels == label)
            size = max(1, min(int(count), members.size // 2)) if members.size > 1 else 0
            drawn.append(rng.choice(members, size, replace=False))
        train = np.sort(np.concatenate(drawn))
        splits.append(((base, trial), train, np.setdiff1d(labelled, train)))
    return splits


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

    The feature map of the baseline that users set beside :class:`NodeClassifier` on
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
    >>> from digraph_askls.evaluation import linear_reference_features
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


@dataclass
class TrialResults:
    """Scores of one method over the trials of a protocol.

    ``kernels`` and ``gammas`` hold, per trial, the kernel family and gamma that a
    selecting classifier (:class:`NodeClassifier`) chose; None for other classifiers.
    """

    name: str
    micro_f1: list = field(default_factory=list)
    macro_f1: list = field(default_factory=list)
    seconds: list = field(default_factory=list)
    kernels: list = field(default_factory=list)
    gammas: list = field(default_factory=list)

    def summary(self):
        """Mean and standard deviation of each score, the mean time per trial, and how
        often each kernel family was selected (None when nothing was selected)."""
        def stats(values):
            values = np.asarray(values, dtype=float)
            return (float(values.mean()), float(values.std())) if values.size else (np.nan,) * 2

        micro, macro, seconds = stats(self.micro_f1), stats(self.macro_f1), stats(self.seconds)
        chosen = Counter(kernel for kernel in self.kernels if kernel is not None)
        return {"method": self.name, "trials": len(self.micro_f1),
                "micro_f1_mean": micro[0], "micro_f1_std": micro[1],
                "macro_f1_mean": macro[0], "macro_f1_std": macro[1],
                "seconds_per_trial": seconds[0],
                "selected_kernels": dict(chosen.most_common()) if chosen else None}

    def record(self, y_true, y_pred, seconds, kernel=None, gamma=None):
        self.micro_f1.append(float(f1_score(y_true, y_pred, average="micro")))
        self.macro_f1.append(float(f1_score(y_true, y_pred, average="macro")))
        self.seconds.append(float(seconds))
        self.kernels.append(kernel)
        self.gammas.append(None if gamma is None else float(gamma))


def kernel_family(recipe):
    """A short name of a kernel recipe: its repr without default parameters, the registry
    name of a kernel given by name (``"ppr"``), or its weighted parts for a sum.

    Examples
    --------
    >>> from digraph_askls.kernels import RoleKernel, WalkKernel
    >>> kernel_family(WalkKernel()), kernel_family(WalkKernel() + 0.5 * RoleKernel(bins=8))
    ('WalkKernel()', 'WalkKernel() + 0.5 RoleKernel(bins=8)')
    """
    if isinstance(recipe, SumKernel):
        return " + ".join(kernel_family(part) if weight == 1 else
                          f"{weight:g} {kernel_family(part)}" for weight, part in recipe.parts)
    if isinstance(recipe, NamedKernel):
        return recipe.name
    return " ".join(repr(recipe).split())


def _selection(classifier):
    """The (kernel family, gamma) a fitted classifier selected, or (None, None)."""
    selection = getattr(classifier, "selection_", None)
    if not isinstance(selection, dict) or "kernel" not in selection:
        return None, None
    return kernel_family(selection["kernel"]), selection.get("gamma")


def takes_features(classifier):
    """Whether ``classifier.fit`` accepts node attributes (a ``features`` keyword)."""
    try:
        return "features" in inspect.signature(classifier.fit).parameters
    except (TypeError, ValueError):      # builtins or C callables without a signature
        return False


def takes_valid(classifier):
    """Whether ``classifier.fit`` accepts validation nodes (a ``valid`` keyword)."""
    try:
        return "valid" in inspect.signature(classifier.fit).parameters
    except (TypeError, ValueError):
        return False


def _run_trial(make_classifier, adjacency, labels, seed, train, test, features=None,
               valid=None):
    known = np.full(labels.size, -1)
    known[train] = labels[train]
    start = time.perf_counter()
    classifier = make_classifier(seed[1])
    options = {}
    if features is not None and takes_features(classifier):
        options["features"] = features
    if valid is not None and takes_valid(classifier):
        # Only a classifier that holds validation nodes out of training sees their labels.
        known[valid] = labels[valid]
        options["valid"] = valid
    classifier.fit(adjacency, known, **options)
    predicted = classifier.predict(test)
    return predicted, time.perf_counter() - start, *_selection(classifier)


def evaluate_node_classifier(make_classifier, adjacency, labels, *, splits, name="AsK-LS",
                             features=None, verbose=True, n_jobs=None, valid=None):
    """Fit and score a node classifier on each split.

    Parameters
    ----------
    make_classifier : callable
        ``make_classifier(seed)`` returns an unfitted classifier with ``fit(graph,
        labels)`` and ``predict(nodes)`` (the NodeClassifier protocol).
    adjacency : sparse matrix
        The graph (row = source).
    labels : ndarray of int
        Classes of all nodes (``-1`` unlabelled).
    splits : list
        Output of :func:`random_splits` or :func:`fixed_splits`.
    name : str
        Method name in the results.
    features : array-like or sparse matrix, optional
        Node attributes, in node order. They are passed as ``fit(..., features=features)``
        to classifiers whose ``fit`` takes a ``features`` keyword (:class:`NodeClassifier`);
        structure-only classifiers (the scikit-network peers) are fitted without them.
    verbose : bool
        Show a progress bar.
    n_jobs : int, optional
        Trials run at once through :class:`joblib.Parallel` (None: one at a time, in this
        process). Inside ``with joblib.parallel_backend("dask"):`` and a
        ``dask.distributed.Client`` the trials run on the cluster; the scores are the
        same as in the serial run, only ``seconds`` differ.
    valid : list of arrays, optional
        Validation nodes of each split, in the order of ``splits`` (e.g. ``[split.valid
        for split in graph.splits]``). Classifiers whose ``fit`` takes a ``valid`` keyword
        get them with their labels: :class:`~digraph_askls.NodeClassifier` chooses its
        kernel, gamma and merge on them, the GNN peers choose their epoch; neither fits
        them. The others never see them.

    Returns
    -------
    TrialResults

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls import NodeClassifier
    >>> from digraph_askls.graph import get_adjacency
    >>> adjacency, _ = get_adjacency([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)])
    >>> labels = np.array([0, 0, 0, 1, 1, 1])
    >>> features = np.array([[1.0, 0.0]] * 3 + [[0.0, 1.0]] * 3)
    >>> splits = [((0, 0), np.array([0, 1, 3, 4]), np.array([2, 5]))]
    >>> results = evaluate_node_classifier(
    ...     lambda seed: NodeClassifier(merge="average", random_state=seed), adjacency,
    ...     labels, splits=splits, features=features, verbose=False)
    >>> results.micro_f1
    [1.0]
    """
    labels = _check_codes(labels)
    results = TrialResults(name)
    valid = [None] * len(splits) if valid is None else list(valid)
    if len(valid) != len(splits):
        raise ValueError(f"expected validation nodes for each of the {len(splits)} splits, "
                         f"got {len(valid)}")
    if n_jobs is None:
        outputs = (_run_trial(make_classifier, adjacency, labels, *split, features, nodes)
                   for split, nodes in zip(splits, valid))
    else:
        from joblib import Parallel, delayed

        # Results come back in order as they finish, so the bar counts finished trials,
        # not dispatched ones.
        outputs = Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(_run_trial)(make_classifier, adjacency, labels, *split, features, nodes)
            for split, nodes in zip(splits, valid))
    progress = tqdm(outputs, total=len(splits), desc=name, disable=not verbose, leave=False)
    for (seed, _, test), (predicted, seconds, kernel, gamma) in zip(splits, progress):
        results.record(labels[test], predicted, seconds, kernel, gamma)
        logger.info("%s trial %s: micro-F1 %.4f", name, seed, results.micro_f1[-1])
    return results


def expected_calibration_error(y_true, proba, n_bins=10):
    """Expected calibration error of class probabilities (Guo et al., ICML 2017).

    The samples are binned by their confidence (the largest probability) into ``n_bins``
    equal intervals of ``[0, 1]``, ``((b - 1) / n_bins, b / n_bins]`` (a confidence of
    0 falls in the first); the error is the mean over the samples of
    ``|accuracy(bin) - mean confidence(bin)|`` of their bin, that is
    ``sum_b |B_b| / n * |acc(B_b) - conf(B_b)|``. The prediction is the argmax (the
    first column on ties).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The true classes as column indices of ``proba`` (``0 .. k - 1``).
    proba : array-like of shape (n, k), or (n,)
        Class probabilities; a vector is the probability of class 1 of two.
    n_bins : int, default=10

    Returns
    -------
    float

    Examples
    --------
    >>> round(expected_calibration_error([0, 1, 1], [[0.9, 0.1], [0.2, 0.8], [0.7, 0.3]]), 6)
    0.333333
    """
    proba = np.asarray(proba, dtype=np.float64)
    if proba.ndim == 1:
        proba = np.column_stack([1.0 - proba, proba])
    y_true = np.asarray(y_true)
    if proba.ndim != 2 or y_true.shape != (proba.shape[0],) or proba.shape[0] == 0:
        raise ValueError(f"proba must be (n, k) with one true class per row, got proba "
                         f"of shape {proba.shape} and y_true of shape {y_true.shape}")
    if not np.issubdtype(y_true.dtype, np.integer) or y_true.min() < 0 or (
            y_true.max() >= proba.shape[1]):
        raise ValueError(f"y_true must hold the column indices 0 .. {proba.shape[1] - 1} of "
                         f"proba, got {y_true.dtype} values")
    if not isinstance(n_bins, numbers.Integral) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    confidence = proba.max(axis=1)
    correct = proba.argmax(axis=1) == y_true
    # Right-closed intervals: b / n_bins is the float nearest each edge, as a user writes it.
    bins = np.searchsorted(np.arange(1, n_bins) / n_bins, confidence, side="left")
    gap = np.abs(np.bincount(bins, weights=correct, minlength=n_bins)
                 - np.bincount(bins, weights=confidence, minlength=n_bins))
    return float(gap.sum() / y_true.size)


def multilabel_splits(label_matrix, train_size=0.5, n_trials=10, random_state=None):
    """Random splits of the nodes that have labels, for several labels per node.

    The protocol of the embedding literature on BlogCatalog, PPI and Flickr (DeepWalk,
    node2vec, NetMF): a random ``train_size`` (10 % to 90 %) of the labelled nodes for
    training, the rest for testing, scored by :func:`top_k_f1`. Nodes without a label are
    never drawn. The draws are those of :func:`random_splits` on the labelled nodes.

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
    from .models._targets import check_multilabel

    Y, _ = check_multilabel(label_matrix)
    has_labels = np.where(Y.sum(axis=1) > 0, 0, -1)
    return random_splits(has_labels, train_size=train_size, n_trials=n_trials,
                         random_state=random_state)


def top_k_f1(y_true, scores):
    """Micro- and macro-F1 of top-k predictions, each node given as many labels as it has.

    The scoring of the embedding literature's multi-label protocol: node ``i`` with
    ``k_i`` true labels is predicted the ``k_i`` labels of highest ``scores[i]`` (ties
    to the lower column), then scikit-learn's ``f1_score`` with ``average="micro"`` and
    ``"macro"`` (a label neither true nor predicted on the test nodes scores 0).

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n, n_labels)
        0/1 indicator of the test nodes.
    scores : array-like of shape (n, n_labels)
        Any scores (decision values, probabilities), higher meaning more likely.

    Returns
    -------
    (micro_f1, macro_f1) : tuple of float

    Examples
    --------
    >>> top_k_f1([[1, 0, 1], [0, 1, 0]], [[0.9, 0.5, 0.1], [0.2, 0.7, 0.1]])
    (0.6666666666666666, 0.5555555555555555)
    """
    from .models._targets import check_multilabel

    Y, _ = check_multilabel(y_true)
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape != Y.shape:
        raise ValueError(f"scores must have the shape of y_true {Y.shape}, got {scores.shape}")
    order = np.argsort(-scores, axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(Y.shape[1])[None, :].repeat(len(Y), 0), axis=1)
    predicted = (rank < Y.sum(axis=1, keepdims=True)).astype(int)
    return (float(f1_score(Y, predicted, average="micro", zero_division=0)),
            float(f1_score(Y, predicted, average="macro", zero_division=0)))
