"""The calibration error of class probabilities."""

import numbers

import numpy as np

__all__ = ["expected_calibration_error"]


def expected_calibration_error(y_true, proba, n_bins=10):
    """Expected calibration error of class probabilities (Guo et al., ICML 2017).

    The samples are binned by their confidence (the largest probability) into ``n_bins``
    equal intervals of ``[0, 1]``, ``((b - 1) / n_bins, b / n_bins]`` (a confidence of
    0 falls in the first); the error is the mean over the samples of
    ``|accuracy(bin) - mean confidence(bin)|`` of their bin, that is
    ``sum_b |B_b| / n * |acc(B_b) - conf(B_b)|``. The prediction is the argmax (the
    first column on ties).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The true classes as column indices of ``proba`` (``0 .. k - 1``).
    proba : array-like of shape (n, k), or (n,)
        Class probabilities; a vector is the probability of class 1 of two.
    n_bins : int, default=10

    Returns
    -------
    float

    Examples
    --------
    >>> round(expected_calibration_error([0, 1, 1], [[0.9, 0.1], [0.2, 0.8], [0.7, 0.3]]), 6)
    0.333333
    """
    proba = np.asarray(proba, dtype=np.float64)
    if proba.ndim == 1:
        proba = np.column_stack([1.0 - proba, proba])
    y_true = np.asarray(y_true)
    if proba.ndim != 2 or y_true.shape != (proba.shape[0],) or proba.shape[0] == 0:
        raise ValueError(f"proba must be (n, k) with one true class per row, got proba "
                         f"of shape {proba.shape} and y_true of shape {y_true.shape}")
    if not np.issubdtype(y_true.dtype, np.integer) or y_true.min() < 0 or (
            y_true.max() >= proba.shape[1]):
        raise ValueError(f"y_true must hold the column indices 0 .. {proba.shape[1] - 1} of "
                         f"proba, got {y_true.dtype} values")
    if not isinstance(n_bins, numbers.Integral) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    confidence = proba.max(axis=1)
    correct = proba.argmax(axis=1) == y_true
    # Right-closed intervals: b / n_bins is the float nearest each edge, as a user writes it.
    bins = np.searchsorted(np.arange(1, n_bins) / n_bins, confidence, side="left")
    gap = np.abs(np.bincount(bins, weights=correct, minlength=n_bins)
                 - np.bincount(bins, weights=confidence, minlength=n_bins))
    return float(gap.sum() / y_true.size)
