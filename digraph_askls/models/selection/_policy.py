"""Step 1 of the selection, the policy: its thresholds in one object, and the solver
settings of one fit."""

from dataclasses import dataclass

import numpy as np

from .._merge import Merge

__all__ = ["AUTO_MERGES", "FitSettings", "SelectionPolicy", "auto_merges", "own_view"]

#: Merges that ``merge="auto"`` compares at the winning kernel.
AUTO_MERGES = (Merge("joint"), Merge("blend"), Merge("mean"))


@dataclass(frozen=True)
class SelectionPolicy:
    """The thresholds that decide what the selection tries and how.

    ``NodeClassifier(policy=...)`` takes one; the default values are the library's.

    Attributes
    ----------
    few_labels_per_class : int, default=50
        With at most this many labelled nodes per class (the median class), the
        candidates gain the smoothed attributes (:func:`~._candidates.default_kernels`),
        ``merge="auto"`` compares the mean view with the stackers, and a walk kernel's
        folds are not joined into two.
    vote_labels_per_class : int, default=100
        Without node features and with at most this many labelled nodes per class (the
        median class), the personalised-PageRank vote
        (:class:`~digraph_askls.kernels.VoteKernel`) is a candidate beside the walk kernel
        (the development draws that set it: ``docs/results/few_labels.md``; the nodes no
        walk joins to a labelled node take the class of the labelled nodes like them,
        :func:`~._out_of_fold.silent_prior`).
    large_graph : int, default=20_000
        Graphs of more nodes than this are large: their walk kernel takes 10 steps, and
        the candidates that need a decomposition are ranked on at most
        ``large_graph_sample`` labelled nodes.
    large_graph_sample : int, default=1000
        See ``large_graph``: above it an ``O(m^3)`` decomposition would cost more than
        the walk kernel's solve on the whole graph, which a PageRank vote's price bounds
        (``docs/results/speed.md``). The winner is then scored on every labelled node.
    spectral_max_train : int, default=5000
        Largest number of labelled nodes whose dense training kernel is decomposed (its
        cost: ``docs/results/speed.md``); above it the candidates are ranked
        on a stratified sample of this size.
    walk_gamma : float, default=1e-5
        gamma of a walk kernel scored by its one-solve folds. The stackers standardise
        the view scores, which stop changing as gamma shrinks (they tend to the kernel's
        votes ``K(x, X) y`` and ``K(X, x)^T y``); at this gamma the solve meets its
        tolerance after one or two products with the kernel.
    merge_folds : int, default=5
        The merges are cross-validated on the selection folds joined into at most this
        many.
    merge_cv_max : int, default=2000
        Up to this many labelled nodes the winner's merges are compared by
        cross-validation; above, the joint stacker is kept (it reads patterns across
        classes, and with this many nodes it no longer overfits) and its estimate comes
        from the ranking score.
    walk_step_budget : float, default=2e8
        A walk kernel's folds each cost the columns of their labels in the same walk
        steps: it takes the selection folds joined into as many as keep ``folds *
        columns * steps * stored links`` below this (about a fifth of a second of steps
        on 2 cores), and at least two.
    racing_sample : int or None, default=500
        With more than twice this many labelled nodes (on a graph of at most
        ``large_graph`` nodes), the candidates race (:mod:`~._racing`): all are ranked
        on a stratified sample of this many labelled nodes, and the best of them
        (``racing_keep``) are scored again on all of them, at each of their gammas (on a
        stratified sample of ``spectral_max_train`` where there are more, unless every
        finalist has explicit maps thin enough to decompose in ``O(m d^2)``,
        :func:`~digraph_askls.models._decomposition.thin_route`). None ranks
        every candidate on every labelled node (up to ``spectral_max_train``).
    racing_keep : int, default=1
        At most this many candidates go on to the race's second round: those the sample
        cannot tell from the best, best first (:func:`~._racing.survivors`). With one,
        the sample chooses the kernel and every labelled node its gamma; more finalists
        cost a decomposition each (``benchmarks/bench_racing.py``, measured in
        ``docs/results/speed.md``).
    estimate_interval_max : float, default=0.3
        ``selection_["accuracy_reliable"]`` is False where the interval of the accuracy
        estimate (:func:`~._estimate.selection_estimate`) is wider than this: too few
        labelled nodes for one estimate to say much (with about 60 or fewer the 90 %
        interval spans more than 0.3). Over many draws its mean error stayed within
        -0.07 and +0.03 of the test accuracy on development draws; a single one can be
        far off.
    min_stacked_per_class : int, default=3
        Under class weights, ``merge="auto"`` compares the stacking merges only where
        every labelled class has at least this many labelled nodes: with two, a stacker
        learns a class from one node in each fold, and its held-out decisions, weighed
        by the class's cost, won the selection on noise in development (the long-tail
        protocol, seed 0: balanced accuracy 0.35 on CiteSeer's test nodes for a held-out
        0.58), where the mean view's did not.
    dense_multilabel_nodes : int, default=4000
        For several labels per node on a graph without features: up to this many nodes
        the candidates are dense kernels (the co-occurrence kernel first, each labelled
        block decomposed in ``O(m^3)``); on a larger graph the factored spectral kernel
        (:class:`~digraph_askls.kernels.SpectralEmbeddingKernel`), whose fit costs
        ``O(m d^2)``, so that more labelled nodes cost little more
        (``benchmarks/bench_multilabel.py``).
    trivial_margin : float, default=0.02
        For several labels per node: ``fit`` warns where no learnt answer beats the
        better trivial answer (every label; the most probable label alone) by this much
        of the scorer on held-out folds; ``predict`` answers whichever scored best there
        (:func:`~._answers.choose_answer`).
    """

    few_labels_per_class: int = 50
    vote_labels_per_class: int = 100
    large_graph: int = 20_000
    large_graph_sample: int = 1000
    spectral_max_train: int = 5000
    walk_gamma: float = 1e-5
    merge_folds: int = 5
    merge_cv_max: int = 2000
    walk_step_budget: float = 2e8
    racing_sample: object = 500
    racing_keep: int = 1
    estimate_interval_max: float = 0.3
    min_stacked_per_class: int = 3
    dense_multilabel_nodes: int = 4000
    trivial_margin: float = 0.02

    def ranking_sample_size(self, n_nodes, n_labelled=None):
        """At most this many labelled nodes rank the candidates on a graph of ``n_nodes``
        with ``n_labelled`` labelled nodes."""
        if n_nodes > self.large_graph:
            return self.large_graph_sample
        if self.races(n_nodes, n_labelled):
            return self.racing_sample
        return self.spectral_max_train

    def races(self, n_nodes, n_labelled):
        """Whether the candidates race (see ``racing_sample``) on a graph of ``n_nodes``
        with ``n_labelled`` labelled nodes: more than twice ``racing_sample`` of them on
        a graph of at most ``large_graph`` nodes. Above ``spectral_max_train`` labelled
        nodes the second round scores the survivors on a stratified sample of that many
        (a decomposition of every labelled node would cost more than the ranking it
        saves: film, 6,080 labelled nodes and 5,592 features) and the winner is then
        scored on every labelled node, as where every candidate is ranked on that sample."""
        return (self.racing_sample is not None and n_labelled is not None
                and 2 * self.racing_sample < n_labelled
                and n_nodes <= self.large_graph)


