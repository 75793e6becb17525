"""Lazy import of the optional dask dependency, with an error naming the extra."""

import importlib

__all__ = ["import_optional"]

EXTRA_HINT = ('install the optional extra with: pip install ".[dask]" from the repository '
              'root (or pip install "dask[distributed]" joblib)')


def import_optional(name):
    """Import module ``name`` of the ``dask`` extra, or raise an ImportError saying how.

    Examples
    --------
    >>> import_optional("numpy").__name__
    'numpy'
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(
            f"{name!r} is required for distributed computations but could not be "
            f"imported ({exc}); {EXTRA_HINT}"
        ) from exc
