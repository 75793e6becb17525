"""The scores of a node classifier over the splits of a protocol."""

import inspect
import logging
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from sklearn.metrics import f1_score
from tqdm.auto import tqdm

from ..kernels import NamedKernel, SumKernel
from ._split import _check_codes

__all__ = ["TrialResults", "evaluate_node_classifier", "kernel_family", "takes_valid"]

logger = logging.getLogger(__name__)


@dataclass
class TrialResults:
    """Scores of one method over the trials of a protocol.

    ``kernels`` and ``gammas`` hold, per trial, the kernel family and gamma that a
    selecting classifier (:class:`NodeClassifier`) chose; None for other classifiers.
    """

    name: str
    micro_f1: list = field(default_factory=list)
    macro_f1: list = field(default_factory=list)
    seconds: list = field(default_factory=list)
    kernels: list = field(default_factory=list)
    gammas: list = field(default_factory=list)

    def summary(self):
        """Mean and standard deviation of each score, the mean time per trial, and how
        often each kernel family was selected (None when nothing was selected)."""
        def stats(values):
            values = np.asarray(values, dtype=float)
            return (float(values.mean()), float(values.std())) if values.size else (np.nan,) * 2

        micro, macro, seconds = stats(self.micro_f1), stats(self.macro_f1), stats(self.seconds)
        chosen = Counter(kernel for kernel in self.kernels if kernel is not None)
        return {"method": self.name, "trials": len(self.micro_f1),
                "micro_f1_mean": micro[0], "micro_f1_std": micro[1],
                "macro_f1_mean": macro[0], "macro_f1_std": macro[1],
                "seconds_per_trial": seconds[0],
                "selected_kernels": dict(chosen.most_common()) if chosen else None}

    def record(self, y_true, y_pred, seconds, kernel=None, gamma=None):
        self.micro_f1.append(float(f1_score(y_true, y_pred, average="micro")))
        self.macro_f1.append(float(f1_score(y_true, y_pred, average="macro")))
        self.seconds.append(float(seconds))
        self.kernels.append(kernel)
        self.gammas.append(None if gamma is None else float(gamma))


def kernel_family(recipe):
    """A short name of a kernel recipe: its repr without default parameters, the registry
    name of a kernel given by name (``"ppr"``), or its weighted parts for a sum.

    Examples
    --------
    >>> from digraph_askls.kernels import RoleKernel, WalkKernel
    >>> kernel_family(WalkKernel()), kernel_family(WalkKernel() + 0.5 * RoleKernel(bins=8))
    ('WalkKernel()', 'WalkKernel() + 0.5 RoleKernel(bins=8)')
    """
    if isinstance(recipe, SumKernel):
        return " + ".join(kernel_family(part) if weight == 1 else
                          f"{weight:g} {kernel_family(part)}" for weight, part in recipe.parts)
    if isinstance(recipe, NamedKernel):
        return recipe.name
    return " ".join(repr(recipe).split())


def _selection(classifier):
    """The (kernel family, gamma) a fitted classifier selected, or (None, None)."""
    selection = getattr(classifier, "selection_", None)
    if not isinstance(selection, dict) or "kernel" not in selection:
        return None, None
    return kernel_family(selection["kernel"]), selection.get("gamma")


def takes_features(classifier):
    """Whether ``classifier.fit`` accepts node attributes (a ``features`` keyword)."""
    try:
        return "features" in inspect.signature(classifier.fit).parameters
    except (TypeError, ValueError):      # builtins or C callables without a signature
        return False


def takes_valid(classifier):
    """Whether ``classifier.fit`` accepts validation nodes (a ``valid`` keyword)."""
    try:
        return "valid" in inspect.signature(classifier.fit).parameters
    except (TypeError, ValueError):
        return False


