"""Blocks -> spans. Spans are composed from block offsets; text is never searched again.

A region is a run of consecutive body blocks of one page that belong to one section (a heading-only
region joins the region after it). A region longer than ``max_chars`` is cut into windows at sentence
ends (else at a space). Non-body blocks (headers, footers, page numbers, stamps, line numbers) end a
region and never fall inside one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from kruschnexus.chunk.sections import SectionTracker, parse_marker
from kruschnexus.model import Block, BlockKind, Chunk, Page

_SENTENCE_END = re.compile(r"[.!?;:][\"'”’)\]]*(?=\s+[\"'“(\[A-Z0-9§])")
_ABBREVIATIONS = frozenset(
    "sec secs no nos inc co corp ltd llc us u.s e.g i.e mr mrs ms dr st vs v art arts para cf et al seq".split()
)
_SPACES = re.compile(r"\s+")
HEADER_CHARS = 100


@dataclass
class _Region:
    start: int
    end: int
    section: str | None
    section_path: tuple[str, ...]
    headers: tuple[str, ...]
    kinds: list[str] = field(default_factory=list)
    headings_only: bool = True


def chunk_page(page: Page, tracker: SectionTracker, max_chars: int) -> list[Chunk]:
    """Spans of one page. ``tracker`` carries open sections from earlier pages and is updated."""
    chunks: list[Chunk] = []
    for region in _regions(page, tracker):
        for start, end in windows(page.text, region.start, region.end, max_chars):
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
                    locator=page.locator,
                )
            )
    return chunks


def _regions(page: Page, tracker: SectionTracker) -> Iterator[_Region]:
    current: _Region | None = None
    for block in page.blocks:
        if not block.kind.is_body:
            if current is not None:
                yield current
            current = None
            continue
        if block.kind == BlockKind.FOOTNOTE:
            if current is not None:
                yield current
            current = None
            note = _Region(block.start, block.end, tracker.section, tracker.section_path, tracker.headers)
            note.kinds.append(block.kind.value)
            yield note
            continue
        _track(page, block, tracker)
        key = (tracker.section, tracker.section_path, tracker.headers)
        is_heading = block.kind == BlockKind.HEADING
        if current is not None and (current.section, current.section_path, current.headers) == key:
            current.end = block.end
        elif current is not None and current.headings_only:
            current.end = block.end
            current.section, current.section_path, current.headers = key
        else:
            if current is not None:
                yield current
            current = _Region(block.start, block.end, *key)
        current.kinds.append(block.kind.value)
        current.headings_only = current.headings_only and is_heading
    if current is not None:
        yield current


def _track(page: Page, block: Block, tracker: SectionTracker) -> None:
    text = page.text[block.start : block.end]
    marker = parse_marker(text)
    if marker is not None:
        tracker.open(marker, header_of(text, block.kind))
    elif block.kind == BlockKind.HEADING:
        tracker.title(header_of(text, block.kind), block.level)


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
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())
