"""Out-of-fold view scores of one (kernel, gamma): what the selection ranks, the stackers
learn from and the reported accuracy is measured on.

The labelled nodes are split into stratified folds; each fold's nodes are scored by the
model trained on the other folds. Three engines give the same numbers the cheapest way
the kernel allows:

* ``"spectral"``: one SVD of the training kernel (a dense block, or explicit feature
  maps) gives every fold's scores and the mean of the fold models for any gamma
  (:meth:`~digraph_askls.linalg.SpectralAsKLS.fold_scores`);
* ``"walk"``: a walk kernel known on all nodes solves every fold in one CG run whose
  products also score every node (:func:`~digraph_askls.linalg._scores.solve_many_with_scores`);
* ``"solved"``: any other operator, one solve per fold.

Out-of-fold scores, not leave-one-out ones, feed the stackers and the estimates: leaving
one node out lowers its own class's intercept, so a strongly regularised model's
leave-one-out scores point away from the true class, an artefact a stacker learns and
new nodes never show (see :mod:`~digraph_askls.linalg._spectral_folds`).
"""

from typing import NamedTuple

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state
from tqdm.auto import tqdm

from ..kernels import dense_block, restrict_kernel
from ..kernels._restrict import views_pair_product
from ..linalg import AsKLSSystem, SolverResult, SpectralAsKLS, solve_system
from ..linalg._scores import solve_many_with_scores
from ._train_scores import NodeScores, joined_products

__all__ = ["OutOfFold", "coarsen_folds", "decompose", "label_columns", "make_folds", "node_keys",
           "solved_out_of_fold",
           "spectral_out_of_fold", "walk_out_of_fold"]


class OutOfFold(NamedTuple):
    """The out-of-fold scores of one (kernel, gamma) and the models behind them.

    Attributes
    ----------
    scores : ndarray of shape (2, m, k)
        Source and target view scores of each labelled node under the model trained
        without its fold (the walk engine leaves out the folds' intercepts, see
        :func:`walk_out_of_fold`).
    mean_model : tuple (intercepts (2, k), dual (2, m, k))
        The mean of the fold models: it scores new nodes as the fold models do on
        average, which is what the stackers learned from.
    full_model : tuple or None
        The model trained on every labelled node (the mean view predicts with it).
    node_scores : NodeScores or None
        Every node's scores under the mean fold model, when the solve gave them.
    result : SolverResult or None
        The solver's report, for the fitted estimator.
    """

    scores: np.ndarray
    mean_model: tuple
    full_model: tuple = None
    node_scores: NodeScores = None
    result: SolverResult = None


def label_columns(codes):
    """The ``+1`` / ``-1`` columns of the one-vs-rest problems (one column for two classes)."""
    n_classes = int(codes.max()) + 1
    if n_classes == 2:
        return np.where(codes == 1, 1.0, -1.0)[:, None]
    Y = -np.ones((codes.size, n_classes))
    Y[np.arange(codes.size), codes] = 1.0
    return Y


def make_folds(codes, n_folds, random_state=None, keys=None):
    """The held-out nodes of each fold, every class dealt out evenly.

    The nodes of each class are shuffled and dealt into the folds in turn (the deal goes
    on from class to class, so the folds' sizes differ by one at most): every fold holds
    about the same share of each class, and the class shares of each fold's training set
    stay those of all the labelled nodes. That matters: a model trained on a set whose
    class shares are off scores the held-out nodes off in proportion, the way
    leave-one-out scores point away from the left-out node's class (see
    :mod:`~digraph_askls.linalg._spectral_folds`).

    ``keys`` (one number per node, see :func:`node_keys`) order the nodes before they
    are shuffled, so that the folds follow the nodes, not their positions: relabelling
    the nodes of a graph permutes the folds with them.

    Parameters
    ----------
    codes : ndarray of int, shape (m,)
    n_folds : int
        At most this many folds; fewer when there are fewer nodes.
    random_state : int, RandomState or None
    keys : ndarray of shape (m,), optional

    Returns
    -------
    list of ndarray of int
        The sorted held-out positions of each fold.

    Examples
    --------
    >>> import numpy as np
    >>> folds = make_folds(np.array([0, 0, 0, 1, 1, 1]), 3, random_state=0)
    >>> sorted(np.concatenate(folds).tolist()), [len(fold) for fold in folds]
    ([0, 1, 2, 3, 4, 5], [2, 2, 2])
    >>> [sorted(np.array([0, 0, 0, 1, 1, 1])[fold].tolist()) for fold in folds]
    [[0, 1], [0, 1], [0, 1]]
    """
    m = codes.size
    n_folds = max(1, min(int(n_folds), m))
    order = np.arange(m) if keys is None else np.argsort(keys, kind="stable")
    shuffled = order[check_random_state(random_state).permutation(m)]
    fold_of = np.empty(m, dtype=int)
    start = 0
    for label in np.unique(codes):
        members = shuffled[codes[shuffled] == label]
        fold_of[members] = (start + np.arange(members.size)) % n_folds
        start = (start + members.size) % n_folds
    return [np.flatnonzero(fold_of == fold) for fold in range(n_folds)]


