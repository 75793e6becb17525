"""Step 2 of the selection, what is tried: the candidate kernels of
``NodeClassifier(kernel="auto")`` (or what a ``kernel`` parameter stands for), each with
its gamma grid and the engine that scores it (:class:`Candidate`)."""

from dataclasses import dataclass

from ...kernels import (AttributeKernel, CooccurrenceKernel, GraphKernel, LinkProfileKernel,
                        SpectralEmbeddingKernel,
                        NamedKernel, RoleKernel, SmoothedAttributeKernel, VoteKernel,
                        WalkKernel)
from ._engines import Engine
from ._policy import DEFAULT_POLICY

__all__ = ["Candidate", "as_recipes", "candidates_of", "default_kernels", "multilabel_kernels",
           "scored_gammas"]


@dataclass(frozen=True)
class Candidate:
    """One kernel to try: its recipe, the gammas to score it at, and its engine.

    Attributes
    ----------
    kernel : GraphKernel
        The recipe (what ``selection_["kernel"]`` reports).
    gammas : tuple of float
    engine : Engine
        Gives its out-of-fold scores at each gamma (:mod:`~._engines`); it holds the
        kernel built on all nodes (``engine.kernel``).
    merges : tuple of Merge or None
        The merges it is judged and fitted with, where they are its own (a kernel read
        through one view, :attr:`~digraph_askls.kernels.GraphKernel.views`); None: those
        of the selection.
    """

    kernel: GraphKernel
    gammas: tuple
    engine: Engine
    merges: tuple = None


def default_kernels(n_train, has_features, labels_per_class=None, n_nodes=None,
                    policy=DEFAULT_POLICY):
    """The candidate kernels of ``NodeClassifier(kernel="auto")``.

    With node features, three attribute kernels: features averaged over 5 hops of the
    undirected graph (graphs whose neighbours share classes: citations); own features
    beside the separate means of out- and in-neighbours, each at unit length (web pages,
    whose neighbours differ from them); own features beside role bins of degree and text
    length (co-occurrence graphs whose classes follow how much a node says). Then, for
    the structure, the walk kernel (homophilous graphs) and, where its dense training
    block is affordable, the link-profile kernel (graphs whose links are not votes) with
    a little of the role bins (and of the features).

    With node features and few labelled nodes per class (``labels_per_class``, the
    median over the classes, at most ``policy.few_labels_per_class``), one more first:
    the features smoothed by personalised PageRank
    (:class:`~digraph_askls.kernels.SmoothedAttributeKernel`), one weight per feature,
    shared by all distances. Without features and with few labelled nodes per class, the
    personalised-PageRank vote (:class:`~digraph_askls.kernels.VoteKernel`) after the
    walk kernel: the selection keeps it unless the walk kernel clearly beats it
    (:func:`~._select._prefer_vote`). With features it is not tried: the attribute
    kernels carry those graphs. Measured per graph in ``docs/results/directed.md`` and
    ``docs/results/few_labels.md``.
    """
    few = labels_per_class is not None and labels_per_class <= policy.few_labels_per_class
    kernels = []
    if has_features:
        if few:
            kernels.append(SmoothedAttributeKernel())
        kernels += [
            AttributeKernel(),
            AttributeKernel(hops=1, propagation="both", self_weight=2.0, renormalize=True,
                            self_loops=False),
            AttributeKernel(hops=0) + RoleKernel(bins=16),
        ]
    if n_train <= policy.spectral_max_train and (n_nodes or 0) <= policy.large_graph:
        kernels.append(WalkKernel())
        if (not has_features and labels_per_class is not None
                and labels_per_class <= policy.vote_labels_per_class):
            kernels.append(VoteKernel())
    else:
        # With many labelled nodes a labelled one is a few steps away, and on a large
        # graph of some average degree 10 steps reach most of it: they classify as well as
        # 20 (directed SBMs, Pubmed; docs/results/speed.md) at half the cost.
        kernels.append(WalkKernel(n_hops=10))
    if n_train <= policy.spectral_max_train:
        profile = LinkProfileKernel() + 0.1 * RoleKernel(bins=16)
        if has_features:
            profile = profile + 0.05 * AttributeKernel(hops=0)
        kernels.append(profile)
    return kernels


