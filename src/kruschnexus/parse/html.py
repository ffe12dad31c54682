"""HTML, SEC EDGAR filings included -> units with element locators.

Reading: a byte-order mark decides the encoding, else a leading ``<?xml … encoding=…?>``, else a ``<meta charset>``
(or ``http-equiv`` content type) in the first 4 KiB, read as browsers do (``iso-8859-1`` and ``ascii`` as
``cp1252``); a declaration that does not decode the bytes is ignored, and then
:func:`kruschnexus.parse.units.decode` decides. Line ends become ``\\n``, a leading XML declaration is cut, and
``lxml.html`` parses the text (repairing broken markup, e.g. the ``<DOCUMENT><TYPE>…<TEXT>`` SGML wrapper of EDGAR).

Left out: ``script``, ``style``, ``head``, ``title``, ``noscript``, ``template``, ``meta``, ``link``, comments,
processing instructions, and elements hidden by ``display:none``, ``visibility:hidden|collapse`` or the ``hidden``
attribute, each with everything inside it (the text after it, its tail, stays); also the first run of an EDGAR
wrapper's header fields (``<TYPE>``, ``<SEQUENCE>``, ``<FILENAME>``, ``<DESCRIPTION>`` inside ``<DOCUMENT>``),
which goes to ``meta["sgml"]`` instead.

Units: an element is inline when its tag is in :data:`INLINE_TAGS` (``font``, ``b``, ``span``, ``a``, ``br``, …)
and a block otherwise (``p``, ``div``, ``td``, ``li``, and unknown tags such as EDGAR's ``<PAGE>``); CSS ``display``
is not consulted, except that ``none`` hides and an inline ``inline-block`` (EDGAR's hanging-indent ``1.`` box) is a
word break on each side. A unit is a *run*: the visible text a block holds itself, its inline descendants flattened
in, up to the next nested block, which is its own unit. So a ``div`` of ``p``\\ s repeats none of their text, and
``<div>a<p>b</p>c</div>`` is three units, ``a`` and ``c`` being runs 1 and 2 of the ``div``. The text is
:func:`normalise`\\ d; a run without a visible character (only spaces, or format characters such as U+200B) is no
unit.

Locators: ``{"kind": "element", "index": N, "path": P}``, N 1-based over the units kept, in document order, P the
element's XPath from ``getroottree().getpath()``; ``"run": k`` (1-based over the element's visible runs) is added
when the element has more than one. Table content keeps the kind ``element`` (every HTML unit cites as
``block N``) and adds ``"table": T, "row": R, "col": C``: T counts the document's ``table``\\ s in order, R the
table's own ``tr``\\ s, C is the cell's column counting earlier cells' ``colspan`` (not ``rowspan``). A table of a
single cell is layout, not content. An EDGAR hanging-indent row, two non-empty cells of which the first is only a
marker (``1.``, ``(a)``, ``5.1``, ``Section 5.1``, a bullet), is one unit at the ``tr`` (``table`` and ``row``, no
``col``), its text the two cells' joined by a space.

Kinds: inside a table cell, table; ``h1``-``h6``, headings of that level; ``li`` and bullet rows, list items; a unit
of at most :data:`HEADING_CHARS` characters whose visible text is all bold or underlined, or all capitals, a
heading of level 0; otherwise a paragraph.

Furniture (dropped, counted in ``meta["furniture_dropped"]``): page breaks are ``hr``, ``<PAGE>`` and
``page-break-before/after`` (or ``break-before/after``) styles. A unit outside tables whose text is only a page
number (``3``, ``- 3 -``, ``Page 3``, ``Page 3 of 40``) is dropped anywhere. Among the first and the last three
short units outside tables between two page breaks (or an end of the document), so are ``iii``, ``A-1``, ``(3)``,
``3 of 40``, text ending in ``Page 3 of 40``, and a text found at such places on the same side of at least two
pages and half of them (running headers and footers).
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lxml.html
from lxml import etree

from kruschnexus.errors import ParseError
from kruschnexus.model import BlockKind, Locator
from kruschnexus.parse.units import Unit, UnitSource, decode

#: Tags whose text flows into the enclosing block's unit; every other tag is a block.
INLINE_TAGS = frozenset(
    "a abbr acronym b bdi bdo big blink br cite code data del dfn em font i img input ins kbd label mark nobr q"
    " rp rt ruby s samp small span strike strong sub sup time tt u var wbr".split()
)
#: A unit longer than this is never a heading by emphasis or capitals.
HEADING_CHARS = 120
_DROPPED_TAGS = frozenset("script style head title noscript template meta link".split())
_SGML_FIELDS = frozenset({"type", "sequence", "filename", "description"})
_PRE_TAGS = frozenset({"pre", "listing", "plaintext", "xmp"})
_CELL_TAGS = frozenset({"td", "th"})
_BREAK_TAGS = frozenset({"hr", "page"})
_HEADING_LEVELS = {f"h{n}": n for n in range(1, 7)}
_BULLETS = frozenset("•·▪◦‣○●■□-–—")
_EDGE_UNITS = 3
_EDGE_CHARS = 100

_HIDDEN = re.compile(r"display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)")
_INLINE_BLOCK = re.compile(r"display\s*:\s*inline-block")
_BREAK_BEFORE = re.compile(r"break-before\s*:\s*(?:always|page|left|right|recto|verso)")
_BREAK_AFTER = re.compile(r"break-after\s*:\s*(?:always|page|left|right|recto|verso)")
_WEIGHT = re.compile(r"font-weight\s*:\s*(bold|bolder|[6-9]00|normal|lighter|[1-5]00)")
_UNDERLINE = re.compile(r"text-decoration(?:-line)?\s*:[^;]*underline")
_MARKER_CELL = re.compile(
    r"\(?(?:\d{1,3}|[A-Za-z]{1,2}|[ivxlIVXL]{1,6})[.)]|\d{1,3}(?:\.\d{1,3})+\.?"
    r"|(?:Section|SECTION|Sec\.|Article|ARTICLE|§)\s*[\dIVXL]+(?:\.\d+)*\.?|[•·▪◦‣○●■□\-–—]"
)
_PAGE_NUMBER = re.compile(r"(?:[-–—]\s*)?\d{1,4}(?:\s*[-–—])?|page\s+\d{1,4}(?:\s+of\s+\d{1,4})?", re.I)
_EDGE_PAGE_NUMBER = re.compile(
    r"^(?:[a-z]{1,2}-\d{1,3}|[-–—]?\s*[(\[]\d{1,4}[)\]]\s*[-–—]?|\d{1,4}\s+of\s+\d{1,4})$"
    r"|\bpage\s+\d{1,4}(?:\s+of\s+\d{1,4})?$",
    re.I,
)
_ROMAN_PAGE = re.compile(r"(?=[ivxl])l?x{0,3}(?:ix|iv|v?i{0,3})")
_XML_DECLARATION = re.compile(rb"\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._:-]+)", re.I)
_XML_DECLARATION_TEXT = re.compile(r"\A\s*<\?xml[^>]*\?>")
_META_CHARSET = re.compile(rb"<meta\b[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.I)
_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_WHITESPACE = re.compile(r"\s")
_SPACE_RUN = re.compile(r"[ \n]+")


def normalise(pieces: Iterable[str | None]) -> str:
    """A unit's text from its pieces in document order, as the reader (and only the reader) builds it.

    A string piece is character data (entities already decoded by the parser); ``None`` is a line break (a
    ``<br>``, or a source line end inside ``<pre>``). Every whitespace character, ``&nbsp;`` included, becomes a
    space; a run of spaces and line breaks becomes one ``\\n`` when it holds a line break, else one space; the
    ends are stripped.
    """
    joined = "".join("\n" if piece is None else _WHITESPACE.sub(" ", piece) for piece in pieces)
    return _SPACE_RUN.sub(lambda m: "\n" if "\n" in m.group() else " ", joined).strip(" \n")


def open_html(path: Path) -> UnitSource:
    """An HTML file (``.html``, ``.htm``, ``.xhtml``; EDGAR filings included) as its text-bearing elements."""
    text, encoding, encoding_source = _read(path)
    # huge_tree: EDGAR's unclosed <font>s nest 1000+ deep and libxml2 otherwise stops at 256 (losing the rest of
    # the text); with it libxml2 still stops at 2048 levels (refused below) and the walk is iterative. The HTML
    # parser expands no declared entities (a billion-laughs DOCTYPE stays literal text) and reads no network.
    parser = lxml.html.HTMLParser(huge_tree=True, no_network=True)
    try:
        root = lxml.html.document_fromstring(text, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise ParseError(path, f"cannot parse the HTML ({exc})") from exc
    if any(error.type_name == "ERR_RESOURCE_LIMIT" for error in parser.error_log):
        # libxml2 stops reading at 2048 levels of nesting (unclosed tags) and keeps no text after that point
        raise ParseError(path, "the HTML nests deeper than the parser reads (2048 levels of unclosed tags)")
    walker = _Walker()
    walker.walk(root)
    dropped = _furniture(walker.candidates)
    kept = [c for i, c in enumerate(walker.candidates) if i not in dropped]
    tree = root.getroottree()
    units = [_unit(number, candidate, tree) for number, candidate in enumerate(kept, 1)]
    title = root.find(".//title")
    meta: dict[str, Any] = {
        "encoding": encoding,
        "encoding_source": encoding_source,
        "units": len(units),
        "furniture_dropped": len(dropped),
        "title": (normalise([title.text_content()]) or None) if title is not None else None,
    }
    if walker.sgml:
        meta["sgml"] = walker.sgml
    return UnitSource(path, "html", units, meta)


def _read(path: Path) -> tuple[str, str, str]:
    """The file's text, the encoding read and what decided it (``bom``, ``xml``, ``meta``, ``utf-8``, ``detected``)."""
    data = path.read_bytes()
    if not data.startswith(_BOMS) and b"\x00" not in data[:8192]:
        declared = (("xml", _XML_DECLARATION.match(data, 0, 1024)), ("meta", _META_CHARSET.search(data, 0, 4096)))
        for source, match in declared:
            read = _decode_declared(data, match.group(1).decode("ascii")) if match is not None else None
            if read is not None:
                text = read[0].replace("\r\n", "\n").replace("\r", "\n")
                return _XML_DECLARATION_TEXT.sub("", text, count=1), read[1], source
    decoded = decode(path, data)
    source = "detected" if decoded.detected else "utf-8" if decoded.encoding == "utf-8" else "bom"
    return _XML_DECLARATION_TEXT.sub("", decoded.text, count=1), decoded.encoding, source


