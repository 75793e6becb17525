"""Stacking on scores from one solve, with every node's view scores from the same solve.

On a graph kernel known on all nodes (a walk series), the CG iteration's own products
give the scores of every node as well
(:func:`~digraph_askls.linalg._scores.solve_with_scores`): fitting and predicting cost
the solve's products and nothing more. Two ways to feed the
stackers from it:

* :func:`fit_on_fold_scores` (the default's walk kernel on many labelled nodes): the
  folds are solved together (:func:`fold_scores`); the stackers read each training
  node's score under the fold that left it out, the nodes to predict are scored by the
  fold models' mean;
* :func:`fit_on_train_scores` (the merges ``"joint_train"`` and ``"stack_train"``, e.g.
  ``preset="large"``): one solve on all labelled nodes, the stackers read the training
  nodes' scores under the full model.

The scores are kept for prediction as the kernel parts (in the products' precision)
beside the intercepts.
"""

from typing import NamedTuple

import numpy as np
from tqdm.auto import tqdm

from ..kernels._restrict import _RestrictedKernel
from ..linalg._dense import _one_blas_thread
from ..linalg._scores import NotPositiveDefinite, solve_many_with_scores, solve_with_scores
from ._checks import check_targets

__all__ = ["NodeScores", "fit_on_fold_scores", "fit_on_train_scores", "fold_scores",
           "folds_every_node", "predict_from_scores", "scores_every_node", "scores_all_rows"]

#: Merges whose stackers learn from the full model's training scores.
TRAIN_SCORE_MERGES = ("joint_train", "stack_train")


class NodeScores(NamedTuple):
    """View scores of every node under a fitted model.

    ``source`` and ``target`` (n_nodes, k) are the kernel parts, ``intercepts`` (2, k)
    ``b1`` and ``b2``: node ``i``'s scores are ``source[i] + b1`` and ``target[i] + b2``.
    """

    source: np.ndarray
    target: np.ndarray
    intercepts: np.ndarray

    def features(self, index):
        """Stacking features of the nodes ``index``: (len(index), 2, k) in float64."""
        return np.stack([self.source[index] + self.intercepts[0],
                         self.target[index] + self.intercepts[1]], axis=1)


def scores_all_rows(train_kernel):
    """Whether a training block's products give every node's scores: the block of a
    square kernel (on its training nodes, no repeats) that multiplies both views in one
    pass (``pair_hops`` or ``matmat_pair``)."""
    if not isinstance(train_kernel, _RestrictedKernel):
        return False
    K = train_kernel.K
    return (K.shape[0] == K.shape[1]
            and (callable(getattr(K, "pair_hops", None))
                 or callable(getattr(K, "matmat_pair", None)))
            and np.array_equal(train_kernel.rows, train_kernel.cols)
            and not train_kernel._rows_repeat)


def scores_every_node(train_kernel, estimator):
    """Whether :func:`fit_on_train_scores` applies: :func:`scores_all_rows`, a
    train-score merge and the exact system."""
    return (getattr(estimator, "merge", None) in TRAIN_SCORE_MERGES
            and estimator.regularization in ("auto", None, 0)
            and estimator.solver in ("auto", "batched")
            and scores_all_rows(train_kernel))


def folds_every_node(train_kernel, estimator):
    """Whether :func:`fit_on_fold_scores` applies: :func:`scores_all_rows`, a joint
    stacking merge and the exact system."""
    return (estimator._joint_stacking() and not estimator._blending()
            and estimator.regularization in ("auto", None, 0)
            and estimator.solver in ("auto", "batched")
            and scores_all_rows(train_kernel))


def _joined_products(K, n_hops_bar):
    """``products(blocks)`` of :func:`solve_many_with_scores` for the kernel ``K``: every
    block scattered onto its rows, all in one pass of the kernel."""
    hops = getattr(K, "pair_hops", None)
    dtype = K.hop_dtype if hops is not None else np.float64
    n = K.shape[0]

    def products(blocks):
        widths = np.cumsum([0] + [B.shape[1] for _, B, _ in blocks])
        X = np.zeros((n, widths[-1]), dtype=dtype)
        Y = np.zeros((n, widths[-1]), dtype=dtype)
        for (rows, B, A), lo, hi in zip(blocks, widths[:-1], widths[1:]):
            X[rows, lo:hi], Y[rows, lo:hi] = B, A
        if hops is not None:
            n_hops_bar.total += K.n_hops
            n_hops_bar.refresh()
            forward, backward = hops(X, Y, progress=n_hops_bar.update)
        else:
            forward, backward = K.matmat_pair(X, Y)
        return [(forward[:, lo:hi], backward[:, lo:hi])
                for lo, hi in zip(widths[:-1], widths[1:])]

    return products


