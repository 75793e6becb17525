"""Summed mini-batch steps of the negative-sampling loss of source and target vectors."""

import numpy as np
from scipy import sparse
from scipy.special import expit

__all__ = ["sgd_step"]

_MAX_TERMS = 128  # gradient terms per node and batch beyond which steps are averaged


def _scatter_add(embedding, rows, weights, columns, vectors, terms=1):
    """``embedding[rows[k]] += weights[k] * vectors[columns[k]]``, summed per row.

    Each ``vectors[columns[k]]`` sums ``terms`` pair gradients. A row with more
    than ``_MAX_TERMS`` of them gets their mean times ``_MAX_TERMS``: a node
    drawn very often in one batch (a hub, or any node of a tiny graph) would
    otherwise take one huge step where sequential SGD takes many small
    self-correcting ones, and diverge.
    """
    touched, row_of, count = np.unique(rows, return_inverse=True, return_counts=True)
    matrix = sparse.csr_matrix((weights, (row_of, columns)),
                               shape=(touched.size, vectors.shape[0]))
    step = matrix @ vectors
    count *= terms
    if count.max() > _MAX_TERMS:
        step *= np.minimum(1.0, _MAX_TERMS / count).astype(np.float32)[:, None]
    embedding[touched] += step


def sgd_step(centre_embedding, context_embedding, centres, contexts, label, rate):
    """One summed gradient step of the logistic loss of the pairs (centres[w], contexts[w, k]).

    ``label[k]`` is 1 for a positive and 0 for a negative pair. The same code
    serves source walks (centres are sources, contexts targets) and target
    walks (the roles of the two embeddings swapped).
    """
    n_walks, n_pairs = contexts.shape
    if n_walks == 0:
        return
    centre_vectors = np.take(centre_embedding, centres, axis=0)
    context_vectors = np.take(context_embedding, contexts, axis=0)
    score = np.matmul(context_vectors, centre_vectors[:, :, None])[:, :, 0]
    coefficient = (rate * (label - expit(score))).astype(np.float32)
    centre_step = np.matmul(coefficient[:, None, :], context_vectors)[:, 0, :]
    _scatter_add(centre_embedding, centres, np.ones(n_walks, dtype=np.float32),
                 np.arange(n_walks), centre_step, terms=n_pairs)
    _scatter_add(context_embedding, contexts.ravel(), coefficient.ravel(),
                 np.repeat(np.arange(n_walks), n_pairs), centre_vectors)