def _decode_declared(data: bytes, label: str) -> tuple[str, str] | None:
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    if name in ("iso8859-1", "ascii"):
        name = "cp1252"
    elif name.startswith(("utf-16", "utf-32")):
        name = "utf-8"  # an ASCII-compatible file cannot be UTF-16; browsers read it as UTF-8
    try:
        return data.decode(name), name
    except (UnicodeError, LookupError):  # LookupError: a declared "charset" such as hex is no text encoding
        return None


@dataclass(eq=False)
class _Table:
    number: int
    rows: dict[Any, int]  # the table's own tr elements -> 1-based row number
    is_data: bool
    first: int = 0  # index of the table's first candidate


@dataclass(frozen=True, eq=False)
class _Cell:
    table: int
    row: int
    col: int | None
    tr: Any
    span: int = 1


@dataclass(eq=False)
class _Block:
    element: Any
    tag: str
    pre: bool
    cell: _Cell | None
    quiet: bool
    pieces: list[str | None] = field(default_factory=list)
    plain: bool = False  # a visible piece of the current run is neither bold nor underlined
    runs: int = 0


@dataclass(eq=False)
class _Candidate:
    element: Any
    tag: str
    block: _Block | None
    run: int
    text: str
    emphasised: bool
    cell: _Cell | None
    page: int
    bullet: bool = False
    cells: list[dict[str, Any]] | None = None  # a statement row's cells: col, header path, offsets in ``text``


