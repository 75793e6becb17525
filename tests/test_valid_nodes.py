"""NodeClassifier.fit(..., valid=...): validation nodes choose the configuration and are
never fitted."""

import io

import joblib
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.model_selection import evaluate_node_classifier


def problem(seed=0, n=150):
    adjacency, labels = make_directed_sbm(n, 3, 5, p_in=0.5, random_state=seed)
    rng = np.random.default_rng(seed)
    features = rng.random((n, 8)) * 0.8
    features[np.arange(n), labels] += 0.6          # the class shows, faintly
    order = rng.permutation(n)
    train, valid = np.sort(order[:24]), np.sort(order[24:60])
    known = np.full(n, -1)
    known[train] = labels[train]
    known[valid] = labels[valid]
    return sp.csr_array(adjacency), labels, known, features, train, valid


@pytest.fixture(scope="module")
def fitted():
    adjacency, labels, known, features, train, valid = problem()
    model = NodeClassifier(random_state=0).fit(adjacency, known, features=features,
                                               valid=valid)
    return model, (adjacency, labels, known, features, train, valid)


def test_the_winner_is_the_configuration_fitted_on_the_training_part_alone(fitted):
    model, (adjacency, labels, known, features, train, valid) = fitted
    selection = model.selection_
    assert selection["engine"] == "validation" and selection["n_valid"] == valid.size
    np.testing.assert_array_equal(model.train_nodes_, train)
    part = np.full(labels.size, -1)
    part[train] = labels[train]
    alone = NodeClassifier(kernel=selection["kernel"], gamma=selection["gamma"],
                           merge=selection["merge"], random_state=0).fit(
        adjacency, part, features=features)
    nodes = np.arange(labels.size)
    np.testing.assert_array_equal(model.predict(nodes), alone.predict(nodes))
    np.testing.assert_allclose(model.predict_proba(nodes), alone.predict_proba(nodes),
                               rtol=1e-12, atol=1e-12)
    assert selection["held_out_accuracy"] == np.mean(alone.predict(valid) == labels[valid])
    # New nodes (the graph given again) and a joblib round trip predict the same.
    np.testing.assert_array_equal(
        model.predict(list(nodes), graph=adjacency, features=features), model.predict(nodes))
    buffer = io.BytesIO()
    joblib.dump(model, buffer)
    buffer.seek(0)
    np.testing.assert_array_equal(joblib.load(buffer).predict(nodes), model.predict(nodes))


def test_every_row_is_its_configuration_scored_on_the_validation_nodes(fitted):
    model, (adjacency, labels, known, features, train, valid) = fitted
    rows = model.cv_results_
    part = np.full(labels.size, -1)
    part[train] = labels[train]
    # Every merge the selection compares (few labels: three) at every ranked kernel.
    assert {"joint", "blend", "average"} <= set(rows["merge"])
    assert len(rows["kernel"]) >= 6
    for row in (0, 1, len(rows["kernel"]) - 1):        # a sample: each row is a fit
        alone = NodeClassifier(kernel=rows["kernel"][row], gamma=rows["gamma"][row],
                               merge=rows["merge"][row], random_state=0).fit(
            adjacency, part, features=features)
        assert rows["mean_test_score"][row] == np.mean(alone.predict(valid) == labels[valid])
    scores = np.asarray(rows["mean_test_score"])
    assert model.selection_["held_out_accuracy"] == scores.max()
    # The first row of best accuracy wins (the folds' choice first, then the ranking).
    first = int(np.argmax(scores))
    assert (model.selection_["kernel"] is rows["kernel"][first]
            and model.selection_["gamma"] == rows["gamma"][first])
    assert rows["rank_test_score"][first] == 1


def test_the_candidates_of_a_kernel_share_its_build(monkeypatch):
    """Each kernel is built and given its engine once by the search that ranks, and once
    for all of its candidates (its gammas, three merges each) on the validation nodes."""
    from digraph_askls.models.selection import _select

    built = []

    def counted(kernel, **keywords):
        built.append(kernel)
        return engine_for(kernel, **keywords)

    engine_for = _select.engine_for
    monkeypatch.setattr(_select, "engine_for", counted)
    adjacency, labels, known, features, train, valid = problem()
    model = NodeClassifier(kernel=["ppr_in", "ppr_out"], gamma=[0.01, 1.0],
                           random_state=0).fit(adjacency, known, valid=valid)
    rows = model.cv_results_
    pairs = {(id(kernel), gamma) for kernel, gamma in zip(rows["kernel"], rows["gamma"])}
    assert {"joint", "blend", "average"} == set(rows["merge"])
    assert len(rows["kernel"]) == 3 * len(pairs) and len(pairs) > 2     # a kernel twice
    assert len(built) == 4


