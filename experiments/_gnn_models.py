"""The graph neural network peers, assembled from PyTorch Geometric's layers and models.

MLP, GCN, GAT and GraphSAGE are PyG's model classes; APPNP is a perceptron under PyG's
``APPNP`` propagation, GCNII a stack of PyG's ``GCN2Conv`` (differentiated through its
symmetric links, :func:`symmetric_product`), SGC PyG's ``SGConv``; Dir-GNN stacks PyG's ``DirGNNConv``
around ``GCNConv`` with jumping knowledge, as its authors' ``dir-gcn`` model does; MagNet
and DiGCN are the node-classification models of PyTorch Geometric Signed Directed, DiGCN
on that package's approximate personalised-PageRank adjacency, MagNet's scores taken from
its own layers and magnetic Laplacian by sparse products (:func:`magnetic_steps`). Nothing
here is a layer of its own: this module only connects the library's pieces and prepares
their inputs.

torch is imported by the functions, never when :mod:`digraph_askls` is imported.
"""

import contextlib
import functools
import importlib
import warnings

import numpy as np
from scipy import sparse

__all__ = ["SIGNED_METHODS", "import_torch", "build_model"]

_EXTRA = 'pip install "digraph-askls[gnn]"'

#: The peers that need PyTorch Geometric Signed Directed.
SIGNED_METHODS = ("MagNet", "DiGCN")


def import_torch(signed=True):
    """torch, torch_geometric and (with ``signed``) torch_geometric_signed_directed, or a
    clear ImportError; None in place of the last when ``signed`` is False."""
    modules = []
    names = ("torch", "torch_geometric") + (("torch_geometric_signed_directed",) if signed
                                             else ())
    for name in names:
        try:
            modules.append(importlib.import_module(name))
        except ImportError as error:
            raise ImportError(f"the graph neural network peers need {name}, which could not "
                              f"be imported ({error}); install them with: {_EXTRA}") from error
    return tuple(modules) + ((None,) if not signed else ())


def _edge_index(adjacency, torch):
    """Edges as PyG's ``edge_index`` (first row the sources) of a CSR adjacency."""
    coo = sparse.coo_matrix(adjacency)
    pairs = np.vstack([coo.row, coo.col]).astype(np.int64)
    return torch.from_numpy(pairs)


def _dense_features(features, row_normalize=True):
    """Node attributes (an array or a sparse matrix) as a dense array; with
    ``row_normalize``, each row divided by the sum of its absolute values (rows of zeros
    kept), as the authors' loaders prepare them."""
    dense = features.toarray() if sparse.issparse(features) else np.asarray(features)
    if row_normalize:
        sums = np.abs(dense).sum(axis=1, keepdims=True)
        dense = dense / np.where(sums > 0, sums, 1.0)
    return dense


def _dir_gnn(config, n_features, n_classes):
    """Dir-GNN: DirGNNConv(GCNConv) layers, ReLU, dropout, L2-normalised rows, then
    jumping knowledge over the layers and a linear read-out."""
    import torch
    from torch_geometric.nn import DirGNNConv, GCNConv, JumpingKnowledge

    class DirGNN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            widths = [n_features] + [config["hidden"]] * config["layers"]
            self.convs = torch.nn.ModuleList(
                DirGNNConv(GCNConv(width_in, width_out, cached=True), alpha=config["alpha"],
                           root_weight=config.get("root_weight", False))
                for width_in, width_out in zip(widths[:-1], widths[1:]))
            self.jump = JumpingKnowledge(config["jk"], config["hidden"], config["layers"])
            width = config["hidden"] * (config["layers"] if config["jk"] == "cat" else 1)
            self.read_out = torch.nn.Linear(width, n_classes)

        def forward(self, x, edge_index):
            layers = []
            for conv in self.convs:
                x = torch.nn.functional.relu(_dir_conv(conv, x, edge_index))
                x = torch.nn.functional.dropout(x, config["dropout"], self.training)
                if config["normalize"]:
                    x = torch.nn.functional.normalize(x, p=2, dim=1)
                layers.append(x)
            return self.read_out(self.jump(layers))

    return DirGNN()


