"""Node attributes and fixed splits as the readers hand them to ``Graph``."""

import numpy as np
from scipy import sparse

from digraph_askls.graph import Split

__all__ = []

#: Stored-dense attributes with fewer non-zero entries than this share become CSR.
SPARSE_BELOW = 0.25


def features_from_dense(values):
    """Float64 attributes of a dense table: CSR when under a quarter of it is non-zero.

    Bag-of-words and indicator attributes are mostly zeros; CSR keeps them small and
    fast to multiply, and readers keep what the file stores sparse as CSR anyway.
    """
    values = np.asarray(values)
    if values.ndim != 2:
        raise ValueError(f"expected a 2-d table of attributes, got shape {values.shape}")
    n_rows, n_columns = values.shape
    flat = values.reshape(-1)
    nonzero = np.flatnonzero(flat)  # one pass over the table, row-major: CSR order
    if values.size == 0 or nonzero.size >= SPARSE_BELOW * values.size:
        return values.astype(np.float64, copy=False)
    row_counts = np.bincount(nonzero // n_columns, minlength=n_rows)
    indptr = np.concatenate([[0], np.cumsum(row_counts)])
    return sparse.csr_array(
        (flat[nonzero].astype(np.float64), nonzero % n_columns, indptr), shape=values.shape
    )


def splits_from_masks(train, valid, test, source):
    """One :class:`Split` per row of three ``(n_splits, n_nodes)`` boolean masks."""
    masks = [np.atleast_2d(np.asarray(mask)) for mask in (train, valid, test)]
    shapes = {mask.shape for mask in masks}
    if len(shapes) != 1:
        raise ValueError(
            f"{source}: expected train, validation and test masks of one shape, got "
            f"{[mask.shape for mask in masks]}"
        )
    for mask in masks:
        if mask.dtype != bool and not np.isin(mask, (0, 1)).all():
            raise ValueError(f"{source}: expected 0/1 masks, got values {np.unique(mask)[:5]}")
    return tuple(
        Split(*(np.flatnonzero(mask[row]) for mask in masks)) for row in range(len(masks[0]))
    )
