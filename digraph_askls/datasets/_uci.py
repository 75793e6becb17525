"""The UCI tables of the AsK-LS paper's Table 4, in the PMLB distribution."""

import gzip

import numpy as np

from digraph_askls.datasets._base import get_data_home
from digraph_askls.datasets._load import _ensure_files
from digraph_askls.datasets._registry import DataFile, DatasetSpec

__all__ = ["UCI_TABLES", "load_uci"]

_PMLB = ("https://github.com/EpistasisLab/pmlb/raw/d8b0e551596bdb2d204e584df5c3c138e1757ed6/"
         "datasets/classification")

# name -> (file name in PMLB, sha256 of the .tsv.gz, recorded from the pristine copies)
UCI_TABLES = {
    "heart": ("heart-statlog", "heart_statlog",
              "8961cb48eb662faa5d55d7849ee8be88d8b2a3eeebd383cfa5df38c60133ebcb"),
    "sonar": ("sonar", "sonar", "64378cabaecdb50e2e1e644c1d6bc359f0627ebe313870ad09e1e41ed972529b"),
    "monks1": ("monk1", "monk1", "7486697a3be18ebaad546e5729db5d04326072cfa673436824aadc1b60b0fb7a"),
    "monks2": ("monk2", "monk2", "34fd665457403f66db49a4d012c59d7c387f99a35597c8f0f0e31d40ada255f8"),
    "monks3": ("monk3", "monk3", "085b4d7d6a1d69ddf52a093277b91b0d13dced7a37d98d281784b82eff42b2d9"),
    "pima": ("pima", "pima", "3820d79b9b44dac3d7a76ce5d507091bd4057f8e5dddd44c4d8bd0ae1d039206"),
    "australian": ("australian", "australian",
                   "7f3e5e96b80f5217830cdd198d33b4262cbded4f7cc22981daaa5d61fdcb8329"),
    "spambase": ("spambase", "spambase",
                 "735e8d43f7ee78ac54ca17404510e95f4c8b364a721e4d9532a1b3221ed70961"),
}


def _read_table(path):
    with gzip.open(path, "rt") as handle:
        header = handle.readline().rstrip("\n").split("\t")
        data = np.loadtxt(handle, delimiter="\t", dtype=np.float64, ndmin=2)
    if header[-1] != "target" or data.shape[1] != len(header):
        raise ValueError(f"{path}: expected a header ending in 'target' and "
                         f"{len(header)} columns per row, got {header[-1]!r} and "
                         f"{data.shape[1]} columns")
    return data[:, :-1], data[:, -1].astype(np.int64)


def load_uci(name, data_home=None, download=True):
    """Load one of the UCI tables of the paper's Table 4 as ``(X, y)``.

    Files are looked for at ``<data_home>/uci_pmlb/<folder>/<file>.tsv.gz`` (the PMLB
    layout) and downloaded from PMLB when missing and ``download`` is true.

    Parameters
    ----------
    name : str
        One of ``UCI_TABLES``: heart, sonar, monks1, monks2, monks3, pima, australian,
        spambase.
    data_home : str or os.PathLike, optional
    download : bool, default=True

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of int, values 0 and 1

    Examples
    --------
    >>> import gzip, tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as home:
    ...     folder = Path(home) / "uci_pmlb" / "sonar"
    ...     folder.mkdir(parents=True)
    ...     with gzip.open(folder / "sonar.tsv.gz", "wt") as f:
    ...         _ = f.write("a\\tb\\ttarget\\n1\\t2\\t0\\n3\\t4\\t1\\n")
    ...     X, y = load_uci("sonar", data_home=home, download=False)
    >>> X.shape, y.tolist()
    ((2, 2), [0, 1])
    """
    if name not in UCI_TABLES:
        raise ValueError(f"unknown UCI table {name!r}; choose from {sorted(UCI_TABLES)}")
    file_name, folder, sha256 = UCI_TABLES[name]
    relative = f"uci_pmlb/{folder}/{file_name}.tsv.gz"
    spec = DatasetSpec(name, (DataFile(relative, f"sha256:{sha256}",
                                       f"{_PMLB}/{file_name}/{file_name}.tsv.gz"),),
                       None, f"UCI {name} (PMLB)")
    (path,) = _ensure_files(spec, get_data_home(data_home), download)
    return _read_table(path)
