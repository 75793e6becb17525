"""The merges' calibration: the softmax temperature of the mean view."""

import numpy as np
import pytest

from digraph_askls.models import _stackers
from digraph_askls.models._stackers import TEMPERATURES, fit_temperature, softmax_rows


def _one_at_a_time(logits, codes):
    """The temperature of least log-loss, one softmax per temperature of the grid."""
    scale = max(float(logits.std()), 1e-12)
    rows = np.arange(codes.size)
    losses = [-np.mean(np.log(softmax_rows(t * logits / scale)[rows, codes] + 1e-300))
              for t in TEMPERATURES]
    return float(TEMPERATURES[int(np.argmin(losses))]), scale


@pytest.mark.parametrize("block", [1 << 22, 1000, 1])
def test_temperatures_evaluated_together_choose_as_one_at_a_time(monkeypatch, block):
    monkeypatch.setattr(_stackers, "_TEMPERATURE_BLOCK", block)
    rng = np.random.default_rng(3)
    chosen = set()
    for trial in range(60):
        m, k = int(rng.integers(1, 800)), int(rng.integers(2, 14))
        logits = rng.normal(size=(m, k)) * rng.uniform(1e-3, 60.0)
        if trial % 3 == 0:
            logits = np.round(logits, 1)        # ties within rows
        codes = rng.integers(0, k, m)
        # the true class a little ahead, so that the loss has an interior minimum
        logits[np.arange(m), codes] += rng.uniform(0, 3) * logits.std()
        got = fit_temperature(logits, codes)
        assert got == _one_at_a_time(logits, codes)
        chosen.add(got[0])
    assert len(chosen) > 3          # the grid is really searched, not one end of it


def test_temperature_follows_how_well_the_logits_separate_the_classes():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, 500)
    noise = rng.normal(size=(500, 4))
    sharp, blurred = noise.copy(), noise.copy()
    sharp[np.arange(500), codes] += 6.0
    blurred[np.arange(500), codes] += 0.3
    assert fit_temperature(sharp, codes)[0] > fit_temperature(blurred, codes)[0]


def test_joint_and_blended_merges_share_one_joint_stacker_per_fold(monkeypatch):
    from digraph_askls.models._merge import Merge
    from digraph_askls.models.selection import _winner

    rng = np.random.default_rng(4)
    m, k = 120, 3
    codes = np.arange(m) % k
    scores = rng.normal(size=(2, m, k))
    scores[:, np.arange(m), codes] += 1.0
    folds = np.array_split(rng.permutation(m), 5)
    merges = (Merge("joint"), Merge("blend"), Merge("mean"))
    alone = {merge: _winner.merge_estimates(scores, codes, folds, [merge])[merge]
             for merge in merges}

    fits = []
    original = _stackers.joint_logistic_regression

    def counted():
        fits.append(1)
        return original()

    from digraph_askls.models import _mergers

    monkeypatch.setattr(_mergers, "joint_logistic_regression", counted)
    together = _winner.merge_estimates(scores, codes, folds, merges)
    assert len(fits) == len(folds)              # once per fold, not once per merge
    for merge in merges:
        score, accuracy, proba = together[merge]
        assert (score, accuracy) == alone[merge][:2]
        np.testing.assert_array_equal(proba, alone[merge][2])


def test_stacker_on_views_that_score_alike_fits_quietly_and_as_before():
    """Two identical views make the Newton step's Hessian singular: scikit-learn finishes
    with L-BFGS. The stacker says nothing of it, and its fit is the pipeline's own."""
    import warnings

    from scipy.linalg import LinAlgWarning

    from digraph_askls.models._mergers import StackMerger

    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, 90)
    scores = rng.normal(size=(90, 3)) + 1.5 * np.eye(3)[codes]
    features = np.stack([scores, scores], axis=1)            # (m, 2 views, k), alike
    with warnings.catch_warnings(record=True) as raw:
        warnings.simplefilter("always")
        expected = [_stackers.unpenalized_logistic_regression().fit(
            features[:, :, c], (codes == c).astype(int)) for c in range(3)]
    assert any(issubclass(w.category, LinAlgWarning) for w in raw)   # the case is real
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        merger = StackMerger().fit(features, codes)
    assert not [w for w in caught if issubclass(w.category, LinAlgWarning)]
    for model, reference in zip(merger.models_, expected):
        np.testing.assert_array_equal(model[-1].coef_, reference[-1].coef_)
    assert np.mean(merger.predict_proba(features).argmax(axis=1) == codes) > 0.6
