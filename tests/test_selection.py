"""The selection's numbers against brute force: every engine's out-of-fold scores equal
refits without each fold, and the accuracy ``selection_`` reports equals the accuracy of
held-out refits of the whole model, merge included."""

import warnings

import numpy as np
import pytest
from scipy.sparse.linalg import aslinearoperator

from digraph_askls import AsKLSClassifier, NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.model_selection import class_splits
from digraph_askls.kernels import (AttributeKernel, LinkProfileKernel, WalkKernel,
                                   get_graph_kernel, restrict_kernel)
from digraph_askls.linalg import AsKLSSystem
from digraph_askls.models._checks import label_columns
from digraph_askls.models._decomposition import decompose
from digraph_askls.models._folds import coarsen_folds, make_folds
from digraph_askls.models.selection._folds import node_keys
from digraph_askls.models.selection._out_of_fold import (cholesky_out_of_fold,
                                                         solved_out_of_fold,
                                                         spectral_out_of_fold,
                                                         walk_out_of_fold)
from digraph_askls.models.selection._winner import merge_probabilities


def graph_problem(seed=0, n=150, n_classes=3, per_class=15):
    adjacency, labels = make_directed_sbm(n, n_classes, 6, p_in=0.6, random_state=seed)
    rng = np.random.default_rng(seed)
    features = 0.6 * rng.standard_normal((n, 5))
    features[np.arange(n), labels] += 1.0
    train = np.sort(np.concatenate([rng.choice(np.flatnonzero(labels == c), per_class,
                                               replace=False) for c in range(n_classes)]))
    return adjacency, labels, features, train


def dense_refit(K, Y, gamma):
    """The label-free system solved densely: intercepts (2, k), dual (2, m, k)."""
    system = AsKLSSystem(K, gamma=gamma)
    return system.split(np.linalg.solve(system.to_dense(), system.rhs(Y)))


def refit_scores(K, Y, gamma, folds, with_intercepts=True):
    """Out-of-fold view scores and the mean fold model by one dense solve per fold."""
    m, k = Y.shape
    scores, mean_dual, mean_intercepts = np.empty((2, m, k)), np.zeros((2, m, k)), 0.0
    for held in folds:
        fit = np.setdiff1d(np.arange(m), held)
        intercepts, dual = dense_refit(K[np.ix_(fit, fit)], Y[fit], gamma)
        shift = intercepts if with_intercepts else np.zeros_like(intercepts)
        scores[0, held] = K[np.ix_(held, fit)] @ dual[1] + shift[0]
        scores[1, held] = K[np.ix_(fit, held)].T @ dual[0] + shift[1]
        mean_dual[:, fit] += dual / len(folds)
        mean_intercepts = mean_intercepts + intercepts / len(folds)
    return scores, mean_intercepts, mean_dual


@pytest.mark.parametrize("engine", ["spectral dense", "spectral symmetric", "spectral maps",
                                    "walk", "solved", "cholesky", "tridiagonal"])