def multilabel_kernels(n_train, has_features, labels_per_class=None, n_nodes=None,
                       policy=DEFAULT_POLICY):
    """The candidate kernels of ``NodeClassifier(kernel="auto")`` for a multi-label
    target: :func:`default_kernels`, and first, on a graph without node features of at
    most ``policy.large_graph`` nodes, the co-occurrence of nodes on short walks
    (:class:`~digraph_askls.kernels.CooccurrenceKernel`, NetMF's matrix as a kernel; dense,
    ``n_nodes^2`` numbers). Multi-label graphs without attributes are the embedding
    literature's (BlogCatalog: friendships, interest groups), whose labels are
    communities that walks of 10 steps reveal better than the walk kernel's damped
    series (development split of BlogCatalog, seed 0, half the nodes labelled: top-k
    micro-F1 0.40 against 0.18). Single-label targets keep :func:`default_kernels`: the
    kernel has not been through their comparison yet.

    On a graph without features of more than ``policy.dense_multilabel_nodes`` nodes
    every one of those is a dense ``m x m`` block decomposed in ``O(m^3)``, a cost that
    grows with the labelled nodes (BlogCatalog, one thread: 95 s with 10 % labelled, 402 s
    with 50 %): the candidate there is the factored spectral kernel
    (:class:`~digraph_askls.kernels.SpectralEmbeddingKernel`, 256 maps), paid once by
    a filtered subspace iteration and then ``O(m d^2)``
    (``benchmarks/bench_multilabel.py``).

    Examples
    --------
    >>> [type(k).__name__ for k in multilabel_kernels(100, False, n_nodes=500)][:2]
    ['CooccurrenceKernel', 'WalkKernel']
    >>> type(multilabel_kernels(100, True, n_nodes=500)[0]).__name__
    'AttributeKernel'
    >>> [type(k).__name__ for k in multilabel_kernels(5000, False, n_nodes=10_000)]
    ['SpectralEmbeddingKernel']
    """
    if not has_features and (n_nodes or 0) > policy.dense_multilabel_nodes:
        return [SpectralEmbeddingKernel()]
    kernels = default_kernels(n_train, has_features, labels_per_class, n_nodes, policy)
    if not has_features and (n_nodes or 0) <= policy.large_graph:
        kernels.insert(0, CooccurrenceKernel())
    return kernels


def as_recipes(kernel, kernel_params=None):
    """The list of recipes a ``kernel`` parameter stands for (a name, a recipe, a list)."""
    items = kernel if isinstance(kernel, list) else [kernel]
    if not items:
        raise ValueError("kernel must name at least one kernel, got an empty list")
    recipes = []
    for item in items:
        if isinstance(item, GraphKernel):
            recipes.append(item)
        elif isinstance(item, str):
            recipes.append(NamedKernel(item, kernel_params))
        else:
            raise TypeError(f"kernel must be 'auto', a kernel name, a GraphKernel or a list "
                            f"of these, got {type(item).__name__} ({item!r:.60})")
    return recipes


def scored_gammas(engine, grid, kernel_grid, walk_gamma):
    """The gammas a kernel is scored at, decided here from what its engine declares each
    gamma costs (:attr:`~._engines.Engine.cost_per_gamma`); the grid given is never
    rewritten.

    A grid given by the user (``kernel_grid`` False) is scored as given. A kernel's own
    grid (:func:`~digraph_askls.kernels.gamma_grid`) is scored whole where gammas cost
    nothing more (one decomposition serves them all); a walk kernel scored in one solve
    is scored at ``walk_gamma`` alone (:class:`~._policy.SelectionPolicy`: the
    standardised view scores stop changing as gamma shrinks); a kernel that costs a
    solve per fold and gamma at its grid's first gamma.

    Examples
    --------
    >>> from types import SimpleNamespace as S
    >>> scored_gammas(S(cost_per_gamma="one solve"), (1.0, 10.0), True, 1e-5)
    (1e-05,)
    >>> scored_gammas(S(cost_per_gamma="one solve"), (1.0, 10.0), False, 1e-5)
    (1.0, 10.0)
    """
    if not kernel_grid or engine.cost_per_gamma == "none":
        return tuple(grid)
    if engine.cost_per_gamma == "one solve":
        return (walk_gamma,)
    return tuple(grid[:1])


def candidates_of(recipes, grids, kernel_grid, adjacency, features, engine_of,
                  merges_of=None, walk_gamma=None, cache=None):
    """The :class:`Candidate` of each recipe, built on the graph when it is reached (one
    kernel and its engine's decomposition at a time).

    Parameters
    ----------
    recipes : list of GraphKernel
    grids : list of tuple of float
        The gammas of each recipe.
    kernel_grid : bool
        Whether the grids are the kernels' own (an engine that costs a solve per gamma
        takes fewer, :func:`scored_gammas`).
    adjacency, features
        The graph and the nodes' attributes.
    engine_of : callable
        ``engine_of(kernel)``: the engine of the kernel on all nodes
        (:func:`~._engines.engine_for`).
    merges_of : callable, optional
        ``merges_of(recipe)``: the candidate's own merges, or None.
    walk_gamma : float, optional
        The gamma of a walk kernel scored in one solve on its own grid
        (:func:`scored_gammas`); None: the default policy's.
    cache : SearchCache, optional
        Kernels and engines already built by earlier searches of the same nodes and
        folds (:class:`~._cache.SearchCache`), and where to keep those built here.
    """
    walk_gamma = DEFAULT_POLICY.walk_gamma if walk_gamma is None else walk_gamma
    for recipe, grid in zip(recipes, grids):
        def build(recipe=recipe):
            return engine_of(recipe.make(adjacency, features))

        engine = build() if cache is None else cache.engine(recipe, build)
        yield Candidate(recipe, scored_gammas(engine, grid, kernel_grid, walk_gamma), engine,
                        None if merges_of is None else merges_of(recipe))
