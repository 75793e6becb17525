"""Scores of predictions with several labels per node."""

import numpy as np
from sklearn.metrics import f1_score

__all__ = ["top_k_f1"]


def top_k_f1(y_true, scores):
    """Micro- and macro-F1 of top-k predictions, each node given as many labels as it has.

    The scoring of the embedding literature's multi-label protocol: node ``i`` with
    ``k_i`` true labels is predicted the ``k_i`` labels of highest ``scores[i]`` (ties
    to the lower column), then scikit-learn's ``f1_score`` with ``average="micro"`` and
    ``"macro"`` (a label neither true nor predicted on the test nodes scores 0).

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n, n_labels)
        0/1 indicator of the test nodes.
    scores : array-like of shape (n, n_labels)
        Any scores (decision values, probabilities), higher meaning more likely.

    Returns
    -------
    (micro_f1, macro_f1) : tuple of float

    Examples
    --------
    >>> top_k_f1([[1, 0, 1], [0, 1, 0]], [[0.9, 0.5, 0.1], [0.2, 0.7, 0.1]])
    (0.6666666666666666, 0.5555555555555555)
    """
    from ..models._targets import check_multilabel

    Y, _ = check_multilabel(y_true)
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape != Y.shape:
        raise ValueError(f"scores must have the shape of y_true {Y.shape}, got {scores.shape}")
    order = np.argsort(-scores, axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(Y.shape[1])[None, :].repeat(len(Y), 0), axis=1)
    predicted = (rank < Y.sum(axis=1, keepdims=True)).astype(int)
    return (float(f1_score(Y, predicted, average="micro", zero_division=0)),
            float(f1_score(Y, predicted, average="macro", zero_division=0)))
