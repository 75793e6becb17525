"""One solve that scores every node: against a dense solve, a tight solve and the views."""

import warnings

import numpy as np
import pytest

from digraph_askls import AsKLSClassifier, KernelViews, NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.kernels import WalkKernel, get_graph_kernel, restrict_kernel
from digraph_askls.linalg import AsKLSSystem, solve_system
from digraph_askls.linalg._scores import NotPositiveDefinite, solve_with_scores
from digraph_askls.models.selection import DEFAULT_POLICY, SelectionPolicy


@pytest.fixture(scope="module")
def problem():
    adjacency, labels = make_directed_sbm(600, 3, 8, p_in=0.6, random_state=3)
    known = labels.copy()
    known[np.random.default_rng(0).permutation(600)[:240]] = -1
    return adjacency, labels, known


@pytest.mark.parametrize("gamma", [1e-5, 0.01, 0.05])
def test_solution_and_scores_of_every_sample_match_a_dense_solve(problem, gamma):
    adjacency, _, known = problem
    K = get_graph_kernel("ppr", adjacency, n_hops=6)        # float64 hops
    dense = K.to_dense()
    rows = np.flatnonzero(known >= 0)
    Y = np.where(known[rows, None] == np.arange(3), 1.0, -1.0)

    def products(B, A):
        return K.pair_hops(B, A, rows=rows)

    solution = solve_with_scores(products, rows, 600, Y, gamma, rtol=1e-12)
    reference = solve_system(AsKLSSystem(dense[np.ix_(rows, rows)], gamma), Y,
                             solver="dense", rtol=1e-12)
    np.testing.assert_allclose(solution.result.x, reference.x, rtol=1e-8, atol=1e-12)
    b = reference.x[2 + rows.size:]
    a = reference.x[2:2 + rows.size]
    np.testing.assert_allclose(solution.source, dense[:, rows] @ b, rtol=1e-8, atol=1e-14)
    np.testing.assert_allclose(solution.target, dense[rows, :].T @ a, rtol=1e-8, atol=1e-14)
    assert solution.result.residual_norm.max() <= 1e-12


def test_an_indefinite_block_is_reported(problem):
    adjacency, _, known = problem
    K = get_graph_kernel("ppr", adjacency, n_hops=6)
    rows = np.flatnonzero(known >= 0)
    Y = np.where(known[rows, None] == np.arange(3), 1.0, -1.0)
    with pytest.raises(NotPositiveDefinite):
        solve_with_scores(lambda B, A: K.pair_hops(B, A, rows=rows), rows, 600, Y, 10.0)


def test_folds_in_one_solve_predict_as_tight_fold_solves(problem):
    # A walk kernel scored by its folds in one solve: the folds share the walk's steps
    # and stop at rtol 1e-4; each fold solved on its own to 1e-13, stacked the same way,
    # predicts the same.
    from digraph_askls.models._folds import make_folds
    from digraph_askls.models.selection._folds import node_keys
    from digraph_askls.models._stackers import joint_logistic_regression

    adjacency, labels, known = problem
    fast = NodeClassifier(kernel=WalkKernel(), merge="joint", random_state=0).fit(adjacency,
                                                                                 known)
    assert fast.selection_["engine"] == "walk" and fast._node_scores is not None
    K = fast.kernel_
    train = fast.train_nodes_
    codes = known[train]
    Y = np.where(codes[:, None] == np.arange(3), 1.0, -1.0)
    features = np.empty((train.size, 2, 3))
    scores = np.zeros((2, 600, 3))
    folds = make_folds(codes, fast.selection_["n_folds"], 0, node_keys(adjacency)[train])
    for valid in folds:
        rows = train[np.setdiff1d(np.arange(train.size), valid)]
        alone = solve_with_scores(lambda B, A: K.pair_hops(B, A, rows=rows), rows, 600,
                                  Y[np.setdiff1d(np.arange(train.size), valid)],
                                  fast.selection_["gamma"], rtol=1e-13)
        features[valid] = np.stack([alone.source, alone.target], axis=1)[train[valid]]
        scores += np.stack([alone.source, alone.target]) / len(folds)
    stacker = joint_logistic_regression().fit(features.reshape(train.size, -1), codes)
    test = np.flatnonzero(known < 0)
    tight = stacker.predict(scores[:, test].transpose(1, 0, 2).reshape(test.size, -1))
    np.testing.assert_array_equal(fast.predict(test), tight)
    assert fast.estimator_.n_iter_ <= 2 and np.mean(tight == labels[test]) > 0.8


