"""The peers of the comparison, each given its own search on the labelled nodes of a split.

Every peer gets the labelled nodes of the split and nothing else. It splits them into the
nodes it fits and the nodes it validates on (:func:`~._comparison.comparison_tasks` says
which), tries every configuration of its grid (:data:`PEER_GRIDS`), and keeps the one of
highest validation accuracy (ties: lower validation loss). A network trains with Adam on
the cross-entropy of the fitted nodes for up to ``max_epochs`` epochs and stops after
``patience`` epochs without a better validation accuracy; its predictions at the best
validation epoch are the *early-stopped* ones. The chosen configuration is then trained
again on all labelled nodes for that many epochs: the *refit* predictions. Both are kept.

Label propagation and Correct & Smooth are PyTorch Geometric's ``LabelPropagation`` and
``CorrectAndSmooth``; C&S corrects and smooths the class probabilities of a linear model
of the node attributes (PyG's ``MLP`` with one layer), the "Linear" base of its authors.

On a graph without node attributes (polblogs, and the structure-only rows of the
comparison) every network gets one-hot node ids, the identity matrix ``X = I``, as Kipf
and Welling give GCN on a graph without node features (ICLR 2017, the karate-club example
of Section 3.1 and Appendix A): :func:`network_inputs`. It reaches the networks that take a
sparse input (GCN, Dir-GNN, APPNP, GCNII) as a sparse matrix, the others dense; label
propagation reads the links alone either way.

torch is imported inside the functions: :mod:`digraph_askls` never imports it.
"""

import itertools
import time

import numpy as np

from ._gnn_models import _dense_features, _edge_index, _quiet_sparse, build_model, import_torch

__all__ = ["FEATURELESS_INPUT", "PEER_GRIDS", "TRAINING", "VARIANTS", "grid_of",
           "network_inputs", "run_peer", "runs_on"]

#: Training rule of every network: Adam, full batch, early stopping on validation accuracy.
TRAINING = {"max_epochs": 1000, "patience": 100}


def _product(**axes):
    names = list(axes)
    return [dict(zip(names, values)) for values in itertools.product(*axes.values())]


