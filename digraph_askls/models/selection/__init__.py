"""The per-graph selection of :class:`~digraph_askls.NodeClassifier`: which kernel, gamma
and merge, chosen on the labelled nodes.

:func:`search` (:mod:`~._search`) is the one entry point: it takes the configurations
(:class:`SearchSpace`) and the labelled nodes with how to judge them (:class:`Problem`),
decides the route once (:func:`route`: folds, validation nodes, a configuration fitted
as given, or several labels per node) and returns a frozen :class:`SearchResult`. The
modules of the folds route, in the order a fit runs them:

1. :mod:`~._policy`: :class:`SelectionPolicy` (every threshold), :class:`FitSettings`
   (how the systems are solved) and what ``merge="auto"`` compares; :mod:`~._scoring`:
   the criterion (:class:`Scoring`) and the held-out rows it judges;
2. :mod:`~._folds`: the stratified folds every candidate is judged on, or a splitter's;
3. :mod:`~._candidates`: the kernels tried, each a :class:`Candidate` with its gammas;
4. :mod:`~._engines` and :mod:`~._out_of_fold`: each candidate's out-of-fold scores, by
   the one rule :func:`~._engines.block_route`;
5. :mod:`~._ranking` and :mod:`~._racing`: the ranking of the candidates, and the race;
6. :mod:`~._winner`: the winner's merge and the fitted estimator; :mod:`~._estimate`: the
   estimate of its score corrected for the choice;
7. :mod:`~._results`: ``selection_`` and ``cv_results_``, written there alone, with one
   schema for every route.

:mod:`~._single` fits one configuration given as is; :mod:`~._validation` judges the
ranked configurations on validation nodes; :mod:`~._multilabel` scores several labels
per node.
"""

from ._candidates import Candidate, as_recipes, default_kernels, multilabel_kernels
from ._engines import Engine, SolvedEngine, SpectralEngine, WalkEngine
from ._folds import node_keys
from ._policy import DEFAULT_POLICY, FitSettings, SelectionPolicy
from ._scoring import Scoring, check_scoring
from ._search import Problem, SearchResult, SearchSpace, route, search
from ._select import merges_for

__all__ = ["Candidate", "DEFAULT_POLICY", "Engine", "FitSettings", "Problem",
           "SearchResult", "SearchSpace", "SelectionPolicy", "Scoring", "SolvedEngine",
           "SpectralEngine", "WalkEngine", "as_recipes", "check_scoring", "default_kernels",
           "merges_for", "multilabel_kernels", "node_keys", "route", "search"]
