"""One page's glyphs -> a :class:`~kruschnexus.model.Page`: canonical text, lines and typed blocks.

The canonical text is built here and only here: body blocks in reading order, furniture at the top or the
bottom, margin line numbers and stamps last. Lines are joined by ``\\n`` and blocks by ``\\n\\n``; every
offset and every character box comes from this one concatenation.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from kruschnexus.layout.fragments import Fragment, split_fragments
from kruschnexus.layout.furniture import Furniture, classify
from kruschnexus.layout.order import reading_order
from kruschnexus.model import Block, BlockKind, Line, Page, Rect, union
from kruschnexus.parse.pdf import BAND, RawPage

#: Text smaller than this fraction of the body size, low on the page, is a footnote.
FOOTNOTE_SIZE = 0.85
_LIST_START = re.compile(r"^(?:\(?(?:[a-z]{1,3}|[A-Z]|\d{1,2})\)|[a-zA-Z]\.\s|\d{1,2}\.\s|[•·▪◦–-]\s)")
_ENDS_CLAUSE = re.compile(r"[.:;!?)\"”]\s*$")
_SECTION_START = re.compile(r"^(?:§|section\b|sec\.|article\b|\d+\.\d+)", re.IGNORECASE)


@dataclass
class _Group:
    kind: BlockKind | None
    frags: list[Fragment]


def build_page(raw: RawPage, furniture: Furniture) -> Page:
    """Lay out one page."""
    frags = split_fragments(raw.glyphs)
    body_frags = [f for f in frags if not f.is_stamp]
    stamp_frags = [f for f in frags if f.is_stamp]
    kinds = classify(body_frags, raw.geometry.height, BAND, furniture)
    body = [f for f, k in zip(body_frags, kinds, strict=True) if k is None]
    furniture_items = [(f, k) for f, k in zip(body_frags, kinds, strict=True) if k is not None]
    ordered = [body[i] for i in reading_order([f.rect for f in body])]
    size = _body_size(ordered)
    mid = raw.geometry.height / 2
    groups: list[_Group] = []
    groups += [_Group(k, [f]) for f, k in furniture_items if f.rect[1] < mid and k != BlockKind.LINE_NUMBER]
    groups += [_Group(_footnote(run, size, mid), run) for run in _blocks(ordered, size)]
    groups += [_Group(k, [f]) for f, k in furniture_items if f.rect[1] >= mid and k != BlockKind.LINE_NUMBER]
    groups += [_Group(k, [f]) for f, k in furniture_items if k == BlockKind.LINE_NUMBER]
    groups += [_Group(BlockKind.STAMP, [f]) for f in stamp_frags]
    page = Page(
        number=raw.number,
        width=raw.geometry.width,
        height=raw.geometry.height,
        rotation=raw.geometry.rotation,
        text="",
        char_rects=[],
        label=raw.label,
        needs_ocr=not body and not furniture_items,
    )
    _assemble(page, groups, size)
    return page


def _body_size(frags: Sequence[Fragment]) -> float:
    sizes = [f.size for f in frags for _ in range(max(1, len(f.text) // 20))]
    return statistics.median(sizes) if sizes else 10.0


def _blocks(ordered: Sequence[Fragment], size: float) -> list[list[Fragment]]:
    runs: list[list[Fragment]] = []
    for frag in ordered:
        if runs and _continues(runs[-1][-1], frag, size):
            runs[-1].append(frag)
        else:
            runs.append([frag])
    return runs


def _continues(prev: Fragment, cur: Fragment, size: float) -> bool:
    height = max(prev.rect[3] - prev.rect[1], 1.0)
    gap = cur.rect[1] - prev.rect[3]
    if gap < -0.5 * height or gap > 0.6 * height:
        return False
    if cur.rect[0] >= prev.rect[2] or cur.rect[2] <= prev.rect[0]:
        return False
    if prev.bold != cur.bold or abs(prev.size - cur.size) > 0.15 * max(prev.size, cur.size):
        return False
    text = cur.text.lstrip()
    if (_LIST_START.match(text) or _SECTION_START.match(text)) and _ENDS_CLAUSE.search(prev.text):
        return False
    return _looks_like_heading(prev, size) == _looks_like_heading(cur, size)


def _looks_like_heading(frag: Fragment, size: float) -> bool:
    text = frag.text.strip()
    letters = [c for c in text if c.isalpha()]
    caps = len(letters) >= 3 and all(c.isupper() for c in letters)
    return len(text) <= 120 and (frag.bold or frag.size > 1.15 * size or caps)


def _footnote(run: Sequence[Fragment], size: float, mid: float) -> BlockKind | None:
    """Small print in the lower half of the page is a footnote; anything else is typed later."""
    small = all(f.size < FOOTNOTE_SIZE * size for f in run)
    return BlockKind.FOOTNOTE if small and run[0].rect[1] > mid else None


def _body_kind(frags: Sequence[Fragment], size: float) -> BlockKind:
    text = " ".join(f.text.strip() for f in frags)
    if len(frags) <= 3 and len(text) <= 200 and all(_looks_like_heading(f, size) for f in frags):
        return BlockKind.HEADING
    if _LIST_START.match(text):
        return BlockKind.LIST_ITEM
    return BlockKind.PARAGRAPH


def _assemble(page: Page, groups: Sequence[_Group], size: float) -> None:
    parts: list[str] = []
    rects: list[Rect | None] = []
    offset = 0
    for group in groups:
        if parts:
            parts.append("\n\n")
            rects.extend([None, None])
            offset += 2
        first_line = len(page.lines)
        block_start = offset
        for k, frag in enumerate(group.frags):
            if k:
                parts.append("\n")
                rects.append(None)
                offset += 1
            parts.append(frag.text)
            rects.extend(frag.rects)
            page.lines.append(Line(offset, offset + len(frag.text), frag.rect))
            offset += len(frag.text)
        kind = group.kind if group.kind is not None else _body_kind(group.frags, size)
        box = union(f.rect for f in group.frags)
        assert box is not None
        page.blocks.append(
            Block(
                kind=kind,
                start=block_start,
                end=offset,
                first_line=first_line,
                last_line=len(page.lines) - 1,
                rect=box,
                is_bold=all(f.bold for f in group.frags),
                size=statistics.median(f.size for f in group.frags),
            )
        )
    page.text = "".join(parts)
    page.char_rects = rects
