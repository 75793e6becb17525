"""Fitting one configuration, when there is nothing to select.

One kernel and one gamma are fitted as given (:func:`fit_fixed`). A single candidate
left at the defaults whose training block is an operator (the walk kernel on many
labelled nodes) is fitted once at :data:`ALONE_GAMMA`, its joint stacker on the
out-of-fold scores of :data:`ALONE_FOLDS` folds solved together (:func:`fit_alone`).
Where the solve can score every node from its own products
(:mod:`~digraph_askls.models._train_scores`), those scores are kept for prediction.
"""

import numpy as np

from ..kernels import restrict_kernel
from ._askls import AsKLSClassifier
from ._loo import blend_score, stacking_score
from ._train_scores import (fit_on_fold_scores, fit_on_train_scores, folds_every_node,
                            scores_every_node)

__all__ = ["ALONE_FOLDS", "ALONE_GAMMA", "choose_blend", "fit_alone", "fit_fixed",
           "no_rows", "refit_stackers"]

#: gamma of a kernel that is fitted alone (one candidate, nothing to select). The
#: stacker standardises the view scores, which stop changing as gamma shrinks (they
#: tend to the kernel's votes ``K(x, X) y`` and ``K(X, x)^T y``; measured in
#: ``docs/results/speed.md``); at this gamma the solve meets its tolerance after one or
#: two products with the kernel.
ALONE_GAMMA = 1e-5

#: Folds of a kernel fitted alone, all solved together: each costs the columns of its
#: labels in the same walk steps.
ALONE_FOLDS = 2


def fit_fixed(recipe, build, train_codes, train, gamma, estimator_params, operator, verbose):
    """One kernel and one gamma: fit as given, nothing to select."""
    kernel = build(recipe)
    train_kernel = restrict_kernel(kernel, train, train)
    if operator is not None:
        train_kernel = operator(train_kernel)
    merge = estimator_params["merge"]
    estimator = AsKLSClassifier(kernel="precomputed", **dict(
        estimator_params, gamma=gamma, merge="joint" if merge == "auto" else merge))
    estimator._validate_params()
    scores = None
    if operator is None and scores_every_node(train_kernel, estimator):
        scores = fit_on_train_scores(estimator, train_kernel, train_codes, verbose)
    else:
        estimator._fit_kernel(train_kernel, train_codes)
    if merge == "auto":
        choose_blend(estimator, train_codes)
    selection = dict(kernel=recipe, gamma=float(gamma), score=None, accuracy=None,
                     engine="fixed", merge=estimator.merge)
    return kernel, estimator, selection, no_rows(), scores


def no_rows():
    """``cv_results_`` when nothing was selected: empty lists."""
    return {key: [] for key in ("kernel", "gamma", "engine", "mean_test_score", "loo_accuracy",
                                "fit_time", "rank_test_score")}


def fit_alone(recipe, kernel, train_kernel, train_codes, estimator_params, verbose,
              solved=None):
    """One operator candidate with the defaults: a joint stacker on out-of-fold scores of
    :data:`ALONE_FOLDS` folds solved together at :data:`ALONE_GAMMA` (``engine="folds"``);
    ``solved``: the same solve, already done by the selection."""
    estimator = AsKLSClassifier(kernel="precomputed", **dict(
        estimator_params, gamma=ALONE_GAMMA, merge="joint", n_folds=ALONE_FOLDS))
    estimator._validate_params()
    scores = None
    if folds_every_node(train_kernel, estimator):
        scores = fit_on_fold_scores(estimator, train_kernel, train_codes, verbose, solved)
    else:
        estimator._fit_kernel(train_kernel, train_codes)
    selection = dict(kernel=recipe, gamma=ALONE_GAMMA, score=None, accuracy=None,
                     engine="folds", merge=estimator.merge)
    return kernel, estimator, selection, no_rows(), scores


def refit_stackers(estimator, merge, codes):
    """Refit the stackers of a fold-stacked estimator for another stacking merge."""
    estimator.set_params(merge=merge)
    estimator._fit_stackers(estimator.stacking_scores_, codes,
                            estimator._label_columns(codes))


def choose_blend(estimator, codes):
    """``merge="auto"`` on one fitted configuration: blend where it scores better."""
    scores = getattr(estimator, "stacking_scores_", None)
    if scores is None:
        return
    scores = np.transpose(scores, (1, 0, 2))
    if blend_score(scores, codes)[0] > stacking_score(scores, codes)[0]:
        refit_stackers(estimator, "blend", codes)
