"""DOCX -> units: body paragraphs and table cells in document order, as python-docx reads them.

A paragraph's locator is ``{"kind": "paragraph", "index": N}`` with ``document.paragraphs[N - 1]`` that paragraph
(every body paragraph counts, empty or not; empty ones are left out). A table cell's locator is
``{"kind": "table_cell", "table": T, "row": R, "col": C}`` with ``document.tables[T - 1].rows[R - 1].cells[C - 1]``
that cell (all 1-based; ``col`` is the position in python-docx's ``row.cells``, which repeats a merged cell once
per layout-grid column it spans). A merged cell is one unit, at its first (top-left) position. Unit text is
``paragraph.text`` / ``cell.text`` exactly: a cell's text is its own paragraphs joined by ``\\n``, so the text of a
table nested in a cell is not read (``meta["nested_tables"]`` counts them). Content controls (``w:sdt``) and
tracked insertions wrapping whole body paragraphs are outside ``document.paragraphs`` and not read either
(``meta["content_controls"]``).
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
    """A ``.docx`` file as paragraph and table-cell units (see the module docstring).

    ``meta`` records ``paragraphs`` and ``tables`` (body counts, python-docx's ``document.paragraphs`` and
    ``document.tables``), ``cells`` (distinct non-empty cells read), ``nested_tables`` and ``content_controls``
    (content not read).

    Raises:
        ParseError: the file is a password-protected or legacy Word file, not a ZIP, damaged, not a Word document,
            or a decompression bomb (over :data:`MAX_ENTRIES`, :data:`MAX_PART_BYTES`, :data:`MAX_PACKAGE_BYTES` or
            :data:`MAX_RATIO`).
    """
    _check_package(path)
    document = _load(path)
    root = document.element
    if root.tag != qn("w:document") or root.find(qn("w:body")) is None:
        raise ParseError(path, f"not a Word document (the main part is {root.tag!r}, not a w:document with a body)")
    units: list[Unit] = []
    paragraphs = tables = cells = nested = 0
    try:
        blocks = list(document.iter_inner_content())
    except (ValueError, KeyError, IndexError) as exc:
        raise ParseError(path, f"damaged Word document ({exc})") from exc
    for block in blocks:
        if isinstance(block, Paragraph):
            paragraphs += 1
            try:
                units.append(_paragraph_unit(block, paragraphs))
            except (ValueError, KeyError, IndexError) as exc:  # e.g. a style type python-docx has no name for
                raise ParseError(path, f"damaged paragraph {paragraphs} in the Word document ({exc})") from exc
        else:
            tables += 1
            try:
                table_units = _table_units(block, tables)
            except (ValueError, KeyError, IndexError) as exc:
                raise ParseError(path, f"damaged table {tables} in the Word document ({exc})") from exc
            cells += len(table_units)
            nested += len(block._tbl.xpath(".//w:tbl"))
            units.extend(table_units)
    body = document.element.body
    meta: dict[str, Any] = {
        "paragraphs": paragraphs,
        "tables": tables,
        "cells": cells,
        "nested_tables": nested,
        "content_controls": len(body.xpath("./w:sdt")),
    }
    return UnitSource(path, "docx", [u for u in units if u.text], meta)


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
    level = heading_level(paragraph)
    if level:
        return Unit(paragraph.text, BlockKind.HEADING, locator, level)
    kind = BlockKind.LIST_ITEM if is_list_item(paragraph) else BlockKind.PARAGRAPH
    return Unit(paragraph.text, kind, locator)


def _table_units(table: Table, number: int) -> list[Unit]:
    """Non-empty cells of a table, row by row, each merged cell once at its first position."""
    units: list[Unit] = []
    seen: set[Any] = set()  # the cells' w:tc elements (kept alive here, so lxml keeps their identity)
    for r, row in enumerate(table.rows, start=1):
        for c, cell in enumerate(row.cells, start=1):
            if cell._tc in seen:
                continue
            seen.add(cell._tc)
            text = cell.text
            if text:
                units.append(Unit(text, BlockKind.TABLE, {"kind": "table_cell", "table": number, "row": r, "col": c}))
    return units


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
