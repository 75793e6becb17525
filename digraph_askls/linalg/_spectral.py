"""AsK-LS for every gamma, and its exact leave-one-out scores, from one SVD of the kernel.

With the singular value decomposition ``K = P diag(s) Q^T`` of the training kernel, the
inner block ``H = [[I/g, K], [K^T, I/g]]`` of the label-free system has the eigenvectors
``[p_i; +-q_i] / sqrt(2)`` with the eigenvalues ``1/g +- s_i``, so that::

    H^-1 = g I + [[P diag(c - g) P^T,  P diag(e) Q^T    ],
                  [Q diag(e) P^T,      Q diag(c - g) Q^T]],
    c = g / (1 - g^2 s^2),   e = -g^2 s / (1 - g^2 s^2).

The directions outside the span of ``P`` and ``Q`` have ``s = 0`` (``c = g``, ``e = 0``), so
the same formula holds for a thin SVD of a kernel of rank ``r`` with explicit feature maps,
``K = U V^T``. Once the SVD is known, a solve for a new ``gamma`` costs ``O(m r k)`` for
``k`` right-hand sides, and the intercepts are eliminated exactly as in
:func:`~digraph_askls.linalg.solve_system`: ``b = (E^T H^-1 E)^-1 E^T H^-1 r``.

Error weights (the weighted least-squares SVM, ``diag(1 / (g w))`` in place of ``I / g``)
keep all of this. With ``D = diag(sqrt(w))`` and the unknowns ``a~ = D a^``, ``b~ = D b^``,
multiplying the two blocks of rows by ``D`` gives the unweighted system of the rescaled
kernel ``D K D``, with the bias columns ``d = D 1`` in place of ``1`` and the right-hand
sides ``D y``. One decomposition of ``D K D`` serves every gamma; the scores of the
rescaled rows are ``D`` times those of the original ones, and are divided back.

Leave-one-out is exact and nearly free. Removing training sample ``i`` deletes the
unknowns ``a~_i, b~_i`` (index set ``I``) and their rows. For the symmetric system matrix
``M`` with solution ``x``, the model trained without ``i`` scores sample ``i`` at
``[f_s, f_t]_i = [y_i, y_i] - ((M^-1)_{II})^-1 x_I``: add ``M^-1 e_I c`` to ``x`` with ``c``
chosen so that the ``I`` entries vanish; the other rows are then the reduced system, and
the rows ``I`` read the scores off. ``(M^-1)_{II}`` is a 2x2 block that the SVD gives in
``O(r)`` per sample.
"""

import numpy as np
import scipy.linalg as sla
from scipy import sparse

from .._memory import check_dense_allocation
from ._dense import _one_blas_thread, one_blas_thread
from ._result import SingularSystemError

__all__ = ["SpectralAsKLS"]

#: Below this reciprocal condition number of ``H`` (``min |1/g - s_i| / (1/g + s_max)``)
#: a gamma is refused as (numerically) singular, as the dense solver does.
RCOND_THRESHOLD = 1e-8

#: A kernel whose asymmetry ``max |K - K^T|`` is below this share of ``max |K|`` is
#: symmetric up to rounding: it is symmetrised and decomposed by ``eigh`` (3x faster).
SYMMETRY_RTOL = 1e-12

#: BLAS threads of the decompositions. OpenBLAS's threaded SVD and eigh slow down by
#: an order of magnitude when another process holds a core (``docs/results/speed.md``).
DECOMPOSITION_THREADS = 1


def _decomposition_threads():
    """A context in which BLAS runs on :data:`DECOMPOSITION_THREADS` threads, limited
    through the process's one controller (:func:`~._dense.one_blas_thread`)."""
    return one_blas_thread(DECOMPOSITION_THREADS)


