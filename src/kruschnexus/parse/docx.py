"""DOCX -> units: body paragraphs and table rows in document order.

A paragraph's locator is ``{"kind": "paragraph", "index": N}``: the N-th body paragraph in document order, empty or
not (empty ones are left out), counting the paragraphs of body-level content controls (``w:sdt``) where they stand;
for a document without those, ``document.paragraphs[N - 1]`` in python-docx. A table row's locator is
``{"kind": "table_row", "table": T, "row": R}`` with ``document.tables[T - 1].rows[R - 1]`` that row (1-based).

Text is read run by run with python-docx's own run text (``w:t``, a tab as ``\t``, a break as ``\n``), including
runs that ``paragraph.text`` skips: tracked insertions (``w:ins``), inline content controls, simple fields and smart
tags; runs of tracked deletions and moves away are not text, nor are the paragraphs of text boxes. A table row is read
like a CSV record: the first row of a table is its header, and each later row's text is one line
``"{header}: {cell}"`` per distinct non-empty cell (a cell merged across columns once; the header of a column without
one is ``column C``), so a value always travels with its column's name; the header row itself is its cells' texts, one
per line. A cell's text is its paragraphs' texts joined by ``\n``; a table nested in a cell is not read
(``meta["nested_tables"]`` counts them).
"""

from __future__ import annotations

import re
import zipfile
import zlib
from pathlib import Path
from typing import Any

import docx
from docx.document import Document
from docx.opc.exceptions import PackageNotFoundError
from docx.oxml.ns import qn
from docx.styles.style import CharacterStyle
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree

from kruschnexus.errors import ParseError
from kruschnexus.model import BlockKind
from kruschnexus.parse.units import Unit, UnitSource

#: An uncompressed part larger than this is refused before python-docx reads it (bytes).
MAX_PART_BYTES = 128 * 1024 * 1024
#: A package whose parts add up to more than this uncompressed is refused (bytes; python-docx holds every part).
MAX_PACKAGE_BYTES = 200 * 1024 * 1024
#: A package with more entries than this is refused (a Word document has tens to a few hundred).
MAX_ENTRIES = 10_000
#: A part over :data:`RATIO_FLOOR_BYTES` that inflates more than this many times is a decompression bomb (Word's
#: XML compresses 5 to 20 times; a zero-filled part a thousand times).
MAX_RATIO = 100
RATIO_FLOOR_BYTES = 1024 * 1024
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED_ENTRY = 0x1
_ENCRYPTED_STREAM = "EncryptedPackage".encode("utf-16-le")
_HEADING_STYLE = re.compile(r"^heading ([1-9])$", re.IGNORECASE)
#: ``w:outlineLvl`` 0-8 is a heading of level 1-9; 9 is body text.
_BODY_OUTLINE = 9


def open_docx(path: Path) -> UnitSource:
    """A ``.docx`` file as paragraph and table-row units (see the module docstring).

    ``meta`` records ``paragraphs`` and ``tables`` (body counts, content controls included), ``rows`` and
    ``cells`` (non-empty table rows and distinct non-empty cells read), ``nested_tables`` (not read),
    ``content_controls`` (body-level ``w:sdt``, read) and ``insertions`` (tracked insertions read).

    Raises:
        ParseError: the file is a password-protected or legacy Word file, not a ZIP, damaged, not a Word document,
            or a decompression bomb (over :data:`MAX_ENTRIES`, :data:`MAX_PART_BYTES`, :data:`MAX_PACKAGE_BYTES` or
            :data:`MAX_RATIO`).
    """
    _check_package(path)
    document = _load(path)
    root = document.element
    body = root.find(qn("w:body"))
    if root.tag != qn("w:document") or body is None:
        raise ParseError(path, f"not a Word document (the main part is {root.tag!r}, not a w:document with a body)")
    units: list[Unit] = []
    paragraphs = tables = rows = cells = nested = 0
    parent = document._body
    for element in body_content(body):
        if element.tag == qn("w:p"):
            paragraphs += 1
            try:
                units.append(_paragraph_unit(Paragraph(element, parent), paragraphs))
            except (ValueError, KeyError, IndexError) as exc:  # e.g. a style type python-docx has no name for
                raise ParseError(path, f"damaged paragraph {paragraphs} in the Word document ({exc})") from exc
        else:
            tables += 1
            try:
                table_units, table_cells = _table_units(Table(element, parent), tables)
            except (ValueError, KeyError, IndexError) as exc:
                raise ParseError(path, f"damaged table {tables} in the Word document ({exc})") from exc
            rows += len(table_units)
            cells += table_cells
            nested += len(element.xpath(".//w:tbl"))
            units.extend(table_units)
    meta: dict[str, Any] = {
        "paragraphs": paragraphs,
        "tables": tables,
        "rows": rows,
        "cells": cells,
        "nested_tables": nested,
        "content_controls": len(body.xpath("./w:sdt")),
        "insertions": len(body.xpath(".//w:ins[w:r]")),
    }
    return UnitSource(path, "docx", [u for u in units if u.text], meta)


