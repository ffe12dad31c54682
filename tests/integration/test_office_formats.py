"""DOCX, CSV and TSV through ingest, store, export, search and verify, with every span re-derived from the source
by the format's own library (python-docx, csv), never by our reader."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docx
import pytest
from docx.oxml.ns import qn

from kruschnexus import Corpus, Hit
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from tests.conftest import FIXTURES

pytestmark = pytest.mark.integration

OFFICE = {
    "office_lease.docx": FIXTURES / "office_lease.docx",
    "office_rent_roll.csv": FIXTURES / "office_rent_roll.csv",
    "office_rent_roll_latin1.csv": FIXTURES / "office_rent_roll_latin1.csv",
    "office_rent_roll.tsv": FIXTURES / "office_rent_roll.tsv",
}


@pytest.fixture
def corpus(settings: Settings, embedder: Embedder, workspace: str) -> Iterator[Corpus]:
    with Corpus(workspace=workspace, settings=settings, embedder=embedder) as c:
        yield c


def label(locator: dict[str, Any]) -> str:
    """How a citation names a locator (written out here, not taken from the library)."""
    if locator["kind"] == "paragraph":
        return f"para. {locator['index']}"
    if locator["kind"] == "table_row":
        return f"table {locator['table']} row {locator['row']}"
    assert locator["kind"] == "row"
    return f"row {locator['row']}"


class LibraryText:
    """A unit's text at a locator, as python-docx or the csv module reads the original file."""

    def __init__(self, metas: dict[str, dict[str, Any]]) -> None:
        self.metas = metas
        self.cache: dict[str, Any] = {}

    def __call__(self, source: str, locator: dict[str, Any]) -> str:
        path = OFFICE[source]
        if path.suffix == ".docx":
            document = self.cache.setdefault(source, docx.Document(str(path)))
            if locator["kind"] == "paragraph":
                return str(document.paragraphs[locator["index"] - 1].text)
            rows = document.tables[locator["table"] - 1].rows
            header = rows[0].cells
            lines: list[str] = []
            done: list[Any] = []
            for c, cell in enumerate(rows[locator["row"] - 1].cells):
                if any(cell._tc is d for d in done) or not cell.text.strip():
                    continue
                done.append(cell._tc)
                lines.append(cell.text if locator["row"] == 1 else f"{header[c].text}: {cell.text}")
            return "\n".join(lines)
        meta = self.metas[source]
        if source not in self.cache:
            with path.open(encoding=meta["encoding"], newline="") as fh:
                self.cache[source] = list(csv.reader(fh, delimiter=meta["delimiter"], quotechar=meta["quotechar"]))
        header, *rows = self.cache[source]
        values = rows[locator["row"] - 1]
        names = [*header, *(f"column {i}" for i in range(len(header) + 1, len(values) + 1))]
        return "\n".join(f"{n}: {v}" for n, v in zip(names, values, strict=False) if v.strip())


def _locator(hit: Hit) -> dict[str, Any]:
    """A unit hit's locator (every office-format hit has one; asserted for each hit above)."""
    assert hit.locator is not None, hit.citation
    return hit.locator


def test_office_spans_re_derive_from_the_originals(corpus: Corpus) -> None:
    results = corpus.ingest(list(OFFICE.values()), doc_type="lease")
    assert [(r.status, r.kind) for r in results] == [
        ("ingested", "docx"),
        ("ingested", "csv"),
        ("ingested", "csv"),
        ("ingested", "tsv"),
    ], [r.reason for r in results]
    metas = {Path(r.path).name: r.meta for r in results}
    assert metas["office_rent_roll_latin1.csv"]["encoding_detected"] is True
    assert metas["office_rent_roll_latin1.csv"]["delimiter"] == ";"
    reasons = {Path(r.path).name: r.reason for r in results}
    assert reasons["office_rent_roll_latin1.csv"] == "not UTF-8: read as cp1252 (guessed; check the stored text)"
    assert reasons["office_rent_roll.csv"] == "", "a UTF-8 file says nothing about its encoding"
    stored = {d.source: d for d in corpus.documents()}
    assert stored["office_rent_roll.tsv"].meta["delimiter"] == "\t"
    unit_text = LibraryText(metas)
    hits = list(corpus.export())
    assert len(hits) == sum(r.spans for r in results) and {h.source for h in hits} == set(OFFICE)
    for hit in hits:
        assert hit.page_number is None and hit.locator is not None, hit.citation
        assert hit.bbox is None and hit.boxes is None
        assert hit.text == unit_text(hit.source, hit.locator)[hit.char_start : hit.char_end], hit.citation
        where = f"{hit.source} {label(hit.locator)}"
        assert hit.citation == (f"{where} § {hit.header}" if hit.header else where)
        expected_place = label(hit.locator)
        assert hit.heading_path[0] == expected_place[:1].upper() + expected_place[1:]
    lease = [h for h in hits if h.source == "office_lease.docx"]
    under_base_rent = [h for h in lease if h.header == "3.1 Base Rent"]
    assert len(under_base_rent) >= 5  # the heading, the paragraphs around the table and its 4 rows
    assert all(h.section == "3.1" for h in under_base_rent)
    row = next(h for h in lease if h.locator == {"kind": "table_row", "table": 1, "row": 3})
    assert row.text == "Lease Year: Year 2 (months 13–24)\nBase Rent: $4,635.00 monthly\nBase Rent: $55,620.00 annually"
    assert row.heading_path == ["Table 1 row 3", "Commercial Lease Agreement", "ARTICLE 3 RENT", "3.1 Base Rent"]
    assert row.citation == "office_lease.docx table 1 row 3 § 3.1 Base Rent"
    rows = [h for h in hits if h.source == "office_rent_roll.csv"]
    assert sorted({_locator(h)["row"] for h in rows}) == [1, 2, 3, 5, 6, 7, 8]
    assert all(h.citation == f"office_rent_roll.csv row {_locator(h)['row']}" for h in rows)
    report = corpus.verify()
    assert report.ok, report.mismatches
    assert report.documents == 4 and report.spans == len(hits)

    found = corpus.search("$4,635.00", k=5)
    assert found, "the rent-schedule value is not found"
    assert found[0].citation == "office_lease.docx table 1 row 3 § 3.1 Base Rent", [h.citation for h in found]
    # A value is found with its column's and its row's words: the cell alone said neither "year 2" nor "base rent".
    question = corpus.search("What is the monthly base rent in lease year 2?", k=3)
    assert question and question[0].locator == {"kind": "table_row", "table": 1, "row": 3}, [
        h.citation for h in question
    ]
    # The rent roll as .csv and as .tsv is one document in two formats: its row is one hit, the other copy a repeat.
    tenant = corpus.search('"Smith, Jones & Partners"', k=3)
    assert len(tenant) == 1 and tenant[0].source in {"office_rent_roll.csv", "office_rent_roll.tsv"}
    assert tenant[0].locator == {"kind": "row", "row": 2}
    trace = corpus.explain('"Smith, Jones & Partners"')
    repeats = [c for c in trace.candidates if c.rejected_because and c.rejected_because.startswith("repeats")]
    assert [c.citation.split(" ")[0] for c in repeats] == [
        ({"office_rent_roll.csv", "office_rent_roll.tsv"} - {tenant[0].source}).pop()
    ]


