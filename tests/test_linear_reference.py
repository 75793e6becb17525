"""The feature map of the linear reference (``[X, P_out X, P_in X, S^2 X]``, unit rows)."""

import numpy as np
import pytest
from scipy import sparse

from experiments._protocols import linear_reference_features

# 0 -> 1, 0 -> 2, 1 -> 2, 3 -> 0; node 2 has no out-links, node 3 no in-links.
EDGES = [(0, 1), (0, 2), (1, 2), (3, 0)]
X = np.array([[1.0, 0.0, 0.0],
              [0.0, 2.0, 0.0],
              [0.0, 0.0, 4.0],
              [1.0, 1.0, 0.0]])


def _blocks(Z, d):
    """The four blocks of each row, rescaled so that the first (L1-normalised X) is exact."""
    Z = Z.toarray() if sparse.issparse(Z) else Z
    return [Z[:, k * d:(k + 1) * d] for k in range(4)]


def _unscaled(Z):
    """Undo the final unit-length scaling: the first block's rows sum to 1 (L1 rows)."""
    Z = Z.toarray() if sparse.issparse(Z) else np.asarray(Z)
    return Z / Z[:, :X.shape[1]].sum(axis=1, keepdims=True)


@pytest.mark.parametrize("form", [np.asarray, sparse.csr_array])
def test_shapes_and_unit_rows(form):
    Z = linear_reference_features(EDGES, form(X))
    assert Z.shape == (4, 4 * X.shape[1])
    assert sparse.issparse(Z) == (form is sparse.csr_array)
    dense = Z.toarray() if sparse.issparse(Z) else Z
    np.testing.assert_allclose(np.linalg.norm(dense, axis=1), 1.0, rtol=1e-12)


def test_out_and_in_blocks_average_the_neighbours_rows():
    own = X / X.sum(axis=1, keepdims=True)             # rows of unit L1 norm
    blocks = _blocks(_unscaled(linear_reference_features(EDGES, X)), 3)
    np.testing.assert_allclose(blocks[0], own)
    # D_out^-1 A X: node 0 averages nodes 1 and 2, node 1 is node 2, node 3 is node 0.
    np.testing.assert_allclose(blocks[1][0], (own[1] + own[2]) / 2)
    np.testing.assert_allclose(blocks[1][1], own[2])
    np.testing.assert_allclose(blocks[1][3], own[0])
    # Node 2 links nowhere: zeros, not its own row nor a mean over the graph.
    np.testing.assert_array_equal(blocks[1][2], 0.0)
    # D_in^-1 A^T X: node 2 averages nodes 0 and 1; node 3 has no in-links.
    np.testing.assert_allclose(blocks[2][2], (own[0] + own[1]) / 2)
    np.testing.assert_allclose(blocks[2][0], own[3])
    np.testing.assert_array_equal(blocks[2][3], 0.0)


def test_the_last_block_is_two_steps_of_the_symmetric_normalised_graph():
    A = np.zeros((4, 4))
    for source, target in EDGES:
        A[source, target] = 1.0
    links = ((A + A.T + np.eye(4)) > 0).astype(float)
    scale = 1.0 / np.sqrt(links.sum(axis=1))
    S = scale[:, None] * links * scale[None, :]
    own = X / X.sum(axis=1, keepdims=True)
    blocks = _blocks(_unscaled(linear_reference_features(EDGES, sparse.csr_array(X))), 3)
    np.testing.assert_allclose(blocks[3], S @ S @ own)


def test_a_node_without_attributes_or_links_is_left_alone():
    features = np.vstack([X, np.zeros(3)])            # node 4: no attributes, no links
    Z = linear_reference_features(sparse.csr_array((np.ones(4), ([0, 0, 1, 3], [1, 2, 2, 0])),
                                                   shape=(5, 5)), features)
    np.testing.assert_array_equal(Z[4], 0.0)
    assert np.all(np.isfinite(Z))