#: Elements whose children stand where they are in the flow of a body or a cell: content controls and custom XML.
_WRAPPERS = ("w:sdt", "w:sdtContent", "w:customXml")


def body_content(container: Any) -> list[Any]:
    """The ``w:p`` and ``w:tbl`` elements of a body or a cell in document order, the contents of content controls
    and custom XML included where they stand."""
    out: list[Any] = []
    for child in container.iterchildren():
        if child.tag in (qn("w:p"), qn("w:tbl")):
            out.append(child)
        elif child.tag in tuple(qn(w) for w in _WRAPPERS):
            out.extend(body_content(child))
    return out


def paragraph_text(p: Any) -> str:
    """A ``w:p``'s visible text: python-docx's text of each of its runs, in order, tracked insertions, inline content
    controls, hyperlinks, simple fields and smart tags included; tracked deletions, moves away and the paragraphs of
    text boxes left out."""
    runs = p.xpath(".//w:r[not(ancestor::w:del) and not(ancestor::w:moveFrom)]")
    return "".join(str(r.text) for r in runs if r.xpath("ancestor::w:p[1]")[0] is p)


def _check_package(path: Path) -> None:
    """Refuse what python-docx would fail on with an unclear error (OLE files, non-ZIPs) and decompression bombs,
    from the ZIP's directory, before anything is inflated."""
    try:
        with path.open("rb") as fh:
            head = fh.read(8)
            if head == _OLE_MAGIC:
                if _ENCRYPTED_STREAM in fh.read():
                    raise ParseError(path, "the DOCX is password-protected (encrypted); save an unprotected copy")
                raise ParseError(path, "a legacy Word 97-2003 (.doc) file, not a DOCX; save it as .docx")
    except OSError as exc:
        raise ParseError(path, f"cannot read the file ({exc.strerror or exc})") from exc
    if not zipfile.is_zipfile(path):
        raise ParseError(path, "the DOCX is damaged or truncated (not a readable ZIP package)")
    try:
        with zipfile.ZipFile(path) as package:
            infos = package.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise ParseError(path, f"the DOCX is damaged (bad ZIP package: {exc})") from exc
    names = {info.filename for info in infos}
    if "[Content_Types].xml" not in names:
        raise ParseError(path, "a ZIP archive, not a Word document (no [Content_Types].xml)")
    _check_sizes(path, infos)


def _check_sizes(path: Path, infos: list[zipfile.ZipInfo]) -> None:
    """Decompression-bomb limits, from the sizes the ZIP directory declares (``zipfile`` never inflates more than
    the declared size of a part: a part that would is a CRC error)."""
    if len(infos) > MAX_ENTRIES:
        raise ParseError(path, f"the DOCX package has {len(infos)} entries, over the limit of {MAX_ENTRIES}")
    total = 0
    for info in infos:
        total += info.file_size
        if info.flag_bits & _ENCRYPTED_ENTRY or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ParseError(path, f"the DOCX part {info.filename} is encrypted or compressed in a way Word never uses")
        if info.file_size > MAX_PART_BYTES:
            raise ParseError(
                path, f"the DOCX part {info.filename} is {info.file_size} bytes uncompressed, over {MAX_PART_BYTES}"
            )
        ratio = info.file_size / max(1, info.compress_size)
        if info.file_size > RATIO_FLOOR_BYTES and ratio > MAX_RATIO:
            raise ParseError(
                path,
                f"the DOCX part {info.filename} inflates {ratio:.0f} times ({info.compress_size} to {info.file_size}"
                f" bytes), over the limit of {MAX_RATIO}: a decompression bomb",
            )
    if total > MAX_PACKAGE_BYTES:
        raise ParseError(path, f"the DOCX package is {total} bytes uncompressed, over the limit of {MAX_PACKAGE_BYTES}")