@pytest.mark.parametrize("params", [dict(preset="large")])
def test_predictions_equal_those_of_a_tight_solve(problem, params):
    # The defaults stop at rtol = 1e-4 (one product with the kernel on this graph) and
    # read every node's scores off the solver's products; a tight solve of the same
    # model, predicting through the kernel's views, gives the same predictions.
    adjacency, labels, known = problem
    fast = NodeClassifier(random_state=0, **params).fit(adjacency, known)
    assert fast._node_scores is not None
    gamma, merge = fast.selection_["gamma"], fast.estimator_.merge
    train = fast.train_nodes_
    tight = AsKLSClassifier(kernel="precomputed", gamma=gamma, merge=merge, tol=1e-13,
                            random_state=0)
    tight.fit(restrict_kernel(fast.kernel_, train, train), known[train])
    test = np.flatnonzero(known < 0)
    views = KernelViews(restrict_kernel(fast.kernel_, test, train),
                        restrict_kernel(fast.kernel_, train, test))
    np.testing.assert_array_equal(fast.predict(test), tight.predict(views))
    assert fast.estimator_.n_iter_ <= 2 and np.mean(fast.predict(test) == labels[test]) > 0.8


def test_kept_scores_equal_the_views(problem):
    adjacency, _, known = problem
    clf = NodeClassifier(kernel=WalkKernel(), merge="joint", random_state=0).fit(adjacency,
                                                                                known)
    assert clf.selection_["engine"] == "walk" and clf.estimator_.merge == "joint"
    nodes = np.arange(0, 600, 7)
    views = clf._model().views(nodes)            # the kernel blocks of the nodes
    np.testing.assert_allclose(clf.decision_function(nodes),
                               clf.estimator_.decision_function(views), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(clf.predict(nodes), clf.estimator_.predict(views))
    both = clf.decision_function(nodes, view="both")
    intercepts, dual = clf.estimator_._coefficient_blocks()
    slow = clf.estimator_._view_scores(views, intercepts, dual)
    np.testing.assert_allclose(both["source"], slow[0], rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(both["target"], slow[1], rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(clf.predict_proba(nodes).sum(axis=1), 1.0)


def test_default_fits_the_walk_kernel_alone_on_many_labelled_nodes(problem):
    adjacency, labels, known = problem
    policy = SelectionPolicy(spectral_max_train=100)
    clf = NodeClassifier(random_state=0, verbose=False, policy=policy).fit(adjacency, known)
    selection = dict(clf.selection_)
    score, accuracy = selection.pop("score"), selection.pop("accuracy")
    held_out = selection.pop("held_out_accuracy")
    low, high = selection.pop("accuracy_interval")
    selection.pop("accuracy_reliable")
    assert selection.pop("optimism") == 0               # one candidate, one merge
    assert abs(accuracy - held_out) < 0.02 and low <= held_out <= high    # nothing chosen
    assert 2 <= selection.pop("n_folds") <= 20       # as many as the walk's steps afford
    for key in ("held_out_score", "score_estimate", "score_interval", "score_reliable"):
        selection.pop(key)                              # the accuracy's, under accuracy
    assert selection == dict(kernel=WalkKernel(n_hops=10), gamma=DEFAULT_POLICY.walk_gamma,
                             engine="walk", merge="joint", n_valid=None, scoring="accuracy",
                             weights_screen=None, label_groups=None)
    test = np.flatnonzero(known < 0)
    correct = np.mean(clf.predict(test) == labels[test])
    assert correct > 0.9 and abs(accuracy - correct) < 0.05 and 0.9 < score < 1.0


def test_progress_of_the_walk_steps(problem, capsys):
    adjacency, _, known = problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        NodeClassifier(kernel=WalkKernel(n_hops=4), verbose=True).fit(adjacency, known)
    assert "AsK-LS walk steps" in capsys.readouterr().err


def test_folds_in_one_solve_equal_each_fold_alone(problem):
    from digraph_askls.models._folds import make_folds
    from digraph_askls.models.selection._out_of_fold import walk_out_of_fold

    adjacency, _, known = problem
    K = get_graph_kernel("ppr", adjacency, n_hops=5)
    train = np.flatnonzero(known >= 0)
    codes = known[train]
    folds = make_folds(codes, 3, 0)
    oof = walk_out_of_fold(restrict_kernel(K, train, train), codes, 0.01, folds, rtol=1e-12)
    Y = np.where(codes[:, None] == np.arange(3), 1.0, -1.0)
    mean_source = np.zeros((600, 3))
    for valid in folds:
        fit = np.setdiff1d(np.arange(train.size), valid)
        rows = train[fit]
        alone = solve_with_scores(lambda B, A: K.pair_hops(B, A, rows=rows), rows, 600,
                                  Y[fit], 0.01, rtol=1e-12)
        np.testing.assert_allclose(oof.scores[0, valid], alone.source[train[valid]],
                                   rtol=1e-9, atol=1e-14)
        np.testing.assert_allclose(oof.scores[1, valid], alone.target[train[valid]],
                                   rtol=1e-9, atol=1e-14)
        mean_source += alone.source / 3
    np.testing.assert_allclose(oof.node_scores.source, mean_source, rtol=1e-9, atol=1e-14)


@pytest.mark.parametrize("noise,winner", [(4.0, WalkKernel), (0.3, None)])
def test_many_labelled_nodes_with_features_rank_on_a_sample(problem, monkeypatch, noise,
                                                            winner):
    from digraph_askls.kernels import AttributeKernel, SumKernel
    from digraph_askls.models.selection import _engines
    from digraph_askls.models.selection._folds import ranking_sample

    adjacency, labels, known = problem
    rng = np.random.default_rng(4)
    features = noise * rng.standard_normal((600, 6)) + np.eye(3)[labels].repeat(2, axis=1)
    policy = SelectionPolicy(spectral_max_train=120)
    solves = []
    original = _engines.walk_out_of_fold
    monkeypatch.setattr(_engines, "walk_out_of_fold",
                        lambda *args, **kwargs: solves.append(1) or original(*args, **kwargs))
    train = np.flatnonzero(known >= 0)
    sample = ranking_sample(known[train], 0, policy.spectral_max_train)
    assert sample.size == 120 and np.bincount(known[train][sample]).min() >= 35
    clf = NodeClassifier(random_state=0, policy=policy).fit(adjacency, known,
                                                            features=features)
    engines = dict(zip(map(type, clf.cv_results_["kernel"]), clf.cv_results_["engine"]))
    assert engines[WalkKernel] == "walk" and clf.cv_results_["gamma"][-1] == \
        DEFAULT_POLICY.walk_gamma
    chosen = type(clf.selection_["kernel"])
    assert len(solves) == 1           # the winner's folds are not solved again
    if winner is WalkKernel:
        assert chosen is WalkKernel and clf._node_scores is not None
    else:
        assert chosen in (AttributeKernel, SumKernel)
        assert clf.selection_["engine"] == "spectral" and clf._node_scores is None
    assert clf.estimator_.shape_fit_[0] == train.size        # fitted on every label
    assert clf.estimator_.dual_coef_.shape[-1] == train.size
    test = np.flatnonzero(known < 0)
    correct = np.mean(clf.predict(test) == labels[test])
    assert correct > 0.9 and abs(clf.selection_["accuracy"] - correct) < 0.05
