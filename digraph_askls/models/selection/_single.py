"""Fitting one configuration as given, when there is nothing to select.

One kernel, one gamma and a merge named by the user (or a training kernel held by an
``operator``, or a merge that the selection does not assemble from folds: the
train-score and leave-one-out merges) are fitted by :class:`AsKLSClassifier` itself.
Where the solve can score every node from its own products
(:mod:`~digraph_askls.models._train_scores`), those scores are kept for prediction.
"""

import numpy as np

from ...kernels import restrict_kernel
from .._askls import AsKLSClassifier
from .._merge import Merge
from .._train_scores import fit_on_train_scores, scores_every_node
from ._ranking import ranking_score
from ._results import no_rows, selection_record

__all__ = ["fit_fixed"]


def fit_fixed(kernel, recipe, train_codes, train, gamma, merge, n_folds, settings, operator):
    """One kernel (``recipe`` built on all nodes) and one gamma: fit as given, nothing to
    select."""
    train_kernel = restrict_kernel(kernel, train, train)
    if operator is not None:
        train_kernel = operator(train_kernel)
    params = settings.estimator_params(
        gamma=gamma, merge="joint" if merge == "auto" else merge, n_folds=n_folds)
    scores = None
    if operator is None and scores_every_node(train_kernel, params):
        estimator, scores = fit_on_train_scores(train_kernel, train_codes, params,
                                                settings.verbose)
    else:
        estimator = AsKLSClassifier(kernel="precomputed", **params).fit_kernel(train_kernel,
                                                                              train_codes)
    if merge == "auto":
        _choose_blend(estimator, train_codes)
    selection = selection_record(recipe, gamma, score=None, estimate=None, interval=None,
                                 held_out=None, optimism=None, engine="fixed",
                                 merge=estimator.merge, n_folds=None)
    return kernel, estimator, selection, no_rows(), scores


def _choose_blend(estimator, codes):
    """``merge="auto"`` on one fitted configuration: blend where it scores better."""
    scores = getattr(estimator, "stacking_scores_", None)
    if scores is None:
        return
    scores = np.transpose(scores, (1, 0, 2))
    ranking_codes = np.unique(codes, return_inverse=True)[1]
    if ranking_score(scores, ranking_codes, (Merge("blend"), Merge("joint")))[2].blending:
        estimator.set_merge("blend", codes)