def _dir_conv(conv, x, edge_index):
    """A ``DirGNNConv`` layer on an edge list (its own ``forward``) or on the pair of
    sparse adjacencies :func:`direction_links` (``forward`` flips an edge list, which a
    sparse matrix cannot be): the same sum of its two convolutions and its root term,
    each convolution one sparse product instead of a gather and a scatter over the links
    (one CPU thread, Squirrel with its authors' settings, training beside two other jobs on
    two cores: 0.68 against 4.7 s per epoch)."""
    if not isinstance(edge_index, tuple):
        return conv(x, edge_index)
    incoming, outgoing = edge_index
    out = conv.alpha * conv.conv_out(x, outgoing) + (1 - conv.alpha) * conv.conv_in(x, incoming)
    return out + conv.lin(x) if conv.root_weight else out


def direction_links(edge_index, n_nodes):
    """``(incoming, outgoing)``: the links of a directed ``edge_index`` as sparse CSR
    adjacencies whose row ``i`` holds the sources of the links into ``i`` and the
    targets of the links out of ``i``, each link once with weight 1 (as PyG's
    convolutions read an edge list without weights), self-loops kept."""
    from torch_geometric.utils import to_torch_csr_tensor

    with _quiet_sparse():
        return (to_torch_csr_tensor(edge_index.flip([0]), size=(n_nodes, n_nodes)),
                to_torch_csr_tensor(edge_index, size=(n_nodes, n_nodes)))


#: Largest share of non-zero attributes at which APPNP and GCNII take them as a sparse
#: matrix (:func:`sparse_rows`): bags of words (Cora 1.3 %, CiteSeer 0.9 %) and the
#: heterophilous graphs' attributes are far below it.
SPARSE_INPUT_DENSITY = 0.1


@contextlib.contextmanager
def _quiet_sparse():
    """Silence torch's notices on building sparse CSR tensors: that their support is in
    beta, and that invariant checks are off (the indices come from valid tensors)."""
    with warnings.catch_warnings():
        for message in ("Sparse CSR tensor support", "Sparse invariant checks"):
            warnings.filterwarnings("ignore", message=message, category=UserWarning)
        yield


def sparse_rows(features):
    """``features`` (a dense tensor) as a sparse CSR tensor where at most
    :data:`SPARSE_INPUT_DENSITY` of its entries are non-zero, else as it is."""
    import torch

    if features.layout != torch.strided or features.dim() != 2 or features.numel() == 0:
        return features
    if torch.count_nonzero(features).item() > SPARSE_INPUT_DENSITY * features.numel():
        return features
    with _quiet_sparse():
        return features.to_sparse_csr()


def sparse_links(edge_index, n_nodes, self_loops=False):
    """The links of a symmetric ``edge_index`` as a sparse CSR adjacency, its self-loops
    left out unless ``self_loops``: a layer's propagation is then one sparse product
    instead of a gather and a scatter over the links (one CPU thread: GCNII, sparse
    attributes both ways, 0.14 against 0.58 s per epoch on Chameleon and 0.59 against 5.2
    on Squirrel; GraphSAGE 0.87 against 8.7 s on Squirrel).

    GCNII (``GCN2Conv``) takes it without the loops: PyG's normalisation adds a self-loop
    to every node of a sparse adjacency but only to those without one in an
    ``edge_index``, and without the graph's own loops both give ``D^-1/2 (A + I)
    D^-1/2`` with the loops counted once. GraphSAGE's mean reads the loops as links,
    either way."""
    from torch_geometric.utils import remove_self_loops, to_torch_csr_tensor

    with _quiet_sparse():
        links = edge_index if self_loops else remove_self_loops(edge_index)[0]
        return to_torch_csr_tensor(links, size=(n_nodes, n_nodes))


def dropped_linear(linear, x, p, training):
    """``linear(dropout(x, p))``, the input layer of APPNP and GCNII.

    On a sparse CSR ``x`` the dropout draws only the stored entries: an entry that is zero
    stays zero whatever is drawn for it, so the layer's output has the same distribution
    as on the dense input, for a fraction of the random draws. On one CPU thread, CiteSeer's
    attributes (3,327 x 3,703, 0.9 % stored) took 0.53 s per dense dropout, most of an
    epoch, against 0.02 s for the whole sparse layer with its gradient."""
    import torch

    if x.layout != torch.sparse_csr:
        return linear(torch.nn.functional.dropout(x, p, training))
    values = torch.nn.functional.dropout(x.values(), p, training)
    # The indices are the stored ones of x: no check needed.
    x = torch.sparse_csr_tensor(x.crow_indices(), x.col_indices(), values, x.shape,
                                check_invariants=False)
    return torch.sparse.mm(x, linear.weight.t()) + linear.bias


