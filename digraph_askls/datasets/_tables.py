"""Tables of one's own data: CSV, TSV and Parquet files read by pandas, errors by line.

Text tables are read by ``pandas.read_csv`` (with its multi-threaded pyarrow engine when
pyarrow is installed), Parquet files by ``pandas.read_parquet``: no Python loop runs over
the rows. When a row is malformed, the file is scanned line by line, on that error path
only, to name the file, the line and what was expected. pandas and pyarrow come with the
``io`` extra: ``pip install ".[io]"`` from the repository root.
"""

import bz2
import contextlib
import csv
import gzip
import importlib.util
import logging
import lzma
import warnings
from pathlib import Path

__all__ = ["SEPARATOR_NAMES", "TableError", "first_rows", "is_number", "line_of_row",
           "looks_like_header", "read_table", "reading", "separator_hint", "table_format",
           "table_rows"]

_COMPRESSED = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}

logger = logging.getLogger(__name__)


class TableError(ValueError):
    """A malformed table: the message names the file, the line and what was expected."""


def pandas_module():
    """pandas, or an ImportError that names the extra to install."""
    try:
        import pandas
    except ImportError:
        raise ImportError('reading tables needs pandas: pip install ".[io]" from the '
                          'repository root (or pip install pandas pyarrow)') from None
    return pandas


def _suffix_and_compression(path):
    suffixes = [suffix.lower() for suffix in Path(path).suffixes]
    if suffixes and suffixes[-1] in _COMPRESSED:
        return (suffixes[-2] if len(suffixes) > 1 else ""), suffixes[-1]
    return (suffixes[-1] if suffixes else ""), None


#: The encoding of text tables: UTF-8, with or without the byte-order mark that
#: Excel's "CSV UTF-8" writes before the first line (pandas and pyarrow skip it too).
ENCODING = "utf-8-sig"


def _lines(path):
    """``(number, text)`` of the non-blank lines, numbered from 1 as editors do."""
    _, compression = _suffix_and_compression(path)
    with _COMPRESSED.get(compression, open)(path, "rt", encoding=ENCODING,
                                            newline="") as file:
        for number, line in enumerate(file, start=1):
            if line.strip():
                yield number, line.rstrip("\r\n")


def _fields(line, sep):
    return line.split() if sep is None else next(csv.reader([line], delimiter=sep))


#: Names of the field separators, for messages.
SEPARATOR_NAMES = {",": "commas", "\t": "tabs", None: "blanks"}


def table_format(path):
    """``"parquet"``, ``"npz"``, or the field separator of a text table: ``","``,
    ``"\\t"`` or None (runs of blanks), from the suffix (``.csv``, ``.tsv``, ``.tab``,
    compressed or not: ``.gz``, ``.bz2``, ``.xz``) or else from the first line.

    A first line that holds no separator of its suffix but the other one (tabs in a
    ``.csv``, commas in a ``.tsv``) gives that other one: the file is read as written,
    whatever its name says (logged).
    """
    suffix, _ = _suffix_and_compression(path)
    if suffix in (".parquet", ".pq", ".npz"):
        return "npz" if suffix == ".npz" else "parquet"
    if suffix in (".csv", ".tsv", ".tab"):
        named = "," if suffix == ".csv" else "\t"
        other = "\t" if named == "," else ","
        for _, line in _lines(path):
            if named not in line and other in line:
                logger.info("%s: its first line is separated by %s, not %s as its name "
                            "says: read with %s", path, SEPARATOR_NAMES[other],
                            SEPARATOR_NAMES[named], SEPARATOR_NAMES[other])
                return other
            break
        return named
    for _, line in _lines(path):
        return "\t" if "\t" in line else "," if "," in line else None
    return ","


def table_rows(path, sep):
    """The fields of every non-blank line of a text table, one list per line (for the
    error paths: a Python loop over the lines)."""
    for _, line in _lines(path):
        yield _fields(line, sep)


def first_rows(path, sep, count=2):
    """The fields of the first ``count`` non-blank lines of a text table."""
    rows = []
    for _, line in _lines(path):
        rows.append(_fields(line, sep))
        if len(rows) == count:
            break
    return rows


