"""Kernel families of graphs that are not votes: link profiles, attributes, roles, sums."""

import numpy as np
import pytest
import scipy.sparse as sp

from digraph_askls.kernels import (
    AttributeKernel, FactoredKernel, HadamardPowerKernel, LinkProfileKernel, RoleKernel,
    WalkKernel, dense_block, get_attribute_kernel, get_link_profile_kernel,
    get_role_features, restrict_kernel,
)


def random_digraph(n=40, density=0.1, seed=0):
    adjacency = sp.random(n, n, density=density, random_state=seed, format="csr")
    adjacency.data[:] = 1.0
    return adjacency


def cosine_rows(matrix):
    dense = matrix.toarray()
    norms = np.linalg.norm(dense, axis=1, keepdims=True)
    return np.divide(dense, norms, out=np.zeros_like(dense), where=norms > 0)


@pytest.mark.parametrize("power", [1, 2, 3])
def test_link_profile_kernel_is_the_naive_formula(power):
    A = random_digraph()
    out_rows, in_rows = cosine_rows(A), cosine_rows(A.T.tocsr())
    expected = (out_rows @ out_rows.T) ** power + 0.5 * (in_rows @ in_rows.T) ** power
    K = get_link_profile_kernel(A, out_weight=1.0, in_weight=0.5, power=power)
    n = A.shape[0]
    np.testing.assert_allclose(K @ np.eye(n), expected, atol=1e-12)
    np.testing.assert_allclose(K.T @ np.eye(n), expected.T, atol=1e-12)
    rows, cols = np.arange(0, n, 3), np.arange(1, n, 2)
    np.testing.assert_allclose(dense_block(K, rows, cols), expected[np.ix_(rows, cols)],
                               atol=1e-12)
    assert isinstance(K, FactoredKernel if power == 1 else HadamardPowerKernel)


def test_source_normalised_link_profile_is_asymmetric_conditional_share():
    A = random_digraph(seed=1)
    K = get_link_profile_kernel(A, in_weight=0.0, power=1, normalization="source")
    dense, counts = K.to_dense(), (A @ A.T).toarray()
    degrees = np.asarray(A.sum(axis=1)).ravel()
    expected = np.divide(counts, degrees[:, None], out=np.zeros_like(counts),
                         where=degrees[:, None] > 0)
    np.testing.assert_allclose(dense, expected, atol=1e-12)
    assert not np.allclose(dense, dense.T)


@pytest.mark.parametrize("self_loops", [True, False])
@pytest.mark.parametrize("renormalize", [False, True])
@pytest.mark.parametrize("propagation", ["undirected", "out", "in", "both", "directed"])
def test_attribute_kernel_is_the_naive_formula_every_way(propagation, renormalize,
                                                         self_loops):
    A = random_digraph(seed=2)
    n = A.shape[0]
    X = np.random.default_rng(0).random((n, 6))
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    dense_A = A.toarray()

    def mean_step(links):
        walk = ((links - np.diag(np.diag(links))) > 0).astype(float)
        walk += np.eye(n) if self_loops else 0.0
        degrees = walk.sum(axis=1, keepdims=True)
        return np.divide(walk, degrees, out=np.zeros_like(walk), where=degrees > 0)

    def unit(block):
        if not renormalize:
            return block
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        return np.divide(block, norms, out=np.zeros_like(block), where=norms > 0)

    steps = {"undirected": mean_step(dense_A + dense_A.T), "out": mean_step(dense_A),
             "in": mean_step(dense_A.T)}
    chains = {"undirected": [("undirected", "undirected")], "out": [("out", "out")],
              "in": [("in", "in")], "both": [("out", "out"), ("in", "in")],
              "directed": [("out", "in")]}[propagation]
    hops, self_weight = 2, 1.5
    n_blocks = 1 + hops * len(chains)
    expected = self_weight ** 2 * Xn @ Xn.T
    for left, right in chains:
        for h in range(1, hops + 1):
            expected = expected + (unit(np.linalg.matrix_power(steps[left], h) @ Xn)
                                   @ unit(np.linalg.matrix_power(steps[right], h) @ Xn).T)
    expected /= n_blocks
    K = get_attribute_kernel(A, X, hops=hops, propagation=propagation,
                             self_weight=self_weight, renormalize=renormalize,
                             self_loops=self_loops)
    rows, cols = np.arange(0, n, 2), np.arange(1, n, 3)
    block = K.restrict(rows, cols)
    want = expected[np.ix_(rows, cols)]
    np.testing.assert_allclose(block.to_dense(), want, atol=1e-12)
    np.testing.assert_allclose(block._through_gram(), want, atol=1e-12)
    np.testing.assert_allclose(block @ np.eye(cols.size), want, atol=1e-12)
    np.testing.assert_allclose(block.T @ np.eye(rows.size), want.T, atol=1e-12)
    U, V = block.factors()
    np.testing.assert_allclose(U @ V.T, want, atol=1e-12)
    Z = np.random.default_rng(1).random((rows.size, 2))
    np.testing.assert_allclose(block.maps_transpose_dot(Z, "source"), U.T @ Z, atol=1e-12)
    Z = np.random.default_rng(2).random((cols.size, 2))
    np.testing.assert_allclose(block.maps_transpose_dot(Z, "target"), V.T @ Z, atol=1e-12)


