"""The selection's parts as the fit passes them: the policy, the fit settings (the
preconditioned solvers reachable from NodeClassifier), merges as values, and estimators
that own their fitted state."""

import warnings

import numpy as np
import pytest

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.linalg import _solve
from digraph_askls.models.selection import SelectionPolicy, default_kernels


@pytest.fixture(scope="module")
def problem():
    adjacency, labels = make_directed_sbm(200, 3, 6, p_in=0.6, random_state=0)
    known = labels.copy()
    known[np.random.default_rng(0).permutation(200)[:120]] = -1
    return adjacency, labels, known


def test_the_policy_sets_the_thresholds():
    few = default_kernels(100, True, labels_per_class=30)
    many = default_kernels(100, True, labels_per_class=30,
                           policy=SelectionPolicy(few_labels_per_class=10))
    # With few labels: the smoothed attributes; without attributes, the vote.
    assert len(few) == len(many) + 1
    assert {type(kernel).__name__ for kernel in few} - {type(kernel).__name__
                                                        for kernel in many} == {
        "SmoothedAttributeKernel"}
    few = default_kernels(100, False, labels_per_class=30)
    many = default_kernels(100, False, labels_per_class=30,
                           policy=SelectionPolicy(vote_labels_per_class=10))
    assert [type(kernel).__name__ for kernel in few if kernel not in many] == ["VoteKernel"]
    # The vote's threshold is its own: 60 per class is not "few", yet the vote can be tried.
    assert "VoteKernel" in [type(kernel).__name__ for kernel in default_kernels(
        100, False, labels_per_class=60, policy=SelectionPolicy(vote_labels_per_class=100))]
    assert type(default_kernels(100, False, policy=SelectionPolicy(spectral_max_train=50))[-1]
                ).__name__ == "WalkKernel"


@pytest.mark.parametrize("solver,preconditioner", [("minres", "jacobi"), ("gmres", "ilu")])
def test_the_preconditioned_solvers_are_reachable(problem, monkeypatch, solver,
                                                  preconditioner):
    adjacency, labels, known = problem
    built = []
    original = _solve.make_preconditioner
    monkeypatch.setattr(_solve, "make_preconditioner",
                        lambda system, kind, lam: built.append(kind) or original(system, kind,
                                                                                 lam))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = NodeClassifier(kernel="in_degree", gamma=0.5, merge="joint_train",
                             solver=solver, preconditioner=preconditioner,
                             random_state=0).fit(adjacency, known)
    assert built and set(built) <= {preconditioner, "jacobi"}
    assert clf.estimator_.preconditioner == preconditioner
    test = known < 0
    assert np.mean(clf.predict(np.flatnonzero(test)) == labels[test]) > 0.5


def test_merges_are_values_that_keep_their_names():
    from digraph_askls.models._merge import MERGES, Merge

    assert len(MERGES) == 11 and all(Merge.named(name).name == name for name in MERGES)
    assert Merge.named("average") == Merge("mean", "folds")
    assert [name for name in MERGES if Merge.named(name).stacking] == [
        "stack", "joint", "blend", "stack_train", "joint_train", "stack_loo", "joint_loo",
        "blend_loo"]
    assert Merge.named("target").views == ("target",)
    with pytest.raises(ValueError, match="unknown merge"):
        Merge.named("median")


def test_only_the_estimator_writes_its_fitted_attributes(problem, monkeypatch):
    """Every fitted attribute (ending in ``_``) of an AsKLSClassifier is set by the
    estimator's own modules, whatever path NodeClassifier's fit takes."""
    import sys

    from digraph_askls import AsKLSClassifier
    from digraph_askls.models import _askls, _base

    own = {_askls.__file__, _base.__file__}
    package = str(__import__("pathlib").Path(_askls.__file__).parents[1])
    writers = set()

    def guarded(self, name, value):
        if name.endswith("_") and not name.startswith("__"):
            caller = sys._getframe(1).f_code.co_filename
            if caller.startswith(package) and caller not in own:
                writers.add((name, caller))
        object.__setattr__(self, name, value)

    monkeypatch.setattr(AsKLSClassifier, "__setattr__", guarded, raising=False)
    adjacency, labels, known = problem
    features = np.eye(3)[labels] + np.random.default_rng(0).standard_normal((200, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = [NodeClassifier(random_state=0).fit(adjacency, known, features=features),
                NodeClassifier(random_state=0).fit(adjacency, known),
                NodeClassifier(kernel="ppr", gamma=0.01, merge="joint_train").fit(adjacency,
                                                                                  known),
                NodeClassifier(kernel="ppr", gamma=100.0, merge="joint_train").fit(adjacency,
                                                                                   known),
                NodeClassifier(kernel="in_degree", gamma=0.5, merge="stack_loo").fit(
                    adjacency, known),
                NodeClassifier(kernel="in_degree", gamma=0.5, operator=lambda K: K,
                               random_state=0).fit(adjacency, known),
                NodeClassifier(preset="paper").fit(adjacency, known)]
    assert all(hasattr(fit.estimator_, "classes_") for fit in fits)
    assert not writers, writers


def test_no_module_calls_the_estimators_private_methods():
    import pathlib
    import re

    package = pathlib.Path(__file__).parents[1] / "digraph_askls"
    own = {"_askls.py", "_base.py", "_lssvm.py"}
    # scikit-learn's _validate_params; NodeClassifierCV's estimators are NodeClassifiers,
    # whose settings (_config, _resolve_preset) it reads.
    allowed = r"(?!validate_params|config|resolve_preset)"
    calls = [f"{path.name}: {match}" for path in package.rglob("*.py") if path.name not in own
             for match in re.findall(rf"estimator_?\._{allowed}\w+", path.read_text())]
    assert not calls, calls


def test_a_model_saved_before_the_settings_existed_loads(problem):
    adjacency, _, known = problem
    clf = NodeClassifier(kernel="ppr", gamma=0.01, merge="joint").fit(adjacency, known)
    state = clf.__getstate__()
    del state["preconditioner"], state["policy"]
    loaded = NodeClassifier.__new__(NodeClassifier)
    loaded.__setstate__(state)
    assert loaded.get_params()["preconditioner"] == "auto" and loaded.policy is None
    np.testing.assert_array_equal(loaded.predict(), clf.predict())