def is_number(text):
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def looks_like_header(rows, known):
    """Whether the first of ``rows`` names columns: all its fields are names of
    ``known`` (any case), or it has a word where the next row has a number."""
    if not rows:
        return False
    if all(field.strip().lower() in known for field in rows[0]):
        return True
    return len(rows) > 1 and any(not is_number(a) and is_number(b)
                                 for a, b in zip(rows[0], rows[1]))


def line_of_row(path, sep, header, row):
    """``(line number, fields)`` of data row ``row`` (0-based; blank lines are skipped,
    as the parsers skip them)."""
    for index, (number, line) in enumerate(_lines(path)):
        if index == row + int(header):
            return number, _fields(line, sep)
    return None, None


def where(path, sep, header, row):
    """Where data row ``row`` is, for a message: ``"<file>:<line>"`` or ``"<file>, row r"``."""
    if sep in ("parquet", "npz"):
        return f"{path}, row {row}"
    number, _ = line_of_row(path, sep, header, row)
    return f"{path}:{number}"


def check_field_counts(path, sep, allowed, what):
    """Raise :class:`TableError` at the first line whose number of fields is not in
    ``allowed`` (the error path of a parser that refused the file)."""
    counts = " or ".join(str(n) for n in sorted(allowed))
    for number, line in _lines(path):
        fields = _fields(line, sep)
        if len(fields) not in allowed:
            raise TableError(f"{path}:{number}: expected {counts} fields ({what}) "
                             f"separated by {SEPARATOR_NAMES[sep]}, got {len(fields)}: "
                             f"{line[:120]!r}{separator_hint(line, sep)}")


def separator_hint(line, sep):
    """``"; the line is separated by tabs"`` when ``line`` holds another separator than
    ``sep`` (a file named ``.csv`` written with tabs, or lines of mixed separators)."""
    for other in (",", "\t"):
        if other != sep and other in line and (sep is None or sep not in line):
            return f"; the line is separated by {SEPARATOR_NAMES[other]}"
    if sep is not None and sep not in line and len(line.split()) > 1:
        return "; the line is separated by blanks"
    return ""


@contextlib.contextmanager
def reading(path, what):
    """Errors of the parsers and decompressors as :class:`TableError` naming the file:
    a file cut short, damaged or of another format, or text that is not UTF-8 (the
    message then names the line, the encoding the file seems to have and how to convert
    it). A missing file stays a ``FileNotFoundError``."""
    try:
        yield
    except (TableError, FileNotFoundError):
        raise
    except UnicodeDecodeError:
        raise TableError(not_utf8_message(path)) from None
    except (EOFError, OSError, ValueError, csv.Error) as error:
        raise TableError(f"{path}: cannot be read as a table of {what}; it may be cut "
                         f"short, damaged or of another format ({type(error).__name__}: "
                         f"{error})") from None


