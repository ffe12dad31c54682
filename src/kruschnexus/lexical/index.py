"""What the lexical index stores and answers, and the interface an engine implements."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from kruschnexus.config import default_of

SpanKey = tuple[str, int, int]


@dataclass(frozen=True)
class SpanEntry:
    """One span as indexed.

    Attributes:
        text: the span's stored text (phrases match here).
        context: what the span sits under: document title, heading path, section id (ranked, never quoted).
        ids: legal ids of the text and section, whole and lower-cased (:func:`~.analysis.legal_ids`), and the
            section markers that open its lines (:func:`~.analysis.line_markers`).
        section_keys: the span's section id and its ancestors (what a ``section:`` filter may name).
        paged: the span is on a physical page (``page:`` filters apply), not in a unit of an unpaged format.
    """

    doc_id: str
    page_number: int
    ordinal: int
    text: str
    context: str
    ids: tuple[str, ...]
    section_keys: tuple[str, ...]
    doc_type: str | None
    paged: bool

    @property
    def key(self) -> SpanKey:
        """``(doc_id, page_number, ordinal)``, the span's primary key."""
        return (self.doc_id, self.page_number, self.ordinal)


@dataclass(frozen=True)
class DocEntry:
    """One document as the document index holds it: ``name`` (title, parties, file name), ``front`` (the text
    of its first pages) and ``twin`` (its file name without the extension, case folded: documents that share it
    are one document in several formats, counted once in the name statistics)."""

    doc_id: str
    name: str
    front: str
    twin: str = ""


@dataclass(frozen=True)
class LexicalQuery:
    """A search of the span index. ``text`` is ranked (BM25 over text and context, ids boosted); the fields up to
    ``section_keys`` restrict: phrases must occur, excluded terms and phrases must not, and the span must be in one
    of ``doc_ids``/``doc_types``, on one of ``page_ranges`` and under one of ``section_keys`` (or holding a line that
    opens one) when those are given; the rest weigh (the settings of the same names)."""

    text: str
    phrases: tuple[str, ...] = ()
    excluded_terms: tuple[str, ...] = ()
    excluded_phrases: tuple[str, ...] = ()
    doc_ids: tuple[str, ...] = ()
    doc_types: tuple[str, ...] = ()
    page_ranges: tuple[tuple[int, int], ...] = ()
    section_keys: tuple[str, ...] = ()
    #: Within one named document (``doc_ids`` of one, or of a few: its formats), weigh each term by ``(idf in that
    #: document / idf in the workspace) ** local_idf`` (0: off). Words that run through the whole document ("clinic" in
    #: a clinic's lease) then count little there, whatever their rarity elsewhere.
    local_idf: float = 0.0
    #: The least weight ``local_idf`` leaves a term (one in every span of the document).
    local_idf_min_weight: float = default_of("local_idf_min_weight", float)
    #: ``local_idf`` applies to a search restricted to at most this many documents (one named, in a few formats).
    local_idf_max_documents: int = default_of("local_idf_max_documents", int)
    #: Weights of the span's context and of its legal ids in the ranked part of the query (its text weighs 1).
    context_boost: float = default_of("context_boost", float)
    ids_boost: float = default_of("ids_boost", float)


@dataclass(frozen=True)
class LexicalHit:
    """A span the lexical index ranked: its BM25 score, and ``coverage``, that score over the score of a span of
    average length holding each query term once (``Σ idf``), capped at 1. Coverage is comparable across queries: a
    span that holds the question's rare words scores near 1 whatever the question's length; one that holds only
    its common words scores near 0."""

    key: SpanKey
    score: float
    coverage: float = 0.0


@dataclass(frozen=True)
class DocHit:
    """A document whose name or first pages match a question: ``score`` over its name, ``front`` over its first
    pages, the question's analysed terms that occur in its name, and the weight of the first pages against the
    name (the setting ``name_front_weight``)."""

    doc_id: str
    score: float
    front: float
    name_terms: tuple[str, ...]
    front_weight: float = default_of("name_front_weight", float)

    @property
    def total(self) -> float:
        """Name score plus the first pages' score weighted ``front_weight``: how documents are ordered."""
        return self.score + self.front_weight * self.front


@dataclass(frozen=True)
class IndexState:
    """How far an index has applied its workspace's outbox: ``generation`` tells a workspace from an older one of
    the same name; ``applied`` is the last outbox ``seq`` applied."""

    generation: str
    applied: int
    #: Span entries deleted (removed or replaced) since the index was last built whole: the engine keeps counting
    #: them in its statistics (document frequencies, field lengths) until their segments merge.
    deleted: int = 0


class LexicalIndex(Protocol):
    """One workspace's lexical index. Writes are made visible together by :meth:`commit`."""

    @property
    def state(self) -> IndexState | None:
        """The last committed state (``None``: empty or unreadable, so rebuild)."""

    def analyze(self, text: str) -> list[str]:
        """Terms of ``text`` as the index analyses them (lower-cased, stemmed)."""

    def query_terms(self, text: str) -> list[str]:
        """The terms of ``text`` that rank: analysed, without stop words."""

    def replace(self, doc_ids: Iterable[str], spans: Iterable[SpanEntry], docs: Iterable[DocEntry]) -> int:
        """Remove every entry of ``doc_ids``, then add ``spans`` and ``docs``; returns spans added."""

    def clear(self) -> None:
        """Remove everything (before a rebuild)."""

    def commit(self, state: IndexState) -> None:
        """Make the writes since the last commit visible, recording ``state``."""

    def search(self, query: LexicalQuery, limit: int) -> list[LexicalHit]:
        """The best spans for ``query``, best first."""

    def documents(self, terms: list[str], limit: int, front_weight: float) -> list[DocHit]:
        """Documents whose name (or first pages, weighted ``front_weight``) match the analysed ``terms``, best
        first."""

    def span_count(self, doc_ids: Sequence[str] | None = None) -> int:
        """Live span entries: of the documents ``doc_ids``, or of every document."""

    def knows(self, term: str, doc_ids: Sequence[str] | None = None) -> bool:
        """Whether anything indexed holds the analysed ``term``: in the spans of ``doc_ids`` when given."""

    def phrase_spans(self, phrases: Sequence[str], beyond: int) -> int | None:
        """How many spans hold every one of ``phrases`` as the index matches a phrase (its words' stems in order),
        read from the words' document frequencies alone when one of them is held by at most ``beyond`` spans (then
        that frequency: a bound); ``None`` when the phrases have no word the index analyses (``"§"``)."""

    def phrase_words(self, phrases: Sequence[str]) -> dict[str, int]:
        """Each word of ``phrases`` that the index analyses (as written, lower-cased) and how many spans hold it as the
        index matches it (those of its rarest stem)."""

    def front_terms(self, doc_id: str, terms: list[str]) -> set[str]:
        """Those of the analysed ``terms`` that the first pages (or name) of one document hold."""

    def name_doc_freq(self, term: str) -> int:
        """How many document names hold the analysed ``term`` (twins, one document in several formats, once)."""

    def document_count(self) -> int:
        """Documents in the document index (twins once)."""

    def close(self) -> None:
        """Release files and locks."""