def _start_fit(estimator, y, m):
    """Check the ``m`` training labels, set ``classes_`` and ``shape_fit_``; the codes."""
    y = check_targets(y, m)
    estimator.classes_, codes = np.unique(y, return_inverse=True)
    if estimator.classes_.size < 2:
        raise ValueError(f"the training labels must contain at least 2 classes, got "
                         f"{estimator.classes_.size} class: {estimator.classes_.tolist()}")
    estimator.shape_fit_ = (m, m)
    return codes


def fit_on_train_scores(estimator, train_kernel, y, verbose=False):
    """Fit an :class:`AsKLSClassifier` with a train-score merge, scoring every node.

    Parameters
    ----------
    estimator : AsKLSClassifier
        Unfitted, ``kernel="precomputed"``, ``merge`` in ``("joint_train",
        "stack_train")`` (see :func:`scores_every_node`).
    train_kernel : LinearOperator
        ``restrict_kernel(K, train, train)`` of the kernel ``K`` on all nodes.
    y : array-like of shape (n_train,)
    verbose : bool, default=False
        Show the walk's steps in a progress bar.

    Returns
    -------
    NodeScores or None
        The scores of every node; None when the inner block is not positive definite
        (``gamma * s_max(K) >= 1``): the estimator is then fitted the usual way.
    """
    K, rows = train_kernel.K, train_kernel.rows
    m, n = rows.size, K.shape[0]
    codes = _start_fit(estimator, y, m)
    Y = estimator._label_columns(codes)
    hops = getattr(K, "pair_hops", None)
    bar = tqdm(total=0, desc="AsK-LS walk steps", unit="step", disable=not verbose,
               leave=False)

    def products(B, A):
        if hops is not None:
            bar.total += K.n_hops
            bar.refresh()
            return hops(B, A, rows=rows, progress=bar.update)
        full_b, full_a = np.zeros((n, B.shape[1])), np.zeros((n, A.shape[1]))
        full_b[rows], full_a[rows] = B, A
        return K.matmat_pair(full_b, full_a)

    try:
        solution = solve_with_scores(products, rows, n, Y, estimator.gamma,
                                     rtol=estimator.tol, maxiter=estimator.max_iter)
    except NotPositiveDefinite:
        estimator._fit_kernel(train_kernel, y)
        return None
    finally:
        bar.close()
    estimator.solver_result_ = solution.result
    estimator.n_iter_ = solution.result.n_iter
    estimator._set_coefficients(solution.intercepts, solution.dual)
    estimator.stack_folds_ = [(np.arange(m), solution.intercepts, solution.dual)]
    scores = NodeScores(solution.source, solution.target, solution.intercepts)
    estimator._fit_stackers(scores.features(rows), codes, Y)
    return scores


def _fold_solutions(train_kernel, codes, gamma, n_folds, rtol, random_state, verbose,
                    maxiter=None):
    """The folds of the training nodes and their solutions, every fold in one solve."""
    from sklearn.model_selection import KFold, StratifiedKFold

    K, rows = train_kernel.K, train_kernel.rows
    m = rows.size
    n_classes = int(codes.max()) + 1
    if n_classes == 2:
        Y = np.where(codes == 1, 1.0, -1.0)[:, None]
    else:
        Y = -np.ones((m, n_classes))
        Y[np.arange(m), codes] = 1.0
    counts = np.bincount(codes, minlength=n_classes)
    if counts[counts > 0].min() >= n_folds:
        splitter = StratifiedKFold(n_folds, shuffle=True, random_state=random_state)
    else:
        splitter = KFold(min(n_folds, m), shuffle=True, random_state=random_state)
    folds = list(splitter.split(np.zeros(m), codes))
    with tqdm(total=0, desc="AsK-LS walk steps, all folds", unit="step", disable=not verbose,
              leave=False) as bar:
        solutions = solve_many_with_scores(
            _joined_products(K, bar), [(rows[train], Y[train]) for train, _ in folds],
            K.shape[0], gamma, rtol=rtol, maxiter=maxiter)
    return folds, Y, solutions