#: The grid of each peer: 8 configurations or fewer, on the axes its authors tuned.
#: ``"fixed"`` settings apply to every configuration; ``"graphs"`` replaces the grid on a
#: graph for which the authors published their own settings (Dir-GNN, Chameleon and
#: Squirrel: the searched axis there is the one they searched, the learning rate), and
#: ``"splits"`` on a (graph, protocol) for which they published settings of that
#: protocol only (GCNII, Chameleon's fixed splits: their full-supervised setting), whole
#: configurations that take nothing from ``"fixed"``.
PEER_GRIDS = {
    "MLP": {"fixed": {"layers": 2},
            "grid": _product(hidden=[16, 64], lr=[0.01], weight_decay=[5e-4, 0.0],
                             dropout=[0.0, 0.5])},
    "GCN": {"fixed": {"layers": 2},
            "grid": _product(hidden=[16, 64], lr=[0.01], weight_decay=[5e-4, 0.0],
                             dropout=[0.0, 0.5])},
    "GAT": {"fixed": {"layers": 2, "heads": 8, "hidden": 64, "lr": 0.005},
            "grid": _product(weight_decay=[5e-4, 0.0], dropout=[0.0, 0.6])},
    "APPNP": {"fixed": {"K": 10, "hidden": 64, "lr": 0.01},
              "grid": _product(alpha=[0.1, 0.2], weight_decay=[5e-4, 0.0],
                               dropout=[0.0, 0.5])},
    # GCNII's authors (Chen et al., ICML 2020, semi-supervised settings): hidden 64, lambda
    # (theta) 0.5, dropout 0.6, learning rate 0.01, and weight decay 0.01 on the
    # convolutions but 5e-4 on the linear maps; without that split GCNII falls 0.05 below
    # their Cora figure. Searched: depth, the initial residual alpha (0.1 on their
    # citation graphs, larger on the heterophilous ones), the convolutions' decay.
    "GCNII": {"fixed": {"hidden": 64, "theta": 0.5, "lr": 0.01, "dropout": 0.6,
                        "weight_decay": 5e-4},
              "grid": _product(layers=[8, 16], alpha=[0.1, 0.5],
                               conv_weight_decay=[0.01, 5e-4]),
              # Their full-supervised setting for Chameleon on the same 10 fixed splits
              # (chennnM/GCNII, full.sh): 8 layers, lambda 1.5, alpha 0.2, dropout 0.5,
              # one weight decay of 5e-4 on every parameter; one configuration.
              "splits": {("chameleon", "fixed"): [
                  {"hidden": 64, "theta": 1.5, "lr": 0.01, "dropout": 0.5,
                   "weight_decay": 5e-4, "layers": 8, "alpha": 0.2}]}},
    "GraphSAGE": {"fixed": {"layers": 2},
                  "grid": _product(hidden=[16, 64], lr=[0.01], weight_decay=[5e-4, 0.0],
                                   dropout=[0.0, 0.5])},
    "SGC": {"fixed": {"lr": 0.2, "dropout": 0.0},
            "grid": _product(K=[1, 2, 3], weight_decay=[5e-4, 5e-5, 0.0])[:8]},
    "Dir-GNN": {"fixed": {"layers": 2, "jk": "max", "normalize": False, "root_weight": True,
                          "hidden": 64, "lr": 0.01, "weight_decay": 0.0},
                "grid": _product(alpha=[0.0, 0.5, 1.0], weight_decay=[0.0],
                                 dropout=[0.0, 0.5]),
                # The authors' best settings (dir-gcn, best_hyperparams.yml): no self
                # term, jumping knowledge "max", L2-normalised layers, no dropout or
                # weight decay; they searched the learning rate.
                "graphs": {
                    "chameleon": _product(hidden=[128], layers=[5], jk=["max"],
                                          alpha=[1.0], normalize=[True], root_weight=[False],
                                          dropout=[0.0], weight_decay=[0.0],
                                          lr=[0.005, 0.01]),
                    "squirrel": _product(hidden=[128], layers=[4], jk=["max"],
                                         alpha=[1.0], normalize=[True], root_weight=[False],
                                         dropout=[0.0], weight_decay=[0.0],
                                         lr=[0.005, 0.01]),
                }},
    # MagNet's authors search q in {0, 0.05, ..., 0.25}, 16 to 48 filters and K in {1, 2}
    # (Zhang et al., NeurIPS 2021, appendix); here the two axes that move it most.
    "MagNet": {"fixed": {"K": 1, "layers": 2, "lr": 0.005, "weight_decay": 5e-4,
                         "dropout": 0.5},
               "grid": _product(q=[0.0, 0.05, 0.1, 0.25], hidden=[16, 32])},
    # DiGCN's defaults (Tong et al., NeurIPS 2020: hidden 64, lr 0.05, weight decay 1e-4,
    # dropout 0.5, teleport 0.1), with the teleport and the regularisation searched.
    "DiGCN": {"fixed": {"hidden": 64, "layers": 2, "lr": 0.05},
              "grid": _product(alpha=[0.1, 0.2], weight_decay=[1e-4, 5e-4],
                               dropout=[0.0, 0.5])},
    "C&S": {"fixed": {"lr": 0.01, "dropout": 0.0},
            "grid": _product(weight_decay=[5e-4, 0.0], correction_alpha=[0.5, 1.0],
                             smoothing_alpha=[0.5, 0.8])},
    "label propagation": {"fixed": {},
                          "grid": _product(alpha=[0.5, 0.7, 0.9, 0.99], num_layers=[10, 50])},
    # GCNII at its authors' published depth for the Planetoid split (chennnM/GCNII,
    # semi.sh): Cora 64 layers of 64 units, lambda 0.5, dropout 0.6; CiteSeer 32 layers
    # of 256 units, lambda 0.6, dropout 0.7; alpha 0.1, learning rate 0.01, decay 0.01 on
    # the convolutions and 5e-4 on the linear maps, up to 1,500 epochs with patience 100.
    # One configuration each: nothing searched.
    "GCNII (authors' depth)": {
        "fixed": {}, "grid": [],
        "splits": {
            ("cora", "planetoid"): [
                {"hidden": 64, "layers": 64, "theta": 0.5, "alpha": 0.1, "dropout": 0.6,
                 "lr": 0.01, "weight_decay": 5e-4, "conv_weight_decay": 0.01,
                 "max_epochs": 1500, "patience": 100}],
            ("citeseer", "planetoid"): [
                {"hidden": 256, "layers": 32, "theta": 0.6, "alpha": 0.1, "dropout": 0.7,
                 "lr": 0.01, "weight_decay": 5e-4, "conv_weight_decay": 0.01,
                 "max_epochs": 1500, "patience": 100}]}},
    # Dir-GNN with its authors' training rule (dir-gcn: patience 400 on validation
    # accuracy, up to 10,000 epochs) and their published settings where they give them.
    "Dir-GNN (authors' patience)": {"fixed": {}, "grid": []},
}

