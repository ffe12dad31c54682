"""DOCX reader: every unit is python-docx's own text at its locator (a table row read like a CSV record from
python-docx's cells); tracked insertions and content controls read; kinds, levels, merged cells; clear errors."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import docx
import pytest
from docx.document import Document as DocxDocument
from docx.oxml.table import CT_Tc
from docx.oxml.xmlchemy import BaseOxmlElement

from kruschnexus.errors import ParseError
from kruschnexus.extract import open_source, sniff
from kruschnexus.model import BlockKind
from kruschnexus.parse import docx as docx_reader
from kruschnexus.parse.docx import open_docx
from tests.conftest import FIXTURES

LEASE = FIXTURES / "office_lease.docx"


def library_text(document: DocxDocument, locator: dict[str, Any]) -> str:
    """The text python-docx gives at a locator (independent of the reader): a paragraph's ``text``; a table row as
    ``"{header cell}: {cell}"`` lines over python-docx's ``row.cells`` (a merged cell once, a header cell merged down
    left out), the header row as its cells' texts."""
    if locator["kind"] == "paragraph":
        text: str = document.paragraphs[locator["index"] - 1].text
        return text
    assert locator["kind"] == "table_row"
    rows = document.tables[locator["table"] - 1].rows
    header = rows[0].cells
    lines: list[str] = []
    done: list[CT_Tc] = []
    for c, cell in enumerate(rows[locator["row"] - 1].cells):
        if any(cell._tc is d for d in done) or (locator["row"] > 1 and cell._tc is header[c]._tc):
            continue
        done.append(cell._tc)
        if cell.text.strip():
            name = header[c].text.strip() or f"column {c + 1}"
            lines.append(cell.text if locator["row"] == 1 else f"{name}: {cell.text}")
    return "\n".join(lines)


def units(path: Path) -> list[tuple[dict[str, Any], str, BlockKind, int]]:
    found: list[tuple[dict[str, Any], str, BlockKind, int]] = []
    with open_docx(path) as source:
        for p in source.pages():
            assert p.locator is not None
            found.append((p.locator, p.text, p.blocks[0].kind, p.blocks[0].level))
    return found


def test_every_unit_is_the_library_text_at_its_locator() -> None:
    document = docx.Document(str(LEASE))
    found = units(LEASE)
    for locator, text, _, _ in found:
        assert text == library_text(document, locator), locator
    paragraphs = [loc["index"] for loc, *_ in found if loc["kind"] == "paragraph"]
    expected = [i for i, p in enumerate(document.paragraphs, start=1) if p.text.strip()]
    assert paragraphs == expected, "every non-empty body paragraph once, in order"
    assert len(document.paragraphs) == 26 and len(paragraphs) == 25, "one empty paragraph is counted, not emitted"
    assert 11 not in paragraphs and paragraphs[-1] == 26


def test_document_order_interleaves_paragraphs_and_rows() -> None:
    order = [(loc["kind"], loc.get("index") or loc["row"]) for loc, *_ in units(LEASE)]
    at = order.index(("table_row", 1))
    assert order[at - 1] == ("paragraph", 10)
    assert order[at + 3] == ("table_row", 4)
    assert order[at + 4] == ("paragraph", 12), "paragraph 11 is the empty one before the table"


def test_a_row_carries_its_header_and_a_merged_cell_reads_once() -> None:
    document = docx.Document(str(LEASE))
    header = document.tables[0].rows[0].cells
    assert header[1]._tc is header[2]._tc, "python-docx repeats the merged cell"
    rows = {loc["row"]: text for loc, text, _, _ in units(LEASE) if loc["kind"] == "table_row"}
    assert rows[1] == "Lease Year\nBase Rent"
    assert rows[3] == (
        "Lease Year: Year 2 (months 13\u201324)\nBase Rent: $4,635.00 monthly\nBase Rent: $55,620.00 annually"
    )
    assert sorted(rows) == [1, 2, 3, 4]


