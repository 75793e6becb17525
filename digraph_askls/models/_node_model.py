"""What a fitted node classifier answers, from the state a selection fitted.

:class:`FittedModel` gathers that state: the kernel on every node, the
:class:`~digraph_askls.AsKLSClassifier` fitted on the labelled nodes, their positions,
every node's view scores where the solve gave them, the probability calibrator, the
costs of the classes' errors and, for several labels, the labels' thresholds. The
functions here read it; :class:`~digraph_askls.NodeClassifier` and the validation split
of the selection (which judges each configuration as the classifier would answer) both
answer through them.

A node is read either by its position in the fitted graph (its kept scores where there
are some, else its kernel rows against the labelled nodes) or through the kernel blocks
``views`` of a grown graph (:mod:`~digraph_askls.models._new_nodes`).
"""

from typing import NamedTuple

import numpy as np

from ..kernels import restrict_kernel
from ._calibration import log_proba
from ._views import KernelViews
from .selection._answers import force_most_probable
from .selection._scoring import decide

__all__ = ["FittedModel", "LabelGroups", "decision_values", "explicit_weights",
           "predict_codes", "predict_proba"]


class FittedModel(NamedTuple):
    """The fitted state that answers (see the module). ``costs``: the cost of an error
    on each of ``estimator.classes_`` (None: arg-max decisions); ``thresholds``: one per
    label for several labels, else None; ``label_groups``: the groups of labels (column
    arrays) of which every node is answered at least the most probable (None: none)."""

    kernel: object
    estimator: object
    train: np.ndarray
    node_scores: object = None
    calibrator: object = None
    costs: object = None
    thresholds: object = None
    label_groups: object = None

    @classmethod
    def of(cls, result, train, costs=None):
        """The model of a :class:`~digraph_askls.models.selection.SearchResult`."""
        return cls(result.kernel, result.estimator, train, result.node_scores,
                   result.calibrator, costs, result.thresholds, result.label_groups)

    @property
    def several_labels(self):
        return self.thresholds is not None

    def views(self, positions):
        """The kernel blocks between the nodes ``positions`` and the labelled nodes."""
        return KernelViews(restrict_kernel(self.kernel, positions, self.train),
                           restrict_kernel(self.kernel, self.train, positions))

    def scores(self, positions):
        """The kept view scores of ``positions`` (n, 2, k), or None."""
        if self.node_scores is None or positions is None:
            return None
        return self.node_scores.features(positions)


class LabelGroups:
    """Several labels per node that split into groups of exclusive labels (one true label
    per group), answered by one single-label model per group: the
    :attr:`FittedModel.estimator` of such a fit.

    ``groups``: per group, the columns of its labels by the class codes of its model
    (``columns[code]``); ``models``: the groups' :class:`FittedModel`; ``answer``:
    ``"one per group"`` (each group's model's prediction), or where that did not beat
    them on the folds a trivial answer, ``"every label"`` or ``"most probable label"``
    (the label of the highest probability of all groups). A node of
    a grown graph is read through one :class:`KernelViews` per group (each group's
    kernel). A group of two classes has one decision column (that of its second
    class): its first class's decision is its opposite.
    """

    def __init__(self, groups, models, n_labels, answer="one per group"):
        self.groups = tuple(np.asarray(columns) for columns in groups)
        self.models = tuple(models)
        self.n_labels = int(n_labels)
        self.answer = answer
        self.classes_ = np.arange(self.n_labels)

    def _each(self, views):
        return zip(self.groups, self.models, (None,) * len(self.models) if views is None
                   else views)

    def predict(self, positions, views):
        """0/1 predictions (n, n_labels)."""
        predicted = None
        for columns, model, group_views in self._each(views):
            codes = predict_codes(model, positions, group_views)
            if predicted is None:
                predicted = np.zeros((codes.size, self.n_labels), dtype=int)
            predicted[np.arange(codes.size), columns[codes]] = 1
        if self.answer == "every label":
            return np.ones_like(predicted)
        if self.answer == "most probable label":
            top = np.argmax(self.predict_proba(positions, views), axis=1)
            predicted = np.zeros_like(predicted)
            predicted[np.arange(top.size), top] = 1
        return predicted

    def predict_proba(self, positions, views):
        """Each label's probability (n, n_labels): its group's model's."""
        return self._placed(lambda model, group_views: predict_proba(model, positions,
                                                                     group_views), views)

    def decision(self, positions, views, view=None):
        """Each label's decision value (n, n_labels), as :func:`decision_values`."""
        if view == "both":
            return {name: self.decision(positions, views, name)
                    for name in ("source", "target")}
        return self._placed(lambda model, group_views: decision_values(
            model, positions, group_views, view=view), views)

    def _placed(self, of_group, views=None):
        placed = None
        for columns, model, group_views in self._each(views):
            values = np.asarray(of_group(model, group_views))
            if values.ndim == 1:                  # two classes: the second's column
                values = np.column_stack([-values, values])
            if placed is None:
                placed = np.zeros((values.shape[0], self.n_labels))
            placed[:, columns[model.estimator.classes_]] = values
        return placed