class _Walker:
    """One pass over the tree, iterative (EDGAR's unclosed tags nest deeper than Python recursion goes)."""

    def __init__(self) -> None:
        self.candidates: list[_Candidate] = []
        self.sgml: dict[str, str] = {}
        self._blocks: list[_Block] = []
        self._styles: list[tuple[bool, bool]] = [(False, False)]
        self._tables: list[_Table] = []
        self._rows: list[int] = []
        self._table_count = 0
        self._page = 0

    def walk(self, root: Any) -> None:
        stack: list[tuple[Any, bool]] = [(root, False)]
        while stack:
            element, closing = stack.pop()
            if closing:
                self._end(element)
            elif self._start(element):
                stack.append((element, True))
                stack.extend((child, False) for child in reversed(element))
                continue
            self._add_text(element.tail)

    def _start(self, element: Any) -> bool:
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        style = (element.get("style") or "").lower()
        if not tag or tag in _DROPPED_TAGS or "hidden" in element.attrib or _HIDDEN.search(style):
            return False
        if tag in _BREAK_TAGS or _BREAK_BEFORE.search(style):
            if self._blocks:
                self._flush(self._blocks[-1])  # what came before the break belongs to the page before
            self._page += 1
        self._styles.append(_emphasis(tag, style, self._styles[-1]))
        if tag == "table":
            self._table_count += 1
            rows = element.xpath("./tr|./*/tr")
            cells = sum(1 for tr in rows for cell in tr if cell.tag in _CELL_TAGS)
            numbers = {tr: n for n, tr in enumerate(rows, 1)}
            self._tables.append(_Table(self._table_count, numbers, cells > 1, len(self.candidates)))
        elif tag == "tr":
            self._rows.append(len(self.candidates))
        if tag == "br":
            self._add(None)
        elif tag in INLINE_TAGS and _INLINE_BLOCK.search(style):
            self._add(" ")
        elif tag not in INLINE_TAGS:
            self._open_block(element, tag)
        self._add_text(element.text)
        return True

    def _end(self, element: Any) -> None:
        tag = element.tag.lower()
        style = (element.get("style") or "").lower()
        if tag not in INLINE_TAGS:
            self._flush(self._blocks.pop())
        elif _INLINE_BLOCK.search(style):
            self._add(" ")
        if tag == "tr":
            self._close_row(element, self._rows.pop())
        elif tag == "table":
            self._close_table(self._tables.pop())
        self._styles.pop()
        if _BREAK_AFTER.search(style):
            self._page += 1

    def _open_block(self, element: Any, tag: str) -> None:
        parent = self._blocks[-1] if self._blocks else None
        if parent is not None:
            self._flush(parent)
        cell = self._cell(element) if tag in _CELL_TAGS else parent.cell if parent is not None else None
        pre = tag in _PRE_TAGS or (parent is not None and parent.pre)
        quiet = tag in _SGML_FIELDS and any(b.tag == "document" for b in self._blocks)
        self._blocks.append(_Block(element, tag, pre, cell, quiet))

    def _cell(self, element: Any) -> _Cell | None:
        table = self._tables[-1] if self._tables else None
        tr = element.getparent()
        if table is None or not table.is_data or tr is None or tr not in table.rows:
            return None
        before = [c for c in element.itersiblings(preceding=True) if c.tag in _CELL_TAGS]
        col = 1 + sum(_colspan(c) for c in before)
        return _Cell(table.number, table.rows[tr], col, tr, _colspan(element))

    def _add_text(self, text: str | None) -> None:
        if not text or not self._blocks:
            return
        if not self._blocks[-1].pre:
            self._add(text)
            return
        for i, line in enumerate(text.split("\n")):
            if i:
                self._add(None)
            self._add(line)

    def _add(self, piece: str | None) -> None:
        if not self._blocks:
            return
        block = self._blocks[-1]
        block.pieces.append(piece)
        if piece is not None and not any(self._styles[-1]) and _visible(piece):
            block.plain = True

    def _flush(self, block: _Block) -> None:
        """End the block's current run; a visible run becomes a candidate unit (or SGML metadata)."""
        if not block.pieces:
            return
        text, plain = normalise(block.pieces), block.plain
        block.pieces, block.plain = [], False
        if not _visible(text):
            return
        block.runs += 1
        if block.quiet:
            block.quiet = False
            self.sgml.setdefault(block.tag, text)
            return
        self.candidates.append(
            _Candidate(block.element, block.tag, block, block.runs, text, not plain, block.cell, self._page)
        )

    def _close_row(self, tr: Any, first: int) -> None:
        """Merge an EDGAR hanging-indent row (marker cell + text cell) into one unit at the ``tr``."""
        row = self.candidates[first:]
        if len(row) != 2:
            return
        a, b = row
        if a.cell is None or b.cell is None or a.cell.tr is not tr or b.cell.tr is not tr or a.cell.col == b.cell.col:
            return
        if not _MARKER_CELL.fullmatch(a.text):
            return
        cell = _Cell(a.cell.table, a.cell.row, None, tr)
        text = f"{a.text} {b.text}"
        merged = _Candidate(tr, "tr", None, 1, text, a.emphasised and b.emphasised, cell, a.page, a.text in _BULLETS)
        self.candidates[first:] = [merged]

    def _close_table(self, table: _Table) -> None:
        """A statement (a table of figures) becomes one unit per row, each figure labelled with its header path."""
        mine = [
            c
            for c in self.candidates[table.first :]
            if c.cell is not None and c.cell.table == table.number and c.cell.col is not None
        ]
        rows: dict[int, list[_Candidate]] = {}
        for candidate in mine:
            assert candidate.cell is not None
            rows.setdefault(candidate.cell.row, []).append(candidate)
        if sum(1 for row in rows.values() if _figure_row(row)) < STATEMENT_ROWS:
            return
        first = min(r for r, row in rows.items() if _figure_row(row))
        headers = [_cells_of(rows[r]) for r in sorted(rows) if r < first]
        headers = [row for row in headers if len(row) > 1]  # a title row spanning the table is no column's header
        merged = {id(row[0]): _statement_row(row, headers if r >= first else []) for r, row in rows.items()}
        taken = {id(c) for c in mine}
        kept = [c for c in self.candidates[table.first :] if id(c) not in taken or id(c) in merged]
        self.candidates[table.first :] = [merged.get(id(c), c) for c in kept]