def test_the_estimate_is_corrected_for_the_choice(fitted):
    model, (adjacency, labels, known, features, train, valid) = fitted
    selection = model.selection_
    low, high = selection["accuracy_interval"]
    # BBC scores each bootstrap's choice on the nodes it left out: at most the best
    # validation accuracy on average, never above it by construction of the maximum.
    assert selection["accuracy"] <= selection["held_out_accuracy"] + 1e-12
    assert 0.0 <= low <= selection["accuracy"] <= high <= 1.0
    again = NodeClassifier(random_state=0).fit(adjacency, known, features=features,
                                               valid=valid)
    assert again.selection_ == selection            # reproducible for a random_state


def test_the_validation_labels_choose_but_are_never_fitted(fitted):
    honest, (adjacency, labels, known, features, train, valid) = fitted
    flipped = known.copy()
    flipped[valid] = (known[valid] + 1) % 3     # every validation label wrong
    misled = NodeClassifier(random_state=0).fit(adjacency, flipped, features=features,
                                                valid=valid)
    # The same candidates, fitted on the same nodes: the same rows but the scores.
    assert honest.cv_results_["merge"] == misled.cv_results_["merge"]
    scores = np.asarray(honest.cv_results_["mean_test_score"])
    wrong = np.asarray(misled.cv_results_["mean_test_score"])
    assert np.all(wrong < 1.0) and np.any(scores != wrong)
    # Whatever the choice, the model is fitted on the training part alone.
    np.testing.assert_array_equal(misled.train_nodes_, train)


def test_node_names_and_a_class_held_out_entirely(fitted):
    by_index, (adjacency, labels, known, features, train, valid) = fitted
    names = [f"n{i}" for i in range(labels.size)]
    graph = nx.relabel_nodes(nx.from_scipy_sparse_array(adjacency, create_using=nx.DiGraph),
                             dict(enumerate(names)))
    label_of = {names[i]: "abc"[labels[i]] for i in np.flatnonzero(known >= 0)}
    model = NodeClassifier(random_state=0).fit(
        graph, label_of, features=features, nodelist=names, valid=[names[i] for i in valid])
    assert list(model.classes_) == ["a", "b", "c"]
    assert [model.classes_.tolist().index(c) for c in model.predict(names)] == \
        by_index.predict(np.arange(labels.size)).tolist()
    # A class whose labelled nodes are all validation nodes is not predicted, and
    # counts against the configurations on the validation nodes.
    part = known.copy()
    part[train[labels[train] == 2]] = -1
    extra = np.union1d(valid, np.flatnonzero(part == 2))
    model = NodeClassifier(random_state=0).fit(adjacency, part, features=features,
                                               valid=extra)
    assert model.classes_.tolist() == [0, 1]
    assert model.selection_["held_out_accuracy"] <= np.mean(labels[extra] != 2) + 1e-12


def test_a_given_kernel_and_merge_are_kept_and_only_gamma_is_chosen():
    adjacency, labels, known, features, train, valid = problem()
    model = NodeClassifier(kernel="ppr", kernel_params={"alpha": 0.8}, gamma=[0.01, 1.0],
                           merge="average", random_state=0).fit(adjacency, known,
                                                                valid=valid)
    rows = model.cv_results_
    assert rows["merge"] == ["average"] * 2 and sorted(rows["gamma"]) == [0.01, 1.0]
    assert [recipe.params for recipe in rows["kernel"]] == [{"alpha": 0.8}] * 2
    # A merge on the training scores fits one gamma: it is scored, and kept.
    model = NodeClassifier(kernel="ppr", gamma=0.01, merge="stack_train",
                           random_state=0).fit(adjacency, known, valid=valid)
    assert model.cv_results_["merge"] == ["stack_train"]
    assert model.selection_["merge"] == "stack_train"


