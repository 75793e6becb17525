"""Probabilities that say no more than the evidence: a temperature fitted on held-out
labels, moved from the identity only as far as held-out labels show it helps.

The map
-------
A model's logits ``z`` (for the merge of :class:`~digraph_askls.AsKLSClassifier`, its
log-probabilities) are centred, ``c = z - mean(z)`` (the softmax does not change), and
divided by a temperature that grows with their length::

    T(z) = T0 + s ||c||,        q = softmax(c / T(z)),

``T0 > 0``, ``s >= 0``: ``s = 0`` is temperature scaling (Guo et al., ICML 2017);
``T0 -> 0`` reads only the direction of ``c``, capping every row's logits at length
``1 / s``. Where the length measures how much evidence reached a node rather than how
clear it is (a vote kernel's scores grow with the labelled nodes a node hears from),
one temperature cannot fit both the short and the long rows, and ``s`` can. Neither
parameter moves an arg-max.

``q`` is then read as an estimate backed by the ``n`` labels it was fitted on (their
total sample weight), and the class prior ``pi`` (the labels' class shares, one
pseudo-count each, Laplace's rule) as ``a`` more observations; the answer is their
mixture, the posterior mean of a Dirichlet of prior mean ``pi`` and weight ``a``::

    p = (n q + a pi) / (n + a).

No probability then exceeds ``(n + a max(pi)) / (n + a)``. By default ``a`` is the
least weight that keeps every probability at or below ``(n + 1) / (n + 2)``, Laplace's
rule of succession for a class named right by ``n`` labels out of ``n``: the prior's
share ``a / (n + a) = 1 / ((n + 2) (1 - max(pi)))``. With 4 labels of 2 classes no
probability exceeds ``5 / 6`` (the share is ``1 / 3``, ``a = 2``); with 140 labels of
7 classes, ``141 / 142``, at a share under 1 %: no more prior than keeps a handful of
labels from certainty, and nearly none once labels are many.

The rule: the identity unless held-out labels show a gain
--------------------------------------------------------
The parameters ``theta = (log T0, s)`` minimise the log-loss of ``p`` on the held-out
labels (through the mixture, so that the prior's share is part of the map chosen),

    L(theta) = - sum_i w_i log p_{y_i}(z_i; theta),

by L-BFGS-B within bounds, with the analytic gradient: with ``u = c / T``,
``rho_i = n q_{y_i} / ((n + a) p_{y_i})`` (the share of ``p_{y_i}`` that ``q`` gives)
and ``g_i = w_i rho_i (c_{i y_i} - q_i . c_i) / T(z_i)^2`` (the derivative of the
loss in ``T(z_i)``)::

    dL / d log T0 = T0 sum_i g_i,        dL / ds = sum_i g_i ||c_i||.

A map fitted on ``n`` labels is fitted to their noise as well: on 140 labels an
already-calibrated model's probabilities can come out worse than they went in. How far
to move is therefore measured on labels the map did not see. The identity is ``T = 1``,
``s = 0``: the model's own probabilities ``p_0 = (n softmax(c) + a pi) / (n + a)``,
mixed with the prior only as above. The answer pools it with the fitted map ``p_1``
(``theta_hat``, fitted on every label)::

    p = (1 - lambda) p_0 + lambda p_1,        0 <= lambda <= 1,

and ``lambda`` is chosen by cross-fitting: the labels are dealt into
``F = CROSS_FIT_FOLDS`` stratified folds (or the caller's folds), on each ``theta_f`` is
fitted on the other folds, and

    lambda* = argmin_lambda  - sum_i w_i log((1 - lambda) p_0(i) + lambda p_f(i)),

``p_f(i)`` the probability of label ``i``'s class under the map fitted without its
fold. The loss is convex in ``lambda`` (minus the log of a function linear in it), so
``lambda*`` is the one root in ``[0, 1]`` of its derivative
``-sum_i w_i (p_f(i) - p_0(i)) / p_lambda(i)``, or an end: ``lambda* = 0`` exactly when
``sum_i w_i p_f(i) / p_0(i) <= sum_i w_i``, when the maps fitted without a label do not,
on average over the labels, raise the probability of their class; the calibration is
then skipped, not forced. ``lambda* = 1`` when every further step towards the fitted
maps still pays. Both parts keep the arg-max of ``z`` (the prior aside) and the bound
of the mixture, so the pool does too.

Cost
----
Above ``SUBSAMPLE_SIZE`` held-out labels, every fit and the cross-fit use a stratified
subsample of that many (seeded by ``random_state``): two or three parameters need no
more, and the cost no longer grows with the graph. The evidence ``n`` and the prior
``pi`` still count every label.

Several labels per node
-----------------------
A multi-label target has one decision value per label and no softmax:
:class:`LabelCalibrator` maps them through one logistic curve shared by every label,
fitted on the labelled nodes' out-of-fold decisions (see its notes).
"""

