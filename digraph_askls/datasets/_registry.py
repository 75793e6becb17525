"""Named datasets: files in the data home, where to download them, checksums, reader."""

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from digraph_askls.datasets._checksums import SHA256
from digraph_askls.datasets._heterophily import load_geom_gcn, load_heterophilous_npz
from digraph_askls.datasets._linqs import load_linqs, load_pubmed_linqs, load_pubmed_tsv
from digraph_askls.datasets._multilabel import load_multilabel_mat
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
_HETEROPHILOUS = (
    "https://github.com/yandex-research/heterophilous-graphs/raw/"
    "a431395582e929d88271309716bea4fe24ce6318/data"
)
_GEOM_GCN = (
    "https://github.com/graphdml-uiuc-jlu/geom-gcn/raw/"
    "f1fc0d14b3b019c562737240d06ec83b07d16a8f"
)
_NETTACK = (
    "https://github.com/danielzuegner/nettack/raw/"
    "da8ec64b2444233ffa1a29b18e8abdfda2015679/data"
)
_DEEPWALK = (
    "https://github.com/phanein/deepwalk/raw/"
    "6e6dff245e4692e9bea47e9017c1034e51afbf29/example_graphs"
)
#: Geom-GCN's 10 fixed splits per graph (about 48 / 32 / 20 % despite the file names).
_GEOM_GCN_SPLITS = 10


def _verified(path, url=None, member=None):
    return DataFile(path, f"sha256:{SHA256[path]}", url, member)


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


def _heterophilous(name):
    file_name = f"{name.replace('-', '_')}_directed.npz"
    return [_verified(f"heterophily_directed/{file_name}", f"{_HETEROPHILOUS}/{file_name}")]


def _geom_gcn(name):
    text = [_verified(f"geom_gcn/{name}/{file_name}", f"{_GEOM_GCN}/new_data/{name}/{file_name}")
            for file_name in ("out1_graph_edges.txt", "out1_node_feature_label.txt")]
    splits = [_verified(f"geom_gcn/splits/{file_name}", f"{_GEOM_GCN}/splits/{file_name}")
              for file_name in (f"{name}_split_0.6_0.2_{i}.npz"
                                for i in range(_GEOM_GCN_SPLITS))]
    return text + splits


def _read_geom_gcn(n_features=None):
    def read(paths, name):
        return load_geom_gcn(paths[0], paths[1], split_paths=paths[2:], name=name,
                             n_features=n_features)
    return read


def _read_polblogs(paths, name):
    # The stored values are 1, or 2 for the 65 links that the original edge list holds
    # twice (19,090 entries, the often-quoted edge count, for 19,025 distinct links):
    # each link is kept once, with weight 1, as for the other hyperlink graphs.
    return load_npz(paths[0], name=name, binary=True)


def _read_ogb(paths, name):
    return load_ogb_raw(Path(paths[0]).parent, name=name)


def _fetch_with_ogb(name, data_home):
    """Let the optional ``ogb`` package download ``<data_home>/<name with _>/raw``."""
    try:
        from ogb.nodeproppred import NodePropPredDataset
    except ImportError as error:
        raise ImportError(
            f"downloading {name!r} needs the optional package 'ogb': "
            'pip install ".[ogb]" from the repository root, or pip install ogb (reading files '
            'already present does not)'
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
    # Directed benchmarks with node attributes and 10 fixed splits; polblogs has neither.
    _spec("chameleon", _heterophilous("chameleon"), _each_file(load_heterophilous_npz),
          "Wikipedia links on chameleons, directed: 2277 nodes, 36101 edges, 5 classes, "
          "2325 features, 10 splits"),
    _spec("squirrel", _heterophilous("squirrel"), _each_file(load_heterophilous_npz),
          "Wikipedia links on squirrels, directed: 5201 nodes, 217073 edges, 5 classes, "
          "2089 features, 10 splits"),
    # The same two graphs without their duplicated pages (Platonov et al., ICLR 2023), the
    # direction kept, with their own 10 fixed splits.
    _spec("chameleon-filtered", _heterophilous("chameleon-filtered"),
          _each_file(load_heterophilous_npz),
          "Chameleon without duplicated pages, directed: 890 nodes, 13584 edges, 5 classes, "
          "2325 features, 10 splits"),
    _spec("squirrel-filtered", _heterophilous("squirrel-filtered"),
          _each_file(load_heterophilous_npz),
          "Squirrel without duplicated pages, directed: 2223 nodes, 65718 edges, 5 classes, "
          "2089 features, 10 splits"),
    _spec("texas", _geom_gcn("texas"), _read_geom_gcn(),
          "WebKB Texas web pages, Geom-GCN files: 183 nodes, 325 edges, 5 classes, "
          "1703 features, 10 splits"),
    _spec("wisconsin", _geom_gcn("wisconsin"), _read_geom_gcn(),
          "WebKB Wisconsin web pages, Geom-GCN files: 251 nodes, 515 edges, 5 classes, "
          "1703 features, 10 splits"),
    _spec("film", _geom_gcn("film"), _read_geom_gcn(n_features=932),
          "Actor co-occurrence on Wikipedia, Geom-GCN files: 7600 nodes, 30019 edges, "
          "5 classes, 932 features, 10 splits"),
    _spec("polblogs", [_verified("polblogs/polblogs.npz", f"{_NETTACK}/polblogs.npz")],
          _read_polblogs,
          "Political blogs' links (Adamic and Glance 2005), nettack npz: 1490 nodes, "
          "19025 edges, 2 classes, structure only"),
    # Several labels per node (Graph.label_matrix); friendships stored in both directions.
    _spec("blogcatalog",
          [_verified("blogcatalog/blogcatalog.mat", f"{_DEEPWALK}/blogcatalog.mat")],
          _each_file(load_multilabel_mat),
          "BlogCatalog bloggers' friendships (Tang and Liu 2009), DeepWalk's .mat: 10312 "
          "nodes, 333983 undirected edges, 39 interest groups, several labels per node"),
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
