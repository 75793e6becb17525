"""Temperature scaling shrunk to the prior, and the expected calibration error."""

import numpy as np
import pytest

from digraph_askls.metrics import expected_calibration_error
from digraph_askls.models._calibration import TemperatureCalibrator


def test_expected_calibration_error_by_hand():
    proba = np.array([[0.95, 0.05], [0.92, 0.08], [0.3, 0.7], [0.45, 0.55], [0.6, 0.4],
                      [0.2, 0.8], [0.5, 0.5]])
    y = np.array([0, 1, 1, 1, 1, 1, 0])
    # Confidences 0.95, 0.92 (bin (0.9, 1]: accuracy 1/2, confidence 0.935), 0.7 (bin
    # (0.6, 0.7]: 1 right), 0.55 and 0.6 (bin (0.5, 0.6]: 1 of 2 right, confidence 0.575),
    # 0.8 (bin (0.7, 0.8]: right), 0.5 (bin (0.4, 0.5]: column 0 predicted, right).
    by_hand = (2 * abs(0.5 - 0.935) + abs(1 - 0.7) + 2 * abs(0.5 - 0.575)
               + abs(1 - 0.8) + abs(1 - 0.5)) / 7
    assert expected_calibration_error(y, proba) == pytest.approx(by_hand, abs=1e-12)
    # A vector is the probability of class 1.
    assert expected_calibration_error(y, proba[:, 1]) == pytest.approx(by_hand, abs=1e-12)
    # One bin: |accuracy - mean confidence|.
    assert expected_calibration_error(y, proba, n_bins=1) == pytest.approx(
        abs(5 / 7 - proba.max(axis=1).mean()))


def test_expected_calibration_error_of_calibrated_draws_is_small():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.5, 1.0, 20000)
    y = (rng.uniform(size=p.size) >= p).astype(int)      # column 0 right with probability p
    assert expected_calibration_error(y, np.column_stack([p, 1 - p])) < 0.01
    assert expected_calibration_error(1 - y, np.column_stack([p, 1 - p])) > 0.4


@pytest.mark.parametrize("seed", range(5))
def test_expected_calibration_error_is_at_least_the_gap_of_the_means(seed):
    # The bound the calibration pages read a level estimate by: whatever the binning,
    # the error is at least |accuracy - mean confidence| (equal with one bin).
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.full(4, 0.3), size=500)
    y = rng.integers(0, 4, size=500)
    gap = abs(np.mean(proba.argmax(axis=1) == y) - proba.max(axis=1).mean())
    for n_bins in (1, 5, 15, 40):
        assert expected_calibration_error(y, proba, n_bins) >= gap - 1e-12
    assert expected_calibration_error(y, proba, 1) == pytest.approx(gap, abs=1e-12)


@pytest.mark.parametrize("y, proba, message", [
    ([0, 3], [[0.5, 0.5], [0.5, 0.5]], "column indices"),
    ([0], [[0.5, 0.5], [0.5, 0.5]], "one true class per row"),
])
def test_expected_calibration_error_bad_input(y, proba, message):
    with pytest.raises(ValueError, match=message):
        expected_calibration_error(y, proba)


def test_plain_temperature_scaling_recovers_the_true_temperature():
    rng = np.random.default_rng(1)
    logits = rng.normal(scale=3.0, size=(5000, 4))
    true_t = 2.5
    p = np.exp(logits / true_t)
    p /= p.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(4, p=row) for row in p])
    calibrator = TemperatureCalibrator(pseudo_count=0).fit(logits, y)
    assert calibrator.temperature_ == pytest.approx(true_t, rel=0.08)
    # And the calibrated probabilities are calibrated on fresh draws.
    fresh = rng.normal(scale=3.0, size=(5000, 4))
    q = np.exp(fresh / true_t)
    q /= q.sum(axis=1, keepdims=True)
    y_fresh = np.array([rng.choice(4, p=row) for row in q])
    assert expected_calibration_error(y_fresh, calibrator.predict_proba(fresh)) < 0.03


def _draw_classes(rng, proba):
    """One class per row of ``proba``, drawn."""
    cumulative = proba.cumsum(axis=1)
    return (rng.uniform(size=(proba.shape[0], 1)) > cumulative).sum(axis=1)