def test_out_of_fold_scores_of_every_engine_equal_refits_without_each_fold(engine,
                                                                           monkeypatch):
    adjacency, labels, features, train = graph_problem()
    codes = labels[train]
    Y = label_columns(codes)
    folds = make_folds(codes, 5, random_state=0)
    gamma = 0.01 if engine == "walk" else 0.5
    if engine == "walk":
        kernel = get_graph_kernel("ppr", adjacency, n_hops=6)           # float64 steps
        oof = walk_out_of_fold(restrict_kernel(kernel, train, train), codes, gamma, folds,
                               rtol=1e-12)
    elif engine == "solved":
        rng = np.random.default_rng(1)
        kernel = aslinearoperator(np.abs(rng.standard_normal((150, 150))) / 150)
        oof = solved_out_of_fold(restrict_kernel(kernel, train, train), codes, gamma, folds,
                                 solver="dense", rtol=1e-12)
    elif engine == "cholesky":
        # A symmetric positive semi-definite block: the LS-SVM of Proposition 2.
        profile = LinkProfileKernel().make(adjacency, features).to_dense()
        kernel = profile @ profile.T
        oof = cholesky_out_of_fold(kernel[np.ix_(train, train)], codes, gamma, folds)
        assert oof.result.solver == "cholesky"
    elif engine == "tridiagonal":
        # A symmetric, indefinite block decomposed for the selection's folds.
        profile = LinkProfileKernel().make(adjacency, features).to_dense()
        kernel = (profile + profile.T) / 2 - 1.2 * np.eye(150)
        import digraph_askls.models._decomposition as training
        monkeypatch.setattr(training, "TRIDIAGONAL_MIN_TRAIN", 10)    # 45 labelled nodes
        decomposition = decompose(kernel[np.ix_(train, train)], for_folds=True)
        assert type(decomposition).__name__ == "TridiagonalLSSVM"
        oof = spectral_out_of_fold(decomposition, codes, gamma, folds)
    elif engine == "spectral symmetric":
        # A symmetric, indefinite block: the decomposition's Q is P with signed columns.
        profile = LinkProfileKernel().make(adjacency, features).to_dense()
        kernel = (profile + profile.T) / 2 - 1.2 * np.eye(150)
        train_kernel = kernel[np.ix_(train, train)]
        assert np.linalg.eigvalsh(train_kernel).min() < 0
        oof = spectral_out_of_fold(decompose(train_kernel), codes, gamma, folds)
    else:
        recipe = (LinkProfileKernel() if engine == "spectral dense"
                  else AttributeKernel(hops=1, propagation="directed", dtype="float64"))
        kernel = recipe.make(adjacency, features)
        train_kernel = restrict_kernel(kernel, train, train)
        oof = spectral_out_of_fold(decompose(train_kernel), codes, gamma, folds)
    dense = (kernel if isinstance(kernel, np.ndarray) else kernel.to_dense()
             if hasattr(kernel, "to_dense") else kernel @ np.eye(150))
    K = dense[np.ix_(train, train)]
    scores, intercepts, dual = refit_scores(K, Y, gamma, folds, engine != "walk")
    np.testing.assert_allclose(oof.scores, scores, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(oof.mean_model[1], dual, rtol=1e-7, atol=1e-10)
    if engine != "walk":
        np.testing.assert_allclose(oof.mean_model[0], intercepts, rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(oof.full_model[1], dense_refit(K, Y, gamma)[1], rtol=1e-7,
                                   atol=1e-10)
    else:
        # Every node's scores under the mean fold model, read off the solve's products.
        np.testing.assert_allclose(oof.node_scores.source, dense[:, train] @ dual[1],
                                   rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("recipe, merge", [
    (AttributeKernel(hops=1, dtype="float64"), "average"),
    (AttributeKernel(hops=1, dtype="float64"), "joint"),
    (LinkProfileKernel(), "blend"),
    (WalkKernel(n_hops=6, dtype="float64"), "joint"),
])
def test_the_reported_accuracy_is_that_of_held_out_refits(recipe, merge):
    # Brute force: leave each fold out, refit AsK-LS on the rest by dense solves, score the
    # fold; then leave each fold out again, fit the merge on the other folds' scores and
    # predict the fold. The selection's accuracy must be exactly that of these predictions.
    adjacency, labels, features, train = graph_problem(seed=2)
    known = np.full(labels.size, -1)
    known[train] = labels[train]
    gamma = "auto" if isinstance(recipe, WalkKernel) else 0.3     # a walk: in one solve
    model = NodeClassifier(kernel=recipe, gamma=gamma, merge=merge, random_state=0)
    model.fit(adjacency, known, features=features)
    selection = model.selection_
    codes = labels[train]
    # The labelled nodes dealt into as many folds as a class has nodes (at most 20); a
    # walk kernel's folds joined into as many as its steps afford; the merges
    # cross-validated on those joined into at most 5.
    base = make_folds(codes, min(20, np.bincount(codes).min()), 0,
                      node_keys(adjacency, features)[train])
    folds = coarsen_folds(base, selection["n_folds"])
    K = recipe.make(adjacency, features)
    dense = K.to_dense() if hasattr(K, "to_dense") else K @ np.eye(labels.size)
    scores = refit_scores(dense[np.ix_(train, train)], label_columns(codes),
                          selection["gamma"], folds, not isinstance(recipe, WalkKernel))[0]
    predicted = np.empty(codes.size, dtype=int)
    for held in coarsen_folds(folds, 5):
        fit = np.setdiff1d(np.arange(codes.size), held)
        proba = merge_probabilities(merge, scores[:, fit], codes[fit], scores[:, held], 3)
        predicted[held] = np.argmax(proba, axis=1)
    assert selection["merge"] == merge
    assert selection["held_out_accuracy"] == pytest.approx(np.mean(predicted == codes),
                                                           abs=1e-12)
    assert selection["optimism"] == 0        # one configuration and one merge: no choice
    # Nothing chosen, nothing to correct: the estimate is the held-out accuracy, to the
    # bootstrap's noise.
    assert abs(selection["accuracy"] - selection["held_out_accuracy"]) < 0.02
    low, high = selection["accuracy_interval"]
    assert low <= selection["held_out_accuracy"] <= high


def test_a_near_constant_model_is_judged_at_chance_where_leave_one_out_stacking_is_fooled():
    # Features with no signal and a tiny gamma: the model is its intercepts. Leaving one
    # node out lowers its own class's intercept, so its leave-one-out scores point away
    # from its class, and a stacker reads that artefact. Out-of-fold scores do not carry
    # it: the reported accuracy stays near chance, as the test accuracy does.
    rng = np.random.default_rng(5)
    n, m = 600, 60
    labels = np.arange(n) % 3
    features = rng.standard_normal((n, 20))
    adjacency = make_directed_sbm(n, 3, 4, p_in=1 / 3, random_state=5)[0]
    train = np.sort(rng.choice(n, m, replace=False))
    test = np.setdiff1d(np.arange(n), train)
    K = AttributeKernel(hops=0).make(adjacency, features)
    block = restrict_kernel(K, train, train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fooled = AsKLSClassifier(gamma=1e-3, merge="joint_loo").fit(block, labels[train])
    loo_features = fooled.stacking_scores_.reshape(m, -1)
    claimed = np.mean(fooled.stackers_[0].predict(loo_features) == labels[train])
    known = np.full(n, -1)
    known[train] = labels[train]
    model = NodeClassifier(kernel=AttributeKernel(hops=0), gamma=1e-3, random_state=0).fit(
        adjacency, known, features=features)
    truth = np.mean(model.predict(test) == labels[test])
    assert claimed > 0.9                                     # the artefact
    assert truth < 0.45 and abs(model.selection_["accuracy"] - truth) < 0.15


def test_chameleon_with_twenty_labels_per_class_and_features(shared):
    graph = shared("chameleon")
    correct = []
    for seed, train, test in class_splits(graph.labels, 20, 2, random_state=0):
        known = np.full(graph.n_nodes, -1)
        known[train] = graph.labels[train]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = NodeClassifier(random_state=seed[1]).fit(graph.adjacency, known,
                                                             features=graph.features)
        correct.append(np.mean(model.predict(test) == graph.labels[test]))
        assert abs(model.selection_["accuracy"] - correct[-1]) < 0.12
    assert np.mean(correct) > 0.45


def test_a_singular_gamma_is_skipped_in_a_search_and_solved_damped_when_alone(caplog):
    # One-hot attributes: the training block is the identity, so gamma = 1 makes every
    # fold's system singular. Among several gammas it is left out (damped solves of every
    # fold would cost a Krylov solve each); asked for alone, every fold is solved by the
    # solver, damped where it must be.
    n = 90
    adjacency, labels = make_directed_sbm(n, 3, 4, p_in=0.6, random_state=0)
    known = np.full(n, -1)
    known[::2] = labels[::2]
    kernel = AttributeKernel(hops=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        search = NodeClassifier(kernel=kernel, gamma=[0.1, 1.0], random_state=0).fit(
            adjacency, known, features=np.eye(n))
    assert list(search.cv_results_["gamma"]) == [0.1]
    assert search.selection_["gamma"] == 0.1
    with warnings.catch_warnings(), caplog.at_level("INFO", logger="digraph_askls"):
        warnings.simplefilter("ignore")
        alone = NodeClassifier(kernel=kernel, gamma=1.0, random_state=0).fit(
            adjacency, known, features=np.eye(n))
    messages = [record.getMessage() for record in caplog.records]   # -v logs them all
    assert any("solving each fold damped" in message for message in messages)
    assert list(alone.cv_results_["gamma"]) == [1.0]
    assert alone.selection_["gamma"] == 1.0 and alone.selection_["accuracy"] > 0
    assert np.isfinite(alone.decision_function(np.arange(n))).all()


def test_a_winner_singular_on_every_labelled_node_is_solved_damped(monkeypatch):
    """Ranked on a sample, the winning gamma can make the system of all labelled nodes
    singular (film with 80 % labelled, gamma 0.3): its folds are then solved damped
    instead of the fit failing."""
    from digraph_askls.datasets import make_directed_sbm
    from digraph_askls.kernels import AttributeKernel
    from digraph_askls.linalg import SingularSystemError
    from digraph_askls.models import NodeClassifier
    from digraph_askls.models.selection import SelectionPolicy
    import digraph_askls.models.selection._engines as engines

    adjacency, labels = make_directed_sbm(240, 3, 6, p_in=0.6, random_state=0)
    rng = np.random.default_rng(0)
    features = np.c_[np.eye(3)[labels] + rng.normal(0, 1.0, (240, 3)), rng.random((240, 2))]
    known = np.where(rng.random(240) < 0.6, labels, -1)
    calls = []
    original = engines.spectral_out_of_fold

    def singular_on_all(decomposition, codes, gamma, folds):
        calls.append(codes.size)
        if codes.size == (known >= 0).sum():
            raise SingularSystemError("singular for this gamma (planted)")
        return original(decomposition, codes, gamma, folds)

    monkeypatch.setattr(engines, "spectral_out_of_fold", singular_on_all)
    # An attribute kernel has thin maps: ranked on 60 nodes, decomposed on all 148.
    model = NodeClassifier(random_state=0, kernel=AttributeKernel(),
                           policy=SelectionPolicy(spectral_max_train=60))
    model.fit(adjacency, known, features=features)
    assert calls[-1] == (known >= 0).sum() == 148 and max(calls[:-1]) == 60
    assert model.selection_["engine"] == "solved"
    test = known < 0
    assert np.mean(model.predict(np.flatnonzero(test)) == labels[test]) > 0.6


@pytest.fixture(scope="module")
def race_problem():
    """A graph with 70 % of its 240 nodes labelled (more than twice a racing sample of 60),
    and the exhaustive selection on it: ``(adjacency, labels, features, known, full)``."""
    from digraph_askls.models.selection import SelectionPolicy

    adjacency, labels, features, _ = graph_problem(seed=3, n=240)
    known = np.where(np.random.default_rng(3).random(240) < 0.7, labels, -1)
    full = NodeClassifier(random_state=0, policy=SelectionPolicy(
        racing_sample=None, few_labels_per_class=10)).fit(adjacency, known, features=features)
    return adjacency, labels, features, known, full


def test_the_race_scores_its_finalists_on_every_labelled_node_as_the_full_ranking_does(
        race_problem):
    """Ranked on a sample, the candidates the sample cannot tell apart are scored again on
    every labelled node: each finalist's score there is the score the exhaustive ranking
    gives the same (kernel, gamma), and the winner is the best finalist."""
    from digraph_askls.models.selection import SelectionPolicy

    adjacency, labels, features, known, full = race_problem
    m = int((known >= 0).sum())
    raced = NodeClassifier(random_state=0, policy=SelectionPolicy(
        racing_sample=60, racing_keep=2, few_labels_per_class=10)).fit(
        adjacency, known, features=features)
    rows, reference = raced.cv_results_, full.cv_results_
    assert m > 120
    assert set(rows["scored_on"]) == {60, m}
    finalists = [i for i, size in enumerate(rows["scored_on"]) if size == m]
    assert 1 <= len(finalists) <= 2
    assert all(size == m for size in reference["scored_on"])
    for i in finalists:
        j = next(j for j in range(len(reference["kernel"]))
                 if repr(reference["kernel"][j]) == repr(rows["kernel"][i])
                 and reference["gamma"][j] == rows["gamma"][i])
        assert rows["mean_test_score"][i] == pytest.approx(reference["mean_test_score"][j],
                                                           abs=1e-9)
    best = max(finalists, key=lambda i: rows["mean_test_score"][i])
    assert raced.selection_["gamma"] == rows["gamma"][best]
    assert repr(raced.selection_["kernel"]) == repr(rows["kernel"][best])
    low, high = raced.selection_["accuracy_interval"]
    assert low <= raced.selection_["accuracy"] <= high
    # The estimate resamples the finalists' hits on every labelled node, as the final
    # choice was made: close to the exhaustive selection's, which chose the same way.
    assert abs(raced.selection_["accuracy"] - full.selection_["accuracy"]) < 0.03


def test_with_one_finalist_the_sample_chooses_the_kernel_and_every_labelled_node_its_gamma(
        race_problem):
    """``racing_keep=1``: the kernel that ranks best on the sample alone is scored again on
    every labelled node, at each gamma of its grid, with the scores the exhaustive ranking
    gives it there; the best of those gammas wins."""
    from digraph_askls.models.selection import SelectionPolicy

    adjacency, labels, features, known, full = race_problem
    m = int((known >= 0).sum())
    raced = NodeClassifier(random_state=0, policy=SelectionPolicy(
        racing_sample=60, racing_keep=1, few_labels_per_class=10)).fit(
        adjacency, known, features=features)
    rows, reference = raced.cv_results_, full.cv_results_
    finalist, = [i for i, size in enumerate(rows["scored_on"]) if size == m]
    kernel = repr(rows["kernel"][finalist])
    # The finalist's kernel is the one whose best gamma led on the sample.
    on_sample = [i for i, size in enumerate(rows["scored_on"]) if size == 60]
    leader = max(on_sample, key=lambda i: rows["mean_test_score"][i])
    assert kernel == repr(rows["kernel"][leader])
    # Its gamma is the best of its grid on every labelled node, as the exhaustive
    # ranking scores them.
    own = [j for j in range(len(reference["kernel"]))
           if repr(reference["kernel"][j]) == kernel]
    assert len(own) > 1
    best = max(own, key=lambda j: reference["mean_test_score"][j])
    assert rows["gamma"][finalist] == reference["gamma"][best]
    assert rows["mean_test_score"][finalist] == pytest.approx(
        reference["mean_test_score"][best], abs=1e-9)
    assert repr(raced.selection_["kernel"]) == kernel
    assert raced.selection_["gamma"] == reference["gamma"][best]
    test = known < 0
    assert np.mean(raced.predict(np.flatnonzero(test)) == labels[test]) > 0.6


def test_above_the_decomposition_limit_the_race_scores_its_finalists_on_a_second_sample(
        race_problem):
    """With more labelled nodes than ``spectral_max_train`` the race's second round scores
    survivors without thin maps (a link-profile kernel, one feature per node) on a
    stratified sample of that many, with the folds the exhaustive ranking gives that
    sample: a finalist's score there is the exhaustive ranking's, and the model, whose
    winner is then scored on every labelled node, predicts."""
    from digraph_askls.models.selection import SelectionPolicy

    adjacency, labels, features, known, _ = race_problem
    m = int((known >= 0).sum())
    policy = dict(spectral_max_train=100, few_labels_per_class=10)
    raced = NodeClassifier(random_state=0, kernel=[LinkProfileKernel()], policy=SelectionPolicy(
        racing_sample=40, racing_keep=2, **policy)).fit(adjacency, known)
    full = NodeClassifier(random_state=0, kernel=[LinkProfileKernel()], policy=SelectionPolicy(
        racing_sample=None, **policy)).fit(adjacency, known)
    rows, reference = raced.cv_results_, full.cv_results_
    assert m > 100
    assert SelectionPolicy(racing_sample=40, **policy).races(240, m)
    finalists = [i for i, size in enumerate(rows["scored_on"]) if size == 100]
    assert 1 <= len(finalists) <= 2
    assert set(rows["scored_on"]) == {40, 100}
    compared = 0
    for i in finalists:
        if rows["engine"][i] == "walk":      # a walk kernel scores every node anyway
            continue
        j = next(j for j in range(len(reference["kernel"]))
                 if repr(reference["kernel"][j]) == repr(rows["kernel"][i])
                 and reference["gamma"][j] == rows["gamma"][i])
        assert reference["scored_on"][j] == 100
        assert rows["mean_test_score"][i] == pytest.approx(reference["mean_test_score"][j],
                                                           abs=1e-9)
        compared += 1
    assert compared >= 1
    best = max(finalists, key=lambda i: rows["mean_test_score"][i])
    assert repr(raced.selection_["kernel"]) == repr(rows["kernel"][best])
    low, high = raced.selection_["accuracy_interval"]
    assert low <= raced.selection_["accuracy"] <= high
    test = known < 0
    assert np.mean(raced.predict(np.flatnonzero(test)) == labels[test]) > 0.6


def test_finalists_with_thin_maps_are_scored_on_every_labelled_node_above_the_limit(
        race_problem, monkeypatch):
    """Above ``spectral_max_train`` labelled nodes, finalists whose explicit maps are thin
    (attribute kernels on 5 attributes: 5 and 15 features) skip the second sample: their
    decomposition grows with the nodes alone, so they are scored on every labelled node
    at once, and the selection is the one made without the limit. No winner is scored
    again."""
    from digraph_askls.models.selection import SelectionPolicy
    import digraph_askls.models.selection._select as select

    adjacency, labels, features, known, _ = race_problem
    m = int((known >= 0).sum())
    again = []

    def scored_again(*args, **kwargs):
        again.append(args)
        raise AssertionError("the winner was scored again")

    monkeypatch.setattr(select, "winner_on_all", scored_again)
    kernels = [AttributeKernel(), AttributeKernel(hops=2, self_weight=3.0)]
    fits = [NodeClassifier(random_state=0, kernel=kernels, policy=SelectionPolicy(
        racing_sample=40, racing_keep=2, spectral_max_train=limit,
        few_labels_per_class=10)).fit(adjacency, known, features=features)
        for limit in (100, 5000)]
    limited, unlimited = (fit.cv_results_ for fit in fits)
    assert m > 100 and not again
    finalists = [i for i, size in enumerate(limited["scored_on"]) if size != 40]
    assert finalists and all(limited["scored_on"][i] == m for i in finalists)
    assert limited["scored_on"] == unlimited["scored_on"]
    np.testing.assert_array_equal(limited["mean_test_score"], unlimited["mean_test_score"])
    assert fits[0].selection_ == fits[1].selection_
    np.testing.assert_array_equal(fits[0].decision_function(np.flatnonzero(known < 0)),
                                  fits[1].decision_function(np.flatnonzero(known < 0)))


def test_explicit_maps_are_reduced_where_that_costs_less_than_the_block(monkeypatch):
    """``decompose`` takes the thin SVD of the maps up to d = m / 2 for a symmetric block
    that the folds reduce to tridiagonal form (then the block is cheaper), up to 3 m / 4
    otherwise, and beyond where the block's decomposition would not fit in memory; both
    routes solve the same system."""
    from digraph_askls._memory import ENVIRONMENT_VARIABLE
    from digraph_askls.kernels import FactoredKernel
    from digraph_askls.linalg import SpectralAsKLS, TridiagonalLSSVM
    from digraph_askls.models._decomposition import decompose, thin_route

    monkeypatch.setenv(ENVIRONMENT_VARIABLE, str(2**40))
    assert thin_route(1000, 500, symmetric=True, for_folds=True)
    assert not thin_route(1000, 501, symmetric=True, for_folds=True)
    assert thin_route(1000, 700, symmetric=True) and thin_route(1000, 700)
    assert not thin_route(1000, 760) and not thin_route(1000, 1000)
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, str(3 * 8 * 1000 ** 2 - 1))
    assert thin_route(1000, 760) and thin_route(1000, 501, symmetric=True, for_folds=True)
    assert not thin_route(1000, 1000)                 # no thinner than the block
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, str(2**40))
    rng = np.random.default_rng(0)
    Y = np.where(rng.random((450, 2)) < 0.5, 1.0, -1.0)
    for d, expected in ((200, SpectralAsKLS), (300, TridiagonalLSSVM)):
        U = rng.normal(size=(450, d))
        decomposition = decompose(FactoredKernel(U), for_folds=True)
        assert type(decomposition) is expected
        reference = SpectralAsKLS(U @ U.T).solve(Y, 0.01)
        for got, want in zip(decomposition.solve(Y, 0.01), reference):
            np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)
    asymmetric = FactoredKernel(U, U + rng.normal(size=U.shape))    # d = 300 < 3 m / 4
    assert type(decompose(asymmetric, for_folds=True)) is SpectralAsKLS


def test_a_winner_at_one_gamma_is_scored_by_a_factorisation_where_its_block_is_symmetric():
    """On every labelled node at its one gamma, a symmetric positive definite block is
    scored by one Cholesky factorisation (:func:`cholesky_out_of_fold`), with the
    numbers the decomposition gives; an asymmetric block, or a symmetric one that is not
    positive definite at that gamma, is decomposed as before."""
    from digraph_askls.models.selection import FitSettings, SelectionPolicy
    from digraph_askls.models.selection._engines import on_every_node

    adjacency, labels, features, train = graph_problem()
    codes = labels[train]
    folds = make_folds(codes, 5, random_state=0)
    profile = LinkProfileKernel().make(adjacency, features).to_dense()
    symmetric = profile @ profile.T
    indefinite = -symmetric            # K + I/gamma has eigenvalues of both signs
    asymmetric = symmetric + 0.05 * np.random.default_rng(0).random((150, 150))
    settings, policy = FitSettings(), SelectionPolicy()
    for kernel, gamma, solver in [(symmetric, 0.5, "cholesky"), (asymmetric, 0.5, "spectral"),
                                  (indefinite, 5.0, "spectral")]:
        (scored_gamma, oof, engine), = on_every_node(kernel, (gamma,), gamma, train, codes,
                                                     folds, settings, policy)
        assert scored_gamma == gamma and engine is None
        assert oof.result.solver == solver
        reference = spectral_out_of_fold(decompose(kernel[np.ix_(train, train)]), codes,
                                         gamma, folds)
        np.testing.assert_allclose(oof.scores, reference.scores, rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(oof.mean_model[1], reference.mean_model[1], rtol=1e-9,
                                   atol=1e-11)
        np.testing.assert_allclose(oof.full_model[1], reference.full_model[1], rtol=1e-9,
                                   atol=1e-11)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        cholesky_out_of_fold(indefinite[np.ix_(train, train)], codes, 5.0, folds)
