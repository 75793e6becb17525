"""Data home, checksums, verified downloads and safe extraction of archive members."""

import hashlib
import logging
import os
import shutil
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath

__all__ = ["get_data_home"]

logger = logging.getLogger(__name__)

ENV_VAR = "DIGRAPH_ASKLS_DATA"
_CHUNK = 1 << 20


def get_data_home(data_home=None):
    """Return the folder where datasets are looked for and stored, creating it if needed.

    The first of these is used:

    1. the ``data_home`` argument;
    2. the environment variable ``DIGRAPH_ASKLS_DATA``;
    3. the folder ``datasets/`` of a source checkout (next to the package folder, in a
       folder holding ``pyproject.toml``), when it exists;
    4. the user cache ``$XDG_CACHE_HOME/digraph_askls``, by default
       ``~/.cache/digraph_askls``.

    Files sit in the data home in the layout of the project's shared data, e.g.
    ``cora_linqs/cora.cites`` or ``directed_npz/cora.npz``, so a copy of that folder can
    serve directly as data home.

    Parameters
    ----------
    data_home : str or os.PathLike, optional
        Folder to use; ``~`` is expanded.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from digraph_askls.datasets import get_data_home
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     home = get_data_home(Path(folder) / "data")
    ...     print(home.name, home.is_dir())
    data True
    """
    if data_home is None:
        data_home = os.environ.get(ENV_VAR) or _source_checkout_data_dir()
    if data_home is None:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
        data_home = os.path.join(cache, "digraph_askls")
    path = Path(os.path.expanduser(os.fspath(data_home)))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _source_checkout_data_dir():
    root = Path(__file__).resolve().parents[2]
    folder = root / "datasets"
    if folder.is_dir() and (root / "pyproject.toml").is_file():
        return folder
    return None


def file_checksum(path, algorithm):
    """Hex digest of a file: ``"sha256"``, or ``"git-blob"`` (the git object id)."""
    path = Path(path)
    if algorithm == "sha256":
        digest = hashlib.sha256()
    elif algorithm == "git-blob":
        digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    else:
        raise ValueError(f"unknown checksum algorithm {algorithm!r}; choose 'sha256' or 'git-blob'")
    with open(path, "rb") as file:
        for chunk in iter(lambda: file.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _verify_and_move(temporary, destination, checksum, source):
    """Check ``temporary`` against ``"<algorithm>:<hex>"`` and rename it to ``destination``."""
    if checksum is not None:
        algorithm, expected = checksum.split(":", 1)
        got = file_checksum(temporary, algorithm)
        if got != expected.lower():
            raise ValueError(
                f"checksum mismatch for {source}: expected {algorithm} {expected}, got "
                f"{got}; the file was discarded and {destination} was not written"
            )
    else:
        logger.info("no checksum known for %s; stored without verification", source)
    destination.parent.mkdir(parents=True, exist_ok=True)
    os.replace(temporary, destination)


def _write_verified(stream, destination, checksum, source):
    """Copy a binary stream to a temporary file beside ``destination``, verify, rename."""
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        dir=destination.parent, prefix=f".{destination.name}.", suffix=".part"
    )
    try:
        with os.fdopen(handle, "wb") as file:
            shutil.copyfileobj(stream, file, _CHUNK)
        _verify_and_move(temporary, destination, checksum, source)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    return destination


def download_file(url, destination, checksum=None, timeout=60):
    """Download ``url`` to ``destination`` through a verified temporary file.

    Parameters
    ----------
    url : str
        Any URL that ``urllib.request.urlopen`` opens (``https://``, ``file://``).
    destination : path-like
    checksum : str, optional
        ``"sha256:<hex>"`` or ``"git-blob:<hex>"``. On mismatch a ``ValueError`` is
        raised and nothing is left behind.
    timeout : float, default=60
        Seconds to wait for the server.

    Returns
    -------
    pathlib.Path
        ``destination``.
    """
    logger.info("downloading %s to %s", url, destination)
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return _write_verified(response, destination, checksum, url)


def extract_member(archive, member, destination, checksum=None):
    """Extract the file named ``member`` from a tar or zip archive, verified.

    The member is found by its base name (folders inside the archive may differ between
    releases); macOS resource files (``__MACOSX/``, ``._*``) are ignored. Names inside
    the archive never become paths on disk: the bytes are written to ``destination``
    only. Members with absolute or ``..`` paths, links and devices are refused.
    """
    archive = Path(archive)
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as opened:
            infos = [info for info in opened.infolist() if not info.is_dir()]
            info = _pick_member(infos, lambda info: info.filename, member, archive)
            with opened.open(info) as stream:
                return _write_verified(stream, destination, checksum, f"{archive}:{member}")
    with tarfile.open(archive) as opened:
        infos = opened.getmembers()
        info = _pick_member(infos, lambda info: info.name, member, archive)
        if not info.isfile():
            raise ValueError(f"archive member {info.name!r} of {archive} is not a regular file")
        with opened.extractfile(info) as stream:
            return _write_verified(stream, destination, checksum, f"{archive}:{member}")


def _pick_member(infos, name_of, member, archive):
    matches = []
    for info in infos:
        name = PurePosixPath(name_of(info).replace("\\", "/"))
        if name.is_absolute() or ".." in name.parts:
            raise ValueError(f"archive {archive} holds an unsafe member path {str(name)!r}")
        junk = "__MACOSX" in name.parts or name.name.startswith("._")
        if name.name == member and not junk:
            matches.append(info)
    if len(matches) != 1:
        names = sorted(name_of(info) for info in infos)
        raise ValueError(
            f"expected one member named {member!r} in archive {archive}, found "
            f"{len(matches)}; members: {names[:20]}"
        )
    return matches[0]