def test_temperature_grows_with_the_logits_length_where_length_is_not_certainty():
    """Logits whose length is the amount of evidence (a log-normal factor), not how
    clear it is: the classes are drawn from their direction alone. One temperature
    cannot fit both the short and the long ones; ``T0 + s ||c||`` can."""
    rng = np.random.default_rng(4)

    def draw(n):
        direction = rng.normal(size=(n, 3))
        direction /= np.linalg.norm(direction - direction.mean(axis=1, keepdims=True),
                                    axis=1, keepdims=True)
        truth = np.exp(4.0 * direction)
        truth /= truth.sum(axis=1, keepdims=True)
        evidence = np.exp(rng.normal(scale=1.5, size=(n, 1)))
        return direction * evidence, _draw_classes(rng, truth)

    logits, y = draw(3000)
    fresh, y_fresh = draw(3000)
    plain = TemperatureCalibrator(norm_scaling=False).fit(logits, y)
    scaled = TemperatureCalibrator().fit(logits, y)
    assert plain.norm_slope_ == 0 and scaled.norm_slope_ > 0
    assert expected_calibration_error(y_fresh, plain.predict_proba(fresh)) > 0.1
    assert expected_calibration_error(y_fresh, scaled.predict_proba(fresh)) < 0.04
    assert scaled.temperature_ < 0.1 < 0.15 < scaled.norm_slope_ < 0.3    # the truth: 0, 1/4
    # The length only sets the temperature: every prediction is the logits' arg-max.
    assert (scaled.predict_proba(fresh).argmax(axis=1) == fresh.argmax(axis=1)).all()


def test_norm_scaling_keeps_plain_temperature_scaling_where_it_fits():
    rng = np.random.default_rng(5)
    logits = rng.normal(scale=3.0, size=(4000, 4))
    truth = np.exp(logits / 2.0)
    y = _draw_classes(rng, truth / truth.sum(axis=1, keepdims=True))
    plain = TemperatureCalibrator(norm_scaling=False).fit(logits, y)
    scaled = TemperatureCalibrator().fit(logits, y)
    np.testing.assert_allclose(scaled.predict_proba(logits), plain.predict_proba(logits),
                               atol=0.02)


def test_few_labels_cannot_give_certainty():
    logits = np.array([[30.0, -30.0], [25.0, -20.0], [-30.0, 30.0], [-20.0, 25.0]])
    calibrator = TemperatureCalibrator().fit(logits, [0, 0, 1, 1])
    proba = calibrator.predict_proba(np.array([[300.0, -300.0], [-300.0, 300.0]]))
    # Four labels, two classes: at most (4 + 2 * 1/2) / (4 + 2) = 5/6.
    assert proba.max() == pytest.approx(5 / 6) and calibrator.max_probability() == 5 / 6
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert proba.argmax(axis=1).tolist() == [0, 1]
    # Plain temperature scaling (no pseudo-count) answers with certainty.
    plain = TemperatureCalibrator(pseudo_count=0).fit(logits, [0, 0, 1, 1])
    assert plain.predict_proba(np.array([[300.0, -300.0]])).max() > 0.999


def test_shrinkage_vanishes_with_many_labels():
    rng = np.random.default_rng(2)
    logits = rng.normal(scale=2.0, size=(20000, 3))
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(3, p=row) for row in p])
    shrunk = TemperatureCalibrator().fit(logits, y)
    plain = TemperatureCalibrator(pseudo_count=0).fit(logits, y)
    np.testing.assert_allclose(shrunk.predict_proba(logits), plain.predict_proba(logits),
                               atol=2e-3)


def test_bad_codes_are_clear_errors():
    with pytest.raises(ValueError, match="class codes in"):
        TemperatureCalibrator().fit(np.zeros((3, 2)), [0, 2, 1])


# ---- the calibrator on the merge of AsKLSClassifier ------------------------------------
import warnings

from digraph_askls import AsKLSClassifier, KernelViews
from digraph_askls.models._calibration import (
    fit_merge_calibrator,
    held_out_merge_proba,
    log_proba,
)
from digraph_askls.models._folds import kfold_splits
from digraph_askls.models._stackers import joint_logistic_regression

#: The README's 6-node graph ("Ten lines"): the kernel that NodeClassifier selects there
#: (SmoothedAttributeKernel, 3 decimals), nodes 0, 1, 3, 4 labelled a, a, b, b.
README_KERNEL = np.array([
    [1.0, 1.0, 0.986, 0.669, 0.538, 0.538], [1.0, 1.0, 0.986, 0.669, 0.538, 0.538],
    [0.986, 0.986, 1.0, 0.782, 0.669, 0.669], [0.669, 0.669, 0.782, 1.0, 0.986, 0.986],
    [0.538, 0.538, 0.669, 0.986, 1.0, 1.0], [0.538, 0.538, 0.669, 0.986, 1.0, 1.0]])


