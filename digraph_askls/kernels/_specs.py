"""Graph kernels as recipes: the base, weighted sums, powers and registry names.

A recipe holds the parameters of one kernel family and builds the kernel on a graph (and
its node features) with :meth:`GraphKernel.make`. Recipes add up (``a + b``) and scale
(``0.5 * a``) into weighted sums, print their parameters, and carry the gamma values
worth trying with them (:attr:`GraphKernel.gammas`), so that
:class:`~digraph_askls.NodeClassifier` can choose among several by cross-validation.
"""

import numbers

import numpy as np
from sklearn.base import BaseEstimator

from digraph_askls.graph import get_adjacency
from digraph_askls.kernels._power import ElementwisePowerKernel
from digraph_askls.kernels._sum import get_kernel_sum
from digraph_askls.kernels._weights import transform_weights

__all__ = ["GraphKernel", "NamedKernel", "PowerKernel", "SumKernel", "gamma_grid"]

#: Registry names of the walk kernels, which hop in float32 unless told otherwise.
_WALK_NAMES = ("ppr", "ppr_in", "ppr_out")


class GraphKernel(BaseEstimator):
    """Base of the kernel recipes (not used directly).

    Subclasses define ``_build(adjacency, features)`` and the class attributes
    ``needs_features`` and ``gammas`` (the regularisation values that suit the family's
    scale, tried by :class:`~digraph_askls.NodeClassifier` when it selects), and may set
    ``views``: the views that ``merge="auto"`` reads the kernel through (None: the
    selection compares the merges of both). The families that read the edge weights take
    a ``weights`` parameter (:mod:`~digraph_askls.kernels._weights`): :meth:`make`
    transforms the weights once, before the kernel is built; the others read the graph
    as given.
    """

    needs_features = False
    gammas = (0.01,)
    views = None
    #: How the edge weights enter (a recipe saved before the parameter existed: as given).
    weights = "raw"

    def make(self, adjacency, features=None, reference=None):
        """Build the kernel on a graph.

        Parameters
        ----------
        adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
        features : array-like or sparse matrix of shape (n_nodes, n_features), optional
            Node attributes in node order; required when ``needs_features``.
        reference : array-like of int, optional
            The nodes whose statistics set the scale of kernels that pool over nodes
            (the role kernel's standardisation and bins): all nodes when None. A fitted
            model builds the kernel of a grown graph with its fitted nodes here, so that
            nodes joining the graph do not rescale the others. Kernels built from each
            node's own links and attributes (walks, link profiles, attributes) ignore
            it.

        Returns
        -------
        sparse matrix or LinearOperator of shape (n_nodes, n_nodes)
        """
        adjacency, _ = get_adjacency(adjacency)
        adjacency = transform_weights(adjacency, self.weights)
        if self.needs_features and features is None:
            raise ValueError(f"{self!r} needs node features: pass features= to fit")
        if reference is None:
            return self._build(adjacency, features)
        return self._build_on(adjacency, features, reference)

    def _build_on(self, adjacency, features, reference):
        """``_build`` with the statistics of the nodes ``reference``: the same kernel for
        families that pool nothing over the nodes (override where they do)."""
        return self._build(adjacency, features)

    def __eq__(self, other):
        # Recipes are equal when they build the same kernel: same family, same parameters.
        return type(self) is type(other) and repr(self.get_params(deep=False)) == repr(
            other.get_params(deep=False))

    def __hash__(self):
        return hash((type(self).__name__, repr(self.get_params(deep=False))))

    def __add__(self, other):
        if not isinstance(other, GraphKernel):
            return NotImplemented
        return SumKernel(_parts(self) + _parts(other))

    def __mul__(self, weight):
        if not isinstance(weight, numbers.Real) or isinstance(weight, bool):
            return NotImplemented
        return SumKernel([(float(weight) * w, kernel) for w, kernel in _parts(self)])

    __rmul__ = __mul__

    def __pow__(self, power):
        if not isinstance(power, numbers.Integral) or isinstance(power, bool):
            return NotImplemented
        return PowerKernel(self, int(power))


def _parts(kernel):
    return list(kernel.parts) if isinstance(kernel, SumKernel) else [(1.0, kernel)]


