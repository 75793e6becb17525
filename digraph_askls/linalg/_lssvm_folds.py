"""The LS-SVM's solution and out-of-fold scores, from any way of applying ``C^-1``.

A symmetric training kernel makes AsK-LS the LS-SVM (the paper's Proposition 2): both
views carry the dual coefficients ``alpha`` of ``(K + I/g) alpha + b 1 = Y``,
``1^T alpha = 0``. With ``C = K + I/g``, ``u = C^-1 1`` and ``s = 1^T u``, the system's
inverse on the ``alpha`` unknowns is ``C^-1 - u u^T / s``; removing a fold's unknowns
``F`` from the solution (``alpha - (M^-1)_{:F} c`` with ``c = ((M^-1)_FF)^-1 alpha_F``, as
in :mod:`~digraph_askls.linalg._spectral_folds`) gives the fold model, which scores its
held-out samples at ``Y_F - c``.

The two functions here need only the blocks ``(C^-1)_FF`` and products with ``C^-1``, so
they serve every representation of ``C^-1``: the tridiagonal reduction of
:class:`~digraph_askls.linalg._tridiagonal.TridiagonalLSSVM` (every gamma) and the
explicit inverse of one Cholesky factorisation in the selection (one gamma,
:func:`~digraph_askls.models.selection._out_of_fold.cholesky_out_of_fold`).
"""

import warnings

import numpy as np
import scipy.linalg as sla

from ._result import SingularSystemError

__all__ = ["lssvm_fold_scores", "lssvm_solution"]


def lssvm_solution(solved):
    """The LS-SVM's ``alpha`` (m, k), intercepts (k,), ``u = C^-1 1`` and ``s = 1^T u``
    from ``solved = C^-1 [Y, 1]`` (``C = K + I/gamma``): the intercepts are eliminated by
    ``1^T alpha = 0``."""
    u, total = solved[:, -1], solved[:, -1].sum()
    if not np.isfinite(total) or abs(total) <= 1e-14 * np.abs(u).sum():
        raise SingularSystemError("singular intercept system: 1^T (K + I/gamma)^-1 1 = 0")
    intercepts = solved[:, :-1].sum(axis=0) / total
    return solved[:, :-1] - np.outer(u, intercepts), intercepts, u, total


def lssvm_fold_scores(Y, folds, solution, block_of, inverse_times):
    """Out-of-fold scores (2, m, k) and the mean fold model ``(intercepts (2, k), dual
    (2, m, k))`` of the LS-SVM whose :func:`lssvm_solution` is ``solution``, given the
    blocks ``(C^-1)_FF`` (``block_of(held)``) and products with ``C^-1``
    (``inverse_times``): see the module. Raises :class:`SingularSystemError` where a
    fold's system is singular."""
    alpha, intercepts, u, total = solution
    m, k = Y.shape
    scores = np.empty((2, m, k))
    steps = np.zeros((m, k))
    for held in folds:
        held = np.asarray(held)
        block = block_of(held) - np.outer(u[held], u[held]) / total
        with warnings.catch_warnings():
            warnings.simplefilter("error", sla.LinAlgWarning)
            try:
                step = sla.solve(block, alpha[held], assume_a="sym", check_finite=False)
            except (np.linalg.LinAlgError, sla.LinAlgError, sla.LinAlgWarning):
                raise SingularSystemError(
                    f"the system of a fold is singular: leaving {held.size} "
                    "training samples out leaves a singular system") from None
        scores[:, held] = Y[held] - step
        steps[held] = step
    # The mean fold model: alpha - (M^-1)_{:, F} c averaged over the folds, one product
    # with M^-1 of the steps placed at their folds' rows.
    steps /= len(folds)
    shift = u @ steps / total                          # (M^-1)_{b, :} steps
    dual = alpha - (inverse_times(steps) - np.outer(u, shift))
    return scores, (np.tile(intercepts - shift, (2, 1)), np.stack([dual, dual]))
