"""The selection's accuracy estimate: bootstrap bias-corrected cross-validation."""

import warnings

import numpy as np
import pytest

import digraph_askls.models.selection._select as select_module
from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.models.selection._estimate import (bootstrap_bias_corrected,
                                                      estimate_rng, selection_estimate)


def test_pure_noise_configurations_are_estimated_at_chance():
    # Sixty configurations that guess among three classes at random, judged on 15 nodes:
    # the best held-out accuracy is far above chance, the choice is not.
    rng = np.random.default_rng(0)
    raw, corrected = [], []
    for _ in range(20):
        hits = rng.random((60, 15)) < 1 / 3
        raw.append(hits.mean(axis=1).max())
        corrected.append(bootstrap_bias_corrected(hits, rng)[0])
    assert np.mean(raw) > 0.55
    assert abs(np.mean(corrected) - 1 / 3) < 0.05


def test_one_configuration_is_not_corrected():
    rng = np.random.default_rng(1)
    hits = rng.random((1, 40)) < 0.7
    estimate, (low, high) = bootstrap_bias_corrected(hits, rng)
    assert abs(estimate - hits.mean()) < 0.02 and low <= hits.mean() <= high


def test_a_clear_winner_is_barely_corrected():
    # One configuration right on 90 % of the nodes, twenty near chance: choosing costs
    # little, as the winner wins on almost every resample.
    rng = np.random.default_rng(2)
    hits = np.vstack([rng.random((1, 60)) < 0.9, rng.random((20, 60)) < 0.4])
    estimate = bootstrap_bias_corrected(hits, rng)[0]
    assert hits[0].mean() - 0.03 < estimate <= hits[0].mean() + 0.01


def test_on_a_ranking_sample_the_correction_moves_to_every_node():
    # The merges were compared on 50 nodes, the candidates ranked on a sample of 20:
    # what the choice costs there is subtracted from the chosen merge's accuracy on all.
    rng = np.random.default_rng(3)
    ranked = np.sort(rng.choice(50, 20, replace=False))
    chosen = rng.random(50) < 0.8
    merges = np.vstack([rng.random((5, 50)) < 0.5, chosen])
    on_sample, _ = selection_estimate(np.zeros((0, 20), bool), np.zeros(0, bool), merges,
                                      chosen, ranked, np.random.default_rng(4))
    alone, _ = bootstrap_bias_corrected(merges[:, ranked], np.random.default_rng(4))
    assert on_sample == pytest.approx(alone + chosen.mean() - chosen[ranked].mean())


def test_the_merges_count_only_where_the_winner_is_chosen():
    # The winner's merges re-read its scores, which won on every node: where a resample
    # chooses another candidate, that candidate's own hits are scored, so merges that
    # are right everywhere lift the estimate only as often as the winner is chosen.
    rng = np.random.default_rng(6)
    candidates = rng.random((40, 15)) < 0.5
    winner_rows = np.zeros(40, bool)
    winner_rows[0] = True
    merges = np.ones((3, 15), bool)
    estimate, _ = selection_estimate(candidates, winner_rows, merges, merges[0],
                                     np.arange(15), np.random.default_rng(7))
    pooled, _ = bootstrap_bias_corrected(np.vstack([candidates, merges]),
                                         np.random.default_rng(7))
    assert pooled > 0.99 and estimate < 0.7


def test_the_generator_follows_the_random_state_and_leaves_it_as_it_was():
    state = np.random.RandomState(5)
    before = state.get_state()[1].copy()
    a = estimate_rng(state).random(3)
    assert (state.get_state()[1] == before).all()
    assert np.array_equal(a, estimate_rng(np.random.RandomState(5)).random(3))
    assert np.array_equal(estimate_rng(7).random(3), estimate_rng(7).random(3))
    assert not np.array_equal(estimate_rng(7).random(3), estimate_rng(8).random(3))
    assert np.array_equal(estimate_rng(None).random(3), estimate_rng(None).random(3))


def _noise_problem(seed, per_class=5):
    """A digraph whose labels have nothing to do with its links or attributes."""
    rng = np.random.default_rng(seed)
    n = 240
    adjacency = make_directed_sbm(n, 3, 6.0, p_in=1 / 3, random_state=seed)[0]
    labels = rng.integers(0, 3, n)
    features = rng.standard_normal((n, 8))
    known = np.full(n, -1)
    for label in range(3):
        members = np.flatnonzero(labels == label)
        known[rng.choice(members, per_class, replace=False)] = label
    return adjacency, labels, known, features


def _fit(adjacency, known, features, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return NodeClassifier(**params).fit(adjacency, known, features=features)


def test_labels_without_signal_are_estimated_near_chance_by_the_default():
    # The default ranks every kernel and gamma on 15 labelled nodes of random classes:
    # its raw held-out accuracy flatters the choice, its estimate does not.
    raw, estimates, test = [], [], []
    for seed in range(4):
        adjacency, labels, known, features = _noise_problem(seed)
        model = _fit(adjacency, known, features, random_state=seed)
        selection = model.selection_
        unknown = np.flatnonzero(known < 0)
        raw.append(selection["held_out_accuracy"])
        estimates.append(selection["accuracy"])
        test.append(np.mean(model.predict(unknown) == labels[unknown]))
        low, high = selection["accuracy_interval"]
        assert 0 <= low <= selection["accuracy"] <= high <= 1
        assert selection["accuracy_reliable"] is False     # 15 nodes cannot say
    assert np.mean(raw) - np.mean(test) > 0.1
    assert abs(np.mean(estimates) - np.mean(test)) < 0.08
    assert np.mean(estimates) < np.mean(raw) - 0.08


def test_the_estimate_is_reproducible_and_changes_no_choice(monkeypatch):
    adjacency, labels, known, features = _noise_problem(11, per_class=12)
    first = _fit(adjacency, known, features, random_state=3)
    again = _fit(adjacency, known, features, random_state=3)
    assert first.selection_["accuracy"] == again.selection_["accuracy"]
    assert first.selection_["accuracy_interval"] == again.selection_["accuracy_interval"]
    # Whatever the estimate says, the fit chooses and predicts the same.
    monkeypatch.setattr(select_module, "selection_estimate",
                        lambda *args, **kwargs: (0.0, (0.0, 0.0)))
    blind = _fit(adjacency, known, features, random_state=3)
    assert blind.selection_["accuracy"] == 0.0
    for key in ("kernel", "gamma", "merge", "held_out_accuracy", "optimism", "score"):
        assert repr(blind.selection_[key]) == repr(first.selection_[key])
    np.testing.assert_array_equal(blind.predict(), first.predict())
    np.testing.assert_array_equal(blind.predict_proba(), first.predict_proba())
