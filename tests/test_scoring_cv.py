"""The levers of the selection: ``NodeClassifier(cv=...)`` and ``NodeClassifier(scoring=...)``."""

import warnings

import numpy as np
import pytest
from sklearn.metrics import (balanced_accuracy_score, f1_score, get_scorer_names, log_loss,
                             make_scorer)
from sklearn.model_selection import KFold, ShuffleSplit, StratifiedKFold

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.model_selection import class_splits
from digraph_askls.models.selection import Scoring
from digraph_askls.models.selection._estimate import bootstrap_bias_corrected
from digraph_askls.models.selection._folds import splitter_folds
from digraph_askls.models.selection._scoring import HitRows, ProbabilityRows


@pytest.fixture(scope="module")
def sbm():
    """A 150-node directed SBM with features, 45 nodes labelled (15 per class)."""
    adjacency, labels = make_directed_sbm(150, 3, 6.0, p_in=0.5, random_state=0)
    rng = np.random.default_rng(1)
    features = rng.standard_normal((150, 4)) + 0.7 * np.eye(3)[labels].repeat(2, axis=1)[:, :4]
    known = np.full(150, -1)
    train = np.concatenate([np.flatnonzero(labels == c)[:15] for c in range(3)])
    known[train] = labels[train]
    return adjacency, known, features, labels


def _fit(data, **params):
    adjacency, known, features, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return NodeClassifier(random_state=0, **params).fit(adjacency, known,
                                                            features=features)


@pytest.mark.parametrize("name, metric", [
    ("balanced_accuracy", lambda y, p, w: balanced_accuracy_score(y, p.argmax(1),
                                                                  sample_weight=w)),
    ("f1_macro", lambda y, p, w: f1_score(y, p.argmax(1), average="macro", sample_weight=w)),
    ("f1_weighted", lambda y, p, w: f1_score(y, p.argmax(1), average="weighted",
                                             sample_weight=w)),
    ("neg_log_loss", lambda y, p, w: -log_loss(y, p / p.sum(1, keepdims=True),
                                               sample_weight=w, labels=range(p.shape[1]))),
])
def test_vectorised_scores_equal_scikit_learn_on_the_weighted_nodes(name, metric):
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 4, 60)
    probas = rng.random((5, 60, 4))
    weights = rng.integers(0, 3, (7, 60)).astype(float)
    got = Scoring(name).weighted(codes, probas, weights)
    for i, weight in enumerate(weights):
        kept = weight > 0
        for j, proba in enumerate(probas):
            assert got[i, j] == pytest.approx(metric(codes[kept], proba[kept], weight[kept]),
                                              abs=1e-12)
    if name != "neg_log_loss":          # the scorer called node set by node set agrees
        looped = Scoring(name)._loop(codes, probas, weights)
        np.testing.assert_allclose(got, looped, atol=1e-12)


@pytest.mark.parametrize("name", ["precision_macro", "recall_macro", "jaccard_macro",
                                  "precision_weighted", "recall_weighted",
                                  "jaccard_weighted"])
def test_every_vectorised_score_equals_the_scorer_called_on_the_weighted_nodes(name):
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 4, 30)
    probas = rng.random((3, 30, 4)) ** 3        # some classes rarely predicted
    weights = rng.integers(0, 3, (5, 30)).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # zero_division warnings of the scorer
        np.testing.assert_allclose(Scoring(name).weighted(codes, probas, weights),
                                   Scoring(name)._loop(codes, probas, weights), atol=1e-12)


def test_a_callable_scorer_reads_the_held_out_predictions():
    codes = np.array([0, 0, 1, 1, 2])
    proba = np.eye(3)[[0, 1, 1, 1, 2]]
    scorer = make_scorer(f1_score, average="macro")
    assert Scoring(scorer)(codes, proba) == pytest.approx(
        f1_score(codes, proba.argmax(1), average="macro"))


def test_unknown_scoring_is_a_value_error_listing_the_names(sbm):
    with pytest.raises(ValueError, match="'nonsense' is not a scorer name.*f1_macro"):
        Scoring("nonsense")
    with pytest.raises(ValueError, match="balanced_accuracy"):
        _fit(sbm, scoring="nonsense")
    with pytest.raises((TypeError, ValueError)):
        _fit(sbm, scoring=3)
    assert "f1_macro" in get_scorer_names()


def test_accuracy_rows_and_probability_rows_agree_under_accuracy():
    """The bootstrap of held-out hits and of probabilities scored by accuracy is one
    estimate."""
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, 40)
    probas = rng.random((6, 40, 3))
    hits = np.argmax(probas, axis=2) == codes
    by_hits = bootstrap_bias_corrected(HitRows(hits), np.random.default_rng(1))
    by_proba = bootstrap_bias_corrected(ProbabilityRows(probas, codes, Scoring("accuracy")),
                                        np.random.default_rng(1))
    assert by_hits[0] == pytest.approx(by_proba[0], abs=1e-12)


def test_default_scoring_and_cv_are_the_selection_as_before(sbm):
    plain = _fit(sbm)
    spelled = _fit(sbm, scoring="accuracy", cv=None)
    assert plain.selection_ == spelled.selection_
    np.testing.assert_array_equal(plain.decision_function(), spelled.decision_function())
    assert plain.selection_["scoring"] == "accuracy" and plain.selection_["accuracy"] is not None
    assert plain.selection_["accuracy"] == plain.selection_["score_estimate"]


