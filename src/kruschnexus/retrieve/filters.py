"""What a parsed question restricts, in the forms each leg takes: the SQL filter of both legs (patterns of phrases,
sections and documents; the section references a text mentions) and the lexical index's query."""

from __future__ import annotations

import dataclasses
import re

from kruschnexus.chunk.grammar import find_refs
from kruschnexus.lexical.index import LexicalQuery
from kruschnexus.retrieve.fusion import FusionSettings, NamedSections
from kruschnexus.retrieve.query import SECTION_REF, Query
from kruschnexus.store import queries as q
from kruschnexus.store.postgres import PgStore

#: The white space the text's phrase match folds (as ``str.split`` and the old ``regexp_replace`` fold did).
_SPACE = "[[:space:]\u00a0\u2007\u202f]+"


def like_escape(text: str) -> str:
    """Escape ``%``, ``_`` and ``\\`` for a LIKE pattern."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def glob_to_like(glob: str) -> str:
    """``*.pdf`` -> ``%.pdf``; ``?`` -> ``_``; other characters literal."""
    return "".join("%" if c == "*" else "_" if c == "?" else like_escape(c) for c in glob)


def phrase_pattern(phrase: str) -> str:
    """A PostgreSQL regular expression (for ``~*``) of text holding ``phrase``: its words in order, any run of
    white space between them, anywhere (inside a longer word too, as a substring match). The text's trigram index
    (0008_section_lookup) answers it from the words' trigrams."""
    return _SPACE.join(re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", word) for word in phrase.lower().split())


def span_filter(
    query: Query,
    workspace: str,
    doc_ids: tuple[str, ...] = (),
    names: tuple[str, ...] = (),
    unmarked: bool = True,
) -> q.SpanFilter:
    """The SQL restrictions a parsed query puts on both legs (``doc_ids``: the document a question names, or
    ``names``: its name, when the question asks for versions other than the latest; ``unmarked``: some span of the
    workspace may lack its stored line markers, and a regular expression finds where its lines open a section)."""
    return q.SpanFilter(
        workspace=workspace,
        doc_types=query.doc_types,
        page_ranges=query.pages,
        source_likes=tuple(glob_to_like(d) for d in query.docs),
        sections=query.sections,
        section_likes=section_likes(query.sections),
        line_marker_keys=tuple(dict.fromkeys(section.lower() for section in query.sections)),
        section_patterns=marker_patterns(query.sections) if unmarked else (),
        phrase_patterns=tuple(phrase_pattern(p) for p in query.phrases),
        excluded_likes=tuple(f"%{like_escape(p.lower())}%" for p in query.excluded_phrases),
        excluded_terms=query.excluded_terms,
        doc_ids=doc_ids,
        names=names,
        versions=query.versions,
        as_of=query.as_of,
    )


def search_filter(
    store: PgStore, query: Query, workspace: str, doc_ids: tuple[str, ...] = (), names: tuple[str, ...] = ()
) -> q.SpanFilter:
    """:func:`span_filter` as a search runs it: a question naming a section asks the store whether the workspace
    holds spans without their line markers (only then is their text matched by a regular expression)."""
    unmarked = bool(query.sections) and store.has_unmarked_spans(workspace)
    return span_filter(query, workspace, doc_ids, names, unmarked)


def section_likes(sections: tuple[str, ...]) -> tuple[str, ...]:
    """``LIKE`` patterns of the sections below the named ones (``8.22.%``, ``8.22(%``), and for a key that is
    sub-items only (``(g)``, from ``paragraph (g)``) the item under any section (``%(g)``, ``%(g)(%``)."""
    out = [like_escape(s) + tail for s in sections for tail in (".%", "(%")]
    out += [f"%{like_escape(s)}{tail}" for s in sections if s.startswith("(") for tail in ("", "(%")]
    return tuple(dict.fromkeys(out))


def marker_patterns(sections: tuple[str, ...]) -> tuple[str, ...]:
    """PostgreSQL regular expressions (for ``~*``) of a line that opens with one of the sections: ``12.1`` ->
    ``(^|\n)[ \t]*([a-z§¶.]+[ \t]*)?12\\.1([^0-9a-z]|$)``. Loose on purpose (a keyword of any kind may come
    before the id): the SQL only must not lose such spans; :func:`~kruschnexus.lexical.analysis.line_markers`
    decides which of them open the section. Only spans stored without their line markers (before migration 0010)
    are tested so; the others are found by their stored markers."""
    out: dict[str, None] = {}
    for section in sections:
        escaped = re.sub(r"([^0-9a-z ])", r"\\\1", section.lower()).replace(" ", "[ \t]+")
        out.setdefault(f"(^|\n)[ \t]*([a-z§¶.]+[ \t]*)?{escaped}([^0-9a-z]|$)", None)
    return tuple(out)


def lexical_query(query: Query, text: str, doc_ids: tuple[str, ...], settings: FusionSettings) -> LexicalQuery:
    """The same restrictions for the lexical index (the SQL filter still decides: this only keeps recall), the
    weights of a span's fields, and within a named document, the weight of its own word statistics."""
    return LexicalQuery(
        local_idf=settings.local_idf,
        local_idf_min_weight=settings.local_idf_min_weight,
        local_idf_max_documents=settings.local_idf_max_documents,
        context_boost=settings.context_boost,
        ids_boost=settings.ids_boost,
        text=text,
        phrases=query.phrases,
        excluded_terms=query.excluded_terms,
        excluded_phrases=query.excluded_phrases,
        doc_ids=doc_ids,
        doc_types=query.doc_types,
        page_ranges=query.pages,
        section_keys=query.sections,
    )


def named_sections(query: Query) -> NamedSections:
    """The sections a query names; ``lookup_only`` when the free text is nothing but section references."""
    if not query.sections:
        return NamedSections()
    rest = SECTION_REF.sub(" ", query.text)
    lookup_only = not query.phrases and re.search(r"\w", rest) is None
    return NamedSections(query.sections, lookup_only)


def items_with_numbers(query: Query) -> Query:
    """Without item-only keys (``(a)``) when numbered ones are named too: in "Section 5.1 paragraph (a)" the section
    restricts, and an ``(a)`` of any other section must not widen it."""
    if not any(s.startswith("(") for s in query.sections) or all(s.startswith("(") for s in query.sections):
        return query
    return dataclasses.replace(query, sections=tuple(s for s in query.sections if not s.startswith("(")))


def items_only(query: Query, named: bool) -> bool:
    """The query names only items (``paragraph (g)``), which every document has, and no document (by name, or by
    ``doc:``) to look in: the items then only reorder (:attr:`NamedSections.soft`)."""
    return not named and not query.docs and bool(query.sections) and all(s.startswith("(") for s in query.sections)


def section_mentions(text: str) -> list[str]:
    """The section references of ``text`` as written (``Paragraph 2.3``, ``§ 12(b)``), those with a keyword or a
    code prefix only (a bare id is too common a string to look for)."""
    out = [" ".join(text[r.start : r.end].split()) for r in find_refs(text)]
    return list(dict.fromkeys(m for m in out if re.match(r"[^\W\d]|§|¶", m)))


def mention_patterns(mentions: list[str]) -> tuple[str, ...]:
    """PostgreSQL regular expressions (for ``~*``) of text that mentions one of the references: its words in
    order, any white space between them, and no longer id after it (``Paragraph 2.3`` is not ``Paragraph 2.30``
    nor ``Paragraph 2.3.1``; ``Paragraph 2.3(b)`` is one of its items and counts)."""
    out: dict[str, None] = {}
    for mention in mentions:
        words = [re.sub(r"([^0-9a-z])", r"\\\1", w.lower()) for w in mention.split()]
        out.setdefault(
            "(^|[^0-9a-z])" + "[[:space:]\u00a0]+".join(words) + "(?![0-9a-z]|[.-][0-9a-z])",
            None,
        )
    return tuple(out)
