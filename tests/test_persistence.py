"""A fitted NodeClassifier saved with joblib in one process predicts the same in another."""

import os
import pickle
import subprocess
import sys
from pathlib import Path

import joblib
import numpy as np
import pytest
from scipy import sparse

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.kernels import AttributeKernel

REPO = Path(__file__).resolve().parents[1]

LOADER = """
import sys
import joblib
import numpy as np
from scipy import sparse

model = joblib.load(sys.argv[1])
with np.load(sys.argv[2], allow_pickle=False) as data:
    grown = sparse.csr_array((data["data"], data["indices"], data["indptr"]),
                             shape=tuple(data["shape"]))
    features = data["features"] if "features" in data.files else None
    nodes = data["nodes"].tolist()
np.savez(sys.argv[3], predicted=model.predict(), decision=model.decision_function(),
         new=model.decision_function(nodes, graph=grown, features=features))
"""


def _problem(with_features):
    # Many labelled nodes and no features: the walk kernel alone, every node's scores
    # kept from the solve. Fewer and features: the kernel is selected and kept.
    n = 2000 if with_features else 9000
    adjacency, classes = make_directed_sbm(n, 4, 6, p_in=0.7, random_state=0)
    rng = np.random.default_rng(0)
    labels = np.where(rng.random(n) < 0.6, classes, -1)
    features = (rng.normal(size=(n, 6)) + np.eye(4)[classes] @ rng.normal(size=(4, 6))
                if with_features else None)
    return sparse.csr_array(adjacency), labels, features


def _grown(adjacency, features, k=5):
    """The graph with ``k`` new nodes, each citing three of the first nodes."""
    n = adjacency.shape[0]
    rows = np.repeat(np.arange(n, n + k), 3)
    cols = np.arange(3 * k) * 7
    grown = sparse.block_array([[adjacency, None], [None, sparse.csr_array((k, k))]],
                               format="csr")
    grown = sparse.csr_array(grown + sparse.csr_array((np.ones(3 * k), (rows, cols)),
                                                      shape=grown.shape))
    new_features = None if features is None else np.vstack([features, features[:k]])
    return grown, new_features, list(range(n, n + k))


@pytest.mark.parametrize("with_features", [False, True], ids=["kept scores", "kernel"])
def test_a_model_loaded_in_another_process_predicts_the_same(tmp_path, with_features):
    adjacency, labels, features = _problem(with_features)
    # With features, one kernel and one gamma: the kernel (explicit maps) is saved.
    model = NodeClassifier(kernel=AttributeKernel(hops=2) if with_features else "auto",
                           gamma=1.0 if with_features else "auto", random_state=0)
    model.fit(adjacency, labels, features=features)
    assert (model._node_scores is None) == with_features
    grown, grown_features, new = _grown(adjacency, features)
    path = tmp_path / "model.joblib"
    joblib.dump(model, path)
    graph_file = tmp_path / "grown.npz"
    extra = {} if grown_features is None else {"features": grown_features}
    np.savez(graph_file, data=grown.data, indices=grown.indices, indptr=grown.indptr,
             shape=np.array(grown.shape), nodes=np.array(new), **extra)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    out = tmp_path / "out.npz"
    subprocess.run([sys.executable, "-c", LOADER, str(path), str(graph_file), str(out)],
                   check=True, env=env, cwd=tmp_path, timeout=120)
    with np.load(out, allow_pickle=False) as loaded:
        np.testing.assert_array_equal(loaded["predicted"], model.predict())
        np.testing.assert_array_equal(loaded["decision"], model.decision_function())
        np.testing.assert_array_equal(
            loaded["new"], model.decision_function(new, graph=grown, features=grown_features))


def test_the_saved_model_leaves_out_the_kernel_that_its_kept_scores_replace():
    adjacency, labels, _ = _problem(False)
    model = NodeClassifier(random_state=0).fit(adjacency, labels)
    restored = pickle.loads(pickle.dumps(model))
    assert model.kernel_ is not None and restored.kernel_ is None
    full = len(pickle.dumps({**vars(model)}))        # the plain state, with the kernel
    assert len(pickle.dumps(model)) < 0.9 * full
    np.testing.assert_array_equal(restored.predict_proba(), model.predict_proba())
    with pytest.raises(ValueError, match="saved without its kernel"):
        restored.primal_weights()
    model.predict([5, 7, 9])      # names looked up: the lookup table is not saved
    assert pickle.loads(pickle.dumps(model))._node_index._lookup is None
