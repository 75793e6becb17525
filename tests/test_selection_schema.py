"""One selection: the same keys in ``selection_`` and ``cv_results_`` whatever the route,
NodeClassifier as a scikit-learn classifier, and a fit that fails writes nothing."""

import numpy as np
import pytest
from sklearn.base import clone, is_classifier
from sklearn.model_selection import StratifiedKFold

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.models.selection import Problem, SearchSpace, route
from digraph_askls.models.selection._results import CV_COLUMNS, SELECTION_KEYS


def _problem(n=120, seed=0):
    adjacency, labels = make_directed_sbm(n, 3, 6.0, p_in=0.6, random_state=seed)
    rng = np.random.default_rng(seed)
    features = rng.standard_normal((n, 4)) + np.eye(3)[labels] @ np.ones((3, 4))
    known = np.where(rng.random(n) < 0.4, labels, -1)
    return adjacency, labels, known, features


def _two_memberships(n=120, seed=0):
    adjacency, labels = make_directed_sbm(n, 4, 6.0, p_in=0.7, random_state=seed)
    Y = np.zeros((n, 3), dtype=int)
    Y[np.arange(n), labels % 3] = 1
    Y[labels == 3, 0] = 1
    Y[np.random.default_rng(seed).random(n) < 0.5] = -1
    return adjacency, Y


CASES = {
    "folds": (dict(), dict()),
    "class weights, balanced": (dict(class_weight="balanced",
                                     scoring="balanced_accuracy"), dict()),
    "splitter, f1_macro": (dict(cv=StratifiedKFold(3, shuffle=True, random_state=0),
                                scoring="f1_macro"), dict()),
    "validation": (dict(), dict(valid="valid")),
    "fixed": (dict(kernel="ppr", gamma=0.01, merge="stack_train"), dict()),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_route_reports_the_same_keys(case):
    adjacency, labels, known, features = _problem()
    params, fit_params = CASES[case]
    if fit_params.get("valid"):
        labelled = np.flatnonzero(known >= 0)
        fit_params = dict(valid=labelled[::3])
    clf = NodeClassifier(random_state=0, **params).fit(
        adjacency, known, features=None if case == "fixed" else features, **fit_params)
    assert tuple(clf.selection_) == SELECTION_KEYS
    assert tuple(clf.cv_results_) == CV_COLUMNS
    assert len({len(column) for column in clf.cv_results_.values()}) == 1


def test_several_labels_report_the_same_keys():
    adjacency, Y = _two_memberships()
    clf = NodeClassifier(random_state=0, kernel="in_degree").fit(adjacency, Y)
    assert tuple(clf.selection_) == SELECTION_KEYS
    assert tuple(clf.cv_results_) == CV_COLUMNS
    assert clf.selection_["scoring"] == "f1_micro" and clf.selection_["accuracy"] is None
    assert clf.thresholds_.shape == (3,)


def test_the_accuracy_keys_are_the_score_keys_under_the_accuracy():
    adjacency, labels, known, features = _problem()
    selection = NodeClassifier(random_state=0).fit(adjacency, known,
                                                   features=features).selection_
    assert selection["scoring"] == "accuracy"
    assert selection["accuracy"] == selection["score_estimate"]
    assert selection["accuracy_interval"] == selection["score_interval"]
    assert selection["held_out_accuracy"] == selection["held_out_score"]


def test_the_route_is_decided_once():
    space = SearchSpace(("recipe",), None, "auto")
    problem = Problem(None, None, np.arange(4), np.array([0, 1, 0, 1]), None, None, None, 5)
    assert route(space, problem) == "folds"
    assert route(space._replace(merge="joint_loo"), problem) == "fixed"
    assert route(space, problem._replace(as_given=True)) == "fixed"
    assert route(space, problem._replace(valid=np.array([5]))) == "validation"
    assert route(space, problem._replace(target=np.ones((4, 2)))) == "several labels"


def test_node_classifier_is_a_scikit_learn_classifier_with_its_scorer():
    assert is_classifier(NodeClassifier())
    adjacency, labels, known, features = _problem()
    test = np.flatnonzero(known < 0)
    clf = NodeClassifier(random_state=0).fit(adjacency, known, features=features)
    assert clf.score(test, labels[test]) == pytest.approx(
        np.mean(clf.predict(test) == labels[test]))
    balanced = clone(clf).set_params(scoring="balanced_accuracy").fit(
        adjacency, known, features=features)
    from sklearn.metrics import balanced_accuracy_score
    assert balanced.score(test, labels[test]) == pytest.approx(
        balanced_accuracy_score(labels[test], balanced.predict(test)))


def test_a_fit_that_fails_leaves_the_estimator_as_it_was():
    adjacency, labels, known, features = _problem()
    clf = NodeClassifier(random_state=0, kernel="ppr", gamma=0.01, merge="average")
    with pytest.raises(ValueError, match="valid= holds every one"):
        clf.fit(adjacency, known, valid=np.flatnonzero(known >= 0))
    assert not [key for key in vars(clf) if key.endswith("_") or key.startswith("_")]
    fitted = clf.fit(adjacency, known)
    before = dict(vars(fitted))
    with pytest.raises(ValueError):
        fitted.fit(adjacency, np.where(known == 0, 0, -1))      # one class labelled
    assert vars(fitted).keys() == before.keys()
    assert all(vars(fitted)[key] is before[key] for key in before)