def test_kinds_and_heading_levels() -> None:
    by_text = {text: (kind, level) for _, text, kind, level in units(LEASE)}
    assert by_text["Commercial Lease Agreement"] == (BlockKind.HEADING, 1)  # Title
    assert by_text["ARTICLE 3 RENT"] == (BlockKind.HEADING, 1)
    assert by_text["3.1 Base Rent"] == (BlockKind.HEADING, 2)
    assert by_text["Signatures"] == (BlockKind.HEADING, 1), "outline level 0 set on a Normal paragraph"
    assert by_text["real estate taxes assessed against the Building;"] == (BlockKind.LIST_ITEM, 0)  # List Bullet
    assert by_text["a reading café serving coffee and light refreshments;"] == (BlockKind.LIST_ITEM, 0)  # w:numPr
    assert by_text["Base Rent for any partial month shall be prorated on a daily basis."] == (BlockKind.PARAGRAPH, 0)
    assert by_text["Lease Year\nBase Rent"] == (BlockKind.TABLE, 0)
    multi = next(text for text in by_text if text.startswith("Notices to Landlord"))
    assert multi == "Notices to Landlord shall be sent to:\nAcme Properties LLC\tAttn: Lease Administration"


def test_meta_and_kind() -> None:
    with open_source(LEASE) as source:
        assert source.kind == "docx" and source.paged is False
        assert source.meta == {
            "paragraphs": 26,
            "tables": 1,
            "rows": 4,
            "cells": 11,
            "nested_tables": 0,
            "content_controls": 0,
            "insertions": 0,
        }
        assert source.page_count == 25 + 4
    assert sniff(LEASE) == "docx"


def test_unit_pages_are_whole_units_without_boxes() -> None:
    with open_docx(LEASE) as source:
        for number, page in enumerate(source.pages(), start=1):
            assert page.number == number and page.width == 0.0
            assert all(r is None for r in page.char_rects) and len(page.char_rects) == len(page.text)
            assert page.place[:1].isupper()


def _write(path: Path, document: DocxDocument) -> Path:
    document.save(str(path))
    return path


def test_nested_table_text_is_not_part_of_the_cell(tmp_path: Path) -> None:
    document = docx.Document()
    outer = document.add_table(rows=1, cols=2)
    outer.rows[0].cells[0].text = "outer text"
    inner = outer.rows[0].cells[1].add_table(rows=1, cols=1)
    inner.rows[0].cells[0].text = "inner text"
    path = _write(tmp_path / "nested.docx", document)
    with open_docx(path) as source:
        texts = [p.text for p in source.pages()]
        assert source.meta["nested_tables"] == 1
    assert texts == ["outer text"], "a cell's text is its own paragraphs only"
    holder = docx.Document(str(path)).tables[0].rows[0].cells[1]
    assert holder.text == "\n" and holder.tables[0].rows[0].cells[0].text == "inner text"


