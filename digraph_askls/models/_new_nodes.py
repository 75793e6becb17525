"""Nodes that join the graph after the fit, classified from their kernel rows.

AsK-LS predicts any node from its kernel rows against the training nodes: the source
view ``f_s(x) = K(x, X) b~ + b1`` and the target view ``f_t(x) = K(X, x)^T a~ + b2``.
A fitted :class:`~digraph_askls.NodeClassifier` keeps the kernel recipe it selected
(``selection_["kernel"]``), the dual coefficients and the stackers of its estimator. On
a graph that has grown (new nodes, new links, the training nodes still in it) the
recipe builds the kernel of the grown graph, and the estimator reads the blocks
``K(nodes, train)`` and ``K(train, nodes)`` from it: nothing is refitted. This path
always goes through the kernel views, also for fits that predict their own nodes from
scores kept from the solve (:mod:`~digraph_askls.models._train_scores`): those scores
belong to the fitted graph.

Kernels that pool statistics over the nodes (the role kernel's standardisation and
bins) take them over the fitted nodes as they stand in the grown graph
(``GraphKernel.make(..., reference=)``), so that isolated nodes joining the graph change
no other node's kernel rows.
"""

import numpy as np

from ..graph import get_adjacency, get_features
from ..graph._index import NodeIndex
from ..kernels import restrict_kernel
from ._views import KernelViews

__all__ = ["fitted_features", "grown_views"]


def fitted_features(features, values):
    """What the fit records of its node attributes: ``(name, n_columns)``.

    ``name`` is the attribute name when ``features`` was one (it is read again from a
    grown graph unless told otherwise), ``n_columns`` None without attributes.
    """
    name = features if isinstance(features, str) else None
    return name, None if values is None else int(values.shape[1])


def _grown_features(classifier, features, nodes, graph):
    from ..graph import Graph

    name, n_columns = getattr(classifier, "_fitted_features", (None, None))
    if features is False:
        features = None
        if n_columns is not None:
            raise ValueError(f"the model was fitted with node features ({n_columns} "
                             "columns): features=False leaves the grown graph's kernel "
                             "without them; pass features= for every node of the grown graph")
    elif features is None and name is not None:
        features = name
    elif features is None and isinstance(graph, Graph) and n_columns is not None:
        features = graph.features      # None when it has none: the error below says so
    if n_columns is None:
        if features is not None:
            raise ValueError("the model was fitted without node features, so the grown "
                             "graph's kernel takes none: leave features=None")
        return None
    if features is None:
        raise ValueError(f"the model was fitted with node features ({n_columns} columns): "
                         "pass features= for every node of the grown graph, in a form "
                         "that fit takes (an array in node order, a DataFrame indexed by "
                         "node, or an attribute name)")
    values = get_features(features, nodes, graph)
    if values.shape[1] != n_columns:
        raise ValueError(f"the grown graph's features must have the {n_columns} columns "
                         f"of the fit, got {values.shape[1]}")
    return values


def _positions(index, names, what):
    present = index.positions_of_present(names)
    if (present < 0).any():
        missing = [name for name, position in zip(names, present) if position < 0]
        raise ValueError(f"the grown graph must hold every {what} node of the fit; "
                         f"{len(missing)} are missing, e.g. {missing[:5]}")
    return present


def grown_views(classifier, nodes, graph, features=None, weight="weight"):
    """Kernel blocks between ``nodes`` of a grown graph and the fitted training nodes.

    Parameters
    ----------
    classifier : NodeClassifier
        Fitted.
    nodes : list or None
        Names of nodes of ``graph`` (new or not); all its nodes, in its order, when None.
    graph : any graph :func:`~digraph_askls.graph.get_adjacency` takes
        The grown graph: it must hold every training node of the fit.
    features : optional
        Node attributes of every node of ``graph``, in any form ``fit`` takes; needed
        when the fit had attributes (an attribute name given to ``fit`` is read again
        when this is None, and so are the features of a grown ``Graph``). A node
        without attributes has a row of zeros.
    weight : str or None
        Edge attribute of the weights, as in ``fit``.

    Returns
    -------
    KernelViews
        ``K(nodes, train)`` and ``K(train, nodes)``, in the estimator's training order;
        a tuple of them, one per group, where each group of exclusive labels has its
        own kernel (``selection_["label_groups"]``).
    """
    adjacency, grown = get_adjacency(graph, weight=weight)
    values = _grown_features(classifier, features, grown, graph)
    index = NodeIndex(grown)
    fitted = classifier.nodes_
    train = _positions(index, [fitted[i] for i in classifier.train_nodes_], "training")
    reference = index.positions_of_present(fitted)
    rows = index.positions(nodes)
    reference = np.sort(reference[reference >= 0])

    def views_of(recipe):
        kernel = recipe.make(adjacency, values, reference=reference)
        return KernelViews(restrict_kernel(kernel, rows, train),
                           restrict_kernel(kernel, train, rows))

    recipe = classifier.selection_["kernel"]
    if isinstance(recipe, tuple):          # one recipe per group of exclusive labels
        return tuple(views_of(each) for each in recipe)
    return views_of(recipe)
