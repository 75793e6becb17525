"""Shared machinery of the kernel least-squares classifiers: fitting, views, stacking."""

import warnings

import numpy as np
from scipy.sparse.linalg import LinearOperator
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._fitted import FittedAttributesMixin
from ..linalg import (
    SingularSystemError, SingularSystemWarning, check_kernel_matrix, solve_system,
)
from ..linalg._dense import _one_blas_thread
from ..kernels import VECTOR_KERNELS, restrict_kernel
from ..kernels._restrict import views_pair_product
from ._checks import SHARED_CONSTRAINTS, check_classes, check_targets, label_columns
from ._folds import kfold_splits
from ._mergers import merger_for
from ._views import KernelViews, kernel_dot

__all__ = []

#: Training samples per coefficient that the stacking logistic regressions are fitted
#: on at most, and the least such number of samples: above it they see a random subset
#: (seeded by ``random_state``). A joint stacker of 10 classes has 210 coefficients,
#: so 21,000 samples; more cost time and no accuracy (``docs/results/speed.md``).
SAMPLES_PER_STACKING_COEFFICIENT = 100
MAX_STACKING_SAMPLES = 20_000


def _as_kernel_block(K, name, shape):
    K = check_kernel_matrix(K, name=name, square=False)
    if K.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {K.shape}")
    return K


