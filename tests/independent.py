"""An independent reader for provenance tests: pdfminer.six, not pdfium.

Given a page and a span's boxes, it lists the characters pdfminer finds printed inside those boxes, so
tests can check that they are exactly the span's text without trusting the extractor that made the span.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pdfminer.high_level import extract_pages
from pdfminer.layout import LAParams, LTChar, LTComponent, LTPage

_HYPHENS = str.maketrans({"\u00ad": "-", "\u2010": "-", "\u2011": "-", "\ufffe": "-", "\u0002": "-"})
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class PrintedChar:
    """One glyph pdfminer found: its text and centre in display space (top-left origin, points)."""

    text: str
    cx: float
    cy: float
    x0: float


def canonical(text: str) -> str:
    """Text compared between extractors: NFKC, hyphen variants folded, whitespace removed."""
    return _SPACE.sub("", unicodedata.normalize("NFKC", text.translate(_HYPHENS)))


def _walk(item: LTComponent) -> Iterator[LTChar]:
    if isinstance(item, LTChar):
        yield item
        return
    for child in getattr(item, "_objs", []) or []:
        yield from _walk(child)


def _is_body_glyph(ch: LTChar, median_height: float) -> bool:
    a, b, c, d = ch.matrix[:4]
    upright = abs(b) < 1e-3 and abs(c) < 1e-3 and a > 0 and d > 0
    return upright and ch.height <= 3.0 * median_height


def page_chars(path: Path, page_numbers: Sequence[int] | None = None) -> dict[int, list[PrintedChar]]:
    """Printed upright, non-giant characters per 1-based page (a watermark's glyphs are left out)."""
    wanted = None if page_numbers is None else [n - 1 for n in page_numbers]
    out: dict[int, list[PrintedChar]] = {}
    pages = extract_pages(str(path), page_numbers=wanted, laparams=LAParams(all_texts=True))
    for index, page in zip(wanted if wanted is not None else range(10**9), pages, strict=False):
        out[index + 1] = _chars_of(page)
    return out


def _chars_of(page: LTPage) -> list[PrintedChar]:
    chars = [c for c in _walk(page) if c.get_text().strip()]
    heights = sorted(c.height for c in chars) or [10.0]
    median = heights[len(heights) // 2]
    top = page.y1
    return [
        PrintedChar(c.get_text(), (c.x0 + c.x1) / 2, top - (c.y0 + c.y1) / 2, c.x0)
        for c in chars
        if _is_body_glyph(c, median)
    ]


def text_in_boxes(chars: Sequence[PrintedChar], boxes: Sequence[Sequence[float]], slack: float = 0.5) -> str:
    """Characters whose centres fall inside the boxes ``[x, y, w, h]``: box by box, left to right."""
    taken: set[int] = set()
    parts: list[str] = []
    for x, y, w, h in boxes:
        inside = [
            (c.x0, i)
            for i, c in enumerate(chars)
            if i not in taken and x - slack <= c.cx <= x + w + slack and y - slack <= c.cy <= y + h + slack
        ]
        for _, i in sorted(inside):
            taken.add(i)
            parts.append(chars[i].text)
    return "".join(parts)