def test_cv_int_replaces_n_folds(sbm):
    by_cv, by_n_folds = _fit(sbm, cv=4), _fit(sbm, n_folds=4)
    assert by_cv.selection_["n_folds"] == 4
    assert by_cv.selection_ == by_n_folds.selection_


def test_cv_splitter_gives_the_folds_and_scoring_the_scores(sbm):
    clf = _fit(sbm, cv=StratifiedKFold(3, shuffle=True, random_state=0), scoring="f1_macro")
    selection, rows = clf.selection_, clf.cv_results_
    assert selection["n_folds"] == 3 and selection["scoring"] == "f1_macro"
    assert selection["accuracy"] is None and 0.0 <= selection["held_out_accuracy"] <= 1.0
    low, high = selection["score_interval"]
    assert low <= selection["score_estimate"] <= high
    assert 0.0 <= selection["held_out_score"] <= 1.0
    assert selection["score"] in rows["mean_test_score"]
    scores = np.asarray(rows["mean_test_score"])
    best = int(np.argmin(rows["rank_test_score"]))
    assert scores[best] == scores.max()
    # f1_macro and accuracy differ on some row: the column holds the scorer's figures.
    assert np.all(np.isfinite(scores)) and len(scores) == len(rows["cv_accuracy"])


def test_neg_log_loss_ranks_by_held_out_probabilities(sbm):
    clf = _fit(sbm, scoring="neg_log_loss")
    assert clf.selection_["scoring"] == "neg_log_loss"
    assert clf.selection_["held_out_score"] < 0
    assert max(clf.cv_results_["mean_test_score"]) < 0
    proba = clf.predict_proba()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_scoring_can_change_the_choice_on_imbalanced_classes():
    """On two classes of 90 and 10 nodes, balanced accuracy and accuracy prefer
    different held-out predictions."""
    rng = np.random.default_rng(5)
    codes = np.r_[np.zeros(90, int), np.ones(10, int)]
    majority = np.tile([0.9, 0.1], (100, 1))               # right on 90 %
    balanced = np.eye(2)[np.where(rng.random(100) < 0.8, codes, 1 - codes)]
    probas = np.stack([majority, balanced])
    accuracy = Scoring("accuracy").weighted(codes, probas, np.ones((1, 100)))[0]
    bal = Scoring("balanced_accuracy").weighted(codes, probas, np.ones((1, 100)))[0]
    assert np.argmax(accuracy) != np.argmax(bal)


def test_splitter_must_partition_the_labelled_nodes():
    codes = np.array([0, 1] * 10)
    assert len(splitter_folds(KFold(4), codes)) == 4
    with pytest.raises(ValueError, match="hold every node once"):
        splitter_folds(ShuffleSplit(3, test_size=0.3, random_state=0), codes)


def test_cv_nodes_is_valid(sbm):
    adjacency, known, features, _ = sbm
    labelled = np.flatnonzero(known >= 0)
    valid = labelled[::3]
    by_cv = _fit(sbm, cv=valid, kernel="ppr", gamma=[0.1, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_valid = NodeClassifier(random_state=0, kernel="ppr", gamma=[0.1, 1.0]).fit(
            adjacency, known, features=features, valid=valid)
    assert by_cv.selection_["engine"] == "validation"
    assert {k: v for k, v in by_cv.selection_.items() if k != "kernel"} == \
        {k: v for k, v in by_valid.selection_.items() if k != "kernel"}
    with pytest.raises(ValueError, match="validation nodes once"):
        NodeClassifier(cv=valid).fit(adjacency, known, features=features, valid=valid)


def test_valid_with_a_scorer(sbm):
    adjacency, known, features, _ = sbm
    valid = np.flatnonzero(known >= 0)[::3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = NodeClassifier(random_state=0, kernel="ppr", gamma=[0.1, 1.0],
                             scoring="f1_macro").fit(adjacency, known, features=features,
                                                     valid=valid)
    assert clf.selection_["scoring"] == "f1_macro"
    best = int(np.argmin(clf.cv_results_["rank_test_score"]))
    assert clf.cv_results_["mean_test_score"][best] == clf.selection_["held_out_score"]


def test_cora_with_a_splitter_and_macro_f1(shared):
    """The acceptance spelling on a real graph: Cora, 20 labelled nodes per class
    (seed 0)."""
    graph = shared("cora")
    (_, train, test), = class_splits(graph.labels, 20, 1, 0)
    known = np.full(graph.n_nodes, -1)
    known[train] = graph.labels[train]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = NodeClassifier(cv=StratifiedKFold(3, shuffle=True, random_state=0),
                             scoring="f1_macro").fit(graph.adjacency, known,
                                                     features=graph.features)
    assert clf.selection_["n_folds"] == 3 and clf.selection_["scoring"] == "f1_macro"
    assert len(clf.cv_results_["mean_test_score"]) > 1
    predicted = clf.predict()
    assert f1_score(graph.labels[test], predicted[test], average="macro") > 0.7


def test_node_classifier_cv_is_deprecated():
    from digraph_askls.models._node_cv import NodeClassifierCV
    import networkx as nx

    graph = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
    labels = {0: "a", 1: "a", 2: "a", 3: "b", 4: "b", 5: "b"}
    with pytest.warns(FutureWarning, match="NodeClassifierCV is deprecated"):
        NodeClassifierCV({"gamma": [0.01]}, cv=2,
                         base_params={"merge": "average"}).fit(graph, labels)