#: A table with at least this many rows holding a figure beside other cells is a statement (see :func:`_statement_row`).
STATEMENT_ROWS = 2
_FIGURE_CELL = re.compile(r"[($€£]*\s*\d[\d,]*(?:\.\d+)?\s*[)%]*|[—–-]")
_SIGN_CELL = re.compile(r"[$€£]")
_YEAR = re.compile(r"(?:19|20)\d\d")
_CLOSING_CELL = re.compile(r"[)%]+")


def _figure_row(row: Sequence[_Candidate]) -> bool:
    """A row with a figure after its first cell (a year, ``2021``, heads a column: not a figure)."""
    return len(row) >= 2 and any(_FIGURE_CELL.fullmatch(c.text) and not _YEAR.fullmatch(c.text) for c in row[1:])


def _cells_of(row: Sequence[_Candidate]) -> list[tuple[str, int, int]]:
    """``(text, col, span)`` of a row's cells, spaces folded: the runs of one cell (its paragraphs, its lines)
    joined by a space."""
    out: list[tuple[str, int, int]] = []
    for c in row:
        assert c.cell is not None and c.cell.col is not None
        text = " ".join(c.text.split())
        if out and out[-1][1] == c.cell.col:
            out[-1] = (f"{out[-1][0]} {text}", c.cell.col, out[-1][2])
        else:
            out.append((text, c.cell.col, c.cell.span))
    return out


