"""The default's feature route on a dask cluster: node attributes given as a dask array are
propagated on the workers, and the fit decides as the local one over the same candidates.

A local cluster of two worker processes on the loopback (the ``dask_client`` fixture;
skips without the dask extra).
"""

import warnings

import numpy as np
import pytest

from test_faults import _KillingClient   # a worker killed at a set gather

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.kernels import AttributeKernel, WalkKernel, get_attribute_kernel, \
    restrict_kernel

da = pytest.importorskip("dask.array", reason='dask is an optional extra: pip install ".[dask]"')

#: The attribute kernels of ``kernel="auto"`` (the candidates built on a cluster).
ATTRIBUTE_KERNELS = [AttributeKernel(),
                     AttributeKernel(hops=1, propagation="both", self_weight=2.0,
                                     renormalize=True, self_loops=False)]


def _problem(n=3000, d=8, seed=0):
    """A directed SBM of 4 classes, attributes of noise carrying the class faintly, a
    fifth of the nodes labelled."""
    adjacency, classes = make_directed_sbm(n, n_classes=4, avg_degree=8, p_in=0.5,
                                           random_state=seed)
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[np.arange(n), classes % d] += 0.5
    labels = {int(i): int(classes[i]) for i in np.flatnonzero(rng.random(n) < 0.2)}
    return adjacency, labels, X


@pytest.fixture(scope="module")
def problem():
    return _problem()


@pytest.fixture(scope="module")
def local_fit(problem):
    adjacency, labels, X = problem
    return NodeClassifier(kernel=ATTRIBUTE_KERNELS, random_state=0).fit(
        adjacency, labels, features=X)


def test_without_a_client_the_error_says_how_to_start_one(problem):
    distributed = pytest.importorskip("dask.distributed")
    adjacency, labels, X = problem
    try:
        distributed.default_client()
        pytest.skip("a client is running in this process (started before this module)")
    except ValueError:
        pass
    with pytest.raises(ValueError, match="no client is running: start one"):
        NodeClassifier(kernel=ATTRIBUTE_KERNELS[:1]).fit(
            adjacency, labels, features=da.from_array(X, chunks=(700, 8)))


@pytest.mark.parametrize("propagation, renormalize, self_loops", [
    ("undirected", False, True), ("both", True, False), ("directed", False, True)])
