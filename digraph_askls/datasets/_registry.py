"""Named datasets: files in the data home, where to download them, checksums, reader."""

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from digraph_askls.datasets._linqs import load_linqs, load_pubmed_linqs, load_pubmed_tsv
from digraph_askls.datasets._parsers import load_askls_mat, load_npz, load_ogb_raw

__all__ = ["DATASETS", "DataFile", "DatasetSpec", "list_datasets"]


@dataclass(frozen=True)
class DataFile:
    """One file of a dataset, at ``path`` (POSIX, relative to the data home)."""

    path: str
    checksum: Optional[str]  # "sha256:<hex>" or "git-blob:<hex>"; None when unknown
    url: Optional[str] = None  # the file itself, or the archive holding ``member``
    member: Optional[str] = None  # base name of the file inside the archive at ``url``


@dataclass(frozen=True)
class DatasetSpec:
    """A named dataset: its files and ``reader(paths, name) -> Graph``."""

    name: str
    files: tuple
    reader: Callable
    description: str
    fetch: Optional[Callable] = None  # fetch(name, data_home) for files without a URL


# sha256 of the public files, recorded from pristine copies (the data manifest).
_SHA256 = {
    "cora_linqs/cora.cites": "ec1a372391b7f0f60a6aff0084e8abd8f19f0faa7e1f2441a41c492042d5945e",
    "cora_linqs/cora.content": "b8ebed0fd45e53995abafd1b70cf6a9fcc8f86abc5826d69b97fe6ca46e9c8ee",
    "citeseer_linqs/citeseer.cites":
        "cd9730630eaaa745058c2cd2cce6b9afb79ca71278a479aebec55f4cf5eb7f30",
    "citeseer_linqs/citeseer.content":
        "de4a3ca98626d77193f27af5c976b981a56080e6273c4e1c05764a95d2143ff8",
    "pubmed_directed/pubmed.edges.tsv":
        "0927906dc73dc6fcd0a753b4b1e603e8421131b4af71727c32576c2c8f0eaf45",
    "pubmed_directed/pubmed.labels.tsv":
        "8c9c018bd02c0c217a410f74bf73160662abc59bb53caefc686dfe07bc6c9074",
    "pubmed_linqs/Pubmed-Diabetes.DIRECTED.cites.tab":
        "5f8d710649f2808b2ffe73dfe9ab9ce7b06da2ccfe3fd3d6660520a8e4ae2141",
    "directed_npz/cora.npz": "068e22d90c3849b4057dfb05851741428992af058efcd4e7ebb4186f3d581de2",
    "directed_npz/citeseer.npz":
        "280278b21b434c047922e8389518861416fb3ad39389c27865ff0e6bbb0aaab7",
    # Git-LFS object ids of public copies of the Amazon files, believed but not verified
    # to be the same files: a mismatch means that they are not.
    "directed_npz/amazon_electronics_photo.npz":
        "bdb1feb8e6ff42ee44024b04479145029c563fd42fc31bff80af20887ba0439a",
    "directed_npz/amazon_electronics_computers.npz":
        "736ba1d9fd85eac2da83a5ad25c463f04b0031a6ca01563f90a7099d9e8ffb2c",
    "askls_mat/cora.mat": "cfd1f5b4f231503cc35ed53c87cf128fc0cb183e37899e8f0c98a9f9da1dec86",
    "askls_mat/citeseer.mat": "66392f321d7e6e95e084615b2ec5cb845109bc5a9388e4877a4a4c0cfaaf9ac6",
}
# No sha256 is recorded for Pubmed-Diabetes.NODE.paper.tab; every public copy found
# shares this git blob id (git's object id, checked by the "git-blob" algorithm).
_NODE_PAPER_BLOB = "99c58208ab8447cee8504f7c9f832112b1fda1e7"

_LINQS = "https://linqs-data.soe.ucsc.edu/public"
_GNN_BENCHMARK = "https://github.com/shchur/gnn-benchmark/raw"
_GNN_BENCHMARK_PINNED = f"{_GNN_BENCHMARK}/1e72912a0810cdf27ae54fd589a3b43358a2b161"
_ASKLS = (
    "https://github.com/mingzhenhe/AsK-LS/raw/a754aea25c6e9dc429bbb7ed1190c5454e0116c7/"
    "node%20classification/data"
)


def _verified(path, url=None, member=None):
    return DataFile(path, f"sha256:{_SHA256[path]}", url, member)


def _linqs(name):
    # LINQS publishes no checksum for its archives, so the archive is not verified;
    # each extracted member is, against the sha256 of the pristine copy.
    archive = f"{_LINQS}/lbc/{name}.tgz"
    return (
        _verified(f"{name}_linqs/{name}.cites", archive, f"{name}.cites"),
        _verified(f"{name}_linqs/{name}.content", archive, f"{name}.content"),
    )