#: Variants of a network: the model each builds, and the (graph, protocol) rows it runs on.
VARIANTS = {
    "GCNII (authors' depth)": ("GCNII", {("cora", "planetoid"), ("citeseer", "planetoid")}),
    "Dir-GNN (authors' patience)": ("Dir-GNN", {("chameleon", "fixed"), ("squirrel", "fixed")}),
}
_PATIENCE_400 = {"max_epochs": 10_000, "patience": 400}
PEER_GRIDS["Dir-GNN (authors' patience)"]["graphs"] = {
    name: [{**point, **_PATIENCE_400} for point in PEER_GRIDS["Dir-GNN"]["graphs"][name]]
    for name in ("chameleon", "squirrel")}


def runs_on(method, graph_name, protocol):
    """Whether ``method`` has a cell on the (graph, protocol) row (a variant runs on the
    rows its authors published settings for)."""
    return method not in VARIANTS or (graph_name, protocol) in VARIANTS[method][1]


def grid_of(method, graph_name, protocol=None):
    """The configurations ``method`` searches on the graph named ``graph_name`` under
    ``protocol`` (None: the graph's grid whatever the protocol)."""
    entry = PEER_GRIDS[method]
    grid = entry.get("splits", {}).get((graph_name, protocol))
    if grid is not None:
        return [dict(point) for point in grid]
    grid = entry.get("graphs", {}).get(graph_name, entry["grid"])
    return [{**entry["fixed"], **point} for point in grid]


#: What the networks read on a graph without node attributes (stated on the results page).
FEATURELESS_INPUT = ("one-hot node ids (X = I, Kipf & Welling, ICLR 2017, Section 3.1 and "
                     "Appendix A)")