def _statement_row(row: Sequence[_Candidate], headers: Sequence[Sequence[tuple[str, int, int]]]) -> _Candidate:
    """A row of a statement as one unit at its ``tr``: its label, then ``{header path}: {value}`` per cell, a
    currency sign or closing parenthesis printed in a cell of its own joined to its figure. The header path of a
    column is the text of every header cell above it (spanning ones included), top first."""
    groups: list[tuple[str, int]] = []
    sign, sign_col = "", 0
    for value, col, _ in _cells_of(row):
        if _SIGN_CELL.fullmatch(value):
            sign, sign_col = sign + value, sign_col or col
        elif _CLOSING_CELL.fullmatch(value) and groups:
            groups[-1] = (groups[-1][0] + value, groups[-1][1])
        else:
            groups.append((f"{sign}{value}", col))
            sign, sign_col = "", 0
    if sign:  # a sign with no figure after it is kept, a value of its own
        groups.append((sign, sign_col))
    text = ""
    cells: list[dict[str, Any]] = []
    for k, (value, col) in enumerate(groups):
        path = _header_path(headers, col) if headers else []
        prefix = f"{' > '.join(path)}: " if path and (k or _FIGURE_CELL.fullmatch(value)) else ""
        text += ("\n" if text else "") + prefix
        cells.append({"col": col, "header": path, "start": len(text), "end": len(text) + len(value)})
        text += value
    head = row[0]
    assert head.cell is not None
    cell = _Cell(head.cell.table, head.cell.row, None, head.cell.tr)
    emphasised = all(c.emphasised for c in row)
    return _Candidate(head.cell.tr, "tr", None, 1, text, emphasised, cell, head.page, False, cells)


