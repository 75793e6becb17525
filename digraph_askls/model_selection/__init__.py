"""Model selection: splits of the labelled nodes and the scores of a node classifier on them.

The protocols of the node-classification literature, as lists of ``(seed, train, test)``:

* :func:`random_splits`: a fraction of the labelled nodes for training (the paper: 60 %);
* :func:`class_splits`: a number of labelled nodes per class (Planetoid: 20);
* :func:`fixed_splits`: the splits published with a dataset (Chameleon, Squirrel, ...);
* :func:`multilabel_splits`: a fraction of the nodes that have labels, for several labels
  per node (BlogCatalog).

:func:`evaluate_node_classifier` fits a classifier on each split and records micro- and
macro-F1 and seconds (:class:`TrialResults`); :func:`kernel_family` names the kernel each
fit selected. The scores themselves are in :mod:`digraph_askls.metrics`.

Examples
--------
>>> from digraph_askls import NodeClassifier
>>> from digraph_askls.datasets import make_directed_sbm
>>> from digraph_askls.model_selection import class_splits, evaluate_node_classifier
>>> adjacency, labels = make_directed_sbm(300, 3, 8, p_in=0.6, random_state=0)
>>> splits = class_splits(labels, per_class=10, n_trials=2, random_state=0)
>>> results = evaluate_node_classifier(lambda seed: NodeClassifier(random_state=seed),
...                                    adjacency, labels, splits=splits, verbose=False)
>>> len(results.micro_f1), min(results.micro_f1) > 0.5
(2, True)
"""

from ._evaluate import TrialResults, evaluate_node_classifier, kernel_family, takes_valid
from ._split import class_splits, fixed_splits, multilabel_splits, random_splits

__all__ = [
    "TrialResults",
    "class_splits",
    "evaluate_node_classifier",
    "fixed_splits",
    "kernel_family",
    "multilabel_splits",
    "random_splits",
    "takes_valid",
]
