"""Choosing on validation nodes, as published protocols with a validation split do.

With ``NodeClassifier().fit(graph, labels, valid=nodes)`` the labelled ``nodes`` are not
fitted: they judge the configurations instead of folds of the fitted nodes. The
candidates are the (kernel, gamma) rows that the folds of the fitted nodes rank
(``cv_results_`` of the ordinary selection), each with every merge the selection
compares; each is fitted on the fitted nodes alone, as
``NodeClassifier(kernel=..., gamma=..., merge=...)`` would be, and scored on the
validation nodes. The best validation accuracy wins; on a tie, the configuration the
folds chose, then the better ranked row, then the merge listed first.

The validation accuracy of the best of many configurations flatters it, as the best
held-out accuracy of folds does: ``selection_["accuracy"]`` is its BBC estimate over the
validation nodes (:func:`~._estimate.bootstrap_bias_corrected`), the raw figure is
``selection_["held_out_accuracy"]``.
"""

import time

import numpy as np
from tqdm.auto import tqdm

from ._estimate import bootstrap_bias_corrected, estimate_rng
from ._results import RANK_TIES, ResultsTable, selection_record
from ._scoring import ProbabilityRows

__all__ = ["choose_on_validation", "kernel_major", "validation_candidates"]


def validation_candidates(rows, selection, merges_of):
    """The configurations to judge, in the order that breaks ties.

    Parameters
    ----------
    rows : dict of lists
        ``cv_results_`` of the ordinary selection (``kernel``, ``gamma``,
        ``rank_test_score``); empty lists when one configuration was fitted.
    selection : dict
        ``selection_`` of the ordinary selection: its ``kernel``, ``gamma`` and ``merge``
        come first.
    merges_of : callable
        ``merges_of(recipe)``: the names of the merges to try with a kernel.

    Returns
    -------
    list of (recipe, gamma, merge)

    Examples
    --------
    >>> rows = {"kernel": ["a", "b"], "gamma": [1.0, 0.1], "rank_test_score": [2, 1]}
    >>> validation_candidates(rows, {"kernel": "b", "gamma": 0.1, "merge": "blend"},
    ...                       lambda recipe: ("joint", "blend"))
    [('b', 0.1, 'blend'), ('b', 0.1, 'joint'), ('a', 1.0, 'joint'), ('a', 1.0, 'blend')]
    """
    pairs = [(recipe, float(gamma)) for _, recipe, gamma in sorted(
        zip(rows["rank_test_score"], rows["kernel"], rows["gamma"]), key=lambda row: row[0])]
    chosen = (selection["kernel"], float(selection["gamma"]))
    pairs = [chosen] + [pair for pair in pairs
                        if not (pair[0] is chosen[0] and pair[1] == chosen[1])]
    candidates = []
    for recipe, gamma in pairs:
        merges = list(merges_of(recipe))
        if recipe is chosen[0] and gamma == chosen[1] and selection["merge"] in merges:
            merges.remove(selection["merge"])
            merges.insert(0, selection["merge"])
        candidates.extend((recipe, gamma, merge) for merge in merges)
    return candidates


def kernel_major(candidates):
    """The positions of ``candidates`` in the order that fits them kernel by kernel:
    every candidate of a recipe after the first one's, the recipes in the order they
    first appear, each recipe's candidates in their own order (so that a kernel's block
    is formed and decomposed once for all its gammas, :class:`~._engines.BlockMemo`).

    Examples
    --------
    >>> kernel_major([("a", 1.0, "joint"), ("b", 1.0, "joint"), ("a", 0.1, "joint")])
    [0, 2, 1]
    """
    first = {}
    for position, (recipe, _, _) in enumerate(candidates):
        first.setdefault(id(recipe), position)
    return sorted(range(len(candidates)), key=lambda p: first[id(candidates[p][0])])


