"""NodeClassifierCV: candidates scored on folds of the labelled nodes, best refitted."""

import numpy as np
import pytest

from digraph_askls.datasets import make_directed_sbm
from digraph_askls.models._node_cv import NodeClassifierCV


@pytest.fixture(scope="module")
def sbm():
    adjacency, labels = make_directed_sbm(400, 3, 6, p_in=0.9, random_state=0)
    known = labels.copy()
    known[np.random.default_rng(0).random(labels.size) < 0.4] = -1
    return adjacency, labels, known


def test_grid_search_selects_and_refits(sbm):
    adjacency, labels, known = sbm
    search = NodeClassifierCV({"gamma": [0.01, 1.0], "beta": [0.0, 1.0]}, cv=3,
                              random_state=0).fit(adjacency, known)
    results = search.cv_results_
    assert len(results["params"]) == 4
    assert results["mean_test_score"].max() == pytest.approx(search.best_score_)
    assert sorted(results["rank_test_score"].tolist())[0] == 1
    assert search.best_estimator_.kernel_params["beta"] == search.best_params_["beta"]
    test = np.flatnonzero(known < 0)
    assert np.mean(search.predict(test) == labels[test]) > 0.8


def test_cv_rejects_too_few_labels(sbm):
    adjacency, labels, _ = sbm
    known = np.full(labels.size, -1)
    known[:3] = labels[:3]
    known[np.flatnonzero(labels == 1)[:1]] = 1
    with pytest.raises(ValueError, match="at least cv=3"):
        NodeClassifierCV(cv=3).fit(adjacency, known)


def test_parallel_grid_gives_the_serial_results():
    from digraph_askls.datasets import make_directed_sbm

    adjacency, labels = make_directed_sbm(600, 3, 6, p_in=0.7, random_state=2)
    known = np.where(np.arange(600) % 4 == 0, -1, labels)
    grid = {"gamma": [0.01, 0.1]}
    serial = NodeClassifierCV(grid, cv=2, random_state=0).fit(adjacency, known)
    parallel = NodeClassifierCV(grid, cv=2, random_state=0, n_jobs=2).fit(adjacency, known)
    np.testing.assert_array_equal(serial.cv_results_["mean_test_score"],
                                  parallel.cv_results_["mean_test_score"])
    assert serial.best_params_ == parallel.best_params_


def test_candidates_run_as_configured():
    # In a grid every candidate runs as configured: no preset unless the grid sets one.
    from digraph_askls.datasets import make_directed_sbm
    from digraph_askls.models._node_cv import NodeClassifierCV

    adjacency, labels = make_directed_sbm(200, 2, 6, p_in=0.8, random_state=0)
    known = labels.copy()
    known[::3] = -1
    # A grid that sets nothing of the preset's: every parameter at NodeClassifier's default.
    search = NodeClassifierCV({"tol": [1e-4]}, cv=2, random_state=0).fit(adjacency, known)
    assert search.best_estimator_.preset_ is None
