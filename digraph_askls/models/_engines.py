"""How a candidate (kernel, gamma) gets its out-of-fold scores: the engine its training
block allows (:mod:`~._folds`), and the folds it can afford."""

import logging

import numpy as np
from scipy import sparse

from ..kernels import restrict_kernel
from ..linalg import SingularSystemError
from ..linalg._scores import NotPositiveDefinite
from ._candidates import FEW_LABELS_PER_CLASS, SPECTRAL_MAX_TRAIN
from ._folds import (coarsen_folds, decompose, solved_out_of_fold, spectral_out_of_fold,
                     walk_out_of_fold)
from ._train_scores import scores_all_rows

__all__ = ["WALK_STEP_BUDGET", "engine_of", "out_of_fold", "refit_on_all", "walk_folds"]

logger = logging.getLogger(__name__)

#: Folds of a walk kernel: each costs the columns of its labels in the same walk steps,
#: so a walk kernel takes the folds of the other candidates joined into as many as keep
#: ``folds * columns * steps * stored links`` below this (about a fifth of a second of
#: steps on 2 cores), and at least two.
WALK_STEP_BUDGET = 2e8


def _thin(train_kernel):
    """Whether the block has explicit maps with fewer features than samples."""
    m = train_kernel.shape[0]
    factors = getattr(train_kernel, "factors", None)
    return callable(factors) and getattr(train_kernel, "n_features", m) < m


def _decomposable(train_kernel):
    """Whether the training block is worth one SVD: explicit maps with fewer features than
    samples (thin SVD), or a block the kernel forms directly (arrays, sparse matrices,
    kernels with ``to_dense``) of at most :data:`SPECTRAL_MAX_TRAIN` samples. A plain
    operator such as a walk series would need ``m`` products with the whole graph."""
    m = train_kernel.shape[0]
    if _thin(train_kernel):
        return True
    direct = (isinstance(train_kernel, np.ndarray) or sparse.issparse(train_kernel)
              or callable(getattr(train_kernel, "to_dense", None)))
    return direct and m <= SPECTRAL_MAX_TRAIN


def engine_of(train_kernel):
    if _decomposable(train_kernel):
        return "spectral"
    return "walk" if scores_all_rows(train_kernel) else "solved"


def _solved(train_kernel, codes, gamma, folds, params):
    """:func:`~._folds.solved_out_of_fold` with the estimator's solver settings."""
    return solved_out_of_fold(train_kernel, codes, gamma, folds, solver=params["solver"],
                              regularization=params["regularization"], rtol=params["tol"],
                              maxiter=params.get("max_iter"))


def out_of_fold(engine, train_kernel, decomposition, codes, gamma, folds, params, verbose,
                damp_singular=True):
    """:class:`~._folds.OutOfFold` of one candidate, or None if its system is singular.

    Where the spectral engine finds a fold's system singular, ``damp_singular`` solves
    every fold damped instead (as ``regularization`` asks), one Krylov solve per fold;
    without it the candidate is skipped: in a search among several kernels and gammas a
    gamma at which the exact system is singular is not worth minutes of damped solves
    (Squirrel's link-profile kernel at 2,500 training nodes: over ten minutes per split).
    """
    try:
        if engine == "spectral":
            return spectral_out_of_fold(decomposition, codes, gamma, folds)
        if engine == "walk":
            return walk_out_of_fold(train_kernel, codes, gamma, folds, rtol=params["tol"],
                                    maxiter=params.get("max_iter"), verbose=verbose)
        return _solved(train_kernel, codes, gamma, folds, params)
    except (SingularSystemError, NotPositiveDefinite) as exc:
        if (engine == "spectral" and damp_singular
                and params["regularization"] != None):                   # noqa: E711
            # The exact system is singular; solve each fold as asked (damped).
            logger.info("gamma=%g: %s; solving each fold damped", gamma, exc)
            return _solved(train_kernel, codes, gamma, folds, params)
        logger.info("gamma=%g skipped: %s", gamma, exc)
        return None


def walk_folds(K, folds, codes):
    """The folds joined into as many as the walk's steps afford (:data:`WALK_STEP_BUDGET`),
    and two where the median class has more than
    :data:`~._candidates.FEW_LABELS_PER_CLASS` labelled nodes: each fold model then sees
    enough labels already, and more folds would only cost."""
    n_classes = np.unique(codes).size
    columns = 1 if n_classes == 2 else n_classes
    if np.median(np.bincount(codes)) > FEW_LABELS_PER_CLASS:
        return coarsen_folds(folds, 2)
    work = columns * getattr(K, "n_hops", 1) * getattr(K, "stored_links", K.shape[0])
    affordable = int(WALK_STEP_BUDGET // max(1, work))
    return coarsen_folds(folds, max(2, affordable))


def refit_on_all(best, all_train, codes, folds, params):
    """The winner ranked on a sample, scored on every labelled node: through a thin SVD
    of its maps when it has them, else a solve per fold."""
    train_kernel = restrict_kernel(best["built"], all_train, all_train)
    if _decomposable(train_kernel):
        oof = spectral_out_of_fold(decompose(train_kernel), codes, best["gamma"], folds)
        return dict(oof=oof)
    oof = _solved(train_kernel, codes, best["gamma"], folds, params)
    return dict(oof=oof, engine="solved")
