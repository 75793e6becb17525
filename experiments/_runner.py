"""Run the methods of a results table on one graph, split by split, through a cell cache.

Each (method, split) is measured by :func:`evaluate_node_classifier` on that split alone
and saved at once in a :class:`CellCache`; cells already in the cache are read instead of
measured. A method's row sums up its cells.
"""

import datetime
import logging
import warnings

from tqdm.auto import tqdm

from digraph_askls.linalg import SingularSystemWarning
from ._cells import split_key
from digraph_askls.model_selection import TrialResults, evaluate_node_classifier

__all__ = ["run_graph"]

logger = logging.getLogger(__name__)


def _blas_threads():
    """Threads of the BLAS libraries loaded in this process (the largest), or None."""
    from threadpoolctl import threadpool_info

    counts = [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]
    return max(counts) if counts else None


def _measure(make, method, graph, split, valid, name):
    """One cell: fit and score ``make(seed)`` on one split."""
    made, predictions = [], []

    def make_and_keep(seed):
        classifier = make(seed)
        predict = getattr(classifier, "predict", None)
        if predict is not None:
            def predict_and_keep(*arguments, **options):
                predictions.append(predict(*arguments, **options))
                return predictions[-1]

            # this instance alone: what it predicted is digested into the cell
            classifier.predict = predict_and_keep
        made.append(classifier)
        return classifier

    with warnings.catch_warnings():
        # Some training systems of AsK-LS are singular; they are solved damped, on purpose.
        warnings.simplefilter("ignore", SingularSystemWarning)
        # The walk and link-profile columns read the structure alone on purpose, on the
        # same inputs (and so the same folds) as the others.
        warnings.filterwarnings("ignore", message=".* are not read by the kernel",
                                category=UserWarning)
        results = evaluate_node_classifier(
            make_and_keep, graph.adjacency, graph.labels, splits=[split],
            valid=None if valid is None else [valid], features=graph.features,
            name=f"{name}: {method}", verbose=False)
    classifier = made[-1]
    torch_threads = getattr(classifier, "n_threads_", None)
    selection = getattr(classifier, "selection_", None)
    estimate = selection.get("accuracy") if isinstance(selection, dict) else None
    return {"accuracy": results.micro_f1[0], "macro_f1": results.macro_f1[0],
            "estimate": estimate,
            "seconds": results.seconds[0], "kernel": results.kernels[0],
            "gamma": results.gammas[0],
            "threads": torch_threads if torch_threads is not None else _blas_threads(),
            "thread_kind": "torch" if torch_threads is not None else "BLAS",
            "epochs": getattr(classifier, "n_epochs_", None),
            "best_epoch": getattr(classifier, "best_epoch_", None),
            "measured": datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds"),
            **_digests(classifier, predictions)}


def _digests(classifier, predictions):
    """The digests of a cell's estimator parameters and of its predictions, where there
    are (:func:`._cells.params_digest`, :func:`._cells.predictions_digest`)."""
    from ._cells import params_digest, predictions_digest

    found = {}
    if hasattr(classifier, "get_params"):
        found["params_digest"] = params_digest(classifier)
    if predictions:
        found["predictions_digest"] = predictions_digest(predictions[-1])
    return found


def _summary(method, cells):
    """The row fields of a method from its cells."""
    results = TrialResults(method)
    results.micro_f1 = [cell["accuracy"] for cell in cells]
    results.macro_f1 = [cell["macro_f1"] for cell in cells]
    results.seconds = [cell["seconds"] for cell in cells]
    results.kernels = [cell.get("kernel") for cell in cells]
    results.gammas = [cell.get("gamma") for cell in cells]
    summary = results.summary()
    threads = sorted({(cell.get("thread_kind"), cell.get("threads")) for cell in cells},
                     key=str)
    return {"accuracy_mean": summary["micro_f1_mean"], "accuracy_std": summary["micro_f1_std"],
            "macro_f1_mean": summary["macro_f1_mean"], "macro_f1_std": summary["macro_f1_std"],
            "seconds_per_split": summary["seconds_per_trial"], "accuracy": results.micro_f1,
            "seconds": results.seconds, "selected_families": summary["selected_kernels"],
            "estimates": [cell.get("estimate") for cell in cells],
            "selected_gammas": results.gammas if method.startswith("AsK-LS") else None,
            "threads": ", ".join(f"{kind} {count}" for kind, count in threads),
            "epochs": [cell.get("epochs") for cell in cells],
            "splits_measured": [cell["split"] for cell in cells]}