#: The library's thresholds.
DEFAULT_POLICY = SelectionPolicy()


@dataclass(frozen=True)
class FitSettings:
    """How one fit solves its systems, built once in ``NodeClassifier.fit``.

    Attributes
    ----------
    solver, preconditioner, regularization, tol, max_iter
        As in :class:`~digraph_askls.AsKLSClassifier` (``tol`` is the solvers'
        ``rtol``).
    random_state : int, RandomState or None
        Seeds the selection folds and the stackers.
    verbose : bool
        Show a walk kernel's steps in progress bars.
    class_weights : tuple of (int, float) or None
        The weight of each labelled class's errors, as (code, weight) pairs in the order
        of the codes (one per class with labelled nodes) (``NodeClassifier(class_weight=...)``,
        computed once on every labelled node, so that every fold keeps the weights of
        the whole training set); None: unweighted.
    """

    solver: str = "auto"
    preconditioner: object = "auto"
    regularization: object = "auto"
    tol: float = 1e-4
    max_iter: object = None
    random_state: object = None
    verbose: bool = False
    class_weights: tuple = None

    def node_weights(self, codes):
        """The error weight of each node of class codes ``codes`` as the selection numbers
        them (``0 ..``: the labelled classes in order), or None (unweighted)."""
        if self.class_weights is None:
            return None
        return np.array([weight for _, weight in self.class_weights])[np.asarray(codes)]

    def solve_options(self):
        """Keywords of :func:`~digraph_askls.linalg.solve_system`."""
        return dict(solver=self.solver, regularization=self.regularization, rtol=self.tol,
                    maxiter=self.max_iter, preconditioner=self.preconditioner)

    def estimator_params(self, **params):
        """Parameters of an :class:`~digraph_askls.AsKLSClassifier` under these settings,
        with ``params`` (``gamma``, ``merge``, ``n_folds``); the class weights as a dict
        code -> weight (``class_weight``), None without them."""
        weights = None if self.class_weights is None else dict(self.class_weights)
        return dict(solver=self.solver, regularization=self.regularization, tol=self.tol,
                    max_iter=self.max_iter, random_state=self.random_state,
                    preconditioner=self.preconditioner, class_weight=weights, **params)


def own_view(recipe):
    """The one view a kernel is read through (:attr:`~digraph_askls.kernels.GraphKernel.views`,
    the personalised-PageRank vote's target view), or None."""
    views = getattr(recipe, "views", None)
    return views[0] if views and len(views) == 1 else None


def auto_merges(labels_per_class=None, policy=None, recipe=None, as_given=False):
    """What ``merge="auto"`` means, in every place a fit reads it: the merges compared.

    - A configuration fitted as given (a preset, an ``operator``): the joint stacker,
      fitted first, and its blend with the mean view, kept where the stand-ins of the
      estimator's own stacking scores prefer it (:mod:`~._single`).
    - A kernel read through its own view (:func:`own_view`): that view alone.
    - With few labelled nodes per class (the median class, ``labels_per_class``, at most
      ``policy.few_labels_per_class``) the mean of the views, the joint stacker and their
      blend: a stacker may read patterns across classes (a directed SBM's flows) that the
      mean view cannot, and the mean view may rank the classes better than a stacker
      learnt from a handful of nodes; the cross-validation decides
      (:func:`~._winner.choose_merge`). With more, the stackers alone: the mean view has
      no threshold of its own for classes of unequal sizes (a binary graph's sign of
      zero), and its held-out accuracy, close to theirs, would win on noise.

    Examples
    --------
    >>> [m.name for m in auto_merges(10, DEFAULT_POLICY)]
    ['joint', 'blend', 'average']
    >>> [m.name for m in auto_merges(80, DEFAULT_POLICY)]
    ['joint', 'blend']
    """
    if as_given:
        return (Merge("joint"), Merge("blend"))
    view = own_view(recipe)
    if view is not None:
        return (Merge(view),)
    if labels_per_class is not None and labels_per_class > policy.few_labels_per_class:
        return tuple(merge for merge in AUTO_MERGES if merge.stacking)
    return AUTO_MERGES
