"""digraph_askls: node classification on directed graphs with AsK-LS.

AsK-LS is the least-squares support vector machine that learns directly with
asymmetric kernels (M. He, F. He, L. Shi, X. Huang, J. A. K. Suykens, "Learning with asymmetric kernels:
least squares and feature interpretation", IEEE TPAMI 2023). A directed graph gives an
asymmetric kernel; AsK-LS learns a *source* and a *target* classifier from it.

The estimators are imported when first used (``from digraph_askls import NodeClassifier``
works as usual), so that ``import digraph_askls`` and the command line's ``--help`` do not
pay for scikit-learn and SciPy's solvers.
"""

import importlib

__version__ = "0.1.0"

#: Public names, imported from their module on first use.
_LAZY = {name: "models" for name in ("AsKLSClassifier", "KernelViews", "LSSVMClassifier",
                                     "NodeClassifier", "SelfTrainingNodeClassifier")}
#: Deprecated names: still importable until removed, no longer listed.
_DEPRECATED = {"NodeClassifierCV": "models._node_cv"}

_SUBPACKAGES = ("datasets", "distributed", "embedding", "evaluation", "graph", "kernels",
                "linalg", "metrics", "model_selection", "models", "peers")

__all__ = [
    "AsKLSClassifier",
    "KernelViews",
    "LSSVMClassifier",
    "NodeClassifier",
    "SelfTrainingNodeClassifier",
    "__version__",
]


def __getattr__(name):
    if name in _LAZY or name in _DEPRECATED:
        where = _LAZY.get(name) or _DEPRECATED[name]
        value = getattr(importlib.import_module(f".{where}", __name__), name)
        globals()[name] = value
        return value
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_LAZY})
