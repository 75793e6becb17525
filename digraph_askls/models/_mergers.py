"""One merger per combine rule of :class:`~digraph_askls.models._merge.Merge`: fitted on
held-out view scores of the training samples, it maps view scores to decisions and class
probabilities.

``AsKLSClassifier`` and ``LSSVMClassifier`` fit theirs on their stacking scores (out-of-fold,
training or leave-one-out view scores), the selection of ``NodeClassifier`` cross-validates
each on the out-of-fold scores of the winner (:func:`~.selection._winner.merge_probabilities`),
and ``fit(valid=...)`` fits the chosen one: the same code in every place.

View scores are ``(n, n_views, k)`` arrays: the scores of each view the merge reads, one
column per one-vs-rest problem (one column for two classes).
"""

import warnings

import numpy as np
from scipy.linalg import LinAlgWarning

from ._stackers import (BlendedStacker, fit_temperature, joint_logistic_regression,
                        softmax_rows, unpenalized_logistic_regression, view_logits)

__all__ = ["BlendMerger", "JointMerger", "MeanMerger", "Merger", "OneSidedColumn",
           "StackMerger", "merger_for"]


class OneSidedColumn(ValueError):
    """A one-vs-rest column whose training samples are all on one side: the per-class
    stacker cannot be fitted."""


class Merger:
    """Base of the mergers: ``fit(features, codes)``, ``decision_function(features)``,
    ``predict_proba(features)`` (columns: the classes seen in ``fit``, ``classes_``).

    ``models_`` holds the fitted models (what ``stackers_`` of the estimators keeps); a
    merger built around them (:func:`merger_for` with ``models``) predicts as the one
    that fitted them.
    """

    def __init__(self, models=None):
        self.models_ = models

    @staticmethod
    def _flat(features):
        return np.asarray(features).reshape(len(features), -1)


class MeanMerger(Merger):
    """The mean of the views (the paper's merge); its probabilities a softmax whose
    temperature is fitted on the held-out scores (:func:`~._stackers.fit_temperature`)."""

    def fit(self, features, codes, sample_weight=None, columns=None):
        n_views = features.shape[1]
        self.temperature_ = fit_temperature(view_logits(self._flat(features), n_views), codes)
        self.classes_ = np.unique(codes)
        return self

    def decision_function(self, features):
        return np.asarray(features).mean(axis=1)

    def predict_proba(self, features):
        temperature, scale = self.temperature_
        return softmax_rows(temperature * view_logits(self._flat(features), features.shape[1])
                            / scale)


class StackMerger(Merger):
    """The authors' merge: one unpenalised logistic regression per one-vs-rest column on
    that column's view scores (:func:`~._stackers.unpenalized_logistic_regression`)."""

    def fit(self, features, codes, sample_weight=None, columns=None):
        """``columns``: the 0/1 target of each column (m, k), where it is not the
        one-vs-rest of ``codes`` (a multi-label target); ``sample_weight``: each sample's
        weight in every column's fit (the class weights)."""
        k = features.shape[2]
        options = {} if sample_weight is None else {
            "logisticregression__sample_weight": sample_weight}
        self.models_ = []
        for column in range(k):
            target = (codes == (1 if k == 1 else column) if columns is None
                      else columns[:, column]).astype(int)
            if target.min() == target.max():
                raise OneSidedColumn("stacking needs both classes in every one-vs-rest column")
            with warnings.catch_warnings():
                # Two views that score alike, or a column they separate, leave the Newton
                # step's Hessian singular; scikit-learn then finishes the same fit with
                # L-BFGS, and says so each time (44 times in one BlogCatalog fit).
                warnings.filterwarnings("ignore", category=LinAlgWarning,
                                        message="The inner solver of NewtonCholeskySolver")
                self.models_.append(unpenalized_logistic_regression().fit(
                    features[:, :, column], target, **options))
        return self

    def decision_function(self, features):
        return np.column_stack([model.decision_function(features[:, :, column])
                                for column, model in enumerate(self.models_)])

    def predict_proba(self, features):
        proba = np.column_stack([model.predict_proba(features[:, :, column])[:, 1]
                                 for column, model in enumerate(self.models_)])
        if len(self.models_) == 1:
            return np.column_stack([1.0 - proba[:, 0], proba[:, 0]])
        total = proba.sum(axis=1, keepdims=True)
        return proba / np.where(total > 0, total, 1.0)


class JointMerger(Merger):
    """One multinomial logistic regression on every view of every class
    (:func:`~._stackers.joint_logistic_regression`): it reads patterns across classes."""

    def fit(self, features, codes, joint=None, sample_weight=None, columns=None):
        if joint is None:
            options = {} if sample_weight is None else {
                "logisticregression__sample_weight": sample_weight}
            joint = joint_logistic_regression().fit(self._flat(features), codes, **options)
        self.models_ = [joint]
        return self

    @property
    def classes_(self):
        return self.models_[0].classes_

    def decision_function(self, features):
        return self.models_[0].decision_function(self._flat(features)).reshape(
            len(features), -1)

    def predict_proba(self, features):
        return self.models_[0].predict_proba(self._flat(features))


class BlendMerger(JointMerger):
    """Half the joint stacker, half the calibrated mean view
    (:class:`~._stackers.BlendedStacker`); ``joint``: a joint stacker fitted on the same
    scores already, reused."""

    def fit(self, features, codes, joint=None, sample_weight=None, columns=None):
        """With ``sample_weight``, the joint half is fitted weighted; the calibrated mean
        view's temperature is not."""
        if joint is None and sample_weight is not None:
            joint = JointMerger().fit(features, codes, sample_weight=sample_weight).models_[0]
        self.models_ = [BlendedStacker(n_views=features.shape[1]).fit(
            self._flat(features), codes, joint=joint)]
        return self


_MERGERS = {"mean": MeanMerger, "source": MeanMerger, "target": MeanMerger,
            "stack": StackMerger, "joint": JointMerger, "blend": BlendMerger}


def merger_for(merge, models=None):
    """The merger of a :class:`~._merge.Merge`'s combine rule (unfitted, or around the
    fitted ``models``: an estimator's ``stackers_``).

    Examples
    --------
    >>> from digraph_askls.models._merge import Merge
    >>> type(merger_for(Merge("blend"))).__name__, type(merger_for(Merge("joint", "loo"))).__name__
    ('BlendMerger', 'JointMerger')
    """
    return _MERGERS[merge.combine](models)
