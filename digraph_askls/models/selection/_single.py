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
from .._train_scores import fit_on_train_scores, scores_every_node
from ._policy import auto_merges
from ._ranking import ranking_score
from ._results import ResultsTable, selection_record

__all__ = ["fit_fixed"]


def fit_fixed(kernel, recipe, train_codes, train, gamma, merge, n_folds, settings, operator):
    """One kernel (``recipe`` built on all nodes) and one gamma: fit as given, nothing to
    select."""
    train_kernel = restrict_kernel(kernel, train, train)
    if operator is not None:
        train_kernel = operator(train_kernel)
    compared = auto_merges(as_given=True) if merge == "auto" else None
    params = settings.estimator_params(
        gamma=gamma, merge=compared[0].name if compared else merge, n_folds=n_folds)
    scores = None
    if operator is None and scores_every_node(train_kernel, params):
        estimator, scores = fit_on_train_scores(train_kernel, train_codes, params,
                                                settings.verbose)
    else:
        estimator = AsKLSClassifier(kernel="precomputed", **params).fit_kernel(train_kernel,
                                                                              train_codes)
    if compared:
        _choose_blend(estimator, train_codes, compared)
    selection = selection_record(recipe, gamma, score=None, estimate=None, interval=None,
                                 held_out=None, optimism=None, engine="fixed",
                                 merge=estimator.merge, n_folds=None)
    return kernel, estimator, selection, ResultsTable().columns(), scores


def _choose_blend(estimator, codes, compared):
    """``merge="auto"`` on one fitted configuration (fitted with ``compared[0]``, the joint
    stacker): its blend ``compared[1]`` where the stand-ins score it better (on a tie,
    the blend)."""
    scores = getattr(estimator, "stacking_scores_", None)
    if scores is None:
        return
    scores = np.transpose(scores, (1, 0, 2))
    ranking_codes = np.unique(codes, return_inverse=True)[1]
    if ranking_score(scores, ranking_codes, compared[::-1])[2].blending:
        estimator.set_merge(compared[1].name, codes)
