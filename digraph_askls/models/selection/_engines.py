"""Step 4 of the selection: how a candidate gets its out-of-fold scores.

An engine per strategy, one interface (:class:`Engine`): ``engine.out_of_fold(gamma)``
gives the :class:`~._out_of_fold.OutOfFold` of the candidate at ``gamma`` on the engine's
folds, or None when its system is singular there.

* :class:`SpectralEngine`: one SVD of the training block (explicit maps with fewer
  features than samples, or a block the kernel forms directly) serves every gamma;
* :class:`WalkEngine`: a walk kernel known on all nodes solves all folds in one run
  whose products also score every node;
* :class:`SolvedEngine`: any other operator, a solve per fold.

:func:`engine_for` picks the engine a training block allows.
"""

import logging

import numpy as np
from scipy import sparse

from ..._memory import check_dense_allocation
from ...kernels import restrict_kernel
from ...linalg import NotPositiveDefinite, SingularSystemError
from .._capabilities import ExplicitMaps, FormsDense, map_width
from .._train_scores import scores_all_rows
from .._decomposition import (decompose, decompose_dense, dense_training_block, is_symmetric,
                         reduces_maps)
from .._folds import coarsen_folds
from ._out_of_fold import (cholesky_out_of_fold, solved_out_of_fold, spectral_out_of_fold,
                           walk_out_of_fold)

__all__ = ["BlockMemo", "Engine", "SolvedEngine", "SpectralEngine", "WalkEngine", "block_route",
           "engine_for", "on_every_node", "thin_maps_on", "winner_on_all"]

logger = logging.getLogger(__name__)


class Engine:
    """How one candidate kernel gets its out-of-fold scores (see the module).

    Attributes
    ----------
    name : str
        ``"spectral"``, ``"walk"`` or ``"solved"`` (what ``selection_["engine"]`` says).
    kernel : the kernel on all nodes
    codes : ndarray of int
        The class codes of the nodes it scores.
    folds : list of ndarray of int
        The held-out positions (in ``codes``) of each fold.
    on_sample : bool
        Whether it scores the ranking sample (else every labelled node).
    cost_per_gamma : {"none", "one solve", "a solve per fold"}
        What each further gamma costs, declared: it decides the gammas a kernel's own
        grid is scored at (:func:`~._candidates.scored_gammas`).
    """

    name = None
    cost_per_gamma = "none"

    def __init__(self, kernel, train_kernel, codes, folds, settings, on_sample):
        self.kernel = kernel
        self.train_kernel = train_kernel
        self.codes = codes
        self.folds = folds
        self.settings = settings
        self.on_sample = on_sample
        # The class weights of the whole labelled set, read at the nodes scored.
        self.weights = settings.node_weights(codes)
        self._scored = None

    def remember_scores(self):
        """Keep the out-of-fold scores of each gamma, for searches that score the same
        gamma again (:class:`~._cache.SearchCache`)."""
        if self._scored is None:
            self._scored = {}

    def out_of_fold(self, gamma, damp_singular=True):
        """The out-of-fold scores at ``gamma``, or None if the system is singular."""
        key = (float(gamma), damp_singular)
        if self._scored is not None and key in self._scored:
            return self._scored[key]
        try:
            oof = self._out_of_fold(gamma)
        except (SingularSystemError, NotPositiveDefinite) as exc:
            oof = self._on_singular(gamma, exc, damp_singular)
        if self._scored is not None:
            self._scored[key] = oof
        return oof

    def _on_singular(self, gamma, exc, damp_singular):
        logger.info("gamma=%g skipped: %s", gamma, exc)
        return None

    def _solve_each_fold(self, gamma):
        return solved_out_of_fold(self.train_kernel, self.codes, gamma, self.folds,
                                  self.weights, **self.settings.solve_options())


