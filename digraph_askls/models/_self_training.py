"""Class-balanced self-training of a :class:`NodeClassifier`: classes with few labelled
nodes borrow the unlabelled nodes the first fit is surest of.

With two labelled nodes of a class, a model learns that class from two points; the
graph holds many more of its nodes, unlabelled. Self-training fits once, takes for each
class short of labels the unlabelled nodes it decided for that class with the highest
probability, labels them so (pseudo-labels), and fits again on the labels and the
pseudo-labels together. Classes are filled only up to the labelled count of the largest
class, as class-balanced self-training does (Zou et al., "Unsupervised domain
adaptation for semantic segmentation via class-balanced self-training", ECCV 2018;
on graphs, Li, Han and Wu, "Deeper insights into graph convolutional networks for
semi-supervised learning", AAAI 2018, add a GCN's surest predictions per class): no
class is given more pseudo-labels than it lacks, so a class the first fit favours
cannot take over the second.

One round only. The validation nodes of ``fit(valid=...)`` are labelled nodes and are
never pseudo-labelled; they choose both fits' configurations.
"""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._fitted import FittedAttributesMixin
from ._fit_inputs import read_fit_inputs
from ._node import NodeClassifier
from ._targets import multilabel_labels

__all__ = ["SelfTrainingNodeClassifier", "class_balanced_pseudo_labels"]


def class_balanced_pseudo_labels(codes, decided, proba, per_class="largest", held=None):
    """Pseudo-labels that fill each class up to ``per_class`` labelled nodes.

    Parameters
    ----------
    codes : ndarray of int, shape (n_nodes,)
        Class code of each labelled node, -1 for unlabelled ones.
    decided : ndarray of int, shape (n_nodes,)
        The class code a model decided for each node.
    proba : ndarray of shape (n_nodes, n_classes)
        Its probability of each class (columns: class codes).
    per_class : "largest" or int, default="largest"
        The count each class is filled up to: the largest class's, or this many.
    held : array of int, optional
        Positions of labelled nodes that are not counted (validation nodes).

    Returns
    -------
    ndarray of int, shape (n_nodes,)
        The pseudo-label's code of each node, -1 where none: for each class ``c``
        with ``n_c < per_class`` labelled nodes, the ``per_class - n_c`` unlabelled
        nodes decided ``c`` of highest ``proba[:, c]`` (ties to the first position).

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([0, 0, 1, -1, -1, -1])
    >>> decided = np.array([0, 0, 1, 1, 1, 0])
    >>> proba = np.array([[.9, .1], [.9, .1], [.2, .8], [.4, .6], [.1, .9], [.6, .4]])
    >>> class_balanced_pseudo_labels(codes, decided, proba).tolist()
    [-1, -1, -1, -1, 1, -1]
    """
    codes = np.asarray(codes)
    decided = np.asarray(decided)
    proba = np.asarray(proba, dtype=float)
    if decided.shape != codes.shape or proba.shape[0] != codes.size:
        raise ValueError(f"codes, decided and proba must describe the same {codes.size} "
                         f"nodes, got shapes {codes.shape}, {decided.shape}, {proba.shape}")
    counted = codes >= 0
    if held is not None:
        counted[np.asarray(held, dtype=np.int64)] = False
    counts = np.bincount(codes[counted], minlength=proba.shape[1])
    target = int(counts.max()) if per_class == "largest" else int(per_class)
    pseudo = np.full(codes.size, -1)
    for code in np.flatnonzero(counts[: proba.shape[1]] < target):
        pool = np.flatnonzero((codes < 0) & (decided == code))
        order = np.argsort(-proba[pool, code], kind="stable")
        pseudo[pool[order[: target - counts[code]]]] = code
    return pseudo


