"""Results of one method on one split, saved as soon as they are measured.

A results table is a grid of cells (graph, protocol, method, split). Graph neural networks
train for minutes per split on a CPU, so every cell is appended to a JSON-lines file the
moment it is measured: a stopped run keeps what it measured, and running the table again
computes only the missing cells. The key of a cell holds the node sets of its split and
the settings of the method, so that another split or other settings are never mistaken
for it; ``recompute`` reruns a method (e.g. AsK-LS after a change of the library).

Provenance. Every cell written (by :class:`CellCache` and by the tables that append their
own lines) carries where it comes from (:func:`provenance`): ``commit``, the commit of the
checkout that holds the imported library, ``dirty``, whether that checkout's code
(``digraph_askls/``, ``experiments/``, ``benchmarks/``, ``pyproject.toml``) differed from
the commit, and ``library_version``. Cells of AsK-LS also carry ``params_digest``, a digest
of the estimator's parameters (:func:`params_digest`), and cells whose predictions are at
hand ``predictions_digest`` (:func:`predictions_digest`), so that a rerun can say whether it
decided alike, not only whether it scored alike. Lines written before these fields existed
lack them; readers take both.
"""

import functools
import hashlib
import json
import logging
import os
import re
import subprocess
from pathlib import Path

import numpy as np

__all__ = ["CellCache", "params_digest", "predictions_digest", "provenance", "read_cells",
           "split_key", "stamp"]

logger = logging.getLogger(__name__)

#: The paths whose changes make a checkout's cells "dirty": the code that measures them.
_CODE_PATHS = ("digraph_askls", "experiments", "benchmarks", "pyproject.toml")


