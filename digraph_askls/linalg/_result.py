"""The result of a solve and the warnings and errors of the solver layer."""

from dataclasses import dataclass

import numpy as np

__all__ = ["SolverResult", "SingularSystemError", "SingularSystemWarning"]


class SingularSystemWarning(UserWarning):
    """The system is singular or numerically singular; a regularised solution is returned."""


class SingularSystemError(np.linalg.LinAlgError):
    """The system is singular and the caller asked for the exact (unregularised) solution."""


class NotPositiveDefinite(np.linalg.LinAlgError):
    """CG broke down on the inner block ``I/g + [[0, K], [K^T, 0]]``: it is not positive
    definite (on the constraint space), ``g s_max(K) >= 1``, or CG did not settle on it."""


@dataclass(frozen=True)
class SolverResult:
    """Solution of a label-free AsK-LS or LS-SVM system for a block of right-hand sides.

    Attributes
    ----------
    x : ndarray of shape (size, k)
        Solutions, one column per right-hand side.
    info : int
        SciPy's meaning: 0 success, > 0 not converged after that many iterations.
    n_iter : int
        Iterations done (0 for direct solvers).
    residual_norm : ndarray of shape (k,)
        ``||r_j - A x_j|| / ||r_j||`` of the system actually solved (the damped normal
        equations when ``regularization > 0``).
    solver : str
        Name of the solver that produced ``x``.
    regularization : float
        ``lambda`` of the damped least-squares problem ``(M^T M + lambda I) x = M^T r``
        that was solved, or 0.0 for the exact system.
    rcond : float or None
        Reciprocal condition number estimate (1-norm) when a dense factorisation gave it.
    """

    x: np.ndarray
    info: int
    n_iter: int
    residual_norm: np.ndarray
    solver: str
    regularization: float = 0.0
    rcond: float | None = None

    @property
    def converged(self):
        """Whether every column met the tolerance."""
        return self.info == 0
