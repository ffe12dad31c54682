"""The one grammar of section references, shared by the chunker (documents) and the query parser (questions).

Forms. Keywords in any letter case (``Section``, ``SECTION``, ``section``); a plural keyword (``Sections``,
``§§``, ``Articles``) may list ids (``Sections 8.22 and 8.24``, ``§§ 3, 4``):

=====================================================  ===================  =====================================
written                                                kind                 id (as the chunker stores it)
=====================================================  ===================  =====================================
``Section 8.22.030(C)``, ``Sec. 5A``, ``§ 2.01a``       section              ``8.22.030(C)``, ``5A``, ``2.01a``
``Paragraph 30``, ``para. 30``, ``¶ 30``                paragraph            ``30``
``paragraph (g)``, ``paragraph (h)(2)``                 paragraph            ``(g)``, ``(h)(2)``: an item under
                                                                             any section (see Matching)
``clause 14.2(b)``                                      clause               ``14.2(b)``
``Chapter 8.22``                                        chapter              ``8.22``
``Article IV``, ``art. iv``, ``ARTICLE 7(b)``           article              ``Article IV``, ``Article 7(b)``
``Title 8``, ``Part II``                                title, part          ``Title 8``, ``Part II``
``Exhibit C-2``, ``Schedule 1.1(a)``, ``Annex A``       exhibit, schedule,   ``Exhibit C-2``, ``Schedule 1.1(a)``,
``Appendix B``                                          annex, appendix      ``Annex A``, ``Appendix B``
``O.M.C. 1.2.345(B)``, ``OMC 8.22.030``,                section              ``1.2.345(B)``, ``8.22.030``,
``Municipal Code 1.2.340``, ``Code Section 12.04``                           ``1.2.340``, ``12.04``
=====================================================  ===================  =====================================

Ids: numbers dotted (``8.22.030``) with at most one trailing letter (``5A``, ``2.01a``) and parenthesised
sub-items (``7.1(a)(iv)``); roman numerals for articles, titles and parts (upper case any size, lower case
``ii`` to ``lxxxix``: a lone lower-case ``i`` is the pronoun); for exhibits, schedules, annexes and appendices
one letter or a doubled one (``AA``), upper case in text (``exhibit a`` in a sentence is the verb), with a number
or letter after a dash (``C-2``, ``A-B``). A code prefix belongs to the reference's span, not its id: a dotted
acronym ending in C (``O.M.C.``) or ``[Word] Code`` needs a dotted number or a section keyword after it, an
undotted one (``OMC``) a number with two dots (``8.22.030``) or a keyword. A bare number is never a reference in
free text (``$8.22``, ``12.04.2021``, ``1.5 times``, ``page 12``); at the start of a block it may be a marker
(:func:`parse_heading_marker`).

Stored ids. The chunker stores sections, paragraphs, clauses and chapters by their bare number and divisions
with their keyword: roman numerals upper-cased, digits and letters as written, sub-items in the document's
letter case (``8.22.030(C)``), appended by :class:`~kruschnexus.chunk.sections.SectionTracker`.

A reference yields :attr:`SectionRef.id`, in the form above, with the sub-items in the letter case of the text
it was found in, and :attr:`SectionRef.alternatives`, other ids the same thing may be stored under:

- ``Article 7`` -> ``Article VII`` and ``7``; ``Article VII`` -> ``Article 7`` and ``7`` (a contract whose
  articles are headed ``7. INSURANCE`` stores ``7``); sub-items are carried over (``Article 7(b)`` ->
  ``Article VII(b)``, ``7(b)``);
- ``Part 2`` <-> ``Part II``, ``Title 4`` <-> ``Title IV`` (roman numerals made of I, V, X and L only);
- nothing else.

Matching. The letter case of sub-items in a question says nothing about the document's (``section
8.22.030(c)`` asks for the stored ``8.22.030(C)``). :func:`match_keys` spells an id in every such case
(``8.22.030(c)``, ``8.22.030(C)``), and :attr:`SectionRef.lookup_ids` is every match key of the id and its
alternatives, so exact comparison (SQL ``=``, ``LIKE 'key.%'`` and ``LIKE 'key(%'``, array overlap, and
:func:`is_within`) against ``lookup_ids`` is case-insensitive where it has to be and exact elsewhere. A stored
section ``S`` (with ancestors ``P``) answers a reference when, for some key ``K`` in ``lookup_ids``,
``is_within(S, K)`` or ``K in P``. A key that is sub-items only (``(g)``, from ``paragraph (g)``) names an item
under whatever section holds it: it also answers a stored ``5.1(g)`` or ``5.1(g)(2)`` (:func:`ends_within`).

Lines. Three looser tests of a line's leading id, each kept exactly as its one caller has always read it (the
first decides where PDF paragraphs break, so changing what it accepts changes extracted text):
:func:`starts_with_section_marker` (a line opening with ``§``, ``Section``, ``Sec.``, ``Article`` or a dotted
number starts a new paragraph after a line that ends a clause; layout), :func:`is_numbered_title_line` (``2.2
Procedure for Term Loan Borrowing``: a number and a short title alone, as a table of contents lists them;
lexical) and :func:`strip_leading_id` (``4.1(a) Rent`` without its ``4.1(a)``: a heading's words without its
number, to compare headings across versions; revisions).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

__all__ = [
    "DIVISION_KINDS",
    "KINDS",
    "MAX_MATCH_KEYS",
    "REF_PATTERN",
    "SectionRef",
    "ends_within",
    "find_refs",
    "is_numbered_title_line",
    "is_within",
    "match_keys",
    "normalize_id",
    "parse_heading_marker",
    "parse_id",
    "split_items",
    "starts_with_section_marker",
    "strip_leading_id",
    "strip_refs",
]

#: Every kind a reference can have.
KINDS = (
    "section",
    "paragraph",
    "clause",
    "chapter",
    "article",
    "title",
    "part",
    "exhibit",
    "schedule",
    "annex",
    "appendix",
)
#: Kinds stored with their keyword (``Article IV``); the others are stored as a bare number (``8.22``).
DIVISION_KINDS = frozenset({"article", "title", "part", "exhibit", "schedule", "annex", "appendix"})

_SUB = r"(?:\([A-Za-z0-9]{1,4}\))*"
_NUM = r"\d+(?:\.\d+)*[A-Za-z]?"
_DOTTED = r"\d+(?:\.\d+)+[A-Za-z]?"
_ROMAN_UPPER = r"(?=[IVXLCDM])M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})"
_ROMAN_LOWER = r"(?!i(?!\w))(?=[ivxl])(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
_ROMAN = rf"(?:{_ROMAN_UPPER}|{_ROMAN_LOWER})(?!\w)"
# One letter or a doubled one (``AA``): ``SCHEDULE OF FEES`` names no schedule ``OF``.
_DOUBLED = "|".join(c * 2 for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LETTERS = rf"(?:{_DOUBLED}|[A-Z])(?:-(?:\d{{1,3}}|[A-Z]))?"
_LETTERS_ANY_CASE = rf"(?i:{_LETTERS})"
_END = r"(?!\w)"

# Per kind: (singular keyword, plural keyword, id). Keywords are matched case-insensitively.
_ARTICLE_ID = rf"(?:{_ROMAN}|\d+[A-Za-z]?){_SUB}{_END}"
_NUM_ID = rf"{_NUM}{_SUB}{_END}"
# ``paragraph (g)`` of a regulation or an airworthiness directive: sub-items with no number before them.
_PARAGRAPH_ID = rf"(?:{_NUM}{_SUB}|\((?:[A-Za-z]{{1,2}}|[ivxIVX]{{1,5}}|\d{{1,3}})\){_SUB}){_END}"
_FAMILIES: dict[str, tuple[str, str, str]] = {
    "section": (r"section\s*|sec\.?\s*|§\s*", r"sections\s*|secs\.?\s*|§§\s*", _NUM_ID),
    "paragraph": (r"paragraph\s+|para\.?\s*|¶\s*", r"paragraphs\s+|paras\.?\s*|¶¶\s*", _PARAGRAPH_ID),
    "clause": (r"clause\s+", r"clauses\s+", _NUM_ID),
    "chapter": (r"chapter\s+", r"chapters\s+", rf"{_NUM}{_END}"),
    "article": (r"article\s+|art\.\s*", r"articles\s+|arts\.\s*", _ARTICLE_ID),
    "title": (r"title\s+", r"titles\s+", _ARTICLE_ID),
    "part": (r"part\s+", r"parts\s+", _ARTICLE_ID),
    "exhibit": (r"exhibit\s+", r"exhibits\s+", rf"(?:{_LETTERS}|{_NUM}(?:-\d{{1,3}})?){_SUB}{_END}"),
    "schedule": (r"schedule\s+", r"schedules\s+", rf"(?:{_LETTERS}|{_NUM}(?:-\d{{1,3}})?){_SUB}{_END}"),
    "annex": (r"annex\s+", r"annexes\s+", rf"(?:{_LETTERS}|{_NUM}(?:-\d{{1,3}})?){_SUB}{_END}"),
    "appendix": (r"appendix\s+", r"appendices\s+", rf"(?:{_LETTERS}|{_NUM}(?:-\d{{1,3}})?){_SUB}{_END}"),
}
_LIST_SEP = r"(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or|&)\s+)"
# A code before a section number: ``O.M.C.``, ``U.S.C.``, ``OMC``, ``Municipal Code``, ``Code``.
_CODE = r"(?:(?<![\w.])(?:[A-Za-z]\.){1,4}[Cc]\.|\b(?:[A-Z][a-z]+\s+)?[Cc]ode\b|\bCODE\b)"
# An undotted acronym (``OMC``) only before a number with two dots or more (``8.22.030``, not ``NYC 2.5``).
_ACRONYM = r"\b[A-Z]{1,4}C\b"


def _alternation() -> str:
    parts = []
    for kind, (single, plural, ident) in _FAMILIES.items():
        prefix = rf"(?:(?:{_CODE}|{_ACRONYM})\s*)?" if kind == "section" else ""
        parts.append(rf"{prefix}(?i:{plural})(?P<{kind}_list>{ident}(?:{_LIST_SEP}{ident})*)")
        parts.append(rf"{prefix}(?i:{single})(?P<{kind}>{ident})")
    parts.append(
        rf"(?:{_CODE}\s*(?P<code>{_DOTTED}{_SUB}{_END})|{_ACRONYM}\s*(?P<acronym>\d+(?:\.\d+){{2,}}{_SUB}{_END}))"
    )
    return "|".join(parts)


#: A section reference anywhere in free text (the whole span: code prefix, keyword, and every listed id).
REF_PATTERN = re.compile(rf"(?<![\w§¶])(?:{_alternation()})")
_IDS = {kind: re.compile(ident) for kind, (_, _, ident) in _FAMILIES.items()}
_SEP = re.compile(_LIST_SEP)


@dataclass(frozen=True)
class SectionRef:
    """A reference to a section, found in a text or given as a value.

    Attributes:
        kind: one of :data:`KINDS`.
        id: the id as the chunker stores it (``8.22.030(C)``, ``Article IV``, ``Exhibit C-2``); sub-items in
            the letter case of the text.
        alternatives: other ids the same reference may be stored under (``Article 7`` -> ``Article VII``, ``7``).
        start, end: the reference in the text it was found in, as a half-open interval of code points (for a
            listed id after the first, the id alone; for the first, from the keyword or code prefix on).
    """

    kind: str
    id: str
    alternatives: tuple[str, ...] = ()
    start: int = 0
    end: int = 0

    @property
    def base(self) -> str:
        """The id without its parenthesised sub-items (``8.22.030`` for ``8.22.030(C)``)."""
        return split_items(self.id)[0]

    @property
    def items(self) -> tuple[str, ...]:
        """The parenthesised sub-items of the id (``("B", "1", "a")`` for ``8.22.030(B)(1)(a)``)."""
        return split_items(self.id)[1]

    @property
    def lookup_ids(self) -> tuple[str, ...]:
        """Every stored id this reference matches exactly: :func:`match_keys` of the id and its alternatives."""
        keys = (k for sid in (self.id, *self.alternatives) for k in match_keys(sid))
        return tuple(dict.fromkeys(keys))


def find_refs(text: str) -> list[SectionRef]:
    """Every section reference in free text, in order (see the module docstring for the forms)."""
    refs: list[SectionRef] = []
    for m in REF_PATTERN.finditer(text):
        kind = next(name for name, value in m.groupdict().items() if value is not None)
        if kind in ("code", "acronym"):
            refs.append(_ref("section", m.group(kind), m.start(), m.end()))
        elif kind.endswith("_list"):
            refs.extend(_listed(kind.removesuffix("_list"), m, text))
        else:
            refs.append(_ref(kind, m.group(kind), m.start(), m.end()))
    return refs


def strip_refs(text: str, replacement: str = " ") -> str:
    """``text`` with every section reference (code prefix and keyword included) replaced."""
    return REF_PATTERN.sub(replacement, text)


def _listed(kind: str, m: re.Match[str], text: str) -> list[SectionRef]:
    group = f"{kind}_list"
    pos, stop = m.start(group), m.end(group)
    out: list[SectionRef] = []
    while pos < stop:
        ident = _IDS[kind].match(text, pos, stop)
        if ident is None:  # pragma: no cover - the pattern matched this list
            break
        out.append(_ref(kind, ident.group(), m.start() if not out else ident.start(), ident.end()))
        sep = _SEP.match(text, ident.end(), stop)
        pos = sep.end() if sep else stop
    return out


def _ref(kind: str, raw_id: str, start: int, end: int) -> SectionRef:
    base, items = split_items(raw_id)
    if kind in DIVISION_KINDS:
        # Roman numerals and exhibit letters are stored upper case; digits as written.
        base = f"{kind.capitalize()} {base.upper() if base[:1].isalpha() else base}"
    tail = "".join(f"({x})" for x in items)
    return SectionRef(kind, base + tail, tuple(a + tail for a in _alternatives(kind, base)), start, end)


def _alternatives(kind: str, base: str) -> tuple[str, ...]:
    if kind not in ("article", "title", "part"):
        return ()
    word, value = base.split(" ", 1)
    if value.isdigit():
        roman = _to_roman(int(value))
        alts = [f"{word} {roman}"] if roman else []
        return (*alts, value) if kind == "article" else tuple(alts)
    number = _roman_value(value)
    if number is None:
        return ()
    return (f"{word} {number}", str(number)) if kind == "article" else (f"{word} {number}",)


_ROMAN_SMALL = re.compile(r"^(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_ROMAN_DIGITS = (("XC", 90), ("L", 50), ("XL", 40), ("X", 10), ("IX", 9), ("V", 5), ("IV", 4), ("I", 1))


def _roman_value(value: str) -> int | None:
    """The value of a roman numeral made of I, V, X and L (1 to 89), else ``None``."""
    upper = value.upper()
    if not upper or _ROMAN_SMALL.match(upper) is None:
        return None
    total, pos = 0, 0
    for symbol, amount in _ROMAN_DIGITS:
        while upper.startswith(symbol, pos):
            total += amount
            pos += len(symbol)
    return total


def _to_roman(number: int) -> str | None:
    if not 0 < number < 90:
        return None
    out = []
    for symbol, amount in _ROMAN_DIGITS:
        while number >= amount:
            out.append(symbol)
            number -= amount
    return "".join(out)


def split_items(section_id: str) -> tuple[str, tuple[str, ...]]:
    """``("8.22.030", ("B", "1"))`` for ``8.22.030(B)(1)``: the id before its first ``(`` and the sub-items."""
    cut = section_id.find("(")
    if cut < 0:
        return section_id, ()
    return section_id[:cut], tuple(re.findall(r"\(([^()]*)\)", section_id[cut:]))


#: At most this many spellings per id; beyond it, only as written, all upper and all lower case.
MAX_MATCH_KEYS = 32


def match_keys(section_id: str) -> tuple[str, ...]:
    """Every letter-case spelling of an id that names the same section, the id itself first.

    Sub-item labels (``(c)``/``(C)``, ``(iv)``/``(IV)``) and the trailing letter of a bare number (``12a``/``12A``)
    may be written in either case; keywords and roman numerals of divisions are canonical already.
    """
    base, items = split_items(section_id)
    bases = [base]
    if re.fullmatch(r"\d+(?:\.\d+)*[A-Za-z]", base):
        bases.append(base[:-1] + base[-1].swapcase())
    choices = [list(dict.fromkeys((x, x.upper(), x.lower()))) for x in items]
    count = len(bases) * _product_size(choices)
    if count > MAX_MATCH_KEYS:
        choices = [[x] for x in items]
        extra = [_join(base, [x.upper() for x in items]), _join(base, [x.lower() for x in items])]
    else:
        extra = []
    keys = [_join(b, list(combo)) for b in bases for combo in itertools.product(*choices)]
    return tuple(dict.fromkeys([section_id, *keys, *extra]))


def _product_size(choices: list[list[str]]) -> int:
    size = 1
    for c in choices:
        size *= len(c)
    return size


def _join(base: str, items: list[str]) -> str:
    return base + "".join(f"({x})" for x in items)


def is_within(section: str, ancestor: str) -> bool:
    """True when ``section`` is ``ancestor`` or below it (``8.22.030(C)`` is within ``8.22``, not vice versa).

    Exact (case-sensitive) comparison: compare against :func:`match_keys` of a reference for case-insensitivity.
    """
    if section == ancestor:
        return True
    return section.startswith(ancestor) and section[len(ancestor)] in ".("


def ends_within(section: str, items: str) -> bool:
    """True when ``items`` is sub-items only (``(g)``) and ``section`` is such an item or below one, under any
    section (``5.1(g)``, ``(g)(2)``, ``5.1(g)(2)``); exact comparison, as :func:`is_within`."""
    if not items.startswith("(") or items not in section:
        return False
    at = section.find(items)
    while at >= 0:
        end = at + len(items)
        if end == len(section) or section[end] == "(":
            return True
        at = section.find(items, at + 1)
    return False


# --- values of the ``section:`` operator -------------------------------------------------------------------------

_VALUE_ID = re.compile(rf"(?:{_NUM})?{_SUB}")
_VALUE_DIVISION = re.compile(
    rf"(?i:(?P<kw>article|art\.?|title|part|exhibit|schedule|annex|appendix))\s*"
    rf"(?P<id>(?:{_ROMAN_UPPER}|(?i:{_ROMAN_LOWER})|\d+[A-Za-z]?|{_LETTERS_ANY_CASE}|{_NUM}(?:-\d{{1,3}})?){_SUB})"
)
_VALUE_KEYWORD = re.compile(r"(?i:section|sec\.?|§+|paragraph|para\.?|¶+|clause|chapter)\s*")


def parse_id(value: str) -> SectionRef | None:
    """A whole value (``section:`` operator) read as one reference, or ``None`` when it is not one.

    ``art.iv`` -> ``Article IV``; ``§8.22`` and ``8.22`` -> ``8.22``; ``exhibit c`` -> ``Exhibit C`` (in a value,
    a letter id may be lower case); ``8.22.030(c)`` keeps its case. Offsets are into ``value`` stripped.
    """
    value = value.strip()
    refs = find_refs(value)
    if len(refs) == 1 and refs[0].start == 0 and refs[0].end == len(value.rstrip(".")):
        return refs[0]
    if m := _VALUE_DIVISION.fullmatch(value):
        kw = m.group("kw").lower().rstrip(".")
        kind = "article" if kw == "art" else kw
        base, items = split_items(m.group("id"))
        numbered = kind in ("article", "title", "part")
        if numbered and not (base.isdigit() or re.fullmatch(_ROMAN_UPPER, base.upper())):
            return None
        return _ref(kind, _join(base, list(items)), 0, len(value))
    rest = value[m.end() :] if (m := _VALUE_KEYWORD.match(value)) else value
    rest = rest.rstrip(".")
    if rest and _VALUE_ID.fullmatch(rest):
        return _ref("section", rest, 0, len(value))
    return None


def normalize_id(value: str) -> str:
    """The stored form of a ``section:`` value (``art. iv`` -> ``Article IV``); an unreadable value stripped."""
    ref = parse_id(value)
    return ref.id if ref is not None else value.strip()


# --- markers at the start of a block (the chunker) ---------------------------------------------------------------

_HEAD_SECTION = re.compile(
    r"(?:SECTION|Section|SEC\.|Sec\.|§+)\s*(\d+(?:\.\d+)*[A-Za-z]?)\.?((?:\([A-Za-z0-9]{1,4}\))*)"
    r"(?=[\s,:;—–-]|\.(?!\d)|$)"
)
_HEAD_CHAPTER = re.compile(rf"(?:CHAPTER|Chapter)\s+({_NUM}){_END}")
_HEAD_ARTICLE = re.compile(rf"(?:ARTICLE|Article|ART\.|Art\.)\s+((?:{_ROMAN}|\d+[A-Za-z]?)(?:{_SUB}))(?!\w)")
# A ``(`` right after the id must open sub-items followed by a space (``7.1(a) The``), never ``306.4(a)’s``.
_HEAD_DOTTED = re.compile(r"(\d+(?:\.\d+)+)\.?((?:\([A-Za-z0-9]{1,4}\))+(?=\s|$)|(?=\s*(?:$|[A-Z\"“—–-])|\s+\())")
_DATE = re.compile(r"(?:0?[1-9]|[12]\d|3[01])\.(?:0?[1-9]|[12]\d|3[01])\.(?:1[89]|20)\d\d")
# Keywords read only in heading form: the id ends the block or is followed by a separator or a capital.
_HEADING_TAIL = r"\.?(?=\s*$|\s*[:—–-]|\s+[A-Z\"“(\[])"
_HEAD_LOOSE = {
    "exhibit": r"(?:EXHIBIT|Exhibit)\s+",
    "schedule": r"(?:SCHEDULE|Schedule)\s+",
    "annex": r"(?:ANNEX|Annex)\s+",
    "appendix": r"(?:APPENDIX|Appendix)\s+",
    "title": r"(?:TITLE|Title)\s+",
    "part": r"(?:PART|Part)\s+",
    "clause": r"(?:CLAUSE|Clause)\s+",
    "paragraph": r"(?:(?:PARAGRAPH|Paragraph)\s+|(?:PARA\.|Para\.|¶)\s*)",
}
# Headings keep numbered ids only: ``Paragraph (b) Notwithstanding`` inside a section is an item of it, not a section
# of its own (a question's ``paragraph (g)`` is read by :data:`REF_PATTERN` alone).
_HEAD_IDS = {kind: _NUM_ID if kind == "paragraph" else ident for kind, (_, _, ident) in _FAMILIES.items()}
_HEAD_LOOSE_RE = {kind: re.compile(rf"{kw}({_HEAD_IDS[kind]}){_HEADING_TAIL}") for kind, kw in _HEAD_LOOSE.items()}


def parse_heading_marker(text: str) -> SectionRef | None:
    """The section id a block starts with, if it starts with one (offsets into ``text``).

    Conservative by design: keywords are capitalised or upper case (a block starting in lower case continues a
    sentence); ``Section``/``Sec.``/``§``, ``Article`` and ``Chapter`` followed by an id are markers (``Section 3
    of the Act provides`` too, as it always was); a bare dotted number (``8.22.030``, ``1.2.3``) is one when a
    capital, a dash, a quote or the end follows, or sub-items (``7.1(a)``), and never when it is a date
    (``12.04.2021``); ``Exhibit``, ``Schedule``, ``Annex``, ``Appendix``, ``Title``, ``Part``, ``Clause``,
    ``Paragraph`` and ``¶`` only in heading form (``EXHIBIT C``, ``Schedule 2.01 - Commitments``, not ``Exhibit C
    attached hereto``). A top-level ``1.`` and sub-items (``(a)``, ``A.``) are the chunker's, not this grammar's.
    """
    stripped = text.lstrip()
    offset = len(text) - len(stripped)
    found = _heading(stripped)
    if found is None:
        return None
    kind, raw_id, end = found
    return _ref(kind, raw_id, offset, offset + end)


def _short_parts(dotted: str) -> bool:
    """Every part of a dotted id has at most three digits: ``8.22.030`` is an id, ``650.568.6000`` a phone number."""
    return all(len(part) <= 3 for part in dotted.split("."))


def _heading(text: str) -> tuple[str, str, int] | None:
    if m := _HEAD_ARTICLE.match(text):
        return "article", m.group(1), m.end(1)
    if m := _HEAD_CHAPTER.match(text):
        return "chapter", m.group(1), m.end(1)
    if m := _HEAD_SECTION.match(text):
        return "section", m.group(1) + m.group(2), m.end(2)
    if (m := _HEAD_DOTTED.match(text)) and not _DATE.fullmatch(m.group(1)) and _short_parts(m.group(1)):
        return "section", m.group(1) + m.group(2), m.end(2) if m.group(2) else m.end(1)
    for kind, pattern in _HEAD_LOOSE_RE.items():
        if m := pattern.match(text):
            return kind, m.group(1), m.end(1)
    return None


# --- ids at the start of a line (layout, lexical, revisions) -----------------------------------------------------

_SECTION_MARKER = re.compile(rf"(?i:§|section{_END}|sec\.|article{_END})|{_DOTTED}")
_NUMBERED_TITLE = re.compile(r"\s*(?:(?i:section|article|§)\s*)?\d+(?:\.\d+)*\.?\s+[^.,;:]{1,50}$")
_LEADING_ID = re.compile(r"[\s§¶.]*(?i:\d+(?:\.[0-9a-z]+)*(?:\([0-9a-z]+\))*|[ivxlc]+)(?=[\s.:)\-–—]|$)")


def starts_with_section_marker(text: str) -> bool:
    """``text`` opens with a section marker: ``§``, the word ``section`` or ``article`` (any letter case, not
    ``Sections``), ``sec.``, or a dotted number (``2.1``, ``8.22.030``; also ``1.5 times``: the caller asks only
    after a line that ends a clause). Nothing may come before it: strip the text first.

    Looser than :func:`parse_heading_marker` on purpose: it only tells the layout that a line may start a paragraph.
    """
    return _SECTION_MARKER.match(text) is not None


def is_numbered_title_line(line: str) -> bool:
    """``line`` is a section number and a short title and nothing else, as a table of contents lists them: ``2.2
    Procedure for Term Loan Borrowing``, ``Section 8.01 Governing Law``, ``§ 12 Notices``.

    The number is digits and dots (perhaps after ``Section``, ``Article`` or ``§``, any letter case, and before a
    dot); the title after a space is 1 to 50 characters with no ``.``, ``,``, ``;`` or ``:`` (a sentence has
    them: ``19.1 Either Party may terminate, without cause``). ``ARTICLE X FORCE MAJEURE`` (a roman numeral) and
    ``$8.22 per foot`` are not such lines.
    """
    return _NUMBERED_TITLE.match(line) is not None


def strip_leading_id(text: str) -> str:
    """``text`` without the id it starts with (and any spaces, ``§``, ``¶`` and dots before it), or ``text``
    unchanged when it starts with none: ``4.1(a) Rent`` -> `` Rent``, ``IV. Conclusion`` -> ``. Conclusion``.

    An id is a number with dotted parts and parenthesised sub-items of letters or digits (``12.1(a)``,
    ``8.22.030``), or a run of the letters of small roman numerals, i, v, x, l and c (``iv``, ``XII``, and so
    also the word ``Civil`` in ``Civil Rights``), any letter case; it must end the text or be followed by a space,
    ``.``, ``:``, ``)`` or a dash (``Ill`` in ``Illness`` is no id). What follows the id is kept as it is: strip the
    separator as needed. Keywords (``Section 4``) are :func:`strip_refs`'s.
    """
    m = _LEADING_ID.match(text)
    return text if m is None else text[m.end() :]
