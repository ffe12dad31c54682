"""Sections that open on a line inside a block: ``12. Holidays`` / ``12.1 The Executive shall ...`` read by the
layout as one block. :func:`section_pieces` cuts such a block where a line opens a numbered section, so that the
chunker tracks each part under its own section; the cuts are offsets into the page text, never a new text.

A wide gap inside a line (three spaces or more) is read as a line break: text saved from a PDF (the CUAD and
LegalBench-RAG contract texts, EDGAR ``.txt`` exhibits) keeps a whole page or section run on one line, with the
PDF's line and paragraph breaks turned into runs of spaces (``... the Documentation.     2.2 Rubicon hereby
grants ...``). A PDF's own text layer never has such gaps (the extractor writes one space between words). Some
such texts keep a single space (``... on reasonable notice. 12. Holidays 12.1 The Executive shall ...``): in a line
longer than :data:`LONG_LINE` (a paragraph, never a printed line), every sentence starts a line, and so does a
section id after a numbered title (``12. Holidays``)."""

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

#: A line inside a block, from its first non-blank character: after a line break, or after a wide gap.
_LINE_START = re.compile(r"(?:\n|(?<![ \t])[ \t]{3})[ \t]*+(?=\S)")
#: A line longer than this is a paragraph kept on one line: its sentences are read as lines.
LONG_LINE = 200
#: The white space after a sentence's end (``.``, ``;``, ``:``, a closing quote or bracket after them).
_SENTENCE_GAP = re.compile(r"[.;:][\"'”’)\]]*([ \t]+)(?=\S)")
#: A section number alone: ``12.``, ``IV.``, ``(b)``.
_BARE_NUMBER = re.compile(r"\(?(?:\d{1,3}(?:\.\d{1,3})*|[IVXLC]{1,5}|[ivxlc]{1,5}|[A-Za-z])[.)]")
#: A plain number opening a sentence, before a capital: ``21. Post``.
_PLAIN_NUMBER = re.compile(r"\d{1,3}\.(?=[ \t]+[A-Z])")
#: A numbered title run into the section id after it: ``12. Holidays 12.1``, ``ARTICLE 5 CONFIDENTIALITY 5.1``
#: (group 1 is the space before the id).
_TITLE_RUN = re.compile(
    r"(?:\d{1,3}\.|(?:ARTICLE|Article|SECTION|Section)[ \t]+[\dIVXLC]{1,5}\.?)"
    r"(?:[ \t]+(?:[A-Z][\w'’&/,-]*|and|of|the|to|for|in|on|or|&)){1,8}([ \t]+)(?=\d{1,3}\.\d)"
)
#: Words after which a number is a reference, not a new section (``4. Paragraph 2.1 Term of Lease is amended``).
_REFERS = frozenset(
    "section sections sec article articles art clause clauses paragraph paragraphs para exhibit "
    "schedule annex appendix part chapter title rule §".split()
)
#: A line that ends a sentence or a clause (``.``, ``:``, ``;``, a closing quote or bracket after them).
_CLOSED_LINE = re.compile(r"[.:;][\"'”’)\]]*$")
#: After a section id that opens a line: a dot or bracket, then the line's end or a capital, quote or parenthesis.
_HEADING_TAIL = re.compile(r"[.)]?(?:[ \t]*(?:\n|$)|[ \t]+[A-Z\"“(])")
#: A line that ends in the middle of a sentence, whatever its length: a comma, a dash, a joining word.
OPEN_END = re.compile(r"(?:[,\-–—]|\b(?:and|or|of|the|to|in|by|for|with|under|pursuant|per))$")
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
    contents) and stays whole. Pieces keep the block's kind and only their offsets differ, except a piece that is
    one short numbered line and only a title (``12. Holidays``, ``4.2 Rubicon Fees.``): it is a heading, and joins
    the span after it."""
    text = page.text[block.start : block.end]
    breaks = _breaks(text)
    lines = [0, *(start for _, start, _ in breaks)]
    ends = [*(gap for gap, _, _ in breaks), len(text)]
    sentences = {index for index, (_, _, sentence) in enumerate(breaks, 1) if sentence}
    short = min(SHORT_LINE, int(SHORT_SHARE * max(len(text[a:b].strip()) for a, b in zip(lines, ends, strict=True))))
    numbered = [
        (index, id_end)
        for index in range(1, len(lines))
        if (id_end := _opens_with_id(text, lines, ends, index, index in sentences)) != 0
    ]
    heads = [0, *(lines[index] for index, _ in numbered)]
    titles = sum(1 for a, b in itertools.pairwise([*heads, len(text)]) if not _CLOSED_LINE.search(text[a:b].strip()))
    if len(heads) >= 3 and 2 * titles > len(heads):
        return [block]  # a list of section titles
    cuts = [
        lines[i]
        for i, id_end in numbered
        if _opens_section(text, lines[i - 1 : i + 1], ends[i - 1 : i + 1], id_end, short)
    ]
    if not cuts:
        return [block]
    parts = [(a, b) for a, b in itertools.pairwise([0, *cuts, len(text)]) if text[a:b].strip()]
    pieces = [
        dataclasses.replace(block, start=block.start + a, end=block.start + a + len(text[a:b].rstrip()))
        for a, b in parts
    ]
    for index, (a, b) in enumerate(parts[:-1]):  # a title joins the piece after it, never the next block
        if _is_numbered_title(text[a:b].strip(), first=index == 0):
            pieces[index] = dataclasses.replace(pieces[index], kind=BlockKind.HEADING)
    return pieces


def _breaks(text: str) -> list[tuple[int, int, bool]]:
    """Where lines start inside a block: ``(end of the line before, start of the line, a sentence's start)``, in
    order. A line break or a wide gap starts one; inside a line longer than :data:`LONG_LINE`, so does every
    sentence, and a section id after a numbered title."""
    out: list[tuple[int, int, bool]] = []
    begin = 0
    for m in [*_LINE_START.finditer(text), None]:
        gap, start = (m.start(), m.end()) if m is not None else (len(text), len(text))
        if gap - begin > LONG_LINE:
            out.extend(_sentence_breaks(text, begin, gap))
        if m is not None:
            out.append((gap, start, False))
        begin = start
    return out


def _sentence_breaks(text: str, lo: int, hi: int) -> list[tuple[int, int, bool]]:
    """Sentence starts inside the long line ``text[lo:hi]``, and section ids run in after a numbered title."""
    found: list[tuple[int, int, bool]] = []
    for gap in _SENTENCE_GAP.finditer(text, lo, hi):
        if not _BARE_NUMBER.fullmatch(text, found[-1][1] if found else lo, gap.start(1)):  # ``12.`` of ``12. Holidays``
            found.append((gap.start(1), gap.end(1), True))
    titled = [
        (run.start(1), run.end(1), False)
        for start in [lo, *(b for _, b, _ in found)]
        if (run := _TITLE_RUN.match(text, start, hi)) and text[start : run.start(1)].split()[-1].lower() not in _REFERS
    ]
    return sorted(found + titled)


def _opens_with_id(text: str, lines: list[int], ends: list[int], index: int, sentence: bool) -> int:
    """How far into line ``index`` its section id reaches: ``0`` when it opens with none, :data:`TITLE_LINE` when
    the line is only a numbered title (``6. TERM AND TERMINATION.``: nothing needs to follow it). A sentence of a
    long line may also open with a plain number (``21. Post Termination Restrictions During the term ...``)."""
    start = lines[index]
    if (ref := parse_heading_marker(text[start : start + 200])) is not None:
        return ref.end
    if sentence and (plain := _PLAIN_NUMBER.match(text, start)):
        return plain.end() - start
    line = text[start : ends[index]].strip()
    numbers = (marker := parse_marker(line)) is not None and marker.kind == "number"  # ``S. Shiraishi`` is a name
    return TITLE_LINE if numbers and _is_numbered_title(line, first=False) else 0


#: What :func:`_opens_with_id` answers for a line that is a numbered title.
TITLE_LINE = -1


def _is_numbered_title(piece: str, first: bool) -> bool:
    """``piece`` is one short line that numbers a section and only names it: ``12. Holidays``, ``4.2 Rubicon
    Fees.``, ``5. INTELLECTUAL PROPERTY.`` (every word after the id capitalised, or a joining word), not ``1.11
    Parties shall mean ISA and Rubicon.``. The first piece of a block may be any short numbered line that does not
    end a sentence (the block's own heading line)."""
    if len(piece) > SHORT_LINE or _LINE_START.search(piece) is not None or (marker := parse_marker(piece)) is None:
        return False
    if first and not _CLOSED_LINE.search(piece):
        return True
    ref = parse_heading_marker(piece)
    words = piece[ref.end if ref is not None else 0 :].strip(" .)").split()
    if marker.kind == "number":
        words = words[1:]
    return bool(words) and all(w[0].isupper() or w.lower() in _JOINING for w in words) and piece.count(". ") <= 1


#: Small words a title keeps in lower case.
_JOINING = frozenset("a an and as at by for from in of on or the to with".split())


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


def _opens_section(text: str, starts: list[int], ends: list[int], id_end: int, short: int) -> bool:
    """The line ``text[starts[1]:ends[1]]``, whose section id ends ``id_end`` characters into it, opens that
    section; ``text[starts[0]:ends[0]]`` is the line before it."""
    previous = text[starts[0] : ends[0]].strip()
    if previous and (OPEN_END.search(previous) or not _ends_clause_or_heading(previous, short)):
        return False
    start = starts[1]
    if id_end == TITLE_LINE:
        return True
    if _HEADING_TAIL.match(text, start + id_end) is None:
        return False
    alone = not text[start + id_end : ends[1]].strip(" \t.)")
    return not (alone and text[start].isdigit())  # a bare number alone on its line (``99.5``) is a figure