import copy

import numpy as np
from scipy.optimize import brentq, fmin_l_bfgs_b
from scipy.special import expit
from sklearn.utils import check_random_state

from ._checks import label_columns
from ._folds import kfold_splits, make_folds
from ._merge import Merge
from ._stackers import softmax_rows as _softmax    # the one softmax of the library

__all__ = ["LabelCalibrator", "TemperatureCalibrator", "fit_merge_calibrator",
           "held_out_merge_proba", "log_proba"]

#: Bounds of ``log T0`` for logits standardised to unit standard deviation (widened to
#: hold the identity, ``T0 = 1`` in the logits' own units).
LOG_TEMPERATURE_BOUNDS = (-6.0, 6.0)
#: Largest slope ``s`` (a temperature per unit of logit length): it caps a row's logits
#: at length ``1 / 400`` of their spread, as near uniform as a row needs.
SLOPE_MAX = 400.0
#: Held-out labels above which the map is fitted on a stratified subsample of this
#: many: two parameters and one pooling weight need no more (their standard errors
#: shrink as one over the square root of the labels), and the cost of the calibration
#: stops growing with the graph.
SUBSAMPLE_SIZE = 1000
#: Folds of the cross-fit that chooses how far to move from the identity.
CROSS_FIT_FOLDS = 5
#: The seed of the subsample and of the cross-fit's folds when ``random_state`` is None,
#: so that a fit without one is still reproducible.
DEFAULT_SEED = 0


def _centred(logits):
    """Each row less its mean (the softmax does not change)."""
    return logits - logits.mean(axis=1, keepdims=True)


def _as_logits(logits):
    """Logits as (n, k): a vector (or one column) is a binary problem's ``[-z, z] / 2``."""
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim == 1:
        logits = logits[:, None]
    if logits.ndim != 2 or not np.all(np.isfinite(logits)):
        raise ValueError(f"logits must be a finite array (n_samples, n_classes), got shape "
                         f"{logits.shape}")
    if logits.shape[1] == 1:
        logits = np.hstack([-logits, logits]) / 2
    return logits


