"""The paper's Table 1: SVM, LS-SVM and AsK-LS with the KL kernel on Corel-1K.

Each image is a Gaussian mixture ``P_i`` of its DCT block features; the kernel is
``K[i, j] = exp(-a * KL(P_i || P_j))``. AsK-LS learns with ``K`` itself; the SVM and the
LS-SVM learn with its symmetric part ``(K + K^T) / 2``.
"""

import logging
import time

import numpy as np
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC
from tqdm.auto import tqdm

from digraph_askls.models import AsKLSClassifier, KernelViews, LSSVMClassifier
from ._corel import fit_image_gmms, get_corel_features, get_kl_divergences, load_corel
from ._protocols import check_protocol

__all__ = ["PAPER_TABLE1", "TABLE1_METHODS", "evaluate_kl_kernel", "run_table1",
           "format_table1"]

logger = logging.getLogger(__name__)

#: Micro- and macro-F1 (mean, std) printed in the paper's Table 1.
PAPER_TABLE1 = {
    "SVM": ((0.830, 0.0), (0.822, 0.0)),
    "LS-SVM": ((0.840, 0.0), (0.832, 0.0)),
    "AsK-LS": ((0.916, 0.0048), (0.914, 0.0046)),
}

#: Methods of the table; "AsK-LS (stack)" is ours, not the paper's.
TABLE1_METHODS = ("SVM", "LS-SVM", "AsK-LS", "AsK-LS (stack)")

#: Cross-validation grids: ``a`` in units of ``1 / median(KL)``, ``gamma``, SVM ``C``.
SCALES = (0.3, 1.0, 3.0, 10.0)
GAMMAS = (0.1, 1.0, 10.0, 100.0)
CS = (0.1, 1.0, 10.0, 100.0)


def _block(K, rows, cols):
    """The block ``K[rows][:, cols]`` of a kernel matrix."""
    return K[np.ix_(rows, cols)]


def _fit_predict(method, K, train, test, labels, param, random_state):
    """Train ``method`` on ``train`` with kernel ``K`` (all samples) and predict ``test``.

    ``K`` is the asymmetric kernel ``K[i, j] = k(s_i, s_j)``; the symmetric methods see
    ``(K + K^T) / 2``. AsK-LS gets the source view ``K[test][:, train]`` and the target
    view ``K[train][:, test]``.
    """
    if method in ("SVM", "LS-SVM"):
        sym = (K + K.T) / 2
        if method == "SVM":
            model = OneVsRestClassifier(SVC(kernel="precomputed", C=param))
        else:
            model = LSSVMClassifier(kernel="precomputed", gamma=param)
        model.fit(_block(sym, train, train), labels[train])
        return model.predict(_block(sym, test, train))
    merge = "stack" if method == "AsK-LS (stack)" else "average"
    model = AsKLSClassifier(kernel="precomputed", gamma=param, merge=merge,
                            random_state=random_state)
    model.fit(_block(K, train, train), labels[train])
    return model.predict(KernelViews(source=_block(K, test, train),
                                     target=_block(K, train, test)))


def _select(method, kernels, train, labels, grid, cv, seed):
    """The (scale, parameter) pair of best mean ``cv``-fold accuracy on ``train``."""
    folds = StratifiedKFold(cv, shuffle=True, random_state=seed)
    folds = [(train[fit], train[held]) for fit, held in folds.split(train, labels[train])]
    best_score, best = -np.inf, None
    for scale, K in kernels.items():
        for param in grid:
            score = np.mean([np.mean(_fit_predict(method, K, fit, held, labels, param, seed)
                                     == labels[held]) for fit, held in folds])
            logger.debug("%s a=%g/median, parameter=%g: CV accuracy %.4f", method, scale,
                         param, score)
            if score > best_score:
                best_score, best = score, (scale, param)
    return best


