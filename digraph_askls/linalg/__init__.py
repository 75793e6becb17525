"""Linear algebra of AsK-LS: the label-free system as an operator and its solvers."""

from ._krylov import batched_cg, batched_minres
from ._precond import PRECONDITIONERS, make_preconditioner, saddle_matrix
from ._result import (NotPositiveDefinite, SingularSystemError, SingularSystemWarning,
                      SolverResult)
from ._solve import (
    DEFAULT_REGULARIZATION, SOLVERS, choose_preconditioner, choose_solver, solve_system,
)
from ._spectral import SpectralAsKLS
from ._tridiagonal import TridiagonalLSSVM
from ._system import AsKLSSystem, LSSVMSystem, check_kernel_matrix

__all__ = [
    "AsKLSSystem",
    "LSSVMSystem",
    "SolverResult",
    "SpectralAsKLS",
    "TridiagonalLSSVM",
    "SingularSystemError",
    "NotPositiveDefinite",
    "SingularSystemWarning",
    "DEFAULT_REGULARIZATION",
    "PRECONDITIONERS",
    "SOLVERS",
    "batched_cg",
    "batched_minres",
    "check_kernel_matrix",
    "choose_preconditioner",
    "choose_solver",
    "make_preconditioner",
    "saddle_matrix",
    "solve_system",
]
