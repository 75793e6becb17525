"""EmbeddingKernel: AsK-LS on K = U_s U_t^T through explicit maps, against the dense kernel."""

import pickle

import numpy as np
import pytest
from scipy import sparse

from digraph_askls import AsKLSClassifier, KernelViews, LSSVMClassifier, NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.embedding import APP, HOPE
from digraph_askls.kernels import (
    EmbeddingKernel,
    FactoredKernel,
    get_graph_kernel,
    restrict_kernel,
)


@pytest.fixture(scope="module")
def problem():
    adjacency, labels = make_directed_sbm(150, 3, 5, p_in=0.3, random_state=0)
    rng = np.random.default_rng(0)
    train = np.sort(rng.choice(150, 60, replace=False))
    return sparse.csr_matrix(adjacency), labels, train, np.setdiff1d(np.arange(150), train)


def test_the_kernel_is_the_product_of_the_embedding_vectors(problem):
    adjacency, *_ = problem
    hope = HOPE(n_components=12).fit(adjacency)
    K = EmbeddingKernel(hope, refit=False, normalize=None).make(adjacency)
    assert isinstance(K, FactoredKernel) and not K.is_symmetric
    np.testing.assert_allclose(K.to_dense(),
                               hope.source_embedding_ @ hope.target_embedding_.T, atol=1e-12)
    refitted = EmbeddingKernel(HOPE(n_components=12), normalize=None).make(adjacency)
    np.testing.assert_allclose(refitted.to_dense(), K.to_dense(), atol=1e-10)
    scaled = EmbeddingKernel(hope, refit=False, normalize="scale").make(adjacency)
    U, V = scaled.factors()
    lengths = np.linalg.norm(U, axis=1) * np.linalg.norm(V, axis=1)
    assert lengths.mean() == pytest.approx(1.0)
    np.testing.assert_allclose(scaled.to_dense() * K.to_dense().sum() / scaled.to_dense().sum(),
                               K.to_dense(), atol=1e-10)
    rows = EmbeddingKernel(hope, refit=False).make(adjacency)
    lengths = np.linalg.norm(rows.factors()[0], axis=1)
    np.testing.assert_allclose(lengths[np.linalg.norm(hope.source_embedding_, axis=1) > 0], 1.0)