def _run_trial(make_classifier, adjacency, labels, seed, train, test, features=None,
               valid=None):
    known = np.full(labels.size, -1)
    known[train] = labels[train]
    start = time.perf_counter()
    classifier = make_classifier(seed[1])
    options = {}
    if features is not None and takes_features(classifier):
        options["features"] = features
    if valid is not None and takes_valid(classifier):
        # Only a classifier that holds validation nodes out of training sees their labels.
        known[valid] = labels[valid]
        options["valid"] = valid
    classifier.fit(adjacency, known, **options)
    predicted = classifier.predict(test)
    return predicted, time.perf_counter() - start, *_selection(classifier)


def evaluate_node_classifier(make_classifier, adjacency, labels, *, splits, name="AsK-LS",
                             features=None, verbose=True, n_jobs=None, valid=None):
    """Fit and score a node classifier on each split.

    Parameters
    ----------
    make_classifier : callable
        ``make_classifier(seed)`` returns an unfitted classifier with ``fit(graph,
        labels)`` and ``predict(nodes)`` (the NodeClassifier protocol).
    adjacency : sparse matrix
        The graph (row = source).
    labels : ndarray of int
        Classes of all nodes (``-1`` unlabelled).
    splits : list
        Output of :func:`random_splits`, :func:`class_splits` or :func:`fixed_splits`.
    name : str
        Method name in the results.
    features : array-like or sparse matrix, optional
        Node attributes, in node order. They are passed as ``fit(..., features=features)``
        to classifiers whose ``fit`` takes a ``features`` keyword (:class:`NodeClassifier`);
        structure-only classifiers (the scikit-network peers) are fitted without them.
    verbose : bool
        Show a progress bar.
    n_jobs : int, optional
        Trials run at once through :class:`joblib.Parallel` (None: one at a time, in this
        process). Inside ``with joblib.parallel_backend("dask"):`` and a
        ``dask.distributed.Client`` the trials run on the cluster; the scores are the
        same as in the serial run, only ``seconds`` differ.
    valid : list of arrays, optional
        Validation nodes of each split, in the order of ``splits`` (e.g. ``[split.valid
        for split in graph.splits]``). Classifiers whose ``fit`` takes a ``valid`` keyword
        get them with their labels: :class:`~digraph_askls.NodeClassifier` chooses its
        kernel, gamma and merge on them, the GNN peers choose their epoch; neither fits
        them. The others never see them.

    Returns
    -------
    TrialResults

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls import NodeClassifier
    >>> from digraph_askls.graph import get_adjacency
    >>> adjacency, _ = get_adjacency([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)])
    >>> labels = np.array([0, 0, 0, 1, 1, 1])
    >>> features = np.array([[1.0, 0.0]] * 3 + [[0.0, 1.0]] * 3)
    >>> splits = [((0, 0), np.array([0, 1, 3, 4]), np.array([2, 5]))]
    >>> results = evaluate_node_classifier(
    ...     lambda seed: NodeClassifier(merge="average", random_state=seed), adjacency,
    ...     labels, splits=splits, features=features, verbose=False)
    >>> results.micro_f1
    [1.0]
    """
    labels = _check_codes(labels)
    results = TrialResults(name)
    valid = [None] * len(splits) if valid is None else list(valid)
    if len(valid) != len(splits):
        raise ValueError(f"expected validation nodes for each of the {len(splits)} splits, "
                         f"got {len(valid)}")
    if n_jobs is None:
        outputs = (_run_trial(make_classifier, adjacency, labels, *split, features, nodes)
                   for split, nodes in zip(splits, valid))
    else:
        from joblib import Parallel, delayed

        # Results come back in order as they finish, so the bar counts finished trials,
        # not dispatched ones.
        outputs = Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(_run_trial)(make_classifier, adjacency, labels, *split, features, nodes)
            for split, nodes in zip(splits, valid))
    progress = tqdm(outputs, total=len(splits), desc=name, disable=not verbose, leave=False)
    for (seed, _, test), (predicted, seconds, kernel, gamma) in zip(splits, progress):
        results.record(labels[test], predicted, seconds, kernel, gamma)
        logger.info("%s trial %s: micro-F1 %.4f", name, seed, results.micro_f1[-1])
    return results
