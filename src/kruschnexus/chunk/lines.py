"""Sections that open on a line inside a block: ``12. Holidays`` / ``12.1 The Executive shall ...`` read by the
layout as one block. :func:`section_pieces` cuts such a block where a line opens a numbered section, so that the
chunker tracks each part under its own section; the cuts are offsets into the page text, never a new text."""

from __future__ import annotations

import dataclasses
import itertools
import re

from kruschnexus.chunk.grammar import parse_heading_marker
from kruschnexus.chunk.sections import parse_marker
from kruschnexus.model import Block, BlockKind, Page

#: Words whose dot ends an abbreviation, not a sentence.
ABBREVIATIONS = frozenset(
    "sec secs no nos inc co corp ltd llc us u.s e.g i.e mr mrs ms dr st vs v art arts para cf et al seq".split()
)

#: A line inside a block, from its first non-blank character.
_LINE_START = re.compile(r"\n[ \t]*(?=\S)")
#: A line that ends a sentence or a clause (``.``, ``:``, ``;``, a closing quote or bracket after them).
_CLOSED_LINE = re.compile(r"[.:;][\"'”’)\]]*$")
#: After a section id that opens a line: a dot or bracket, then the line's end or a capital, quote or parenthesis.
_HEADING_TAIL = re.compile(r"[.)]?(?:[ \t]*(?:\n|$)|[ \t]+[A-Z\"“(])")
#: A line that ends in the middle of a sentence, whatever its length: a comma, a dash, a joining word.
_OPEN_END = re.compile(r"(?:[,\-–—]|\b(?:and|or|of|the|to|in|by|for|with|under|pursuant|per))$")
#: Initials: ``o.m.c``, ``u.s``, ``a``.
_INITIALS = re.compile(r"(?:[a-z]\.)*[a-z]")
#: A line at most this long that ends without punctuation is a heading (``12. Holidays``), if it is also at most
#: this share of the block's longest line (narrow columns wrap sentences into short lines).
SHORT_LINE = 60
SHORT_SHARE = 0.6


def section_pieces(page: Page, block: Block) -> list[Block]:
    """``block`` cut where a line inside it opens a numbered section (``12. Holidays`` / ``12.1 The Executive
    shall ...`` in one block), so that each part is tracked under its own section. A line opens one when it
    starts with a section id of the grammar (``12.1``, ``Section 4.2``, ``ARTICLE V``) followed by a capital, a
    quote, a parenthesis or the line's end, and the line before it ends a sentence or is short (a heading). A
    block of three pieces or more, most of which end without a sentence's end, is a list of headings (a table of
    contents) and stays whole. Pieces keep the block's kind and only their offsets differ, except a first piece
    that is one short numbered line (``12. Holidays``): it is a heading, and joins the span after it."""
    text = page.text[block.start : block.end]
    short = min(SHORT_LINE, int(SHORT_SHARE * max(len(line.strip()) for line in text.splitlines())))
    numbered = [
        (m.start(), m.end(), ref)
        for m in _LINE_START.finditer(text)
        if (ref := parse_heading_marker(text[m.end() : m.end() + 200])) is not None
    ]
    lines = [0, *(start for _, start, _ in numbered)]
    titles = sum(1 for a, b in itertools.pairwise([*lines, len(text)]) if not _CLOSED_LINE.search(text[a:b].strip()))
    if len(lines) >= 3 and 2 * titles > len(lines):
        return [block]  # a list of section titles
    cuts = [start for newline, start, ref in numbered if _opens_section(text, newline, start, ref.end, short)]
    if not cuts:
        return [block]
    parts = list(itertools.pairwise([0, *cuts, len(text)]))
    pieces = [
        dataclasses.replace(block, start=block.start + a, end=block.start + len(text[:b].rstrip())) for a, b in parts
    ]
    head = text[: parts[0][1]].strip()
    if "\n" not in head and len(head) <= SHORT_LINE and not _CLOSED_LINE.search(head) and parse_marker(head):
        pieces[0] = dataclasses.replace(pieces[0], kind=BlockKind.HEADING)  # ``12. Holidays``: joins what follows
    return pieces


def _ends_sentence(line: str) -> bool:
    """The line ends a sentence or a clause: ``.``, ``:`` or ``;``, but not the dot of ``O.M.C.`` or ``Inc.``."""
    if not _CLOSED_LINE.search(line):
        return False
    word = line.rsplit(None, 1)[-1].lower().strip("(\"'")
    return not ((word.endswith(".") and _INITIALS.fullmatch(word[:-1])) or word[:-1] in ABBREVIATIONS)


def _ends_clause_or_heading(line: str, short: int) -> bool:
    """A line after which a new section may begin: it ends a sentence, or it is short and ends without a dot."""
    if line.endswith("."):
        return _ends_sentence(line)
    return _ends_sentence(line) or len(line) <= short


def _opens_section(text: str, newline: int, start: int, id_end: int, short: int) -> bool:
    """The line at ``start`` (after the break at ``newline``), whose section id ends ``id_end`` characters into
    it, opens that section."""
    line_begin = text.rfind("\n", 0, newline) + 1
    previous = text[line_begin:newline].strip()
    if previous and (_OPEN_END.search(previous) or not _ends_clause_or_heading(previous, short)):
        return False
    if _HEADING_TAIL.match(text, start + id_end) is None:
        return False
    line_end = text.find("\n", start)
    alone = not text[start + id_end : len(text) if line_end < 0 else line_end].strip(" \t.)")
    return not (alone and text[start].isdigit())  # a bare number alone on its line (``99.5``) is a figure
