"""An embedding's source and target vectors as the asymmetric kernel ``K = U_s U_t^T``.

A node embedding of a directed graph with source vectors ``U_s`` and target vectors ``U_t``
(:mod:`digraph_askls.embedding`) is an asymmetric kernel with explicit feature maps: AsK-LS
learns with it directly, through the thin route of :class:`FactoredKernel`, where the
embedding baselines concatenate ``[U_s, U_t]`` into one symmetric feature vector.
"""

import zlib

import numpy as np
from scipy import sparse

from digraph_askls.kernels._factored import FactoredKernel
from digraph_askls.kernels._specs import GraphKernel

__all__ = ["EMBEDDINGS", "EmbeddingKernel", "get_embedding_kernel"]

#: Embeddings by name for :func:`get_embedding_kernel` (the registry's ``"embedding"``).
EMBEDDINGS = ("hope", "app", "nerd", "deepwalk", "node2vec")

_NORMALIZATIONS = ("scale", "rows", None)


def _make_embedding(name, params):
    from digraph_askls import embedding

    classes = {"hope": embedding.HOPE, "app": embedding.APP, "nerd": embedding.NERD,
               "deepwalk": embedding.DeepWalk, "node2vec": embedding.Node2Vec}
    if name not in classes:
        raise ValueError(f"unknown embedding {name!r}; choose from {list(EMBEDDINGS)}")
    return classes[name](**params)


def _fingerprint(adjacency):
    """A digest of a CSR graph: the cached maps serve the same graph only."""
    digest = 0
    for array in (adjacency.indptr, adjacency.indices, adjacency.data):
        digest = zlib.crc32(np.ascontiguousarray(array).tobytes(), digest)
    return adjacency.shape, adjacency.nnz, digest


def _normalized(source, target, normalize):
    """The maps scaled: ``"scale"`` by one factor, so that the mean of
    ``||u_s(i)|| ||u_t(i)||`` is 1; ``"rows"`` every row to unit length; None as given."""
    source = np.asarray(source, dtype=np.float64)
    symmetric = target is None
    target = source if symmetric else np.asarray(target, dtype=np.float64)
    if normalize == "rows":
        lengths = [np.linalg.norm(maps, axis=1, keepdims=True) for maps in (source, target)]
        source, target = (np.divide(maps, length, out=np.zeros_like(maps),
                                    where=length > 0)
                          for maps, length in zip((source, target), lengths))
    elif normalize == "scale":
        size = np.mean(np.linalg.norm(source, axis=1) * np.linalg.norm(target, axis=1))
        if size > 0:
            source, target = source / np.sqrt(size), target / np.sqrt(size)
    return source, (None if symmetric else target)


