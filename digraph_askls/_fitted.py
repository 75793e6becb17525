"""Fitted attributes that say "not fitted yet" instead of "no attribute"."""

from sklearn.exceptions import NotFittedError

__all__ = ["FittedAttributesMixin"]


class FittedAttributesMixin:
    """Reading a fitted attribute (a public name ending in ``_``) before ``fit`` raises
    :class:`sklearn.exceptions.NotFittedError`.

    scikit-learn's convention is that an unfitted estimator raises ``NotFittedError``;
    plain attribute access would raise a bare ``AttributeError`` (``'NodeClassifier'
    object has no attribute 'estimator_'``), which reads like a bug of the library.
    ``NotFittedError`` is an ``AttributeError`` too, so ``hasattr`` and scikit-learn's
    own introspection keep working. Once the estimator is fitted, a missing attribute
    raises the usual ``AttributeError``.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> from digraph_askls._fitted import FittedAttributesMixin
    >>> class Model(FittedAttributesMixin, BaseEstimator):
    ...     def fit(self):
    ...         self.coef_ = 1.0
    ...         return self
    >>> Model().coef_
    Traceback (most recent call last):
    ...
    sklearn.exceptions.NotFittedError: This Model instance is not fitted yet: call 'fit' before reading 'coef_'.
    >>> Model().fit().coef_, hasattr(Model(), "coef_")
    (1.0, False)
    """

    def __getattr__(self, name):
        # Only called when normal lookup fails.
        if name.endswith("_") and not name.startswith("_"):
            fitted = any(key.endswith("_") and not key.startswith("__") for key in vars(self))
            if not fitted:
                raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet: "
                                     f"call 'fit' before reading {name!r}.")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