class _Rows:
    """Standardised centred logits of some held-out labels, with what the loss reads:
    their lengths, classes, weights, and the mixture's share ``n / (n + a)`` and
    ``a pi / (n + a)`` of the true class.

    The logits are held class by class (``columns``, (k, n)): the loss reads each row's
    few classes about a hundred times a fit, and a pass over the rows of one class costs
    a fraction of a pass over the classes of every row (the calibration was a fifth of
    a small graph's fit). A row's largest logit over a positive temperature is the
    largest of its logits over it (the rounding of a division keeps the order), so
    the shift of the softmax is one division per row."""

    def __init__(self, standard, y, weights, kept, prior_part):
        self.columns = np.ascontiguousarray(standard.T)
        self.y, self.weights = y, weights
        self.length = np.linalg.norm(standard, axis=1)
        self.true = standard[np.arange(y.size), y]
        self.top = standard.max(axis=1) if y.size else np.zeros(0)
        self.log_kept = np.log(kept) if kept > 0 else -np.inf
        self.log_prior = np.log(np.maximum(prior_part[y], 1e-300)) if np.any(
            prior_part > 0) else np.full(y.size, -np.inf)

    def take(self, index):
        taken = copy.copy(self)
        for name in ("y", "weights", "length", "true", "top", "log_prior"):
            setattr(taken, name, getattr(self, name)[index])
        taken.columns = np.ascontiguousarray(self.columns[:, index])
        return taken

    def _forward(self, theta):
        """Each row's temperature, ``exp(u - max u)`` (class by class) and its sum, and
        ``log p_y``."""
        temperature = np.exp(theta[0]) + theta[1] * self.length
        top = self.top / temperature
        exp = self.columns / temperature
        exp -= top
        np.exp(exp, out=exp)
        total = exp.sum(axis=0)
        log_q = (self.true / temperature - top) - np.log(total)
        return temperature, exp, total, log_q, np.logaddexp(self.log_kept + log_q,
                                                           self.log_prior)

    def true_probability(self, theta):
        """``p_y`` of each row under ``theta``."""
        return np.exp(self._forward(theta)[-1])

    def value(self, theta):
        """``L(theta)`` alone (as :meth:`loss` gives it)."""
        return -float(self.weights @ self._forward(theta)[-1])

    def plain_values(self, log_t0):
        """``L((t, 0))`` for each ``t`` of ``log_t0`` (a temperature alone), in one
        pass over the rows."""
        temperature = np.exp(np.asarray(log_t0, dtype=float))[:, None, None]
        top = self.top / temperature
        exp = self.columns / temperature - top
        np.exp(exp, out=exp)
        log_q = (self.true / temperature - top)[:, 0] - np.log(exp.sum(axis=1))
        return -(np.logaddexp(self.log_kept + log_q, self.log_prior) @ self.weights)

    def loss(self, theta):
        """``L(theta)`` and its gradient in ``(log T0, s)`` (the module's docstring)."""
        temperature, exp, total, log_q, log_p = self._forward(theta)
        rho = np.exp(self.log_kept + log_q - log_p)
        exp *= self.columns
        expected = exp.sum(axis=0) / total                              # q . c
        g = self.weights * rho * (self.true - expected) / temperature ** 2
        return -float(self.weights @ log_p), np.array([np.exp(theta[0]) * g.sum(),
                                                        g @ self.length])


def _stratified_subsample(y, size, rng):
    """At most ``size`` positions, each class's share kept (largest remainders)."""
    if y.size <= size:
        return np.arange(y.size)
    classes, counts = np.unique(y, return_counts=True)
    quota = counts * size / y.size
    take = np.floor(quota).astype(int)
    take[np.argsort(take - quota)[: size - take.sum()]] += 1
    order = rng.permutation(y.size)
    shuffled = y[order]
    chosen = [order[shuffled == label][:n] for label, n in zip(classes, take)]
    return np.sort(np.concatenate(chosen))


