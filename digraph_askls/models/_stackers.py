"""The models that merge the two views' scores (the stacking and blending merges)."""

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.fixes import parse_version

__all__ = ["BlendedStacker", "fit_temperature", "joint_logistic_regression",
           "unpenalized_logistic_regression"]


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
    which they often nearly do on the training folds. L-BFGS stops at a projected
    gradient of 1e-3 (scikit-learn's default is 1e-4): fewer iterations, the accuracy
    as it was (``docs/results/speed.md``).
    """
    return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, tol=1e-3, max_iter=1000))


#: Temperatures tried for the softmax of the averaged view scores (in units of their
#: standard deviation).
TEMPERATURES = 2.0 ** np.arange(-3.0, 8.5, 0.5)


def view_logits(features, n_views):
    """Averaged view scores as class logits: (m, k), or (m, 2) for one binary column."""
    m = features.shape[0]
    mean = features.reshape(m, n_views, -1).mean(axis=1)
    return np.hstack([-mean, mean]) if mean.shape[1] == 1 else mean


def softmax_rows(logits):
    shifted = logits - logits.max(axis=1, keepdims=True)
    weights = np.exp(shifted)
    return weights / weights.sum(axis=1, keepdims=True)


#: Elements of the (temperatures, nodes, classes) array :func:`fit_temperature` works on at
#: once (32 MiB of float64).
_TEMPERATURE_BLOCK = 1 << 22


def fit_temperature(logits, codes):
    """The temperature ``t`` of ``softmax(t * logits / scale)`` of least log-loss, and scale.

    Every temperature of :data:`TEMPERATURES` is tried; they are evaluated together, in
    blocks of at most ``_TEMPERATURE_BLOCK`` elements, with the element-wise operations of
    :func:`softmax_rows` (one temperature at a time cost a fifth of a small graph's fit
    in Python overhead; the losses are the same to the last bit).
    """
    scale = max(float(logits.std()), 1e-12)
    rows = np.arange(codes.size)
    # Rounding is monotone, so the row maxima of t * logits / scale are t * (row maxima) /
    # scale, exactly; short reductions along the last axis are what costs here.
    top = logits.max(axis=1)
    step = max(1, _TEMPERATURE_BLOCK // max(logits.size, 1))
    losses = []
    for start in range(0, TEMPERATURES.size, step):
        temperatures = TEMPERATURES[start:start + step, None]
        scaled = temperatures[:, :, None] * logits / scale
        scaled -= (temperatures * top / scale)[:, :, None]
        np.exp(scaled, out=scaled)
        picked = scaled[:, rows, codes] / scaled.sum(axis=2)
        losses.extend(-np.mean(np.log(picked + 1e-300), axis=1))
    return float(TEMPERATURES[int(np.argmin(losses))]), scale


class BlendedStacker:
    """Half the joint stacker's probabilities, half a calibrated softmax of the mean view.

    The two usual merges fail in different places: the joint logistic regression reads
    patterns across classes but overfits small training sets; the mean of the two views
    (the paper's merge) is steady but uncalibrated. The blend averages their class
    probabilities, the mean view's through a softmax whose temperature minimises the
    log-loss on the same out-of-sample scores the stacker learns from.

    Parameters
    ----------
    n_views : int
        Views per class in the features (2 for AsK-LS).

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.models._stackers import BlendedStacker
    >>> rng = np.random.default_rng(0)
    >>> codes = np.repeat([0, 1, 2], 20)
    >>> scores = -np.ones((60, 2, 3)) + 0.3 * rng.normal(size=(60, 2, 3))
    >>> scores[np.arange(60), :, codes] += 2.0
    >>> stacker = BlendedStacker(n_views=2).fit(scores.reshape(60, -1), codes)
    >>> bool(np.mean(stacker.predict_proba(scores.reshape(60, -1)).argmax(1) == codes) > 0.9)
    True
    """

    def __init__(self, n_views):
        self.n_views = n_views

    def fit(self, features, codes, joint=None):
        """Fit on view scores ``features`` (m, n_views * k) and class codes ``codes``, which
        index the classes' columns (``0 .. k - 1``; ``0, 1`` for one binary column). A class
        without a sample gets probability from the mean view alone. ``joint``: the
        :func:`joint_logistic_regression` already fitted on these features and codes, if
        the caller has it (the selection fits it once per fold for both merges)."""
        logits = view_logits(features, self.n_views)
        self.joint_ = (joint if joint is not None
                       else joint_logistic_regression().fit(features, codes))
        self.classes_ = np.arange(logits.shape[1])
        self.temperature_, self.scale_ = fit_temperature(logits, codes)
        return self

    def predict_proba(self, features):
        calibrated = softmax_rows(self.temperature_ * view_logits(features, self.n_views)
                                  / self.scale_)
        joint = np.zeros_like(calibrated)
        joint[:, self.joint_.classes_] = self.joint_.predict_proba(features)
        return 0.5 * (joint + calibrated)

    def decision_function(self, features):
        """Log-probabilities (log-odds for two classes), in the manner of scikit-learn."""
        log_proba = np.log(np.maximum(self.predict_proba(features), 1e-300))
        if log_proba.shape[1] == 2:
            return log_proba[:, 1] - log_proba[:, 0]
        return log_proba
