"""Deprecated: the splits and scores moved to :mod:`digraph_askls.model_selection` and
:mod:`digraph_askls.metrics`.

.. deprecated:: 0.1.0
    ``digraph_askls.evaluation`` will be removed in 0.2.0. Import the split protocols and
    :func:`~digraph_askls.model_selection.evaluate_node_classifier` from
    :mod:`digraph_askls.model_selection`, and
    :func:`~digraph_askls.metrics.expected_calibration_error` and
    :func:`~digraph_askls.metrics.top_k_f1` from :mod:`digraph_askls.metrics`. Until then
    each name imported from here is the new module's object, with a ``FutureWarning`` that
    names its new place (scikit-learn's warning for what it moves).

The research harness's functions that lived here (``twin_baseline``, ``has_twin``,
``linear_reference_features``, ``long_tail_splits``, ``check_protocol``) are not part of
the library any more: they are in ``experiments/_protocols.py`` of the repository.
"""

import importlib
import warnings

#: Each public name of the old module and the module that holds it now.
_MOVED = {
    **dict.fromkeys(["TrialResults", "class_splits", "evaluate_node_classifier",
                     "fixed_splits", "kernel_family", "multilabel_splits", "random_splits",
                     "takes_valid"], "digraph_askls.model_selection"),
    **dict.fromkeys(["expected_calibration_error", "top_k_f1"], "digraph_askls.metrics"),
}
_HARNESS = ("check_protocol", "has_twin", "linear_reference_features", "long_tail_splits",
            "twin_baseline")

__all__ = ["TrialResults", "class_splits", "evaluate_node_classifier",
           "expected_calibration_error", "fixed_splits", "kernel_family", "multilabel_splits",
           "random_splits", "takes_valid", "top_k_f1"]


def __getattr__(name):
    if name in _MOVED:
        warnings.warn(f"digraph_askls.evaluation is deprecated and will be removed in 0.2.0: "
                      f"import {name} from {_MOVED[name]} instead", FutureWarning,
                      stacklevel=2)
        return getattr(importlib.import_module(_MOVED[name]), name)
    if name in _HARNESS:
        # ImportError, not AttributeError: ``from ... import`` shows this message then.
        raise ImportError(f"{name} left the library: it belongs to the research harness, "
                          f"experiments/_protocols.py in the repository "
                          f"(from experiments._protocols import {name}, run from its root)")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