def test_vertically_merged_cell_reads_in_every_row_it_spans(tmp_path: Path) -> None:
    document = docx.Document()
    table = document.add_table(rows=4, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Region", "Office"
    west = table.cell(1, 0).merge(table.cell(3, 0))
    west.text = "West"
    for r in range(1, 4):
        table.cell(r, 1).text = f"office {r}"
    path = _write(tmp_path / "vmerge.docx", document)
    found = {loc["row"]: text for loc, text, _, _ in units(path)}
    assert found == {
        1: "Region\nOffice",
        2: "Region: West\nOffice: office 1",
        3: "Region: West\nOffice: office 2",
        4: "Region: West\nOffice: office 3",
    }
    reopened = docx.Document(str(path))
    for locator, text, _, _ in units(path):
        assert library_text(reopened, locator) == text


def test_header_cell_merged_down_is_not_repeated_and_blank_header_is_named(tmp_path: Path) -> None:
    document = docx.Document()
    table = document.add_table(rows=2, cols=3)
    table.cell(0, 0).merge(table.cell(1, 0)).text = "Item"
    table.cell(0, 1).text = "Price"
    table.cell(1, 1).text, table.cell(1, 2).text = "$18.50", "per pallet per month"
    path = _write(tmp_path / "header_down.docx", document)
    found = {loc["row"]: text for loc, text, _, _ in units(path)}
    assert found == {1: "Item\nPrice", 2: "Price: $18.50\ncolumn 3: per pallet per month"}
    reopened = docx.Document(str(path))
    for locator, text, _, _ in units(path):
        assert library_text(reopened, locator) == text


def _w(tag: str, text: str | None = None, **attrs: str) -> BaseOxmlElement:
    from docx.oxml.ns import qn
    from docx.oxml.parser import OxmlElement

    el = OxmlElement(tag)
    for name, value in attrs.items():
        el.set(qn(f"w:{name}"), value)
    if text is not None:
        t = OxmlElement("w:t")
        t.text = text
        t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
        run = OxmlElement("w:r")
        run.append(t)
        el.append(run)
    return el


def test_tracked_insertions_and_content_controls_are_read_deletions_are_not(tmp_path: Path) -> None:
    document = docx.Document()
    para = document.add_paragraph("The fee is ")
    insertion = _w("w:ins", "$18.50 per pallet", id="1", author="A", date="2026-01-01T00:00:00Z")
    para._p.append(insertion)
    deletion = _w("w:del", None, id="2", author="A", date="2026-01-01T00:00:00Z")
    run = _w("w:r")
    deleted = _w("w:delText")
    deleted.text = "$17.00"
    run.append(deleted)
    deletion.append(run)
    para._p.append(deletion)
    para.add_run(" per month.")
    inline = _w("w:sdt")
    inline.append(_w("w:sdtContent", " (monthly)"))
    para._p.append(inline)
    block = _w("w:sdt")
    content = _w("w:sdtContent")
    control_para = _w("w:p", "Tenant name: Harbor Logistics LLC")
    content.append(control_para)
    block.append(content)
    document.element.body.insert(len(document.element.body) - 1, block)
    document.add_paragraph("After the control.")
    path = _write(tmp_path / "tracked.docx", document)
    with open_docx(path) as source:
        meta = source.meta
        found = [(p.locator, p.text) for p in source.pages()]
    assert found == [
        ({"kind": "paragraph", "index": 1}, "The fee is $18.50 per pallet per month. (monthly)"),
        ({"kind": "paragraph", "index": 2}, "Tenant name: Harbor Logistics LLC"),
        ({"kind": "paragraph", "index": 3}, "After the control."),
    ]
    assert meta["content_controls"] == 1 and meta["insertions"] == 1
    reopened = docx.Document(str(path))
    assert reopened.paragraphs[0].text == "The fee is  per month.", "python-docx alone loses the insertion"
    assert [p.text for p in reopened.paragraphs[1:]] == ["After the control."], "and the content control"


def test_heading_style_chain_and_body_outline_level(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_heading("Level three", level=3)
    body = document.add_heading("Demoted heading", level=1)
    body._p.get_or_add_pPr().append(_outline(9))
    path = _write(tmp_path / "levels.docx", document)
    found = {text: (kind, level) for _, text, kind, level in units(path)}
    assert found["Level three"] == (BlockKind.HEADING, 3)
    assert found["Demoted heading"] == (BlockKind.PARAGRAPH, 0), "outline level 9 (body text) wins over the style"


def test_numbering_removed_by_num_id_zero_is_not_a_list(tmp_path: Path) -> None:
    from docx.oxml.ns import qn

    document = docx.Document()
    plain = document.add_paragraph("Not numbered any more", style="List Number")
    num_pr = plain._p.get_or_add_pPr().get_or_add_numPr()
    num_pr.get_or_add_numId().set(qn("w:val"), "0")
    document.add_paragraph("Styled as a list", style="List Paragraph")
    path = _write(tmp_path / "lists.docx", document)
    found = {text: kind for _, text, kind, _ in units(path)}
    assert found == {"Not numbered any more": BlockKind.PARAGRAPH, "Styled as a list": BlockKind.LIST_ITEM}


def _outline(value: int) -> BaseOxmlElement:
    from docx.oxml.ns import qn
    from docx.oxml.parser import OxmlElement

    el = OxmlElement("w:outlineLvl")
    el.set(qn("w:val"), str(value))
    return el


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def test_zip_that_is_not_a_docx(tmp_path: Path) -> None:
    path = _zip(tmp_path / "archive.docx", {"readme.txt": b"hello"})
    with pytest.raises(ParseError, match=r"ZIP archive, not a Word document"):
        open_docx(path)


def test_office_file_that_is_not_word(tmp_path: Path) -> None:
    members = {}
    with zipfile.ZipFile(LEASE) as z:
        for name in z.namelist():
            members[name] = z.read(name)
    members["[Content_Types].xml"] = members["[Content_Types].xml"].replace(
        b"wordprocessingml.document.main+xml", b"spreadsheetml.sheet.main+xml"
    )
    path = _zip(tmp_path / "sheet.docx", members)
    with pytest.raises(ParseError, match=r"not a Word document \(main part is application/.*spreadsheetml"):
        open_docx(path)


def test_encrypted_docx_is_reported_as_password_protected(tmp_path: Path) -> None:
    path = tmp_path / "locked.docx"
    directory = "EncryptionInfo".encode("utf-16-le") + b"\x00" * 40 + "EncryptedPackage".encode("utf-16-le")
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504 + directory + b"\x00" * 1024)
    with pytest.raises(ParseError, match="password-protected"):
        open_docx(path)
    assert sniff(path) == "docx"  # an OLE file named .docx reaches the reader, which says why it cannot be read
    with pytest.raises(ParseError, match="password-protected"):
        open_source(path)


def test_legacy_doc_named_docx(tmp_path: Path) -> None:
    path = tmp_path / "old.docx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504 + "WordDocument".encode("utf-16-le"))
    with pytest.raises(ParseError, match=r"legacy Word 97-2003"):
        open_docx(path)


def test_truncated_docx(tmp_path: Path) -> None:
    data = LEASE.read_bytes()
    path = tmp_path / "cut.docx"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ParseError, match="damaged or truncated"):
        open_docx(path)


