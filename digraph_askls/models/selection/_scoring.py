"""The score that judges the selection's configurations: accuracy, or a scikit-learn
scorer (``NodeClassifier(scoring=...)``), on held-out predictions.

A configuration's held-out predictions of the labelled nodes are kept as rows: the
hits (right or wrong, :class:`HitRows`) where the score is the accuracy, or the
held-out class probabilities (:class:`ProbabilityRows`) under another scorer. Both
score a row on all nodes (:meth:`~HitRows.means`), on each fold
(:meth:`~HitRows.fold_means`) and on weighted resamples of the nodes
(:meth:`~HitRows.weighted`), which is all that the ranking, the choice of the merge
and the estimate (:mod:`~._estimate`) ask of them.
"""

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics import get_scorer, get_scorer_names

__all__ = ["BINARY_SCORES", "HitRows", "ProbabilityRows", "Scoring", "as_rows",
           "check_scoring", "check_two_classes", "decide", "held_out_rows"]


class _Replay(ClassifierMixin, BaseEstimator):
    """A classifier that replays held-out predictions: ``X`` holds node positions (one
    column), ``predict`` and ``predict_proba`` read the stored rows there. Scikit-learn
    scorers read held-out predictions through it."""

    def __init__(self, proba=None, costs=None):
        self.proba = proba
        self.costs = costs

    def fit(self, X=None, y=None):
        return self

    @property
    def classes_(self):
        return np.arange(self.proba.shape[1])

    def _rows(self, X):
        return np.asarray(X, dtype=np.int64).ravel()

    def predict(self, X):
        return decide(self.proba[self._rows(X)], self.costs)

    def predict_proba(self, X):
        return _as_probabilities(self.proba[self._rows(X)])

    def decision_function(self, X):
        proba = self.predict_proba(X)
        return proba[:, 1] if proba.shape[1] == 2 else proba

    def __sklearn_is_fitted__(self):
        return True


def decide(proba, costs=None):
    """The class of each row of held-out probabilities (or stand-ins) ``proba`` (..., k):
    the arg-max, or with ``costs`` (one per class: the cost of an error on a node of that
    class, ``NodeClassifier(class_weight=...)``) the class of least expected cost,
    ``argmax_c costs_c p_c`` (the values clipped at 0, as probabilities).

    >>> decide(np.array([[0.7, 0.3], [0.9, 0.1]]), np.array([1.0, 5.0])).tolist()
    [1, 0]
    """
    proba = np.asarray(proba)
    if costs is None:
        return np.argmax(proba, axis=-1)
    return np.argmax(np.clip(proba, 0.0, None) * np.asarray(costs, dtype=np.float64),
                     axis=-1)


def _as_probabilities(values):
    """Rows of non-negative values summing to one (a least-squares stand-in's predictions
    can leave [0, 1]); a row with nothing positive is uniform."""
    values = np.clip(np.asarray(values, dtype=np.float64), 0.0, None)
    total = values.sum(axis=1, keepdims=True)
    uniform = np.full_like(values, 1.0 / max(values.shape[1], 1))
    return np.where(total > 0, values / np.where(total > 0, total, 1.0), uniform)


def _confusions(codes, predicted, weights, n_classes):
    """Weighted confusion matrices, (n_weights, n_rows, n_classes, n_classes): for every
    weighting of the nodes and every row of predicted classes, the weight of the nodes
    of each (true, predicted) pair."""
    n_rows, m = predicted.shape
    cells = n_classes * n_classes
    columns = (np.arange(n_rows)[:, None] * cells + codes[None, :] * n_classes
               + predicted).ravel()
    nodes = np.tile(np.arange(m), n_rows)
    indicator = sparse.csr_array((np.ones(columns.size), (nodes, columns)),
                                 shape=(m, n_rows * cells))
    counts = np.asarray((indicator.T @ np.asarray(weights, dtype=np.float64).T).T)
    return counts.reshape(len(weights), n_rows, n_classes, n_classes)


def _weighted_means(weights, values):
    """(n_weights, n_rows): the mean of each row of ``values`` (n_rows, m) under each
    weighting ``weights`` (n_weights, m) of the nodes."""
    sums = np.asarray(weights, dtype=np.float64).sum(axis=1, keepdims=True)
    return _ratio(weights @ np.asarray(values, dtype=np.float64).T,
                  np.repeat(sums, len(values), axis=1))