def _appnp(config, n_features, n_classes):
    """APPNP: a two-layer perceptron whose class scores are smoothed by personalised
    PageRank (PyG's ``APPNP`` propagation, ``K`` steps with teleport ``alpha``)."""
    import torch
    from torch_geometric.nn import APPNP

    class PropagatedMLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.first = torch.nn.Linear(n_features, config["hidden"])
            self.second = torch.nn.Linear(config["hidden"], n_classes)
            self.propagate = APPNP(K=config["K"], alpha=config["alpha"], cached=True)

        def forward(self, x, edge_index):
            dropout = torch.nn.functional.dropout
            x = torch.nn.functional.relu(
                dropped_linear(self.first, x, config["dropout"], self.training))
            x = self.second(dropout(x, config["dropout"], self.training))
            return self.propagate(x, edge_index)

    return PropagatedMLP()


def symmetric_product(adjacency, x):
    """``adjacency @ x`` for a symmetric sparse CSR ``adjacency`` that needs no gradient,
    differentiated with respect to ``x`` by a product with ``adjacency`` itself, its own
    transpose. ``torch.sparse.mm`` transposes a CSR matrix on every backward pass (a sort
    of its entries): on Squirrel's normalised links (401,907 entries, 64 columns, one
    CPU thread) that made the backward 25 ms against 3.4 ms for the forward."""
    return _symmetric_product_function().apply(adjacency, x)


@functools.cache
def _symmetric_product_function():
    """The autograd function of :func:`symmetric_product`, defined once (torch is
    imported on first use)."""
    import torch

    class SymmetricProduct(torch.autograd.Function):
        @staticmethod
        def forward(ctx, adjacency, x):
            ctx.adjacency = adjacency
            return torch.sparse.mm(adjacency, x)

        @staticmethod
        def backward(ctx, grad):
            return None, torch.sparse.mm(ctx.adjacency, grad)

    return SymmetricProduct


@functools.cache
def _symmetric_gcn2conv():
    """PyG's ``GCN2Conv`` whose propagation over a sparse CSR adjacency goes through
    :func:`symmetric_product` (GCNII's links are undirected, so their normalisation
    ``D^-1/2 (A + I) D^-1/2`` is symmetric); every other step is ``GCN2Conv``'s own."""
    import torch
    from torch import Tensor
    from torch_geometric.nn import GCN2Conv
    from torch_geometric.typing import Adj

    class SymmetricGCN2Conv(GCN2Conv):
        def message_and_aggregate(self, adj_t: Adj, x: Tensor) -> Tensor:
            if isinstance(adj_t, Tensor) and adj_t.layout == torch.sparse_csr \
                    and self.aggr in ("add", "sum"):
                return symmetric_product(adj_t, x)
            return super().message_and_aggregate(adj_t, x)

    return SymmetricGCN2Conv


def _gcnii(config, n_features, n_classes):
    """GCNII: a linear map in, ``layers`` of PyG's ``GCN2Conv`` (initial residual
    ``alpha``, identity mapping ``theta``), a linear map out."""
    import torch

    GCN2Conv = _symmetric_gcn2conv()

    class DeepGCN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.first = torch.nn.Linear(n_features, config["hidden"])
            self.convs = torch.nn.ModuleList(
                GCN2Conv(config["hidden"], alpha=config["alpha"], theta=config["theta"],
                         layer=layer + 1, shared_weights=True, cached=True)
                for layer in range(config["layers"]))
            self.last = torch.nn.Linear(config["hidden"], n_classes)

        def forward(self, x, edge_index):
            functional = torch.nn.functional
            x = x_0 = functional.relu(
                dropped_linear(self.first, x, config["dropout"], self.training))
            for conv in self.convs:
                x = functional.dropout(x, config["dropout"], self.training)
                x = functional.relu(conv(x, x_0, edge_index))
            x = functional.dropout(x, config["dropout"], self.training)
            return self.last(x)

    return DeepGCN()


def magnetic_steps(conv, n_nodes, edge_index, dtype):
    """The one-step operator of a ``MagNetConv`` layer as two sparse CSR matrices, its
    real and imaginary parts: row ``i`` holds the weights the layer's ``propagate`` gives
    the messages into ``i``, as its ``flow`` reads the links (the scaled magnetic
    Laplacian of the layer's own ``__norm__``, self-loops included), so that ``propagate(x)`` is one complex product
    with them, ``(R + iI)(a + ib)``, instead of a gather and a scatter over the links."""
    import torch
    from torch_geometric.utils import to_torch_csr_tensor

    # As MagNetConv.forward asks for it with normalization "sym" and no lambda_max.
    lambda_max = torch.tensor(2.0, dtype=dtype, device=edge_index.device)
    links, weights = conv.__norm__(edge_index, n_nodes, None, conv.q, conv.normalization,
                                   lambda_max, dtype=dtype)
    # Row: the node a message goes into; MagNetConv's flow is "target_to_source" (the
    # message of edge (i, j) carries x_j into i).
    into = links if conv.flow == "target_to_source" else links.flip([0])
    with _quiet_sparse():
        return tuple(to_torch_csr_tensor(into, part.contiguous(), size=(n_nodes, n_nodes))
                     for part in (weights.real, weights.imag))