def evaluate_kl_kernel(divergences, labels, *, n_trials=10, test_size=0.1, cv=10,
                       methods=TABLE1_METHODS, scales=SCALES, gammas=GAMMAS, Cs=CS,
                       random_state=0, verbose=True):
    """Micro- and macro-F1 of the KL-kernel classifiers over random stratified splits.

    For each trial the samples are split ``1 - test_size`` / ``test_size`` per class;
    ``a`` of ``K = exp(-a * divergences)`` (in units of ``1 / median`` of the
    off-diagonal training divergences) and ``gamma`` (LS-SVM, AsK-LS) or ``C`` (SVM) are
    chosen by ``cv``-fold cross-validation accuracy on the training part. The SVM is
    one-vs-rest ``SVC`` and, like the LS-SVM, uses ``(K + K^T) / 2``; AsK-LS uses ``K``.
    ``"AsK-LS (stack)"`` reuses the ``a`` and ``gamma`` chosen for ``"AsK-LS"`` (its
    stacking already runs inner folds, which would make a grid search ten times dearer).

    Parameters
    ----------
    divergences : ndarray of shape (n_samples, n_samples)
        ``divergences[i, j] = KL(P_i || P_j)``.
    labels : array-like of shape (n_samples,)
        Class labels.
    n_trials : int, default=10
        Number of random splits.
    test_size : float, default=0.1
        Fraction of each class held out for testing.
    cv : int, default=10
        Cross-validation folds on the training part.
    methods : sequence of str, default=TABLE1_METHODS
        Any of ``"SVM"``, ``"LS-SVM"``, ``"AsK-LS"``, ``"AsK-LS (stack)"``.
    scales, gammas, Cs : sequence of float
        Grids of ``a * median``, of ``gamma`` and of ``C``.
    random_state : int, default=0
        Base seed of the splits, folds and stacking.
    verbose : bool, default=True
        Show a progress bar over the trials.

    Returns
    -------
    list of dict
        One row per method: ``micro_f1`` and ``macro_f1`` per trial, their means and
        standard deviations, the chosen ``scale`` and ``param`` per trial, ``seconds``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> labels = np.repeat([0, 1], 20)
    >>> divergences = 1.0 + 4.0 * (labels[:, None] != labels) + rng.random((40, 40))
    >>> rows = evaluate_kl_kernel(divergences, labels, n_trials=1, cv=3,
    ...                           methods=["AsK-LS"], verbose=False)
    >>> rows[0]["micro_f1"]
    [1.0]
    """
    divergences = np.asarray(divergences, dtype=float)
    labels = np.asarray(labels)
    n = labels.shape[0]
    if divergences.ndim != 2 or divergences.shape != (n, n):
        raise ValueError(f"divergences must be square with one row per label, expected "
                         f"shape ({n}, {n}), got {divergences.shape}")
    unknown = sorted(set(methods) - set(TABLE1_METHODS))
    if unknown:
        raise ValueError(f"unknown methods {unknown}; choose from {list(TABLE1_METHODS)}")
    results = {method: dict(micro_f1=[], macro_f1=[], scale=[], param=[], seconds=0.0)
               for method in methods}
    for trial in tqdm(range(n_trials), desc="Table 1 splits", disable=not verbose):
        seed = int(np.random.default_rng([random_state, trial]).integers(2**31))
        train, test = train_test_split(np.arange(n), test_size=test_size, stratify=labels,
                                       random_state=seed)
        off_diagonal = _block(divergences, train, train)[~np.eye(train.size, dtype=bool)]
        median = float(np.median(off_diagonal))
        kernels = {scale: np.exp(-(scale / median) * divergences) for scale in scales}
        chosen = {}
        for method in methods:
            start = time.perf_counter()
            if method == "AsK-LS (stack)" and "AsK-LS" in chosen:
                scale, param = chosen["AsK-LS"]
            else:
                grid = Cs if method == "SVM" else gammas
                scale, param = _select(method, kernels, train, labels, grid, cv, seed)
            chosen[method] = scale, param
            predicted = _fit_predict(method, kernels[scale], train, test, labels, param, seed)
            result = results[method]
            result["micro_f1"].append(float(f1_score(labels[test], predicted,
                                                     average="micro")))
            result["macro_f1"].append(float(f1_score(labels[test], predicted,
                                                     average="macro")))
            result["scale"].append(scale)
            result["param"].append(param)
            result["seconds"] += time.perf_counter() - start
            logger.info("trial %d %s: micro-F1 %.4f, macro-F1 %.4f (a = %g / median KL, "
                        "%s = %g)", trial, method, result["micro_f1"][-1],
                        result["macro_f1"][-1], scale, "C" if method == "SVM" else "gamma",
                        param)
    rows = []
    for method, result in results.items():
        micro, macro = np.asarray(result["micro_f1"]), np.asarray(result["macro_f1"])
        rows.append(dict(method=method, trials=n_trials, cv=cv, **result,
                         micro_mean=float(micro.mean()), micro_std=float(micro.std()),
                         macro_mean=float(macro.mean()), macro_std=float(macro.std())))
    return rows


