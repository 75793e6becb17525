"""Graph kernels as recipes: small objects that say how to build a kernel on a graph.

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
from digraph_askls.kernels._attributes import get_attribute_kernel
from digraph_askls.kernels._graph import get_in_degree_kernel
from digraph_askls.kernels._power import ElementwisePowerKernel
from digraph_askls.kernels._profiles import get_link_profile_kernel
from digraph_askls.kernels._roles import get_role_kernel
from digraph_askls.kernels._sum import get_kernel_sum
from digraph_askls.kernels._walks import get_ppr_kernel

__all__ = ["AttributeKernel", "GraphKernel", "InDegreeKernel", "LinkProfileKernel",
           "NamedKernel", "PowerKernel", "RoleKernel", "SumKernel", "WalkKernel"]

#: Registry names of the walk kernels, which hop in float32 unless told otherwise.
_WALK_NAMES = ("ppr", "ppr_in", "ppr_out")


class GraphKernel(BaseEstimator):
    """Base of the kernel recipes (not used directly).

    Subclasses define ``_build(adjacency, features)`` and the class attributes
    ``needs_features`` and ``gammas`` (the regularisation values that suit the family's
    scale, tried by :class:`~digraph_askls.NodeClassifier` when it selects).
    """

    needs_features = False
    gammas = (0.01,)

    def make(self, adjacency, features=None):
        """Build the kernel on a graph.

        Parameters
        ----------
        adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
        features : array-like or sparse matrix of shape (n_nodes, n_features), optional
            Node attributes in node order; required when ``needs_features``.

        Returns
        -------
        sparse matrix or LinearOperator of shape (n_nodes, n_nodes)
        """
        adjacency, _ = get_adjacency(adjacency)
        if self.needs_features and features is None:
            raise ValueError(f"{self!r} needs node features: pass features= to fit")
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


class WalkKernel(GraphKernel):
    """Truncated personalised-PageRank series of a walk that weighs both directions.

    ``K = sum_{k=1..n_hops} alpha^(k-1) W^k``, ``W = D^-1 (A + beta A^T + I)`` (see
    :func:`~digraph_askls.kernels.get_ppr_kernel`): nodes are alike when short walks join
    them. Suits graphs whose links join nodes of the same class (citations).

    Examples
    --------
    >>> from digraph_askls.kernels import WalkKernel
    >>> WalkKernel(beta=1.0).make([(0, 1), (1, 2)]).shape
    (3, 3)
    """

    gammas = (0.01, 0.003, 0.03)

    def __init__(self, alpha=0.9, beta=2.0, n_hops=20, dtype="float32"):
        self.alpha = alpha
        self.beta = beta
        self.n_hops = n_hops
        self.dtype = dtype

    def _build(self, adjacency, features):
        return get_ppr_kernel(adjacency, alpha=self.alpha, beta=self.beta,
                              n_hops=self.n_hops, dtype=self.dtype)


class InDegreeKernel(GraphKernel):
    """The paper's in-degree normalised adjacency with self-loops ``D_in^-1 (A + I)``.

    Examples
    --------
    >>> from digraph_askls.kernels import InDegreeKernel
    >>> InDegreeKernel().make([(0, 1)]).toarray()
    array([[1. , 0. ],
           [0.5, 0.5]])
    """

    gammas = (1.0,)

    def _build(self, adjacency, features):
        return get_in_degree_kernel(adjacency)


class LinkProfileKernel(GraphKernel):
    """Similarity of the nodes' out-link rows and in-link rows, raised to a power.

    See :func:`~digraph_askls.kernels.get_link_profile_kernel`. Suits graphs where a
    link is not a vote (web pages, Wikipedia): nodes that link to the same pages are
    alike, whatever the classes of those pages.

    Examples
    --------
    >>> from digraph_askls.kernels import LinkProfileKernel
    >>> LinkProfileKernel(power=1).make([(0, 2), (1, 2)]).shape
    (3, 3)
    """

    gammas = (3.0, 10.0, 30.0, 100.0)

    def __init__(self, out_weight=1.0, in_weight=0.5, power=2, normalization="cosine"):
        self.out_weight = out_weight
        self.in_weight = in_weight
        self.power = power
        self.normalization = normalization

    def _build(self, adjacency, features):
        return get_link_profile_kernel(adjacency, self.out_weight, self.in_weight,
                                       self.power, self.normalization)


class AttributeKernel(GraphKernel):
    """Node features averaged over growing neighbourhoods, compared linearly.

    See :func:`~digraph_askls.kernels.get_attribute_kernel`. ``propagation="directed"``
    gives the asymmetric kernel whose source map travels along out-links and target
    map along in-links.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import AttributeKernel
    >>> AttributeKernel(hops=2).make([(0, 1), (1, 2)], features=np.eye(3)).n_features
    9
    """

    needs_features = True
    gammas = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)

    def __init__(self, hops=5, propagation="undirected", self_weight=1.0, renormalize=False,
                 self_loops=True):
        self.hops = hops
        self.propagation = propagation
        self.self_weight = self_weight
        self.renormalize = renormalize
        self.self_loops = self_loops

    def _build(self, adjacency, features):
        return get_attribute_kernel(adjacency, features, self.hops, self.propagation,
                                    self.self_weight, self.renormalize, self.self_loops)


class RoleKernel(GraphKernel):
    """Kernel of structural-role features (degrees, reciprocity, attribute amount).

    See :func:`~digraph_askls.kernels.get_role_kernel`: linear in the standardised
    features, or, with ``bins``, one-hot in quantile bins of degrees and attribute
    amount. Uses the node features when given, but does not need them.

    Examples
    --------
    >>> from digraph_askls.kernels import RoleKernel
    >>> RoleKernel().make([(0, 1), (1, 2)]).n_features
    10
    """

    gammas = (0.1, 1.0, 10.0)

    def __init__(self, bins=None):
        self.bins = bins

    def _build(self, adjacency, features):
        return get_role_kernel(adjacency, features=features, bins=self.bins)


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
        parts = self._checked()
        return get_kernel_sum([(w, kernel.make(adjacency, features)) for w, kernel in parts])


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
        from digraph_askls.kernels._registry import get_graph_kernel

        params = dict(self.params or {})
        if self.name in _WALK_NAMES:
            params.setdefault("dtype", "float32")
        if self.needs_features:
            params["features"] = features
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
        if not isinstance(self.base, GraphKernel):
            raise TypeError(f"base must be a GraphKernel, got {type(self.base).__name__}")
        return ElementwisePowerKernel(self.base.make(adjacency, features), self.power)


def gamma_grid(kernel):
    """The gamma values a recipe suggests (``SumKernel.grid()`` or ``gammas``)."""
    return kernel.grid() if isinstance(kernel, SumKernel) else tuple(kernel.gammas)
