"""Several labels per node that split into groups of exclusive labels: one single-label
selection per group.

Where every labelled node carries exactly one label of each group of labels (the
classes of independent partitions of the nodes written as one 0/1 target;
:func:`~._answers.label_groups` finds the groups from the labels' co-occurrence on the
labelled nodes), each group is one single-label problem: its own selection (the folds
route of :func:`~._search.search`, with the single-label candidates, weights screen,
race and merges) is run on it, and ``predict`` answers each group's predicted class.
On the two-partition directed SBMs (``datasets.make_multilabel_sbm``) this is what the
single-label default fitted on each partition and combined scores; the several-label
selection, whose candidates are built for overlapping labels, scored 0.14 less at
``p_same`` 0.7 (``docs/results/bench_multilabel_sbm.json``).

The answer is checked against the trivial ones (every label; the most probable label
alone) on the groups' held-out probabilities, those that chose each group's merge: short
of the better trivial answer by ``SelectionPolicy.trivial_margin``, a warning names the
scorer and the trivial score, and ``predict`` answers the best of the three there.
"""

import warnings

import numpy as np

from .._node_model import FittedModel, LabelGroups
from ._answers import MULTILABEL_SCORES, _score
from ._results import SearchResult, grouped_columns, grouped_record

__all__ = ["search_groups"]


def search_groups(problem, search):
    """The fitted :class:`~._results.SearchResult` of ``problem`` (a several-label
    :class:`~._search.Problem` whose ``label_groups`` hold, per group, its columns by
    class code, and the single-label ``SearchSpace`` and ``Problem`` of its classes),
    each group chosen by ``search``."""
    Y = problem.target
    columns = [np.asarray(group[0]) for group in problem.label_groups]
    results = [search(space, group_problem)
               for _, space, group_problem in problem.label_groups]
    answer, value = _answer(Y, _held_out(results, columns, Y.shape), columns,
                            problem.scoring, problem.policy)
    models = [FittedModel.of(result, problem.train) for result in results]
    groups = tuple(np.sort(c) for c in columns)
    selection = grouped_record(groups, [result.selection for result in results],
                               scoring=problem.scoring, held_out=value)
    estimator = LabelGroups(columns, models, Y.shape[1], answer)
    kernel = tuple(result.kernel for result in results)
    # thresholds_ as the several-label selection writes them (-inf: every label); the
    # groups' models answer, not the thresholds
    every = answer == "every label"
    thresholds = np.full(Y.shape[1], -np.inf if every else np.inf)
    return SearchResult(kernel, estimator, selection,
                        grouped_columns([result.cv_results for result in results]), None,
                        None, thresholds)


def _held_out(results, columns, shape):
    """The held-out probabilities of the labels (m, L), each group's from its winner's
    held-out probabilities (clipped at 0 and normalised, as a stand-in's predictions
    are read), or None where a group's selection kept none of every labelled node."""
    proba = np.zeros(shape)
    for result, group in zip(results, columns):
        held = result.held_out_proba
        if held is None or len(held) != shape[0]:
            return None
        held = np.clip(held, 0.0, None)
        total = held.sum(axis=1, keepdims=True)
        held = np.divide(held, total, out=np.full(held.shape, 1.0 / held.shape[1]),
                         where=total > 0)
        proba[:, group[result.estimator.classes_]] = held
    return proba


def _one_per_group(proba, columns):
    """0/1 answer of the most probable label of each group."""
    predicted = np.zeros(proba.shape, dtype=int)
    rows = np.arange(len(proba))
    for group in columns:
        predicted[rows, group[np.argmax(proba[:, group], axis=1)]] = 1
    return predicted


def _answer(Y, proba, columns, scoring, policy):
    """``(answer, held-out score of one label per group)`` from the held-out
    probabilities ``proba`` (m, L); see the module."""
    if proba is None:
        return "one per group", None
    average = MULTILABEL_SCORES[scoring]
    value = _score(Y, _one_per_group(proba, columns), average)
    top = np.zeros(Y.shape, dtype=int)
    top[np.arange(len(Y)), np.argmax(proba, axis=1)] = 1
    trivial = {"every label": _score(Y, np.ones_like(Y), average),
               "most probable label": _score(Y, top, average)}
    name = max(trivial, key=trivial.get)
    if value >= trivial[name] + policy.trivial_margin:
        return "one per group", value
    answer = max(("one per group", value), *trivial.items(), key=lambda pair: pair[1])[0]
    warnings.warn(
        f"several labels: on held-out folds one label per group scores {scoring} "
        f"{value:.4f}, not {policy.trivial_margin} above the trivial answer '{name}' "
        f"({scoring} {trivial[name]:.4f}): predict answers '{answer}'. The graph's "
        f"structure tells these labels apart little.", UserWarning, stacklevel=2)
    return answer, value
