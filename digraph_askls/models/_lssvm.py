"""The classical least-squares SVM, for baselines and for the paper's Proposition 2."""

import numpy as np
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.metaestimators import available_if

from .._memory import check_dense_allocation
from ..linalg import LSSVMSystem
from ._base import _KernelLSClassifier
from ._merge import Merge

__all__ = ["LSSVMClassifier"]


class LSSVMClassifier(_KernelLSClassifier):
    """Least-squares SVM (Suykens and Vandewalle, 1999) with a symmetric kernel.

    Solves ``[[0, 1^T], [1, I/g + K]] [b; a~] = [0; y]`` (``a~ = y * alpha``) for all
    one-vs-rest problems at once; the decision function is ``f(x) = K(x, X) a~ + b``.

    Parameters
    ----------
    kernel, gamma, solver, regularization, n_folds, kernel_params, tol, max_iter, random_state
        As in :class:`AsKLSClassifier`. The kernel must be symmetric on the training set.
    calibration : {None, "stack"}, default=None
        None: one-vs-rest scores compared directly (arg-max). ``"stack"``: the same
        calibration as AsK-LS stacking (out-of-fold scores and an unpenalised logistic
        regression per class), so that the two can be compared on equal terms.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_train,) or (n_classes, n_train)
        ``y * alpha`` for each one-vs-rest problem.
    intercept_ : float or ndarray of shape (n_classes,)
    solver_result_ : SolverResult
    n_iter_ : int
        Iterations of the iterative solver on the full training set; a direct solve
        counts as 1 (``solver_result_.n_iter`` keeps the solver's own count, 0).

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls import LSSVMClassifier
    >>> K = np.array([[1.0, 0.8, 0.0], [0.8, 1.0, 0.1], [0.0, 0.1, 1.0]])
    >>> clf = LSSVMClassifier(gamma=10.0).fit(K, [0, 0, 1])
    >>> clf.predict(K).tolist()
    [0, 0, 1]
    """

    _system_class = LSSVMSystem

    _parameter_constraints: dict = {
        **_KernelLSClassifier._parameter_constraints,
        "calibration": [StrOptions({"stack"}), None],
    }

    def __init__(self, kernel="precomputed", gamma=1.0, solver="auto", calibration=None,
                 regularization="auto", n_folds=10, kernel_params=None, tol=1e-10,
                 max_iter=None, random_state=None):
        self.kernel = kernel
        self.gamma = gamma
        self.solver = solver
        self.calibration = calibration
        self.regularization = regularization
        self.n_folds = n_folds
        self.kernel_params = kernel_params
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def _merge(self):
        """One view: stacked per class (``calibration="stack"``), or read as it is."""
        return Merge("stack") if self.calibration == "stack" else Merge("source")

    @staticmethod
    def _views_used_all():
        return ("source",)

    def _views_used(self):
        return ("source",)

    def _solve(self, K, Y, x0=None):
        _check_symmetric(K)
        return super()._solve(K, Y, x0=x0)

    def _set_coefficients(self, intercepts, dual):
        if self.classes_.size == 2:
            self.dual_coef_ = dual[0, :, 0]
            self.intercept_ = float(intercepts[0, 0])
        else:
            self.dual_coef_ = dual[0].T
            self.intercept_ = intercepts[0]

    def _coefficient_blocks(self):
        if self.classes_.size == 2:
            return np.array([[self.intercept_]]), self.dual_coef_[None, :, None]
        return self.intercept_[None], self.dual_coef_.T[None]

    @available_if(lambda self: self.calibration == "stack")
    def predict_proba(self, X):
        """Class probabilities from the stacked logistic regressions."""
        return self._predict_proba(X)


def _check_symmetric(K, rtol=1e-10):
    from scipy.sparse.linalg import LinearOperator

    if isinstance(K, LinearOperator):
        return
    if isinstance(K, np.ndarray):
        check_dense_allocation((2,) + K.shape, what="the symmetry check of the training kernel",
                               remedy="pass the kernel as a sparse matrix or a LinearOperator")
    difference = abs(K - K.T)
    scale = abs(K).max()
    largest = difference.max() if difference.shape[0] else 0.0
    if largest > rtol * max(scale, 1e-300):
        raise ValueError(
            f"LSSVMClassifier needs a symmetric kernel on the training set, got "
            f"max |K - K^T| = {largest:.3e}; symmetrise it ((K + K^T) / 2) or use "
            "AsKLSClassifier, which learns with asymmetric kernels"
        )
