"""Results of one method on one split, saved as soon as they are measured.

A results table is a grid of cells (graph, protocol, method, split). Graph neural networks
train for minutes per split on a CPU, so every cell is appended to a JSON-lines file the
moment it is measured: a stopped run keeps what it measured, and running the table again
computes only the missing cells. The key of a cell holds the node sets of its split and
the settings of the method, so that another split or other settings are never mistaken
for it; ``recompute`` reruns a method (e.g. AsK-LS after a change of the library).
"""

import hashlib
import json
import logging
import os
from pathlib import Path

import numpy as np

__all__ = ["CellCache", "read_cells", "split_key"]

logger = logging.getLogger(__name__)


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
        the stored cell (the key fields with the values)."""
        cell = {**{field: key.get(field) for field in self._KEY_FIELDS}, **values}
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
