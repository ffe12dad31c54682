"""CSV/TSV reader: every row unit is what the csv module reads at that data row; dialect and encoding recorded;
empty rows counted but left out; clear errors; random tables round-trip."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kruschnexus.errors import ParseError
from kruschnexus.extract import open_source, sniff
from kruschnexus.model import BlockKind
from kruschnexus.parse.delimited import open_csv, open_tsv
from kruschnexus.parse.units import UnitSource
from tests.conftest import FIXTURES

CSV = FIXTURES / "office_rent_roll.csv"
LATIN = FIXTURES / "office_rent_roll_latin1.csv"
TSV = FIXTURES / "office_rent_roll.tsv"


def library_rows(path: Path, meta: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and data rows as the csv module reads the file with the recorded encoding and dialect."""
    with path.open(encoding=meta["encoding"], newline="") as fh:
        records = list(csv.reader(fh, delimiter=meta["delimiter"], quotechar=meta["quotechar"]))
    return records[0], records[1:]


def rendered(header: list[str], row: list[str]) -> str:
    names = [h if h.strip() else f"column {i}" for i, h in enumerate(header, start=1)]
    names += [f"column {i}" for i in range(len(names) + 1, len(row) + 1)]
    return "\n".join(f"{n}: {v}" for n, v in zip(names, row, strict=False) if v.strip())


def row_units(
    path: Path, opener: Callable[[Path], UnitSource] = open_csv
) -> tuple[dict[str, Any], list[tuple[int, str]]]:
    with opener(path) as source:
        pages = list(source.pages())
        units: list[tuple[int, str]] = []
        for p in pages:
            assert p.locator is not None
            assert p.blocks[0].kind == BlockKind.TABLE and p.locator["kind"] == "row"
            units.append((p.locator["row"], p.text))
        return source.meta, units


@pytest.mark.parametrize(("path", "opener"), [(CSV, open_csv), (LATIN, open_csv), (TSV, open_tsv)])
def test_every_unit_is_the_csv_module_row_at_its_locator(path: Path, opener: Callable[[Path], UnitSource]) -> None:
    meta, units = row_units(path, opener)
    header, rows = library_rows(path, meta)
    assert meta["header"] == header
    for number, text in units:
        assert text == rendered(header, rows[number - 1]), number
    expected = [n for n, row in enumerate(rows, start=1) if any(v.strip() for v in row)]
    assert [n for n, _ in units] == expected
    assert meta["rows"] == len(rows) and meta["empty_rows"] == len(rows) - len(units)


def test_utf8_csv_meta_and_awkward_fields() -> None:
    meta, units = row_units(CSV)
    assert meta["encoding"] == "utf-8" and meta["encoding_detected"] is False
    assert meta["delimiter"] == "," and meta["delimiter_detected"] is True and meta["quotechar"] == '"'
    assert meta["header"][:2] == ["Unit", "Tenant"] and meta["header_record"] == 1
    assert isinstance(meta["header_detected"], bool)
    by_row = dict(units)
    assert "Tenant: Smith, Jones & Partners LLP" in by_row[2].split("\n")
    assert 'Tenant: The "Corner" Café' in by_row[3]
    assert 4 not in by_row, "the all-empty data row 4 is counted but not emitted"
    assert by_row[5].endswith("Notes: Renewal option exercised\nRent abated for March 2024"), "value kept as is"
    assert "Lease Start" not in by_row[6], "empty fields are left out"


def test_latin1_semicolon_file_is_detected() -> None:
    meta, units = row_units(LATIN)
    assert meta["encoding_detected"] is True and meta["delimiter"] == ";"
    text = "\n".join(t for _, t in units)
    for name in ("Société Générale Immobilier", "Müller & Söhne GmbH", "François Dupré", "González y Asociados"):
        assert f"Locataire: {name}" in text
    assert "Remarques: Préavis reçu; départ prévu" in text
    assert meta["header"] == ["Lot", "Locataire", "Début du bail", "Loyer mensuel", "Remarques"]


def test_tsv_kind_and_suffixes(tmp_path: Path) -> None:
    meta, units = row_units(TSV, open_tsv)
    assert meta["delimiter"] == "\t" and meta["delimiter_detected"] is False and len(units) == 7
    tab = tmp_path / "roll.tab"
    tab.write_bytes(TSV.read_bytes())
    assert sniff(TSV) == "tsv" and sniff(tab) == "tsv" and sniff(CSV) == "csv"
    with open_source(tab) as source:
        assert source.kind == "tsv" and source.page_count == 7
    with open_source(CSV) as source:
        assert source.kind == "csv" and source.paged is False


def _units_of(tmp_path: Path, data: bytes, name: str = "t.csv") -> tuple[dict[str, Any], list[tuple[int, str]]]:
    path = tmp_path / name
    path.write_bytes(data)
    return row_units(path)


def test_blank_lines_count_as_data_rows(tmp_path: Path) -> None:
    meta, units = _units_of(tmp_path, b"Name,Rent\nAlpha,100\n\n,\nBeta,200\n")
    assert units == [(1, "Name: Alpha\nRent: 100"), (4, "Name: Beta\nRent: 200")]
    assert meta["rows"] == 4 and meta["empty_rows"] == 2


def test_extra_and_unnamed_columns(tmp_path: Path) -> None:
    _, units = _units_of(tmp_path, b"Name,,Rent\nAlpha,x,100,extra,more\nBeta\n")
    assert units == [(1, "Name: Alpha\ncolumn 2: x\nRent: 100\ncolumn 4: extra\ncolumn 5: more"), (2, "Name: Beta")]