class SpectralEngine(Engine):
    """One decomposition of the training block, every gamma's folds from it."""

    name = "spectral"

    def __init__(self, kernel, train_kernel, codes, folds, settings, on_sample=True):
        super().__init__(kernel, train_kernel, codes, folds, settings, on_sample)
        self.decomposition = decompose(train_kernel, for_folds=True, weights=self.weights)

    def _out_of_fold(self, gamma):
        return spectral_out_of_fold(self.decomposition, self.codes, gamma, self.folds)

    def _on_singular(self, gamma, exc, damp_singular):
        """Where a fold's system is singular, ``damp_singular`` solves every fold damped
        instead (as ``regularization`` asks), one Krylov solve per fold; without it the
        candidate is skipped: in a search among several kernels and gammas a gamma at
        which the exact system is singular is not worth minutes of damped solves."""
        if damp_singular and self.settings.regularization != None:       # noqa: E711
            logger.info("gamma=%g: %s; solving each fold damped", gamma, exc)
            return self._solve_each_fold(gamma)
        return super()._on_singular(gamma, exc, damp_singular)


class WalkEngine(Engine):
    """All folds of a walk kernel in one solve (at the policy's ``walk_gamma`` where the
    grid is the kernel's own, :func:`~._candidates.scored_gammas`)."""

    name = "walk"
    cost_per_gamma = "one solve"

    def __init__(self, kernel, train_kernel, codes, folds, settings, on_sample, policy):
        super().__init__(kernel, train_kernel, codes,
                         walk_folds(train_kernel.K, folds, codes, policy), settings,
                         on_sample)

    def _out_of_fold(self, gamma):
        return walk_out_of_fold(self.train_kernel, self.codes, gamma, self.folds,
                                rtol=self.settings.tol, maxiter=self.settings.max_iter,
                                verbose=self.settings.verbose, weights=self.weights)


class SolvedEngine(Engine):
    """A solve per fold (any operator)."""

    name = "solved"
    cost_per_gamma = "a solve per fold"

    def _out_of_fold(self, gamma):
        return self._solve_each_fold(gamma)


def _has_thin_maps(train_kernel):
    """Whether the block has explicit maps with fewer features than samples."""
    m = train_kernel.shape[0]
    return isinstance(train_kernel, ExplicitMaps) and map_width(train_kernel, m) < m


def thin_maps_on(kernel, nodes):
    """Whether ``kernel``'s block on ``nodes`` is decomposed through its explicit maps
    (:func:`~.._decomposition.thin_route`: then at ``O(m d^2)``, linear in the nodes)."""
    if not isinstance(kernel, ExplicitMaps) or not map_width(kernel, np.inf) < len(nodes):
        return False                 # no maps, or none thinner: nothing to restrict
    return reduces_maps(restrict_kernel(kernel, nodes, nodes), for_folds=True)


def _forms_directly(train_kernel):
    """Whether the block is formed without products with an operator: an array, a sparse
    matrix or a kernel with ``to_dense``."""
    return (isinstance(train_kernel, np.ndarray) or sparse.issparse(train_kernel)
            or isinstance(train_kernel, FormsDense))


def _decomposable(train_kernel, policy):
    """Whether the training block is worth one SVD: explicit maps with fewer features than
    samples (thin SVD), or a block the kernel forms directly (arrays, sparse matrices,
    kernels with ``to_dense``) of at most ``policy.spectral_max_train`` samples. A plain
    operator such as a walk series would need ``m`` products with the whole graph."""
    m = train_kernel.shape[0]
    if _has_thin_maps(train_kernel):
        return True
    return _forms_directly(train_kernel) and m <= policy.spectral_max_train


def block_route(train_kernel, policy, n_gammas=None, walks=True):
    """The one rule of how a training block gets its out-of-fold scores:

    ``"cholesky"``
        scored at one gamma (``n_gammas`` 1) from one Cholesky factorisation: a block the
        kernel forms directly, not reduced through thinner explicit maps, of at most
        twice ``policy.spectral_max_train`` samples (:func:`_factorable`; a block that is
        not symmetric falls to the next rule);
    ``"spectral"``
        every gamma from one decomposition (an SVD, or a tridiagonal reduction of a
        symmetric block): thin explicit maps, or a block formed directly of at most
        ``policy.spectral_max_train`` samples (:func:`_decomposable`);
    ``"walk"``
        every fold in one solve whose products score every node (a walk kernel on its
        training nodes; ``walks`` False leaves it out);
    ``"solved"``
        a solve per fold (:func:`~digraph_askls.linalg.solve_system`).
    """
    if n_gammas == 1 and _factorable(train_kernel, policy):
        return "cholesky"
    if _decomposable(train_kernel, policy):
        return "spectral"
    if walks and scores_all_rows(train_kernel):
        return "walk"
    return "solved"


