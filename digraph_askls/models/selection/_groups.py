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

The answer is checked against the trivial ones on the groups' held-out predictions
(every label, exactly; the most probable label alone, at most: one label per node
that is right wherever one group's prediction is): below the better by less than
``SelectionPolicy.trivial_margin`` a warning names the scorer and the trivial score,
and where every label scores that much, ``predict`` answers every label.
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
    held = _held_out(results, columns, Y.shape)
    answer, value = _answer(Y, held, columns, problem.scoring, problem.policy)
    models = [FittedModel.of(result, problem.train) for result in results]
    groups = tuple(np.sort(c) for c in columns)
    selection = grouped_record(groups, [result.selection for result in results],
                               scoring=problem.scoring, held_out=value)
    estimator = LabelGroups(columns, models, Y.shape[1], answer)
    kernel = tuple(result.kernel for result in results)
    every = answer == "every label"
    thresholds = np.full(Y.shape[1], -np.inf if every else np.inf)
    return SearchResult(kernel, estimator, selection,
                        grouped_columns([result.cv_results for result in results]), None,
                        None, thresholds, None if every else groups)


def _held_out(results, columns, shape):
    """The 0/1 held-out answer of one label per group (m, L), or None where a group's
    selection kept no held-out predictions of every labelled node."""
    predicted = np.zeros(shape, dtype=int)
    rows = np.arange(shape[0])
    for result, group in zip(results, columns):
        held = result.held_out
        if held is None or len(held) != shape[0]:
            return None
        predicted[rows, group[result.estimator.classes_[held]]] = 1
    return predicted


def _best_single(Y, held, columns):
    """One label per node, right wherever one group's held-out prediction is: what the
    most probable label alone scores at most."""
    hits = (held > 0) & (Y > 0)
    fallback = columns[0][np.argmax(held[:, columns[0]], axis=1)]
    chosen = np.where(hits.any(axis=1), np.argmax(hits, axis=1), fallback)
    single = np.zeros_like(Y)
    single[np.arange(len(Y)), chosen] = 1
    return single


def _answer(Y, held, columns, scoring, policy):
    """``(answer, held-out score of one label per group)``; see the module."""
    if held is None:
        return "one per group", None
    average = MULTILABEL_SCORES[scoring]
    value = _score(Y, held, average)
    trivial = {"every label": _score(Y, np.ones_like(Y), average),
               "most probable label": _score(Y, _best_single(Y, held, columns), average)}
    name = max(trivial, key=trivial.get)
    if value >= trivial[name] + policy.trivial_margin:
        return "one per group", value
    answer = "every label" if value < trivial["every label"] + policy.trivial_margin \
        else "one per group"
    bound = " at most" if name == "most probable label" else ""
    warnings.warn(
        f"several labels: on held-out folds one label per group scores {scoring} "
        f"{value:.4f}, not {policy.trivial_margin} above the trivial answer '{name}' "
        f"({scoring}{bound} {trivial[name]:.4f}): predict answers '{answer}'. The "
        f"graph's structure tells these labels apart little.", UserWarning, stacklevel=2)
    return answer, value
