"""Blocks -> spans. Spans are composed from block offsets; text is never searched again.

A region is a run of consecutive body blocks of one page that belong to one section (a heading-only
region joins the region after it; so does a line that opens a numbered section and holds only its title,
``7.1 Financial Condition Covenants.`` before ``(a) Maximum Consolidated Net Leverage Ratio. ...``). A region
longer than ``max_chars`` is cut into windows at sentence
ends (else at a space). Non-body blocks (headers, footers, page numbers, stamps, line numbers) end a
region and never fall inside one. A body block in which a line opens a numbered section is first cut there
(:func:`~kruschnexus.chunk.lines.section_pieces`).

A table with cells (a PDF table, see :attr:`Page.cells`) is a region of its own: it never joins prose or a
heading. Its spans are whole rows, as many as fit in ``max_chars``; a longer row is cut between cells, a longer
cell into windows. Each table span's ``locator`` is ``{"kind": "table_cell", "table": T, "row": R, "col": C,
"row_end": R2, "col_end": C2}``: the cell it starts in (``table`` counts tables on the page, all 1-based) and
the last row and column it reaches. A span below the table's header row carries the header's text as
``context`` (for the embedder), never in its text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from kruschnexus.chunk.grammar import is_within, parse_heading_marker
from kruschnexus.chunk.lines import ABBREVIATIONS, OPEN_END, section_pieces
from kruschnexus.chunk.sections import Marker, SectionTracker, parse_marker
from kruschnexus.chunk.titles import is_code_title, is_title_only
from kruschnexus.model import Block, BlockKind, Cell, Chunk, Locator, Page

_SENTENCE_END = re.compile(r"[.!?;:][\"'”’)\]]*(?=\s+[\"'“(\[A-Z0-9§])")
_SPACES = re.compile(r"\s+")
HEADER_CHARS = 100
#: A "heading" that starts in lower case or ends with a comma, a hyphen or a conjunction is a wrapped line of a
#: sentence (``CNCF TOC,``): it closes no section.
_CONTINUES = re.compile(r"^[a-z]|(?:[,\-]|\b(?:and|or|of|the|to|in))$")
#: The end of a sentence: a dot, ``!`` or ``?`` before white space or the end.
_SENTENCE_STOP = re.compile(r"[.!?](?=\s|$)")


@dataclass
class _Region:
    start: int
    end: int
    section: str | None
    section_path: tuple[str, ...]
    headers: tuple[str, ...]
    kinds: list[str] = field(default_factory=list)
    headings_only: bool = True
    #: Some piece of it is a title line of a numbered section (not a heading block): it joins only that section's
    #: own text (``12.1 The Landlord.`` never joins ``13. Insurance. ...``).
    title_line: bool = False
    cells: list[Cell] = field(default_factory=list)


@dataclass(frozen=True)
class Piece:
    """One span cut from a region: its text range, locator and context (a table's header text, or ``""``)."""

    start: int
    end: int
    locator: Locator | None = None
    context: str = ""


def chunk_page(page: Page, tracker: SectionTracker, max_chars: int) -> list[Chunk]:
    """Spans of one page. ``tracker`` carries open sections from earlier pages and is updated."""
    chunks: list[Chunk] = []
    for region in _regions(page, tracker):
        if region.cells:
            pieces = table_pieces(page.text, region.cells, max_chars)
        else:
            pieces = [Piece(s, e, page.locator) for s, e in windows(page.text, region.start, region.end, max_chars)]
        for piece in pieces:
            start, end = piece.start, piece.end
            chunks.append(
                Chunk(
                    page_number=page.number,
                    start=start,
                    end=end,
                    text=page.text[start:end],
                    rects=page.line_rects(start, end),
                    section=region.section,
                    section_path=region.section_path,
                    heading_path=(page.place, *region.headers),
                    header=region.headers[-1] if region.headers else "",
                    block_kinds=tuple(dict.fromkeys(region.kinds)),
                    used_ocr=page.used_ocr,
                    locator=piece.locator,
                    context=piece.context,
                )
            )
    return chunks


def table_pieces(text: str, cells: Sequence[Cell], max_chars: int) -> list[Piece]:
    """Spans of one table: runs of whole rows up to ``max_chars``; a longer row by cells, a longer cell by windows.

    ``cells`` are one table's non-empty cells in page-text order. Spans that start below the header rows get the
    header's text as context.
    """
    rows = [list(row) for _, row in itertools.groupby(cells, key=lambda c: c.row)]
    header = [c for c in cells if c.is_header]
    header_text = text[header[0].start : header[-1].end] if header else ""
    last_header_row = header[-1].row if header else 0
    out: list[Piece] = []
    group: list[Cell] = []
    for row in rows:
        if group and row[-1].end - group[0].start > max_chars:
            out.append(_piece(group, header_text, last_header_row))
            group = []
        if row[-1].end - row[0].start <= max_chars:
            group.extend(row)
            continue
        for part in _cell_runs(row, max_chars):
            if part[-1].end - part[0].start <= max_chars:
                out.append(_piece(part, header_text, last_header_row))
                continue
            cell = part[0]
            for s, e in windows(text, cell.start, cell.end, max_chars):
                out.append(_piece([cell], header_text, last_header_row, s, e))
    if group:
        out.append(_piece(group, header_text, last_header_row))
    return out


def _cell_runs(row: Sequence[Cell], max_chars: int) -> list[list[Cell]]:
    """Consecutive cells of a row grouped while they fit in ``max_chars`` (a cell too long alone stays alone)."""
    runs: list[list[Cell]] = []
    for cell in row:
        if runs and cell.end - runs[-1][0].start <= max_chars:
            runs[-1].append(cell)
        else:
            runs.append([cell])
    return runs


def _piece(
    cells: Sequence[Cell], header_text: str, last_header_row: int, start: int | None = None, end: int | None = None
) -> Piece:
    first, last = cells[0], cells[-1]
    locator: Locator = {
        "kind": "table_cell",
        "table": first.table,
        "row": first.row,
        "col": first.col,
        "row_end": max(c.row + c.row_span - 1 for c in cells),
        "col_end": max(c.col + c.col_span - 1 for c in cells),
    }
    context = header_text if first.row > last_header_row else ""
    return Piece(first.start if start is None else start, last.end if end is None else end, locator, context)


def _regions(page: Page, tracker: SectionTracker) -> Iterator[_Region]:
    current: _Region | None = None
    for block in page.blocks:
        alone = _region_alone(page, block, tracker)
        if alone is not None or not block.kind.is_body:
            if current is not None:
                yield current
            current = None
            if alone is not None:
                yield alone
            continue
        for piece in section_pieces(page, block):
            opened = _track(page, piece, tracker)
            text = page.text[piece.start : piece.end]
            title = piece.kind == BlockKind.HEADING or (opened and (is_title_only(text) or is_code_title(text)))
            finished, current = _extend(current, piece, tracker, title)
            if finished is not None:
                yield finished
    if current is not None:
        yield current


def _region_alone(page: Page, block: Block, tracker: SectionTracker) -> _Region | None:
    """A footnote, or a table with cells: a region of its own that joins nothing."""
    if block.kind == BlockKind.FOOTNOTE:
        note = _Region(block.start, block.end, tracker.section, tracker.section_path, tracker.headers)
        note.kinds.append(block.kind.value)
        return note
    if block.kind == BlockKind.TABLE:
        return _table_region(page, block, tracker)
    return None


def _extend(
    current: _Region | None, piece: Block, tracker: SectionTracker, title: bool
) -> tuple[_Region | None, _Region]:
    """Add a tracked body piece to the current region, or start a new one (returning the finished one); ``title``:
    the piece is a heading, or a line that opens a section and holds only its title."""
    key = (tracker.section, tracker.section_path, tracker.headers)
    finished = None
    if current is not None and (current.section, current.section_path, current.headers) == key:
        current.end = piece.end
    elif current is not None and current.headings_only and _may_join(current, tracker.section):
        current.end = piece.end
        current.section, current.section_path, current.headers = key
    else:
        finished = current
        current = _Region(piece.start, piece.end, *key)
    current.kinds.append(piece.kind.value)
    current.headings_only = current.headings_only and title
    current.title_line = current.title_line or (title and piece.kind != BlockKind.HEADING)
    return finished, current


def _may_join(titles: _Region, section: str | None) -> bool:
    """Whether a heading-only region joins text of ``section``: a heading always; a section's title line only its
    own section's text or a section below it."""
    if not titles.title_line:
        return True
    return titles.section is None or (section is not None and is_within(section, titles.section))


def _table_region(page: Page, block: Block, tracker: SectionTracker) -> _Region | None:
    """A table block with cells as a region of its own (it opens no section), or ``None`` when it has no cells."""
    cells = [c for c in page.cells if block.start <= c.start and c.end <= block.end]
    if not cells:
        return None
    region = _Region(block.start, block.end, tracker.section, tracker.section_path, tracker.headers, cells=cells)
    region.kinds.append(block.kind.value)
    region.headings_only = False
    return region


def _track(page: Page, block: Block, tracker: SectionTracker) -> bool:
    """Update ``tracker`` with a body piece; whether the piece opened a numbered section."""
    if block.kind == BlockKind.TABLE:
        return False  # a table cell reading "11.00" or "4.50" is an amount, not a section number
    text = page.text[block.start : block.end]
    marker = parse_marker(text, heading=block.kind == BlockKind.HEADING)
    run_in = tracker.mid_sentence
    end = text.rstrip()
    tracker.mid_sentence = OPEN_END.search(end) is not None or end[-1:].islower()
    if marker is not None and _cites(text, marker):
        tracker.body()  # ``§1.01(b), id., at 9.``, ``Section 6.03(b), which covers ...``: a citation in a sentence
    elif marker is not None and run_in and _runs_on(text, marker, tracker):
        tracker.body()  # ``... (1) that his attorney failed ..., and`` / ``(2) that he was prejudiced thereby.``
    elif marker is not None and not tracker.opens(marker):
        tracker.body()  # ``v. Hardin, 183 N.C. App. 92``: a case name, not item (v)
    elif marker is not None:
        tracker.open(marker, header_of(text, block.kind))
        return True
    elif block.kind == BlockKind.HEADING and not _CONTINUES.search(text.strip()) and not _is_notice(text):
        tracker.title(header_of(text, block.kind), block.level)
    else:
        tracker.body()
    return False


#: After a section id, what a citation in a sentence goes on with: a comma or a possessive, then a word in lower
#: case (``§1.01(b), id., at 9``, ``Section 6.03(b), which covers``, ``§5.05(b)(1)’s silence``).
_CITES = re.compile(r"(?:,|[’']s\b)[ \t]*[a-z]")


def _cites(text: str, marker: Marker) -> bool:
    """The section id a block starts with is cited by a sentence rather than opening the section."""
    if marker.kind not in ("section", "article"):
        return False
    ref = parse_heading_marker(text.lstrip())
    return ref is not None and _CITES.match(text.lstrip(), ref.end) is not None


#: Labels that start a list: ``(1)``, ``(a)``, ``(A)``, ``(i)``, ``(I)``.
_FIRST_LABELS = frozenset("1 a A i I".split())


def _runs_on(text: str, marker: Marker, tracker: SectionTracker) -> bool:
    """A paren item that continues the sentence before it rather than opening a section: the text before ended
    mid-sentence, the item starts in lower case, it is not a list's first label, and no list of its style is
    open (the list's ``(1)`` was inside that sentence)."""
    if marker.kind != "item" or marker.style != "paren" or marker.value in _FIRST_LABELS:
        return False
    rest = text.lstrip()[len(marker.value) + 2 :].lstrip()
    return rest[:1].islower() and not tracker.has_items(marker.style)


def _is_notice(text: str) -> bool:
    """Two sentences or more set as a heading (``CONFIDENTIAL MATERIALS OMITTED ... COMMISSION. ASTERISKS DENOTE
    OMISSIONS.``): a legend repeated on pages, which closes no section."""
    return len(_SENTENCE_STOP.findall(text)) >= 2


def header_of(text: str, kind: BlockKind) -> str:
    """The heading text a block gives its section: a whole heading, or a run-in heading's first sentence."""
    flat = _SPACES.sub(" ", text).strip()
    if kind == BlockKind.HEADING:
        return flat
    end = next(
        (m.end() for m in _SENTENCE_END.finditer(flat, 3) if not _is_abbreviation(flat, 0, m.start(), numbers=True)),
        None,
    )
    head = flat[:end] if end is not None and end <= HEADER_CHARS else flat
    if len(head) > HEADER_CHARS:
        cut = head.rfind(" ", 0, HEADER_CHARS)
        head = head[: cut if cut > 0 else HEADER_CHARS] + "…"
    return head


def windows(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` into whitespace-trimmed windows of at most ``max_chars`` characters.

    Cuts fall after a sentence end when one lies in reach, else at the last space, else hard at
    ``max_chars``. The windows are ordered, disjoint and cover every non-space character of the range.
    """
    out: list[tuple[int, int]] = []
    pos = _skip_space(text, start, end)
    while pos < end:
        limit = min(end, pos + max_chars)
        cut = end if limit == end else _best_cut(text, pos, limit)
        stop = cut
        while stop > pos and text[stop - 1].isspace():
            stop -= 1
        if stop > pos:
            out.append((pos, stop))
        pos = _skip_space(text, cut, end)
    return out


def _skip_space(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos].isspace():
        pos += 1
    return pos


def _best_cut(text: str, pos: int, limit: int) -> int:
    best = -1
    for m in _SENTENCE_END.finditer(text, pos, limit):
        if m.end() - pos >= max(1, (limit - pos) // 4) and not _is_abbreviation(text, pos, m.start()):
            best = m.end()
    if best > pos:
        return best
    space = max(text.rfind(" ", pos + 1, limit + 1), text.rfind("\n", pos + 1, limit + 1))
    return space if space > pos else limit


def _is_abbreviation(text: str, lo: int, dot: int, numbers: bool = False) -> bool:
    """The dot at ``dot`` ends an abbreviation or an initial (or, with ``numbers``, a section number)."""
    if text[dot] != ".":
        return False
    k = dot
    while k > lo and not text[k - 1].isspace():
        k -= 1
    word = text[k:dot].lower().strip("(\"'")
    if numbers and word.replace(".", "").isdigit():
        return True
    return word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())