class SpectralAsKLS:
    """The AsK-LS system of one training kernel, solved for any gamma from its SVD.

    Parameters
    ----------
    K : ndarray of shape (m, m), optional
        Dense training kernel; decomposed by a full SVD (by ``eigh`` when symmetric).
    factors : tuple (U, V), optional
        Explicit feature maps of the training samples, ``K = U V^T``, arrays or sparse
        matrices of shape (m, d). Decomposed by a thin SVD through QR (``O(m d^2)``) when
        ``d < m``; otherwise ``U V^T`` is formed and decomposed as ``K``.
    weights : array-like of shape (m,), optional
        Error weights ``w_i > 0`` of the weighted system (see the module's docstring):
        the decomposition is that of ``D K D`` with ``D = diag(sqrt(w))``, and every
        solution and score is given in the original unknowns. None: all 1.

    Attributes
    ----------
    n_train : int
    rank : int
        Number of singular triplets kept (``m`` for a dense kernel).
    singular_values : ndarray of shape (rank,)

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.linalg import SpectralAsKLS
    >>> K = np.array([[1.0, 0.5, 0.0], [0.1, 1.0, 0.3], [0.0, 0.2, 1.0]])
    >>> spectral = SpectralAsKLS(K)
    >>> intercepts, dual = spectral.solve(np.array([1.0, -1.0, 1.0]), gamma=0.5)
    >>> intercepts.shape, dual.shape
    ((2, 1), (2, 3, 1))
    >>> spectral.loo_scores(np.array([1.0, -1.0, 1.0]), gamma=0.5).shape
    (2, 3, 1)
    """

    def __init__(self, K=None, *, factors=None, weights=None):
        if (K is None) == (factors is None):
            raise TypeError("pass exactly one of K or factors=(U, V)")
        self._root = None
        if weights is not None:
            from ._system import check_error_weights

            m = factors[0].shape[0] if factors is not None else np.shape(K)[0]
            self._root = np.sqrt(check_error_weights(weights, m))
        if factors is not None:
            U, V = factors
            if U.shape != V.shape or len(U.shape) != 2:
                raise ValueError(f"U and V must have the same 2-d shape (m, d), got "
                                 f"{U.shape} and {V.shape}")
            if self._root is not None:
                scaled = _scale_rows(U, self._root)
                U, V = scaled, (scaled if V is U else _scale_rows(V, self._root))
            m, d = U.shape
            if d >= m:
                K = U @ V.T
                K = K.toarray() if sparse.issparse(K) else np.asarray(K)
            else:
                dense_U = _dense(U, "U")
                self._thin_svd(dense_U, dense_U if V is U else _dense(V, "V"))
                return
        K = np.asarray(K, dtype=np.float64)
        if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
            raise ValueError(f"K must be a non-empty square matrix, got shape {K.shape}")
        if not np.all(np.isfinite(K)):
            raise ValueError("K must contain only finite values, got NaN or inf")
        if self._root is not None and factors is None:   # scaled maps are scaled already
            K = self._root[:, None] * K * self._root[None, :]
        self._full_svd(K)

    # ---- decompositions ------------------------------------------------------------
    def _full_svd(self, K):
        m = K.shape[0]
        check_dense_allocation((3, m, m), what=f"the SVD of a {m} x {m} training kernel",
                               remedy="use explicit feature maps with fewer features than "
                                      "training samples, or the iterative solvers")
        scale = np.abs(K).max()
        with _decomposition_threads():
            if np.abs(K - K.T).max() <= SYMMETRY_RTOL * scale:
                values, vectors = np.linalg.eigh((K + K.T) / 2)
                self.P = vectors
                self.Q = vectors * np.where(values < 0, -1.0, 1.0)
                # Q = P diag(+-1): Q diag(w) Q^T = P diag(w) P^T for any weights w.
                self._signed_copy = True
                self.s = np.abs(values)
            else:
                self.P, self.s, Vh = np.linalg.svd(K)
                self.Q = Vh.T
                self._signed_copy = False
        self.n_train = m

    def _thin_svd(self, U, V):
        m, d = U.shape
        with _decomposition_threads():
            Qu, Ru = np.linalg.qr(U)
            # A symmetric kernel's two maps are one (or equal): factorised once.
            same = V is U or (V.shape == U.shape and np.array_equal(V, U))
            Qv, Rv = (Qu, Ru) if same else np.linalg.qr(V)
            core_left, s, core_right = np.linalg.svd(Ru @ Rv.T)
        self.P = Qu @ core_left
        self.Q = Qv @ core_right.T
        self._signed_copy = False
        self.s = s
        self.n_train = m

    @property
    def rank(self):
        return self.s.size

    @property
    def singular_values(self):
        return self.s

    # ---- H^-1 ----------------------------------------------------------------------
    def _coefficients(self, gamma):
        g = checked_gamma(gamma, self.s)
        denominator = 1.0 - (g * self.s) ** 2
        c_minus_g = g ** 3 * self.s ** 2 / denominator
        e = -(g ** 2) * self.s / denominator
        return g, c_minus_g, e

    def _projections(self, top, bottom, keep=True):
        """``P^T top`` and ``Q^T bottom``, kept for the next gamma with the same labels."""
        cached = getattr(self, "_projected", None)
        if cached is not None and np.array_equal(cached[0], top) and np.array_equal(
                cached[1], bottom):
            return cached[2], cached[3]
        Pt, Qt = self.P.T @ top, self.Q.T @ bottom
        if keep:
            self._projected = (top, bottom, Pt, Qt)
        return Pt, Qt

    def _apply_inverse(self, coefficients, top, bottom, keep=True):
        """``H^-1 [top; bottom]`` for blocks of shape (m, k); ``keep``: keep the
        projections of these right-hand sides for the next gamma."""
        g, c_minus_g, e = coefficients
        Pt, Qt = self._projections(top, bottom, keep)
        upper = g * top + self.P @ (c_minus_g[:, None] * Pt + e[:, None] * Qt)
        lower = g * bottom + self.Q @ (e[:, None] * Pt + c_minus_g[:, None] * Qt)
        return upper, lower

    def _solve(self, Y, gamma):
        Y = self._labels(Y)
        coefficients = self._coefficients(gamma)
        with _one_blas_thread():
            return (Y, coefficients, *self._solve_rhs(coefficients, Y, Y))

    def _solve_rhs(self, coefficients, top_rhs, bottom_rhs, keep=True):
        """The label-free system with ``[0; 0; top_rhs; bottom_rhs]`` on the right: the
        columns ``H^-1 E`` and ``E^T H^-1 E`` of the intercepts' elimination, the
        intercepts (2, k) and the dual coefficients (2, m, k)."""
        m, k = top_rhs.shape
        ones = np.ones((m, 1)) if self._root is None else self._root[:, None]
        zeros = np.zeros((m, 1))
        top = np.hstack([top_rhs, ones, zeros])
        bottom = np.hstack([bottom_rhs, zeros, ones])
        upper, lower = self._apply_inverse(coefficients, top, bottom, keep)
        # E^T H^-1 [r, E]: the sums of the a-part and of the b-part of each column
        # (weighted by d = sqrt(w) with error weights).
        if self._root is None:
            sums = np.vstack([upper.sum(axis=0), lower.sum(axis=0)])
        else:
            sums = np.vstack([self._root @ upper, self._root @ lower])
        S, ET_Zr = sums[:, k:], sums[:, :k]
        try:
            intercepts = sla.solve(S, ET_Zr)
        except (np.linalg.LinAlgError, sla.LinAlgError) as exc:
            raise SingularSystemError(f"singular intercept system E^T H^-1 E: {exc}") from None
        a = upper[:, :k] - upper[:, k:] @ intercepts
        b = lower[:, :k] - lower[:, k:] @ intercepts
        return (upper[:, k:], lower[:, k:], S), intercepts, np.stack([a, b])

    def solve(self, Y, gamma):
        """Intercepts ``[b1; b2]`` (2, k) and dual coefficients ``[a~; b~]`` (2, m, k).

        The same layout as :meth:`AsKLSSystem.split` of a solution of the label-free
        system ``[[0,0,1^T,0],[0,0,0,1^T],[1,0,I/g,K],[0,1,K^T,I/g]] x = [0; 0; Y; Y]``.

        Raises :class:`SingularSystemError` when ``gamma * s_i(K) = 1`` for some ``i``.
        """
        _, _, _, intercepts, dual = self._solve(Y, gamma)
        return intercepts, self._unscaled_dual(dual)

    def loo_scores(self, Y, gamma, *, return_solution=False):
        """Exact leave-one-out scores of both views, shape (2, m, k).

        ``out[0, i]`` is the source score ``f_s(x_i)`` and ``out[1, i]`` the target score
        ``f_t(x_i)`` of the model trained on all samples but ``i``. With
        ``return_solution``, also the full solution ``(intercepts, dual)``.
        """
        Y, coefficients, (ZEa, ZEb, S), intercepts, dual = self._solve(Y, gamma)
        g, c_minus_g, e = coefficients
        if getattr(self, "_squares", None) is None:
            self._squares = (self.P ** 2, self.Q ** 2, self.P * self.Q)   # shared by all gammas
        P2, Q2, PQ = self._squares
        # Diagonal 2x2 blocks of M^-1 on (a_i, b_i): those of H^-1 minus the intercepts'
        # rank-2 correction (H^-1 E)_i S^-1 (H^-1 E)_i^T.
        h_aa = g + P2 @ c_minus_g
        h_bb = g + Q2 @ c_minus_g
        h_ab = PQ @ e
        # The intercepts' rank-2 correction (H^-1 E)_i S^-1 (H^-1 E)_i^T, entry by entry.
        S_inverse = np.linalg.inv(S)
        Wa, Wb = ZEa @ S_inverse.T, ZEb @ S_inverse.T            # rows of (H^-1 E) S^-1
        b_aa = h_aa - np.einsum("ij,ij->i", Wa, ZEa)
        b_bb = h_bb - np.einsum("ij,ij->i", Wb, ZEb)
        b_ab = h_ab - np.einsum("ij,ij->i", Wa, ZEb)
        b_ba = h_ab - np.einsum("ij,ij->i", Wb, ZEa)
        # Solve each 2x2 block [[b_aa, b_ab], [b_ba, b_bb]] against (a~_i, b~_i) in closed form.
        det = b_aa * b_bb - b_ab * b_ba
        scale = np.maximum(np.abs(b_aa * b_bb), np.abs(b_ab * b_ba))
        if np.any(np.abs(det) <= 1e-13 * np.maximum(scale, 1e-300)):
            raise SingularSystemError("a leave-one-out system is singular: removing one "
                                      "training sample leaves a singular system")
        a, b = dual[0], dual[1]
        step_a = (b_bb[:, None] * a - b_ab[:, None] * b) / det[:, None]
        step_b = (b_aa[:, None] * b - b_ba[:, None] * a) / det[:, None]
        scores = self._unscaled_scores(np.stack([Y - step_a, Y - step_b]))
        if return_solution:
            return scores, (intercepts, self._unscaled_dual(dual))
        return scores

    def fold_scores(self, Y, gamma, folds):
        """Out-of-fold scores of both views, and the mean of the fold models.

        See :func:`~digraph_askls.linalg._spectral_folds.spectral_fold_scores`: ``scores``
        (2, m, k) of each sample under the model trained without its fold, and
        ``(intercepts, dual)`` of the mean of the fold models, for the held-out index
        arrays ``folds``.
        """
        from ._spectral_folds import spectral_fold_scores

        return spectral_fold_scores(self, Y, gamma, folds)

    def _labels(self, Y):
        """Labels as a block (m, k), times ``sqrt(w)`` row by row with error weights: the
        right-hand sides of the rescaled system."""
        Y = label_block(Y, self.n_train)
        return Y if self._root is None else Y * self._root[:, None]

    def _unscaled_dual(self, dual):
        """Dual coefficients (2, m, k) of the rescaled system in the original unknowns."""
        return dual if self._root is None else dual * self._root[None, :, None]

    def _unscaled_scores(self, scores):
        """Held-out view scores (2, m, k) of the rescaled rows in the original units."""
        return scores if self._root is None else scores / self._root[None, :, None]


