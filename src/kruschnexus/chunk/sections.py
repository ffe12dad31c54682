"""Legal section structure: markers at the start of blocks -> normalized ids, a section tree, heading paths.

Recognized markers (at the start of a block): the section ids of :mod:`kruschnexus.chunk.grammar`
(:func:`~kruschnexus.chunk.grammar.parse_heading_marker`: ``Section 8.22``, ``SECTION 8.22``, ``Sec. 8.22``,
``§ 8.22.030(C)``, ``8.22.030``, ``1.2.3``, ``7.1(a)``, ``Chapter 8.22``, ``Article IV``, ``ARTICLE 5``, and in
heading form ``EXHIBIT C``, ``Schedule 2.01 - Commitments``, ``PART II``, ``Clause 14.2 Termination``,
``PARAGRAPH 13. DAMAGE``), ``1.`` (a top-level number), and sub-items ``(a)``, ``(iv)``, ``A.``, ``1.``, ``a.``,
``i.``. A sub-item's id is its parent's id with ``(x)`` appended, so ``C.`` under ``8.22.030`` is
``8.22.030(C)``, a child of ``8.22.030``.

Two readings depend on what is open. ``I.``, ``II.`` (capital roman numerals with a dot, not a letter run ``H.``
then ``I.``) are the parts of an opinion or a schedule (``I. Background``, ``II. Analysis``): a part is
``Part I``, as the text cites it and as ``PART I`` is read (``Exhibit B(I)`` inside a division), and the
numbered paragraphs and sections that follow nest inside it until the next part. A small roman numeral with
a dot (``v.``, ``ii.``) opens an item only as the first of its list (``i.``) or the next one (``iv.`` then
``v.``): ``v. Hardin, 183 N.C. App. 92`` is a case name, not an item.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kruschnexus.chunk.grammar import DIVISION_KINDS, is_within, parse_heading_marker

__all__ = ["Marker", "SectionTracker", "is_within", "item_type", "parse_marker"]

# ``1. Definitions``, and ``17.Other Sales`` (no space after the dot, common in converted filings).
# A number alone (``2.``: its text in the next block) numbers a section too, and so does ``3) Text``.
_TOP_NUMBER = re.compile(r"^(\d{1,3})(?:\.(?:\s+(?=[A-Z])|(?=[A-Z][a-z])|\s*$)|\)\s+(?=[A-Z]))")
# In a heading block only: ``22 JURISDICTION AND CHOICE OF LAW``, ``4 Termination`` (no dot after the number).
_HEADING_NUMBER = re.compile(r"^(\d{1,3})[ \t]+(?=[A-Z])")
# ``(a) text``, ``(A)Upon`` (a capital word right after), and ``b) text`` (no opening parenthesis; ``3) Text`` is a
# top-level number, see above).
# ``(e). Memberships`` too (a dot after the parenthesis).
_PAREN_ITEM = re.compile(
    r"^\(([a-z]{1,4}|[A-Z]{1,3}|\d{1,3})\)\.?(?=\s|$|[A-Z][a-z])|^([a-z]{1,2}|[ivx]{1,5})\)(?=\s+\S)"
)
# ``a. text`` and ``d.Notwithstanding`` (a capital word right after the dot).
_DOT_ITEM = re.compile(r"^([a-z]{1,2}|[ivxl]{1,6}|[A-Z]{1,2}|[IVXL]{1,6}|\d{1,3})\.(?:\s|(?=[A-Z][a-z]))")
_ROMAN = re.compile(r"^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
# A part's numeral or a subpart's letter alone on the block's first line, before a line that starts with a capital,
# as the Supreme Court sets its opinions (``II`` centred, then ``A``, then the text); not a block of its own (a
# pricing grid's ``III`` before its figures).
_LONE_LABEL = re.compile(r"^([IVXL]{1,6}|[A-Z])[ \t]*\n[ \t]*(?=[A-Z])")


@dataclass(frozen=True)
class Marker:
    """A section marker found at the start of a block.

    Attributes:
        kind: ``article`` (a top-level division: ``Article IV``, ``Exhibit C``, ``Schedule 2.01``, ``Part II``),
            ``section`` (a numbered id such as ``8.22.030``), ``number`` (a top-level ``1.``) or ``item`` (a
            sub-item such as ``(a)`` or ``C.``).
        value: the id for articles and sections, the label for items (``a``, ``iv``, ``C``, ``3``).
        extra: parenthesised sub-items written after the id, e.g. ``("a", "iv")`` for ``7.1(a)(iv)``.
        style: how an item's label is written: ``paren`` (``(a)``) or ``dot`` (``a.``). Items of one style are one
            level of a list and items of the other style another, even when both use letters (``(e)`` then
            ``i.`` then ``a.`` nest three deep).
    """

    kind: str
    value: str
    extra: tuple[str, ...] = ()
    style: str = ""


def parse_marker(text: str, heading: bool = False) -> Marker | None:
    """The section marker at the start of ``text``, if any (``heading``: the text is a whole heading block, where
    a bare number before a capital, ``22 JURISDICTION``, numbers a section)."""
    text = text.lstrip()
    if ref := parse_heading_marker(text):
        return Marker("article" if ref.kind in DIVISION_KINDS else "section", ref.base, ref.items)
    if (m := _TOP_NUMBER.match(text)) or (heading and (m := _HEADING_NUMBER.match(text))):
        return Marker("number", m.group(1))
    if m := _PAREN_ITEM.match(text):
        return Marker("item", m.group(1) or m.group(2), style="paren")
    if m := _DOT_ITEM.match(text):
        return Marker("item", m.group(1), style="dot")
    if (m := _LONE_LABEL.match(text)) and (len(m.group(1)) == 1 or _ROMAN.match(m.group(1).lower())):
        return Marker("item", m.group(1), style="lone")
    return None


def item_type(label: str, previous: str | None) -> str:
    """``lower``, ``upper``, ``roman``, ``upper_roman`` or ``digit`` for a sub-item label.

    ``i``, ``v`` and ``x`` are letters when they follow the letter before them (``(h)`` then ``(i)``) and
    roman numerals otherwise.
    """
    if label.isdigit():
        return "digit"
    is_lower = label.islower()
    roman = _ROMAN.match(label.lower()) is not None
    if roman and previous is not None and len(label) == 1 and len(previous) == 1:
        if ord(previous.lower()) + 1 == ord(label.lower()):
            return "lower" if is_lower else "upper"
    if roman and (len(label) > 1 or label.lower() in "ivx"):
        return "roman" if is_lower else "upper_roman"
    return "lower" if is_lower else "upper"


def _case(label: str) -> str:
    return "digit" if label.isdigit() else "lower" if label.islower() else "upper"


_ROMAN_DIGITS = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


def _roman_value(numeral: str) -> int:
    """``iv`` -> 4 (a numeral :data:`_ROMAN` accepts)."""
    values = [_ROMAN_DIGITS[c] for c in numeral.lower()]
    return sum(-v if v < after else v for v, after in zip(values, [*values[1:], 0], strict=True))


@dataclass
class _Entry:
    kind: str  # title | article | caption | part | section | number | item
    id: str | None
    header: str
    item_type: str = ""
    label: str = ""
    level: int = 0


#: How far past the open section's first part a plain number may jump and still be read as the next top level.
SKIPPED_CHAPTERS = 3


class SectionTracker:
    """Walks a document's blocks in order and keeps the open sections (across pages)."""

    def __init__(self) -> None:
        self._stack: list[_Entry] = []
        #: A division (article, exhibit, schedule, ...) was opened and no body text has followed yet.
        self._captioning = False
        #: The last block's text (body or heading) ended in the middle of a sentence (the chunker keeps this up
        #: to date).
        self.mid_sentence = False

    @property
    def section(self) -> str | None:
        """The innermost open section id."""
        for entry in reversed(self._stack):
            if entry.id is not None:
                return entry.id
        return None

    @property
    def section_path(self) -> tuple[str, ...]:
        """Ids of the open sections, outermost first."""
        return tuple(e.id for e in self._stack if e.id is not None)

    @property
    def headers(self) -> tuple[str, ...]:
        """Headings of the open sections, outermost first."""
        return tuple(e.header for e in self._stack)

    def title(self, header: str, level: int = 0) -> None:
        """An unnumbered heading: closes every open section and becomes the outermost heading.

        A heading with a stated outline level (``level`` > 0, e.g. DOCX ``Heading 2``) keeps the open titles of
        lower levels above it instead. Headings right after a division marker, before any body text, are the
        division's caption (``EXHIBIT A`` then ``LEGAL DESCRIPTION``): they keep the division open.
        """
        if self._captioning:
            if self._stack[-1].kind == "caption":
                self._stack.pop()
            self._stack.append(_Entry("caption", None, header))
            return
        kept = [e for e in self._stack if e.kind == "title" and 0 < e.level < level] if level > 0 else []
        self._stack = [*kept, _Entry("title", None, header, level=level)]

    def has_items(self, style: str) -> bool:
        """A list whose items are written in ``style`` (``paren``: ``(a)``; ``dot``: ``a.``) is open."""
        return any(e.kind == "item" and e.item_type.endswith(f"/{style}") for e in self._stack)

    def body(self) -> None:
        """A block of body text that opens nothing (it ends a division's caption)."""
        self._captioning = False

    def open(self, marker: Marker, header: str) -> None:
        """Open the section a marker starts."""
        self._captioning = marker.kind == "article" and not marker.extra
        if marker.kind == "article":
            self._stack = [e for e in self._stack if e.kind == "title"]
            self._stack.append(_Entry("article", marker.value, header))
            for label in marker.extra:
                self._open_item(label, header)
        elif marker.kind == "section":
            self._open_section(marker.value, header)
            for label in marker.extra:
                self._open_item(label, header)
        elif marker.kind == "number":
            self._open_number(marker.value, header)
        elif marker.style in ("dot", "lone") and self._item_type(marker.value, "dot") == "upper_roman":
            self._open_part(marker.value, header)
        elif marker.style == "lone":
            self._open_item(marker.value, header, "dot")
        else:
            self._open_item(marker.value, header, marker.style)

    def opens(self, marker: Marker) -> bool:
        """Whether ``marker`` opens a section here: a small roman numeral with a dot (``v.``) does only as the
        first of its list or the next one, else it is a word (``v. Hardin``) and the block is body text. A lone
        capital letter on its line (``A``) is a subpart only inside a part (``II``, then ``A``)."""
        if marker.style == "lone":
            upper_roman = self._item_type(marker.value, "dot") == "upper_roman"
            return upper_roman or any(e.kind == "part" for e in self._stack)
        if marker.kind != "item" or marker.style != "dot" or self._item_type(marker.value, "dot") != "roman":
            return True
        if marker.value == "i":
            return True
        items = [e for e in self._stack if e.kind == "item" and e.item_type == "roman/dot"]
        return bool(items) and _roman_value(items[-1].label) + 1 == _roman_value(marker.value)

    def _item_type(self, label: str, style: str) -> str:
        """``label``'s type, against the open item of its style and letter case (``I.`` after ``H.``, ``1.``,
        ``2.`` follows ``H.``: a letter, not a roman numeral)."""
        items = [
            e
            for e in self._stack
            if e.kind == "item" and e.item_type.endswith(f"/{style}") and _case(e.label) == _case(label)
        ]
        return item_type(label, items[-1].label if items else None)

    def _open_part(self, label: str, header: str) -> None:
        """``II. Analysis``: closes the open part and everything in it, keeps titles and the open division."""
        self._stack = [e for e in self._stack if e.kind in ("title", "article", "caption")]
        division = next((e.id for e in reversed(self._stack) if e.kind == "article"), None)
        self._stack.append(_Entry("part", f"{division}({label})" if division else f"Part {label}", header))

    def _open_section(self, sid: str, header: str, kind: str = "section") -> None:
        while self._stack and self._stack[-1].kind in ("section", "number", "item"):
            top = self._stack[-1]
            if top.kind != "item" and top.id is not None and is_within(sid, top.id) and sid != top.id:
                break
            self._stack.pop()
        self._stack.append(_Entry(kind, sid, header))

    def _open_number(self, value: str, header: str) -> None:
        numbered = any(e.kind == "number" for e in self._stack)
        if not numbered and any(e.kind == "section" for e in self._stack) and not self._next_chapter(value):
            self._open_item(value, header, "dot")
            return
        self._open_section(value, header, kind="number")

    def _next_chapter(self, value: str) -> bool:
        """``4.`` after ``2.2`` (its ``3.`` missed, run into the text before it): the next top-level number
        rather than an item of ``2.2``, when no ``1.``-style list is open under the section and the number comes
        at most :data:`SKIPPED_CHAPTERS` after the section's first part."""
        if any(e.kind == "item" and e.item_type.endswith("/dot") for e in self._stack):
            return False
        current = next((e.id for e in reversed(self._stack) if e.kind == "section" and e.id), None)
        head = current.split(".", 1)[0] if current and "." in current else ""
        if not (head.isdigit() and value.isdigit()):
            return False
        return int(head) < int(value) <= int(head) + SKIPPED_CHAPTERS

    def _open_item(self, label: str, header: str, style: str = "paren") -> None:
        kind = f"{self._item_type(label, style)}/{style}"
        siblings = [i for i, e in enumerate(self._stack) if e.kind == "item" and e.item_type == kind]
        if siblings:
            del self._stack[siblings[-1] :]
        parent = self.section
        sid = f"{parent}({label})" if parent else f"({label})"
        self._stack.append(_Entry("item", sid, header, kind, label))
