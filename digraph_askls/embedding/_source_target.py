"""What every embedding with source and target vectors answers once fitted."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = ["SourceTargetMixin"]


class SourceTargetMixin:
    """``transform`` and ``fit_transform`` of an embedding whose ``fit(adjacency)`` sets
    ``source_embedding_`` and ``target_embedding_`` (NERD, HOPE, APP)."""

    def transform(self):
        """Return the learnt embeddings ``[source, target]`` side by side.

        Returns
        -------
        embedding : ndarray of shape (n_nodes, 2 * n_components)
            Columns ``:n_components`` are ``source_embedding_``, the rest
            ``target_embedding_``.
        """
        check_is_fitted(self, ["source_embedding_", "target_embedding_"])
        return np.hstack((self.source_embedding_, self.target_embedding_))

    def fit_transform(self, adjacency, y=None):
        """Fit on ``adjacency`` and return ``[source, target]`` (see :meth:`transform`)."""
        return self.fit(adjacency).transform()
