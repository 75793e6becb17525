"""The dense LAPACK path: LU with a condition estimate, Cholesky for the damped problem."""

import os
from contextlib import nullcontext
from functools import lru_cache

import numpy as np
import scipy.linalg as sla
from threadpoolctl import ThreadpoolController

from .._memory import check_dense_allocation

__all__ = ["RCOND_THRESHOLD", "CHOLESKY_THREADED_MAX", "THREADED_MIN", "solve_dense"]

#: Below this reciprocal condition number the authors' code switches to the fallback.
RCOND_THRESHOLD = 1e-8
#: Above this size the dense Cholesky runs on one BLAS thread (see :func:`solve_dense`):
#: 12,000 ran on 2 threads, 16,000 crashed.
CHOLESKY_THREADED_MAX = 12_000
#: Below this size the factorisations run on one BLAS thread: starting and synchronising
#: threads costs more than the work. On 2 busy cores, one fold of a Table 4 search (146
#: unknowns) took 0.18 s on 2 threads and 3 ms on one.
THREADED_MIN = 500


@lru_cache(maxsize=1)
def _blas_controller():
    """One :class:`threadpoolctl.ThreadpoolController`, built once per process.

    Building one inspects the loaded libraries (2-10 ms, the most on the first call of a
    process, which resolves every library's path); limiting through a built one costs 15
    microseconds, which matters for the many small solves of a grid search. It is built
    on first use, by the first fit that limits the threads, not at import.
    """
    return ThreadpoolController()


#: The variables from which OpenBLAS, MKL and BLIS take their thread count when they
#: load; ``OMP_NUM_THREADS`` is the one each falls back to.
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "MKL_NUM_THREADS",
                         "BLIS_NUM_THREADS")


def _started_on_one_thread():
    """Whether the environment started every BLAS of the process on one thread:
    ``OMP_NUM_THREADS=1`` and none of :data:`BLAS_THREAD_VARIABLES` set to more."""
    return os.environ.get("OMP_NUM_THREADS", "").strip() == "1" and all(
        os.environ.get(name, "1").strip() == "1" for name in BLAS_THREAD_VARIABLES)


#: Whether the environment of the process's start began BLAS on one thread, read once
#: when this module is imported, after NumPy and SciPy loaded their BLAS (which read the
#: variables then). Not read again at each call: a variable set later does not reach a
#: library already loaded (Dask's nanny sets ``OMP_NUM_THREADS=1`` in the parent process
#: when a ``LocalCluster`` starts, while NumPy's BLAS keeps every thread it started on).
STARTED_ON_ONE_THREAD = _started_on_one_thread()


def one_blas_thread(limits=1):
    """A context in which BLAS and LAPACK run on ``limits`` threads, limited through the
    process's one controller; nothing to limit (and no library inspected, which the
    first controller of a process pays 20-70 ms for) where the limit is one thread
    and the process started the libraries on one (:data:`STARTED_ON_ONE_THREAD`; a
    limit raised since through threadpoolctl is then left as it is)."""
    if limits == 1 and STARTED_ON_ONE_THREAD:
        return nullcontext()
    return _blas_controller().limit(limits=limits, user_api="blas")


def _one_blas_thread():
    """A context in which BLAS and LAPACK run on one thread (:func:`one_blas_thread`)."""
    return one_blas_thread(1)


class NumericallySingular(Exception):
    """Raised by a solver that finds the exact system singular; carries the evidence."""

    def __init__(self, reason, rcond=None):
        super().__init__(reason)
        self.reason = reason
        self.rcond = rcond


def solve_dense(system, R, lam, **options):
    """Solve ``M X = R`` (``lam = 0``) or ``(M^T M + lam I) X = M^T R`` with LAPACK.

    The exact system is factorised by LU in place of the assembled matrix, whose
    reciprocal condition number is estimated first: below :data:`RCOND_THRESHOLD` it
    raises :class:`NumericallySingular`. The damped problem (``M`` is symmetric) is
    factorised by Cholesky in place of ``M M + lam I``. The matrix and, for the damped
    problem, its square are the two dense ``size x size`` arrays; the memory guard
    checks both before either is formed. Both are symmetric: their transposes, which are
    Fortran-ordered views, go to LAPACK, which then factorises them without a copy.
    """
    size = system.size
    check_dense_allocation(
        (1 if lam == 0 else 2, size, size),
        what=f"the dense solve of the {system.name} system ({size} unknowns)",
        remedy="pass solver='batched' (block Krylov iterations on the operator, no dense "
               "matrix), or use a sparse or operator kernel")
    small = size < THREADED_MIN
    with _one_blas_thread() if small else nullcontext():
        M = system.to_dense()
        if lam == 0:
            anorm = np.abs(M).sum(axis=0).max()
            lu, piv, info = sla.lapack.dgetrf(M.T, overwrite_a=True)
            del M
            rcond = float(sla.lapack.dgecon(lu, anorm, norm="1")[0]) if info == 0 else 0.0
            if rcond < RCOND_THRESHOLD:
                raise NumericallySingular(
                    f"reciprocal condition number {rcond:.2e} < {RCOND_THRESHOLD:g}", rcond)
            X = sla.lu_solve((lu, piv), R, check_finite=False)
            return X, 0, 0, rcond, None
        A = M @ M
        A[np.diag_indices_from(A)] += lam
        rhs = M @ R
        del M
    # The multithreaded Cholesky of the OpenBLAS bundled with NumPy and SciPy (0.3.31
    # here) crashes the process with a segmentation fault from about 16,000 unknowns on
    # 2 threads; on one thread it runs (31 s at 16,000).
    one_thread = small or size > CHOLESKY_THREADED_MAX
    with _one_blas_thread() if one_thread else nullcontext():
        factor = sla.cho_factor(A.T, overwrite_a=True, check_finite=False)
        X = sla.cho_solve(factor, rhs, check_finite=False)
    return X, 0, 0, None, None