def _ratio(numerator, denominator):
    return np.divide(numerator, denominator, out=np.zeros_like(numerator),
                     where=denominator > 0)


def _balanced_accuracy(confusion):
    support = confusion.sum(axis=-1)
    recall = _ratio(np.diagonal(confusion, axis1=-2, axis2=-1), support)
    present = support > 0
    return _ratio((recall * present).sum(axis=-1), present.sum(axis=-1).astype(float))


def _per_class(measure, average):
    """A scorer averaging ``measure(hits, support, predicted)`` over the classes present
    (true or predicted) in the nodes of positive weight: plainly (``"macro"``) or
    weighted by their support (``"weighted"``); 0 where a class's measure is undefined,
    as scikit-learn's ``zero_division`` default gives."""
    def score(confusion):
        support = confusion.sum(axis=-1)
        predicted = confusion.sum(axis=-2)
        values = measure(np.diagonal(confusion, axis1=-2, axis2=-1), support, predicted)
        if average == "weighted":
            return _ratio((values * support).sum(axis=-1), support.sum(axis=-1))
        present = (support + predicted) > 0
        return _ratio((values * present).sum(axis=-1), present.sum(axis=-1).astype(float))
    return score


_MEASURES = {
    "f1": lambda hits, support, predicted: _ratio(2.0 * hits, support + predicted),
    "precision": lambda hits, support, predicted: _ratio(hits, predicted),
    "recall": lambda hits, support, predicted: _ratio(hits, support),
    "jaccard": lambda hits, support, predicted: _ratio(hits, support + predicted - hits),
}


#: Scorers computed from weighted confusion matrices, all rows and resamples at once;
#: each equals scikit-learn's on the nodes of positive weight (``tests/test_scoring.py``).
_FROM_CONFUSION = {"balanced_accuracy": _balanced_accuracy,
                   **{f"{name}_{average}": _per_class(measure, average)
                      for name, measure in _MEASURES.items()
                      for average in ("macro", "weighted")}}


