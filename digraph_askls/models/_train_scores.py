"""View scores of every node from the solve itself, on a graph kernel known on all nodes.

On a walk series the CG iteration's own products give the scores of every node as
well (:func:`~digraph_askls.linalg._scores.solve_with_scores`): fitting and predicting
cost the solve's products and nothing more. The selection's walk engine solves all
folds this way (:func:`~digraph_askls.models.selection._out_of_fold.walk_out_of_fold`, through
:func:`joined_products`); the merges ``"joint_train"`` and ``"stack_train"`` (e.g.
``preset="large"``) solve once on all labelled nodes and their stackers read the
training nodes' scores under that model (:func:`fit_on_train_scores`).

The scores are kept for prediction as the kernel parts (in the products' precision)
beside the intercepts (:class:`NodeScores`).
"""

from typing import NamedTuple

import numpy as np
from tqdm.auto import tqdm

from ..kernels._restrict import _RestrictedKernel
from ..linalg import NotPositiveDefinite
from ..linalg._scores import solve_with_scores
from ._askls import AsKLSClassifier
from ._capabilities import multiplies_both_views
from ._checks import check_classes, check_targets, label_columns
from ._merge import Merge
from ._targets import class_weights

__all__ = ["NodeScores", "fit_on_train_scores", "joined_products", "scores_every_node",
           "scores_all_rows"]


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
    return (K.shape[0] == K.shape[1] and multiplies_both_views(K)
            and np.array_equal(train_kernel.rows, train_kernel.cols)
            and not train_kernel._rows_repeat)


def scores_every_node(train_kernel, params):
    """Whether :func:`fit_on_train_scores` applies to an :class:`AsKLSClassifier` of
    parameters ``params``: :func:`scores_all_rows`, a train-score merge and the exact
    system."""
    return (Merge.named(params["merge"]).scores == "train"
            and params["regularization"] in ("auto", None, 0)
            and params["solver"] in ("auto", "batched")
            and scores_all_rows(train_kernel))


def joined_products(K, n_hops_bar):
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


def fit_on_train_scores(train_kernel, y, params, verbose=False):
    """Fit an :class:`AsKLSClassifier` with a train-score merge, scoring every node.

    Parameters
    ----------
    train_kernel : LinearOperator
        ``restrict_kernel(K, train, train)`` of the kernel ``K`` on all nodes.
    y : array-like of shape (n_train,)
    params : dict
        Parameters of the estimator, ``merge`` in ``("joint_train", "stack_train")`` (see
        :func:`scores_every_node`).
    verbose : bool, default=False
        Show the walk's steps in a progress bar.

    Returns
    -------
    estimator : AsKLSClassifier
    scores : NodeScores or None
        The scores of every node; None when the inner block is not positive definite
        (``gamma * s_max(K) >= 1``): the estimator is then fitted the usual way.
    """
    K, rows = train_kernel.K, train_kernel.rows
    m, n = rows.size, K.shape[0]
    y = check_targets(y, m)
    classes, codes = check_classes(y, m)
    Y = label_columns(codes)
    weights = (None if params.get("class_weight") is None else
               class_weights(params["class_weight"], classes, y)[codes])
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
        solution = solve_with_scores(products, rows, n, Y, params["gamma"],
                                     rtol=params["tol"], maxiter=params["max_iter"],
                                     weights=weights)
    except NotPositiveDefinite:
        return AsKLSClassifier(kernel="precomputed", **params).fit_kernel(train_kernel, y), None
    finally:
        bar.close()
    scores = NodeScores(solution.source, solution.target, solution.intercepts)
    model = (solution.intercepts, solution.dual)
    estimator = AsKLSClassifier.from_solution(y, model, model, solution.result,
                                              stacking_scores=scores.features(rows), **params)
    return estimator, scores