def fold_scores(train_kernel, codes, gamma, *, n_folds=2, rtol=1e-4, random_state=None,
                verbose=False, return_solved=False):
    """Out-of-fold view scores of the training nodes, every fold in one solve.

    The folds' systems share every product of the kernel
    (:func:`~digraph_askls.linalg._scores.solve_many_with_scores`): a walk kernel steps
    once with the columns of all folds, and each fold's scores of its left-out nodes are
    read off those products. The scores are the views' kernel parts, without the folds'
    intercepts: at a small gamma the intercepts of two folds differ by more than the
    kernel parts vary (their training sets' class shares differ), which would drown
    the views in noise, while a stacker has an intercept of its own.

    Parameters
    ----------
    train_kernel : LinearOperator
        A block for which :func:`scores_all_rows` holds.
    codes : ndarray of int, shape (m,)
        Class codes (0 .. n_classes - 1) of the training nodes.
    gamma : float
    n_folds, rtol, random_state, verbose
    return_solved : bool, default=False
        Also return ``(folds, Y, solutions)``, which :func:`fit_on_fold_scores` can take
        instead of solving again.

    Returns
    -------
    ndarray of shape (2, m, k)
        Source and target scores (``k`` = 1 for two classes, else the number of classes),
        the layout :func:`~digraph_askls.models._loo.stacking_score` reads.

    Raises
    ------
    NotPositiveDefinite
        When ``gamma * s_max(K) >= 1``.
    """
    rows = train_kernel.rows
    solved = _fold_solutions(train_kernel, codes, gamma, n_folds, rtol, random_state,
                             verbose)
    folds, Y, solutions = solved
    scores = np.empty((2, rows.size, Y.shape[1]))
    for (_, valid), solution in zip(folds, solutions):
        scores[0, valid] = solution.source[rows[valid]]
        scores[1, valid] = solution.target[rows[valid]]
    return (scores, solved) if return_solved else scores


def fit_on_fold_scores(estimator, train_kernel, y, verbose=False, solved=None):
    """Fit a joint stacker on out-of-fold scores from one solve, scoring every node.

    The folds of ``estimator.n_folds`` are solved together (:func:`fold_scores`); the
    joint stacker learns from each training node's scores under the fold that left it
    out, and every node is then scored by the mean of the fold models, the model whose
    coefficients are the folds' averaged (as fold stacking predicts,
    :meth:`~digraph_askls.models._base._KernelLSClassifier._stacked_features`). As in
    :func:`fold_scores` the scores carry no intercepts: the fold models' intercepts are
    kept as zeros, the stacker's own intercept takes their place.

    Unlike the full model's training scores (:func:`fit_on_train_scores`), no training
    node's score contains its own label, so the stacker learns from scores that look like
    those of the nodes it predicts (directed SBM of 10^6 nodes: 0.997 of the test nodes
    against 0.990, ``docs/results/speed.md``).

    Parameters
    ----------
    estimator : AsKLSClassifier
        Unfitted, ``kernel="precomputed"``, a joint stacking ``merge``.
    train_kernel : LinearOperator
        A block for which :func:`scores_all_rows` holds.
    y : array-like of shape (n_train,)
    verbose : bool, default=False
    solved : tuple, optional
        ``(folds, Y, solutions)`` of :func:`fold_scores` (``return_solved=True``) for the
        same block, labels, gamma, folds, tolerance and seed: the selection's solve,
        reused.

    Returns
    -------
    NodeScores or None
        The scores of every node; None when the inner block is not positive definite
        (the estimator is then fitted the usual way).
    """
    rows = train_kernel.rows
    m = rows.size
    codes = _start_fit(estimator, y, m)
    try:
        folds, Y, solutions = solved if solved is not None else _fold_solutions(
            train_kernel, codes, estimator.gamma, estimator.n_folds, estimator.tol,
            estimator.random_state, verbose, maxiter=estimator.max_iter)
    except NotPositiveDefinite:
        estimator._fit_kernel(train_kernel, y)
        return None
    k = Y.shape[1]
    features = np.empty((m, 2, k))
    source, target = solutions[0].source, solutions[0].target   # summed in place
    dual = np.zeros((2, m, k))
    zeros = np.zeros((2, k))
    estimator.stack_folds_ = []
    for index, ((train, valid), solution) in enumerate(zip(folds, solutions)):
        features[valid, 0] = solution.source[rows[valid]]
        features[valid, 1] = solution.target[rows[valid]]
        if index:
            source += solution.source
            target += solution.target
        dual[:, train] += solution.dual
        estimator.stack_folds_.append((train, zeros, solution.dual))
    source /= len(folds)
    target /= len(folds)
    dual /= len(folds)
    estimator.solver_result_ = solutions[0].result
    estimator.n_iter_ = solutions[0].result.n_iter
    estimator._set_coefficients(zeros, dual)
    estimator._fit_stackers(features, codes, Y)
    return NodeScores(source, target, zeros)


def predict_from_scores(estimator, scores, index, proba=False):
    """Decision values (or probabilities) of the nodes ``index`` from kept scores."""
    features = scores.features(index)
    with _one_blas_thread():
        if proba:
            return estimator._stacked_proba(features)
        return estimator._stacked_decision(features)
