"""AsK-LS: the least-squares SVM that learns with asymmetric kernels."""

import numpy as np
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..linalg import AsKLSSystem, SolverResult
from ..linalg._dense import _one_blas_thread
from ._base import _KernelLSClassifier
from ._checks import check_targets
from ._merge import MERGES, Merge
from ._decomposition import decompose
from ._stackers import fit_temperature, softmax_rows, view_logits

__all__ = ["AsKLSClassifier"]



class AsKLSClassifier(_KernelLSClassifier):
    """Least-squares SVM with an asymmetric kernel (AsK-LS).

    AsK-LS solves the paper's dual system once for all one-vs-rest problems (the
    label-free form makes the matrix independent of the labels) and learns two
    decision functions: the source view ``f_s(x) = K(x, X) b~ + b1`` and the target
    view ``f_t(x) = K(X, x)^T a~ + b2``, where ``a~ = y * alpha`` and ``b~ = y * beta``.

    Parameters
    ----------
    kernel : "precomputed", str or callable, default="precomputed"
        ``"precomputed"``: ``fit`` takes ``K(train, train)`` (dense, sparse or a
        LinearOperator) and prediction takes :class:`KernelViews` ``(K(new, train),
        K(train, new))``. A callable ``kernel(A, B, **kernel_params)`` returns
        ``K(a_i, b_j)``. A name (``"sne"``, ``"t"``, ``"rbf"``) picks a vector kernel of
        :mod:`digraph_askls.kernels`; the SNE and T kernels are normalised over the
        training set, and their bandwidth ``sigma`` (``kernel_params``) defaults to
        half the median distance between training samples, so that ``gamma = 1`` suits
        features in any units.
    gamma : float, default=1.0
        Regularisation coefficient of the paper (larger fits the training data harder).
    solver : {"auto", "dense", "minres", "lsqr", "batched"}, default="auto"
        See :func:`digraph_askls.linalg.solve_system`.
    merge : {"average", "stack", "joint", "blend", "stack_train", "joint_train", \
"stack_loo", "joint_loo", "blend_loo", "source", "target"}
        How the two views give one decision: their mean (the paper), the authors'
        stacking (out-of-fold view scores fed to an unpenalised logistic regression per
        class), joint stacking (one multinomial logistic regression on the out-of-fold
        scores of both views and all classes), ``"stack_train"`` / ``"joint_train"`` (the
        same stackers fitted on the training view scores of the full model, which the
        system gives for free: ``f_s(X) = y - a~ / g`` and ``f_t(X) = y - b~ / g``; no
        fold solves, no kernel product), ``"blend"`` (half the joint stacker's class
        probabilities, half a softmax of the mean view whose temperature is fitted on the
        same out-of-fold scores: steadier than either on small training sets),
        ``"stack_loo"`` / ``"joint_loo"`` / ``"blend_loo"`` (the same
        stackers fitted on the exact leave-one-out view scores, from one SVD of the
        training kernel, or a thin SVD of its feature maps; see
        :class:`~digraph_askls.linalg.SpectralAsKLS`; a numeric ``regularization``, or a
        singular system under ``"auto"``, stacks on folds instead), or one view alone.
        Default: "average".
    regularization : "auto", None or float, default="auto"
        ``"auto"`` solves the exact system and falls back, with a warning, to damped
        least squares with ``lambda = 1`` when the system is singular (the authors'
        fallback); a float always uses that ``lambda``; None raises on singular systems.
    n_folds : int, default=10
        Folds of the stacking (``merge="stack"``).
    kernel_params : dict, optional
        Extra keyword arguments of the kernel function.
    tol : float, default=1e-10
        Relative residual of the iterative solvers.
    max_iter : int, optional
        Iteration limit of the iterative solvers.
    random_state : int, RandomState or None
        Seeds the stacking folds.
    preconditioner : {"auto", None, "jacobi", "ilu"}, default="auto"
        Preconditioner of the iterative solvers (see
        :func:`digraph_askls.linalg.solve_system`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (2, n_train) or (n_classes, 2, n_train)
        ``[y * alpha, y * beta]`` for each one-vs-rest problem (binary: ``classes_[1]``
        is the +1 class).
    intercept_ : ndarray of shape (2,) or (n_classes, 2)
        ``[b1, b2]``.
    solver_result_ : SolverResult
        Diagnostics of the solve on the full training set.
    n_iter_ : int
        Iterations of the iterative solver on the full training set (at most
        ``max_iter``); a direct solve (a dense factorisation, or the decomposition of the
        leave-one-out merges) counts as 1, so it is at least 1 after every fit, as
        scikit-learn expects of an estimator with ``max_iter``. ``solver_result_.n_iter``
        keeps the solver's own count (0 for a direct solve).

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls import AsKLSClassifier, KernelViews
    >>> K = np.array([[1.0, 0.9, 0.0, 0.1],
    ...               [0.8, 1.0, 0.1, 0.0],
    ...               [0.0, 0.2, 1.0, 0.7],
    ...               [0.1, 0.0, 0.9, 1.0]])
    >>> clf = AsKLSClassifier(gamma=10.0).fit(K, [0, 0, 1, 1])
    >>> clf.dual_coef_.shape, clf.intercept_.shape
    ((2, 4), (2,))
    >>> clf.predict(KernelViews(source=K[:2], target=K[:, :2])).tolist()
    [0, 0]
    """

    _system_class = AsKLSSystem

    _parameter_constraints: dict = {
        **_KernelLSClassifier._parameter_constraints,
        "merge": [StrOptions(set(MERGES))],
        "preconditioner": [StrOptions({"auto", "jacobi", "ilu"}), None],
    }

    def __init__(self, kernel="precomputed", gamma=1.0, solver="auto", merge="average",
                 regularization="auto", n_folds=10, kernel_params=None, tol=1e-10,
                 max_iter=None, random_state=None, preconditioner="auto"):
        self.kernel = kernel
        self.gamma = gamma
        self.solver = solver
        self.merge = merge
        self.regularization = regularization
        self.n_folds = n_folds
        self.kernel_params = kernel_params
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.preconditioner = preconditioner

    @classmethod
    def from_solution(cls, y, coefficients, stacking_model, result, *, stacking_scores=None,
                      view_scores=None, **params):
        """An estimator fitted from a solution found elsewhere, with ``kernel="precomputed"``.

        :class:`~digraph_askls.NodeClassifier` solves the training system its own way
        (the selection's folds, or one solve that scores every node) and hands the
        solution here: the estimator sets its fitted attributes itself.

        Parameters
        ----------
        y : array-like of shape (m,)
            Training labels.
        coefficients : tuple (intercepts (2, k), dual (2, m, k))
            The model on all training samples (``b1, b2`` and ``a~, b~`` per column).
        stacking_model : tuple (intercepts (2, k), dual (2, m, k))
            The model whose view scores of new samples feed the stackers (the mean of
            the fold models, for stackers that learnt out-of-fold scores).
        result : SolverResult or None
            The solver's report.
        stacking_scores : ndarray of shape (m, 2, k), optional
            Held-out view scores of the training samples, that the stackers learn
            (a stacking merge).
        view_scores : ndarray of shape (2, m, k), optional
            Held-out view scores on which the temperature of the views' mean is fitted
            (any other merge).
        **params
            Parameters of the estimator.

        Returns
        -------
        AsKLSClassifier
        """
        estimator = cls(kernel="precomputed", **params)
        estimator._validate_params()
        m = coefficients[1].shape[1]
        codes = estimator._start_fit(y, (m, m))
        estimator._set_coefficients(*coefficients)
        estimator.stack_folds_ = [(np.arange(m), *stacking_model)]
        estimator.solver_result_ = result
        estimator.n_iter_ = 0 if result is None else result.n_iter
        if estimator._merge().stacking:
            estimator._fit_stackers(stacking_scores, codes, estimator._label_columns(codes))
        else:
            index = [("source", "target").index(view) for view in estimator._views_used()]
            views = view_scores if len(index) == 2 else view_scores[index]
            estimator.view_temperature_ = fit_temperature(view_logits(views.mean(axis=0), 1),
                                                          codes)
        return estimator

    def fit_kernel(self, K, y):
        """Fit on a training kernel ``K(train, train)`` as the library's kernels give it
        (an array, a sparse matrix or a LinearOperator, taken as it is); returns self."""
        self._validate_params()
        return self._fit_kernel(K, y)

    def set_merge(self, merge, y):
        """Change to another stacking merge, its stackers refitted on the kept
        ``stacking_scores_`` (``y``: the training labels); returns self."""
        self.set_params(merge=merge)
        codes = np.unique(check_targets(y), return_inverse=True)[1]
        self._fit_stackers(self.stacking_scores_, codes, self._label_columns(codes))
        return self

    def decision_from_view_scores(self, features):
        """Decision values (n, k) of samples whose view scores ``features`` (n, 2, k) are
        known (a solve that scored every node)."""
        with _one_blas_thread():
            if self._merge().stacking:
                return self._stacked_decision(features)
            return self._mean_view(features)

    def proba_from_view_scores(self, features):
        """Class probabilities of samples whose view scores (n, 2, k) are known."""
        with _one_blas_thread():
            if self._merge().stacking:
                return self._stacked_proba(features)
            return self._view_proba(self._mean_view(features))

    def predict_from_view_scores(self, features):
        """Class labels of samples whose view scores (n, 2, k) are known."""
        return self._labels_of(self.decision_from_view_scores(features))

    def _mean_view(self, features):
        index = [("source", "target").index(view) for view in self._views_used()]
        return features[:, index].mean(axis=1)

    def view_decisions(self, views):
        """Raw one-vs-rest scores of both views, (2, n, k), from :class:`KernelViews`."""
        check_is_fitted(self)
        intercepts, dual = self._coefficient_blocks()
        return self._view_scores(views, intercepts, dual, names=("source", "target"))

    def coefficient_blocks(self):
        """``(intercepts (2, k), dual (2, m, k))``: ``b1, b2`` and ``a~, b~`` per
        one-vs-rest column."""
        check_is_fitted(self)
        return self._coefficient_blocks()

    def _merge(self):
        """The :class:`~digraph_askls.models._merge.Merge` that ``merge`` names."""
        return Merge.named(self.merge)

    def _fit_loo(self, K, codes, Y, spectral=None):
        """Solve through one SVD of ``K`` and stack the exact leave-one-out view scores."""
        spectral = decompose(K) if spectral is None else spectral
        scores, (intercepts, dual) = spectral.loo_scores(Y, self.gamma, return_solution=True)
        system = AsKLSSystem(K, gamma=self.gamma)
        x = np.vstack([intercepts, dual[0], dual[1]])
        R = system.rhs(Y)
        residual = (np.linalg.norm(R - system.matmat(x), axis=0)
                    / np.maximum(np.linalg.norm(R, axis=0), 1e-300))
        self.solver_result_ = SolverResult(x, 0, 0, residual, "spectral")
        self.n_iter_ = 1            # one decomposition, as a direct solve counts
        self._set_coefficients(intercepts, dual)
        self.stack_folds_ = [(np.arange(K.shape[0]), intercepts, dual)]
        self._fit_stackers(scores.transpose(1, 0, 2), codes, Y)
        return self

    def _train_view_scores(self, Y, dual):
        """Training-set view scores from the system's rows, (n_train, n_views, k).

        The rows of the label-free system read ``K b~ + b1 + a~ / g = y`` and
        ``K^T a~ + b2 + b~ / g = y``: the source and target scores of the training
        samples are ``y - a~ / g`` and ``y - b~ / g`` (up to the solver's residual).
        """
        scores = {"source": Y - dual[0] / self.gamma, "target": Y - dual[1] / self.gamma}
        return np.stack([scores[name] for name in self._views_used()], axis=1)

    @staticmethod
    def _views_used_all():
        return ("source", "target")

    def _views_used(self):
        return self._merge().views

    def _set_coefficients(self, intercepts, dual):
        if self.classes_.size == 2:
            self.dual_coef_ = dual[:, :, 0]
            self.intercept_ = intercepts[:, 0]
        else:
            self.dual_coef_ = dual.transpose(2, 0, 1)
            self.intercept_ = intercepts.T

    def _coefficient_blocks(self):
        if self.classes_.size == 2:
            return self.intercept_[:, None], self.dual_coef_[:, :, None]
        return self.intercept_.T, self.dual_coef_.transpose(1, 2, 0)

    @available_if(lambda self: self._merge().stacking or hasattr(self, "view_temperature_"))
    def predict_proba(self, X):
        """Class probabilities: from the stackers (stacking merges), or a softmax of the
        mean view whose temperature was fitted on out-of-fold scores (the mean view, as
        fitted by :class:`~digraph_askls.NodeClassifier`'s selection)."""
        if self._merge().stacking:
            return self._predict_proba(X)
        check_is_fitted(self)
        return self._view_proba(self._raw_decision(X))

    def _view_proba(self, mean):
        """Softmax of mean view scores (n, k) at ``view_temperature_``."""
        temperature, scale = self.view_temperature_
        return softmax_rows(temperature * view_logits(mean, 1) / scale)
