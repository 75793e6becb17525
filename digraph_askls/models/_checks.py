"""The checks at the door of the kernel estimators: hyper-parameters and labels, and the
labels coded as the columns of the one-vs-rest problems (:func:`label_columns`)."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from ..linalg import SOLVERS

__all__ = ["SHARED_CONSTRAINTS", "check_classes", "check_targets", "label_columns"]

#: Constraints of the parameters shared by the estimators on a kernel (scikit-learn's
#: ``_parameter_constraints``); NaN fails every interval.
SHARED_CONSTRAINTS = {
    "gamma": [Interval(Real, 0, None, closed="neither")],
    "solver": [StrOptions({"auto", *SOLVERS})],
    "regularization": [StrOptions({"auto"}), None, Interval(Real, 0, None, closed="left")],
    "n_folds": [Interval(Integral, 2, None, closed="left")],
    "kernel_params": [dict, None],
    "tol": [Interval(Real, 0, None, closed="left")],
    "max_iter": [Interval(Integral, 1, None, closed="left"), None],
    "random_state": ["random_state"],
}


def check_targets(y, n_samples=None):
    """Class labels as a 1-D array (of ``n_samples`` entries if given), or a clear error.

    A column vector ``(n, 1)`` is flattened with a ``DataConversionWarning``, as
    scikit-learn does; wider arrays, NaN and continuous values raise ``ValueError``.
    """
    if isinstance(y, (str, bytes)):
        raise TypeError(f"y must be an array-like of class labels, got {type(y).__name__}")
    y = column_or_1d(y, warn=True)
    if n_samples is not None and y.shape[0] != n_samples:
        raise ValueError(f"y must have one label per training sample ({n_samples}), "
                         f"got {y.shape[0]}")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(f"y must hold class labels, got {int(np.isnan(y).sum())} NaN "
                         f"value(s) among {y.size} (first at index {int(np.argmax(np.isnan(y)))})")
    check_classification_targets(y)
    return y


def check_classes(y, n_samples):
    """The classes of the training labels ``y`` and each label's code, or a clear error
    when there are fewer than 2 classes."""
    y = check_targets(y, n_samples)
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"the training labels must contain at least 2 classes, got "
                         f"{classes.size} class: {classes.tolist()}")
    return classes, codes


def label_columns(codes, n_classes=None):
    """The ``+1`` / ``-1`` columns of the one-vs-rest problems (one column for two
    classes) of the class codes ``codes`` among ``n_classes`` (default: the largest code
    and those below it)."""
    n_classes = int(codes.max()) + 1 if n_classes is None else n_classes
    if n_classes == 2:
        return np.where(codes == 1, 1.0, -1.0)[:, None]
    Y = -np.ones((codes.size, n_classes))
    Y[np.arange(codes.size), codes] = 1.0
    return Y
