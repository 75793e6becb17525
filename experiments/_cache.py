"""On-disk cache of computed arrays as ``.npz`` files keyed by their parameters.

A cached file is named ``<prefix>-<key>.npz`` where ``key`` is a digest of the parameters,
including fingerprints of the input arrays, so that any change of input or parameter gives a
new file. Files are written to a temporary name and renamed, so that an interrupted run
(an error, Ctrl-C during the computation or the writing) leaves no half-written file, and
read with ``allow_pickle=False``. A cached file that cannot be read (cut short by a full
disk, damaged) counts as a miss: it is computed again and replaced.
"""

import hashlib
import json
import logging
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

__all__ = ["fingerprint", "load_or_compute"]

logger = logging.getLogger(__name__)


def fingerprint(arrays):
    """Hex digest of the dtypes, shapes and bytes of a sequence of arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from experiments._cache import fingerprint
    >>> fingerprint([np.zeros(3)]) == fingerprint([np.zeros(3)])
    True
    >>> fingerprint([np.zeros(3)]) == fingerprint([np.zeros(4)])
    False
    """
    digest = hashlib.blake2b(digest_size=16)
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.data)
    return digest.hexdigest()


def load_or_compute(cache_dir, prefix, params, compute):
    """Return the arrays cached for ``params``, computing and saving them on a miss.

    Parameters
    ----------
    cache_dir : str, path or None
        Folder of the cache; ``None`` computes without caching.
    prefix : str
        Start of the file name, saying what the arrays are.
    params : dict
        JSON-serialisable parameters that determine the result.
    compute : callable
        ``compute() -> dict[str, ndarray]``, called on a miss.

    Returns
    -------
    arrays : dict of str to ndarray

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from experiments._cache import load_or_compute
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     first = load_or_compute(folder, "demo", {"n": 3}, lambda: {"x": np.arange(3)})
    ...     again = load_or_compute(folder, "demo", {"n": 3}, lambda: {"x": np.zeros(3)})
    >>> again["x"]
    array([0, 1, 2])
    """
    if cache_dir is None:
        return compute()
    key = hashlib.blake2b(json.dumps(params, sort_keys=True).encode(), digest_size=8)
    path = Path(cache_dir) / f"{prefix}-{key.hexdigest()}.npz"
    if path.is_file():
        logger.info("loading %s from %s", prefix, path)
        try:
            with np.load(path, allow_pickle=False) as data:
                return {name: data[name] for name in data.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
            logger.warning("the cached %s at %s cannot be read (%s); computing it again",
                           prefix, path, error)
    arrays = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".npz.part")
    try:
        with os.fdopen(handle, "wb") as file:
            np.savez(file, **arrays)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    logger.info("saved %s to %s", prefix, path)
    return arrays
