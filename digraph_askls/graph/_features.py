"""Checks of node attributes (features) aligned with a graph's node order."""

import numpy as np
from scipy import sparse

__all__ = []


def check_features(features, n_nodes):
    """Return ``features`` as float64 (ndarray, or canonical CSR if sparse), or raise.

    Accepted: ``None``; a 2-d array-like of booleans, integers or floats; any SciPy
    sparse matrix or array. The result has ``n_nodes`` rows and finite entries.
    """
    if features is None:
        return None
    if sparse.issparse(features):
        kind = features.dtype.kind
        converted = sparse.csr_array(features)
        values = converted.data
    else:
        converted = np.asarray(features)
        kind = converted.dtype.kind
        values = converted
    if kind not in "biuf":
        raise TypeError(
            "features must hold numbers (bool, int or float), got dtype "
            f"{converted.dtype}"
        )
    if converted.ndim != 2 or converted.shape[0] != n_nodes:
        raise ValueError(
            f"features must be 2-d with one row per node, shape ({n_nodes}, n_features), "
            f"got shape {converted.shape}"
        )
    if not np.all(np.isfinite(values)):
        raise ValueError(
            f"features must be finite, got {np.size(values) - np.isfinite(values).sum()} "
            "NaN or infinite entries"
        )
    if sparse.issparse(converted):
        converted = converted.astype(np.float64)
        converted.sum_duplicates()  # canonical: sorted indices, no duplicates
        return converted
    return converted.astype(np.float64, copy=False)
