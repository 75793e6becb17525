"""A guard against dense allocations larger than the memory the machine has left.

A dense ``n x n`` kernel or factorisation grows with the square of the number of samples:
at 50,000 training nodes one float64 copy takes 19 GiB. Past the free memory, the kernel
of the operating system kills the process (Linux's out-of-memory killer) or it swaps for
hours; neither says why. Every dense ``n x n`` allocation of the library is preceded by
:func:`check_dense_allocation`, which raises :class:`MemoryError` with the figures and
the way out instead.

The memory available is, in order: the environment variable ``DIGRAPH_ASKLS_MEMORY_LIMIT``
(bytes; to test the guard, or to keep a share of the machine for other work), else the
smaller of ``MemAvailable`` in ``/proc/meminfo`` and what the control group of the process
may still allocate (``memory.max - memory.current`` of cgroup v2), else the free pages of
``os.sysconf``. When none of them can be read the guard lets everything through.
"""

import math
import os
from pathlib import Path

import numpy as np

__all__ = ["ENVIRONMENT_VARIABLE", "available_memory", "check_dense_allocation"]

#: Environment variable that overrides the memory available, in bytes.
ENVIRONMENT_VARIABLE = "DIGRAPH_ASKLS_MEMORY_LIMIT"

_GIB = 2.0**30


def _meminfo_available(path="/proc/meminfo"):
    try:
        with open(path, encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024   # the file says kB (KiB)
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_available(root="/sys/fs/cgroup"):
    try:
        limit = Path(root, "memory.max").read_text().strip()
        if limit == "max":
            return None
        return max(int(limit) - int(Path(root, "memory.current").read_text()), 0)
    except (OSError, ValueError):
        return None


def _sysconf_available():
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def available_memory():
    """Bytes that a new allocation may take, or None when it cannot be found out.

    Returns
    -------
    int or None
        ``DIGRAPH_ASKLS_MEMORY_LIMIT`` if set; else the smaller of ``MemAvailable`` and the
        room left in the process's control group; else the free pages of ``os.sysconf``.

    Raises
    ------
    ValueError
        If ``DIGRAPH_ASKLS_MEMORY_LIMIT`` is set but is not a non-negative whole number.

    Examples
    --------
    >>> from digraph_askls._memory import available_memory
    >>> limit = available_memory()
    >>> limit is None or limit >= 0
    True
    """
    value = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if value:
        try:
            limit = float(value)
        except ValueError:
            limit = -1.0
        if not 0 <= limit < math.inf:
            raise ValueError(f"{ENVIRONMENT_VARIABLE} must be a number of bytes >= 0, "
                             f"got {value!r}")
        return int(limit)
    found = [size for size in (_meminfo_available(), _cgroup_available()) if size is not None]
    if found:
        return min(found)
    return _sysconf_available()


def _bytes_of(shape, dtype):
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    for dim in dims:
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 0:
            raise ValueError(f"shape must hold non-negative integers, got {shape!r}")
    return math.prod(int(dim) for dim in dims) * np.dtype(dtype).itemsize, dims


def check_dense_allocation(shape, dtype=np.float64, what="a dense array",
                           remedy="use a sparse kernel or a LinearOperator"):
    """Raise :class:`MemoryError` if a dense array of ``shape`` would not fit in memory.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the array; a leading count stands for several arrays of the same size
        (``(3, n, n)`` for a matrix, its factor and a temporary).
    dtype : data-type, default=numpy.float64
    what : str
        What the array is, for the message (``"the SNE kernel K(X, reference)"``).
    remedy : str
        What to do instead, for the message.

    Returns
    -------
    int
        The bytes the array needs.

    Raises
    ------
    MemoryError
        If the bytes needed exceed :func:`available_memory`. The message gives both
        figures in GiB, the shape, and the remedy.

    Examples
    --------
    >>> from digraph_askls._memory import check_dense_allocation
    >>> check_dense_allocation((100, 100))
    80000
    >>> check_dense_allocation((10**7, 10**7), what="a kernel of 10^7 samples",
    ...                        remedy="use a sparse kernel")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    MemoryError: a kernel of 10^7 samples needs a dense float64 array of shape (10000000, 10000000): 7.45e+05 GiB, but only ... GiB of memory are available (...). Use a sparse kernel.
    """
    needed, dims = _bytes_of(shape, dtype)
    available = available_memory()
    if available is None or needed <= available:
        return needed
    if os.environ.get(ENVIRONMENT_VARIABLE, "").strip():
        source = f"as set by {ENVIRONMENT_VARIABLE}"
    else:
        source = f"as the system reports; {ENVIRONMENT_VARIABLE} (bytes) overrides it"
    raise MemoryError(
        f"{what} needs a dense {np.dtype(dtype).name} array of shape {dims}: "
        f"{needed / _GIB:.3g} GiB, but only {available / _GIB:.3g} GiB of memory are "
        f"available ({source}). {remedy[:1].upper()}{remedy[1:]}."
    )
