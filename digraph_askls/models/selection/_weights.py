"""The edge weights of a weighted graph, chosen for it: raw, ``log1p`` or 0/1.

Counts on edges (messages, transactions, citations) may carry the classes (more of
them inside a class) or say nothing of them, with heavy tails that let one edge of weight
10^5 drown a node's other links in every degree normalisation. Which reading of the
weights suits a graph is a property of the graph, like gamma, so the selection chooses
it on the labelled nodes (:data:`~digraph_askls.kernels._weights.WEIGHTS`).

A transform is a new kernel, with its own build and decomposition, not a free axis like
gamma, so the transforms are screened before the selection instead of multiplying its
candidates: under each transform, the labelled nodes of each of a few stratified folds
are scored by the votes of the walk kernel of the candidates (the first structural family
of :func:`~._candidates.default_kernels`, its first :data:`SCREEN_HOPS` terms) from the
labelled nodes of the other folds, ``K(x, X) y`` and ``K(X, x)^T y`` (the scores the walk
kernel's own views tend to as gamma shrinks, :class:`~._policy.SelectionPolicy`'s
``walk_gamma``), each class's labels weighing 1 in all. The transform of the most held-out
hits is given to every candidate that reads weights; the selection then runs once, as on
any graph. The screen costs two walk steps per transform with a handful of columns and
builds no kernel (:func:`walk_votes`): on the weighted graphs of
``docs/results/weighted.md`` a fit costs 1.0 to 1.1 times the fit on the same 0/1
edges, 1.3 times on a graph of 100,000 nodes.

The screen judges by accuracy, on its own stratified folds, whatever ``scoring`` and
``cv`` the selection is given: it only ranks three readings of one graph.

A graph whose edges all weigh the same is not screened: every transform reads it alike
(up to a scale), and its recipes and decisions stay as they are.
"""

import logging

import numpy as np
from scipy import sparse
from sklearn.base import clone

from ...kernels import PowerKernel, SumKernel, WalkKernel
from ...kernels._weights import WEIGHTS, has_equal_weights, transform_weights
from .._folds import make_folds
from ._policy import DEFAULT_POLICY

__all__ = ["SCREEN_FOLDS", "SCREEN_HOPS", "TIE_ORDER", "screen_weights", "walk_votes",
           "with_weights"]

logger = logging.getLogger(__name__)

#: At most this many folds score the transforms (fewer where the walk's steps would cost
#: more than the policy's ``walk_step_budget``, at least two).
SCREEN_FOLDS = 5
#: The terms of the walk kernel's series that the screen's votes read: two steps reach
#: the labelled nodes that a heavy edge hides or shows.
SCREEN_HOPS = 2

#: Equal scores go to the first of these: ``log1p`` is the safe middle where the votes
#: cannot tell (within 0.02 of the best transform on every kind of weights of
#: ``docs/results/weighted.md``, where raw weights lose 0.26 on one and 0/1 edges 0.01
#: on another).
TIE_ORDER = ("log1p", "binary", "raw")


def with_weights(recipe, weights):
    """``recipe`` with every part that reads edge weights (a ``weights`` parameter) set to
    ``weights``; the parts that read none are kept as they are.

    Examples
    --------
    >>> from digraph_askls.kernels import AttributeKernel, LinkProfileKernel, RoleKernel
    >>> with_weights(LinkProfileKernel() + 0.1 * RoleKernel(bins=16), "log1p").parts
    [(1.0, LinkProfileKernel(weights='log1p')), (0.1, RoleKernel(bins=16, weights='log1p'))]
    >>> with_weights(AttributeKernel(hops=0), "binary")
    AttributeKernel(hops=0)
    """
    if isinstance(recipe, SumKernel):
        return SumKernel([(w, with_weights(part, weights)) for w, part in recipe.parts],
                         recipe.gammas)
    if isinstance(recipe, PowerKernel):
        return PowerKernel(with_weights(recipe.base, weights), recipe.power)
    if "weights" in recipe.get_params(deep=False):
        return clone(recipe).set_params(weights=weights)
    return recipe


def _screen_recipe(recipes):
    """The walk kernel among ``recipes`` (not the vote, which reads the same walks through
    one view), or None."""
    return next((recipe for recipe in recipes
                 if type(recipe) is WalkKernel and recipe.weights == "raw"), None)