def test_askls_on_the_maps_equals_askls_on_the_dense_kernel(problem):
    adjacency, labels, train, test = problem
    hope = HOPE(n_components=12).fit(adjacency)
    kernel = EmbeddingKernel(hope, refit=False)
    model = NodeClassifier(kernel=kernel, gamma=1.0, merge="average").fit(
        adjacency, np.where(np.isin(np.arange(150), train), labels, -1))
    dense = kernel.make(adjacency).to_dense()
    reference = AsKLSClassifier(gamma=1.0, regularization=None).fit(
        dense[np.ix_(model.train_nodes_, model.train_nodes_)], labels[model.train_nodes_])
    views = KernelViews(dense[np.ix_(test, model.train_nodes_)],
                        dense[np.ix_(model.train_nodes_, test)])
    np.testing.assert_allclose(model.decision_function(test), reference.decision_function(views),
                               rtol=1e-8, atol=1e-8)
    # The estimator takes the factored block itself, as a precomputed LinearOperator.
    block = restrict_kernel(kernel.make(adjacency), train, train)
    direct = AsKLSClassifier(gamma=1.0, regularization=None).fit(block, labels[train])
    plain = AsKLSClassifier(gamma=1.0, regularization=None).fit(dense[np.ix_(train, train)],
                                                                labels[train])
    np.testing.assert_allclose(direct.dual_coef_, plain.dual_coef_, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(direct.intercept_, plain.intercept_, rtol=1e-8, atol=1e-8)


def test_primal_weights_give_both_views(problem):
    adjacency, labels, train, _ = problem
    known = np.where(np.isin(np.arange(150), train), labels, -1)
    model = NodeClassifier(kernel=EmbeddingKernel(HOPE(n_components=8)), gamma=1.0,
                           merge="average").fit(adjacency, known)
    weights = model.primal_weights()
    assert weights["source"].shape == weights["target"].shape == (3, 8)
    assert weights["feature_names"][:2] == ["HOPE:0", "HOPE:1"]
    U, V = model.kernel_.factors()
    views = model.decision_function(view="both")
    intercepts = model.estimator_.intercept_
    np.testing.assert_allclose(U @ weights["source"].T + intercepts[:, 0], views["source"],
                               atol=1e-9)
    np.testing.assert_allclose(V @ weights["target"].T + intercepts[:, 1], views["target"],
                               atol=1e-9)


class Symmetric:
    """An embedding with one vector per node (source and target the same array)."""

    def __init__(self, vectors=None):
        self.vectors = vectors

    def get_params(self, deep=True):
        return {"vectors": self.vectors}

    def fit(self, adjacency):
        self.source_embedding_ = self.target_embedding_ = self.vectors
        self.n_nodes_ = self.vectors.shape[0]
        return self


def test_proposition_2_a_symmetric_embedding_gives_the_lssvm(problem):
    adjacency, labels, train, _ = problem
    vectors = HOPE(n_components=10).fit(adjacency).transform()
    K = EmbeddingKernel(Symmetric(vectors).fit(adjacency), refit=False).make(adjacency)
    assert K.is_symmetric
    block = restrict_kernel(K, train, train)
    ask = AsKLSClassifier(gamma=2.0, regularization=None).fit(block, labels[train])
    dense = K.to_dense()[np.ix_(train, train)]
    ls = LSSVMClassifier(gamma=2.0, regularization=None).fit(dense, labels[train])
    np.testing.assert_allclose(ask.dual_coef_[:, 0], ask.dual_coef_[:, 1], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ask.dual_coef_[:, 0], ls.dual_coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ask.intercept_[:, 0], ls.intercept_, rtol=1e-8, atol=1e-10)


def test_the_registry_name_builds_the_same_kernel(problem):
    adjacency, *_ = problem
    named = get_graph_kernel("embedding", adjacency, embedding="app", n_components=8,
                             n_walks=20, random_state=0)
    recipe = EmbeddingKernel(APP(n_components=8, n_walks=20, random_state=0)).make(adjacency)
    np.testing.assert_allclose(named.to_dense(), recipe.to_dense(), atol=1e-12)


def test_one_fit_per_graph_and_a_lean_pickle(problem):
    adjacency, *_ = problem
    recipe = EmbeddingKernel(HOPE(n_components=6))
    first = recipe.make(adjacency)
    assert recipe.make(adjacency) is first                        # cached, not refitted
    other = sparse.csr_matrix(adjacency[::-1])
    assert recipe.make(other) is not first
    restored = pickle.loads(pickle.dumps(recipe))
    assert not hasattr(restored, "_cache") and restored == recipe


def test_bad_input_is_refused(problem):
    adjacency, _, train, _ = problem
    with pytest.raises(ValueError, match="normalize must be one of"):
        EmbeddingKernel(normalize="l2").make(adjacency)
    with pytest.raises(ValueError, match=r"refit=False takes an embedding fitted on this "
                                         r"graph \(150 nodes\), got one fitted on no graph"):
        EmbeddingKernel(HOPE(), refit=False).make(adjacency)
    with pytest.raises(TypeError, match="embedding must be an estimator with fit"):
        EmbeddingKernel(np.eye(3)).make(adjacency)
    with pytest.raises(ValueError, match="unknown embedding 'sdne'"):
        get_graph_kernel("embedding", adjacency, embedding="sdne")
    with pytest.raises(ValueError, match="n_components must be below the number of nodes"):
        EmbeddingKernel(HOPE(n_components=150)).make(adjacency)
    with pytest.raises(ValueError, match="cannot place nodes that joined the graph"):
        EmbeddingKernel(HOPE(n_components=4)).make(adjacency, reference=train)
