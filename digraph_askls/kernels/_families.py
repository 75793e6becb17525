"""The kernel families as recipes: walks, the paper's kernel, link profiles, attributes, roles.

Each recipe holds its family's parameters and the gamma values that suit its scale
(:attr:`~digraph_askls.kernels.GraphKernel.gammas`), and builds the kernel with
:meth:`~digraph_askls.kernels.GraphKernel.make`.
"""

from digraph_askls.kernels._attributes import get_attribute_kernel
from digraph_askls.kernels._graph import get_in_degree_kernel
from digraph_askls.kernels._profiles import get_link_profile_kernel
from digraph_askls.kernels._roles import get_role_kernel
from digraph_askls.kernels._smoothed import get_smoothed_attribute_kernel
from digraph_askls.kernels._specs import GraphKernel
from digraph_askls.kernels._walks import get_ppr_kernel

__all__ = ["AttributeKernel", "InDegreeKernel", "LinkProfileKernel", "RoleKernel",
           "SmoothedAttributeKernel", "VoteKernel", "WalkKernel"]


class WalkKernel(GraphKernel):
    """Truncated personalised-PageRank series of a walk that weighs both directions.

    ``K = sum_{k=1..n_hops} alpha^(k-1) W^k``, ``W = D^-1 (A + beta A^T + I)`` (see
    :func:`~digraph_askls.kernels.get_ppr_kernel`): nodes are alike when short walks join
    them. Suits graphs whose links join nodes of the same class (citations).

    Parameters
    ----------
    alpha, beta, n_hops, dtype
        As in :func:`~digraph_askls.kernels.get_ppr_kernel`.
    weights : {"raw", "log1p", "binary"}, default="raw"
        How the edge weights enter the degrees and the walk
        (:mod:`~digraph_askls.kernels._weights`): as given, ``log(1 + w)``, or every edge
        weighing 1.

    Examples
    --------
    >>> from digraph_askls.kernels import WalkKernel
    >>> WalkKernel(beta=1.0).make([(0, 1), (1, 2)]).shape
    (3, 3)
    """

    gammas = (0.01, 0.003, 0.03)

    def __init__(self, alpha=0.9, beta=2.0, n_hops=20, dtype="float32", weights="raw"):
        self.alpha = alpha
        self.beta = beta
        self.n_hops = n_hops
        self.dtype = dtype
        self.weights = weights

    def _build(self, adjacency, features):
        return get_ppr_kernel(adjacency, alpha=self.alpha, beta=self.beta,
                              n_hops=self.n_hops, dtype=self.dtype)


class VoteKernel(WalkKernel):
    """The personalised-PageRank vote as an AsK-LS kernel: the walk of the undirected
    graph, read through its target view alone.

    The kernel is :class:`WalkKernel`'s with both directions weighed alike (``beta=1``)
    and PageRank's damping (``alpha=0.85``). Its target view scores a node by the walks
    that start at the labelled nodes and reach it, ``K(X, x)^T y``: at a small gamma, a
    personalised PageRank from each class's labelled nodes, each class's weight shared
    among its nodes, and the arg-max; the vote of label propagation (Lin and Cohen 2010;
    scikit-network's ``PageRankClassifier``). With a handful of labelled nodes per class a
    stacker of the two views cannot be learnt better than this vote, and the
    cross-validation cannot tell them apart: under ``merge="auto"`` the selection reads
    this kernel through its target view only (``views``).

    Examples
    --------
    >>> from digraph_askls.kernels import VoteKernel
    >>> VoteKernel().views, VoteKernel().make([(0, 1), (1, 2)]).shape
    (('target',), (3, 3))
    """

    views = ("target",)

    def __init__(self, alpha=0.85, beta=1.0, n_hops=20, dtype="float32", weights="raw"):
        super().__init__(alpha=alpha, beta=beta, n_hops=n_hops, dtype=dtype, weights=weights)


class InDegreeKernel(GraphKernel):
    """The paper's in-degree normalised adjacency with self-loops ``D_in^-1 (A + I)``.

    Parameters
    ----------
    weights : {"raw", "log1p", "binary"}, default="raw"
        How the edge weights enter the kernel
        (:mod:`~digraph_askls.kernels._weights`): as given, ``log(1 + w)``, or every edge
        weighing 1.

    Examples
    --------
    >>> from digraph_askls.kernels import InDegreeKernel
    >>> InDegreeKernel().make([(0, 1)]).toarray()
    array([[1. , 0. ],
           [0.5, 0.5]])
    """

    gammas = (1.0,)

    def __init__(self, weights="raw"):
        self.weights = weights

    def _build(self, adjacency, features):
        return get_in_degree_kernel(adjacency)