@pytest.mark.parametrize("merge", ["stack_loo", "stack_train", "joint_loo"])
def test_four_labels_of_the_readme_example_give_no_probability_above_099(merge):
    train, test = np.array([0, 1, 3, 4]), np.array([2, 5])
    y = np.array([0, 0, 1, 1])
    K = README_KERNEL
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # separable stacking scores: ill-conditioned
        clf = AsKLSClassifier(gamma=0.1, merge=merge).fit(K[np.ix_(train, train)], y)
        proba = clf.predict_proba(KernelViews(K[np.ix_(test, train)], K[np.ix_(train, test)]))
        calibrator = fit_merge_calibrator(clf, clf.stacking_scores_, y, random_state=0)
    calibrated = calibrator.predict_proba(log_proba(proba))
    assert calibrated.max() <= 5 / 6 + 1e-12 < 0.99
    assert calibrated.argmax(axis=1).tolist() == proba.argmax(axis=1).tolist()
    if merge == "stack_train":
        assert proba.max() > 0.99          # what the merge answers alone


def test_held_out_merge_proba_refits_the_stackers_without_each_part():
    rng = np.random.default_rng(3)
    m = 60
    codes = np.repeat([0, 1, 2], 20)
    K = rng.uniform(size=(m, m)) + 2.0 * (codes[:, None] == codes[None, :])
    clf = AsKLSClassifier(gamma=0.1, merge="joint_loo").fit(K, codes)
    features = clf.stacking_scores_
    held_out = held_out_merge_proba(clf, features, codes, n_folds=5, random_state=0)
    expected = np.zeros((m, 3))
    for train, valid in kfold_splits(codes, 5, 0):
        model = joint_logistic_regression().fit(features[train].reshape(train.size, -1),
                                                codes[train])
        expected[valid] = model.predict_proba(features[valid].reshape(valid.size, -1))
    np.testing.assert_allclose(held_out, expected, rtol=1e-10, atol=1e-12)
    # Not the stackers' in-sample probabilities.
    assert not np.allclose(held_out, clf.proba_from_view_scores(features), atol=1e-3)


def test_multi_label_models_are_refused():
    rng = np.random.default_rng(4)
    K = rng.uniform(size=(30, 30)) + np.eye(30)
    Y = np.tile([[1, 0], [0, 1], [1, 1]], (10, 1))
    clf = AsKLSClassifier(merge="stack_loo").fit(K, Y)
    with pytest.raises(ValueError, match="multi-label"):
        held_out_merge_proba(clf, clf.stacking_scores_, np.zeros(30, dtype=int))


# ---- the rule: fitted with gradients, moved from the identity only as far as it pays ---
from scipy.optimize import approx_fprime

from digraph_askls.models import _calibration
from digraph_askls.models._calibration import _Rows, _shrinkage, _softmax


def _calibrated_draws(rng, n, k=7, scale=2.0):
    """Logits whose softmax is exactly the probability of each class: a calibrated
    model."""
    logits = rng.normal(scale=scale, size=(n, k))
    return logits, _draw_classes(rng, _softmax(logits))


@pytest.mark.parametrize("theta", [(0.3, 0.0), (-1.0, 0.4), (-4.0, 2.0), (1.5, 0.05)])
def test_the_gradient_is_the_loss_derivative(theta):
    rng = np.random.default_rng(6)
    logits = rng.normal(scale=2.0, size=(300, 4))
    y = rng.integers(0, 4, 300)
    weights = rng.uniform(0.5, 2.0, 300)
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    rows = _Rows(logits - logits.mean(axis=1, keepdims=True), y, weights, 0.97, 0.03 * prior)
    value, gradient = rows.loss(np.array(theta))
    numeric = approx_fprime(np.array(theta), lambda t: rows.loss(t)[0], 1e-6)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-4, atol=1e-4 * abs(value) / 300)
    # and the loss is minus the log-probability of the true classes
    np.testing.assert_allclose(value, -weights @ np.log(rows.true_probability(theta)))
    assert rows.value(np.array(theta)) == value
    # the grid's one pass gives the loss of each temperature alone
    grid = np.array([theta[0], -2.0, 3.0])
    np.testing.assert_allclose(rows.plain_values(grid),
                               [rows.value(np.array([t, 0.0])) for t in grid], rtol=1e-13)
    # the rows held class by class give the softmax of each row's own logits
    centred = logits - logits.mean(axis=1, keepdims=True)
    temperature = np.exp(theta[0]) + theta[1] * np.linalg.norm(centred, axis=1)
    q = _softmax(centred / temperature[:, None])[np.arange(300), y]
    np.testing.assert_allclose(rows.true_probability(theta), 0.97 * q + 0.03 * prior[y],
                               rtol=1e-12)
    part = np.arange(0, 300, 7)
    np.testing.assert_allclose(rows.take(part).loss(np.array(theta))[0],
                               _Rows(centred[part], y[part], weights[part], 0.97,
                                     0.03 * prior).loss(np.array(theta))[0], rtol=1e-13)


