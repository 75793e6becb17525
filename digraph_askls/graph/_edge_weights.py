"""The one rule for edge weights, whatever form the graph comes in: finite and >= 0 (an
edge of weight 0 is no edge), a bad weight named by its edge."""

import numpy as np

__all__ = ["check_edge_weights"]


def check_edge_weights(weights, edge_of):
    """Raise a ``ValueError`` naming the first edge whose weight is negative, NaN or
    infinite, if any.

    Parameters
    ----------
    weights : ndarray of float64, one weight per edge, in the order the input lists them
    edge_of : callable
        ``edge_of(i)``: the ``(source, target)`` names of edge ``i``.

    Examples
    --------
    >>> import numpy as np
    >>> edges = [("a", "b"), ("b", "c")]
    >>> check_edge_weights(np.array([1.0, -2.0]), edges.__getitem__)
    Traceback (most recent call last):
        ...
    ValueError: edge weights must be finite and >= 0 (a weight of 0 is no edge), got -2.0 on ...
    """
    bad = ~np.isfinite(weights) | (weights < 0)
    if not bad.any():
        return
    first = int(np.flatnonzero(bad)[0])
    source, target = edge_of(first)
    others = int(bad.sum()) - 1
    more = f" ({others} more bad weight{'s' * (others != 1)} after it)" if others else ""
    raise ValueError(
        f"edge weights must be finite and >= 0 (a weight of 0 is no edge), got "
        f"{float(weights[first])} on the edge {source!r} -> {target!r}{more}")