@pytest.mark.parametrize("setup, match", [
    (lambda known, valid: (known, np.append(valid, np.flatnonzero(known < 0)[0]), {}),
     "needs a label"),
    (lambda known, valid: (known, np.flatnonzero(known >= 0), {}), "leave some to fit"),
    (lambda known, valid: (known, valid, {"preset": "paper"}), "preset='paper'"),
    (lambda known, valid: (known, [10_000], {}), "not"),
])
def test_bad_validation_nodes_are_refused(setup, match):
    adjacency, labels, known, features, train, valid = problem()
    known, valid, params = setup(known, valid)
    with pytest.raises(ValueError, match=match):
        NodeClassifier(**params).fit(adjacency, known, features=features, valid=valid)


def test_evaluation_hands_the_validation_nodes_to_the_classifier(fitted):
    model, (adjacency, labels, known, features, train, valid) = fitted
    test = np.setdiff1d(np.arange(labels.size), np.union1d(train, valid))
    results = evaluate_node_classifier(
        lambda seed: NodeClassifier(random_state=seed), adjacency, labels,
        splits=[((0, 0), train, test)], valid=[valid], features=features, verbose=False)
    assert results.micro_f1[0] == np.mean(model.predict(test) == labels[test])
    assert results.gammas[0] == model.selection_["gamma"]


def test_each_kernels_block_is_formed_once_for_all_its_gammas(monkeypatch):
    """Candidates ranked on a sample are scored on every labelled node at their gamma:
    fitted kernel by kernel, each kernel's training block is formed (and decomposed) once
    for all its gammas, with the answers of forming it again for each."""
    from digraph_askls.models.selection import _cache, _search
    from digraph_askls.models.selection._policy import SelectionPolicy

    made, asked = [], []

    class Counting(_cache.BlockMemo):
        def dense(self, kernel, form):
            asked.append(id(kernel))
            return super().dense(kernel, lambda: made.append(("dense", id(kernel))) or form())

        def decomposition(self, kernel, build):
            asked.append(id(kernel))
            return super().decomposition(
                kernel, lambda: made.append(("decomposition", id(kernel))) or build())

    monkeypatch.setattr(_cache, "BlockMemo", Counting)
    adjacency, labels, known, features, train, valid = problem()
    policy = SelectionPolicy(racing_sample=10)      # 24 fitted nodes: ranked on 10
    kept = NodeClassifier(random_state=0, policy=policy).fit(
        adjacency, known, features=features, valid=valid)
    assert kept.selection_["engine"] == "validation"
    assert len(asked) > len(set(asked))               # a kernel at several gammas
    assert made and len(made) == len(set(made))       # ... each block made once

    # no memo: each scoring forms and decomposes its block itself, as ranked
    monkeypatch.setattr(_cache, "BlockMemo", lambda: None)
    monkeypatch.setattr(_search, "kernel_major", lambda c: list(range(len(c))))
    again = NodeClassifier(random_state=0, policy=policy).fit(
        adjacency, known, features=features, valid=valid)
    np.testing.assert_array_equal(kept.predict_proba(), again.predict_proba())
    assert kept.cv_results_["mean_test_score"] == again.cv_results_["mean_test_score"]


def test_the_order_of_fitting_leaves_the_choice_and_its_ties():
    from digraph_askls.models.selection._validation import choose_on_validation

    codes = np.array([0, 0, 1, 1, 1])
    candidates = [("k", 1.0, "joint"), ("w", 0.1, "joint"), ("k", 0.1, "joint"),
                  ("v", 1.0, "blend")]
    fitted = []

    def fit_one(recipe, gamma, merge):
        fitted.append((recipe, gamma))
        return (recipe, gamma), np.full(5, int(recipe in "wv"))     # w and v tie
    answers = [choose_on_validation(candidates, fit_one, codes, random_state=0, order=order)
               for order in (None, [0, 2, 1, 3], [3, 2, 1, 0])]
    assert fitted[4:8] == [("k", 1.0), ("k", 0.1), ("w", 0.1), ("v", 1.0)]
    for model, selection, rows in answers:
        assert model == ("w", 0.1)               # the first listed of the tied best
        assert rows["rank_test_score"] == answers[0][2]["rank_test_score"]
    with pytest.raises(ValueError, match="each of the 4 candidates"):
        choose_on_validation(candidates, fit_one, codes, order=[0, 0, 1, 2])