def test_the_pooling_weight_minimises_the_cross_fitted_loss():
    rng = np.random.default_rng(7)
    logits, y = _calibrated_draws(rng, 200, k=3)
    rows = _Rows(logits - logits.mean(axis=1, keepdims=True), y, np.ones(200), 1.0,
                 np.zeros(3))
    folds = [np.arange(start, 200, 4) for start in range(4)]
    identity = np.zeros(2)
    thetas = [np.array([np.log(0.5), 0.0])] * 4         # each fold's map: T = 1/2
    lam = _shrinkage(rows, folds, thetas, identity)
    grid = np.linspace(0, 1, 2001)
    p0, p1 = rows.true_probability(identity), rows.true_probability(thetas[0])
    losses = [-np.sum(np.log((1 - g) * p0 + g * p1)) for g in grid]
    assert lam == pytest.approx(grid[np.argmin(losses)], abs=1e-3)
    # a map twice too sharp for calibrated logits: the labels keep most of the identity
    assert lam < 0.5


def test_an_already_calibrated_model_keeps_its_probabilities():
    """Where the merge is calibrated, the rule keeps the identity or near it: over 30
    draws of 140 labels of 7 classes the median weight of the fitted map is at most
    1/4, and on fresh nodes the mean calibrated error is within 0.005 of the merge's
    own (0.021 against 0.017; the map fitted on every label, without the cross-fit,
    measures 0.028)."""
    rng = np.random.default_rng(8)
    found = []
    for _ in range(30):
        logits, y = _calibrated_draws(rng, 140)
        fresh, y_fresh = _calibrated_draws(rng, 3000)
        ruled = TemperatureCalibrator().fit(logits, y)
        fitted = TemperatureCalibrator(cross_fit=False).fit(logits, y)
        found.append([ruled.shrinkage_, expected_calibration_error(y_fresh, _softmax(fresh)),
                      expected_calibration_error(y_fresh, ruled.predict_proba(fresh)),
                      expected_calibration_error(y_fresh, fitted.predict_proba(fresh))])
    shrinkage, none, ruled, fitted = np.array(found).T
    assert np.median(shrinkage) <= 0.25
    assert ruled.mean() <= none.mean() + 0.005
    assert ruled.mean() < fitted.mean()


def test_with_no_gain_on_held_out_labels_the_calibration_is_skipped():
    rng = np.random.default_rng(9)
    logits, y = _calibrated_draws(rng, 60, k=3, scale=1.0)
    calibrator = TemperatureCalibrator().fit(logits, y)
    if calibrator.shrinkage_ == 0.0:
        share = calibrator.pseudo_count_ / (calibrator.n_evidence_ + calibrator.pseudo_count_)
        np.testing.assert_allclose(calibrator.predict_proba(logits),
                                   (1 - share) * _softmax(logits) + share * calibrator.prior_)
    else:      # the seed must give the case this test is about
        pytest.fail(f"the fold maps gained on this draw (shrinkage {calibrator.shrinkage_})")


