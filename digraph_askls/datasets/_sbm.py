"""Directed stochastic block models with a one-way flow between classes: one class per
node, or one class in each of several independent partitions (several labels)."""

import logging
import numbers

import numpy as np
from scipy import sparse

__all__ = ["make_directed_sbm", "make_multilabel_sbm"]

logger = logging.getLogger(__name__)


def _check_int(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def make_directed_sbm(n_nodes, n_classes, avg_degree, p_in=0.5, random_state=None):
    """Sample a directed stochastic block model whose inter-class edges flow one way.

    Nodes get one of ``n_classes`` classes of (nearly) equal size, assigned at
    random. Each edge draw picks a source node uniformly at random; with
    probability ``p_in`` the target is drawn uniformly among the *other* nodes
    of the source's class, otherwise uniformly among the nodes of the next
    class, ``(c + 1) % n_classes``. Edges therefore only go from class ``c`` to
    class ``c`` or ``c + 1``: a label read off the in-neighbours of a node is
    the wrong one for the inter-class part, which makes the model a test of
    whether a method uses edge directions.

    Parameters
    ----------
    n_nodes : int
        Number of nodes; at least ``2 * n_classes`` so that every class holds
        two nodes (intra-class edges never form self-loops).
    n_classes : int
        Number of classes, at least 2.
    avg_degree : float
        Number of edge draws per node, ``round(n_nodes * avg_degree)`` draws in
        all. It is the mean out-degree (and in-degree) *before* duplicate edges
        are merged; merging removes at most a fraction of about
        ``avg_degree * n_classes / (2 * n_nodes)`` of the edges, which is
        negligible for sparse graphs.
    p_in : float, default=0.5
        Probability that an edge stays inside the class of its source, in
        ``[0, 1]``.
    random_state : int, numpy.random.Generator or None, default=None
        Seed or generator passed to :func:`numpy.random.default_rng`.

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (n_nodes, n_nodes)
        ``adjacency[i, j] = 1.0`` when the edge ``i -> j`` was drawn at least
        once (float64, sorted indices, no self-loops, no duplicates).
    labels : ndarray of shape (n_nodes,)
        Class of each node, integers in ``0 .. n_classes - 1``.

    Examples
    --------
    >>> from digraph_askls.datasets import make_directed_sbm
    >>> adjacency, labels = make_directed_sbm(40, 2, 4.0, p_in=0.8, random_state=0)
    >>> adjacency.shape, adjacency.dtype, labels.shape
    ((40, 40), dtype('float64'), (40,))
    >>> bool(adjacency.diagonal().any())
    False
    >>> import numpy as np
    >>> np.bincount(labels).tolist()
    [20, 20]
    """
    n_nodes = _check_int(n_nodes, "n_nodes", 1)
    n_classes = _check_int(n_classes, "n_classes", 2)
    if n_nodes < 2 * n_classes:
        raise ValueError(
            f"n_nodes must be >= 2 * n_classes = {2 * n_classes} so that every class "
            f"has two nodes, got n_nodes={n_nodes}"
        )
    if isinstance(avg_degree, bool) or not isinstance(avg_degree, numbers.Real):
        raise TypeError(f"avg_degree must be a number, got {type(avg_degree).__name__}")
    if not np.isfinite(avg_degree) or avg_degree < 0:
        raise ValueError(f"avg_degree must be a finite number >= 0, got {avg_degree}")
    if isinstance(p_in, bool) or not isinstance(p_in, numbers.Real):
        raise TypeError(f"p_in must be a number, got {type(p_in).__name__}")
    if not 0.0 <= p_in <= 1.0:
        raise ValueError(f"p_in must be in [0, 1], got {p_in}")
    rng = np.random.default_rng(random_state)

    # Classes of sizes differing by at most one, shuffled over the nodes.
    labels = rng.permutation(np.arange(n_nodes) % n_classes)
    members = np.argsort(labels, kind="stable")  # nodes grouped by class
    sizes = np.bincount(labels, minlength=n_classes)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    rank = np.empty(n_nodes, dtype=np.int64)  # position of a node inside its class
    rank[members] = np.arange(n_nodes) - offsets[labels[members]]

    n_draws = int(round(n_nodes * avg_degree))
    # Out-degrees of uniformly drawn sources; sources then come out sorted,
    # which gives the CSR structure without a global sort.
    counts = np.bincount(rng.integers(0, n_nodes, size=n_draws), minlength=n_nodes)
    indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    source = np.repeat(np.arange(n_nodes), counts)
    source_class = labels[source]
    stay = rng.random(n_draws) < p_in
    target_class = np.where(stay, source_class, (source_class + 1) % n_classes)

    # Uniform position in the target class; inside the source's own class draw
    # among size - 1 slots and skip the source's own slot (no self-loops).
    size = sizes[target_class] - stay
    position = np.floor(rng.random(n_draws) * size).astype(np.int64)
    np.minimum(position, size - 1, out=position)
    position += stay & (position >= rank[source])
    target = members[offsets[target_class] + position]

    adjacency = sparse.csr_matrix(
        (np.ones(n_draws), target, indptr), shape=(n_nodes, n_nodes)
    )
    adjacency.sum_duplicates()
    adjacency.data[:] = 1.0
    logger.debug(
        "directed SBM: %d nodes, %d classes, %d draws, %d edges after merging",
        n_nodes, n_classes, n_draws, adjacency.nnz,
    )
    return adjacency, labels


def make_multilabel_sbm(n_nodes, n_classes_per_partition, n_partitions=2, avg_degree=10.0,
                        p_same=0.7, random_state=None):
    """Sample a directed graph whose nodes have one class in each of several independent
    partitions: several labels per node, one per partition.

    Each partition is a :func:`make_directed_sbm` of its own on the same nodes (its
    classes drawn independently of the other partitions'), with ``avg_degree /
    n_partitions`` edge draws per node and ``p_same`` the chance that an edge stays in
    its source's class (else it goes to the next class of that partition); the graph is
    the union of the partitions' edges. A label is thus told by a share of a node's
    links only, the rest being noise for it: ``p_same`` (0.5 to 0.8) and the number of
    partitions set how hard the labels are.

    Parameters
    ----------
    n_nodes : int
        At least ``2 * n_classes_per_partition``.
    n_classes_per_partition : int
        Classes of each partition, at least 2.
    n_partitions : int, default=2
        Independent partitions, at least 1 (one: a single label per node, written as
        an indicator).
    avg_degree : float, default=10.0
        Edge draws per node over all partitions (before duplicates are merged).
    p_same : float, default=0.7
        Chance that an edge stays inside its source's class of its partition, in
        ``[0, 1]``.
    random_state : int, numpy.random.Generator or None, default=None

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (n_nodes, n_nodes)
        ``1.0`` where an edge was drawn (no self-loops, no duplicates).
    label_matrix : ndarray of shape (n_nodes, n_partitions * n_classes_per_partition)
        0/1 indicator, partition after partition: columns ``p * n_classes_per_partition``
        to ``(p + 1) * n_classes_per_partition - 1`` are partition ``p``'s classes, so
        every row holds exactly ``n_partitions`` ones.

    Examples
    --------
    >>> from digraph_askls.datasets import make_multilabel_sbm
    >>> adjacency, Y = make_multilabel_sbm(60, 3, n_partitions=2, avg_degree=6.0,
    ...                                    random_state=0)
    >>> adjacency.shape, Y.shape
    ((60, 60), (60, 6))
    >>> Y.sum(axis=1).tolist() == [2] * 60
    True
    >>> Y[:, :3].sum(axis=0).tolist()
    [20, 20, 20]
    """
    n_partitions = _check_int(n_partitions, "n_partitions", 1)
    k = _check_int(n_classes_per_partition, "n_classes_per_partition", 2)
    if isinstance(avg_degree, bool) or not isinstance(avg_degree, numbers.Real):
        raise TypeError(f"avg_degree must be a number, got {type(avg_degree).__name__}")
    rng = np.random.default_rng(random_state)
    adjacency = None
    label_matrix = np.zeros((int(n_nodes), n_partitions * k), dtype=int)
    for partition in range(n_partitions):
        links, labels = make_directed_sbm(n_nodes, k, avg_degree / n_partitions,
                                          p_in=p_same, random_state=rng)
        adjacency = links if adjacency is None else adjacency + links
        label_matrix[np.arange(len(labels)), partition * k + labels] = 1
    adjacency = sparse.csr_matrix(adjacency)
    adjacency.sum_duplicates()
    adjacency.data[:] = 1.0
    adjacency.sort_indices()
    return adjacency, label_matrix