#: Byte-order marks of the encodings that are not UTF-8, longest first.
_OTHER_MARKS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
                (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def _raw_lines(path):
    """The lines of a (possibly compressed) file as bytes, numbered from 1."""
    _, compression = _suffix_and_compression(path)
    with _COMPRESSED.get(compression, open)(path, "rb") as file:
        yield from enumerate(file, start=1)


def _encoding_guess(path):
    """``(line number, what the bytes look like, encoding to convert from or None)`` of
    the first line of ``path`` that is not UTF-8."""
    for number, raw in _raw_lines(path):
        if number == 1:
            for mark, name in _OTHER_MARKS:
                if raw.startswith(mark):
                    return 1, f"the file starts with the byte-order mark of {name}", name
            if raw.startswith(b"PK\x03\x04"):
                return 1, ("the file is a zip archive, such as an Excel workbook "
                           "(.xlsx)"), None
        try:
            raw.decode(ENCODING if number == 1 else "utf-8")
        except UnicodeDecodeError as error:
            byte = raw[error.start:error.start + 1]
            if b"\x00" in raw:
                return number, ("the line holds NUL bytes (a binary file, or UTF-16 "
                                "without a byte-order mark)"), "UTF-16"
            try:
                shown = raw.decode("cp1252").strip()
            except UnicodeDecodeError:
                return number, f"byte 0x{byte.hex()} is not UTF-8", None
            return number, (f"byte 0x{byte.hex()} is not UTF-8; read as Windows-1252 "
                            f"(Latin-1, as Excel's plain 'CSV' writes) the line is "
                            f"{shown[:80]!r}"), "WINDOWS-1252"
    return None, "the file is not UTF-8", None


def not_utf8_message(path):
    """The message of a text table that cannot be decoded as UTF-8: its first such line,
    the encoding it seems to have, and how to convert it."""
    number, looks, encoding = _encoding_guess(path)
    where_ = f"{path}:{number}" if number is not None else f"{path}"
    name = Path(path).name
    convert = ("" if encoding is None else
               f" or convert it: iconv -f {encoding} -t UTF-8 {name} > utf8-{name}")
    return (f"{where_}: expected text in UTF-8 (a byte-order mark before it is fine), "
            f"but {looks}. Save the file as UTF-8 (in Excel: 'CSV UTF-8 "
            f"(Comma delimited)'){convert}")


def _read_fast(path, sep, names, skip, text_columns):
    """pyarrow's multi-threaded reader; every row must have ``len(names)`` fields."""
    import pyarrow as pa
    from pyarrow import csv as arrow_csv

    table = arrow_csv.read_csv(
        path, read_options=arrow_csv.ReadOptions(column_names=names, skip_rows=skip),
        parse_options=arrow_csv.ParseOptions(delimiter=sep),
        convert_options=arrow_csv.ConvertOptions(
            column_types={name: pa.string() for name in text_columns},
            null_values=[""], strings_can_be_null=True))
    return table.to_pandas()


def _read_c(path, sep, names, skip, dtypes):
    """pandas' C reader, with one column more than ``names`` that a row of too many
    fields fills (the reader would otherwise cut it, or shift it into the index)."""
    pd = pandas_module()
    with warnings.catch_warnings():
        # A row of two fields too many is cut with a ParserWarning; the extra column
        # shows it, and the file is scanned for it.
        warnings.simplefilter("ignore", pd.errors.ParserWarning)
        return pd.read_csv(path, sep=r"\s+" if sep is None else sep, header=None,
                           skiprows=skip, names=[*names, _EXTRA], dtype=dtypes,
                           index_col=False, keep_default_na=False, na_values=[""])


_EXTRA = "\0more fields"


def read_table(path, sep, names, header, text_columns, allowed, what):
    """Read a text table into a DataFrame with the columns ``names``.

    Parameters
    ----------
    path : path-like
    sep : str or None
        As :func:`table_format` gives it.
    names : list of str
        Names of the columns (the header's own fields when there is a header).
    header : bool
        Whether the first non-blank line names the columns (it is skipped).
    text_columns : list of str
        Columns read as text, as written (node names and labels: ``007`` stays
        ``007``); the other columns' types are inferred.
    allowed : set of int
        The numbers of fields a row may have. With one number and pyarrow installed,
        pyarrow's reader reads the file (it refuses a row of another count); otherwise
        pandas' C reader.
    what : str
        What a row holds, for the messages (``"source, target[, weight]"``).

    A cell that does not fit its column's inferred type (a word among numbers) makes
    the file be read again with every cell as text, for the caller's checks to name it.
    """
    pd = pandas_module()
    skip = 0
    if header:
        for skip, _ in _lines(path):       # the header line is skipped, not parsed
            break
    if sep is not None and len(allowed) == 1 and importlib.util.find_spec("pyarrow"):
        try:
            return _read_fast(path, sep, names, skip, text_columns)
        except ValueError:                 # pyarrow.ArrowInvalid: counts or types
            check_field_counts(path, sep, allowed, what)
            return _read_c(path, sep, names, skip, str)[names]
    text = {name: str for name in text_columns}
    try:
        frame = _read_c(path, sep, names, skip, text)
    except (pd.errors.ParserError, ValueError):
        check_field_counts(path, sep, allowed, what)
        frame = _read_c(path, sep, names, skip, str)
    blank = min(allowed) < len(names) and frame[names].isna().to_numpy().any()
    if frame[_EXTRA].notna().any() or blank:
        check_field_counts(path, sep, allowed, what)
    return frame[names]