class EmbeddingKernel(GraphKernel):
    """The kernel ``K = U_s U_t^T`` of a node embedding's source and target vectors.

    The embedding is fitted on the graph (unsupervised, all nodes) and its vectors become
    the explicit feature maps of a :class:`FactoredKernel`: AsK-LS then fits through a
    thin SVD of the ``m x d`` maps, and :meth:`NodeClassifier.primal_weights
    <digraph_askls.NodeClassifier.primal_weights>` reads the paper's primal weights, one
    per embedding dimension: ``w_s`` weighs the source vector ``u_s(x)`` of a node and
    ``w_t`` its target vector. An embedding with one vector per node (DeepWalk,
    node2vec) gives a symmetric kernel, and AsK-LS on it is the LS-SVM on those vectors
    (the paper's Proposition 2).

    Parameters
    ----------
    embedding : estimator, default=None
        An embedding of :mod:`digraph_askls.embedding` (anything whose ``fit(adjacency)``
        sets ``source_embedding_`` and ``target_embedding_``). None:
        ``HOPE(n_components=128)``.
    normalize : {"rows", "scale", None}, default="rows"
        ``"rows"``: every vector to unit length, so that ``K(i, j)`` is the cosine of
        ``u_s(i)`` and ``u_t(j)`` (a zero vector stays zero); ``"scale"``: both maps
        divided by one factor, so that the mean over nodes of ``||u_s(i)|| ||u_t(i)||``
        is 1 (a common factor changes nothing but the scale of gamma); None: as the
        embedding gives them. Either of the first two makes the gammas in
        :attr:`gammas` suit every embedding. On Cora's development splits (random 60/40
        and 20 per class, base seed 0) unit rows beat one common scale for HOPE and APP,
        by up to 0.12 micro-F1 with 20 labelled nodes per class: the lengths of HOPE's
        vectors grow with the degree, and would otherwise weigh the hubs.
    refit : bool, default=True
        Fit a copy of ``embedding`` on the graph. ``False`` takes the vectors of an
        ``embedding`` already fitted on this same graph (the nodes in the same order),
        so that one embedding serves many fits.

    Notes
    -----
    Embeddings learnt twice are not aligned: the kernel of a grown graph is not the
    kernel the model was fitted with, so a model fitted with this kernel predicts the
    nodes it was fitted with, and nodes joining the graph need a new fit.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls import NodeClassifier
    >>> from digraph_askls.embedding import HOPE
    >>> from digraph_askls.kernels import EmbeddingKernel
    >>> edges = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)]
    >>> kernel = EmbeddingKernel(HOPE(n_components=3))
    >>> K = kernel.make(edges)
    >>> K.shape, K.n_features, K.is_symmetric
    ((6, 6), 3, False)
    >>> model = NodeClassifier(kernel=kernel, gamma=10.0, merge="average")
    >>> model.fit(edges, [0, 0, -1, 1, 1, -1]).predict().tolist()
    [0, 0, 0, 1, 1, 1]
    >>> model.primal_weights()["source"].shape
    (1, 3)
    """

    gammas = (0.1, 1.0, 10.0, 100.0)

    def __init__(self, embedding=None, normalize="rows", refit=True):
        self.embedding = embedding
        self.normalize = normalize
        self.refit = refit

    def _build(self, adjacency, features):
        if self.normalize not in _NORMALIZATIONS:
            raise ValueError(f"normalize must be one of {list(_NORMALIZATIONS)}, got "
                             f"{self.normalize!r}")
        adjacency = sparse.csr_array(adjacency)
        key = (_fingerprint(adjacency), repr(self.get_params(deep=False)))
        cached = getattr(self, "_cache", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        source, target, name = self._vectors(adjacency)
        source, target = _normalized(source, target, self.normalize)
        names = [f"{name}:{i}" for i in range(source.shape[1])]
        kernel = FactoredKernel(source, target, feature_names=names)
        self._cache = (key, kernel)      # one fit of the embedding serves every make
        return kernel

    def _build_on(self, adjacency, features, reference):
        raise ValueError("an embedding kernel cannot place nodes that joined the graph: "
                         "embeddings fitted twice are not aligned; fit the model again "
                         "on the grown graph")

    def _vectors(self, adjacency):
        """The (source, target or None, name) of the embedding on this graph."""
        from sklearn.base import clone

        from digraph_askls.embedding import HOPE

        embedding = HOPE(n_components=128) if self.embedding is None else self.embedding
        if not callable(getattr(embedding, "fit", None)):
            raise TypeError(f"embedding must be an estimator with fit(adjacency), got "
                            f"{type(embedding).__name__}")
        name = type(embedding).__name__
        if self.refit:
            embedding = clone(embedding).fit(adjacency)
        elif getattr(embedding, "n_nodes_", None) != adjacency.shape[0]:
            raise ValueError(f"refit=False takes an embedding fitted on this graph "
                             f"({adjacency.shape[0]} nodes), got one fitted on "
                             f"{getattr(embedding, 'n_nodes_', 'no graph')}")
        source, target = embedding.source_embedding_, embedding.target_embedding_
        return source, None if target is source else target, name

    def __getstate__(self):
        """The state that pickle saves: the parameters, without the cached kernel."""
        state = super().__getstate__()
        state.pop("_cache", None)
        return state


def get_embedding_kernel(adjacency, embedding="hope", normalize="rows", **params):
    """The kernel ``K = U_s U_t^T`` of an embedding named in :data:`EMBEDDINGS`.

    The registry's ``"embedding"``: ``NodeClassifier(kernel="embedding",
    kernel_params={"embedding": "app", "n_components": 64})``. ``params`` go to the
    embedding's constructor.

    Returns
    -------
    FactoredKernel

    Examples
    --------
    >>> from digraph_askls.kernels import get_embedding_kernel
    >>> K = get_embedding_kernel([(0, 1), (1, 2), (2, 0), (2, 3)], n_components=2)
    >>> K.shape, K.n_features
    ((4, 4), 2)
    """
    recipe = EmbeddingKernel(_make_embedding(embedding, params), normalize=normalize)
    return recipe.make(adjacency)
