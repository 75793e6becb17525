"""Node embeddings of directed graphs (NERD, HOPE, APP) and of the undirected graph
(DeepWalk, node2vec), each with source and target vectors ``U_s``, ``U_t``.

:class:`~digraph_askls.kernels.EmbeddingKernel` turns any of them into the asymmetric
kernel ``K = U_s U_t^T`` that AsK-LS learns with.
"""

from .app import APP, rooted_walk_ends
from .hope import HOPE, PROXIMITIES, proximity_operator, spectral_radius
from .nerd import NERD
from .walks import DeepWalk, Node2Vec, node2vec_walks

__all__ = ["APP", "HOPE", "NERD", "PROXIMITIES", "DeepWalk", "Node2Vec", "node2vec_walks",
           "proximity_operator", "rooted_walk_ends", "spectral_radius"]