def _sample(y, folds, rng):
    """The positions of the rows the map is fitted on (at most ``SUBSAMPLE_SIZE``,
    stratified), and the caller's ``folds`` as positions in them (None: none given;
    each fold cut in proportion)."""
    n = y.size
    if folds is None:
        return _stratified_subsample(y, SUBSAMPLE_SIZE, rng), None
    folds = [np.asarray(fold, dtype=np.int64) for fold in folds]
    every = np.concatenate(folds) if folds else np.zeros(0, dtype=np.int64)
    if every.size != n or not np.array_equal(np.sort(every), np.arange(n)):
        raise ValueError(f"folds must split the {n} labels, each position in exactly one "
                         f"fold; got {every.size} positions")
    if n > SUBSAMPLE_SIZE:
        folds = [fold[_stratified_subsample(y[fold], max(
            1, SUBSAMPLE_SIZE * fold.size // n), rng)] for fold in folds]
    ends = np.cumsum([0] + [fold.size for fold in folds])
    return np.concatenate(folds), [np.arange(start, stop) for start, stop
                                   in zip(ends, ends[1:]) if stop > start]


def _least_pseudo_count(evidence, prior):
    """The ``a`` of the module's docstring: the least prior weight that keeps every
    probability at or below ``(n + 1) / (n + 2)``."""
    room = 1.0 - float(prior.max())
    if room <= 0.0:                             # one class: certainty is right
        return 0.0
    share = min(1.0 / ((evidence + 2.0) * room), 1.0)       # a / (n + a)
    return np.inf if share >= 1.0 else share * evidence / (1.0 - share)


def _check_codes(y, n, k):
    y = np.asarray(y)
    if y.shape != (n,) or not np.issubdtype(y.dtype, np.integer) or (
            n and (y.min() < 0 or y.max() >= k)):
        raise ValueError(f"y must hold {n} class codes in [0, {k}) (the columns of the "
                         f"logits), got {y.dtype} of shape {y.shape}")
    return y


def _minimise(rows, start, bounds):
    """L-BFGS-B on the mean loss (the first step of L-BFGS-B is the gradient itself: on
    the sum it would leap to a bound)."""
    total = max(float(rows.weights.sum()), 1e-300)

    def mean_loss(theta):
        value, gradient = rows.loss(theta)
        return value / total, gradient / total

    # SciPy's L-BFGS-B driver itself (minimize's checks of the problem cost as much as
    # a fit of these two parameters); its defaults are minimize's.
    x, value, _ = fmin_l_bfgs_b(mean_loss, np.asarray(start, dtype=float), bounds=bounds)
    return np.asarray(x, dtype=float), float(value)


def _fit_theta(rows, bounds, start=None):
    """``theta`` of least loss on ``rows``: from ``start`` if given, else from the
    better of the best temperature alone and the direction alone (the two ends of the
    family). The temperature alone starts from the best of a grid of ``log T0`` one
    unit apart: the loss is flat towards both bounds (the prior alone, or hard answers
    mixed with it), where a gradient method from a poor start would stop. The search
    of both parameters starts from one end only, the one of lower loss: from the other
    it walked along the same valley, five times as many steps to nearly the same loss
    (a 10^4-node structure-only fit: 30 loss evaluations of 69, to a loss higher by
    2e-4 of it)."""
    if start is not None:
        return _minimise(rows, start, bounds)[0]
    grid = np.arange(np.ceil(bounds[0][0]), bounds[0][1] + 1.0)
    best = grid[np.argmin(rows.plain_values(grid))]
    plain, plain_loss = _minimise(rows, [best, 0.0], [bounds[0], (0.0, 0.0)])
    if bounds[1][1] == 0.0:                     # no slope
        return plain
    # the direction alone, at the plain temperature of a row of median length
    median = max(float(np.median(rows.length)), 1e-12)
    direction = [bounds[0][0], min(np.exp(plain[0]) / median, bounds[1][1])]
    total = max(float(rows.weights.sum()), 1e-300)      # _minimise's loss is the mean
    start = direction if rows.value(direction) / total < plain_loss else plain
    best, best_loss = _minimise(rows, start, bounds)
    return best if best_loss < plain_loss else plain


def _others(n, fold):
    """The positions ``0 .. n - 1`` outside ``fold``, in order (``np.setdiff1d``'s
    answer, without its two sorts)."""
    outside = np.ones(n, dtype=bool)
    outside[fold] = False
    return np.flatnonzero(outside)


def _held_out_right(rows, folds, thetas, identity):
    """``p_y`` of each label under the identity (row 0) and under the map fitted without
    its fold (row 1; ``folds``, ``thetas`` each fitted without its fold)."""
    right = np.empty((2, rows.y.size))
    for fold, theta in zip(folds, thetas):
        part = rows.take(fold)
        right[:, fold] = [part.true_probability(identity), part.true_probability(theta)]
    return right


def _shrinkage(rows, folds, thetas, identity):
    """``lambda*`` of the module's docstring: the weight of the fitted map in the pool
    of least log-loss on labels the map did not see (``folds``, ``thetas`` each fitted
    without its fold)."""
    right = _held_out_right(rows, folds, thetas, identity)
    weights, gain = rows.weights, right[1] - right[0]

    def slope(lam):            # the derivative of the mean loss in lambda, increasing
        return -float(weights @ (gain / (right[0] + lam * gain)))

    if slope(0.0) >= 0.0:
        return 0.0
    if slope(1.0) <= 0.0:
        return 1.0
    return float(brentq(slope, 0.0, 1.0, xtol=1e-6))


class TemperatureCalibrator:
    """A temperature that grows with the length of a row's logits, mixed with the class
    prior, moved from the identity only as far as held-out labels show it helps (the
    module's docstring).

    Parameters
    ----------
    pseudo_count : "auto" or float, default="auto"
        The weight ``a`` of the class prior, in observations; ``"auto"``: the least
        that keeps every probability at or below ``(n + 1) / (n + 2)`` (the module's
        docstring). 0 is no mixture.
    norm_scaling : bool, default=True
        Fit ``T(z) = T0 + s ||z - mean(z)||``; False fixes ``s = 0``, one temperature
        for every row.
    cross_fit : bool, default=True
        Choose how far to move from the identity by cross-fitting (``lambda*``); False
        answers the map fitted on every label (``lambda = 1``).
    random_state : int, RandomState or None, default=None
        Seeds the subsample and the cross-fit's folds; None: ``DEFAULT_SEED``.

    Attributes
    ----------
    temperature_ : float
        ``T0``, in the units of the logits given to :meth:`fit`.
    norm_slope_ : float
        ``s`` (a temperature per unit of logit length); 0 without ``norm_scaling``.
    shrinkage_ : float
        ``lambda*``: 0 is the identity (``T0 = 1``, ``s = 0``), 1 the map fitted on
        every label.
    prior_ : ndarray of shape (n_classes,)
        Class shares of the held-out labels, one pseudo-count per class added.
    n_evidence_ : float
        ``n``: the number (or total sample weight) of the held-out labels.
    pseudo_count_ : float
        ``a``.

    Examples
    --------
    >>> import numpy as np
    >>> logits = np.array([[3.0, -3.0], [2.5, -2.0], [-3.0, 3.0], [-2.0, 2.0]])
    >>> calibrator = TemperatureCalibrator().fit(logits, [0, 0, 1, 1])
    >>> proba = calibrator.predict_proba(logits)
    >>> bool(proba.max() <= 5 / 6), proba.argmax(axis=1).tolist()
    (True, [0, 0, 1, 1])
    """

    def __init__(self, pseudo_count="auto", norm_scaling=True, cross_fit=True,
                 random_state=None):
        self.pseudo_count = pseudo_count
        self.norm_scaling = norm_scaling
        self.cross_fit = cross_fit
        self.random_state = random_state

    def fit(self, logits, y, n_classes=None, sample_weight=None, folds=None):
        """Fit on held-out ``logits`` (n, k) (or binary scores (n,)) and the true class
        codes ``y`` (column indices, ``0 .. k - 1``); returns self.

        ``folds``: the held-out positions of each fold of the cross-fit (for example
        the folds whose models gave the logits, so that each fold's map is judged on
        logits of other models than those it was fitted on); None: ``CROSS_FIT_FOLDS``
        stratified folds.
        """
        logits = _as_logits(logits)
        n, k = logits.shape
        y = _check_codes(y, n, k)
        if n_classes is not None and n_classes != k:
            raise ValueError(f"logits have {k} columns for {n_classes} classes")
        weights = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
        if weights.shape != (n,) or not np.all(np.isfinite(weights)) or np.any(weights < 0):
            raise ValueError(f"sample_weight must hold {n} finite weights >= 0, got shape "
                             f"{weights.shape}")
        rng = self._random()
        index, folds = _sample(y, folds, rng)
        return self._fit_sample(logits[index], y, weights, index, folds, rng)

    def _random(self):
        return check_random_state(DEFAULT_SEED if self.random_state is None
                                  else self.random_state)

    def _fit_sample(self, logits, y, weights, index, folds, rng):
        """The fit from the logits of the rows ``index`` (:func:`_sample`) of the
        labels ``y`` (all of them, with their ``weights``: the evidence and the prior
        count every label)."""
        k = logits.shape[1]
        evidence = float(weights.sum())
        prior = (np.bincount(y, weights=weights, minlength=k) + 1.0) / (evidence + k)
        if isinstance(self.pseudo_count, str) and self.pseudo_count == "auto":
            a = _least_pseudo_count(evidence, prior)
        else:
            a = float(self.pseudo_count)
            if not np.isfinite(a) or a < 0:
                raise ValueError(f"pseudo_count must be 'auto' or a number >= 0, got "
                                 f"{self.pseudo_count!r}")
        scale = max(float(logits.std()), 1e-12) if logits.size else 1.0
        # The search reads logits of unit spread: T0 in those units is exp(log T0), and
        # the identity (T0 = 1 in the logits' own units) is log T0 = -log(scale).
        identity = np.array([-np.log(scale), 0.0])
        bounds = [(min(LOG_TEMPERATURE_BOUNDS[0], identity[0]),
                   max(LOG_TEMPERATURE_BOUNDS[1], identity[0])),
                  (0.0, SLOPE_MAX if self.norm_scaling else 0.0)]
        kept = 1.0 - (1.0 if np.isinf(a) else a / (evidence + a) if evidence + a > 0
                      else 0.0)
        rows = _Rows(_centred(logits) / scale, y[index], weights[index], kept,
                     (1.0 - kept) * prior)
        if folds is None:
            folds = make_folds(rows.y, CROSS_FIT_FOLDS, rng) if rows.y.size else []
        fitted, shrinkage = identity, 0.0
        if rows.y.size:
            fitted, shrinkage = _fit_theta(rows, bounds), 1.0
            if self.cross_fit:
                thetas = [_fit_theta(rows.take(_others(rows.y.size, fold)), bounds,
                                     start=fitted) for fold in folds]
                # one fold (a single label): nothing held out shows a gain
                shrinkage = (_shrinkage(rows, folds, thetas, identity) if len(folds) > 1
                             else 0.0)
        self.n_evidence_, self.prior_, self.pseudo_count_ = evidence, prior, a
        self.temperature_ = float(np.exp(fitted[0]) * scale)
        self.norm_slope_ = float(fitted[1])
        self.shrinkage_ = float(shrinkage)
        return self

    def _prior_share(self):
        """``a / (n + a)``."""
        n, a = self.n_evidence_, self.pseudo_count_
        return 1.0 if np.isinf(a) else a / (n + a) if n + a > 0 else 0.0

    def _mixture(self, q):
        share = self._prior_share()
        return (1.0 - share) * q + share * self.prior_

    def predict_proba(self, logits):
        """Calibrated class probabilities (n, k) of logits (n, k) (or binary scores):
        ``(1 - lambda*) p_identity + lambda* p_fitted``."""
        centred = _centred(_as_logits(logits))
        temperature = self.temperature_ + self.norm_slope_ * np.linalg.norm(centred, axis=1)
        fitted = _softmax(centred / temperature[:, None])
        if self.shrinkage_ < 1.0:
            fitted = self.shrinkage_ * fitted + (1.0 - self.shrinkage_) * _softmax(centred)
        return self._mixture(fitted)

    def max_probability(self):
        """The largest probability the calibrator can give, ``(n + a max pi) / (n + a)``."""
        share = self._prior_share()
        return float(1.0 - share + share * self.prior_.max())


#: The most (node, label) pairs :class:`LabelCalibrator` fits its two numbers on.
MAX_PAIRS = 100_000


class LabelCalibrator:
    """One logistic curve shared by every label, on the decision values (Platt scaling
    over all the labels at once), fitted on the labelled nodes' out-of-fold decisions:
    the probabilities of a merge without its own (the mean of the views).

    One curve keeps the order of the decision values across labels, so that a node's
    most probable labels are those of its largest decision values: least squares puts
    the labels' decision values on one scale (each estimates ``2 P - 1``), and a curve
    per label, whose intercept follows the label's frequency, reorders them. On
    BlogCatalog's development split (seed 0, half the nodes labelled) curves per label
    lowered the micro-F1 of the most probable label from 0.395 to 0.381 and the top-k
    micro- and macro-F1 from 0.428 / 0.283 to 0.413 / 0.243
    (``benchmarks/bench_multilabel.py``).

    The curve is that of scikit-learn's ``LogisticRegression(C=1.0)`` on every
    (node, label) pair's decision pooled (the slope penalised by half its square, the
    intercept free), fitted by Newton's method on one ``2 x 2`` system, on at most
    :data:`MAX_PAIRS` pairs drawn with a fixed seed. A label that every node has, or
    none, keeps that certainty.

    Examples
    --------
    >>> decision = np.array([[2.0, -1.0], [1.0, 0.5], [-1.0, 1.5], [-2.0, -2.0]])
    >>> Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    >>> proba = LabelCalibrator().fit(decision, Y).predict_proba(decision)
    >>> (proba[:2, 0] > 0.5).all() and (proba[2:, 0] < 0.5).all()
    np.True_
    >>> bool((np.argsort(proba, axis=1) == np.argsort(decision, axis=1)).all())
    True
    """

    def fit(self, decision, Y, n_iter=50):
        decision = np.asarray(decision, dtype=np.float64)
        target = np.asarray(Y, dtype=np.float64)
        constant = target.min(axis=0) == target.max(axis=0)   # every node has it, or none
        x, y = decision[:, ~constant].ravel(), target[:, ~constant].ravel()
        if x.size > MAX_PAIRS:              # two numbers: a seeded sample of pairs suffices
            sample = np.random.default_rng(0).choice(x.size, MAX_PAIRS, replace=False)
            x, y = x[sample], y[sample]
        slope = intercept = 0.0
        for _ in range(n_iter if x.size else 0):
            p = expit(x * slope + intercept)
            residual, curvature = p - y, np.maximum(p * (1.0 - p), 1e-12)
            g_slope = residual @ x + slope
            g_intercept = residual.sum()
            h_ss = curvature @ (x * x) + 1.0
            h_si = curvature @ x
            h_ii = curvature.sum()
            det = h_ss * h_ii - h_si ** 2
            step_slope = (h_ii * g_slope - h_si * g_intercept) / det
            step_intercept = (h_ss * g_intercept - h_si * g_slope) / det
            slope -= float(np.clip(step_slope, -10.0, 10.0))
            intercept -= float(np.clip(step_intercept, -10.0, 10.0))
            if max(abs(step_slope), abs(step_intercept)) < 1e-10:
                break
        n_labels = target.shape[1]
        self.coef_ = np.where(constant, 0.0, slope)
        self.intercept_ = np.full(n_labels, intercept)
        self.constant_ = np.where(constant, target[0], np.nan)
        return self

    def predict_proba(self, decision):
        """The probability of each label (n, n_labels)."""
        proba = expit(np.asarray(decision) * self.coef_ + self.intercept_)
        return np.where(np.isnan(self.constant_), proba, self.constant_)


def held_out_merge_proba(estimator, features, codes, n_folds=5, random_state=None):
    """The merge's class probabilities of the training samples, held out all the way.

    ``features`` (m, n_views, k) are held-out view scores of the training samples (the
    out-of-fold or leave-one-out scores the estimator's merge learnt: its
    ``stacking_scores_``, or the selection's fold scores). The mean of the views reads
    them as they are; a stacker was fitted on these very scores, so its probabilities of
    them are not held out: the stackers are refitted on ``n_folds`` folds of the scores
    (stratified where every class has ``n_folds`` samples) and each part scored by the
    stackers that did not see it (``n_folds=None``: the stackers' own probabilities,
    not held out; on Texas's 10 fixed splits the refit did not lower the test ECE of
    ``NodeClassifier()``: 0.106 with it, 0.099 without, mean over the splits).

    Parameters
    ----------
    estimator : AsKLSClassifier
        Fitted, single-label.
    features : ndarray of shape (m, n_views, k)
    codes : ndarray of shape (m,)
        Class codes (column indices of ``estimator.classes_``) of the training samples.
    n_folds : int or None, default=5
    random_state : int or None

    Returns
    -------
    ndarray of shape (m, n_classes)
    """
    if getattr(estimator, "_multilabel", False):
        raise ValueError("calibration of a multi-label model is not defined here: its "
                         "labels' probabilities are not one distribution")
    codes = np.asarray(codes)
    merge = Merge.named(estimator.merge)
    if not merge.stacking or n_folds is None:
        return estimator.proba_from_view_scores(features)
    k = estimator.classes_.size
    proba = np.zeros((codes.size, k))
    labels = label_columns(codes, k)
    for train, valid in kfold_splits(codes, n_folds, random_state):
        fold = copy.deepcopy(estimator)
        fold._fit_stackers(features[train], codes[train], labels[train])
        if merge.joint and not merge.blending:
            stacker = fold.stackers_[0]     # its classes: those of the fold's samples
            proba[np.ix_(valid, stacker.classes_)] = stacker.predict_proba(
                features[valid].reshape(valid.size, -1))
        else:
            proba[valid] = fold._stacked_proba(features[valid])
    return proba


def fit_merge_calibrator(estimator, features, codes, *, n_folds=5, random_state=None,
                         pseudo_count="auto", folds=None):
    """A :class:`TemperatureCalibrator` of an estimator's class probabilities, fitted on
    :func:`held_out_merge_proba` (the logits are the log-probabilities, whose softmax is
    the probabilities themselves, so the identity map answers them unchanged). Calibrate
    new probabilities ``p`` with ``calibrator.predict_proba(np.log(p))`` (see
    :func:`log_proba`). ``random_state`` seeds the refit's folds, the subsample and the
    cross-fit; ``folds`` (the held-out positions of each fold that made ``features``),
    when given, are the cross-fit's folds.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls import AsKLSClassifier, KernelViews
    >>> rng = np.random.default_rng(0)
    >>> K = rng.uniform(size=(40, 40)) + 5 * np.kron(np.eye(2), np.ones((20, 20)))
    >>> y = np.repeat([0, 1], 20)
    >>> clf = AsKLSClassifier(gamma=0.1, merge="stack_loo").fit(K, y)
    >>> calibrator = fit_merge_calibrator(clf, clf.stacking_scores_, y, random_state=0)
    >>> views = KernelViews(source=K[:3], target=K[:, :3])
    >>> proba = calibrator.predict_proba(log_proba(clf.predict_proba(views)))
    >>> proba.shape, bool(proba.max() <= calibrator.max_probability())
    ((3, 2), True)
    """
    codes = np.asarray(codes)
    calibrator = TemperatureCalibrator(pseudo_count, random_state=random_state)
    if n_folds is None:
        # the probabilities of the rows the calibrator reads, and no others
        rng = calibrator._random()
        index, folds = _sample(codes, folds, rng)
        held_out = held_out_merge_proba(estimator, features[index], codes[index], None)
        logits = log_proba(held_out)
        return calibrator._fit_sample(logits, _check_codes(codes, codes.size,
                                                           logits.shape[1]),
                                      np.ones(codes.size), index, folds, rng)
    held_out = held_out_merge_proba(estimator, features, codes, n_folds, random_state)
    return calibrator.fit(log_proba(held_out), codes, folds=folds)


def log_proba(proba):
    """Logarithms of probabilities, 0 floored at the smallest normal float."""
    return np.log(np.maximum(np.asarray(proba, dtype=np.float64), np.finfo(float).tiny))