def _merged_proba(model, positions, views):
    scores = model.scores(positions) if views is None else None
    if scores is not None:
        return model.estimator.proba_from_view_scores(scores)
    return model.estimator.predict_proba(model.views(positions) if views is None else views)


def predict_codes(model, positions=None, views=None):
    """The class codes (those of ``model.estimator.classes_``) of the nodes ``positions``,
    or of the grown graph's nodes ``views``; a 0/1 indicator for several labels.

    With costs the class of least expected cost under the probabilities of
    :func:`predict_proba` (calibrated where the model has a calibrator: those that judge
    the candidates on validation nodes; :func:`~digraph_askls.models.selection._scoring.decide`),
    else the merge's arg-max.
    """
    estimator = model.estimator
    if isinstance(estimator, LabelGroups):
        return estimator.predict(positions, views)
    if model.several_labels:
        decision = estimator.decision_function(model.views(positions) if views is None
                                               else views)
        above = (decision > model.thresholds).astype(int)
        if model.label_groups is None:
            return above
        return force_most_probable(above, predict_proba(model, positions, views),
                                   model.label_groups)
    if model.costs is not None:
        return estimator.classes_[decide(predict_proba(model, positions, views), model.costs)]
    scores = model.scores(positions) if views is None else None
    if scores is not None:
        return estimator.predict_from_view_scores(scores)
    return estimator.predict(model.views(positions) if views is None else views)


def predict_proba(model, positions=None, views=None):
    """Class probabilities (columns ``model.estimator.classes_``), calibrated where the
    model has a calibrator; one probability per label for several labels."""
    if isinstance(model.estimator, LabelGroups):
        return model.estimator.predict_proba(positions, views)
    if model.several_labels:
        decision_views = model.views(positions) if views is None else views
        if model.calibrator is None:           # the per-label stackers'
            return model.estimator.predict_proba(decision_views)
        return model.calibrator.predict_proba(
            model.estimator.decision_function(decision_views))
    proba = _merged_proba(model, positions, views)
    return proba if model.calibrator is None else \
        model.calibrator.predict_proba(log_proba(proba))


def decision_values(model, positions=None, views=None, view=None):
    """Decision values: merged (``view`` None) or one view's raw one-vs-rest scores
    (``"source"``, ``"target"``; ``"both"``: a dict of the two). One column with two
    classes (that of ``classes_[1]``)."""
    estimator = model.estimator
    if isinstance(estimator, LabelGroups):
        return estimator.decision(positions, views, view)
    scores = model.scores(positions) if views is None else None
    if scores is not None:
        if view is None:
            merged = estimator.decision_from_view_scores(scores)
            return merged[:, 0] if estimator.classes_.size == 2 else merged
        by_view = {"source": scores[:, 0], "target": scores[:, 1]}
    else:
        views = model.views(positions) if views is None else views
        if view is None:
            return estimator.decision_function(views)
        by_view = dict(zip(("source", "target"), estimator.view_decisions(views)))
    if estimator.classes_.size == 2 and not model.several_labels:
        by_view = {name: value[:, 0] for name, value in by_view.items()}
    return by_view if view == "both" else by_view[view]


def explicit_weights(kernel, train, estimator):
    """The per-feature weights of both views of a kernel with explicit feature maps (see
    :meth:`~digraph_askls.NodeClassifier.primal_weights`)."""
    if isinstance(estimator, LabelGroups):
        raise ValueError("this model answers each group of exclusive labels "
                         "(selection_['label_groups']) with its own kernel and model: "
                         "there is no one set of primal weights")
    if kernel is None:
        raise ValueError("this model was saved without its kernel (its fit kept every "
                         "node's scores, which is a walk kernel's): a walk kernel has "
                         "no explicit feature maps")
    block = restrict_kernel(kernel, train, train)
    transpose_dot = getattr(block, "maps_transpose_dot", None)
    if transpose_dot is None:
        raise ValueError(f"the kernel in use ({type(kernel).__name__}) has no explicit "
                         "feature maps; primal weights exist for the attribute, role and "
                         "first-power link-profile kernels")
    _, dual = estimator.coefficient_blocks()     # (2, m, k): a~, b~
    return {"source": transpose_dot(dual[1], side="target").T,
            "target": transpose_dot(dual[0], side="source").T,
            "feature_names": getattr(kernel, "feature_names", None)}