def _load(path: Path) -> Document:
    try:
        return docx.Document(str(path))
    except PackageNotFoundError as exc:
        raise ParseError(path, f"not a Word document ({exc})") from exc
    except ValueError as exc:  # python-docx: "file '…' is not a Word file, content type is '…'"
        content = str(exc).rsplit("content type is", 1)[-1].strip(" '")
        raise ParseError(path, f"an Office file but not a Word document (main part is {content})") from exc
    except KeyError as exc:
        raise ParseError(path, f"not a Word document (missing part {exc})") from exc
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:  # OSError: an offset before the file
        raise ParseError(path, f"the DOCX is damaged (bad ZIP package: {exc})") from exc
    except etree.XMLSyntaxError as exc:
        raise ParseError(path, f"the DOCX is damaged (malformed XML: {exc})") from exc


def _paragraph_unit(paragraph: Paragraph, index: int) -> Unit:
    locator = {"kind": "paragraph", "index": index}
    text = paragraph_text(paragraph._p)
    level = heading_level(paragraph)
    if level:
        return Unit(text, BlockKind.HEADING, locator, level)
    kind = BlockKind.LIST_ITEM if is_list_item(paragraph) else BlockKind.PARAGRAPH
    return Unit(text, kind, locator)


def cell_text(tc: Any) -> str:
    """A cell's text: its paragraphs' texts (content controls included) joined by ``\n``; nested tables left out."""
    return "\n".join(paragraph_text(p) for p in body_content(tc) if p.tag == qn("w:p"))


def _table_units(table: Table, number: int) -> tuple[list[Unit], int]:
    """A table's non-empty rows as units (see the module docstring), and how many distinct non-empty cells they
    hold."""
    units: list[Unit] = []
    seen: set[Any] = set()  # the cells' w:tc elements (kept alive here, so lxml keeps their identity)
    rows = table.rows
    header = dict(_grid(rows[0])) if len(rows) else {}
    names = {c: cell_text(tc).strip() or f"column {c}" for c, tc in header.items()}
    for r, row in enumerate(rows, start=1):
        lines: list[str] = []
        in_row: set[Any] = set()
        for c, tc in _grid(row):
            if tc in in_row or (r > 1 and header.get(c) is tc):
                continue  # a merged cell's repeat, or a header cell merged down into this row
            in_row.add(tc)
            text = cell_text(tc)
            if not text.strip():
                continue
            seen.add(tc)
            lines.append(text if r == 1 else f"{names.get(c, f'column {c}')}: {text}")
        if lines:
            units.append(Unit("\n".join(lines), BlockKind.TABLE, {"kind": "table_row", "table": number, "row": r}))
    return units, len(seen)


def _grid(row: Any) -> list[tuple[int, Any]]:
    """A row's cells as ``(layout-grid column, w:tc)``, 1-based: a row may start past the first column
    (``w:gridBefore``), and python-docx lists a merged cell once per column it spans."""
    return [(row.grid_cols_before + k, cell._tc) for k, cell in enumerate(row.cells, start=1)]


def heading_level(paragraph: Paragraph) -> int:
    """Outline level of a heading paragraph (1 = top), 0 when it is not a heading.

    A heading is a paragraph with an outline level 0-8 of its own, or whose style (or a style it is based on)
    is ``Title`` (level 1), ``Heading N`` (level N) or carries an outline level.
    """
    own = _outline_level(paragraph._p.pPr)
    if own is not None:
        return own
    style: Any = paragraph.style
    depth = 0
    while isinstance(style, CharacterStyle) and depth < 10:
        name = style.name or ""
        if name.lower() == "title":
            return 1
        if m := _HEADING_STYLE.match(name):
            return int(m.group(1))
        level = _outline_level(style.element.pPr)
        if level is not None:
            return level
        style, depth = style.base_style, depth + 1
    return 0


def is_list_item(paragraph: Paragraph) -> bool:
    """True when the paragraph is numbered or bulleted (``w:numPr`` with a non-zero ``w:numId``) or its style is
    a ``List …`` style."""
    ppr = paragraph._p.pPr
    num_pr = ppr.find(qn("w:numPr")) if ppr is not None else None
    if num_pr is not None:
        num_id = num_pr.find(qn("w:numId"))
        return num_id is None or num_id.get(qn("w:val")) != "0"
    name = paragraph.style.name if paragraph.style is not None else ""
    return (name or "").startswith("List")


def _outline_level(ppr: Any) -> int | None:
    """Heading level from a ``w:pPr``'s ``w:outlineLvl``: ``None`` when absent, 0 for body text."""
    if ppr is None:
        return None
    found = ppr.find(qn("w:outlineLvl"))
    if found is None:
        return None
    try:
        value = int(found.get(qn("w:val"), ""))
    except ValueError:
        return None
    return value + 1 if 0 <= value < _BODY_OUTLINE else 0
