"""The feature route of a fit on a dask cluster: node attributes given as a dask array
(or :class:`~digraph_askls.distributed.DaskFeatures`) are propagated on the workers, and
only the kernels that factor through propagated attributes are built from them.

The attribute kernels (:class:`~digraph_askls.kernels.AttributeKernel`, any
propagation) are such kernels. The others read the whole attribute matrix at once (the
role bins' text lengths), or read the structure alone (walks, link profiles) and would
need the graph kernel on the cluster: under ``kernel="auto"`` they are left out of the
candidates, with a ``UserWarning`` that names them and a line in the log
(``selection_`` and ``cv_results_`` keep their schema: they list what was tried); a
kernel named by the user that is not one is refused before anything is computed.
"""

import logging
import warnings

from ..distributed._features import DaskFeatures, is_dask_array
from ..kernels import AttributeKernel

__all__ = ["distributable", "distributed_features", "is_distributed", "keep_distributable"]

logger = logging.getLogger(__name__)


def is_distributed(features):
    """Whether node attributes are held by a dask cluster."""
    return isinstance(features, DaskFeatures)


def distributed_features(given, n_nodes):
    """``given`` as :class:`~digraph_askls.distributed.DaskFeatures` (a dask array with
    the current client), checked against the number of nodes; None for other forms."""
    if not (is_dask_array(given) or isinstance(given, DaskFeatures)):
        return None
    features = given if isinstance(given, DaskFeatures) else DaskFeatures(given)
    if features.shape[0] != n_nodes:
        raise ValueError(f"features must be 2-d with one row per node, shape ({n_nodes}, "
                         f"n_features), got shape {features.shape}")
    return features


def distributable(recipe):
    """Whether a kernel recipe factors through propagated attributes (built on the
    cluster from :class:`~digraph_askls.distributed.DaskFeatures`).

    Examples
    --------
    >>> from digraph_askls.kernels import AttributeKernel, WalkKernel
    >>> distributable(AttributeKernel(hops=2)), distributable(WalkKernel())
    (True, False)
    """
    return isinstance(recipe, AttributeKernel)


def keep_distributable(recipes, named, stacklevel=2):
    """The recipes built on the cluster: under ``kernel="auto"`` (``named`` False) the
    others are left out with a warning; a named one that is not is refused."""
    kept = [recipe for recipe in recipes if distributable(recipe)]
    left = [recipe for recipe in recipes if not distributable(recipe)]
    if left and named:
        raise ValueError(
            f"node attributes on a dask cluster are propagated there, and only attribute "
            f"kernels (AttributeKernel) are built from them; got {left!r}: choose "
            f"attribute kernels, kernel='auto', or pass numpy features")
    if left:
        note = (f"node attributes on a dask cluster: {len(left)} candidate kernel"
                f"{'s' if len(left) > 1 else ''} that do not factor through propagated "
                f"attributes left out of the selection: {', '.join(map(repr, left))}")
        logger.info(note)
        warnings.warn(note, UserWarning, stacklevel=stacklevel)
    return kept
