"""Past one machine: kernels held by a dask cluster, node attributes propagated on one
(:class:`DaskFeatures`, the default's feature route of ``NodeClassifier.fit``), parallel
trials through joblib.

Everything here needs the optional ``dask`` extra (``pip install ".[dask]"`` from the repository root);
it is imported only when used.
"""

from ._features import DaskFeatures, DaskKernelBlock, DaskPropagatedKernel, is_dask_array
from ._lazy import import_optional
from ._lost import WorkerLostError
from ._operator import DaskKernelOperator, row_block_bounds

__all__ = ["DaskFeatures", "DaskKernelBlock", "DaskKernelOperator", "DaskPropagatedKernel",
           "WorkerLostError", "import_optional", "is_dask_array", "row_block_bounds"]