def _git(root, *arguments):
    """The output of ``git -C root ...``, or None where git or the repository is absent."""
    try:
        done = subprocess.run(["git", "-C", str(root), *arguments], capture_output=True,
                              text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _checkout(root):
    """(commit, dirty) of the git checkout at ``root``; (None, None) outside git."""
    commit = _git(root, "rev-parse", "HEAD")
    if commit is None:
        return None, None
    changes = _git(root, "status", "--porcelain", "--", *_CODE_PATHS)
    return commit, None if changes is None else bool(changes)


@functools.lru_cache(maxsize=None)
def provenance():
    """Where the cells of this process come from: ``commit`` and ``dirty`` of the checkout
    that holds the imported ``digraph_askls`` (None for both outside a git checkout) and
    ``library_version``.

    Read once per process, when its first cell is written: the code a process runs is
    the code it imported then, whatever is committed while it runs. Where the harness
    (``experiments``) comes from another checkout than the library, ``harness_commit``
    and ``harness_dirty`` say which.

    Examples
    --------
    >>> sorted(provenance())[:3]
    ['commit', 'dirty', 'library_version']
    """
    import digraph_askls

    library_root = Path(digraph_askls.__file__).resolve().parents[1]
    commit, dirty = _checkout(library_root)
    found = {"commit": commit, "dirty": dirty,
             "library_version": getattr(digraph_askls, "__version__", None)}
    harness_root = Path(__file__).resolve().parents[1]
    if harness_root != library_root:
        found["harness_commit"], found["harness_dirty"] = _checkout(harness_root)
    return found


def _plain(value):
    """A JSON-ready form of a parameter value: its repr, one space between words, without
    the memory addresses of objects that print none of their own."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", " ".join(repr(value).split()))


def params_digest(estimator):
    """A short digest of an estimator's parameters (``get_params(deep=False)``), equal for
    two estimators configured alike.

    Examples
    --------
    >>> from digraph_askls import NodeClassifier
    >>> params_digest(NodeClassifier()) == params_digest(NodeClassifier())
    True
    >>> params_digest(NodeClassifier()) == params_digest(NodeClassifier(gamma=1.0))
    False
    """
    if not hasattr(estimator, "get_params"):
        raise TypeError(f"expected an estimator with get_params(), got "
                        f"{type(estimator).__name__}")
    params = estimator.get_params(deep=False)
    text = json.dumps({name: params[name] for name in sorted(params)}, sort_keys=True,
                      default=_plain)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def predictions_digest(predicted):
    """A short digest of predictions (classes of the test nodes in their order, or a 0/1
    matrix of several labels per node), equal for equal predictions.

    Examples
    --------
    >>> predictions_digest([0, 2, 1]) == predictions_digest(np.array([0, 2, 1]))
    True
    >>> predictions_digest([0, 2, 1]) == predictions_digest([0, 1, 2])
    False
    """
    values = np.asarray(predicted)
    if values.dtype.kind not in "biu":
        raise TypeError(f"expected integer classes or a 0/1 label matrix, got dtype "
                        f"{values.dtype}")
    digest = hashlib.blake2b(digest_size=8)
    digest.update(repr(values.shape).encode())
    digest.update(np.ascontiguousarray(values, dtype=np.int64).tobytes())
    return digest.hexdigest()


def stamp(cell, estimator=None, predicted=None):
    """``cell`` with its provenance (:func:`provenance`), the digest of ``estimator``'s
    parameters and the digest of its predictions where given; fields the cell has keep
    their values.

    Examples
    --------
    >>> cell = stamp({"accuracy": 1.0}, predicted=[1, 0])
    >>> "commit" in cell and "library_version" in cell, len(cell["predictions_digest"])
    (True, 16)
    """
    extra = dict(provenance())
    if estimator is not None:
        extra["params_digest"] = params_digest(estimator)
    if predicted is not None:
        extra["predictions_digest"] = predictions_digest(predicted)
    return {**extra, **cell}


def split_key(train, test, valid=None):
    """A short digest of a split's node sets.

    Examples
    --------
    >>> import numpy as np
    >>> split_key(np.array([0, 1]), np.array([2])) == split_key([0, 1], [2])
    True
    >>> split_key([0, 1], [2]) == split_key([0, 2], [1])
    False
    """
    digest = hashlib.blake2b(digest_size=8)
    for nodes in (train, test, [] if valid is None else valid):
        digest.update(np.asarray(nodes, dtype=np.int64).tobytes())
        digest.update(b"|")
    return digest.hexdigest()


def read_cells(path, key):
    """The cells of a JSON-lines file by ``key(cell)``, the last line of a key winning
    ({} if there is no file)."""
    cells = {}
    path = Path(path)
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                cell = json.loads(line)
                cells[key(cell)] = cell
    return cells


class CellCache:
    """Cells of results tables in a JSON-lines file; the last line of a key wins.

    Parameters
    ----------
    path : str or os.PathLike or None
        The file (created on the first cell). None keeps the cells in memory only.

    Examples
    --------
    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> cache = CellCache(os.path.join(folder, "cells.jsonl"))
    >>> key = {"graph": "tiny", "protocol": "fixed splits", "method": "GCN", "split": 0,
    ...        "split_key": "ab", "settings": None}
    >>> cache.get(key) is None
    True
    >>> cache.put(key, {"accuracy": 0.5})["method"]
    'GCN'
    >>> CellCache(os.path.join(folder, "cells.jsonl")).get(key)["accuracy"]
    0.5
    """

    _KEY_FIELDS = ("graph", "protocol", "method", "split", "split_key", "settings")

    def __init__(self, path=None):
        self.path = None if path is None else Path(path)
        self._cells = {}
        if self.path is not None and self.path.is_file():
            with open(self.path, encoding="utf-8") as file:
                for number, line in enumerate(file, 1):
                    if not line.strip():
                        continue
                    try:
                        cell = json.loads(line)
                    except json.JSONDecodeError:      # a line cut by a stopped run
                        logger.warning("%s line %d is not JSON; skipped", self.path, number)
                        continue
                    self._cells[self._key(cell)] = cell

    @classmethod
    def _key(cls, cell):
        return json.dumps([cell.get(field) for field in cls._KEY_FIELDS], sort_keys=True)

    def __len__(self):
        return len(self._cells)

    def get(self, key):
        """The cell stored under ``key`` (a dict with the key fields), or None."""
        return self._cells.get(self._key(key))

    def put(self, key, values):
        """Store ``values`` under ``key``, append them to the file at once, and return
        the stored cell (the key fields with the values, stamped with their provenance:
        :func:`stamp`)."""
        cell = stamp({**{field: key.get(field) for field in self._KEY_FIELDS}, **values})
        self._cells[self._key(cell)] = cell
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as file:
                file.write(json.dumps(cell, sort_keys=True) + "\n")
                file.flush()
                os.fsync(file.fileno())
        return cell

    def cells(self, graph=None, protocol=None, method=None):
        """Stored cells, filtered by graph, protocol and method when given."""
        wanted = {"graph": graph, "protocol": protocol, "method": method}
        return [cell for cell in self._cells.values()
                if all(value is None or cell.get(field) == value
                       for field, value in wanted.items())]