def test_line_ends_inside_values_become_newlines(tmp_path: Path) -> None:
    _, units = _units_of(tmp_path, b'a,b\r\n1,"x\r\ny\rz"\r\n')
    assert units == [(1, "a: 1\nb: x\ny\nz")]


def test_utf8_bom_is_not_part_of_the_first_column(tmp_path: Path) -> None:
    meta, units = _units_of(tmp_path, "\ufeffName;Rent\nAlpha;1,5\n".encode())
    assert meta["encoding"] == "utf-8-sig" and meta["header"] == ["Name", "Rent"] and meta["delimiter"] == ";"
    assert units == [(1, "Name: Alpha\nRent: 1,5")]


def test_single_column_falls_back_and_says_so(tmp_path: Path) -> None:
    meta, units = _units_of(tmp_path, b"Tenant\nAlpha LLC\nBeta Inc.\n")
    assert meta["delimiter"] == "," and meta["delimiter_detected"] is False
    assert units == [(1, "Tenant: Alpha LLC"), (2, "Tenant: Beta Inc.")]


def test_leading_blank_lines_before_the_header(tmp_path: Path) -> None:
    meta, units = _units_of(tmp_path, b"\n\nName,Rent\nAlpha,100\n")
    assert meta["header_record"] == 3 and units == [(1, "Name: Alpha\nRent: 100")]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "no rows"),
        (b"\n\n\n", "every row of the CSV file is empty"),
        (b",,\n , \n", "every row of the CSV file is empty"),
        (b"Name,Rent\r\n", "header row but no data rows"),
        (b"Name,Rent\n,\n\n", "every data row of the CSV file is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "binary"),
        (b"a,b\n" + b"x,y\n" * 3000 + b"x,\x00\n", "binary (a NUL character on line 3002)"),
        (b"a,b\n1,2\n3," + b"z" * 200_000 + b"\n", "malformed record ending on line 3: field larger than field limit"),
    ],
)
def test_clear_errors(tmp_path: Path, data: bytes, words: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(data)
    with pytest.raises(ParseError) as info:
        open_csv(path)
    assert words in info.value.reason


_SURROGATES: tuple[Literal["Cs"]] = ("Cs",)
_cell = st.text(
    st.characters(blacklist_categories=_SURROGATES, blacklist_characters="\x00\r;|\t\ufeff"),
    max_size=12,
)
_visible = _cell.filter(lambda s: bool(s.strip()))


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    width = draw(st.integers(1, 5))
    header = draw(st.lists(_cell, min_size=width, max_size=width).filter(lambda h: any(v.strip() for v in h)))
    rows = draw(st.lists(st.lists(_cell, max_size=7), min_size=0, max_size=6))
    rows.insert(draw(st.integers(0, len(rows))), [draw(_visible)])
    return header, rows


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(tables())
def test_random_tables_round_trip(tmp_path: Path, table: tuple[list[str], list[list[str]]]) -> None:
    header, rows = table
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    path = tmp_path / "random.csv"
    path.write_bytes(buffer.getvalue().encode("utf-8"))
    meta, units = row_units(path)
    assert meta["delimiter"] == ","
    expected = [(n, rendered(header, row)) for n, row in enumerate(rows, start=1) if any(v.strip() for v in row)]
    assert units == expected


WESTERN_SAMPLES = [
    "name,city\nLefèvre,København\nMüller,Zürich\n",
    "tenant,note\nØrsted A/S,Æbleskiver i Århus\n",
    "locataire,loyer\nSociété Générale,1 200 €\n",
    "arrendatario,ciudad\nSeñor García,Logroño\n",
    "inquilino,cidade\nJoão Conceição,São Paulo\n",
    "leigjandi,bær\nÞórður Sigurðsson,Ísafjörður\n",
]
CENTRAL_SAMPLES = [
    ("name,note\nPříliš žluťoučký kůň,úpěl ďábelské ódy\n", "cp1250"),
    ("name,note\nZażółć gęślą,jaźń\n", "cp1250"),
]


@pytest.mark.parametrize(
    ("text", "encoding"),
    [(t, e) for t in WESTERN_SAMPLES for e in ("cp1252", "latin-1") if e == "cp1252" or "€" not in t],
)
def test_short_western_text_reads_as_windows_1252(tmp_path: Path, text: str, encoding: str) -> None:
    """Short Western text fits many single-byte code pages; it is read as Windows-1252, not as cp1250 or cp1257
    ("Lefčvre", "Kųbenhavn"), and the guess is recorded."""
    path = tmp_path / "western.csv"
    path.write_bytes(text.encode(encoding))
    meta, units = row_units(path)
    assert meta["encoding"] == "cp1252" and meta["encoding_detected"] is True
    rows = text.splitlines()[1:]
    assert [t.split(": ", 1)[1].split("\n")[0] for _, t in units] == [r.split(",")[0] for r in rows]


@pytest.mark.parametrize(("text", "encoding"), CENTRAL_SAMPLES)
def test_text_only_a_central_european_code_page_reads_keeps_it(tmp_path: Path, text: str, encoding: str) -> None:
    path = tmp_path / "central.csv"
    path.write_bytes(text.encode(encoding))
    meta, units = row_units(path)
    assert meta["encoding"] == encoding
    assert text.splitlines()[1].split(",")[0] in units[0][1]
