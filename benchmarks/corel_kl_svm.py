"""Sanity check of the Corel-1K pipeline: SVM with the symmetrised KL kernel.

Computes (or loads from the cache) the DCT features, one GMM per image and the Monte Carlo
KL matrix, then classifies with ``SVC(kernel="precomputed")`` on ``(K + K^T) / 2`` where
``K = exp(-a KL)``, on random 90/10 per-class splits; ``a`` and ``C`` are chosen by 10-fold
cross-validation on the training part. Prints timings and accuracy / micro- and macro-F1.

Usage: python scripts/corel_kl_svm.py CORELDIR CACHEDIR [--n-components 16] ...
"""

import argparse
import logging
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.svm import SVC

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the harness, experiments/
from experiments import (  # noqa: E402
    fit_image_gmms,
    get_corel_features,
    get_kl_divergences,
    load_corel,
)


def _cv_score(kernel, labels, C, n_folds, seed):
    folds = StratifiedKFold(n_folds, shuffle=True, random_state=seed)
    scores = []
    for fit, held in folds.split(kernel, labels):
        svm = SVC(kernel="precomputed", C=C).fit(kernel[np.ix_(fit, fit)], labels[fit])
        scores.append(np.mean(svm.predict(kernel[np.ix_(held, fit)]) == labels[held]))
    return np.mean(scores)


def evaluate(divergences, labels, *, n_splits, scales, Cs, seed=0):
    """Micro/macro-F1 of the SVM on ``n_splits`` random 90/10 per-class splits."""
    median = np.median(divergences[~np.eye(len(labels), dtype=bool)])
    results = []
    for split in range(n_splits):
        train, test = train_test_split(np.arange(len(labels)), test_size=0.1,
                                       stratify=labels, random_state=seed + split)
        best = (-1.0, None, None)
        for scale in scales:
            K = np.exp(-(scale / median) * divergences)
            K = (K + K.T) / 2
            for C in Cs:
                score = _cv_score(K[np.ix_(train, train)], labels[train], C, 10, split)
                best = max(best, (score, scale, C), key=lambda item: item[0])
        _, scale, C = best
        K = np.exp(-(scale / median) * divergences)
        K = (K + K.T) / 2
        svm = SVC(kernel="precomputed", C=C).fit(K[np.ix_(train, train)], labels[train])
        predicted = svm.predict(K[np.ix_(test, train)])
        results.append((f1_score(labels[test], predicted, average="micro"),
                        f1_score(labels[test], predicted, average="macro"), scale, C))
        print(f"split {split}: micro-F1 {results[-1][0]:.3f} macro-F1 {results[-1][1]:.3f} "
              f"(a = {scale:g} / median KL, C = {C:g})")
    results = np.array(results)
    return results[:, 0], results[:, 1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corel_dir")
    parser.add_argument("cache_dir")
    parser.add_argument("--n-components", type=int, default=16)
    parser.add_argument("--max-blocks", type=int, default=1000)
    parser.add_argument("--step", type=int, default=4)
    parser.add_argument("--colour", default="ycbcr")
    parser.add_argument("--reg-covar", type=float, default=1.0)
    parser.add_argument("--n-samples", type=int, default=256)
    parser.add_argument("--n-splits", type=int, default=10)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)

    start = time.perf_counter()
    images, labels = load_corel(args.corel_dir)
    loaded = time.perf_counter()
    features = get_corel_features(images, step=args.step, colour=args.colour,
                                  max_blocks=args.max_blocks, random_state=0,
                                  cache_dir=args.cache_dir, verbose=True)
    featured = time.perf_counter()
    gmms = fit_image_gmms(features, args.n_components, reg_covar=args.reg_covar,
                          random_state=0, cache_dir=args.cache_dir, n_jobs=args.n_jobs,
                          verbose=True)
    fitted = time.perf_counter()
    divergences = get_kl_divergences(gmms, n_samples=args.n_samples, random_state=0,
                                     cache_dir=args.cache_dir, verbose=True)
    done = time.perf_counter()
    print(f"load {loaded - start:.1f} s, features {featured - loaded:.1f} s, "
          f"GMM fits {fitted - featured:.1f} s, KL matrix {done - fitted:.1f} s")
    micro, macro = evaluate(divergences, labels, n_splits=args.n_splits,
                            scales=[0.1, 0.3, 1.0, 3.0, 10.0], Cs=[1.0, 10.0, 100.0, 1000.0])
    print(f"SVM, (K + K^T) / 2: micro-F1 {micro.mean():.3f} +- {micro.std():.3f}, "
          f"macro-F1 {macro.mean():.3f} +- {macro.std():.3f} over {len(micro)} splits")


if __name__ == "__main__":
    main()
