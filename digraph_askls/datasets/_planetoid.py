"""The Planetoid public split of Cora and CiteSeer, on the directed LINQS graphs.

Most few-label papers (GCN, GAT, APPNP, GCNII, SGC) report test accuracy on one split
of the Planetoid files (Yang, Cohen and Salakhutdinov 2016): 20 labelled nodes per class,
500 validation nodes and 1,000 test nodes. Those files store an undirected graph in an
order of their own; the data home's ``planetoid_splits/<name>.planetoid.tsv`` gives the
split in LINQS paper ids, so that it applies to :func:`load_dataset("cora")
<digraph_askls.datasets.load_dataset>` and ``"citeseer"``, which keep the links'
direction. A few Planetoid nodes match no LINQS node unambiguously and are left out
(Cora: 140 / 496 / 991 nodes, CiteSeer: 119 / 499 / 994).
"""

from pathlib import Path

import numpy as np

from digraph_askls.datasets._base import ENV_VAR, file_checksum, get_data_home
from digraph_askls.graph import Split

__all__ = ["load_planetoid_split", "PLANETOID_SPLITS"]

#: sha256 of the split files, by dataset name.
PLANETOID_SPLITS = {
    "cora": "4a8c638495b71b05180068d2a4007d7a5f506d95100bc17ab3abac0f478f773d",
    "citeseer": "06efe1862fb8465e2e53315fe54cddea90f0e005ccf265a0fc16ff4dbd51d6b7",
}
_PARTS = ("train", "valid", "test")


def load_planetoid_split(graph, name=None, data_home=None):
    """The Planetoid public split of a LINQS graph, as a :class:`~digraph_askls.graph.Split`.

    Parameters
    ----------
    graph : Graph
        ``load_dataset("cora")`` or ``load_dataset("citeseer")``: its ``node_names`` are
        the LINQS paper ids the split file names.
    name : {"cora", "citeseer"}, optional
        Which split; by default the graph's name.
    data_home : str or path, optional
        Folder holding ``planetoid_splits/`` (see :func:`get_data_home`). The files have
        no public URL of their own and are never downloaded.

    Returns
    -------
    Split
        Sorted node positions of the 20 labelled nodes per class (``train``), the
        validation and the test nodes.

    Raises
    ------
    FileNotFoundError
        If the split file is not in the data home (the message says where it was
        looked for).
    ValueError
        If the file's checksum differs, a row is malformed, or a node is not in the graph.

    Examples
    --------
    >>> import numpy as np
    >>> from digraph_askls.graph import Graph, get_adjacency
    >>> import tempfile, pathlib
    >>> home = pathlib.Path(tempfile.mkdtemp())
    >>> (home / "planetoid_splits").mkdir()
    >>> _ = (home / "planetoid_splits" / "tiny.planetoid.tsv").write_text(
    ...     "# a comment\\nnode\\tpart\\nb\\ttrain\\nc\\tvalid\\na\\ttest\\n")
    >>> adjacency, nodes = get_adjacency([("a", "b"), ("b", "c")])
    >>> graph = Graph(adjacency, [0, 1, 0], nodes, ["x", "y"], name="tiny")
    >>> load_planetoid_split(graph, data_home=home)
    Split(train=array([1]), valid=array([2]), test=array([0]))
    """
    key = (name or getattr(graph, "name", "") or "").lower().split()[0]
    home = Path(get_data_home(data_home))
    path = home / "planetoid_splits" / f"{key}.planetoid.tsv"
    if not path.is_file():
        raise FileNotFoundError(
            f"the Planetoid split of {key!r} is read from {path}, which does not exist; "
            f"place planetoid_splits/{key}.planetoid.tsv in the data home (data_home= or "
            f"${ENV_VAR}); it has no public URL and is not downloaded")
    if key in PLANETOID_SPLITS:
        found = file_checksum(path, "sha256")
        if found != PLANETOID_SPLITS[key]:
            raise ValueError(f"{path}: expected sha256 {PLANETOID_SPLITS[key]}, got {found}")
    position = {str(node): index for index, node in enumerate(graph.node_names)}
    parts = {part: [] for part in _PARTS}
    rows = [line for line in path.read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    for number, line in enumerate(rows[1:], start=2):
        fields = line.split("\t")
        if len(fields) != 2 or fields[1] not in parts:
            raise ValueError(f"{path}: row {number}: expected '<node>\\t<train|valid|test>', "
                             f"got {line!r}")
        if fields[0] not in position:
            raise ValueError(f"{path}: row {number}: node {fields[0]!r} is not a node of "
                             f"the graph {getattr(graph, 'name', '')!r}")
        parts[fields[1]].append(position[fields[0]])
    return Split(*(np.sort(np.asarray(parts[part], dtype=np.int64)) for part in _PARTS))
