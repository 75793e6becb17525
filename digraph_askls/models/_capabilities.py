"""What a kernel block can do, declared as small protocols: the engines of the selection
and the decompositions choose their route from these, not from attribute probes.

A kernel (or its restriction to the training nodes) that has a method of a protocol
declares that capability (:func:`isinstance` with these :func:`~typing.runtime_checkable`
protocols):

- :class:`ExplicitMaps`: ``factors()`` gives ``(U, V)`` with ``K = U V^T`` (``n_features``
  columns each), which a thin SVD reduces;
- :class:`FormsDense`: ``to_dense()`` forms the block without products with an operator;
- :class:`WalksBothViews` and :class:`ProductsBothViews`: ``pair_hops`` (the walk's hops of
  ``K X`` and ``K^T Y`` together) or ``matmat_pair`` (``(K X, K^T Y)`` in one pass), which
  score every node in the solve itself.
"""

from typing import Protocol, runtime_checkable

__all__ = ["ExplicitMaps", "FormsDense", "ProductsBothViews", "WalksBothViews",
           "map_width", "multiplies_both_views"]


@runtime_checkable
class ExplicitMaps(Protocol):
    """A block given by explicit feature maps."""

    def factors(self):
        """``(U, V)`` with the block ``U V^T``."""


@runtime_checkable
class FormsDense(Protocol):
    """A block that forms its dense array directly."""

    def to_dense(self):
        """The block as a dense array."""


@runtime_checkable
class WalksBothViews(Protocol):
    """A walk kernel that hops ``K X`` and ``K^T Y`` together."""

    def pair_hops(self, X, Y, rows=None, progress=None):
        """The hops of both products."""


@runtime_checkable
class ProductsBothViews(Protocol):
    """A kernel whose one pass gives ``(K X, K^T Y)``."""

    def matmat_pair(self, X, Y):
        """``(K @ X, K^T @ Y)``."""


def map_width(block, default):
    """The columns of the explicit maps of ``block`` (:class:`ExplicitMaps`), ``default``
    where it does not say."""
    return getattr(block, "n_features", default)


def multiplies_both_views(kernel):
    """Whether one pass of ``kernel`` multiplies both views (:class:`WalksBothViews` or
    :class:`ProductsBothViews`)."""
    return isinstance(kernel, (WalksBothViews, ProductsBothViews))