def engine_for(kernel, all_train, codes, ranked, folds, sample_folds, settings, policy):
    """The engine of the kernel ``kernel`` (on all nodes) with labelled nodes
    ``all_train`` of class codes ``codes``: judged on the nodes ``ranked`` (all of them,
    or a sample) with ``sample_folds`` when it needs a decomposition, a walk kernel on
    ``folds`` of every labelled node."""
    train_kernel = restrict_kernel(kernel, all_train[ranked], all_train[ranked])
    whole = ranked.size == codes.size
    how = block_route(train_kernel, policy)
    if how == "spectral":
        return SpectralEngine(kernel, train_kernel, codes[ranked], sample_folds, settings)
    if how == "walk":
        return WalkEngine(kernel, restrict_kernel(kernel, all_train, all_train),
                          codes[ranked] if whole else codes, folds, settings, whole, policy)
    return SolvedEngine(kernel, train_kernel, codes[ranked] if whole else codes,
                        sample_folds if whole else folds, settings, whole)


def walk_folds(K, folds, codes, policy):
    """The folds joined into as many as the walk's steps afford
    (``policy.walk_step_budget``), and two where the median class has more than
    ``policy.few_labels_per_class`` labelled nodes: each fold model then sees enough
    labels already, and more folds would only cost."""
    n_classes = np.unique(codes).size
    columns = 1 if n_classes == 2 else n_classes
    if np.median(np.bincount(codes)) > policy.few_labels_per_class:
        return coarsen_folds(folds, 2)
    work = columns * getattr(K, "n_hops", 1) * getattr(K, "stored_links", K.shape[0])
    affordable = int(policy.walk_step_budget // max(1, work))
    return coarsen_folds(folds, max(2, affordable))


class BlockMemo:
    """The training block of the last kernel scored on every labelled node, dense and
    decomposed, each made once for all the gammas it is scored at in a row.

    Valid among calls of :func:`on_every_node` on the same labelled nodes, folds and
    weights (one ``fit(valid=...)``: its candidates are fitted kernel by kernel). One
    kernel's block is kept at a time, so no more memory is held than while that kernel
    is scored; another kernel's block replaces it. The same arrays serve every gamma, so
    the numbers are those of forming and decomposing the block again.

    Examples
    --------
    >>> memo, made = BlockMemo(), []
    >>> kernel = object()
    >>> memo.dense(kernel, lambda: made.append(1) or "K") == memo.dense(kernel, list)
    True
    >>> memo.dense(object(), lambda: "K2"), len(made)        # another kernel: formed anew
    ('K2', 1)
    """

    def __init__(self):
        self._kernel, self._dense, self._decomposition = None, None, None

    def _of(self, kernel):
        if self._kernel is not kernel:
            self._kernel, self._dense, self._decomposition = kernel, None, None

    def dense(self, kernel, form):
        """The dense training block of ``kernel`` (``form()`` the first time)."""
        self._of(kernel)
        if self._dense is None:
            self._dense = form()
        return self._dense

    def decomposition(self, kernel, build):
        """The decomposition of ``kernel``'s training block (``build()`` the first
        time)."""
        self._of(kernel)
        if self._decomposition is None:
            self._decomposition = build()
        return self._decomposition


def on_every_node(kernel, gammas, fallback, all_train, codes, folds, settings, policy,
                  memo=None):
    """A kernel ranked on a sample, scored on every labelled node: the out-of-fold scores
    at each of ``gammas`` from one decomposition of the training block where it has thin
    maps or is small enough (a gamma at which a system is singular is left out), else, or
    where every gamma was singular, a damped solve per fold at ``fallback``.

    ``memo`` (a :class:`BlockMemo`), when given, keeps the kernel's dense training block
    and its decomposition for the next call with the same kernel at another gamma.

    Returns
    -------
    list of (gamma, OutOfFold, engine)
        ``engine`` is None for the decomposition's scores and ``"solved"`` for the
        solve's.
    """
    memo = BlockMemo() if memo is None else memo
    train_kernel = restrict_kernel(kernel, all_train, all_train)
    weights = settings.node_weights(codes)
    scored = []
    formed = None
    how = block_route(train_kernel, policy, len(gammas), walks=False)
    if how == "cholesky":
        scored, formed = _factorised(train_kernel, gammas[0], codes, folds, weights,
                                     form=lambda: memo.dense(kernel, lambda: (
                                         dense_training_block(train_kernel))))
        if scored:
            return scored
        how = block_route(train_kernel, policy, walks=False)
    if how == "spectral":
        decomposition = memo.decomposition(kernel, lambda: (
            decompose(train_kernel, for_folds=True, weights=weights) if formed is None
            else decompose_dense(formed, for_folds=True, weights=weights)))
        for gamma in gammas:
            try:
                scored.append((gamma, spectral_out_of_fold(decomposition, codes, gamma,
                                                           folds), None))
            except (SingularSystemError, NotPositiveDefinite) as exc:
                # The gamma chosen on the sample can make the system of every labelled
                # node singular (film, 6,080 labelled nodes, gamma 0.3): the folds are
                # then solved damped, as ``regularization`` asks of a single
                # configuration.
                logger.info("gamma=%g on every labelled node: %s", gamma, exc)
    if scored:
        return scored
    logger.info("gamma=%g on every labelled node: solving each fold damped", fallback)
    return [(fallback, solved_out_of_fold(train_kernel, codes, fallback, folds, weights,
                                          **settings.solve_options()), "solved")]


def _factorable(train_kernel, policy):
    """Whether a block is scored at one gamma by one factorisation (:func:`_factorised`):
    one the kernel forms directly, without explicit maps thin enough to decompose for
    less (:func:`~.._decomposition.thin_route`), of at most twice ``policy.spectral_max_train``
    samples (the factorisation and the inverse it gives cost about a fifth of a
    decomposition)."""
    m = train_kernel.shape[0]
    return (_forms_directly(train_kernel) and not reduces_maps(train_kernel, for_folds=True)
            and m <= 2 * policy.spectral_max_train)


def _factorised(train_kernel, gamma, codes, folds, weights=None, form=None):
    """``[(gamma, OutOfFold, None)]`` from one Cholesky factorisation where the block is
    symmetric (:func:`~._out_of_fold.cholesky_out_of_fold`); ``[]`` where it is
    not symmetric, or not positive definite at ``gamma`` (the caller decomposes). Also
    the dense block, for the caller to decompose without forming it again. ``form()``
    gives the dense block (default: formed from ``train_kernel``)."""
    m = train_kernel.shape[0]
    check_dense_allocation((3, m, m), what=f"the factorisation of a {m} x {m} training "
                                           f"kernel")
    K = dense_training_block(train_kernel) if form is None else form()
    if not is_symmetric(K):
        return [], K
    try:
        return [(gamma, cholesky_out_of_fold((K + K.T) / 2, codes, gamma, folds, weights),
                 None)], K
    except np.linalg.LinAlgError as exc:
        logger.info("gamma=%g: %s; decomposing instead", gamma, exc)
        return [], K


def winner_on_all(kernel, gamma, all_train, codes, folds, settings, policy, memo=None):
    """The winner ranked on a sample, scored on every labelled node at its gamma
    (:func:`on_every_node`, ``memo`` passed on). The out-of-fold scores and the engine's
    name (None: the decomposition's)."""
    (_, oof, engine), = on_every_node(kernel, (gamma,), gamma, all_train, codes, folds,
                                      settings, policy, memo)
    return oof, engine
