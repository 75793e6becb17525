"""Metrics: scores of node classifiers beside scikit-learn's.

* :func:`expected_calibration_error`: how far the confidence of class probabilities is
  from their accuracy (one label per node);
* :func:`top_k_f1`: micro- and macro-F1 of top-k predictions (several labels per node),
  the scoring of the embedding literature's multi-label protocol.

Micro- and macro-F1 of one label per node are scikit-learn's
:func:`sklearn.metrics.f1_score`; the protocols that split the labelled nodes are in
:mod:`digraph_askls.model_selection`.

Examples
--------
>>> from digraph_askls.metrics import expected_calibration_error, top_k_f1
>>> round(expected_calibration_error([0, 1], [[0.8, 0.2], [0.4, 0.6]]), 6)
0.3
>>> top_k_f1([[1, 0], [0, 1]], [[0.9, 0.1], [0.3, 0.7]])
(1.0, 1.0)
"""

from ._calibration import expected_calibration_error
from ._multilabel import top_k_f1

__all__ = ["expected_calibration_error", "top_k_f1"]