class LinkProfileKernel(GraphKernel):
    """Similarity of the nodes' out-link rows and in-link rows, raised to a power.

    See :func:`~digraph_askls.kernels.get_link_profile_kernel`. Suits graphs where a
    link is not a vote (web pages, Wikipedia): nodes that link to the same pages are
    alike, whatever the classes of those pages.

    Parameters
    ----------
    out_weight, in_weight, power, normalization
        As in :func:`~digraph_askls.kernels.get_link_profile_kernel`.
    weights : {"raw", "log1p", "binary"}, default="raw"
        How the edge weights enter the profiles
        (:mod:`~digraph_askls.kernels._weights`): as given, ``log(1 + w)``, or every edge
        weighing 1.

    Examples
    --------
    >>> from digraph_askls.kernels import LinkProfileKernel
    >>> LinkProfileKernel(power=1).make([(0, 2), (1, 2)]).shape
    (3, 3)
    """

    gammas = (3.0, 10.0, 30.0, 100.0)

    def __init__(self, out_weight=1.0, in_weight=0.5, power=2, normalization="cosine",
                 weights="raw"):
        self.out_weight = out_weight
        self.in_weight = in_weight
        self.power = power
        self.normalization = normalization
        self.weights = weights

    def _build(self, adjacency, features):
        return get_link_profile_kernel(adjacency, self.out_weight, self.in_weight,
                                       self.power, self.normalization)


class AttributeKernel(GraphKernel):
    """Node features averaged over growing neighbourhoods, compared linearly.

    See :func:`~digraph_askls.kernels.get_attribute_kernel`. ``propagation="directed"``
    gives the asymmetric kernel whose source map travels along out-links and target
    map along in-links. Each link counts once in the means, whatever its weight.

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
                 self_loops=True, dtype="float32"):
        self.hops = hops
        self.propagation = propagation
        self.self_weight = self_weight
        self.renormalize = renormalize
        self.self_loops = self_loops
        self.dtype = dtype

    def _build(self, adjacency, features):
        return get_attribute_kernel(adjacency, features, self.hops, self.propagation,
                                    self.self_weight, self.renormalize, self.self_loops,
                                    self.dtype)


class SmoothedAttributeKernel(GraphKernel):
    """Node features smoothed by personalised PageRank over the graph, compared linearly.

    See :func:`~digraph_askls.kernels.get_smoothed_attribute_kernel`: one map the width
    of the features, each feature's weight shared by all distances. Suits graphs whose
    neighbours share classes when few nodes are labelled, where the per-hop blocks of
    :class:`AttributeKernel` have too many weights to learn. Each link counts once,
    whatever its weight. The diffusion steps run in
    ``dtype``: float32 by default, as the other propagated kernels' steps, which halves
    their memory and takes about 0.6 times float64's time on CiteSeer's 3,703 attributes;
    its rounding (about 1e-7 relative in the map) left every choice and accuracy of 28
    development fits as float64 made them (``docs/results/speed.md``).

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import SmoothedAttributeKernel
    >>> SmoothedAttributeKernel().make([(0, 1), (1, 2)], features=np.eye(3)).n_features
    3
    """

    needs_features = True
    gammas = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)

    def __init__(self, alpha=0.1, n_steps=10, dtype="float32"):
        self.alpha = alpha
        self.n_steps = n_steps
        self.dtype = dtype

    def _build(self, adjacency, features):
        # A recipe saved before it had a dtype diffused in float64.
        return get_smoothed_attribute_kernel(adjacency, features, self.alpha, self.n_steps,
                                             getattr(self, "dtype", "float64"))


class RoleKernel(GraphKernel):
    """Kernel of structural-role features (degrees, reciprocity, attribute amount).

    See :func:`~digraph_askls.kernels.get_role_kernel`: linear in the standardised
    features, or, with ``bins``, one-hot in quantile bins of degrees and attribute
    amount. Uses the node features when given, but does not need them.

    Parameters
    ----------
    bins : int, optional
        As in :func:`~digraph_askls.kernels.get_role_kernel`.
    weights : {"raw", "log1p", "binary"}, default="raw"
        How the edge weights enter the strengths (sums of weights)
        (:mod:`~digraph_askls.kernels._weights`): as given, ``log(1 + w)``, or every edge
        weighing 1.

    Examples
    --------
    >>> from digraph_askls.kernels import RoleKernel
    >>> RoleKernel().make([(0, 1), (1, 2)]).n_features
    10
    """

    gammas = (0.1, 1.0, 10.0)

    def __init__(self, bins=None, weights="raw"):
        self.bins = bins
        self.weights = weights

    def _build(self, adjacency, features):
        return get_role_kernel(adjacency, features=features, bins=self.bins)

    def _build_on(self, adjacency, features, reference):
        return get_role_kernel(adjacency, features=features, bins=self.bins,
                               reference=reference)