def coarsen_folds(folds, n_groups):
    """``folds`` joined into at most ``n_groups`` folds (fold ``j`` with ``j + n_groups``,
    ``j + 2 n_groups`` ...): coarser folds whose training sets are unions of the fine
    ones', for the steps that cost per fold."""
    if len(folds) <= n_groups:
        return list(folds)
    return [np.sort(np.concatenate(folds[start::n_groups])) for start in range(n_groups)]


def node_keys(adjacency, features=None, rounds=2):
    """A number per node that does not depend on the node's position: its degrees and a
    random projection of its features, refined ``rounds`` times by the sums of its out-
    and in-neighbours' numbers (in the manner of Weisfeiler and Lehman's colour
    refinement). Nodes alike in all of these share a key; others almost never do.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> A = sparse.csr_array(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]]))
    >>> order = [2, 0, 1]
    >>> bool(np.allclose(node_keys(A[order][:, order]), node_keys(A)[order]))
    True
    """
    adjacency = sparse.csr_array(adjacency, dtype=np.float64)
    out_degree = np.asarray(adjacency.sum(axis=1)).ravel()
    in_degree = np.asarray(adjacency.sum(axis=0)).ravel()
    keys = np.sin(1.3 * out_degree + 0.1) + np.sin(2.9 * in_degree + 0.7)
    if features is not None:
        rng = np.random.default_rng(20261126)
        projection = rng.standard_normal(features.shape[1])
        keys = keys + np.sin(np.asarray(features @ projection, dtype=np.float64).ravel())
    for _ in range(int(rounds)):
        spread = np.sin(7.1 * keys + 0.3)
        keys = keys + 0.5 * np.sin(adjacency @ spread) + 0.25 * np.sin(adjacency.T @ spread)
    # Sums in another order round differently: keep the digits that do not.
    return np.round(keys, 9)


def decompose(train_kernel):
    """Decompose a training kernel for :class:`~digraph_askls.linalg.SpectralAsKLS`, the
    cheaper way: explicit maps with fewer features than samples by a thin SVD of the
    maps (``O(m d^2)``), anything else formed densely (memory-guarded) and decomposed
    whole (``O(m^3)``)."""
    m = train_kernel.shape[0]
    factors = getattr(train_kernel, "factors", None)
    if callable(factors) and getattr(train_kernel, "n_features", m) < m:
        return SpectralAsKLS(factors=factors())
    if isinstance(train_kernel, np.ndarray):
        return SpectralAsKLS(train_kernel)
    if sparse.issparse(train_kernel):
        return SpectralAsKLS(train_kernel.toarray())
    return SpectralAsKLS(dense_block(train_kernel, np.arange(m), np.arange(m)))


def spectral_out_of_fold(decomposition, codes, gamma, folds):
    """:class:`OutOfFold` from one decomposition (raises ``SingularSystemError`` when the
    system of the whole training set or of a fold is singular at ``gamma``)."""
    Y = label_columns(codes)
    scores, mean_model = decomposition.fold_scores(Y, gamma, folds)
    intercepts, dual = decomposition.solve(Y, gamma)
    return OutOfFold(scores, mean_model, (intercepts, dual),
                     result=_spectral_result(decomposition, Y, gamma, intercepts, dual))


def _spectral_result(decomposition, Y, gamma, intercepts, dual):
    x = np.vstack([intercepts, dual[0], dual[1]])
    return SolverResult(x, 0, 0, np.zeros(Y.shape[1]), "spectral")