def run_table1(corel_dir, *, n_trials=10, n_components=16, cache_dir=None, random_state=0,
               cv=10, colour="ycbcr", n_samples=256, n_jobs=None, verbose=True):
    """The paper's Table 1 on the Corel-1K images, beside the paper's numbers.

    Computes (or loads from ``cache_dir``) the DCT features (step 4, at most 1000 blocks
    per image), one diagonal GMM with ``n_components`` components per image and the
    Monte Carlo matrix ``KL(P_i || P_j)`` with ``n_samples`` draws, then runs
    :func:`evaluate_kl_kernel` on random 90/10 splits per class.

    Parameters
    ----------
    corel_dir : str or path
        Folder of the 1000 Corel images (see :func:`load_corel`).
    n_trials : int, default=10
        Number of random splits.
    n_components : int, default=16
        Components of each image's mixture (the paper uses 256).
    cache_dir : str, path or None, default=None
        Folder caching features, mixtures and divergences.
    random_state : int, default=0
        Seed of the features, mixtures, draws and splits.
    cv : int, default=10
        Cross-validation folds on the training part.
    colour : {"ycbcr", "luminance"}, default="ycbcr"
        DCT coefficients of the three YCbCr channels or of the luminance alone.
    n_samples : int, default=256
        Monte Carlo draws per mixture for the divergences.
    n_jobs : int, optional
        Parallel jobs of the mixture fits.
    verbose : bool, default=True
        Show progress bars.

    Returns
    -------
    list of dict
        The rows of :func:`evaluate_kl_kernel` with ``paper_micro`` and ``paper_macro``
        ((mean, std), or None for a method the paper does not report) and the settings.
    """
    check_protocol(n_trials, cv)
    start = time.perf_counter()
    images, labels = load_corel(corel_dir)
    features = get_corel_features(images, step=4, colour=colour, max_blocks=1000,
                                  random_state=random_state, cache_dir=cache_dir,
                                  verbose=verbose)
    gmms = fit_image_gmms(features, n_components, reg_covar=1.0, random_state=random_state,
                          cache_dir=cache_dir, n_jobs=n_jobs, verbose=verbose)
    divergences = get_kl_divergences(gmms, n_samples=n_samples, random_state=random_state,
                                     cache_dir=cache_dir, verbose=verbose)
    pipeline_seconds = time.perf_counter() - start
    logger.info("Corel features, mixtures and divergences in %.1f s", pipeline_seconds)
    rows = evaluate_kl_kernel(divergences, labels, n_trials=n_trials, cv=cv,
                              random_state=random_state, verbose=verbose)
    for row in rows:
        paper = PAPER_TABLE1.get(row["method"])
        row.update(paper_micro=None if paper is None else list(paper[0]),
                   paper_macro=None if paper is None else list(paper[1]),
                   n_components=n_components, colour=colour, n_samples=n_samples,
                   pipeline_seconds=pipeline_seconds)
    return rows


def format_table1(rows):
    """A markdown table of :func:`run_table1` rows beside the paper's numbers.

    Examples
    --------
    >>> row = dict(method="AsK-LS", micro_mean=0.9, micro_std=0.01, macro_mean=0.89,
    ...            macro_std=0.02, paper_micro=[0.916, 0.0048], paper_macro=[0.914, 0.0046])
    >>> print(format_table1([row]).splitlines()[2])
    | AsK-LS | 0.900 ± 0.010 | 0.916 ± 0.005 | 0.890 ± 0.020 | 0.914 ± 0.005 |
    """
    def cell(pair):
        return "–" if pair is None else f"{pair[0]:.3f} ± {pair[1]:.3f}"

    lines = ["| method | micro-F1 ours | micro-F1 paper | macro-F1 ours | macro-F1 paper |",
             "|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['method']} | {cell((row['micro_mean'], row['micro_std']))} | "
                     f"{cell(row.get('paper_micro'))} | "
                     f"{cell((row['macro_mean'], row['macro_std']))} | "
                     f"{cell(row.get('paper_macro'))} |")
    return "\n".join(lines)