def network_inputs(graph, torch, device="cpu"):
    """The networks' input on ``graph`` as a float32 tensor: its attributes, rows
    L1-normalised; on a graph without attributes one-hot node ids, the identity matrix of
    its nodes, as a sparse CSR tensor (:data:`FEATURELESS_INPUT`).

    >>> import numpy as np, pytest
    >>> torch = pytest.importorskip("torch")        # the peers' extra
    >>> from digraph_askls.graph import Graph, get_adjacency
    >>> adjacency, nodes = get_adjacency([(0, 1), (1, 2)])
    >>> graph = Graph(adjacency, np.array([0, 1, 0]), nodes, ["a", "b"])
    >>> network_inputs(graph, torch).to_dense().tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    if graph.features is not None:
        return torch.as_tensor(_dense_features(graph.features), dtype=torch.float32,
                               device=device)
    n_nodes = graph.adjacency.shape[0]
    rows = torch.arange(n_nodes + 1, device=device)
    with _quiet_sparse():
        return torch.sparse_csr_tensor(rows, rows[:-1], torch.ones(n_nodes, device=device),
                                       (n_nodes, n_nodes), dtype=torch.float32)


class _Inputs:
    """A graph's tensors on one device: the networks' input (:func:`network_inputs`),
    labels, edges."""

    def __init__(self, graph, device):
        torch, _, _ = import_torch(signed=False)
        from torch_geometric.utils import to_undirected

        self.torch, self.device, self.adjacency = torch, device, graph.adjacency
        self.x = network_inputs(graph, torch, device)
        self.y = torch.as_tensor(np.maximum(graph.labels, 0), device=device)
        self.n_classes = int(graph.labels.max()) + 1
        edges = _edge_index(graph.adjacency, torch).to(device)
        self.undirected = to_undirected(edges, num_nodes=graph.adjacency.shape[0])

    def index(self, nodes):
        return self.torch.as_tensor(np.asarray(nodes, dtype=np.int64), device=self.device)


def _weight_groups(model, config):
    """The optimiser's parameter groups: ``weight_decay`` on every parameter, except the
    propagation layers (``model.convs``) under ``conv_weight_decay`` where the config names
    one (GCNII's authors decay its convolutions by 0.01 and its linear maps by 5e-4)."""
    convs = getattr(model, "convs", None)
    if "conv_weight_decay" not in config or convs is None:
        return [{"params": list(model.parameters()), "weight_decay": config["weight_decay"]}]
    inner = {id(parameter) for parameter in convs.parameters()}
    return [{"params": list(convs.parameters()), "weight_decay": config["conv_weight_decay"]},
            {"params": [parameter for parameter in model.parameters()
                        if id(parameter) not in inner],
             "weight_decay": config["weight_decay"]}]


def _train(inputs, method, config, fit, valid, seed, epochs=None):
    """Train one network; returns (predictions at the best epoch, best epoch, epochs run,
    best validation accuracy, its loss, class probabilities at the best epoch).

    With ``epochs`` it trains exactly that many epochs and keeps the last one (no
    validation nodes are read). A configuration may carry its own ``max_epochs`` and
    ``patience`` (an authors' training rule); else :data:`TRAINING` holds.

    The early-stopping bookkeeping stays on the device: each epoch's validation accuracy
    and loss are compared there, and the host reads whether patience ran out only every
    ``_CHECK_EVERY`` epochs, so that a GPU is not stalled by a transfer after every epoch.
    Epochs trained after patience ran out change nothing that is returned: the outcome is
    the one of stopping at once."""
    torch = inputs.torch
    functional = torch.nn.functional
    torch.manual_seed(seed)
    method = VARIANTS.get(method, (method,))[0]
    max_epochs = config.get("max_epochs", TRAINING["max_epochs"])
    patience = config.get("patience", TRAINING["patience"])
    model, scores = build_model(method, config, inputs.x, inputs.adjacency, inputs.n_classes)
    model = model.to(inputs.device)
    optimizer = torch.optim.Adam(_weight_groups(model, config), lr=config["lr"])
    y = inputs.y
    last = epochs or max_epochs
    if epochs is None:
        def on_device(value, dtype=torch.float32):
            return torch.tensor(value, dtype=dtype, device=inputs.device)

        best_accuracy, best_loss = on_device(-1.0), on_device(np.inf)
        best_epoch, stop_epoch = on_device(0, torch.int64), on_device(0, torch.int64)
        stopped = on_device(False, torch.bool)
        predicted = torch.zeros_like(y)
        probabilities = None
    for epoch in range(1, last + 1):
        model.train()
        optimizer.zero_grad()
        loss = functional.cross_entropy(scores()[fit], y[fit])
        loss.backward()
        optimizer.step()
        if epochs is not None and epoch < epochs:
            continue
        model.eval()
        with torch.no_grad():
            out = scores()
        if epochs is not None:
            return out.argmax(1), epoch, epoch, np.nan, np.nan, out.softmax(1)
        guess = out.argmax(1)
        accuracy = (guess[valid] == y[valid]).float().mean()
        valid_loss = functional.cross_entropy(out[valid], y[valid])
        improved = ((accuracy > best_accuracy)
                    | ((accuracy == best_accuracy) & (valid_loss < best_loss))) & ~stopped
        out_of_patience = ~improved & ~stopped & (epoch - best_epoch >= patience)
        best_accuracy = torch.where(improved, accuracy, best_accuracy)
        best_loss = torch.where(improved, valid_loss, best_loss)
        best_epoch = torch.where(improved, epoch, best_epoch)
        stop_epoch = torch.where(out_of_patience, epoch, stop_epoch)
        stopped = stopped | out_of_patience
        predicted = torch.where(improved, guess, predicted)
        soft = out.softmax(1)
        probabilities = soft if probabilities is None else torch.where(improved, soft,
                                                                       probabilities)
        if epoch % _CHECK_EVERY == 0 and bool(stopped):
            break
    run = int(stop_epoch) if bool(stopped) else last
    return (predicted, int(best_epoch), run, float(best_accuracy), float(best_loss),
            probabilities)


#: Epochs between two reads of the early-stopping state by the host.
_CHECK_EVERY = 25


def _linear_base(inputs, config, fit, valid, seed, epochs=None):
    """C&S's base: a linear model of the attributes (a one-layer PyG ``MLP``)."""
    return _train(inputs, "MLP", {**config, "hidden": 0, "layers": 1}, fit, valid, seed,
                  epochs)


def _correct_and_smooth(inputs, config, probabilities, known):
    from torch_geometric.nn import CorrectAndSmooth

    post = CorrectAndSmooth(num_correction_layers=50,
                            correction_alpha=config["correction_alpha"],
                            num_smoothing_layers=50,
                            smoothing_alpha=config["smoothing_alpha"], autoscale=True)
    soft = post.correct(probabilities, inputs.y[known], known, inputs.undirected)
    soft = post.smooth(soft, inputs.y[known], known, inputs.undirected)
    return soft


def _propagate(inputs, config, known):
    from torch_geometric.nn import LabelPropagation

    propagation = LabelPropagation(num_layers=config["num_layers"], alpha=config["alpha"])
    mask = inputs.torch.zeros(inputs.y.numel(), dtype=inputs.torch.bool,
                              device=inputs.device)
    mask[known] = True
    return propagation(inputs.y, inputs.undirected, mask=mask)


def _accuracy(predicted, y, nodes):
    return float((predicted[nodes] == y[nodes]).float().mean())


def _search(inputs, method, config, fit, valid, seed, bases):
    """One configuration on the fitted nodes: (validation accuracy, loss, best epoch,
    epochs run, early-stopped predictions). ``bases`` keeps C&S's linear models by their
    settings, so that the correction and smoothing alphas of the grid share one."""
    torch = inputs.torch
    functional = torch.nn.functional
    if method == "label propagation":
        out = _propagate(inputs, config, fit)
        guess = out.argmax(1)
        loss = float(functional.nll_loss(out[valid].clamp_min(1e-12).log(), inputs.y[valid]))
        return _accuracy(guess, inputs.y, valid), loss, 0, 0, guess
    if method == "C&S":
        base = (config["lr"], config["weight_decay"], config["dropout"])
        if base not in bases:
            bases[base] = _linear_base(inputs, config, fit, valid, seed)
        _, best_epoch, n_epochs, _, _, probabilities = bases[base]
        out = _correct_and_smooth(inputs, config, probabilities, fit)
        guess = out.argmax(1)
        loss = float(functional.nll_loss(out[valid].clamp_min(1e-12).log(), inputs.y[valid]))
        return _accuracy(guess, inputs.y, valid), loss, best_epoch, n_epochs, guess
    guess, best_epoch, n_epochs, accuracy, loss, _ = _train(inputs, method, config, fit,
                                                            valid, seed)
    return accuracy, loss, best_epoch, n_epochs, guess


def _refit(inputs, method, config, labelled, epochs, seed):
    """The chosen configuration on all labelled nodes (for ``epochs`` epochs)."""
    if method == "label propagation":
        return _propagate(inputs, config, labelled).argmax(1)
    if method == "C&S":
        _, _, _, _, _, probabilities = _linear_base(inputs, config, labelled, None, seed,
                                                    max(epochs, 1))
        return _correct_and_smooth(inputs, config, probabilities, labelled).argmax(1)
    return _train(inputs, method, config, labelled, None, seed, max(epochs, 1))[0]


def run_peer(graph, graph_name, method, task, device="cpu", inputs=None, protocol=None,
             twins=None):
    """Search, choose and refit ``method`` on one split; the cell's measurements.

    Parameters
    ----------
    graph : Graph
        With features.
    graph_name, protocol : str
        Pick the grid (:func:`grid_of`); ``protocol`` None: the graph's.
    method : str
        A key of :data:`PEER_GRIDS`.
    task : dict
        ``labelled``, ``fit``, ``valid``, ``test`` node positions and ``seed`` (an int).
    device : str
        A torch device ("cpu", "cuda").
    inputs : _Inputs, optional
        The graph's tensors, when a caller keeps them between splits.
    twins : array of bool, optional
        Which test nodes have a twin among the labelled nodes
        (:func:`~experiments._protocols.has_twin`): the early-stopped accuracy is then
        also given on each part.

    Returns
    -------
    dict
        ``accuracy_early`` and ``accuracy_refit`` (not for :data:`VARIANTS`) on the test
        nodes, ``config`` chosen,
        ``best_epoch``, ``valid_accuracy``, ``seconds`` (the whole search and refit),
        ``seconds_config`` (the chosen configuration's training and its refit) and
        ``n_configs``; with ``twins``, ``accuracy_twin``, ``accuracy_no_twin`` and
        ``n_test_twin`` (:func:`~._comparison.twin_breakdown`).
    """
    inputs = inputs or _Inputs(graph, device)
    torch = inputs.torch
    fit, valid = inputs.index(task["fit"]), inputs.index(task["valid"])
    labelled, test = inputs.index(task["labelled"]), inputs.index(task["test"])
    start = time.perf_counter()
    trials, bases = [], {}
    for config in grid_of(method, graph_name, protocol):
        began = time.perf_counter()
        accuracy, loss, best_epoch, n_epochs, guess = _search(inputs, method, config, fit,
                                                               valid, task["seed"], bases)
        trials.append((accuracy, -loss, best_epoch, n_epochs, config, guess,
                       time.perf_counter() - began))
    accuracy, negative_loss, best_epoch, n_epochs, config, guess, spent = max(
        trials, key=lambda trial: (trial[0], trial[1]))
    began = time.perf_counter()
    # A variant (an authors' depth or training rule, run on few rows and few splits on a
    # CPU) is compared early-stopped only, as the published protocols train it: no refit.
    refit = (None if method in VARIANTS
             else _refit(inputs, method, config, labelled, best_epoch, task["seed"]))
    refit_seconds = time.perf_counter() - began
    if inputs.device != "cpu":
        torch.cuda.synchronize()
    refit_accuracy = {} if refit is None else {"accuracy_refit": _accuracy(refit, inputs.y,
                                                                           test)}
    from ._comparison import twin_breakdown

    right = (guess[test] == inputs.y[test]).cpu().numpy()
    return {"accuracy_early": _accuracy(guess, inputs.y, test), **refit_accuracy,
            **twin_breakdown(right, twins),
            "valid_accuracy": accuracy, "config": config, "best_epoch": int(best_epoch),
            "epochs_run": int(n_epochs), "n_configs": len(trials),
            "seconds": time.perf_counter() - start,
            "seconds_config": spent + refit_seconds}
