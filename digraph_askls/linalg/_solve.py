"""One entry point for the AsK-LS and LS-SVM systems, one dispatch table of solvers.

Every solver handles two problems:

* the exact system ``M x = r`` (``regularization = 0``);
* the damped least-squares problem ``min ||M x - r||^2 + lambda ||x||^2``, that is
  ``(M^T M + lambda I) x = M^T r`` — LSQR with ``damp = sqrt(lambda)`` — which is the
  fallback of the paper's authors for singular systems (with ``lambda = 1``).
"""

import logging
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, gmres, lsqr, minres

from ._dense import RCOND_THRESHOLD, NumericallySingular, solve_dense
from ._krylov import batched_cg, batched_minres
from ._precond import PRECONDITIONERS, make_preconditioner
from ._result import (NotPositiveDefinite, SingularSystemError, SingularSystemWarning,
                      SolverResult)

__all__ = ["solve_system", "choose_solver", "choose_preconditioner", "SOLVERS", "DEFAULT_REGULARIZATION",
           "RCOND_THRESHOLD"]

logger = logging.getLogger(__name__)

#: lambda of the authors' fallback, used when a singular system is detected.
DEFAULT_REGULARIZATION = 1.0
#: Largest system solved densely by ``solver="auto"``.
DENSE_MAX_SIZE = 2000
#: Largest system solved densely by ``solver="auto"`` when the iteration would be slow.
DENSE_ILL_MAX_SIZE = 8000


class _LastProduct:
    """A system whose ``matmat`` remembers its last input and product.

    The batched solvers confirm convergence on the true residual ``R - M X`` of their
    final ``X``; :func:`solve_system` then checks the same residual. On an operator
    kernel one product costs as much as a solver iteration, so the second check reuses
    the first product when ``X`` has not changed since (compared entry by entry, a cost
    of the order of one vector update).
    """

    def __init__(self, system):
        self._system = system
        self._last = None

    def __getattr__(self, name):
        return getattr(self._system, name)

    def matmat(self, X):
        if self._last is not None:
            last_x, last_product = self._last
            if last_x.shape == np.shape(X) and np.array_equal(last_x, X):
                return last_product.copy()
        product = self._system.matmat(X)
        self._last = (np.array(X, copy=True), product.copy())
        return product


def _relative_residual(apply, X, R):
    norms = np.linalg.norm(R, axis=0)
    return np.linalg.norm(R - apply(X), axis=0) / np.where(norms > 0, norms, 1.0)


def _scipy_columns(system, R, lam, method, rtol=1e-10, atol=0.0, maxiter=None, x0=None,
                   callback=None, M=None):
    """Run a SciPy single-vector solver column by column (the reference path)."""
    op = system.as_operator()
    if M is not None and not isinstance(M, LinearOperator):
        block_m = M
        M = LinearOperator(op.shape, matvec=lambda v: block_m(v[:, None])[:, 0],
                           dtype=np.float64)
    X = np.zeros_like(R)
    info, n_iter = 0, 0
    if maxiter is None:
        maxiter = 10 * system.size
    for j in range(R.shape[1]):
        guess = None if x0 is None else x0[:, j]
        if method == "lsqr":
            # LSQR stops where ||r|| <= btol ||b|| + atol ||A|| ||x||: on the exact system
            # the second term let it stop at ||r|| / ||b|| = 1e-8 for rtol = 1e-13 on a
            # well-conditioned system (cond 1e5), which then reads as singular. There
            # only ||r|| / ||b|| counts; the damped problem keeps its least-squares test.
            out = lsqr(op, R[:, j], damp=np.sqrt(lam), atol=0.0 if lam == 0 else rtol,
                       btol=rtol, conlim=1e14, iter_lim=maxiter, x0=guess)
            X[:, j], istop, its = out[0], out[1], out[2]
            ok = istop in (1, 2, 4, 5) or (istop == 0)
            info = info if ok else max(info, its)
        elif method == "gmres":
            matrix = op if lam == 0 else LinearOperator(
                op.shape, matvec=lambda v: system.normal_matmat(v, lam), dtype=np.float64)
            rhs = R[:, j] if lam == 0 else system.matmat(R[:, j])
            counter = []
            X[:, j], flag = _gmres_refined(matrix, rhs, guess, rtol, maxiter, M, counter)
            its = len(counter)
            info = max(info, flag)
        elif lam == 0:
            # SciPy's test is relative to ||A|| ||x||: tighten it to bound ||r|| / ||b||.
            X[:, j], flag = minres(op, R[:, j], rtol=rtol / 100, maxiter=maxiter, x0=guess,
                                   M=M, callback=callback)
            its = 0
            info = max(info, flag)
        else:
            normal = LinearOperator(op.shape, matvec=lambda v: system.normal_matmat(v, lam),
                                    dtype=np.float64)
            X[:, j], flag = minres(normal, system.matmat(R[:, j]), rtol=rtol / 100,
                                   maxiter=maxiter, x0=guess, M=M, callback=callback)
            its = 0
            info = max(info, flag)
        n_iter = max(n_iter, its)
    return X, info, n_iter, None, None