def _chebyshev_terms(steps, real, imag, n_terms):
    """``[T_0 x, ..., T_{n_terms - 1} x]`` of a ``MagNetConv`` (``T_0 x = x``, ``T_1 x =
    L x``, ``T_k x = 2 L T_{k-1} x - T_{k-2} x``), each term a pair (real, imaginary)."""
    import torch

    step_real, step_imag = steps

    def apply(pair):
        a, b = pair
        return (torch.sparse.mm(step_real, a) - torch.sparse.mm(step_imag, b),
                torch.sparse.mm(step_real, b) + torch.sparse.mm(step_imag, a))

    terms = [(real, imag)]
    if n_terms > 1:
        terms.append(apply(terms[0]))
    for _ in range(2, n_terms):
        a, b = apply(terms[-1])
        terms.append((2.0 * a - terms[-2][0], 2.0 * b - terms[-2][1]))
    return terms


def _magnetic_layer(conv, terms):
    """A ``MagNetConv``'s output from its Chebyshev terms: ``sum_k T_k x W_k`` plus the
    bias on both parts, its real weights applied to each part."""
    real = sum(a @ weight for (a, _), weight in zip(terms, conv.weight))
    imag = sum(b @ weight for (_, b), weight in zip(terms, conv.weight))
    if conv.bias is not None:
        real, imag = real + conv.bias, imag + conv.bias
    return real, imag


def _magnet(config, features, edge_index, n_classes):
    """MagNet (PyTorch Geometric Signed Directed's ``MagNet_node_classification``) and the
    call that gives its scores, its layers' propagation taken as sparse products.

    The scores are those of the model's own ``forward`` (its layers, activation,
    dropout and read-out), computed from the same magnetic Laplacian: each step is a
    complex product with :func:`magnetic_steps` instead of a gather and a scatter over
    the links, and the first layer's steps, which act on the attributes before any
    weight, are taken once, as the attributes never change (one CPU thread, Chameleon's
    2,325 attributes over its 36,101 links: 2.4 s per epoch through ``forward``)."""
    import torch

    directed = import_torch()[2].nn.directed
    n_nodes = features.shape[0]
    model = directed.MagNet_node_classification(
        num_features=features.shape[1], hidden=config["hidden"], q=config["q"],
        K=config["K"], label_dim=n_classes, activation=True, layer=config.get("layers", 2),
        dropout=config["dropout"], cached=True)
    steps = magnetic_steps(model.Chebs[0], n_nodes, edge_index, features.dtype)
    with torch.no_grad():
        first = _chebyshev_terms(steps, features, features, model.Chebs[0].weight.size(0))

    def scores():
        functional = torch.nn.functional
        real = imag = None
        for index, conv in enumerate(model.Chebs):
            terms = first if index == 0 else _chebyshev_terms(steps, real, imag,
                                                              conv.weight.size(0))
            real, imag = _magnetic_layer(conv, terms)
            if model.activation:
                real, imag = model.complex_relu(real, imag)
        x = torch.cat((real, imag), dim=-1)
        if model.dropout > 0:
            x = functional.dropout(x, model.dropout, training=model.training)
        x = model.Conv(x.unsqueeze(0).permute((0, 2, 1)))
        return functional.log_softmax(x, dim=1)[0].transpose(0, 1)

    return model, scores


#: DiGCN's adjacencies by (nodes, teleport, dtype, links): each one is a dense
#: eigendecomposition of the graph (O(n^3)), the same for every configuration and split.
_APPR_CACHE = {}


def _appr_adjacency(alpha, edges, n_nodes, dtype):
    """``get_appr_directed_adj`` of PyTorch Geometric Signed Directed, computed once per
    graph and teleport probability (the last few kept)."""
    import hashlib

    from torch_geometric_signed_directed.utils import get_appr_directed_adj

    links = hashlib.sha1(edges.cpu().numpy().tobytes()).hexdigest()
    key = (int(n_nodes), float(alpha), str(dtype), links)
    if key not in _APPR_CACHE:
        while len(_APPR_CACHE) >= 4:
            _APPR_CACHE.pop(next(iter(_APPR_CACHE)))
        _APPR_CACHE[key] = get_appr_directed_adj(alpha, edges, n_nodes, dtype)
    return _APPR_CACHE[key]


