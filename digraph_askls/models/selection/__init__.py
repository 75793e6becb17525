"""The per-graph selection of :class:`~digraph_askls.NodeClassifier`: which kernel, gamma
and merge, chosen on the labelled nodes.

The modules, in the order a fit runs them (:func:`select_kernel`, in :mod:`~._select`,
calls each in turn):

1. :mod:`~._policy`: :class:`SelectionPolicy` (the thresholds) and :class:`FitSettings`
   (how the systems are solved), built once by ``NodeClassifier.fit``;
2. :mod:`~._candidates`: the kernels tried, each a :class:`Candidate`;
3. :mod:`~._folds`: the stratified folds every candidate is judged on;
4. :mod:`~._engines` and :mod:`~._out_of_fold`: each candidate's out-of-fold scores;
5. :mod:`~._ranking`: the ranking of the candidates, and the best;
6. :mod:`~._winner`: the winner's merge and the fitted estimator.

:mod:`~._single` fits one configuration given as is; :mod:`~._validation` judges the
ranked configurations on validation nodes instead (``NodeClassifier.fit(valid=...)``).
"""

from ._candidates import Candidate, as_recipes, default_kernels
from ._engines import Engine, SolvedEngine, SpectralEngine, WalkEngine
from ._folds import node_keys
from ._policy import DEFAULT_POLICY, FitSettings, SelectionPolicy
from ._select import Selected, select_kernel

__all__ = ["Candidate", "DEFAULT_POLICY", "Engine", "FitSettings", "SelectionPolicy",
           "Selected", "SolvedEngine", "SpectralEngine", "WalkEngine", "as_recipes",
           "default_kernels", "node_keys", "select_kernel"]
