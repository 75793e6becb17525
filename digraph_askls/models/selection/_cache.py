"""What the candidates of one ``fit(valid=...)`` share.

The validation route (:func:`~._search.search`, ``"validation"``) fits every ranked
(kernel, gamma, merge) as a grid of one on the same labelled nodes, with the same folds,
class weights and solver settings, and reads of each only its predictions of the
validation nodes. A :class:`SearchCache` passed through those searches keeps what they
share, so that each is computed once (the same objects, hence the same numbers, as
computing them again):

- the kernel of each recipe on the graph and its engine (a decomposition serves every
  gamma), by the recipe's identity;
- the out-of-fold scores of each (recipe, gamma), kept by the engine, and the joint
  stacker that the estimators of the joint and blended merges both fit on them;
- the out-of-fold scores on every labelled node of a kernel ranked on a sample, by
  kernel and gamma;
- the kernel blocks between the validation nodes and the fitted nodes, by kernel;
- the dense training block and its decomposition of the last kernel scored on every
  labelled node (:class:`~._engines.BlockMemo`): the candidates are fitted kernel by
  kernel, so each kernel's block is formed and decomposed once for all its gammas.

While it is ``judging``, a search fits its one merge's estimator and no more: the merge's
cross-validation, the estimate of the score, ``selection_`` and ``cv_results_`` serve the
chosen configuration alone, which the route fits again in full (on the cached kernel,
engine and scores). The probability calibrator is fitted while judging only where the
validation score reads the probabilities (``calibrate``): the plain accuracy judges the
merge's arg-max, which the calibrator does not move.
"""

from ._engines import BlockMemo

__all__ = ["SearchCache"]


class SearchCache:
    """Kernels, engines, out-of-fold scores, joint stackers and the validation nodes'
    kernel blocks of one validation route (see the module).

    Valid only among searches of the same labelled nodes, folds and settings (those of
    one ``fit(valid=...)``): it is keyed by identities (of the recipe, the kernel, the
    out-of-fold scores) and gammas, not by what they were computed from.

    Parameters
    ----------
    judging : bool
        Whether the searches only judge their configuration (see the module).
    calibrate : bool
        Whether a judged configuration's calibrator is fitted.
    """

    def __init__(self, judging=False, calibrate=True):
        self.judging = judging
        self.calibrate = calibrate
        self._engines = {}
        self._views = {}
        self._joint = {}
        self._on_all = {}
        self.blocks = BlockMemo()

    def engine(self, recipe, build):
        """The engine of ``recipe`` (``build()`` the first time), remembering the
        out-of-fold scores it gives at each gamma."""
        key = id(recipe)
        if key not in self._engines:
            engine = build()
            engine.remember_scores()
            self._engines[key] = (recipe, engine)      # the recipe kept: its id stays
        return self._engines[key][1]

    def on_all(self, kernel, gamma, score):
        """``score()`` (the out-of-fold scores of ``kernel`` at ``gamma`` on every
        labelled node, and the engine's name) the first time, then the same."""
        key = (id(kernel), float(gamma))
        if key not in self._on_all:
            self._on_all[key] = (kernel, score())      # the kernel kept: its id stays
        return self._on_all[key][1]

    def joint_stacker(self, oof):
        """The joint stacker fitted on the out-of-fold scores ``oof`` by an earlier
        estimator (:meth:`keep_joint_stacker`), or None."""
        kept = self._joint.get(id(oof))
        return None if kept is None else kept[1]

    def keep_joint_stacker(self, oof, estimator):
        """Keep the joint stacker of ``estimator`` (fitted on ``oof``), if it has one."""
        joint = estimator.joint_stacker_
        if joint is not None and id(oof) not in self._joint:
            self._joint[id(oof)] = (oof, joint)      # oof kept: its id stays

    def where(self, model, positions):
        """How ``model`` (a :class:`~digraph_askls.models._node_model.FittedModel`) reads
        the nodes ``positions``, as keywords of ``predict_codes`` and ``predict_proba``:
        by their kept view scores where it has them, else by their kernel blocks, formed
        once per kernel and ``positions``."""
        if model.scores(positions) is not None:
            return {"positions": positions}
        key = (id(model.kernel), id(positions))
        if key not in self._views:
            self._views[key] = (model.kernel, positions, model.views(positions))
        return {"views": self._views[key][2]}

    def fitting(self):
        """The same cache for a search that fits its configuration in full."""
        full = SearchCache(judging=False, calibrate=True)
        full._engines, full._views, full._on_all = self._engines, self._views, self._on_all
        full.blocks = self.blocks
        return full
