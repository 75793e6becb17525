"""AsK-LS: the least-squares SVM that learns with asymmetric kernels."""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from ..linalg import AsKLSSystem, SolverResult, SpectralAsKLS, check_kernel_matrix, solve_system
from ..linalg._dense import _one_blas_thread
from ._base import _KernelLSClassifier
from ._checks import check_targets
from ._merge import MERGES, Merge
from ._decomposition import decompose, dense_training_block, reduces_maps
from ._stackers import fit_temperature, softmax_rows, view_logits
from ._targets import check_multilabel, class_weights, is_multilabel, row_codes

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
    class_weight : None, "balanced" or dict, default=None
        Weights of the classes' errors: the weighted least-squares SVM, in which the
        error term of a training sample of class ``c`` is weighted by ``w_c``, so that
        the diagonal ``I / gamma`` of the system becomes ``diag(1 / (gamma w_i))``. The
        weight is the sample's class's, whatever the one-vs-rest problem, so every class
        still shares one matrix. ``"balanced"``: ``n_samples / (n_classes * count_c)``
        (:func:`sklearn.utils.class_weight.compute_class_weight`); a dict maps classes
        to weights (classes left out weigh 1; a class that is not among the training
        labels is a ValueError). The stacking logistic regressions of the stacking
        merges are fitted with the same sample weights. Not defined for multi-label
        targets (a ValueError).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes; for a multi-label target, the label columns ``0 .. n_labels - 1``.
    class_weight_ : ndarray of shape (n_classes,)
        The weight of each class's errors (all 1 without ``class_weight``; not set for a
        multi-label target).
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

    Several labels per sample: ``fit(K, Y)`` with ``Y`` a 0/1 indicator (n_samples,
    n_labels), dense or sparse. Each label is one more right-hand side of the same
    matrix, so the model is the one-vs-rest AsK-LS of every label; ``decision_function``
    gives one column per label, ``predict`` the 0/1 indicator of the positive decisions
    (for the stacking merges, the labels of probability above 0.5, the stackers'
    probabilities being calibrated on held-out scores), and ``predict_proba`` (stacking
    merges but the joint ones) one probability per label.

    >>> Y = np.array([[1, 0], [1, 1], [0, 1], [0, 1]])
    >>> multi = AsKLSClassifier(gamma=10.0).fit(K, Y)
    >>> multi.predict(KernelViews(source=K[:2], target=K[:, :2])).tolist()
    [[1, 0], [1, 1]]
    """

    _system_class = AsKLSSystem

    _parameter_constraints: dict = {
        **_KernelLSClassifier._parameter_constraints,
        "merge": [StrOptions(set(MERGES))],
        "preconditioner": [StrOptions({"auto", "jacobi", "ilu"}), None],
        "class_weight": [StrOptions({"balanced"}), dict, None],
    }

    def __init__(self, kernel="precomputed", gamma=1.0, solver="auto", merge="average",
                 regularization="auto", n_folds=10, kernel_params=None, tol=1e-10,
                 max_iter=None, random_state=None, preconditioner="auto", class_weight=None):
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
        self.class_weight = class_weight

    @classmethod
    def from_solution(cls, y, coefficients, stacking_model, result, *, stacking_scores=None,
                      view_scores=None, joint=None, **params):
        """An estimator fitted from a solution found elsewhere, with ``kernel="precomputed"``.

        :class:`~digraph_askls.NodeClassifier` solves the training system its own way
        (the selection's folds, or one solve that scores every node) and hands the
        solution here: the estimator sets its fitted attributes itself.

        Parameters
        ----------
        y : array-like of shape (m,), or (m, n_labels)
            Training labels, or a multi-label 0/1 indicator (the stacking merges give it
            probabilities per label; the mean view has no softmax over labels).
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
        joint : Pipeline, optional
            The joint stacker already fitted on ``stacking_scores`` under the other of the
            joint and blended merges, which both fit it (``joint_stacker_`` of that
            estimator): reused.
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
            estimator._fit_stackers(stacking_scores, codes, estimator._label_columns(codes),
                                    joint)
        elif not estimator._multilabel:     # a multi-label model has no softmax over labels
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
        weights = self._error_weights(Y)
        if weights is not None:     # the decomposition of the rescaled kernel D K D
            spectral = (SpectralAsKLS(factors=K.factors(), weights=weights)
                        if reduces_maps(K) else
                        SpectralAsKLS(dense_training_block(K), weights=weights))
        spectral = decompose(K) if spectral is None else spectral
        scores, (intercepts, dual) = spectral.loo_scores(Y, self.gamma, return_solution=True)
        system = AsKLSSystem(K, gamma=self.gamma, weights=weights)
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
        samples are ``y - a~ / g`` and ``y - b~ / g`` (up to the solver's residual;
        ``g w_i`` in place of ``g`` with class weights).
        """
        weights = self._error_weights(Y)
        scale = self.gamma if weights is None else self.gamma * weights[:, None]
        scores = {"source": Y - dual[0] / scale, "target": Y - dual[1] / scale}
        return np.stack([scores[name] for name in self._views_used()], axis=1)

    @staticmethod
    def _views_used_all():
        return ("source", "target")

    def _views_used(self):
        return self._merge().views

    def _set_coefficients(self, intercepts, dual):
        if self._one_column():
            self.dual_coef_ = dual[:, :, 0]
            self.intercept_ = intercepts[:, 0]
        else:
            self.dual_coef_ = dual.transpose(2, 0, 1)
            self.intercept_ = intercepts.T

    def _coefficient_blocks(self):
        if self._one_column():
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

    # ---- class weights and multi-label targets -----------------------------------
    def fit(self, X, y):
        """Fit the classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or the kernel (n_samples, n_samples)
            Training samples, or with ``kernel="precomputed"`` the kernel ``K(train, train)``
            as a dense array, a sparse matrix or a LinearOperator.
        y : array-like of shape (n_samples,), or (n_samples, n_labels)
            Class labels, or a multi-label indicator of 0 and 1 (dense or sparse).

        Returns
        -------
        self
        """
        if not is_multilabel(y):
            return super().fit(X, y)
        self._validate_params()
        Y, _ = check_multilabel(y)
        if self.kernel == "precomputed":
            if isinstance(X, LinearOperator):
                K = check_kernel_matrix(X, name="the precomputed kernel K(train, train)")
            else:
                X, Y = validate_data(self, X, Y, accept_sparse="csr", dtype=np.float64,
                                     multi_output=True)
                K = check_kernel_matrix(X, name="the precomputed kernel K(train, train)")
        else:
            X, Y = validate_data(self, X, Y, dtype=np.float64, multi_output=True)
            self.X_fit_ = X
            K = check_kernel_matrix(self._kernel_function()(X, X), name="the kernel K(X, X)")
        return self._fit_kernel(K, sp.csr_matrix(Y) if sp.issparse(y) else Y)

    def _start_fit(self, y, shape):
        """Check the training target; set ``classes_``, ``shape_fit_`` and the class
        weights (single label) or the label columns (multi-label); the class codes."""
        self._multilabel = is_multilabel(y)
        if not self._multilabel:
            self._sparse_target = False
            codes = super()._start_fit(y, shape)
            self.class_weight_ = class_weights(self.class_weight, self.classes_,
                                               check_targets(y))
            return codes
        if self.class_weight is not None:
            raise ValueError(f"class_weight is not defined for a multi-label target (a "
                             f"sample may have several classes or none), got "
                             f"class_weight={self.class_weight!r}; pass class_weight=None")
        if self._merge().joint:
            raise ValueError(f"merge={self.merge!r} fits one multinomial model over "
                             "exclusive classes; a multi-label target takes 'average', "
                             "'stack', 'stack_train', 'stack_loo', 'source' or 'target'")
        self._sparse_target = sp.issparse(y)    # predictions in the target's form
        Y, _ = check_multilabel(y, shape[0])
        self.classes_ = np.arange(Y.shape[1])
        self.shape_fit_ = shape
        self._label_block = np.where(Y == 1, 1.0, -1.0)
        return np.zeros(shape[0], dtype=int)    # the folds are not stratified

    def _label_columns(self, codes):
        if getattr(self, "_multilabel", False):
            return self._label_block
        return super()._label_columns(codes)

    def _one_column(self):
        """Whether the model holds one binary column (two classes, one label)."""
        return self.classes_.size == 2 and not getattr(self, "_multilabel", False)

    def _error_weights(self, Y):
        """The error weight of each row of the label columns ``Y`` (+1/-1), or None."""
        if self.class_weight is None or getattr(self, "_multilabel", False):
            return None
        return self.class_weight_[row_codes(Y)]

    def _solve(self, K, Y, x0=None):
        system = AsKLSSystem(K, gamma=self.gamma, weights=self._error_weights(Y))
        result = solve_system(system, Y, solver=self.solver,
                              regularization=self.regularization, rtol=self.tol,
                              maxiter=self.max_iter, x0=x0, preconditioner=self.preconditioner)
        intercepts, dual = system.split(result.x)
        return intercepts, dual, result

    def _stacking_options(self, Y):
        """The class weights as the stackers' sample weights; a multi-label target's 0/1
        columns as their targets."""
        if getattr(self, "_multilabel", False):
            return {"columns": Y > 0}
        weights = self._error_weights(Y)
        return {} if weights is None else {"sample_weight": weights}

    def _stacked_proba(self, features):
        if not getattr(self, "_multilabel", False):
            return super()._stacked_proba(features)
        return np.column_stack([model.predict_proba(features[:, :, c])[:, 1]
                                for c, model in enumerate(self.stackers_)])

    def decision_function(self, X):
        """Decision values: shape (n,) for two classes, (n, n_classes) otherwise, and
        (n, n_labels) for a multi-label target.

        Parameters
        ----------
        X : array-like, or KernelViews with ``kernel="precomputed"``
            New samples, or the kernel blocks between new samples and the training set.
        """
        if getattr(self, "_multilabel", False):
            return self._raw_decision(X)
        return super().decision_function(X)

    def _labels_of(self, scores):
        if not getattr(self, "_multilabel", False):
            return super()._labels_of(scores)
        indicator = (scores > 0).astype(int)
        return sp.csr_matrix(indicator) if self._sparse_target else indicator

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Multi-label targets, where defined: without class weights, and not with the
        # multinomial (joint) stackers.
        multi = self.class_weight is None and self.merge in MERGES and not self._merge().joint
        tags.target_tags.multi_output = multi
        tags.classifier_tags.multi_label = multi
        return tags
