"""CSV and TSV -> one unit per data row, located by its 1-based data row number.

The text is decoded with :func:`kruschnexus.parse.units.decode` (line ends become ``\\n``, also inside quoted
values). The delimiter is detected with :class:`csv.Sniffer` among ``, ; TAB |`` (TSV is always TAB); quoting is
always the double quote with doubled quotes inside (RFC 4180 and Excel). The first non-empty record is the
header naming the columns. Every later record the :mod:`csv` reader returns is a data row and counts, empty or not;
data row ``N`` is a unit with locator ``{"kind": "row", "row": N}`` unless it is empty (no field with visible
text), in which case it is left out. A unit's text is one line per non-empty field, ``"{column}: {value}"`` joined
by ``\\n``, with each value exactly as the reader parsed it (a value holding a line break spans several lines).
A column beyond the header is named ``column N`` (``N`` 1-based); so is a header cell with no text.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kruschnexus.errors import ParseError
from kruschnexus.model import BlockKind
from kruschnexus.parse.units import Unit, UnitSource, decode

#: Delimiters the sniffer may choose from, in order of preference when it cannot decide.
DELIMITERS = ",;\t|"
#: Characters of the decoded text the sniffer looks at (cut back to the last line end).
SAMPLE_CHARS = 64 * 1024
QUOTECHAR = '"'


def open_csv(path: Path) -> UnitSource:
    """A ``.csv`` file (delimiter detected) as data rows."""
    return open_delimited(path)


def open_tsv(path: Path) -> UnitSource:
    """A ``.tsv``/``.tab`` file (TAB-delimited) as data rows."""
    return open_delimited(path, tab=True)


def open_delimited(path: Path, tab: bool = False) -> UnitSource:
    """A delimited text file as one unit per non-empty data row (see the module docstring).

    ``meta`` records ``encoding``, ``encoding_detected``, ``delimiter``, ``delimiter_detected``, ``quotechar``,
    ``header`` (the column names), ``header_detected`` (the sniffer's opinion; row 1 is the header either way),
    ``header_record`` (1-based record number of the header), ``rows`` (data rows counted) and ``empty_rows``.

    Raises:
        ParseError: the bytes are not text (or hold a NUL anywhere), the file has no rows, only a header or only
            empty data rows, or a record the csv module refuses (a field over its size limit).
    """
    kind = "tsv" if tab else "csv"
    decoded = decode(path, path.read_bytes())
    text = decoded.text
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise ParseError(path, f"the file is binary (a NUL character on line {line}), not text")
    if tab:
        delimiter, detected = "\t", False
    else:
        delimiter, detected = sniff_delimiter(text)
    dialect = _dialect(delimiter)
    records = _records(path, text, dialect)
    header_at = next((i for i, record in enumerate(records) if _has_text(record)), None)
    if header_at is None:
        raise ParseError(path, f"every row of the {kind.upper()} file is empty" if records else "the file has no rows")
    header = records[header_at]
    data = records[header_at + 1 :]
    if not data:
        raise ParseError(path, f"the {kind.upper()} file has a header row but no data rows")
    names = column_names(header, max(len(r) for r in data))
    units = [
        Unit(render_row(names, record), BlockKind.TABLE, {"kind": "row", "row": number})
        for number, record in enumerate(data, start=1)
        if _has_text(record)
    ]
    if not units:
        raise ParseError(path, f"every data row of the {kind.upper()} file is empty")
    meta: dict[str, Any] = {
        "encoding": decoded.encoding,
        "encoding_detected": decoded.detected,
        "delimiter": delimiter,
        "delimiter_detected": detected,
        "quotechar": QUOTECHAR,
        "header": names[: len(header)],
        "header_detected": _has_header(text, dialect),
        "header_record": header_at + 1,
        "rows": len(data),
        "empty_rows": len(data) - len(units),
    }
    return UnitSource(path, kind, units, meta)


def sniff_delimiter(text: str) -> tuple[str, bool]:
    """The delimiter of CSV text and whether :class:`csv.Sniffer` found it.

    When the sniffer cannot decide, the candidate seen most often on the first line wins (``,`` on a tie or when
    none is there), and ``False`` says it was not detected.
    """
    try:
        return csv.Sniffer().sniff(_sample(text), delimiters=DELIMITERS).delimiter, True
    except csv.Error:
        first = text.split("\n", 1)[0]
        counts = [(first.count(d), -i, d) for i, d in enumerate(DELIMITERS)]
        return max(counts)[2], False


def column_names(header: Sequence[str], width: int) -> list[str]:
    """Names of ``max(len(header), width)`` columns: the header's cells, ``column N`` (1-based) where there is no
    text."""
    names = [name if name.strip() else f"column {i}" for i, name in enumerate(header, start=1)]
    names.extend(f"column {i}" for i in range(len(names) + 1, width + 1))
    return names


def render_row(names: Sequence[str], record: Sequence[str]) -> str:
    """A record as unit text: ``"{name}: {value}"`` per field with visible text, joined by ``\\n``."""
    return "\n".join(f"{name}: {value}" for name, value in zip(names, record, strict=False) if value.strip())


def _records(path: Path, text: str, dialect: type[csv.Dialect]) -> list[list[str]]:
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    try:
        return list(reader)
    except csv.Error as exc:
        raise ParseError(path, f"malformed record ending on line {reader.line_num}: {exc}") from exc


def _has_text(record: Sequence[str]) -> bool:
    return any(value.strip() for value in record)


def _sample(text: str) -> str:
    if len(text) <= SAMPLE_CHARS:
        return text
    sample = text[:SAMPLE_CHARS]
    cut = sample.rfind("\n")
    return sample[:cut] if cut > 0 else sample


def _dialect(delimiter: str) -> type[csv.Dialect]:
    attrs = {
        "delimiter": delimiter,
        "quotechar": QUOTECHAR,
        "doublequote": True,
        "skipinitialspace": False,
        "lineterminator": "\n",
        "quoting": csv.QUOTE_MINIMAL,
        "strict": False,
    }
    return type("SniffedDialect", (csv.Dialect,), attrs)


class _FixedSniffer(csv.Sniffer):
    """A sniffer whose ``has_header`` reads with the dialect already chosen (the stock one sniffs again, with
    every delimiter allowed)."""

    def __init__(self, dialect: type[csv.Dialect]) -> None:
        super().__init__()
        self._dialect = dialect

    def sniff(self, sample: str, delimiters: str | None = None) -> type[csv.Dialect]:
        return self._dialect


def _has_header(text: str, dialect: type[csv.Dialect]) -> bool:
    """The sniffer's guess whether the first row is a header (``False`` when it cannot tell)."""
    try:
        return _FixedSniffer(dialect).has_header(_sample(text))
    except (csv.Error, StopIteration):
        return False