def _header_path(headers: Sequence[Sequence[tuple[str, int, int]]], col: int) -> list[str]:
    path: list[str] = []
    for row in headers:
        for text, first, span in row:
            if first <= col < first + span and (not path or path[-1] != text):
                path.append(text)
    return path


def _emphasis(tag: str, style: str, outer: tuple[bool, bool]) -> tuple[bool, bool]:
    """(bold, underlined) for an element, inherited from the enclosing element and overridden by tag and style."""
    bold, underline = outer
    bold = bold or tag in ("b", "strong")
    weight = _WEIGHT.search(style)
    if weight is not None:
        bold = weight.group(1) in ("bold", "bolder") or weight.group(1)[0] in "6789"
    underline = underline or tag == "u" or _UNDERLINE.search(style) is not None
    return bold, underline


def _colspan(cell: Any) -> int:
    value = (cell.get("colspan") or "1").strip()
    return max(1, min(int(value), 1000)) if re.fullmatch(r"[0-9]{1,4}", value) else 1


def _visible(text: str) -> bool:
    return any(not ch.isspace() and unicodedata.category(ch) != "Cf" for ch in text)


def _furniture(candidates: Sequence[_Candidate]) -> set[int]:
    """Indices of candidates that are page numbers, running headers or running footers (see the module doc)."""
    dropped = {i for i, c in enumerate(candidates) if c.cell is None and _PAGE_NUMBER.fullmatch(c.text)}
    pages: dict[int, list[int]] = {}
    for i, candidate in enumerate(candidates):
        pages.setdefault(candidate.page, []).append(i)
    heads = [_edge(candidates, indices) for indices in pages.values()]
    feet = [_edge(candidates, indices[::-1]) for indices in pages.values()]
    for zones in (heads, feet):
        places = Counter(text for zone in zones for text in {candidates[i].text for i in zone})
        for zone in zones:
            for i in zone:
                text = candidates[i].text
                running = places[text] >= max(2, len(zones) / 2)
                if running or _EDGE_PAGE_NUMBER.search(text) or _ROMAN_PAGE.fullmatch(text):
                    dropped.add(i)
    return dropped


def _edge(candidates: Sequence[_Candidate], indices: Sequence[int]) -> list[int]:
    """The first few short units outside tables, taken from one end of a page."""
    zone: list[int] = []
    for i in indices[:_EDGE_UNITS]:
        if candidates[i].cell is not None or len(candidates[i].text) > _EDGE_CHARS:
            break
        zone.append(i)
    return zone


def _unit(number: int, candidate: _Candidate, tree: Any) -> Unit:
    locator: Locator = {"kind": "element", "index": number, "path": tree.getpath(candidate.element)}
    if candidate.block is not None and candidate.block.runs > 1:
        locator["run"] = candidate.run
    cell = candidate.cell
    if cell is not None:
        locator["table"], locator["row"] = cell.table, cell.row
        if candidate.cells is not None:
            locator["cells"] = candidate.cells
        elif cell.col is not None:
            locator["col"] = cell.col
    kind, level = _kind(candidate)
    return Unit(candidate.text, kind, locator, level)


def _kind(candidate: _Candidate) -> tuple[BlockKind, int]:
    if candidate.cells is not None or (candidate.cell is not None and candidate.cell.col is not None):
        return BlockKind.TABLE, 0
    if candidate.tag in _HEADING_LEVELS:
        return BlockKind.HEADING, _HEADING_LEVELS[candidate.tag]
    if candidate.bullet or candidate.tag == "li":
        return BlockKind.LIST_ITEM, 0
    text = candidate.text
    letters = [ch for ch in text if ch.isalpha()]
    if letters and len(text) <= HEADING_CHARS and not text.endswith((",", ";")):
        if candidate.emphasised or (len(letters) > 1 and all(ch.isupper() for ch in letters)):
            return BlockKind.HEADING, 0
    return BlockKind.PARAGRAPH, 0