def screen_weights(recipes, adjacency, train, train_codes, random_state=None,
                   policy=DEFAULT_POLICY):
    """The candidate ``recipes`` with the edge weights chosen for the graph (see the module).

    Parameters
    ----------
    recipes : list of GraphKernel
        The candidates (:func:`~._candidates.default_kernels`).
    adjacency : scipy.sparse.csr_array
        The graph, canonical.
    train : ndarray of int
        The labelled nodes.
    train_codes : ndarray of int
        Their classes.
    random_state : int, RandomState or None
        Seeds the folds.
    policy : SelectionPolicy

    Returns
    -------
    recipes : list of GraphKernel
        Unchanged where every edge weighs the same or no walk kernel is among them;
        else each with the chosen ``weights``.
    screen : dict or None
        The held-out accuracy of the votes under each transform (None where nothing was
        screened).

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.kernels import WalkKernel
    >>> edges = [(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0), (3, 4, 1.0), (4, 5, 1.0),
    ...          (5, 3, 1.0), (2, 3, 1e6)]
    >>> from digraph_askls.graph import get_adjacency
    >>> adjacency, _ = get_adjacency(edges)
    >>> recipes, screen = screen_weights([WalkKernel()], adjacency, np.array([0, 1, 3, 4]),
    ...                                  np.array([0, 0, 1, 1]), random_state=0)
    >>> sorted(screen)
    ['binary', 'log1p', 'raw']
    """
    screened = _screen_recipe(recipes)
    if screened is None or has_equal_weights(adjacency):
        return recipes, None
    codes = np.unique(train_codes, return_inverse=True)[1]
    n_classes = int(codes.max()) + 1
    hops = min(screened.n_hops, SCREEN_HOPS)
    # Two views, each a product with the links both ways per step, per transform.
    work = len(WEIGHTS) * 4 * n_classes * hops * adjacency.nnz
    n_folds = int(min(SCREEN_FOLDS, max(2, policy.walk_step_budget // max(1, work))))
    folds = make_folds(codes, n_folds, random_state)
    screen = {name: float(np.mean(_vote_hits(transform_weights(adjacency, name), screened,
                                             hops, train, codes, folds, n_classes)))
              for name in WEIGHTS}
    chosen = max(TIE_ORDER, key=lambda name: screen[name])
    logger.info("edge weights %s chosen by the votes of %r: held-out accuracy %s", chosen,
                screened, {name: round(value, 3) for name, value in screen.items()})
    return [with_weights(recipe, chosen) for recipe in recipes], screen


def walk_votes(adjacency, X, Y, alpha, beta, hops):
    """``(K X, K^T Y)`` for the walk kernel ``K = sum_{k=1..hops} alpha^(k-1) W^k``,
    ``W = D^-1 (A + beta A^T + I)`` of :func:`~digraph_askls.kernels.get_ppr_kernel`
    (``A = adjacency^T``), both series through the same sparse products: the kernel's
    first ``hops`` terms without building its operator (no transposed copy of the
    links), which is all the screen needs; in the precision of ``X``.
    """
    links = sparse.csr_array(adjacency)
    degrees = (np.asarray(links.sum(axis=0)).ravel() + beta * np.asarray(
        links.sum(axis=1)).ravel() + 1.0)[:, None].astype(X.dtype)
    links = sparse.csr_array((links.data.astype(X.dtype), links.indices, links.indptr),
                             shape=links.shape)
    k = X.shape[1]
    # Forward: W u = D^-1 (A u + beta A^T u + u); backward: W^T v = (A^T + beta A + I) D^-1 v.
    forward, backward = np.zeros_like(X), np.zeros_like(Y)
    for _ in range(hops):
        u = X + alpha * forward
        v = (Y + alpha * backward) / degrees
        block = np.hstack([u, v])
        along = links @ block              # A^T [u, v]: sums over out-links
        against = links.T @ block          # A [u, v]: sums over in-links
        forward = (against[:, :k] + beta * along[:, :k] + u) / degrees
        backward = along[:, k:] + beta * against[:, k:] + v
    return forward, backward


def _vote_hits(adjacency, walk, hops, train, codes, folds, n_classes):
    """Whether each labelled node's class is the arg-max of the votes of ``walk`` (a
    :class:`~digraph_askls.kernels.WalkKernel`, its first ``hops`` terms) from the
    labelled nodes outside its fold: both views, each scaled to unit norm in each fold."""
    m, n = train.size, adjacency.shape[0]
    # float32, as the walk kernel hops: its rounding is far below a vote's margin
    labels = np.zeros((n, len(folds) * n_classes), dtype=np.float32)
    for f, held in enumerate(folds):
        kept = np.ones(m, dtype=bool)
        kept[held] = False
        for c in range(n_classes):
            members = np.flatnonzero(kept & (codes == c))
            if members.size:
                labels[train[members], f * n_classes + c] = 1.0 / members.size
    source, target = walk_votes(adjacency, labels, labels, float(walk.alpha),
                                float(walk.beta), hops)
    source = source[train].astype(np.float64)
    target = target[train].astype(np.float64)
    hits = np.zeros(m, dtype=bool)
    for f, held in enumerate(folds):
        block = slice(f * n_classes, (f + 1) * n_classes)
        votes = sum(view[held, block] / max(np.linalg.norm(view[:, block]), 1e-300)
                    for view in (source, target))
        hits[held] = votes.argmax(axis=1) == codes[held]
    return hits