class Scoring:
    """The criterion of the selection: ``"accuracy"``, another name of
    :func:`sklearn.metrics.get_scorer_names`, or a callable ``scorer(estimator, X, y)``.

    A scorer reads held-out predictions through an estimator that replays them
    (``X``: the positions of the judged nodes, one column; ``y``: their class codes,
    ``0 .. n_classes - 1``; ``predict_proba`` the held-out probabilities). Greater is
    better, as for scikit-learn's scorers (``"neg_log_loss"``).

    ``"accuracy"``, ``"neg_log_loss"``, ``"balanced_accuracy"`` and the macro and weighted
    averages of ``f1``, ``precision``, ``recall`` and ``jaccard`` are computed for every
    configuration and resample at once (from weighted confusion matrices). Any other
    name, and a callable, is called once per configuration and resample of the
    estimate's bootstrap (:data:`~._estimate.BBC_BOOTSTRAPS` of them): a selection among
    dozens of configurations then makes thousands of calls, minutes where each call
    takes milliseconds.

    Examples
    --------
    >>> import numpy as np
    >>> scoring = Scoring("balanced_accuracy")
    >>> codes = np.array([0, 0, 0, 1])
    >>> proba = np.array([[0.9, 0.1], [0.8, 0.2], [0.6, 0.4], [0.7, 0.3]])
    >>> float(scoring(codes, proba))        # class 1 never predicted
    0.5
    >>> Scoring("nonsense")
    Traceback (most recent call last):
    ...
    ValueError: scoring='nonsense' is not a scorer name; ...
    """

    def __init__(self, scoring="accuracy", costs=None):
        self.scoring = scoring
        self.costs = None if costs is None else np.asarray(costs, dtype=np.float64)
        if isinstance(scoring, str):
            if scoring not in get_scorer_names():
                raise ValueError(f"scoring={scoring!r} is not a scorer name; choose from "
                                 f"{sorted(get_scorer_names())} or pass a callable "
                                 f"scorer(estimator, X, y)")
            self.name = scoring
            self._scorer = get_scorer(scoring)
        elif callable(scoring):
            self.name = getattr(scoring, "__name__", repr(scoring))
            self._scorer = scoring
        else:
            raise TypeError(f"scoring must be a scorer name or a callable "
                            f"scorer(estimator, X, y), got {type(scoring).__name__}")
        # the plain hits serve the accuracy of arg-max decisions only
        self.is_accuracy = scoring == "accuracy" and self.costs is None

    def with_costs(self, costs):
        """The same score of the decisions of least expected cost under ``costs`` (one
        per class code; None: the arg-max), see :func:`decide`."""
        return Scoring(self.scoring, costs)

    def __call__(self, codes, proba, sample_weight=None):
        """The score of held-out probabilities (or stand-ins) ``proba`` (m, n_classes) of
        nodes of classes ``codes``."""
        weights = np.ones((1, len(codes))) if sample_weight is None \
            else np.asarray(sample_weight, dtype=np.float64)[None]
        return float(self.weighted(codes, np.asarray(proba)[None], weights)[0, 0])

    def weighted(self, codes, probas, weights):
        """Scores of the rows ``probas`` (n_rows, m, n_classes) under each weighting
        ``weights`` (n_weights, m) of the nodes, (n_weights, n_rows): scikit-learn's scorer
        on the nodes of positive weight with those sample weights."""
        codes = np.asarray(codes, dtype=np.int64)
        n_classes = probas.shape[2]
        if isinstance(self.scoring, str) and self.name in _FROM_CONFUSION:
            return _FROM_CONFUSION[self.name](
                _confusions(codes, decide(probas, self.costs), weights, n_classes))
        if self.name == "neg_log_loss":
            eps = np.finfo(np.float64).eps
            rows = np.stack([_as_probabilities(p) for p in probas])
            loss = -np.log(np.clip(rows[:, np.arange(codes.size), codes], eps, 1 - eps))
            return -_weighted_means(weights, loss)
        if self.scoring == "accuracy":
            return _weighted_means(weights, decide(probas, self.costs) == codes)
        return self._loop(codes, probas, weights)

    def _loop(self, codes, probas, weights):
        out = np.empty((len(weights), len(probas)))
        for i, weight in enumerate(weights):
            kept = np.flatnonzero(weight > 0)
            X = kept[:, None]
            for j, proba in enumerate(probas):
                out[i, j] = self._scorer(_Replay(proba, self.costs), X, codes[kept],
                                         sample_weight=weight[kept])
        return out

    def __repr__(self):
        costs = "" if self.costs is None else f", costs={self.costs.tolist()}"
        return f"Scoring({self.scoring!r}{costs})"


#: Scores of two classes (scikit-learn's ``average='binary'``).
BINARY_SCORES = ("f1", "precision", "recall", "jaccard")


def check_two_classes(scoring, n_classes):
    """Refuse a score of two classes (:data:`BINARY_SCORES`) on ``n_classes`` > 2, naming
    the averages to choose."""
    if scoring in BINARY_SCORES and n_classes > 2:
        raise ValueError(
            f"scoring={scoring!r} scores two classes (scikit-learn's average='binary'), "
            f"got labels of {n_classes} classes; choose an average over the classes: "
            f"{scoring + '_macro'!r} (each class counts alike), {scoring + '_weighted'!r} "
            f"(each class by its number of nodes) or {scoring + '_micro'!r} (each node "
            f"alike)")


def check_scoring(scoring):
    """``scoring`` as a :class:`Scoring` (None: accuracy).

    The names of scores of two classes (``"f1"``, ``"precision"``, ``"recall"``,
    ``"jaccard"``: scikit-learn's ``average='binary'``) score through a scorer that,
    on labels of more than two classes, raises an error naming the averages to choose
    (``"f1_macro"``, ``"f1_weighted"``, ``"f1_micro"``) instead of scikit-learn's.
    """
    if isinstance(scoring, Scoring):
        return scoring
    if scoring not in BINARY_SCORES:
        return Scoring("accuracy" if scoring is None else scoring)
    name, binary = scoring, get_scorer(scoring)

    def two_classes_only(estimator, X, y, **kwargs):
        check_two_classes(name, np.unique(y).size)
        return binary(estimator, X, y, **kwargs)

    two_classes_only.__name__ = name
    return Scoring(two_classes_only)


