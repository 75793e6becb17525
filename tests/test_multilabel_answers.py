"""Several labels per node: the answer of ``predict`` chosen on the folds (never worse
than the trivial answers, with a warning where it cannot beat them), the generator of
graphs with several independent partitions, and the factored spectral kernel of large
graphs."""

import warnings

import numpy as np
import pytest
from scipy import sparse
from sklearn.metrics import f1_score

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_multilabel_sbm
from digraph_askls.kernels import FactoredKernel, SpectralEmbeddingKernel, get_spectral_maps
from digraph_askls.models.selection import multilabel_kernels
from digraph_askls.models.selection._answers import (LabelCalibrator, _score, answer_of,
                                                     label_groups, label_thresholds,
                                                     shared_threshold)

pytestmark = pytest.mark.filterwarnings("ignore:The inner solver of NewtonCholeskySolver")


def _trivial(Y, proba, average):
    every = np.ones_like(Y)
    top = answer_of("most probable label", np.zeros_like(Y), proba)
    return max(f1_score(Y, every, average=average, zero_division=0),
               f1_score(Y, top, average=average, zero_division=0))


def _fit(adjacency, Y, train, **params):
    target = np.where(train[:, None], Y, -1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = NodeClassifier(random_state=0, **params).fit(adjacency, target)
    said = [str(w.message) for w in caught if "several labels" in str(w.message)]
    return model, said


@pytest.mark.parametrize("scoring", ["f1_micro", "f1_samples"])
def test_weak_structure_answers_no_worse_than_trivial_and_warns(scoring):
    # Links at random, labels at random: nothing to learn. Per-label F1 thresholds
    # answered every label (the 2,000 nodes); now predict is never worse than
    # the better trivial answer, and fit says it could not beat it, naming the scorer.
    n, rng = 2000, np.random.default_rng(0)
    adjacency = sparse.random(n, n, density=5 / n, random_state=1, format="csr")
    Y = (rng.random((n, 4)) < 0.35).astype(int)
    train = rng.random(n) < 0.4
    model, said = _fit(adjacency, Y, train, scoring=scoring)
    test = ~train
    average = scoring[3:]
    value = f1_score(Y[test], model.predict()[test], average=average, zero_division=0)
    assert value >= _trivial(Y[test], model.predict_proba()[test], average) - 0.02
    assert len(said) == 1 and scoring in said[0] and "trivial answer" in said[0]


def test_partitions_are_answered_one_label_each_above_trivial():
    adjacency, Y = make_multilabel_sbm(600, 3, 2, avg_degree=10.0, p_same=0.8,
                                       random_state=0)
    train = np.random.default_rng(0).random(600) < 0.4
    model, said = _fit(adjacency, Y, train)
    test = ~train
    predicted = model.predict()[test]
    value = f1_score(Y[test], predicted, average="micro")
    assert value >= _trivial(Y[test], model.predict_proba()[test], "micro") + 0.02
    assert said == []
    # Two labels per node, one in each group of three: the answer is near two, not six.
    assert 1.5 <= predicted.sum(axis=1).mean() <= 3.0


def test_label_groups_need_exclusive_and_exhaustive_groups():
    Y = np.array([[1, 0, 0, 1], [0, 1, 1, 0], [1, 0, 1, 0], [0, 1, 0, 1]])
    assert [g.tolist() for g in label_groups(Y)] == [[0, 1], [2, 3]]
    Y[0, 2] = 1                      # a node with two labels of one group
    assert label_groups(Y) is None
    assert label_groups(np.array([[1, 0], [0, 1]])) is None      # one group: single label


def test_label_calibrator_is_one_logistic_regression_over_every_label():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    decision = rng.standard_normal((500, 3)) * 2
    Y = (rng.random((500, 3)) < 1 / (1 + np.exp(-2 * decision - 1))).astype(int)
    Y[:, 2] = 1                                   # a label every node has
    proba = LabelCalibrator().fit(decision, Y).predict_proba(decision)
    reference = LogisticRegression(C=1.0, tol=1e-10).fit(decision[:, :2].reshape(-1, 1),
                                                         Y[:, :2].ravel())
    expected = reference.predict_proba(decision[:, :2].reshape(-1, 1))[:, 1]
    np.testing.assert_allclose(proba[:, :2].ravel(), expected, atol=1e-6)
    assert (proba[:, 2] == 1.0).all()
    # one curve: a node's labels keep the order of their decision values
    assert (np.argsort(proba[:, :2], axis=1) == np.argsort(decision[:, :2], axis=1)).all()


def test_shared_threshold_scores_every_threshold_as_the_loop_does():
    rng = np.random.default_rng(0)
    for trial in range(60):
        m, n_labels = rng.integers(5, 60), rng.integers(2, 9)
        proba = rng.random((m, n_labels))
        if trial % 3 == 0:
            proba = np.round(proba, 1)            # ties on the grid
        Y = (rng.random((m, n_labels)) < rng.random(n_labels) * 0.6).astype(int)
        grid = np.unique(np.quantile(proba, np.linspace(0.5, 0.999, 40)))
        top = answer_of("most probable label", np.zeros(Y.shape, dtype=int), proba) > 0
        for average in ("micro", "macro", "samples", "weighted"):
            values = [_score(Y, (proba > t) | top, average) for t in grid]
            assert shared_threshold(proba, Y, average) == grid[int(np.argmax(values))]


def test_make_multilabel_sbm():
    adjacency, Y = make_multilabel_sbm(90, 3, n_partitions=3, avg_degree=6.0,
                                       random_state=1)
    again, Y_again = make_multilabel_sbm(90, 3, n_partitions=3, avg_degree=6.0,
                                         random_state=1)
    assert (adjacency != again).nnz == 0 and (Y == Y_again).all()
    assert Y.shape == (90, 9) and (Y.sum(axis=1) == 3).all()
    assert adjacency.diagonal().sum() == 0 and set(adjacency.data) == {1.0}
    assert [g.tolist() for g in label_groups(Y)] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    with pytest.raises(ValueError, match="n_partitions must be >= 1"):
        make_multilabel_sbm(90, 3, n_partitions=0)
    with pytest.raises(ValueError, match="p_in must be in"):
        make_multilabel_sbm(90, 3, p_same=1.5)


def test_spectral_kernel_is_factored_and_standardised():
    adjacency, _ = make_multilabel_sbm(900, 3, 2, avg_degree=8.0, random_state=0)
    maps = get_spectral_maps(adjacency, n_components=16)
    assert maps.shape == (900, 16)
    np.testing.assert_allclose(maps.std(axis=0), 1.0)
    kernel = SpectralEmbeddingKernel(n_components=16).make(adjacency)
    assert isinstance(kernel, FactoredKernel) and kernel.is_symmetric
    with pytest.raises(ValueError, match="n_components must be an integer >= 1"):
        get_spectral_maps(adjacency, n_components=0)
    with pytest.raises(ValueError, match="cannot place nodes that joined"):
        SpectralEmbeddingKernel().make(adjacency, reference=np.arange(10))


def test_large_graphs_take_the_factored_candidate():
    names = [type(k).__name__ for k in multilabel_kernels(100, False, n_nodes=4001)]
    assert names == ["SpectralEmbeddingKernel"]
    names = [type(k).__name__ for k in multilabel_kernels(100, False, n_nodes=4000)]
    assert names[0] == "CooccurrenceKernel"


@pytest.mark.parametrize("average", ["micro", "macro", "samples", "weighted"])
def test_answers_are_scored_as_scikit_learn_scores_them(average):
    from digraph_askls.models.selection._answers import _score

    rng = np.random.default_rng(average.__len__())
    Y = (rng.random((200, 6)) < 0.2).astype(int)
    Y[:, 5] = 0                                   # a label no node has
    predicted = (rng.random((200, 6)) < 0.3).astype(int)
    predicted[:20] = 0                            # nodes answered no label
    assert _score(Y, predicted, average) == pytest.approx(
        f1_score(Y, predicted, average=average, zero_division=0), abs=1e-12)


def test_held_out_thresholds_from_one_sort_match_a_sort_per_fold():
    from digraph_askls.models.selection._answers import _thresholded

    rng = np.random.default_rng(0)
    for trial in range(40):
        m, n_labels = rng.integers(10, 80), rng.integers(1, 6)
        decision = rng.standard_normal((m, n_labels))
        if trial % 2:
            decision = np.round(decision, 1)      # ties keep node order
        Y = (rng.random((m, n_labels)) < 0.3).astype(int)
        folds = np.array_split(rng.permutation(m), rng.integers(2, 6))
        expected = np.zeros(Y.shape, dtype=int)
        for held in folds:
            train = np.setdiff1d(np.arange(m), held)
            expected[held] = decision[held] > label_thresholds(decision[train], Y[train])
        assert (_thresholded(decision, Y, folds) == expected).all()


def test_leading_eigenvectors_agree_with_arpack():
    from scipy.sparse.linalg import eigsh

    from digraph_askls.kernels._eigenmap import _normalised_links, leading_eigenvectors

    adjacency, _ = make_multilabel_sbm(1500, 4, 2, avg_degree=10.0, random_state=0)
    matrix = _normalised_links(adjacency)
    values, vectors = leading_eigenvectors(matrix, 24, random_state=0, tol=1e-6)
    expected, reference = eigsh(matrix, k=24, which="LA",
                                v0=np.random.default_rng(0).standard_normal(1500))
    expected, reference = expected[::-1], reference[:, ::-1]
    np.testing.assert_allclose(values, expected, atol=1e-8)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(24), atol=1e-10)
    # the same subspace: the cosines of the principal angles are all 1
    cosines = np.linalg.svd(reference.T @ vectors, compute_uv=False)
    np.testing.assert_allclose(cosines, 1.0, atol=1e-6)
    residual = np.linalg.norm(matrix @ vectors - vectors * values, axis=0)
    assert residual.max() <= 1e-6