@pytest.mark.parametrize("propagation", ["undirected", "both", "directed"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("renormalize", [False, True])
def test_a_block_through_the_gram_matrix_is_that_block_of_every_node_to_the_bit(
        propagation, dtype, renormalize):
    # The last hop, the scales and the sum are taken on the block alone; every entry is
    # the one the kernel of every node has, bit for bit, whatever rows and columns.
    A = random_digraph(n=50, seed=8)
    X = sp.random(50, 9, density=0.4, random_state=2, format="csr")
    K = get_attribute_kernel(A, X, hops=3, propagation=propagation, renormalize=renormalize,
                             dtype=dtype)
    everything = K._through_gram()
    rng = np.random.default_rng(0)
    train = rng.permutation(50)[:30]
    for rows, cols in ((train, train), (np.sort(train), np.arange(0, 50, 3)),
                       (np.array([4, 4, 17, 2]), train[:7]), (np.arange(50), train)):
        np.testing.assert_array_equal(K.restrict(rows, cols)._through_gram(),
                                      everything[np.ix_(rows, cols)])


@pytest.mark.parametrize("propagation", ["undirected", "directed"])
def test_float32_steps_round_the_dense_blocks_only(propagation):
    A = random_digraph(seed=6)
    X = np.random.default_rng(3).random((A.shape[0], 7))
    exact = get_attribute_kernel(A, X, hops=3, propagation=propagation)
    fast = get_attribute_kernel(A, X, hops=3, propagation=propagation, dtype=np.float32)
    rows = np.arange(0, A.shape[0], 2)
    np.testing.assert_allclose(fast.restrict(rows, rows)._through_gram(),
                               exact.restrict(rows, rows)._through_gram(), rtol=1e-5,
                               atol=1e-6)
    block = fast.restrict(rows, rows)._through_gram()
    assert propagation == "directed" or np.array_equal(block, block.T)


def test_sparse_and_dense_features_give_the_same_attribute_kernel():
    A = random_digraph(seed=3)
    X = sp.random(A.shape[0], 20, density=0.2, random_state=0, format="csr")
    sparse_kernel = get_attribute_kernel(A, X, hops=2).to_dense()
    dense_kernel = get_attribute_kernel(A, X.toarray(), hops=2).to_dense()
    np.testing.assert_allclose(sparse_kernel, dense_kernel, atol=1e-12)


def test_role_features_count_what_they_say():
    edges = np.array([[0, 1], [1, 0], [2, 1], [2, 2]])
    A = sp.csr_array((np.ones(4), (edges[:, 0], edges[:, 1])), shape=(4, 4))
    roles = get_role_features(A, standardize=False)
    np.testing.assert_allclose(roles[:, 0], np.log1p([1, 2, 1, 0]))   # in-degree
    np.testing.assert_allclose(roles[:, 1], np.log1p([1, 1, 2, 0]))   # out-degree
    np.testing.assert_allclose(roles[:, 4], [1.0, 1.0, 0.0, 0.0])      # reciprocity
    np.testing.assert_allclose(roles[:, 5], [0, 0, 1, 0])              # self-loop
    standard = get_role_features(A)
    np.testing.assert_allclose(standard.mean(axis=0), 0, atol=1e-12)


def test_recipes_add_and_scale_into_weighted_sums():
    A = random_digraph(seed=4)
    X = np.random.default_rng(2).random((A.shape[0], 5))
    recipe = LinkProfileKernel(power=1) + 0.5 * RoleKernel() + 2 * AttributeKernel(hops=1)
    assert [w for w, _ in recipe.parts] == [1.0, 0.5, 2.0] and recipe.needs_features
    K = recipe.make(A, X)
    U, V = K.factors()                            # explicit maps stay explicit
    assert U.shape[1] == K.n_features == 2 * A.shape[0] + 11 + 2 * 5   # roles see X
    np.testing.assert_allclose(U @ V.T, K.to_dense(), atol=1e-12)
    parts = [LinkProfileKernel(power=1).make(A), RoleKernel().make(A, X),
             AttributeKernel(hops=1).make(A, X)]
    expected = (dense_block(parts[0], *[np.arange(A.shape[0])] * 2)
                + 0.5 * parts[1].to_dense() + 2 * parts[2].to_dense())
    np.testing.assert_allclose(K.to_dense(), expected, atol=1e-12)
    mixed = (WalkKernel(n_hops=2, dtype="float64") + LinkProfileKernel()).make(A)
    rows = np.arange(10)
    walk = WalkKernel(n_hops=2, dtype="float64").make(A)
    np.testing.assert_allclose(
        dense_block(mixed, rows, rows),
        dense_block(walk, rows, rows) + dense_block(LinkProfileKernel().make(A), rows, rows),
        atol=1e-12)
    with pytest.raises(ValueError, match="needs node features"):
        AttributeKernel().make(A)


def test_restrict_kernel_keeps_blocks_lazy_and_exact():
    A = random_digraph(seed=5)
    K = get_link_profile_kernel(A, power=2)
    block = restrict_kernel(K, [3, 1, 4], [1, 5])
    assert isinstance(block, HadamardPowerKernel) and block.shape == (3, 2)
    full = K.to_dense()
    np.testing.assert_allclose(block.to_dense(), full[np.ix_([3, 1, 4], [1, 5])])


@pytest.mark.parametrize("bad, match", [
    (dict(power=0), "power must be an integer >= 1"),
    (dict(in_weight=-1.0), "in_weight must be a finite number >= 0"),
    (dict(out_weight=0.0, in_weight=0.0), "cannot both be 0"),
    (dict(normalization="l1"), "unknown normalization 'l1'"),
])
def test_bad_link_profile_parameters_are_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        get_link_profile_kernel(random_digraph(), **bad)


@pytest.mark.parametrize("self_loops", [True, False])
def test_the_mean_operator_of_a_row_block_is_those_rows_of_the_whole_one(self_loops):
    """Row blocks of the one-step operator (as a dask cluster builds them, each from its
    nodes' links) store the whole operator's rows, entry for entry and in its order."""
    from digraph_askls.kernels._attributes import _mean_operator

    dense = random_digraph(n=60, density=0.08, seed=3).toarray()
    np.fill_diagonal(dense, 1.0)             # links to themselves are not averaged twice
    dense += dense.T
    dense[50:] = 0                           # nodes without links (zero rows without
    links = sp.csr_array(dense)              # self-loops)
    whole = _mean_operator(links, self_loops)
    for start, stop in [(0, 17), (17, 45), (45, 60)]:
        block = _mean_operator(links[start:stop], self_loops, start)
        expected = whole[start:stop]
        assert block.shape == (stop - start, 60)
        np.testing.assert_array_equal(block.indptr, expected.indptr)
        np.testing.assert_array_equal(block.indices, expected.indices)
        np.testing.assert_array_equal(block.data, expected.data)


def test_bad_attribute_parameters_are_refused():
    A = random_digraph()
    X = np.ones((A.shape[0], 2))
    with pytest.raises(ValueError, match="unknown propagation 'sideways'"):
        get_attribute_kernel(A, X, propagation="sideways")
    with pytest.raises(ValueError, match="hops must be an integer >= 0"):
        get_attribute_kernel(A, X, hops=-1)
    with pytest.raises(ValueError, match="features must be 2-d with one row per node"):
        get_attribute_kernel(A, X[:5])
    with pytest.raises(ValueError, match="features must be finite"):
        get_attribute_kernel(A, np.full((A.shape[0], 2), np.nan))


def test_dense_blocks_weigh_a_dense_product_below_the_steps_on_the_gram_matrix():
    """The dense block is built the cheaper way. On a sparse graph of 3,000 nodes with
    sparse features, propagating the features and one dense product of 2,000 rows' maps
    beats steps on the n x n Gram matrix (counted multiply for multiply, as before, the
    Gram route looked cheaper); for every node of a small graph with many dense features,
    the Gram matrix. Both give the same block."""
    rng = np.random.default_rng(0)
    n = 3000
    A = sp.random(n, n, density=20 / n, random_state=1, format="csr")
    X = sp.random(n, 400, density=0.01, random_state=2, format="csr")
    K = get_attribute_kernel(A, X, hops=5)
    rows = np.sort(rng.choice(n, 2000, replace=False))
    assert not K.restrict(rows, rows)._gram_is_cheaper()
    small = random_digraph(seed=7)
    many = np.random.default_rng(4).random((small.shape[0], 300))
    assert get_attribute_kernel(small, many, hops=5)._gram_is_cheaper()
    few = rows[:40]
    block = K.restrict(few, few)
    np.testing.assert_allclose(block.to_dense(), block._through_gram(), atol=1e-12)


@pytest.mark.parametrize("renormalize", [False, True])
@pytest.mark.parametrize("propagation", ["undirected", "both", "directed"])
def test_few_rows_are_pulled_and_equal_the_pushed_features(propagation, renormalize):
    """A block of few rows of an attribute kernel with sparse features pulls its rows of
    the propagated features (the rows of ``P^h``, then ``X``) instead of pushing every
    node's features: the same block as dense features (which always push) give."""
    A = random_digraph(n=120, density=0.05, seed=8)
    X = sp.random(120, 300, density=0.02, random_state=5, format="csr")
    X = X + sp.eye(120, 300, format="csr")              # no empty row
    options = dict(hops=3, propagation=propagation, renormalize=renormalize)
    pulled = get_attribute_kernel(A, X, **options)
    pushed = get_attribute_kernel(A, X.toarray(), **options)
    rows, cols = np.arange(0, 120, 7), np.arange(3, 120, 11)
    block = pulled.restrict(rows, cols)
    assert block._pulls(block.chains[0][0], np.union1d(rows, cols).size)
    assert not pushed.restrict(rows, cols)._pulls(block.chains[0][0], 10)
    np.testing.assert_allclose(block.to_dense(), pushed.restrict(rows, cols).to_dense(),
                               atol=1e-12)
    U, V = pulled.restrict(rows, rows).factors()
    np.testing.assert_allclose(U @ V.T, pushed.restrict(rows, rows).to_dense(), atol=1e-12)


def naive_smoothed_map(A, X, alpha, n_steps):
    """The smoothed attribute kernel's map by its definition, densely: unit-row features
    diffused by ``(1 - alpha) A_hat Z + alpha X`` over the undirected graph with
    self-loops, normalised on both sides, then unit rows (a zero row stays zero)."""
    links = ((A + A.T).toarray() > 0).astype(float)
    np.fill_diagonal(links, 1.0)
    scale = 1.0 / np.sqrt(links.sum(axis=1))
    step = scale[:, None] * links * scale[None, :]
    own = cosine_rows(X)
    smoothed = own.copy()
    for _ in range(n_steps):
        smoothed = (1 - alpha) * step @ smoothed + alpha * own
    return cosine_rows(sp.csr_matrix(smoothed))


@pytest.mark.parametrize("block_bytes", [None, 150 * 8 * 7])
def test_smoothed_kernel_pulls_few_rows_and_computes_every_map_once(block_bytes, monkeypatch):
    """The smoothed attribute kernel is the naive diffusion of unit-row features, with
    unit rows; a block of few rows is pulled without computing every node's map, and
    equals the block of the full map once that is computed. With ``block_bytes`` the
    columns are diffused 7 at a time (400 attributes: 57 blocks and one of 1; the 17
    pulled rows: 7, 7 and 3), else all at once."""
    from digraph_askls.kernels import _smoothed, get_smoothed_attribute_kernel

    if block_bytes is not None:
        monkeypatch.setattr(_smoothed, "_BLOCK_BYTES", block_bytes)
    assert _smoothed._block_width(150, 8, 400) == (7 if block_bytes else 400)

    A = random_digraph(n=150, density=0.04, seed=9)
    X = sp.random(150, 400, density=0.02, random_state=6, format="csr")
    X = X + sp.eye(150, 400, format="csr")
    alpha, n_steps = 0.2, 6
    K = get_smoothed_attribute_kernel(A, X, alpha=alpha, n_steps=n_steps)
    expected = naive_smoothed_map(A, X, alpha, n_steps)
    rows = np.arange(0, 150, 9)
    block = K.restrict(rows, rows)
    assert K._map is None                                  # pulled: no full map yet
    np.testing.assert_allclose(block.to_dense(), expected[rows] @ expected[rows].T,
                               atol=1e-12)
    np.testing.assert_allclose(K.source, expected, atol=1e-12)
    assert K.source is K.target and K.is_symmetric
    # Dense attributes take the other branch of the diffusion: the same map.
    dense = get_smoothed_attribute_kernel(A, X.toarray(), alpha=alpha, n_steps=n_steps)
    np.testing.assert_allclose(dense.source, expected, atol=1e-12)
    np.testing.assert_allclose(K.restrict(rows, rows).to_dense(), block.to_dense(),
                               atol=1e-12)
    mask = np.zeros(150, dtype=bool)
    mask[rows] = True
    fresh = get_smoothed_attribute_kernel(A, X, alpha=alpha, n_steps=n_steps)
    np.testing.assert_allclose(fresh.restrict(mask, rows).to_dense(), block.to_dense(),
                               atol=1e-12)
    assert fresh._map is None


@pytest.mark.parametrize("dense_features", [False, True])
def test_smoothed_block_of_many_rows_is_exact_without_the_map(dense_features):
    """A block of most nodes (the prediction of every node after a fit on few labels)
    multiplies through the diffusion of the product's columns and the streamed row norms:
    the same products as the naive map's block to float64 rounding, without ever
    computing the map; a side of few rows pulls them. Repeated columns add up, a node
    without attributes keeps a zero row, and the map, once computed, serves the same
    products."""
    from digraph_askls.kernels import _smoothed, get_smoothed_attribute_kernel

    keep = np.ones(120)
    keep[17] = 0.0                               # node 17: no links and no attributes
    A = sp.diags(keep) @ random_digraph(n=120, density=0.05, seed=2) @ sp.diags(keep)
    X = sp.csr_array(sp.diags(keep) @ (sp.random(120, 50, density=0.1, random_state=8)
                                       + sp.eye(120, 50)))
    alpha, n_steps = 0.15, 5
    features = X.toarray() if dense_features else X
    K = get_smoothed_attribute_kernel(A, features, alpha=alpha, n_steps=n_steps)
    expected = naive_smoothed_map(A, X, alpha, n_steps)
    assert not expected[17].any()
    rows = np.setdiff1d(np.arange(120), [3, 50])               # most nodes, 17 among them
    cols = np.array([3, 50, 7, 3])                              # few, one repeated
    block = K.restrict(rows, cols)
    assert isinstance(block, _smoothed._SmoothedBlock) and block.shape == (118, 4)
    V, W = np.random.default_rng(0).standard_normal((4, 3)), np.ones((118, 2))
    dense = expected[rows] @ expected[cols].T
    np.testing.assert_allclose(block @ V, dense @ V, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(block.T @ W, dense.T @ W, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(block.maps_transpose_dot(W), expected[rows].T @ W,
                               rtol=1e-12, atol=1e-12)
    assert not (block @ V)[np.searchsorted(rows, 17)].any()
    assert (block.cols.size, block._pulled(cols) is None) == (4, dense_features)
    assert K._map is None                                      # never the n x d map
    mask = np.isin(np.arange(120), rows)
    np.testing.assert_allclose(K.restrict(mask, cols) @ V, dense @ V, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(block.restrict(np.arange(5), [1, 2]).to_dense(),
                               dense[:5, 1:3], atol=1e-12)
    np.testing.assert_allclose(block.to_dense(), dense, atol=1e-12)   # computes the map
    assert K._map is not None
    np.testing.assert_allclose(block @ V, dense @ V, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(block.T @ W, dense.T @ W, rtol=1e-12, atol=1e-12)


def test_smoothed_kernel_recipe_diffuses_in_float32_to_float64_rounding():
    # The recipe's default steps are float32; the map they give is float64 with unit
    # rows, within float32 rounding of float64 steps, pulled rows and full map alike.
    from digraph_askls.kernels import SmoothedAttributeKernel, get_smoothed_attribute_kernel

    A = random_digraph(n=120, density=0.05, seed=4)
    X = sp.random(120, 60, density=0.1, random_state=3, format="csr") + sp.eye(120, 60)
    fast = SmoothedAttributeKernel().make(A, features=X)
    exact = SmoothedAttributeKernel(dtype="float64").make(A, features=X)
    assert fast.dtype_of_steps == np.float32 and exact.dtype_of_steps == np.float64
    rows = np.arange(0, 120, 7)
    pulled = fast.restrict(rows, rows).to_dense()
    assert fast._map is None
    np.testing.assert_allclose(pulled, exact.restrict(rows, rows).to_dense(), atol=1e-6)
    assert fast.source.dtype == np.float64
    np.testing.assert_allclose(fast.source, exact.source, atol=1e-6)
    assert not np.array_equal(fast.source, exact.source)     # really another precision
    np.testing.assert_allclose(np.linalg.norm(fast.source, axis=1), 1.0, rtol=1e-12)
    with pytest.raises(ValueError, match="dtype must be float32 or float64, got int64"):
        get_smoothed_attribute_kernel(A, X, dtype=np.int64)
