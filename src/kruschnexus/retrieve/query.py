"""The query language, parsed by pure functions into a small typed tree.

Grammar (whitespace separates items):

- ``"exact phrase"``: must occur literally in a span (case and spacing folded);
- ``-term`` and ``-"phrase"``: exclude spans containing it;
- ``doc_type:X``, ``page:N``, ``page:N-M``, ``doc:NAME`` (a glob on the file name or the document's name),
  ``section:ID``;
- ``version:N`` (that version of each document) and ``as_of:DATE`` (``2026-12-04`` or an ISO 8601 time: each
  document as it stood then, the version stored last before the end of that day, UTC); without either, only the
  latest version of each document is searched;
- anything else is free text; an unknown ``key:value`` stays free text;
- section references inside free text (``Section 8.22.030(C)``, ``§ 8.22``, ``Sec. 5.2(a)``, ``Article IV``,
  ``Art. 5``, ``Paragraph 13``, ``clause 12.1``, ``Exhibit C``, ``O.M.C. 1.2.345(B)``: the forms of
  :mod:`kruschnexus.chunk.grammar`) name sections, as ``section:`` does, and stay in the free text.

:attr:`Query.section_refs` are the ids the text names (``8.22.030(c)``, ``Article 7``); :attr:`Query.sections`
are the stored ids to match exactly, from the operator and the text: each reference's
:attr:`~kruschnexus.chunk.grammar.SectionRef.lookup_ids` (its id and alternatives in every letter case of their
sub-items: ``Article 7`` -> ``Article 7``, ``Article VII``, ``7``).

Malformed input (an unbalanced quote, ``page:abc``, an empty operator value) raises
:class:`~kruschnexus.errors.QueryError` with the offset of the problem.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from kruschnexus.chunk.grammar import REF_PATTERN, find_refs, normalize_id, parse_id, strip_refs
from kruschnexus.errors import QueryError

__all__ = ["OPERATORS", "SECTION_REF", "Query", "normalize_section", "parse_query", "strip_refs"]

#: The ``key:value`` operators a query may use.
OPERATORS = ("doc_type", "page", "doc", "section", "version", "as_of")
#: An operator's key, up to its colon.
_KEY = re.compile(r"([A-Za-z_]+):")
#: A ``page:`` value: one page or a range (``3``, ``3-7``).
_PAGE = re.compile(r"^(\d{1,6})(?:-(\d{1,6}))?$")
#: Every section reference in free text (``SECTION_REF.sub(" ", text)`` is :func:`strip_refs`).
SECTION_REF = REF_PATTERN


@dataclass(frozen=True)
class Query:
    """A parsed query. ``text`` is the free text sent to both retrieval legs."""

    raw: str
    text: str = ""
    phrases: tuple[str, ...] = ()
    excluded_terms: tuple[str, ...] = ()
    excluded_phrases: tuple[str, ...] = ()
    doc_types: tuple[str, ...] = ()
    pages: tuple[tuple[int, int], ...] = ()
    docs: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    section_refs: tuple[str, ...] = field(default=())
    versions: tuple[int, ...] = ()
    as_of: datetime | None = None

    @property
    def search_text(self) -> str:
        """What the model embeds and full-text search matches: free text plus the phrases; for a query that is
        only ``section:`` operators, the first section named (``Section 3.01``), so that it is a pure lookup."""
        text = " ".join(p for p in (self.text, *self.phrases) if p).strip()
        return text or (f"Section {self.sections[0]}" if self.sections else "")

    @property
    def is_empty(self) -> bool:
        """True when there is nothing to search for."""
        return not self.search_text


def normalize_section(value: str) -> str:
    """``art. iv`` -> ``Article IV``, ``8.22.030(c)`` stays ``8.22.030(c)`` (see ``grammar.normalize_id``)."""
    return normalize_id(value)


def parse_query(raw: str) -> Query:
    """Parse a query string (see the module docstring).

    Raises:
        QueryError: a malformed operator or quote, or a NUL character (PostgreSQL text cannot hold one).
    """
    if "\x00" in raw:
        raise QueryError("the query contains a NUL character", raw.index("\x00"))
    parts = _Parts()
    pos = 0
    while pos < len(raw):
        if raw[pos].isspace():
            pos += 1
            continue
        pos = _item(raw, pos, parts)
    text = " ".join(parts.words)
    found = find_refs(text)
    refs = tuple(dict.fromkeys(r.id for r in found))
    lookups = [key for r in found for key in r.lookup_ids]
    return Query(
        raw=raw,
        text=text,
        phrases=tuple(parts.phrases),
        excluded_terms=tuple(parts.excluded_terms),
        excluded_phrases=tuple(parts.excluded_phrases),
        doc_types=tuple(parts.doc_types),
        pages=tuple(parts.pages),
        docs=tuple(parts.docs),
        sections=tuple(dict.fromkeys([*parts.sections, *lookups])),
        section_refs=refs,
        versions=tuple(dict.fromkeys(parts.versions)),
        as_of=parts.as_of,
    )


@dataclass
class _Parts:
    words: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    excluded_terms: list[str] = field(default_factory=list)
    excluded_phrases: list[str] = field(default_factory=list)
    doc_types: list[str] = field(default_factory=list)
    pages: list[tuple[int, int]] = field(default_factory=list)
    docs: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    versions: list[int] = field(default_factory=list)
    as_of: datetime | None = None


def _item(raw: str, pos: int, parts: _Parts) -> int:
    if raw[pos] == '"':
        phrase, end = _quoted(raw, pos)
        if phrase:
            parts.phrases.append(phrase)
        return end
    if raw[pos] == "-" and pos + 1 < len(raw) and not raw[pos + 1].isspace() and raw[pos + 1] != "-":
        if raw[pos + 1] == '"':
            phrase, end = _quoted(raw, pos + 1)
            if phrase:
                parts.excluded_phrases.append(phrase)
            return end
        word, end = _word(raw, pos + 1)
        parts.excluded_terms.append(word)
        return end
    key = _KEY.match(raw, pos)
    if key and key.group(1).lower() in OPERATORS:
        name = key.group(1).lower()
        start = key.end()
        if start < len(raw) and raw[start] == '"':
            value, end = _quoted(raw, start)
        else:
            value, end = _word(raw, start)
        if not value:
            raise QueryError(f"{name}: needs a value", start)
        _operator(name, value, start, parts)
        return end
    word, end = _word(raw, pos)
    parts.words.append(word)
    return end


def _operator(name: str, value: str, offset: int, parts: _Parts) -> None:
    if name == "doc_type":
        parts.doc_types.append(value)
    elif name == "doc":
        parts.docs.append(value)
    elif name == "section":
        ref = parse_id(value)
        if ref is None:
            raise QueryError(f"section:{value} is not a section id (e.g. 8.22.030(C) or Article IV)", offset)
        parts.sections.extend(ref.lookup_ids)
    elif name == "version":
        if not value.isdigit() or not 1 <= int(value) <= 1_000_000:
            raise QueryError(f"version:{value} is not a version number (version:1, version:2, ...)", offset)
        parts.versions.append(int(value))
    elif name == "as_of":
        if parts.as_of is not None:
            raise QueryError("as_of: is given twice", offset)
        parts.as_of = _moment(value, offset)
    else:
        m = _PAGE.match(value)
        if not m:
            raise QueryError(f"page:{value} is not a page number or range (page:3, page:2-5)", offset)
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if lo < 1 or hi < lo:
            raise QueryError(f"page:{value} is not a valid range (pages start at 1, N-M with N <= M)", offset)
        parts.pages.append((lo, hi))


def _moment(value: str, offset: int) -> datetime:
    """``as_of:`` value: a date means the end of that day (UTC); a time without a zone is UTC."""
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return datetime.combine(date.fromisoformat(value), time.min, tzinfo=UTC) + timedelta(days=1)
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise QueryError(f"as_of:{value} is not a date (as_of:2026-12-04) or an ISO 8601 time", offset) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _quoted(raw: str, pos: int) -> tuple[str, int]:
    end = raw.find('"', pos + 1)
    if end < 0:
        raise QueryError("unbalanced quote: this quote is never closed", pos)
    return " ".join(raw[pos + 1 : end].split()), end + 1


def _word(raw: str, pos: int) -> tuple[str, int]:
    end = pos
    while end < len(raw) and not raw[end].isspace():
        if raw[end] == '"':
            raise QueryError("a quote inside a word: put a space before the phrase", end)
        end += 1
    return raw[pos:end], end
