"""The logistic regressions that merge the two views' scores (the stacking merges)."""

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.fixes import parse_version

__all__ = ["joint_logistic_regression", "unpenalized_logistic_regression"]


def unpenalized_logistic_regression():
    """Logistic regression without penalty (MATLAB's ``glmfit``, as the authors used).

    The features are standardised first (an unpenalised fit does not change under an
    affine rescaling of its features, but the view scores of a strongly regularised
    model are tiny), and the fit takes Newton steps on the Cholesky factor: with two
    features per class it converges in a few steps, where L-BFGS needed seconds.
    """
    if parse_version(sklearn.__version__) >= parse_version("1.8"):
        model = LogisticRegression(C=np.inf, solver="newton-cholesky", max_iter=1000)
    else:
        model = LogisticRegression(penalty=None, solver="newton-cholesky", max_iter=1000)
    return make_pipeline(StandardScaler(), model)


def joint_logistic_regression():
    """Multinomial logistic regression on standardised view scores of all classes.

    A mild L2 penalty (C = 1) keeps the fit finite when the scores separate the classes,
    which they often nearly do on the training folds.
    """
    return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))
