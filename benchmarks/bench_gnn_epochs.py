"""Seconds per training epoch of the two peers whose products the comparison takes its own
way, against the models' own path, on one CPU thread.

* ``GCNII``: the comparison's model (:func:`experiments._gnn_models.build_model`)
  propagates over a sparse CSR adjacency and differentiates the product by the adjacency
  itself (:func:`~experiments._gnn_models.symmetric_product`); the
  reference is the same model, the same weights, on PyG's edge list (a gather and a
  scatter over the links).
* ``MagNet``: the comparison's scores take each layer's steps as sparse complex products
  (:func:`~experiments._gnn_models.magnetic_steps`), the first layer's once;
  the reference is ``MagNet_node_classification.forward`` on the edge list.

An epoch is what the comparison's training does: a forward pass in training mode, the
loss on half of the nodes, the backward pass and an Adam step, then a forward pass in
evaluation mode. Both paths of one (method, graph) run in the same process, in turns
(``--repeat`` rounds, the first path alternating), after one epoch each to warm up;
seconds are the median over the rounds of the mean over ``--epochs`` epochs, the ratio
the median of the rounds' ratios. The scores of the two paths are checked equal before
the clock starts.

Usage: python benchmarks/bench_gnn_epochs.py [--data-home ../shared/datasets]
       [--cases GCNII:squirrel MagNet:chameleon ...] [--epochs 5] [--repeat 2]
       [--out docs/results/bench_gnn_epochs.json]
"""

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the harness, experiments/


def _paths(method, name, graph, torch):
    """The comparison's model and scores, a copy of the model (same weights, a cache of
    its own) and its own scores, the configuration (the grid's deepest and widest) and
    the labels."""
    import copy

    from torch_geometric.utils import to_undirected

    from experiments._comparison_peers import _Inputs, grid_of
    from experiments._gnn_models import _edge_index, build_model

    inputs = _Inputs(graph, "cpu")
    config = max(grid_of(method, name, "fixed"),
                 key=lambda c: (c.get("layers", 0), c.get("hidden", 0)))
    torch.manual_seed(0)
    model, scores = build_model(method, config, inputs.x, graph.adjacency, inputs.n_classes)
    twin = copy.deepcopy(model)
    edges = _edge_index(graph.adjacency, torch)
    if method == "GCNII":
        undirected = to_undirected(edges, num_nodes=graph.adjacency.shape[0])
        own = lambda: twin(inputs.x, undirected)          # noqa: E731
    else:
        own = lambda: twin(inputs.x, inputs.x, edges)      # noqa: E731
    return (model, scores), (twin, own), config, inputs.y


def _epoch_seconds(model, scores, y, fit, epochs, torch):
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    start = time.perf_counter()
    for _ in range(epochs):
        model.train()
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(scores()[fit], y[fit]).backward()
        optimizer.step()
        model.eval()
        with torch.no_grad():
            scores()
    return (time.perf_counter() - start) / epochs


def measure(method, name, args, torch):
    from digraph_askls.datasets import load_dataset

    graph = load_dataset(name, data_home=args.data_home, download=False)
    ours, own, config, y = _paths(method, name, graph, torch)
    for net, _ in (ours, own):
        net.eval()
    with torch.no_grad():
        gap = float((ours[1]() - own[1]()).abs().max())
    if gap > 1e-4:
        raise AssertionError(f"{method} on {name}: the two paths differ by {gap:g}")
    fit = torch.as_tensor(np.random.default_rng(0).permutation(y.shape[0])[: y.shape[0] // 2])
    for net, path in (ours, own):
        _epoch_seconds(net, path, y, fit, 1, torch)
    rounds = []
    for round_ in range(args.repeat):
        order = (("ours", ours), ("own", own)) if round_ % 2 == 0 else (("own", own),
                                                                           ("ours", ours))
        seconds = {label: _epoch_seconds(*pair, y, fit, args.epochs, torch)
                   for label, pair in order}
        rounds.append(seconds)
    ratios = [r["ours"] / r["own"] for r in rounds]
    return dict(method=method, graph=name, config=config, nodes=int(graph.adjacency.shape[0]),
                links=int(graph.adjacency.nnz), max_score_gap=gap,
                ours_seconds=float(np.median([r["ours"] for r in rounds])),
                own_seconds=float(np.median([r["own"] for r in rounds])),
                ratio=float(np.median(ratios)), rounds=rounds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--cases", nargs="+",
                        default=["GCNII:chameleon", "GCNII:squirrel", "MagNet:texas",
                                 "MagNet:chameleon"])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--out", default="docs/results/bench_gnn_epochs.json")
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    from experiments._gnn_models import import_torch

    torch = import_torch()[0]
    torch.set_num_threads(1)
    rows = []
    with threadpool_limits(1):
        for case in args.cases:
            method, name = case.split(":")
            row = measure(method, name, args, torch)
            rows.append(row)
            print(f"{method} on {name}: {row['ours_seconds']:.3f} s per epoch against "
                  f"{row['own_seconds']:.3f} s ({row['ratio']:.2f})", flush=True)
    out = dict(command=" ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
               machine=platform.processor() or platform.machine(), cpus=os.cpu_count(),
               threads=1, load=os.getloadavg()[0], torch=torch.__version__, rows=rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print("\n| peer | graph | nodes | links | the comparison's path, s per epoch | the model's "
          "own path | ratio |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['method']} | {row['graph']} | {row['nodes']:,} | {row['links']:,} | "
              f"{row['ours_seconds']:.3f} | {row['own_seconds']:.3f} | {row['ratio']:.2f} |")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