def test_corrupt_member_is_damaged(tmp_path: Path) -> None:
    buffer = io.BytesIO(LEASE.read_bytes())
    with zipfile.ZipFile(buffer) as z:
        members = {name: z.read(name) for name in z.namelist()}
    members["word/document.xml"] = members["word/document.xml"][:-40]
    path = _zip(tmp_path / "badxml.docx", members)
    with pytest.raises(ParseError, match=r"damaged \(malformed XML"):
        open_docx(path)


def test_oversized_part_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(docx_reader, "MAX_PART_BYTES", 10_000)
    with pytest.raises(ParseError, match=r"word/styles.xml is \d+ bytes uncompressed, over 10000"):
        open_docx(LEASE)


def test_docx_without_text(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("")
    document.add_table(rows=1, cols=1)
    path = _write(tmp_path / "blank.docx", document)
    with pytest.raises(ParseError, match="the DOCX file has no text"):
        open_docx(path)


def test_a_row_that_starts_past_the_first_column_keeps_its_column_names(tmp_path: Path) -> None:
    document = docx.Document()
    table = document.add_table(rows=2, cols=3)
    for c, name in enumerate(("Name", "Amount", "Date")):
        table.cell(0, c).text = name
    table.cell(1, 1).text, table.cell(1, 2).text = "500", "2024-01-01"
    row = table.rows[1]._tr
    row.remove(row.tc_lst[0])  # the row starts at the second column of the grid
    row.get_or_add_trPr().append(_w("w:gridBefore", val="1"))
    path = _write(tmp_path / "grid_before.docx", document)
    assert docx.Document(str(path)).tables[0].rows[1].grid_cols_before == 1
    found = {loc["row"]: text for loc, text, _, _ in units(path)}
    assert found == {1: "Name\nAmount\nDate", 2: "Amount: 500\nDate: 2024-01-01"}