def test_the_maps_of_the_labelled_rows_are_the_local_ones(dask_client, problem,
                                                          propagation, renormalize,
                                                          self_loops):
    from digraph_askls.distributed import DaskFeatures

    adjacency, labels, X = problem
    train = np.array(sorted(labels))
    local = get_attribute_kernel(adjacency, X, hops=2, propagation=propagation,
                                 renormalize=renormalize, self_loops=self_loops)
    remote = get_attribute_kernel(adjacency, DaskFeatures(da.from_array(X, chunks=(700, 8)),
                                                          dask_client),
                                  hops=2, propagation=propagation, renormalize=renormalize,
                                  self_loops=self_loops)
    U, V = restrict_kernel(local, train, train).factors()
    dU, dV = restrict_kernel(remote, train, train).factors()
    np.testing.assert_array_equal(dU, U)                 # bit for bit
    np.testing.assert_array_equal(dV, V)
    assert (dU is dV) == (U is V) == (propagation != "directed")
    assert remote.feature_names == local.feature_names
    # Products through the workers: the kernel's block of some nodes against the labelled.
    nodes = np.arange(0, 3000, 7)
    rng = np.random.default_rng(1)
    forward, backward = rng.standard_normal((train.size, 3)), rng.standard_normal((nodes.size, 3))
    block, expected = restrict_kernel(remote, nodes, train), restrict_kernel(local, nodes, train)
    np.testing.assert_allclose(block.matmat(forward), expected.matmat(forward), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(block.rmatmat(backward), expected.rmatmat(backward),
                               rtol=1e-10, atol=1e-12)

def test_a_fit_on_the_cluster_decides_as_the_local_one(dask_client, problem, local_fit):
    from digraph_askls.distributed import DaskKernelBlock, DaskPropagatedKernel

    adjacency, labels, X = problem
    with pytest.warns(UserWarning, match="left out of the selection: .*WalkKernel"):
        remote = NodeClassifier(random_state=0).fit(
            adjacency, labels, features=da.from_array(X, chunks=(700, 8)))
    assert isinstance(remote.kernel_, DaskPropagatedKernel)
    assert remote.selection_ == local_fit.selection_        # the same choice and scores
    assert list(remote.cv_results_["kernel"]) == list(local_fit.cv_results_["kernel"])
    np.testing.assert_array_equal(remote.predict(), local_fit.predict())
    local_values, values = local_fit.decision_function(), remote.decision_function()
    assert np.abs(values - local_values).max() <= 1e-8 * np.abs(local_values).max()
    # The primal weights come from the labelled rows, as the local ones.
    weights, local_weights = remote.primal_weights(), local_fit.primal_weights()
    np.testing.assert_allclose(weights["source"], local_weights["source"], rtol=1e-9,
                               atol=1e-12)
    assert isinstance(restrict_kernel(remote.kernel_, [0, 1], [2]), DaskKernelBlock)


@pytest.mark.parametrize("route", ["validation nodes", "several labels"])
def test_the_other_routes_decide_as_the_local_ones(dask_client, route):
    adjacency, labels, X = _problem(n=1500, d=8, seed=1)
    fit = {}
    if route == "validation nodes":
        fit["valid"] = sorted(labels)[:60]
    else:
        labels = {node: [code] + ([(code + 1) % 4] if node % 3 == 0 else [])
                  for node, code in labels.items()}
    local = NodeClassifier(kernel=ATTRIBUTE_KERNELS, random_state=0).fit(
        adjacency, labels, features=X, **fit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the candidates left out, named
        remote = NodeClassifier(random_state=0).fit(
            adjacency, labels, features=da.from_array(X, chunks=(400, 8)), **fit)
    assert remote.selection_ == local.selection_
    np.testing.assert_array_equal(remote.predict(), local.predict())


def test_kernels_that_are_not_propagated_attributes_are_refused_by_name(dask_client,
                                                                        problem):
    adjacency, labels, X = problem
    with pytest.raises(ValueError, match=r"only attribute kernels .* got \[WalkKernel"):
        NodeClassifier(kernel=[AttributeKernel(), WalkKernel()]).fit(
            adjacency, labels, features=da.from_array(X, chunks=(700, 8)))


def test_bad_attributes_on_the_cluster_are_named(dask_client, problem):
    adjacency, labels, X = problem
    with pytest.raises(ValueError, match=r"one row per node, shape \(3000, n_features\), "
                                         r"got shape \(2999, 8\)"):
        NodeClassifier(kernel=ATTRIBUTE_KERNELS[:1]).fit(
            adjacency, labels, features=da.from_array(X[:-1], chunks=(700, 8)))
    bad = X.copy()
    bad[5, 3] = np.nan
    with pytest.raises(ValueError, match="must be finite, got 1 NaN or infinite"):
        NodeClassifier(kernel=ATTRIBUTE_KERNELS[:1]).fit(
            adjacency, labels, features=da.from_array(bad, chunks=(700, 8)))
    with pytest.raises(TypeError, match="must hold numbers .* got dtype <U1"):
        NodeClassifier(kernel=ATTRIBUTE_KERNELS[:1]).fit(
            adjacency, labels, features=da.from_array(np.full((3000, 2), "a")))


@pytest.mark.parametrize("after", [3, 4])
def test_a_worker_killed_during_the_fit_is_survived(dask_client, problem, local_fit, after):
    """Killed while the first kernel's labelled rows are gathered (the 3rd of the fit's
    4 gathers, after the check of the attributes and the nodes' keys) or the second's:
    dask computes the lost blocks again from the inputs it holds, and the fit chooses
    and predicts as the local one."""
    from digraph_askls.distributed import DaskFeatures

    adjacency, labels, X = problem
    dask_client.wait_for_workers(2, timeout=60)
    client = _KillingClient(dask_client, after=after)
    features = DaskFeatures(da.from_array(X, chunks=(700, 8)), client)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        remote = NodeClassifier(random_state=0).fit(adjacency, labels, features=features)
        in_fit = client.gathers
        predicted = remote.predict()
    assert client.killed is not None and in_fit >= after         # killed mid-fit
    assert remote.selection_ == local_fit.selection_
    np.testing.assert_array_equal(predicted, local_fit.predict())