def _read_citation_npz(paths, name):
    # These files store cited -> citing: reversed, they equal the LINQS graphs exactly.
    return load_npz(paths[0], name=name, reverse_edges=True)


def _read_ogb(paths, name):
    return load_ogb_raw(Path(paths[0]).parent, name=name)


def _fetch_with_ogb(name, data_home):
    """Let the optional ``ogb`` package download ``<data_home>/<name with _>/raw``."""
    try:
        from ogb.nodeproppred import NodePropPredDataset
    except ImportError as error:
        raise ImportError(
            f"downloading {name!r} needs the optional package 'ogb': "
            'pip install "digraph-askls[ogb]" (reading files already present does not)'
        ) from error
    NodePropPredDataset(name=name, root=str(data_home))


def _spec(name, files, reader, description, fetch=None):
    return name, DatasetSpec(name, tuple(files), reader, description, fetch)


def _each_file(loader):
    return lambda paths, name: loader(*paths, name=name)


_PUBMED_ARCHIVE = f"{_LINQS}/Pubmed-Diabetes.tgz"

#: Registered datasets by name.
DATASETS = dict([
    _spec("cora", _linqs("cora"), _each_file(load_linqs),
          "Cora citations, LINQS files: 2708 nodes, 5429 edges, 7 classes"),
    _spec("citeseer", _linqs("citeseer"), _each_file(load_linqs),
          "CiteSeer citations, LINQS files: 3312 nodes, 4715 edges, 6 classes"),
    # Plain-text files derived from the LINQS ones; no public URL ('pubmed-linqs' has).
    _spec("pubmed", [_verified("pubmed_directed/pubmed.edges.tsv"),
                     _verified("pubmed_directed/pubmed.labels.tsv")],
          _each_file(load_pubmed_tsv),
          "Pubmed-Diabetes citations, TSV pair: 19717 nodes, 44338 edges, 3 classes"),
    _spec("pubmed-linqs",
          [_verified("pubmed_linqs/Pubmed-Diabetes.DIRECTED.cites.tab", _PUBMED_ARCHIVE,
                     "Pubmed-Diabetes.DIRECTED.cites.tab"),
           DataFile("pubmed_linqs/Pubmed-Diabetes.NODE.paper.tab",
                    f"git-blob:{_NODE_PAPER_BLOB}", _PUBMED_ARCHIVE,
                    "Pubmed-Diabetes.NODE.paper.tab")],
          _each_file(load_pubmed_linqs),
          "Pubmed-Diabetes citations, LINQS files: 19717 nodes, 44338 edges, 3 classes"),
    _spec("cora-npz",
          [_verified("directed_npz/cora.npz", f"{_GNN_BENCHMARK_PINNED}/data/npz/cora.npz")],
          _read_citation_npz, "Cora as gnn-benchmark npz: 2708 nodes, 5429 edges"),
    _spec("citeseer-npz",
          [_verified("directed_npz/citeseer.npz",
                     f"{_GNN_BENCHMARK_PINNED}/data/npz/citeseer.npz")],
          _read_citation_npz, "CiteSeer as gnn-benchmark npz: 3312 nodes, 4715 edges"),
    _spec("amazon-photo",
          [_verified("directed_npz/amazon_electronics_photo.npz",
                     f"{_GNN_BENCHMARK}/master/data/npz/amazon_electronics_photo.npz")],
          _each_file(load_npz), "Amazon co-purchases, photo, gnn-benchmark npz"),
    _spec("amazon-computers",
          [_verified("directed_npz/amazon_electronics_computers.npz",
                     f"{_GNN_BENCHMARK}/master/data/npz/amazon_electronics_computers.npz")],
          _each_file(load_npz), "Amazon co-purchases, computers, gnn-benchmark npz"),
    _spec("cora-askls", [_verified("askls_mat/cora.mat", f"{_ASKLS}/cora.mat")],
          _each_file(load_askls_mat),
          "Cora of the AsK-LS authors' .mat, adjacency rebuilt from their kernel G"),
    _spec("citeseer-askls", [_verified("askls_mat/citeseer.mat", f"{_ASKLS}/citeseer.mat")],
          _each_file(load_askls_mat),
          "CiteSeer of the AsK-LS authors' .mat: 3312 nodes, 4587 edges"),
    # Downloaded by the optional ogb package, which publishes no checksums.
    _spec("ogbn-arxiv",
          [DataFile(f"ogbn_arxiv/raw/{file_name}", None)
           for file_name in ("edge.csv.gz", "node-label.csv.gz", "num-node-list.csv.gz")],
          _read_ogb, "OGB arXiv citations: 169343 nodes, 40 classes (ogb downloads it)",
          fetch=_fetch_with_ogb),
])


def list_datasets():
    """Return the names accepted by :func:`load_dataset`, sorted.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from digraph_askls.datasets import list_datasets
    >>> "cora" in list_datasets()
    True
    """
    return sorted(DATASETS)
