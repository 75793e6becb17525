"""Look up the row of each node name, with one set of checks for every classifier."""

import numpy as np

__all__ = ["NodeIndex"]


class NodeIndex:
    """Positions of node names in a fitted node order.

    Parameters
    ----------
    nodes : list of hashables
        The node order, as :func:`~digraph_askls.graph.get_adjacency` returns it.

    Examples
    --------
    >>> from digraph_askls.graph._index import NodeIndex
    >>> index = NodeIndex(["a", ("b", 1), "c"])
    >>> index.positions([("b", 1), "a"]).tolist(), index.positions(None).tolist()
    ([1, 0], [0, 1, 2])
    >>> index.positions("a")
    Traceback (most recent call last):
    ...
    TypeError: nodes must be a list of node names (or None for all nodes), got str 'a'; pass ['a'] for one node
    """

    def __init__(self, nodes):
        self.nodes = list(nodes)
        self._lookup = None       # name -> position, built on first use (not for 0..n-1)
        self._is_range = None

    @property
    def _position(self):
        if self._lookup is None:
            self._lookup = {node: i for i, node in enumerate(self.nodes)}
        return self._lookup

    def __len__(self):
        return len(self.nodes)

    def __getstate__(self):
        # The lookup table is rebuilt on first use: a saved model stays lean.
        return dict(self.__dict__, _lookup=None)

    def positions_of_present(self, nodes):
        """Positions of ``nodes`` as an int64 array, ``-1`` for names not in the order.

        Examples
        --------
        >>> from digraph_askls.graph._index import NodeIndex
        >>> NodeIndex(["a", "b"]).positions_of_present(["b", "z"]).tolist()
        [1, -1]
        """
        nodes = list(nodes)
        if nodes and self._range_nodes() and all(
                isinstance(node, (int, np.integer)) and not isinstance(node, bool)
                for node in nodes):
            array = np.asarray(nodes, dtype=np.int64)
            return np.where((array >= 0) & (array < len(self.nodes)), array, -1)
        lookup = self._position
        return np.fromiter((lookup.get(node, -1) for node in nodes), np.int64, len(nodes))

    def _range_nodes(self):
        """Whether the nodes are ``0, ..., n - 1``, so that integer names are positions."""
        if self._is_range is None:
            nodes = self.nodes
            self._is_range = (all(isinstance(v, (int, np.integer)) for v in nodes[:1])
                              and np.array_equal(np.asarray(nodes), np.arange(len(nodes))))
        return self._is_range

    def positions(self, nodes):
        """Positions of ``nodes`` (all of them, in order, when None) as an int64 array.

        Raises
        ------
        TypeError
            If ``nodes`` is a single name rather than a list, or a name is unhashable.
        ValueError
            If ``nodes`` is a 2-D array or names a node that is not in the order.
        """
        n = len(self.nodes)
        if nodes is None:
            return np.arange(n)
        if isinstance(nodes, (str, bytes)) or not hasattr(nodes, "__iter__"):
            raise TypeError(f"nodes must be a list of node names (or None for all nodes), "
                            f"got {type(nodes).__name__} {nodes!r}; pass [{nodes!r}] for "
                            "one node")
        if isinstance(nodes, np.ndarray) and nodes.ndim != 1:
            raise ValueError(f"nodes must be one-dimensional, got shape {nodes.shape}")
        array = None
        if not isinstance(nodes, (set, dict)):
            try:
                array = np.asarray(nodes)
            except ValueError:   # ragged names, e.g. tuples and strings mixed
                array = None
        if (array is not None and array.ndim == 1 and array.size
                and np.issubdtype(array.dtype, np.integer) and self._range_nodes()):
            # Nodes 0..n-1 (matrix and integer edge-list inputs): names are positions.
            if array.min() < 0 or array.max() >= n:
                bad = array[(array < 0) | (array >= n)][0]
                raise ValueError(f"node {int(bad)!r} is not in the fitted graph ({n} nodes)")
            return array.astype(np.int64)
        positions = []
        for node in nodes:
            try:
                position = self._position.get(node)
            except TypeError:
                raise TypeError(f"node names must be hashable, got {node!r}") from None
            if position is None:
                hint = ""
                if isinstance(node, (int, np.integer)) and not isinstance(node, bool):
                    hint = (f"; nodes are named (e.g. {self.nodes[0]!r}), not numbered: "
                            "pass names, or no nodes for all of them in node order")
                raise ValueError(f"node {node!r} is not in the fitted graph ({n} nodes)"
                                 f"{hint}")
            positions.append(position)
        return np.asarray(positions, dtype=np.int64)
