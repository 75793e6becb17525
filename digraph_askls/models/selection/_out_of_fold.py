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
import scipy.linalg as sla
from tqdm.auto import tqdm

from ...kernels import restrict_kernel
from ...kernels._restrict import views_pair_product
from ...linalg import AsKLSSystem, SolverResult, solve_system
from ...linalg._scores import solve_many_with_scores
from ...linalg._spectral import _decomposition_threads
from ...linalg._lssvm_folds import lssvm_fold_scores, lssvm_solution
from .._checks import label_columns
from .._train_scores import NodeScores, joined_products
from .._views import kernel_dot

__all__ = ["OutOfFold", "cholesky_out_of_fold", "silent_prior", "solved_out_of_fold",
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


def cholesky_out_of_fold(K, codes, gamma, folds, weights=None):
    """:class:`OutOfFold` of a symmetric dense training block at one ``gamma``, from one
    Cholesky factorisation and the inverse it gives.

    With a symmetric kernel AsK-LS is the LS-SVM (the paper's Proposition 2): both views
    carry the same dual coefficients ``alpha`` of ``(K + I/gamma) alpha + b 1 = Y``,
    ``1^T alpha = 0``, and score every node alike. With ``C = K + I/gamma``, ``u = C^-1 1``
    and ``s = 1^T u``, the system's inverse on the ``alpha`` unknowns is
    ``C^-1 - u u^T / s``; removing a fold's unknowns ``F`` from the solution ``x`` as
    :mod:`~digraph_askls.linalg._spectral_folds` does (``x - M^-1 E_F c`` with
    ``c = ((M^-1)_FF)^-1 alpha_F``) gives the fold model, which scores its held-out nodes
    ``Y_F - c``. One factorisation and one inverse (``m^3`` in all) serve every fold,
    where a decomposition that serves every gamma costs a full symmetric
    eigendecomposition, several times more on one core: this is the cheaper way to score
    a winner at its one gamma. Same numbers as :func:`spectral_out_of_fold` up to
    rounding (``tests/test_selection.py``).

    With error weights ``w`` (the weighted LS-SVM) ``C = K + diag(1 / (gamma w))`` and
    all of the above holds as it is: a fold model's rows still read ``Y_F - c``.

    Raises ``numpy.linalg.LinAlgError`` where ``K + I/gamma`` is not positive definite
    (an indefinite kernel at a large gamma); the caller then decomposes.
    """
    m = K.shape[0]
    Y = label_columns(codes)
    C = np.array(K, dtype=np.float64, order="F")
    C[np.diag_indices_from(C)] += (1.0 / float(gamma) if weights is None
                                   else 1.0 / (float(gamma) * np.asarray(weights)))
    with _decomposition_threads():
        factor, info = sla.lapack.dpotrf(C, lower=True, overwrite_a=True, clean=False)
        if info != 0:
            raise np.linalg.LinAlgError(
                f"K + I/gamma is not positive definite at gamma = {gamma:g} (leading "
                f"minor {info})")
        inverse, info = sla.lapack.dpotri(factor, lower=True, overwrite_c=True)
        if info != 0:
            raise np.linalg.LinAlgError(f"K + I/gamma is singular at gamma = {gamma:g}")
        del factor, C
        # dpotri filled the lower triangle: mirror it.
        inverse = np.tril(inverse)
        inverse += np.tril(inverse, -1).T
        solution = lssvm_solution(inverse @ np.hstack([Y, np.ones((m, 1))]))
        scores, mean_model = lssvm_fold_scores(
            Y, folds, solution, lambda held: inverse[np.ix_(held, held)],
            lambda B: inverse @ B)
    alpha, intercept = solution[:2]
    full = (np.tile(intercept, (2, 1)), np.stack([alpha, alpha]))
    x = np.vstack([full[0], alpha, alpha])
    return OutOfFold(scores, mean_model, full,
                     result=SolverResult(x, 0, 0, np.zeros(Y.shape[1]), "cholesky"))


def walk_out_of_fold(train_kernel, codes, gamma, folds, *, rtol=1e-4, maxiter=None,
                     verbose=False, weights=None):
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
            joined_products(K, bar),
            [(rows[train], Y[train]) if weights is None
             else (rows[train], Y[train], weights[train]) for train in trains],
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
    # joins to a labelled node): there the silent class prior wins (silent_prior). Far
    # below the scores' resolution, they move no other node. A silent held-out node is
    # scored the same way, by the prior of the other silent ones, so that the ranking
    # and the estimate judge what the fitted model will do with such nodes.
    silent = ~np.any(scores != 0, axis=(0, 2))
    spread = float(np.max(np.abs(scores))) if scores.size else 0.0
    intercepts = np.tile(1e-9 * spread * silent_prior(codes, silent), (2, 1))
    scores[:, silent] = 1e-9 * spread * _held_out_silent_priors(codes, silent)
    return OutOfFold(scores, (intercepts, dual),
                     node_scores=NodeScores(source, target, intercepts),
                     result=solutions[0].result)


def silent_prior(codes, silent):
    """One-vs-rest intercepts (k,) that decide the nodes no walk joins to a labelled one.

    Such a node has no evidence in the views: it takes the class most common among the
    labelled nodes that were silent when held out (``silent``: no node of their fold's
    training set reaches them), the labelled nodes most like it; without any, or between
    equally common classes, the class most common among all labelled nodes. Isolated
    nodes and small components often differ in class from the giant component: 170 of
    polblogs' 266 isolated blogs are of its first class, against 758 of its 1,490.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([0, 1, 1, 1, 0, 2])
    >>> int(np.argmax(silent_prior(codes, np.zeros(6, bool))))
    1
    >>> int(np.argmax(silent_prior(codes, np.array([1, 0, 0, 0, 1, 0], bool))))
    0
    """
    n_classes = int(codes.max()) + 1
    score = 1e-3 * np.bincount(codes, minlength=n_classes) / codes.size
    if np.any(silent):
        score = score + np.bincount(codes[silent], minlength=n_classes) / silent.sum()
    return _as_intercepts(score)


def _held_out_silent_priors(codes, silent):
    """:func:`silent_prior` of each silent node, from the other silent nodes: (s, k)."""
    n_classes = int(codes.max()) + 1
    score = np.tile(1e-3 * np.bincount(codes, minlength=n_classes) / codes.size,
                    (int(silent.sum()), 1))
    others = silent.sum() - 1
    if others > 0:
        counts = np.bincount(codes[silent], minlength=n_classes) - np.eye(n_classes)[
            codes[silent]]
        score += counts / others
    return _as_intercepts(score)


def _as_intercepts(score):
    """Class scores (..., n_classes) as one-vs-rest intercepts of the same arg-max: the
    one column of two classes, else the scores less their mean."""
    if score.shape[-1] == 2:
        return score[..., 1:] - score[..., :1]
    return score - score.mean(axis=-1, keepdims=True)


def solved_out_of_fold(train_kernel, codes, gamma, folds, weights=None, **options):
    """:class:`OutOfFold` by one solve per fold and one on all nodes (any kernel);
    ``weights``: the error weights of the nodes (None: unweighted); ``options``:
    keywords of :func:`~digraph_askls.linalg.solve_system`."""
    m = train_kernel.shape[0]
    Y = label_columns(codes)
    k = Y.shape[1]

    def solve(rows):
        system = AsKLSSystem(restrict_kernel(train_kernel, rows, rows), gamma=gamma,
                             weights=None if weights is None else weights[rows])
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
            pair = (kernel_dot(restrict_kernel(train_kernel, held, train), fold_dual[1]),
                    kernel_dot(restrict_kernel(train_kernel, train, held), fold_dual[0],
                               transpose=True))
        scores[0, held] = pair[0] + fold_intercepts[0]
        scores[1, held] = pair[1] + fold_intercepts[1]
        dual[:, train] += fold_dual / len(folds)
        intercepts += fold_intercepts / len(folds)
    full_intercepts, full_dual, result = solve(everything)
    return OutOfFold(scores, (intercepts, dual), (full_intercepts, full_dual), result=result)
