"""What a merge of the two views is: how they combine, and which held-out scores feed it.

A merge maps the source and target view scores of a node to one decision. It has two
axes: ``combine``, how the views become one (``"mean"``, the paper's mean of the views;
``"stack"``, the authors' logistic regression per class; ``"joint"``, one multinomial
logistic regression on both views of all classes; ``"blend"``, half the joint stacker,
half the calibrated mean; ``"source"`` or ``"target"``, one view alone), and ``scores``,
which held-out scores the stackers learn (``"folds"``, out-of-fold scores;
``"train"``, the full model's training scores, which the system gives for free;
``"loo"``, exact leave-one-out scores from one SVD). Each merge keeps the name the
``merge=`` parameters take (:data:`MERGES`).
"""

from dataclasses import dataclass, field

__all__ = ["MERGES", "Merge", "as_merge"]

_COMBINES = ("mean", "stack", "joint", "blend", "source", "target")
_SCORES = ("folds", "train", "loo")
#: The name of a combination fed by held-out folds (the others add ``_train``/``_loo``).
_FOLD_NAMES = {"mean": "average"}


@dataclass(frozen=True)
class Merge:
    """A merge of the two views (see the module's docstring).

    Examples
    --------
    >>> Merge.named("joint_train")
    Merge(combine='joint', scores='train')
    >>> Merge("mean", "folds").name, Merge.named("blend").stacking
    ('average', True)
    """

    combine: str
    scores: str = "folds"
    #: The name the ``merge=`` parameters take, and ``selection_`` reports.
    name: str = field(init=False, repr=False, compare=False)
    #: Whether stackers learn the held-out view scores (else a mean of views).
    stacking: bool = field(init=False, repr=False, compare=False)
    #: Whether one multinomial model reads every view of every class.
    joint: bool = field(init=False, repr=False, compare=False)
    #: Whether the joint stacker is blended with the calibrated mean view.
    blending: bool = field(init=False, repr=False, compare=False)
    #: The views the merge reads.
    views: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.combine not in _COMBINES or self.scores not in _SCORES:
            raise ValueError(f"unknown merge ({self.combine!r}, {self.scores!r})")
        base = _FOLD_NAMES.get(self.combine, self.combine)
        # Plain attributes, set once: the selection reads them in its inner loops.
        for name, value in (
                ("name", base if self.scores == "folds" else f"{base}_{self.scores}"),
                ("stacking", self.combine in ("stack", "joint", "blend")),
                ("joint", self.combine in ("joint", "blend")),
                ("blending", self.combine == "blend"),
                ("views", (self.combine,) if self.combine in ("source", "target")
                 else ("source", "target"))):
            object.__setattr__(self, name, value)

    @classmethod
    def named(cls, name):
        """The merge of a ``merge=`` name (:data:`MERGES`)."""
        try:
            return _BY_NAME[name]
        except KeyError:
            raise ValueError(f"unknown merge {name!r}; choose from {list(MERGES)}") from None

    def __str__(self):
        return self.name


#: Every merge, in the order of the ``merge=`` documentation.
_ALL = (Merge("mean"), Merge("stack"), Merge("joint"), Merge("blend"),
        Merge("stack", "train"), Merge("joint", "train"), Merge("stack", "loo"),
        Merge("joint", "loo"), Merge("blend", "loo"), Merge("source"), Merge("target"))
_BY_NAME = {merge.name: merge for merge in _ALL}

#: The names of every merge.
MERGES = tuple(_BY_NAME)


def as_merge(merge):
    """A :class:`Merge` from itself or its name."""
    return merge if isinstance(merge, Merge) else Merge.named(merge)