class SelfTrainingNodeClassifier(ClassifierMixin, FittedAttributesMixin, BaseEstimator):
    """A :class:`NodeClassifier` fitted twice: the second time with pseudo-labels for the
    classes that have fewer labelled nodes than the largest.

    The first fit decides every unlabelled node (:meth:`NodeClassifier.predict`, class
    weights included). For each class ``c`` with ``n_c`` labelled nodes (validation
    nodes not counted) below the target ``m`` (``per_class``), the ``m - n_c``
    unlabelled nodes decided for ``c`` with the highest probability of ``c``
    (:meth:`NodeClassifier.predict_proba`; ties to the first in node order) are labelled
    ``c``; a clone of ``estimator`` is then fitted on the labels and these
    pseudo-labels, with the same ``features``, ``valid`` and graph, and answers
    :meth:`predict` and :meth:`predict_proba`. Where no class is short, the first fit
    answers.

    Parameters
    ----------
    estimator : NodeClassifier, optional
        The classifier fitted twice (cloned; None: ``NodeClassifier()``). For rare
        classes, ``NodeClassifier(class_weight="balanced",
        scoring="balanced_accuracy")``.
    per_class : "largest" or int, default="largest"
        Labelled nodes each class is filled up to: the largest class's count, or this
        many.

    Attributes
    ----------
    estimator_ : NodeClassifier
        The fit that answers (the second, or the first where nothing was added).
    first_estimator_ : NodeClassifier
        The fit that chose the pseudo-labels.
    pseudo_labels_ : dict
        Node -> class of every pseudo-labelled node, in node order.
    classes_ : ndarray
        The classes, as ``estimator_``'s.
    nodes_ : list
        Node names, in node order.

    Examples
    --------
    >>> import networkx as nx
    >>> from digraph_askls import NodeClassifier
    >>> from digraph_askls.models import SelfTrainingNodeClassifier
    >>> graph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
    >>> labels = {0: "a", 1: "a", 3: "b"}
    >>> model = SelfTrainingNodeClassifier(NodeClassifier(kernel="ppr", gamma=0.01,
    ...                                                   merge="average"))
    >>> model.fit(graph, labels).pseudo_labels_
    {5: 'b'}
    >>> model.predict([2, 5]).tolist()
    ['a', 'b']
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict", "predict_proba"]), None],
        "per_class": [StrOptions({"largest"}), Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, estimator=None, per_class="largest"):
        self.estimator = estimator
        self.per_class = per_class

    def fit(self, graph, labels=None, *, features=None, valid=None, nodelist=None,
            weight="weight"):
        """Fit, pseudo-label the classes short of labels, fit again.

        Parameters
        ----------
        graph, labels, features, valid, nodelist, weight
            As in :meth:`NodeClassifier.fit` (one class per node).

        Returns
        -------
        self
        """
        self._validate_params()
        if multilabel_labels(graph, labels) is not None:
            raise ValueError("self-training fills classes of one label per node; got "
                             "several labels per node (a 2-D indicator or lists of labels)")
        base = NodeClassifier() if self.estimator is None else self.estimator
        options = dict(features=features, valid=valid, nodelist=nodelist, weight=weight)
        first = clone(base).fit(graph, labels, **options)
        inputs = read_fit_inputs(graph, labels, False, nodelist, weight)
        codes, classes = inputs.codes, np.asarray(inputs.classes, dtype=object)
        pseudo = self._pseudo_codes(first, codes, classes, valid)
        chosen = np.flatnonzero(pseudo >= 0)
        final = first
        if chosen.size:
            known = np.flatnonzero(codes >= 0)
            extended = {inputs.nodes[i]: classes[codes[i]] for i in known}
            extended.update((inputs.nodes[i], classes[pseudo[i]]) for i in chosen)
            final = clone(base).fit(graph, extended, **options)
        self.first_estimator_, self.estimator_ = first, final
        self.pseudo_labels_ = {inputs.nodes[i]: classes[pseudo[i]] for i in chosen}
        self.classes_, self.nodes_ = final.classes_, final.nodes_
        return self

    def _pseudo_codes(self, first, codes, classes, valid):
        """The class code of each node's pseudo-label (-1: none) from the first fit."""
        held = None if valid is None else first._node_index.positions(list(valid))
        code_of = {label: code for code, label in enumerate(classes)}
        columns = np.array([code_of[label] for label in first.classes_])
        proba = np.zeros((codes.size, classes.size))
        proba[:, columns] = first.predict_proba()
        decided = np.array([code_of[label] for label in first.predict()])
        return class_balanced_pseudo_labels(codes, decided, proba, self.per_class, held)

    def predict(self, nodes=None, **kwargs):
        """:meth:`NodeClassifier.predict` of ``estimator_``."""
        check_is_fitted(self)
        return self.estimator_.predict(nodes, **kwargs)

    def predict_proba(self, nodes=None, **kwargs):
        """:meth:`NodeClassifier.predict_proba` of ``estimator_``."""
        check_is_fitted(self)
        return self.estimator_.predict_proba(nodes, **kwargs)

    def score(self, nodes, labels, sample_weight=None):
        """:meth:`NodeClassifier.score` of ``estimator_``."""
        check_is_fitted(self)
        return self.estimator_.score(nodes, labels, sample_weight=sample_weight)