def walk_out_of_fold(train_kernel, codes, gamma, folds, *, rtol=1e-4, maxiter=None,
                     verbose=False):
    """:class:`OutOfFold` of a walk kernel, every fold in one solve.

    The folds' systems share every product of the kernel: a walk steps once with the
    columns of all folds, and each fold's scores of its held-out nodes, and every
    node's scores, are read off those products. The scores are the views' kernel parts,
    without the folds' intercepts: at the small gamma of a walk kernel the intercepts of
    two folds differ by more than the kernel parts vary (their training sets' class
    shares differ), which would drown the views in noise, while a stacker has an
    intercept of its own.

    Raises
    ------
    NotPositiveDefinite
        When ``gamma * s_max(K) >= 1``.
    """
    K, rows = train_kernel.K, train_kernel.rows
    m = rows.size
    Y = label_columns(codes)
    k = Y.shape[1]
    held_out = np.zeros(m, dtype=int)
    for index, held in enumerate(folds):
        held_out[held] = index
    trains = [np.flatnonzero(held_out != index) for index in range(len(folds))]
    with tqdm(total=0, desc="AsK-LS walk steps, all folds", unit="step", disable=not verbose,
              leave=False) as bar:
        solutions = solve_many_with_scores(
            joined_products(K, bar), [(rows[train], Y[train]) for train in trains],
            K.shape[0], gamma, rtol=rtol, maxiter=maxiter)
    scores = np.empty((2, m, k))
    dual = np.zeros((2, m, k))
    source, target = solutions[0].source, solutions[0].target     # summed in place
    for index, (train, held, solution) in enumerate(zip(trains, folds, solutions)):
        scores[0, held] = solution.source[rows[held]]
        scores[1, held] = solution.target[rows[held]]
        if index:
            source += solution.source
            target += solution.target
        dual[:, train] += solution.dual
    source /= len(folds)
    target /= len(folds)
    dual /= len(folds)
    # The intercepts stand in only where the views are silent (a node that no walk
    # joins to a labelled node): there the more frequent class wins. Far below the
    # scores' resolution, they move no other node.
    shares = np.bincount(codes) / codes.size
    prior = (2.0 * shares - 1.0) if k > 1 else np.array([2.0 * shares[1] - 1.0])
    spread = float(np.max(np.abs(scores))) if scores.size else 0.0
    intercepts = np.tile(1e-9 * spread * prior, (2, 1))
    return OutOfFold(scores, (intercepts, dual),
                     node_scores=NodeScores(source, target, intercepts),
                     result=solutions[0].result)


def solved_out_of_fold(train_kernel, codes, gamma, folds, *, solver="auto",
                       regularization="auto", rtol=1e-4, maxiter=None):
    """:class:`OutOfFold` by one solve per fold and one on all nodes (any kernel)."""
    m = train_kernel.shape[0]
    Y = label_columns(codes)
    k = Y.shape[1]
    options = dict(solver=solver, regularization=regularization, rtol=rtol, maxiter=maxiter)

    def solve(rows):
        system = AsKLSSystem(restrict_kernel(train_kernel, rows, rows), gamma=gamma)
        result = solve_system(system, Y[rows], **options)
        return (*system.split(result.x), result)

    scores = np.empty((2, m, k))
    dual = np.zeros((2, m, k))
    intercepts = np.zeros((2, k))
    everything = np.arange(m)
    for held in folds:
        train = np.setdiff1d(everything, held)
        fold_intercepts, fold_dual, _ = solve(train)
        pair = views_pair_product(restrict_kernel(train_kernel, held, train),
                                  restrict_kernel(train_kernel, train, held),
                                  fold_dual[1], fold_dual[0])
        if pair is None:
            from ._views import kernel_dot

            pair = (kernel_dot(restrict_kernel(train_kernel, held, train), fold_dual[1]),
                    kernel_dot(restrict_kernel(train_kernel, train, held), fold_dual[0],
                               transpose=True))
        scores[0, held] = pair[0] + fold_intercepts[0]
        scores[1, held] = pair[1] + fold_intercepts[1]
        dual[:, train] += fold_dual / len(folds)
        intercepts += fold_intercepts / len(folds)
    full_intercepts, full_dual, result = solve(everything)
    return OutOfFold(scores, (intercepts, dual), (full_intercepts, full_dual), result=result)