def run_graph(name, graph, methods, splits, valid, protocol, *, make, settings, cache,
              recompute=(), cached_only=False, verbose=True, skip=None, validates=None):
    """Rows of ``methods`` on one graph, each from its cells (cached or measured now).

    Parameters
    ----------
    name : str
        The graph's name in the table and the cache.
    graph : Graph
    methods : sequence of str
    splits : list of (seed, train, test)
    valid : list of arrays or None
        Validation nodes of each split (fixed splits), else None.
    protocol : str
        "fixed splits", "random 60/40", "20 labels per class", ...
    make : callable
        ``make(method)`` returns ``make_classifier(seed)``.
    settings : callable
        ``settings(method)``: the JSON-serialisable settings that key a method's cells.
    cache : CellCache
    recompute : collection of str
        Methods measured again even where the cache has their cells.
    cached_only : bool
        Measure nothing but the ``recompute`` methods: rows from the cached cells alone
        (possibly fewer splits).
    verbose : bool
        Progress bars.
    skip : callable, optional
        ``skip(method)`` returns a status string for a method not run on this graph
        (e.g. one that needs node attributes), else None.
    validates : callable, optional
        ``validates(method)``: whether the method's classifier gets the validation nodes
        (with their labels; see :func:`~digraph_askls.model_selection.evaluate_node_classifier`).
        None: every method that takes them. The cells are keyed by the validation nodes
        either way.

    Returns
    -------
    list of dict
    """
    base = {"graph": name, "protocol": protocol, "published": False, "source": None,
            "seeds": [list(seed) for seed, _, _ in splits]}
    valid = [None] * len(splits) if valid is None else list(valid)
    rows = []
    for method in methods:
        reason = skip(method) if skip is not None else None
        if reason:
            rows.append({**base, "method": method, "n_splits": 0, "status": reason})
            continue
        cells, error = [], None
        for split, nodes in tqdm(list(zip(splits, valid)), desc=f"{name}: {method}",
                                 disable=not verbose, leave=False):
            seed, train, test = split
            key = {"graph": name, "protocol": protocol, "method": method, "split": list(seed),
                   "split_key": split_key(train, test, nodes), "settings": settings(method)}
            cell = None if method in recompute else cache.get(key)
            if cell is not None and "error" in cell:
                error = cell["error"]           # a draw found unlearnable before
                break
            if cell is None and (not cached_only or method in recompute):
                try:
                    given = nodes if validates is None or validates(method) else None
                    cell = _measure(make(method), method, graph, split, given, name)
                except ImportError as exc:      # an optional dependency is missing
                    error = f"not available: {exc}"
                    break
                except ValueError as exc:       # a draw the method cannot learn from
                    error = f"not run: split {list(seed)}: {exc}"
                    cache.put(key, {"error": error})    # so that a redrawn table says so
                    break
                cell = cache.put(key, cell)
                logger.info("%s %s %s split %s: accuracy %.4f in %.1f s", name, protocol,
                            method, list(seed), cell["accuracy"], cell["seconds"])
            if cell is not None:
                cells.append(cell)
        if error is not None:
            rows.append({**base, "method": method, "n_splits": 0, "status": error})
        elif not cells:
            rows.append({**base, "method": method, "n_splits": 0,
                         "status": "not measured yet"})
        else:
            rows.append({**base, "method": method, "status": "ok", "n_splits": len(cells),
                         "features": graph.features is not None and
                         (method.startswith("AsK-LS") or settings(method) is not None),
                         **_summary(method, cells)})
            logger.info("%s %s: accuracy %.3f over %d splits", name, method,
                        rows[-1]["accuracy_mean"], len(cells))
    return rows

