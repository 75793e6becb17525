"""The per-graph selection of :class:`~digraph_askls.NodeClassifier`: which kernel, gamma
and merge, chosen on the labelled nodes.

The modules, in the order a fit runs them (:func:`select_kernel`, in :mod:`~._select`,
calls each in turn):

1. :mod:`~._policy`: :class:`SelectionPolicy` (the thresholds), :class:`FitSettings`
   (how the systems are solved) and what ``merge="auto"`` compares
   (:func:`~._policy.auto_merges`); :mod:`~._scoring`: the criterion
   (``NodeClassifier(scoring=...)``, :class:`Scoring`) and the held-out rows it judges;
2. :mod:`~._folds`: the stratified folds every candidate is judged on, or a splitter's
   (``NodeClassifier(cv=...)``);
3. :mod:`~._candidates`: the kernels tried, each a :class:`Candidate` with its gammas;
4. :mod:`~._engines` and :mod:`~._out_of_fold`: each candidate's out-of-fold scores;
5. :mod:`~._ranking` and :mod:`~._racing`: the ranking of the candidates, and the race;
6. :mod:`~._winner`: the winner's merge and the fitted estimator; :mod:`~._estimate`: the
   estimate of its score corrected for the choice;
7. :mod:`~._results`: ``selection_`` and ``cv_results_``, assembled there alone.

:mod:`~._single` fits one configuration given as is; :mod:`~._validation` judges the
ranked configurations on validation nodes instead (``NodeClassifier.fit(valid=...)``).
"""

from ._candidates import Candidate, as_recipes, default_kernels, multilabel_kernels
from ._engines import Engine, SolvedEngine, SpectralEngine, WalkEngine
from ._folds import node_keys
from ._policy import DEFAULT_POLICY, FitSettings, SelectionPolicy
from ._scoring import Scoring, check_scoring
from ._select import Selected, Selection, merges_for, select_kernel
from ._validation import choose_on_validation, validation_candidates

__all__ = ["Candidate", "DEFAULT_POLICY", "Engine", "FitSettings", "SelectionPolicy",
           "Scoring", "Selected", "Selection", "SolvedEngine", "SpectralEngine",
           "WalkEngine", "as_recipes", "check_scoring", "choose_on_validation",
           "default_kernels", "merges_for", "multilabel_kernels", "node_keys",
           "select_kernel", "validation_candidates"]