class _KernelLSClassifier(FittedAttributesMixin, ClassifierMixin, BaseEstimator):
    """Base of :class:`AsKLSClassifier` and :class:`LSSVMClassifier` (not public).

    Subclasses set ``_system_class``, ``_views_used()`` (the kernel views, ``"source"``,
    ``"target"``, that their decision functions read) and ``_merge()`` (the
    :class:`~._merge.Merge` of their views: whether and how they are stacked).
    """

    _system_class = None

    _parameter_constraints: dict = {
        "kernel": [StrOptions({"precomputed", *VECTOR_KERNELS}), callable],
        **SHARED_CONSTRAINTS,
    }

    # ---- kernels ---------------------------------------------------------------
    def _kernel_function(self):
        if callable(self.kernel):
            params = self.kernel_params or {}
            return lambda A, B: self.kernel(A, B, **params)
        from ..kernels import get_vector_kernel

        function = get_vector_kernel(self.kernel)
        params = dict(self.kernel_params or {})
        return lambda A, B: function(A, B, reference=self.X_fit_, **params)

    def _train_kernel(self, X, y):
        if self.kernel == "precomputed":
            if isinstance(X, LinearOperator):
                K = check_kernel_matrix(X, name="the precomputed kernel K(train, train)")
                return K, check_targets(y, K.shape[0])
            y = y if y is None else check_targets(y)   # None: scikit-learn's message
            X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
            K = check_kernel_matrix(X, name="the precomputed kernel K(train, train)")
            return K, y
        y = y if y is None else check_targets(y)
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.X_fit_ = X
        K = self._kernel_function()(X, X)
        return check_kernel_matrix(K, name="the kernel K(X, X)"), y

    def _test_views(self, X):
        """Kernel blocks between new samples and the training set, as KernelViews."""
        m = self.shape_fit_[0]
        needed = self._views_used()
        if self.kernel == "precomputed":
            if isinstance(X, tuple):
                views = KernelViews(*X)
            else:
                views = KernelViews(source=X)
            source, target = views.source, views.target
            n = None
            if source is not None and not isinstance(source, LinearOperator):
                source = validate_data(self, source, reset=False, accept_sparse="csr",
                                       dtype=np.float64)
            if source is not None:
                n = source.shape[0]
                source = _as_kernel_block(source, "K(new, train)", (n, m))
            if target is not None:
                n_t = target.shape[1] if n is None else n
                target = _as_kernel_block(target, "K(train, new)", (m, n_t))
            for name in needed:
                if (source if name == "source" else target) is None:
                    raise ValueError(
                        f"{type(self).__name__}(merge={getattr(self, 'merge', None)!r}) needs "
                        f"the {name} view: pass KernelViews(source=K(new, train), "
                        f"target=K(train, new)) (a plain tuple works too); got "
                        f"{'no' if name == 'target' else 'a missing'} {name} block"
                    )
            return KernelViews(source, target)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        function = self._kernel_function()
        source = function(X, self.X_fit_) if "source" in needed else None
        target = function(self.X_fit_, X) if "target" in needed else None
        return KernelViews(source, target)

    # ---- solving ---------------------------------------------------------------
    def _solve(self, K, Y, x0=None):
        system = self._system_class(K, gamma=self.gamma)
        result = solve_system(system, Y, solver=self.solver,
                              regularization=self.regularization, rtol=self.tol,
                              maxiter=self.max_iter, x0=x0,
                              preconditioner=getattr(self, "preconditioner", "auto"))
        intercepts, dual = system.split(result.x)
        return intercepts, dual, result

    def _view_scores(self, views, intercepts, dual, cols=None, names=None):
        """Scores of the views ``names`` (default: those the model uses), (n_views, n, k)."""
        names = self._views_used() if names is None else names
        if cols is None and len(dual) == 2 and set(names) == {"source", "target"}:
            # Both views of the same samples from one joined pass of the kernel.
            pair = views_pair_product(views.source, views.target, dual[1], dual[0])
            if pair is not None:
                return np.stack([pair[0] + intercepts[0], pair[1] + intercepts[1]])
        scores = []
        for index, name in enumerate(self._views_used_all()):
            if name not in names:
                continue
            block = views.source if name == "source" else views.target
            if cols is not None:
                if name == "source":
                    block = restrict_kernel(block, np.arange(block.shape[0]), cols)
                else:
                    block = restrict_kernel(block, cols, np.arange(block.shape[1]))
            coef = dual[1 - index] if len(dual) == 2 else dual[0]
            value = kernel_dot(block, coef, transpose=(name == "target"))
            scores.append(value + intercepts[index])
        return np.stack(scores)

    # ---- fit -------------------------------------------------------------------
    def fit(self, X, y):
        """Fit the classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or the kernel (n_samples, n_samples)
            Training samples, or with ``kernel="precomputed"`` the kernel ``K(train, train)``
            as a dense array, a sparse matrix or a LinearOperator.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self
        """
        self._validate_params()
        K, y = self._train_kernel(X, y)
        return self._fit_kernel(K, y)

    def _fit_kernel(self, K, y, spectral=None):
        """Fit on a checked training kernel; ``spectral``: its decomposition, if known."""
        codes = self._start_fit(y, K.shape)
        Y = self._label_columns(codes)
        if self._merge().scores == "loo" and self.regularization in ("auto", None, 0):
            try:
                return self._fit_loo(K, codes, Y, spectral)
            except SingularSystemError as exc:
                if self.regularization != "auto":
                    raise
                warnings.warn(f"{exc}; the leave-one-out scores do not exist for the exact "
                              "system, so the views are stacked on folds of the damped "
                              "solution instead", SingularSystemWarning, stacklevel=3)
        intercepts, dual, result = self._solve(K, Y)
        self.solver_result_ = result
        self.n_iter_ = max(1, int(result.n_iter))   # a direct solve counts as one
        self._set_coefficients(intercepts, dual)
        if self._merge().stacking:
            self._fit_stacking(K, codes, Y, result.x, full=(intercepts, dual))
        return self

    def _start_fit(self, y, shape):
        """Check the training labels ``y``, set ``classes_`` and ``shape_fit_``; the codes."""
        self.classes_, codes = check_classes(y, shape[0])
        self.shape_fit_ = shape
        return codes

    def _label_columns(self, codes):
        return label_columns(codes, self.classes_.size)

    def _fit_stacking(self, K, codes, Y, x_full=None, full=None):
        """Out-of-fold view scores and one logistic regression per class.

        Each fold's system is the full training system restricted to the fold's samples,
        so the full solution restricted the same way (``x_full``) starts its iteration:
        it already holds most of the answer and saves a third of the iterations.
        ``merge="stack_train"`` takes the training scores of the full model (``full``,
        its intercepts and dual coefficients) instead, and solves nothing more.
        """
        m = K.shape[0]
        n_bias = self._system_class.n_bias
        n_views = len(self._views_used())
        features = np.zeros((m, n_views, Y.shape[1]))
        self.stack_folds_ = []
        if self._merge().scores == "train":
            features = self._train_view_scores(Y, full[1])
            self.stack_folds_.append((np.arange(m), *full))
            folds = []
        else:
            folds = kfold_splits(codes, self.n_folds, self.random_state)
        for train, valid in folds:
            with warnings.catch_warnings():
                # The full training system has already said whether it is singular.
                warnings.simplefilter("ignore", SingularSystemWarning)
                x0 = None
                if x_full is not None:
                    n_blocks = (len(x_full) - n_bias) // m   # a~ (and b~ for AsK-LS)
                    x0 = np.vstack([x_full[:n_bias]] + [
                        x_full[n_bias + block * m + train] for block in range(n_blocks)])
                intercepts, dual, _ = self._solve(restrict_kernel(K, train, train), Y[train],
                                                  x0=x0)
            views = KernelViews(restrict_kernel(K, valid, train),
                                restrict_kernel(K, train, valid))
            features[valid] = self._view_scores(views, intercepts, dual).transpose(1, 0, 2)
            self.stack_folds_.append((train, intercepts, dual))
        self._fit_stackers(features, codes, Y)

    def _fit_stackers(self, features, codes, Y, joint=None):
        """Fit the merger (:func:`~._mergers.merger_for`) on out-of-sample view scores
        ``features`` (m, n_views, k); its models are ``stackers_``. ``joint``: the joint
        stacker that the joint or blended merge fits on these scores, fitted already by
        the other (:attr:`joint_stacker_`), or None.

        On one BLAS thread: the logistic regressions' small products lose an order of
        magnitude to OpenBLAS's threads when another process holds a core
        (``docs/results/speed.md``).
        """
        with _one_blas_thread():
            self.stacking_scores_ = features
            m, n_views, k = features.shape
            merge = self._merge()
            coefficients = (n_views * k + 1) * k if merge.joint else n_views + 1
            cap = max(MAX_STACKING_SAMPLES, SAMPLES_PER_STACKING_COEFFICIENT * coefficients)
            if m > cap:
                # A stacker has a handful of coefficients per class: a random subset of the
                # training samples pins them down as well as all of them, at a fraction of
                # the logistic regressions' time.
                keep = np.sort(check_random_state(self.random_state).choice(
                    m, cap, replace=False))
                features, codes, Y, m = features[keep], codes[keep], Y[keep], keep.size
            given = {} if joint is None else {"joint": joint}
            self.stackers_ = merger_for(merge).fit(features, codes, **given,
                                                   **self._stacking_options(Y)).models_

    @property
    def joint_stacker_(self):
        """The joint stacker (a fitted pipeline) of a joint or blended merge, None under
        another merge."""
        merge = self._merge()
        if not (merge.stacking and merge.joint):
            return None
        return self.stackers_[0].joint_ if merge.blending else self.stackers_[0]

    def _stacking_options(self, Y):
        """What the merger's fit takes beyond the scores and the class codes, given the
        label columns ``Y`` of the stacking samples (none here)."""
        return {}

    def _stacked_features(self, views):
        """Test features: the view scores averaged over the fold models.

        A view score is linear in the fold's coefficients, ``K(x, X_f) b_f + b1_f =
        K(x, X) b_f' + b1_f`` with ``b_f'`` the coefficients scattered onto the whole
        training set (zero off the fold), so the average over the folds is the score of
        the averaged coefficients: one kernel product per view instead of one per fold.
        """
        n_folds = len(self.stack_folds_)
        intercepts = sum(fold[1] for fold in self.stack_folds_) / n_folds
        first = self.stack_folds_[0][2]
        dual = np.zeros((first.shape[0], self.shape_fit_[0], first.shape[2]))
        for train, _, fold_dual in self.stack_folds_:
            dual[:, train] += fold_dual   # a fold holds each sample once
        dual /= n_folds
        return self._view_scores(views, intercepts, dual).transpose(1, 0, 2)

    # ---- predict ---------------------------------------------------------------
    def _raw_decision(self, X):
        check_is_fitted(self)
        views = self._test_views(X)
        if self._merge().stacking:
            return self._stacked_decision(self._stacked_features(views))
        scores = self._view_scores(views, *self._coefficient_blocks())
        return scores.mean(axis=0)

    def _stacked_decision(self, features):
        """Decision values of the stackers on stacked view scores ``features`` (n, views, k)."""
        return merger_for(self._merge(), self.stackers_).decision_function(features)

    def decision_function(self, X):
        """Decision values: shape (n,) for two classes, (n, n_classes) otherwise.

        Parameters
        ----------
        X : array-like, or KernelViews with ``kernel="precomputed"``
            New samples, or the kernel blocks between new samples and the training set.
        """
        scores = self._raw_decision(X)
        return scores[:, 0] if self.classes_.size == 2 else scores

    def predict(self, X):
        """Predicted class labels."""
        return self._labels_of(self._raw_decision(X))

    def _labels_of(self, scores):
        """Class labels from decision values of shape (n, k)."""
        if self.classes_.size == 2:
            return self.classes_[(scores[:, 0] > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def _predict_proba(self, X):
        check_is_fitted(self)
        return self._stacked_proba(self._stacked_features(self._test_views(X)))

    def _stacked_proba(self, features):
        """Class probabilities of the stackers on stacked view scores (n, views, k)."""
        return merger_for(self._merge(), self.stackers_).predict_proba(features)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel == "precomputed"
        return tags