def choose_on_validation(candidates, fit_one, valid_codes, *, random_state=None,
                         interval_max=np.inf, verbose=False, scoring=None, order=None):
    """Fit every candidate, score it on the validation nodes, keep the best.

    Parameters
    ----------
    candidates : list of (recipe, gamma, merge)
        From :func:`validation_candidates`, in the order that breaks ties.
    fit_one : callable
        ``fit_one(recipe, gamma, merge)`` returns ``(model, predicted)``: the model
        fitted on the fitted nodes and its predicted classes of the validation nodes
        (under a ``scoring`` other than accuracy, its class probabilities of them,
        ``(n_valid, n_classes)``, columns the class codes).
    valid_codes : ndarray
        The validation nodes' classes, as ``predicted`` gives them.
    random_state : int, RandomState or None
        Seeds the estimate's bootstrap (:func:`~._estimate.estimate_rng`).
    interval_max : float
        ``accuracy_reliable`` is whether the estimate's interval is at most this wide.
    verbose : bool
        A progress bar over the candidates.
    scoring : Scoring, optional
        The criterion (:class:`~._scoring.Scoring`); None: the accuracy.
    order : list of int, optional
        The order in which to fit the candidates (positions in ``candidates``, for
        example :func:`kernel_major`); None: their own. It changes what is computed when,
        not the answer: ties still go to the candidate listed first.

    Returns
    -------
    model
        The best candidate's fitted model.
    selection : dict
        ``selection_`` of the fit (``engine`` ``"validation"``; ``n_valid`` validation
        nodes).
    cv_results : dict of lists
        One row per candidate.

    Examples
    --------
    Three candidates whose "models" predict constant classes:

    >>> import numpy as np
    >>> codes = np.array([0, 0, 1, 1, 1])
    >>> model, selection, rows = choose_on_validation(
    ...     [("k", 1.0, "joint"), ("k", 1.0, "blend"), ("w", 0.1, "joint")],
    ...     lambda recipe, gamma, merge: (merge, np.full(5, int(recipe == "w"))), codes,
    ...     random_state=0)
    >>> model, selection["kernel"], selection["held_out_accuracy"], rows["rank_test_score"]
    ('joint', 'w', 0.6, [2, 2, 1])
    """
    valid_codes = np.asarray(valid_codes)
    if not candidates:
        raise ValueError("expected at least one configuration to judge, got none")
    by_score = scoring is not None and not scoring.is_accuracy
    order = list(range(len(candidates))) if order is None else list(order)
    if sorted(order) != list(range(len(candidates))):
        raise ValueError(f"order must list each of the {len(candidates)} candidates' "
                         f"positions once, got {order}")
    fitted = {}
    for position in tqdm(order, desc="validation", disable=not verbose, leave=False):
        start = time.perf_counter()
        model, predicted = fit_one(*candidates[position])
        held_one = (np.asarray(predicted) if by_score
                    else np.asarray(predicted) == valid_codes)
        fitted[position] = (model, held_one, time.perf_counter() - start)
    held, values, seconds, best, best_model = [], [], [], None, None
    for position in range(len(candidates)):     # ties: the candidate listed first
        model, held_one, elapsed = fitted.pop(position)
        held.append(held_one)
        seconds.append(elapsed)
        values.append(scoring(valid_codes, held[-1]) if by_score else held[-1].mean())
        if best is None or values[-1] > values[best]:
            best, best_model = position, model
    hits = (ProbabilityRows(np.stack(held), valid_codes, scoring) if by_score
            else np.vstack(held))
    accuracy = np.asarray(values) if by_score else hits.mean(axis=1)
    estimate, interval = bootstrap_bias_corrected(hits, estimate_rng(random_state))
    recipe, gamma, _ = candidates[best]
    fitted_merge = getattr(getattr(best_model, "estimator_", None), "merge",
                           candidates[best][2])
    held_out_accuracy = (float(np.mean(np.argmax(hits.probas[best], axis=1) == valid_codes))
                         if by_score else None)
    selection = selection_record(
        recipe, gamma, score=float(accuracy[best]), estimate=estimate, interval=interval,
        held_out=float(accuracy[best]), optimism=None, engine="validation",
        merge=fitted_merge, n_folds=None, interval_max=interval_max, scoring=scoring,
        held_out_accuracy=held_out_accuracy, n_valid=int(valid_codes.size))
    rows = ResultsTable()
    hit_rates = hits.hits.mean(axis=1) if by_score else accuracy
    for (recipe, gamma, merge), value, rate, elapsed in zip(candidates, accuracy, hit_rates,
                                                            seconds):
        rows.add(recipe, gamma, "validation", float(value), float(rate), merge, elapsed,
                 int(valid_codes.size))
    return best_model, selection, rows.columns(RANK_TIES["validation"])
