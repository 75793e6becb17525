"""How the edge weights of a graph enter its kernels: the weight transforms of the recipes.

A kernel recipe reads the adjacency after one transform of its stored weights (its
``weights`` parameter), applied once, before the kernel is built: the degree
normalisations, the walks and the link profiles then all read the same weights.

* ``"raw"``: the weights as given (the default; a 0/1 graph is read as it is);
* ``"log1p"``: ``log(1 + w)``, which keeps the order of the weights and tames heavy tails
  (counts of messages, transactions, citations, where a few edges weigh thousands of
  times the others);
* ``"binary"``: every edge weighs 1, the weights dropped (as ``fit(weight=None)``).

An edge of weight 0 is no edge (:func:`~digraph_askls.graph.get_adjacency` stores none),
so every transform keeps the same edges.
"""

import numpy as np
from scipy import sparse

__all__ = ["WEIGHTS", "check_weights", "has_equal_weights", "transform_weights"]

#: The transforms of the edge weights, by name.
WEIGHTS = {"raw": None, "log1p": np.log1p, "binary": np.ones_like}


def check_weights(weights):
    """``weights`` if it names a transform of :data:`WEIGHTS`, else a ``ValueError``."""
    if not isinstance(weights, str) or weights not in WEIGHTS:
        raise ValueError(f"unknown weights {weights!r}; choose from {list(WEIGHTS)}")
    return weights


def transform_weights(adjacency, weights="raw"):
    """The canonical adjacency with its weights transformed (see the module).

    Parameters
    ----------
    adjacency : scipy.sparse.csr_array
        Canonical (what :func:`~digraph_askls.graph.get_adjacency` returns).
    weights : {"raw", "log1p", "binary"}, default="raw"

    Returns
    -------
    scipy.sparse.csr_array
        ``adjacency`` itself for ``"raw"``; else a new array with the same edges, whose
        index arrays are shared with ``adjacency`` (never modified).

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.graph import get_adjacency
    >>> from digraph_askls.kernels._weights import transform_weights
    >>> adjacency, _ = get_adjacency([(0, 1, 1.0), (1, 2, np.e - 1)])
    >>> transform_weights(adjacency, "log1p").data.round(3)
    array([0.693, 1.   ])
    >>> transform_weights(adjacency, "binary").data
    array([1., 1.])
    """
    function = WEIGHTS[check_weights(weights)]
    if function is None:
        return adjacency
    return sparse.csr_array((function(adjacency.data), adjacency.indices, adjacency.indptr),
                            shape=adjacency.shape)


def has_equal_weights(adjacency):
    """Whether every edge of ``adjacency`` (canonical) has the same weight: then every
    transform reads the same graph up to a scale, and there is nothing to choose.

    Examples
    --------
    >>> from digraph_askls.graph import get_adjacency
    >>> has_equal_weights(get_adjacency([(0, 1, 2.0), (1, 2, 2.0)])[0])
    True
    >>> has_equal_weights(get_adjacency([(0, 1, 2.0), (1, 2)])[0])
    False
    """
    data = adjacency.data
    return data.size == 0 or bool(np.all(data == data[0]))
