"""What :meth:`NodeClassifier.fit <digraph_askls.NodeClassifier.fit>` reads from its
arguments: the graph, its labels and its node attributes, whatever form they come in.

A :class:`~digraph_askls.graph.Graph` (what the dataset loaders return) brings its own
labels and features; a networkx graph may name its labels by node attribute. A fit that
leaves node attributes unread says so with a ``UserWarning`` (unless it was told
``features=False``): a kernel of the structure alone, or numeric node attributes that
were not named.
"""

import warnings
from typing import NamedTuple, Optional

from ..graph import Graph, get_adjacency, get_features, get_labels
from ..graph._features import numeric_node_attributes
from ..graph._index import NodeIndex
from ._dask_route import distributed_features
from ..kernels import (InDegreeKernel, LinkProfileKernel, NamedKernel, PowerKernel,
                       SumKernel, WalkKernel)

__all__ = ["FitInputs", "read_fit_inputs", "reads_features", "warn_unread_features"]

#: Kernel recipes of the structure alone: they never read node attributes.
_STRUCTURE_KERNELS = (WalkKernel, InDegreeKernel, LinkProfileKernel)


class FitInputs(NamedTuple):
    """The arguments of ``fit`` in canonical form."""

    adjacency: object
    nodes: list
    codes: object
    classes: list
    features: object            # float64 array or CSR array, or None
    given: object               # what to record for grown graphs (an attribute name)
    origin: Optional[str]       # where ``features`` came from, for the warning
    structure_only: bool        # features=False


def read_fit_inputs(graph, labels, features, nodelist, weight):
    """Adjacency, node order, label codes and features of ``fit``'s arguments.

    ``labels=None`` takes a ``Graph``'s labels (its class codes); ``features=None``
    takes a ``Graph``'s features; ``features=False`` takes none.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.graph import Graph, get_adjacency
    >>> from digraph_askls.models._fit_inputs import read_fit_inputs
    >>> adjacency, nodes = get_adjacency([("a", "b"), ("b", "c")])
    >>> graph = Graph(adjacency, [0, -1, 1], nodes, ["x", "y"], features=np.eye(3))
    >>> inputs = read_fit_inputs(graph, None, None, None, "weight")
    >>> inputs.codes.tolist(), inputs.features.shape, inputs.origin
    ([0, -1, 1], (3, 3), "the Graph's features")
    >>> read_fit_inputs(graph, None, False, None, "weight").features is None
    True
    """
    if features is True:
        raise TypeError("features must be node attributes (an array, a DataFrame or an "
                        "attribute name), None for the graph's own, or False for none; "
                        "got True")
    structure_only = features is False
    given = None if structure_only else features
    adjacency, nodes = get_adjacency(graph, nodelist=nodelist, weight=weight)
    values, origin = None, None
    if isinstance(graph, Graph):
        rows = (None if nodes == graph.node_names
                else NodeIndex(graph.node_names).positions(nodes))
        if labels is None:
            labels = graph.labels if rows is None else graph.labels[rows]
        if given is None and not structure_only and graph.features is not None:
            values = graph.features if rows is None else graph.features[rows]
            origin = "the Graph's features"
    elif labels is None:
        raise TypeError("labels are required (a dict node -> label, one label per node, or "
                        "a node attribute name) unless graph is a digraph_askls.graph.Graph, "
                        f"which holds its own; got a graph of type {type(graph).__name__} "
                        "and no labels")
    if values is None and given is not None:
        values = distributed_features(given, len(nodes))
    if values is None and given is not None:
        values = get_features(given, nodes, graph)
        origin = (f"the node attribute {given!r}" if isinstance(given, str)
                  else "the features given")
    codes, classes = get_labels(labels, nodes, graph)
    return FitInputs(adjacency, nodes, codes, classes, values, given, origin,
                     structure_only)


def reads_features(recipe):
    """Whether a kernel recipe reads node attributes.

    The walk, in-degree and link-profile kernels read the structure alone; the attribute
    and role kernels, and recipes written by users, may read attributes.

    Examples
    --------
    >>> from digraph_askls.kernels import AttributeKernel, LinkProfileKernel, WalkKernel
    >>> from digraph_askls.models._fit_inputs import reads_features
    >>> reads_features(WalkKernel()), reads_features(LinkProfileKernel() + AttributeKernel())
    (False, True)
    """
    if isinstance(recipe, SumKernel):
        return any(reads_features(kernel) for _, kernel in recipe.parts)
    if isinstance(recipe, PowerKernel):
        return reads_features(recipe.base)
    if isinstance(recipe, NamedKernel):
        return recipe.needs_features
    return not isinstance(recipe, _STRUCTURE_KERNELS)


def warn_unread_features(inputs, recipes, graph, labels, stacklevel=3):
    """Warn when the graph carries node attributes that the fit will not read.

    Two cases: attributes are in hand (a ``Graph``'s, or given) but every candidate
    kernel reads the structure alone; or a networkx graph's nodes hold numeric
    attributes that no ``features=`` named. Silent under ``features=False``.
    """
    if inputs.structure_only:
        return
    structural = not any(reads_features(recipe) for recipe in recipes)
    silence = "or features=False to fit on the structure alone"
    if inputs.features is not None:
        if structural:
            several = len(recipes) > 1
            warnings.warn(
                f"{inputs.origin} ({inputs.features.shape[1]} columns) are not read by the "
                f"kernel{'s' if several else ''} {', '.join(map(repr, recipes))}, which "
                f"read{'' if several else 's'} the structure alone: choose "
                "a kernel that reads node attributes (kernel='auto', AttributeKernel()), "
                f"{silence}", UserWarning, stacklevel=stacklevel)
        return
    unused = numeric_node_attributes(graph, exclude=(labels,) if isinstance(labels, str)
                                     else ())
    if not unused:
        return
    held = f"the nodes hold numeric attribute{'s' if len(unused) > 1 else ''} {unused}"
    if structural:
        advice = (f"pass features={unused[0]!r} with a kernel that reads node attributes "
                  f"(kernel='auto'), {silence}")
    else:
        advice = f"pass features={unused[0]!r} to use them, {silence}"
    warnings.warn(f"{held}, which the fit does not use: {advice}", UserWarning,
                  stacklevel=stacklevel)