def checked_gamma(gamma, singular_values):
    """``gamma`` as a float, or an error: ValueError where it is not a positive finite
    number, SingularSystemError where the AsK-LS system is (numerically) singular, its
    reciprocal condition number ``min |1/g - s_i| / (1/g + s_max)`` below
    :data:`RCOND_THRESHOLD` for the singular values ``s_i`` of the training kernel."""
    g = float(gamma)
    if not np.isfinite(g) or g <= 0:
        raise ValueError(f"gamma must be a positive finite number, got {gamma!r}")
    s = singular_values
    gap = np.abs(1.0 / g - s)
    top = 1.0 / g + (s.max() if s.size else 0.0)
    rcond = float(gap.min() / top) if s.size else 1.0
    if rcond < RCOND_THRESHOLD:
        raise SingularSystemError(
            f"the AsK-LS system is singular for gamma = {g:g}: gamma * s_i(K) = 1 for a "
            f"singular value s_i(K) of the training kernel (reciprocal condition "
            f"number {rcond:.2e})")
    return g


def label_block(Y, n_train):
    """Labels as a float block (n_train, k): a vector becomes one column."""
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2 or Y.shape[0] != n_train:
        raise ValueError(f"labels must have {n_train} rows (one per training "
                         f"sample), got shape {Y.shape}")
    return Y


def _scale_rows(matrix, root):
    """``diag(root) @ matrix`` for an array or a sparse matrix."""
    if sparse.issparse(matrix):
        return sparse.csr_matrix(sparse.diags(root) @ matrix)
    return root[:, None] * np.asarray(matrix, dtype=np.float64)


def _dense(matrix, name):
    if sparse.issparse(matrix):
        check_dense_allocation(matrix.shape, what=f"the feature map {name}")
        return matrix.toarray()
    return np.asarray(matrix, dtype=np.float64)