class HitRows:
    """Held-out hits of configurations on the same nodes, (n_rows, m) bool: the rows that
    the accuracy judges. Every figure is the same expression the accuracy always was."""

    def __init__(self, hits):
        self.hits = np.asarray(hits, dtype=bool)

    @property
    def shape(self):
        return self.hits.shape

    def __len__(self):
        return len(self.hits)

    def means(self):
        """Each row's score on every node."""
        return self.hits.mean(axis=1)

    def fold_means(self, folds):
        """(n_folds, n_rows): each row's score on each non-empty fold."""
        return np.array([self.hits[:, fold].mean(axis=1) for fold in folds if fold.size])

    def weighted(self, weights):
        """(n_weights, n_rows): each row's hits summed with ``weights`` (a mean where the
        weights sum to one)."""
        return weights @ np.asarray(self.hits, dtype=np.float64).T

    def take(self, rows=None, columns=None):
        hits = self.hits if rows is None else self.hits[rows]
        return HitRows(hits if columns is None else hits[:, columns])

    def reshape_rows(self, m):
        return HitRows(self.hits.reshape(-1, m))

    def replace_rows(self, mask, row):
        """A copy whose rows ``mask`` are the one row of ``row``."""
        hits = self.hits.copy()
        hits[mask] = row.hits[0]
        return HitRows(hits)

    @staticmethod
    def stack(parts):
        return HitRows(np.vstack([part.hits for part in parts]))


class ProbabilityRows:
    """Held-out class probabilities (or stand-ins) of configurations on the same nodes,
    (n_rows, m, n_classes), judged by a :class:`Scoring` other than accuracy."""

    def __init__(self, probas, codes, scoring):
        self.probas = np.asarray(probas, dtype=np.float64)
        self.codes = np.asarray(codes, dtype=np.int64)
        self.scoring = scoring

    @property
    def hits(self):
        return decide(self.probas, self.scoring.costs) == self.codes

    @property
    def shape(self):
        return self.probas.shape[:2]

    def __len__(self):
        return len(self.probas)

    def means(self):
        return self.weighted(np.ones((1, self.codes.size)))[0]

    def fold_means(self, folds):
        weights = np.array([np.isin(np.arange(self.codes.size), fold).astype(float)
                            for fold in folds if fold.size]).reshape(-1, self.codes.size)
        return self.weighted(weights)

    def weighted(self, weights):
        if not len(self.probas):
            return np.zeros((len(weights), 0))
        return self.scoring.weighted(self.codes, self.probas, np.asarray(weights))

    def take(self, rows=None, columns=None):
        probas = self.probas if rows is None else self.probas[rows]
        if columns is None:
            return ProbabilityRows(probas, self.codes, self.scoring)
        return ProbabilityRows(probas[:, columns], self.codes[columns], self.scoring)

    def reshape_rows(self, m):
        return ProbabilityRows(self.probas.reshape(-1, m, self.probas.shape[-1]),
                               self.codes, self.scoring)

    def replace_rows(self, mask, row):
        """A copy whose rows ``mask`` are the one row of ``row``."""
        probas = self.probas.copy()
        probas[mask] = row.probas[0]
        return ProbabilityRows(probas, self.codes, self.scoring)

    @staticmethod
    def stack(parts):
        return ProbabilityRows(np.concatenate([part.probas for part in parts]),
                               parts[0].codes, parts[0].scoring)


def as_rows(rows):
    """``rows`` as held-out rows: :class:`HitRows` or :class:`ProbabilityRows` as given,
    an array of hits as :class:`HitRows`."""
    if isinstance(rows, (HitRows, ProbabilityRows)):
        return rows
    return HitRows(np.atleast_2d(np.asarray(rows, dtype=bool)))


def held_out_rows(predictions, codes, scoring):
    """Rows of held-out predictions ``predictions`` (a list of (m, n_classes) arrays):
    their hits under the accuracy, their probabilities under another scorer."""
    if scoring is None or scoring.is_accuracy:
        return HitRows(np.array([np.argmax(p, axis=1) == codes for p in predictions],
                                dtype=bool).reshape(-1, codes.size))
    n_classes = int(codes.max()) + 1
    probas = [p if p.shape[1] == n_classes else _pad(p, n_classes) for p in predictions]
    return ProbabilityRows(np.array(probas).reshape(-1, codes.size, n_classes), codes,
                           scoring)


def _pad(proba, n_classes):
    full = np.zeros((proba.shape[0], n_classes))
    full[:, :proba.shape[1]] = proba
    return full