def _gmres_refined(matrix, rhs, guess, rtol, maxiter, M, counter, restart=200, rounds=8):
    """SciPy's GMRES with a few rounds of residual correction.

    Restarted GMRES stagnates around ``1e-12`` relative residual; solving again for the
    correction from the true residual regains the digits lost to rounding.
    """
    target = rtol * np.linalg.norm(rhs)
    restart = min(restart, rhs.size)
    x = np.zeros_like(rhs) if guess is None else np.array(guess, dtype=np.float64)
    flag = 0
    for _ in range(rounds):
        residual = rhs - matrix.matvec(x)
        norm = np.linalg.norm(residual)
        if norm <= target:
            return x, 0
        step, flag = gmres(matrix, residual, rtol=max(target / norm, 1e-11), atol=0.0,
                           restart=restart, maxiter=max(maxiter // restart, 10), M=M,
                           callback=lambda _: counter.append(1), callback_type="pr_norm")
        x += step
    return x, 0 if np.linalg.norm(rhs - matrix.matvec(x)) <= target else max(flag, 1)


def _solve_minres(system, R, lam, **options):
    return _scipy_columns(system, R, lam, "minres", **options)


def _solve_lsqr(system, R, lam, **options):
    return _scipy_columns(system, R, lam, "lsqr", **options)


def _solve_gmres(system, R, lam, **options):
    return _scipy_columns(system, R, lam, "gmres", **options)


#: Up to this many CG iterations on the inner block the residual given by the recurrence
#: is reported as it is; after more (a harder, possibly indefinite block, where the
#: recurrence can drift) :func:`solve_system` computes the true residual.
TRUSTED_RECURRENCE_ITERATIONS = 10


def _solve_deflated(system, R, rtol=1e-10, atol=0.0, maxiter=None, callback=None):
    """Exact solve of ``[[0, E^T], [E, H]] [b; x] = [r_b; r_x]`` by eliminating ``b``.

    Block CG runs on the inner block ``H`` alone (``system.inner_matmat``) for the label
    columns and the ``n_bias`` columns of ``E`` together: ``H Z = [r_x, E]``. Then
    ``b = (E^T Z_E)^{-1} (E^T Z_r - r_b)`` (a ``n_bias x n_bias`` solve) and
    ``x = Z_r - Z_E b``. ``H`` is far better conditioned than the saddle matrix: its
    spectrum lies in ``[1/g - s_max(K), 1/g + s_max(K)]``, while the bias rows put
    eigenvalues of the order of ``sqrt(n_train)`` into the saddle matrix. On the
    10^6-node SBM (3-hop walk, gamma = 0.01) CG on ``H`` reaches rtol = 0.01 in 2
    iterations, where block MINRES on the saddle matrix took 3 and a confirming product
    for rtol = 0.1. No product is spent on the final residual either: with
    ``rho = [r_x, E] - H Z`` from CG's recurrence, the residual of ``[b; x]`` is
    ``[0; rho_E b - rho_r]`` (the zero up to the rounding of the small solve), reported
    as it is after at most :data:`TRUSTED_RECURRENCE_ITERATIONS` iterations.

    A starting guess ``x0`` of the saddle system is not used: CG on ``H`` from zero
    needs no product for its first residual, and a warm start saved one iteration only
    (on the stacking folds of a 10^5-node SBM: 2 iterations instead of 3, plus the
    product for the starting residual; 15.9 s against 12.1 s for the whole fit).

    Returns ``X``, ``info``, ``n_iter`` and the relative residual of each column when
    the recurrence gives it (after at most :data:`TRUSTED_RECURRENCE_ITERATIONS`
    iterations; else None).

    Raises :class:`NotPositiveDefinite` when CG breaks down (``H`` indefinite: ``g s_max(K) >=
    1``) or stops short; the caller then runs block MINRES on the saddle matrix.
    """
    nb = system.n_bias
    r_b, r_x = R[:nb], R[nb:]
    E = system.bias_columns()
    k = R.shape[1]
    norms = np.linalg.norm(R, axis=0)
    target = np.maximum(rtol * norms, atol)           # per label column, on [b; x]
    scale = max(float(np.abs(r_b).max(initial=0.0)), 1.0)
    # First pass: half the budget to the label columns, the other half to the E columns
    # for intercepts of size up to ``scale``; a second pass tightens E if b is larger.
    thresholds = np.concatenate([0.5 * target,
                                 np.full(nb, 0.5 * target.min() / (nb * scale))])
    B = np.hstack([r_x, E])
    limit = 10 * B.shape[0] if maxiter is None else int(maxiter)
    Z, n_iter, rho = None, 0, None
    for _ in range(3):
        if n_iter >= limit:
            raise NotPositiveDefinite(f"CG on the inner block used all {limit} iterations")
        try:
            Z, info, its, rho = batched_cg(system.inner_matmat, B, x0=Z, rtol=0.0,
                                           atol=thresholds, maxiter=limit - n_iter,
                                           callback=None, return_residual=True)
        except np.linalg.LinAlgError as exc:
            raise NotPositiveDefinite(str(exc)) from None
        n_iter += its
        if info != 0:
            raise NotPositiveDefinite(
                f"CG on the inner block stopped after {n_iter} iterations")
        S = E.T @ Z[:, k:]
        try:
            b = np.linalg.solve(S, E.T @ Z[:, :k] - r_b)
        except np.linalg.LinAlgError:
            raise NotPositiveDefinite("singular intercept system E^T H^-1 E") from None
        residual = np.linalg.norm(rho[:, k:] @ b - rho[:, :k], axis=0)
        if np.all(residual <= target):
            break
        bmax = float(np.abs(b).max())
        thresholds[k:] = np.minimum(thresholds[k:], 0.5 * target.min() / (nb * bmax))
    else:
        raise NotPositiveDefinite("the intercepts did not settle in 3 passes")
    X = np.vstack([b, Z[:, :k] - Z[:, k:] @ b])
    if callback is not None:
        callback(X)
    measured = residual / np.where(norms > 0, norms, 1.0) \
        if n_iter <= TRUSTED_RECURRENCE_ITERATIONS else None
    return X, 0, n_iter, measured


def _solve_batched(system, R, lam, rtol=1e-10, atol=0.0, maxiter=None, x0=None,
                   callback=None, M=None):
    if lam == 0 and M is None and hasattr(system, "inner_matmat"):
        try:
            X, info, n_iter, residual = _solve_deflated(system, R, rtol=rtol, atol=atol,
                                                        maxiter=maxiter, callback=callback)
            return X, info, n_iter, None, residual
        except NotPositiveDefinite as exc:
            logger.debug("inner block not positive definite (%s): MINRES on the saddle "
                         "matrix", exc)
    if lam == 0:
        X, info, n_iter = batched_minres(system.matmat, R, x0=x0, rtol=rtol, atol=atol,
                                         maxiter=maxiter, M=M, callback=callback)
        return X, info, n_iter, None, None
    X, info, n_iter = batched_cg(lambda V: system.normal_matmat(V, lam), system.matmat(R),
                                 x0=x0, rtol=rtol, atol=atol, maxiter=maxiter, M=M,
                                 callback=callback)
    return X, info, n_iter, None, None


#: Solver name -> implementation ``f(system, R, lam, **options) -> (X, info, n_iter, rcond,
#: residual)``: ``rcond`` the reciprocal condition number where a dense solve estimated
#: it, ``residual`` the relative residual of each column where the solver measured it
#: (else None each).
SOLVERS = {
    "dense": solve_dense,
    "minres": _solve_minres,
    "lsqr": _solve_lsqr,
    "batched": _solve_batched,
    "gmres": _solve_gmres,
}

#: Solvers that accept each preconditioner (``"ilu"`` is not symmetric).
_PRECONDITIONED = {"jacobi": ("batched", "minres", "gmres"), "ilu": ("gmres",)}


def choose_preconditioner(system, solver, regularization=1.0):
    """The preconditioner ``preconditioner="auto"`` stands for.

    Block Jacobi for batched CG on the damped normal equations (``regularization > 0``)
    with an explicit sparse kernel, where it cut the iterations by a quarter at no
    measurable setup cost (``benchmarks/bench_pubmed_solvers.py``); none otherwise: the
    column-by-column SciPy solvers lost time to it, a LinearOperator has no diagonal, and
    on the exact system block MINRES stops on the preconditioned residual norm, which
    makes tight tolerances (``rtol < 1e-12``) unreliable.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from digraph_askls.linalg import AsKLSSystem
    >>> choose_preconditioner(AsKLSSystem(sp.identity(3, format="csr")), "batched")
    'jacobi'
    """
    if (solver == "batched" and regularization > 0 and getattr(system, "n_bias", None) == 2
            and sp.issparse(system.K)):
        return "jacobi"
    return None


def choose_solver(system):
    """The solver ``"auto"`` stands for: dense LAPACK for small dense kernels, else batched.

    Dense kernels up to ``DENSE_MAX_SIZE`` unknowns go to LAPACK; up to
    ``DENSE_ILL_MAX_SIZE`` they do too when ``gamma * ||K||_inf > 10``, a bound on
    ``gamma * s_max(K)`` past which the block iterations slow down: on a 1,840-sample SNE
    kernel (spambase), gamma = 100 took 6,703 block-MINRES iterations (35 s) against 4.5 s
    for LU, while gamma = 1 took 116 iterations (1.7 s) against 5.6 s.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.linalg import AsKLSSystem
    >>> choose_solver(AsKLSSystem(np.eye(10)))
    'dense'
    """
    K = system.K
    if isinstance(K, np.ndarray):
        if system.size <= DENSE_MAX_SIZE:
            return "dense"
        if system.size <= DENSE_ILL_MAX_SIZE and (
                system.gamma * np.abs(K).sum(axis=1).max() > 10):
            return "dense"
    return "batched"


def _check_regularization(regularization):
    if regularization is None:
        return 0.0
    if isinstance(regularization, str):
        if regularization != "auto":
            raise ValueError(
                f"regularization must be 'auto', None or a number >= 0, got {regularization!r}")
        return "auto"
    lam = float(regularization)
    if not np.isfinite(lam) or lam < 0:
        raise ValueError(f"regularization must be a finite number >= 0, got {regularization!r}")
    return lam


def _singular_message(system, reason, lam):
    return (
        f"the {system.name} system is singular ({reason}): {system.singular_cause} "
        f"(gamma = {system.gamma:g}). Solving the damped "
        f"least-squares problem (M^T M + lambda I) x = M^T r with lambda = {lam:g} instead "
        "(the fallback of the paper's authors). Pass regularization=<lambda> to choose "
        "lambda explicitly, or change gamma."
    )


def solve_system(system, Y, *, solver="auto", regularization="auto", rtol=1e-10, atol=0.0,
                 maxiter=None, x0=None, M=None, callback=None, preconditioner="auto"):
    """Solve a label-free AsK-LS (or LS-SVM) system for a block of label columns.

    Parameters
    ----------
    system : AsKLSSystem or LSSVMSystem
        The system matrix.
    Y : ndarray of shape (n_train,) or (n_train, k)
        Labels in {-1, +1}; each column is one binary (one-vs-rest) problem.
    solver : {"auto", "dense", "minres", "lsqr", "batched", "gmres"}
        ``"dense"``: LAPACK (LU with a condition estimate; Cholesky for the damped
        problem). ``"minres"``: SciPy's MINRES column by column. ``"lsqr"``: SciPy's LSQR
        with ``damp = sqrt(lambda)``. ``"batched"``: the library's block Krylov solvers,
        one operator product per iteration for all columns: on the exact system, CG on
        the block without the intercept rows, which are then eliminated (exact; used
        while that block is positive definite, ``gamma * s_max(K) < 1``), else block
        MINRES on the whole system; block CG on the damped normal equations. ``"gmres"``: SciPy's GMRES (restart 200) column by
        column, on the exact system or on the damped normal equations.
        ``"auto"``: :func:`choose_solver`.
    regularization : "auto", None or float
        ``"auto"`` solves the exact system and, when it is singular (found from the
        kernel's structure, a condition estimate or a failed iteration), warns with
        :class:`SingularSystemWarning` and solves the damped least-squares problem with
        ``lambda = 1`` (the authors' fallback). ``None`` or 0 asks for the exact solution
        and raises :class:`SingularSystemError` on a singular system. A float ``lambda > 0``
        always solves the damped problem.
    rtol, atol, maxiter, x0, M, callback
        As in SciPy's iterative solvers; ``M`` is a symmetric positive definite
        preconditioner ``M(R) ~ A^{-1} R`` for ``"batched"`` and ``"minres"``. The
        bias-eliminated CG of ``"batched"`` (exact system, no ``M``) forms the solution
        only at the end: it calls ``callback`` once, and starts from zero whatever
        ``x0`` (a warm start cost more than it saved, see ``_solve_deflated``).
    preconditioner : {"auto", None, "jacobi", "ilu"}, default="auto"
        ``"auto"``: :func:`choose_preconditioner` (none when ``M`` is given). A preconditioner built from the kernel for the system actually solved (see
        :func:`make_preconditioner`): ``"jacobi"`` (2x2-block diagonal, symmetric positive
        definite) for ``"batched"``, ``"minres"`` and ``"gmres"``; ``"ilu"`` (incomplete
        LU of the sparse saddle matrix) for ``"gmres"`` on the exact system — when the
        damped fallback is taken, ``"jacobi"`` replaces it. Exclusive with ``M``.

    Returns
    -------
    SolverResult

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.linalg import AsKLSSystem
    >>> K = np.array([[1.0, 0.3, 0.0], [0.2, 1.0, 0.4], [0.0, 0.5, 1.0]])
    >>> result = solve_system(AsKLSSystem(K, gamma=0.5), np.array([1.0, -1.0, 1.0]))
    >>> result.solver, result.info, result.x.shape
    ('dense', 0, (8, 1))
    """
    Y = np.asarray(Y, dtype=np.float64)
    R = system.rhs(Y)
    if not np.all(np.isfinite(R)):
        raise ValueError("labels must be finite")
    name = choose_solver(system) if solver == "auto" else solver
    if name not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; choose from {['auto', *sorted(SOLVERS)]}")
    lam = _check_regularization(regularization)
    options = dict(rtol=rtol, atol=atol, maxiter=maxiter, x0=x0, callback=callback)
    automatic = preconditioner == "auto"
    if automatic:
        preconditioner = None
    if M is not None:
        if name not in ("batched", "minres", "gmres"):
            raise ValueError(f"a preconditioner M is supported by 'batched', 'minres' and "
                             f"'gmres', not by {name!r}")
        if preconditioner is not None:
            raise ValueError(f"pass either M or preconditioner, got M and "
                             f"preconditioner={preconditioner!r}")
        options["M"] = M
    if preconditioner is not None:
        if preconditioner not in _PRECONDITIONED:
            raise ValueError(f"unknown preconditioner {preconditioner!r}; choose from "
                             f"{[None, *PRECONDITIONERS]}")
        if name not in _PRECONDITIONED[preconditioner]:
            raise ValueError(f"preconditioner {preconditioner!r} works with solvers "
                             f"{list(_PRECONDITIONED[preconditioner])}, got solver={name!r}")
    if name == "dense":
        options = {}

    def with_preconditioner(lam_now):
        if automatic and M is None:
            kind = choose_preconditioner(system, name, lam_now)
            return options if kind is None else {
                **options, "M": make_preconditioner(system, kind, lam_now)}
        if preconditioner is None or name == "dense":
            return options
        kind = preconditioner if lam_now == 0 else "jacobi"
        return {**options, "M": make_preconditioner(system, kind, lam_now)}

    system = _LastProduct(system)
    exact = lam in ("auto", 0.0)
    if exact:
        nullity, count = system.decoupled_singular_count()
        if nullity > 0:
            reason = (f"{count} training samples have no kernel entry to other training "
                      f"samples and gamma * |K_ii| = 1, so the matrix has a null space of "
                      f"dimension >= {nullity}")
            if lam == 0.0:
                raise SingularSystemError(reason + "; pass regularization='auto' or a "
                                          "lambda > 0 to solve the damped problem")
            warnings.warn(_singular_message(system, reason, DEFAULT_REGULARIZATION),
                          SingularSystemWarning, stacklevel=2)
            lam = DEFAULT_REGULARIZATION
            exact = False
    if exact:
        try:
            X, info, n_iter, rcond, residual = SOLVERS[name](system, R, 0.0,
                                                             **with_preconditioner(0.0))
            if not np.all(np.isfinite(X)):
                raise NumericallySingular("non-finite solution")
            if residual is None:      # else from the deflated CG: exact up to rounding
                residual = _relative_residual(system.matmat, X, R)
            if residual.max() > max(1000 * rtol, 1e-8):
                raise NumericallySingular(
                    f"relative residual {residual.max():.2e}: no exact solution", rcond)
            if info != 0:
                # Near the tolerance but not below it: an unconverged iteration, not a
                # singular system.
                warnings.warn(f"solver {name!r} stopped at relative residual "
                              f"{residual.max():.2e} above rtol={rtol:g}",
                              ConvergenceWarning, stacklevel=2)
            return SolverResult(X, info, n_iter, residual, name, 0.0, rcond)
        except NumericallySingular as exc:
            if lam == 0.0:
                raise SingularSystemError(
                    f"the system is numerically singular ({exc.reason}); pass "
                    "regularization='auto' or a lambda > 0 to solve the damped problem"
                ) from None
            warnings.warn(_singular_message(system, exc.reason, DEFAULT_REGULARIZATION),
                          SingularSystemWarning, stacklevel=2)
            lam = DEFAULT_REGULARIZATION
            rcond = exc.rcond
    else:
        rcond = None
    X, info, n_iter, _, _ = SOLVERS[name](system, R, lam, **with_preconditioner(lam))
    if not np.all(np.isfinite(X)):
        raise np.linalg.LinAlgError(f"solver {name!r} returned non-finite coefficients")
    residual = _relative_residual(lambda V: system.normal_matmat(V, lam), X, system.matmat(R))
    if info != 0:
        warnings.warn(f"solver {name!r} did not reach rtol={rtol:g} in {n_iter} iterations "
                      f"(largest relative residual {residual.max():.2e})", ConvergenceWarning,
                      stacklevel=2)
    return SolverResult(X, info, n_iter, residual, name, float(lam), rcond)
