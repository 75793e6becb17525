"""``load_dataset``: find a registered dataset's files, download the missing ones, read."""

import http.client
import logging
import os
import tarfile
import tempfile
import urllib.error
import zipfile
from pathlib import Path

from digraph_askls.datasets._base import (ENV_VAR, download_file, extract_member,
                                          file_checksum, get_data_home)
from digraph_askls.datasets._registry import DATASETS

__all__ = ["load_dataset"]

logger = logging.getLogger(__name__)


def load_dataset(name, data_home=None, download=True, verify=True):
    """Load a registered dataset as a :class:`~digraph_askls.graph.Graph`.

    Files are looked for in the data home (see :func:`get_data_home`), in the layout
    ``<folder>/<file>`` of the project's shared data. Missing files are downloaded when
    ``download`` is true: to a temporary file in the data home, checked against the
    registered checksum, then renamed into place (archives are downloaded the same way
    and only the needed members are extracted, each verified). Files already present
    are checked against their registered checksum too (``verify``): a truncated,
    corrupted or replaced file is refused with a message that names it, never read.

    Parameters
    ----------
    name : str
        One of :func:`list_datasets`.
    data_home : str or os.PathLike, optional
        Folder of the data; see :func:`get_data_home` for the default.
    download : bool, default=True
        Whether missing files may be downloaded.
    verify : bool, default=True
        Check the files already present against their registered checksums (a hash
        of each file, milliseconds for the registered graphs). ``False`` reads them as
        they are, e.g. a copy of one's own that differs from the published file.

    Returns
    -------
    Graph

    Raises
    ------
    ValueError
        For an unknown name (the message lists the valid ones) or a checksum mismatch,
        of a download or of a file present (the message names the file and the way
        out: delete it to download it again, or ``verify=False``).
    FileNotFoundError
        If files are missing and cannot be downloaded; the message gives the paths
        where they were looked for and how to provide them.
    OSError
        If a download fails (no network): the message says how to provide the files.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from digraph_askls.datasets import load_dataset
    >>> with tempfile.TemporaryDirectory() as home:
    ...     folder = Path(home) / "pubmed_directed"
    ...     folder.mkdir()
    ...     _ = (folder / "pubmed.edges.tsv").write_text("0\\t1\\n")
    ...     _ = (folder / "pubmed.labels.tsv").write_text("0\\t1\\n1\\t2\\n")
    ...     graph = load_dataset("pubmed", data_home=home, download=False, verify=False)
    >>> graph
    Graph(name='pubmed', n_nodes=2, n_edges=1, n_classes=2)
    """
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; choose from {sorted(DATASETS)}")
    spec = DATASETS[name]
    paths = _ensure_files(spec, get_data_home(data_home), download)
    if verify:
        _verify_present(spec, paths)
    for path in paths:
        if path.suffix == ".npz" and not zipfile.is_zipfile(path):
            raise ValueError(f"{path} is not an npz file (a zip archive): it may be cut "
                             f"short or another file, such as an HTML error page; delete "
                             f"it to download it again")
    logger.info("reading dataset %r from %s", name, [str(path) for path in paths])
    return spec.reader(paths, name)


def _ensure_files(spec, data_home, allow_download):
    paths = [data_home.joinpath(*file.path.split("/")) for file in spec.files]
    missing = [file for file, path in zip(spec.files, paths) if not path.is_file()]
    if not missing:
        return paths
    if not allow_download:
        raise FileNotFoundError(_how_to_provide(spec, missing, data_home, "download=False"))
    no_source = [file for file in missing if file.url is None]
    if no_source and spec.fetch is None:
        raise FileNotFoundError(
            _how_to_provide(spec, missing, data_home, "no download URL is known for them")
        )
    try:
        if spec.fetch is not None:
            spec.fetch(spec.name, data_home)
        else:
            _download_files(missing, data_home)
    except (urllib.error.URLError, http.client.HTTPException, ConnectionError,
            TimeoutError) as error:
        # HTTPException: a connection cut in the middle of the body (IncompleteRead).
        raise OSError(
            _how_to_provide(spec, missing, data_home, f"the download failed: {error}")
        ) from error
    still_missing = [file for file, path in zip(spec.files, paths) if not path.is_file()]
    if still_missing:
        raise FileNotFoundError(
            _how_to_provide(spec, still_missing, data_home, "the download did not make them")
        )
    return paths


def _verify_present(spec, paths):
    """Check every file with a registered checksum; a mismatch raises, naming the file."""
    for file, path in zip(spec.files, paths):
        if file.checksum is None:
            continue
        algorithm, expected = file.checksum.split(":", 1)
        got = file_checksum(path, algorithm)
        if got != expected.lower():
            raise ValueError(
                f"{path} does not match the published file of dataset {spec.name!r} "
                f"(expected {algorithm} {expected}, got {got}, {path.stat().st_size} "
                f"bytes): it may be truncated, corrupted or another file. Delete it to "
                f"download it again, or pass verify=False to load_dataset to read it as it is")


def _download_files(files, data_home):
    """Download files directly, or through their archive (once per archive)."""
    archives = {}
    for file in files:
        destination = data_home.joinpath(*file.path.split("/"))
        if file.member is None:
            download_file(file.url, destination, file.checksum)
        else:
            archives.setdefault(file.url, []).append((file, destination))
    for url, members in archives.items():
        handle, archive = tempfile.mkstemp(dir=data_home, prefix=".archive.", suffix=".part")
        os.close(handle)
        try:
            download_file(url, archive)  # archive checksums are unknown; members are verified
            for file, destination in members:
                try:
                    extract_member(archive, file.member, destination, file.checksum)
                except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as error:
                    raise ValueError(f"the archive downloaded from {url} is damaged or "
                                     f"incomplete ({type(error).__name__}: {error}); "
                                     f"{destination} was not written") from error
        finally:
            os.remove(archive)


def _how_to_provide(spec, files, data_home, reason):
    lines = [
        f"dataset {spec.name!r} needs {len(files)} file(s) missing from the data home "
        f"{data_home}, and {reason}. Looked for:"
    ]
    for file in files:
        path = Path(data_home).joinpath(*file.path.split("/"))
        if file.url is None:
            source = "no public URL" if spec.fetch is None else "fetched by a helper package"
        elif file.member is None:
            source = f"from {file.url}"
        else:
            source = f"member {file.member!r} of {file.url}"
        lines.append(f"  {path}  ({source})")
    lines.append(
        f"Provide them by placing each file at the path shown, or by setting the "
        f"environment variable {ENV_VAR} (or data_home=) to a folder holding "
        f"{', '.join(file.path for file in files)}"
        + ("; or call load_dataset with download=True." if reason == "download=False" else ".")
    )
    return "\n".join(lines)