def test_the_subsample_is_stratified_and_fixed_by_the_random_state(monkeypatch):
    monkeypatch.setattr(_calibration, "SUBSAMPLE_SIZE", 500)
    rng = np.random.default_rng(10)
    logits = rng.normal(scale=3.0, size=(3000, 4))
    y = _draw_classes(rng, _softmax(logits / 2.0))
    fits = [TemperatureCalibrator(random_state=seed).fit(logits, y) for seed in (0, 0, 1)]
    first, again, other = ([fit.temperature_, fit.norm_slope_, fit.shrinkage_] for fit in fits)
    assert first == again and first != other
    # the evidence and the prior still count every label
    assert fits[0].n_evidence_ == 3000
    np.testing.assert_allclose(fits[0].prior_, (np.bincount(y, minlength=4) + 1) / 3004)
    # None is a fixed seed: a fit without one is reproducible
    none = [TemperatureCalibrator().fit(logits, y).temperature_ for _ in range(2)]
    assert none[0] == none[1] == first[0]
    # stratified: every class keeps its share, to one node
    picked = _calibration._stratified_subsample(y, 500, np.random.default_rng(0))
    assert picked.size == 500 and np.unique(picked).size == 500
    assert np.abs(np.bincount(y[picked], minlength=4) - 500 * np.bincount(y) / 3000).max() < 1


def test_the_callers_folds_are_checked():
    logits = np.zeros((6, 2))
    y = np.array([0, 1, 0, 1, 0, 1])
    TemperatureCalibrator().fit(logits, y, folds=[[0, 1, 2], [3, 4, 5]])
    with pytest.raises(ValueError, match="folds must split the 6 labels"):
        TemperatureCalibrator().fit(logits, y, folds=[[0, 1, 2], [3, 4]])


def test_the_merge_calibrator_reads_only_the_sampled_rows_and_agrees_with_a_full_fit(
        monkeypatch):
    monkeypatch.setattr(_calibration, "SUBSAMPLE_SIZE", 40)
    rng = np.random.default_rng(11)
    codes = np.repeat([0, 1, 2], 40)
    K = rng.uniform(size=(120, 120)) + 1.5 * (codes[:, None] == codes[None, :])
    clf = AsKLSClassifier(gamma=0.1, merge="joint_loo").fit(K, codes)
    features = clf.stacking_scores_
    fast = fit_merge_calibrator(clf, features, codes, n_folds=None, random_state=3)
    full = TemperatureCalibrator(random_state=3).fit(
        log_proba(clf.proba_from_view_scores(features)), codes)
    for name in ("temperature_", "norm_slope_", "shrinkage_", "n_evidence_",
                 "pseudo_count_"):
        assert getattr(fast, name) == pytest.approx(getattr(full, name), rel=1e-12)
    np.testing.assert_allclose(fast.prior_, full.prior_)


@pytest.mark.parametrize("length_is_evidence", [True, False])
def test_both_parameters_are_searched_once_from_the_better_end(monkeypatch,
                                                               length_is_evidence):
    """The search of ``(log T0, s)`` starts from the end of the family (the temperature
    alone, the direction alone) of lower loss, and only from there: it ends as low as
    the better of the searches from both ends."""
    rng = np.random.default_rng(11)
    logits = rng.normal(scale=3.0, size=(600, 4))
    y = _draw_classes(rng, _softmax(logits / 2.0))
    if length_is_evidence:        # the classes follow the direction alone
        logits *= np.exp(rng.normal(scale=1.5, size=(600, 1))) / np.linalg.norm(
            logits - logits.mean(axis=1, keepdims=True), axis=1, keepdims=True)
    centred = logits - logits.mean(axis=1, keepdims=True)
    rows = _Rows(centred / centred.std(), y, np.ones(600), 0.99, 0.0025 * np.ones(4))
    bounds = [_calibration.LOG_TEMPERATURE_BOUNDS, (0.0, _calibration.SLOPE_MAX)]
    searches, minimise = [], _calibration._minimise
    monkeypatch.setattr(_calibration, "_minimise", lambda r, start, b: searches.append(
        (list(start), b[1][1])) or minimise(r, start, b))
    fitted = _calibration._fit_theta(rows, bounds)
    plain, both = searches[0], [s for s in searches if s[1] > 0]
    assert plain[1] == 0.0 and len(both) == 1                 # one 2-D search
    plain_end = minimise(rows, plain[0], [bounds[0], (0.0, 0.0)])[0]
    median = np.median(rows.length)
    ends = [plain_end, [bounds[0][0], np.exp(plain_end[0]) / median]]
    losses = [rows.value(end) for end in ends]
    # the direction alone is the better end exactly where the length is evidence
    assert int(np.argmin(losses)) == int(length_is_evidence)
    assert both[0][0] == pytest.approx(ends[int(length_is_evidence)])
    searched = [rows.value(minimise(rows, end, bounds)[0]) for end in ends]
    assert rows.value(fitted) <= min(searched) * (1 + 1e-6)