def build_model(method, config, features, adjacency, n_classes):
    """The model of ``method`` and the call that gives its scores on every node.

    Parameters
    ----------
    method : str
        A name of :data:`~experiments.GNN_METHODS`.
    config : dict
        Its settings (:func:`~experiments._gnn_config.get_config`).
    features : torch.Tensor of shape (n_nodes, n_features)
        Node attributes (float32), dense or sparse CSR (one-hot node ids).
    adjacency : sparse matrix of shape (n_nodes, n_nodes)
        The directed graph, row = source.
    n_classes : int

    Returns
    -------
    model : torch.nn.Module
    scores : callable
        ``scores()`` runs the model on the whole graph and returns one row of class
        scores (logits or log-probabilities) per node.
    """
    torch, pyg, _ = import_torch(signed=method in SIGNED_METHODS)
    from torch_geometric.utils import to_undirected

    # A sparse input (one-hot node ids on a graph without attributes) reaches GCN,
    # Dir-GNN, APPNP and GCNII as it is, the other networks dense.
    stored = features
    if features.layout != torch.strided:
        features = features.to_dense()
    n_nodes, n_features = features.shape
    edges = _edge_index(adjacency, torch).to(features.device)
    hidden, layers, dropout = config.get("hidden"), config.get("layers", 2), config["dropout"]
    if method == "MLP":
        model = pyg.nn.models.MLP(in_channels=n_features, hidden_channels=hidden,
                                  out_channels=n_classes, num_layers=layers, dropout=dropout,
                                  norm=None)
        return model, lambda: model(features)
    if method in ("GCN", "GraphSAGE"):
        undirected = to_undirected(edges, num_nodes=n_nodes)
        kind = pyg.nn.models.GCN if method == "GCN" else pyg.nn.models.GraphSAGE
        extra = {"cached": True} if method == "GCN" else {}
        model = kind(in_channels=n_features, hidden_channels=hidden, num_layers=layers,
                     out_channels=n_classes, dropout=dropout, **extra)
        # GraphSAGE's mean over the neighbours as one sparse product (the same mean, its
        # self-loops included, as over the edge list).
        links = (sparse_links(undirected, n_nodes, self_loops=True)
                 if method == "GraphSAGE" else undirected)
        return model, lambda: model(stored if method == "GCN" else features, links)
    if method == "GAT":
        undirected = to_undirected(edges, num_nodes=n_nodes)
        model = pyg.nn.models.GAT(in_channels=n_features, hidden_channels=hidden,
                                  num_layers=layers, out_channels=n_classes, dropout=dropout,
                                  heads=config["heads"], v2=False)
        return model, lambda: model(features, undirected)
    if method == "SGC":
        undirected = to_undirected(edges, num_nodes=n_nodes)
        model = pyg.nn.SGConv(n_features, n_classes, K=config["K"], cached=True)
        return model, lambda: model(features, undirected)
    if method in ("APPNP", "GCNII"):
        undirected = to_undirected(edges, num_nodes=n_nodes)
        model = (_appnp if method == "APPNP" else _gcnii)(config, n_features, n_classes)
        stored = sparse_rows(stored)
        links = sparse_links(undirected, n_nodes) if method == "GCNII" else undirected
        return model, lambda: model(stored, links)
    if method == "Dir-GNN":
        model = _dir_gnn(config, n_features, n_classes)
        links = direction_links(edges, n_nodes)
        return model, lambda: model(stored, links)
    if method == "MagNet":
        return _magnet(config, features, edges, n_classes)
    directed = import_torch()[2].nn.directed
    if method == "DiGCN":
        appr_edges, appr_weights = _appr_adjacency(config["alpha"], edges, n_nodes,
                                                   features.dtype)
        model = directed.DiGCN_node_classification(num_features=n_features, hidden=hidden,
                                                   label_dim=n_classes, dropout=dropout)
        return model, lambda: model(features, appr_edges, appr_weights)
    raise ValueError(f"unknown graph neural network {method!r}; choose from "
                     f"['MLP', 'GCN', 'GAT', 'APPNP', 'GCNII', 'SGC', 'GraphSAGE', "
                     f"'Dir-GNN', 'MagNet', 'DiGCN']")