def test_broken_docx_fails_alone(corpus: Corpus, tmp_path: Path) -> None:
    data = OFFICE["office_lease.docx"].read_bytes()
    truncated = tmp_path / "truncated.docx"
    truncated.write_bytes(data[: len(data) // 3])
    results = corpus.ingest([truncated, OFFICE["office_rent_roll.csv"], OFFICE["office_lease.docx"]])
    by_name = {Path(r.path).name: r for r in results}
    assert by_name["truncated.docx"].status == "failed"
    assert "damaged or truncated" in by_name["truncated.docx"].reason
    assert by_name["office_rent_roll.csv"].status == "ingested"
    assert by_name["office_lease.docx"].status == "ingested"
    assert corpus.counts()[0] == 2 and corpus.verify().ok


def _rate_sheet(path: Path) -> Path:
    """A warehouse rate schedule: prose, a price table, and a clause whose amount is a tracked insertion."""
    document = docx.Document()
    document.add_heading("Warehouse Services Agreement", level=1)
    document.add_paragraph("Customer shall pay the rates below for storage and handling at the Reno facility.")
    document.add_heading("Schedule B Rates", level=2)
    table = document.add_table(rows=5, cols=3)
    rows = [
        ("Service", "Rate", "Billing unit"),
        ("Pallet storage", "$18.50", "per pallet per month"),
        ("Inbound handling", "$4.25", "per pallet received"),
        ("Outbound handling", "$4.75", "per pallet shipped"),
        ("Carton labels", "$0.35", "per label"),
    ]
    for r, values in enumerate(rows):
        for c, value in enumerate(values):
            table.cell(r, c).text = value
    late = document.add_paragraph("Invoices unpaid after thirty days bear a late fee of ")
    insertion = late._p.makeelement(qn("w:ins"), {})
    insertion.set(qn("w:id"), "1")
    insertion.set(qn("w:author"), "Counsel")
    run = late.add_run("one and one half percent per month")._r
    insertion.append(run)  # moves the run into the tracked insertion
    late._p.append(insertion)
    late.add_run(".")
    document.save(str(path))
    return path


def test_a_table_value_is_found_with_its_row_and_header_and_tracked_text_is_read(
    corpus: Corpus, tmp_path: Path
) -> None:
    path = _rate_sheet(tmp_path / "rate_sheet.docx")
    [result] = corpus.ingest([path])
    assert result.status == "ingested" and result.meta["insertions"] == 1, result.reason
    hits = corpus.search("How much does pallet storage cost per month?", k=3)
    assert hits and hits[0].locator == {"kind": "table_row", "table": 1, "row": 2}, [h.citation for h in hits]
    assert hits[0].text == "Service: Pallet storage\nRate: $18.50\nBilling unit: per pallet per month"
    assert hits[0].citation == "rate_sheet.docx table 1 row 2 § Schedule B Rates"
    fee = corpus.search('"one and one half percent"', k=3)
    assert [h.locator for h in fee] == [{"kind": "paragraph", "index": 4}]
    assert fee[0].text == "Invoices unpaid after thirty days bear a late fee of one and one half percent per month."
    assert docx.Document(str(path)).paragraphs[3].text == "Invoices unpaid after thirty days bear a late fee of .", (
        "python-docx's paragraph.text alone drops the tracked insertion"
    )
    assert corpus.verify().ok
