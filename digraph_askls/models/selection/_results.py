"""What a selection reports, assembled here alone: ``selection_`` (:func:`selection_record`)
and the columns of ``cv_results_`` (:data:`CV_COLUMNS`, :func:`add_row`,
:func:`rank_rows`)."""

import logging

import numpy as np
from scipy.stats import rankdata

__all__ = ["CV_COLUMNS", "add_row", "no_rows", "rank_rows", "selection_record"]

logger = logging.getLogger(__name__)

#: The columns of ``cv_results_``, one entry per configuration tried.
CV_COLUMNS = ("kernel", "gamma", "engine", "mean_test_score", "cv_accuracy", "merge",
              "fit_time", "scored_on", "rank_test_score")


def no_rows():
    """``cv_results_`` when nothing was selected: empty lists."""
    return {key: [] for key in CV_COLUMNS}


def add_row(rows, kernel, gamma, engine, score, accuracy, merge, elapsed, scored_on):
    """Append one configuration to the ``cv_results_`` columns ``rows`` (all but
    ``rank_test_score``, which :func:`rank_rows` sets once they are all in)."""
    for key, value in (("kernel", kernel), ("gamma", float(gamma)), ("engine", engine),
                       ("mean_test_score", score), ("cv_accuracy", accuracy),
                       ("merge", getattr(merge, "name", merge)),
                       ("fit_time", elapsed), ("scored_on", scored_on)):
        rows.setdefault(key, []).append(value)
    logger.info("selection %r gamma=%g: %s (%.2f s)", kernel, gamma,
                "alone, not ranked" if score is None else f"{score:.4f}", elapsed)


def rank_rows(rows, ties="stable"):
    """Set ``rows["rank_test_score"]`` from ``mean_test_score``, 1 the best: ties in the
    order of the rows (``"stable"``), or sharing the best rank among them (``"min"``, as
    scikit-learn's searches report them)."""
    scores = np.asarray(rows["mean_test_score"], dtype=np.float64)
    if ties == "min":
        rows["rank_test_score"] = [int(r) for r in rankdata(-scores, method="min")]
    else:
        rows["rank_test_score"] = list(np.argsort(np.argsort(-scores, kind="stable")) + 1)
    return rows


def selection_record(kernel, gamma, *, score, estimate, interval, held_out, optimism,
                     engine, merge, n_folds, interval_max=np.inf, scoring=None,
                     held_out_accuracy=None, **extra):
    """``selection_``: the chosen ``kernel``, ``gamma`` and ``merge``, how it was judged
    and the estimate of its score on the other nodes.

    Under the accuracy (``scoring`` None or accuracy) the estimate is ``accuracy``
    (``accuracy_interval``, ``accuracy_reliable``: the interval no wider than
    ``interval_max``) and ``held_out`` is ``held_out_accuracy``. Under another scorer
    those are ``score_estimate``, ``score_interval``, ``score_reliable`` and
    ``held_out_score``, ``scoring`` names it, ``held_out_accuracy`` is the raw held-out
    accuracy of the same predictions and the accuracy keys are None (nothing chose by
    accuracy, so no estimate of it is corrected for the choice). ``extra``: further keys
    (``n_valid``).
    """
    reliable = None if interval is None else bool(interval[1] - interval[0] <= interval_max)
    record = dict(kernel=kernel, gamma=float(gamma), score=score,
                  optimism=optimism, engine=engine, merge=merge, n_folds=n_folds, **extra)
    if scoring is None or scoring.is_accuracy:
        return dict(record, accuracy=estimate, accuracy_interval=interval,
                    accuracy_reliable=reliable, held_out_accuracy=held_out)
    return dict(record, accuracy=None, accuracy_interval=None, accuracy_reliable=None,
                held_out_accuracy=held_out_accuracy, scoring=scoring.name,
                score_estimate=estimate, score_interval=interval, score_reliable=reliable,
                held_out_score=held_out)