class SumKernel(GraphKernel):
    """A weighted sum ``sum_f w_f K_f`` of kernel recipes (``w_f >= 0``).

    Usually written with operators: ``LinkProfileKernel() + 0.1 * AttributeKernel()``.
    Sums of explicit feature maps stay explicit (the maps are stacked, each scaled by
    ``sqrt(w_f)``); other sums are operators whose blocks and products add up.

    Parameters
    ----------
    parts : list of (float, GraphKernel)
    gammas : tuple of float, optional
        Values of gamma to try; default those of the part with the largest weight.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import LinkProfileKernel, RoleKernel
    >>> kernel = LinkProfileKernel(power=1) + 0.5 * RoleKernel()
    >>> kernel.parts[1][0]
    0.5
    >>> kernel.make([(0, 2), (1, 2)]).shape
    (3, 3)
    """

    def __init__(self, parts, gammas=None):
        self.parts = parts
        self.gammas = gammas

    @property
    def needs_features(self):
        return any(kernel.needs_features for _, kernel in self._checked())

    def _checked(self):
        parts = list(self.parts)
        if not parts:
            raise ValueError("a SumKernel needs at least one part")
        for item in parts:
            if (not isinstance(item, tuple) or len(item) != 2
                    or not isinstance(item[1], GraphKernel)
                    or not isinstance(item[0], numbers.Real) or not np.isfinite(item[0])
                    or item[0] < 0):
                raise ValueError(f"parts must be (weight >= 0, GraphKernel) pairs, got "
                                 f"{item!r}")
        return parts

    def grid(self):
        """The gamma values to try."""
        if self.gammas is not None:
            return tuple(self.gammas)
        return max(self._checked(), key=lambda part: part[0])[1].gammas

    def _build(self, adjacency, features):
        return self._build_on(adjacency, features, None)

    def _build_on(self, adjacency, features, reference):
        parts = self._checked()
        return get_kernel_sum([(w, kernel.make(adjacency, features, reference))
                               for w, kernel in parts])


class NamedKernel(GraphKernel):
    """A kernel of the registry :data:`~digraph_askls.kernels.KERNELS` by name.

    The form ``NodeClassifier(kernel="ppr", kernel_params={...})`` takes. The walk
    kernels (``"ppr"``, ``"ppr_in"``, ``"ppr_out"``) hop in float32 unless ``params``
    gives a ``dtype``: the rounding (about 1e-7 relative) is far below the solver's
    tolerance and the products are up to twice as fast.

    Examples
    --------
    >>> from digraph_askls.kernels import NamedKernel
    >>> NamedKernel("in_degree").make([(0, 1)]).toarray()
    array([[1. , 0. ],
           [0.5, 0.5]])
    """

    def __init__(self, name, params=None):
        self.name = name
        self.params = params

    @property
    def gammas(self):
        return (0.01,) if self.name in _WALK_NAMES else (1.0,)

    @property
    def needs_features(self):
        return self.name == "attributes"

    def _build(self, adjacency, features):
        return self._build_on(adjacency, features, None)

    def _build_on(self, adjacency, features, reference):
        from digraph_askls.kernels._registry import get_graph_kernel

        params = dict(self.params or {})
        if self.name in _WALK_NAMES:
            params.setdefault("dtype", "float32")
        if self.needs_features:
            params["features"] = features
        if self.name == "roles" and reference is not None:
            params["reference"] = reference      # the one registry kernel with statistics
        return get_graph_kernel(self.name, adjacency, **params)


class PowerKernel(GraphKernel):
    """A recipe's kernel raised to an integer power entry by entry: ``base ** power``.

    A polynomial kernel of the base kernel's feature maps (their row-wise tensor
    powers, never formed), which lets a linear model of the maps read products of
    features. Needs dense training blocks, so it suits graphs of up to some thousand
    labelled nodes. Usually written ``AttributeKernel() ** 2``.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import AttributeKernel
    >>> kernel = AttributeKernel(hops=0) ** 2
    >>> kernel.make([(0, 1)], features=np.array([[3.0, 4.0], [1.0, 0.0]])).to_dense()
    array([[1.  , 0.36],
           [0.36, 1.  ]])
    """

    def __init__(self, base, power=2):
        self.base = base
        self.power = power

    @property
    def needs_features(self):
        return self.base.needs_features

    @property
    def gammas(self):
        # A power shrinks the off-diagonal entries: a larger gamma fits as hard.
        return tuple(10.0 * g for g in gamma_grid(self.base))

    def _build(self, adjacency, features):
        return self._build_on(adjacency, features, None)

    def _build_on(self, adjacency, features, reference):
        if not isinstance(self.base, GraphKernel):
            raise TypeError(f"base must be a GraphKernel, got {type(self.base).__name__}")
        return ElementwisePowerKernel(self.base.make(adjacency, features, reference),
                                      self.power)


def gamma_grid(kernel):
    """The gamma values a recipe suggests (``SumKernel.grid()`` or ``gammas``)."""
    return kernel.grid() if isinstance(kernel, SumKernel) else tuple(kernel.gammas)
