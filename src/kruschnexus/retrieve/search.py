"""Search: parse -> the named document, if any -> dense leg (SQL, HNSW) and lexical leg (BM25 index, rows read
back through the same SQL filter) -> weighted RRF -> floor -> one hit per passage of twin documents -> v1 hits,
and the explain trace. The question is embedded in a thread of its own from the start (without the words that name
its document, as the lexical index last read in this process tells), while the lexical index is brought up to date,
the named document is looked for and the lexical leg runs."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from kruschnexus.chunk.titles import is_title_only
from kruschnexus.embed.base import Embedder, Stop, Vectors
from kruschnexus.errors import QueryError
from kruschnexus.lexical.analysis import line_markers, looks_like_contents
from kruschnexus.lexical.index import LexicalIndex
from kruschnexus.lexical.sync import Lexicon
from kruschnexus.retrieve.confidence import features
from kruschnexus.retrieve.documents import DocMatch, choose, identifier_terms, name_terms, strip_naming
from kruschnexus.retrieve.filters import (
    items_only,
    items_with_numbers,
    lexical_query,
    mention_patterns,
    named_sections,
    search_filter,
    section_mentions,
    span_filter,
)
from kruschnexus.retrieve.fusion import (
    Candidate,
    FusionSettings,
    Scored,
    fuse,
)
from kruschnexus.retrieve.legs import (
    PendingSeeds,
    Seeds,
    SpanKey,
    dense_leg_rows,
    keyed_rows,
    row_cosine,
    seed_depth,
)
from kruschnexus.retrieve.query import SECTION_REF, Query, parse_query
from kruschnexus.retrieve.trace import explain_trace, reasons
from kruschnexus.retrieve.twins import are_twins, once_per_passage
from kruschnexus.retrieve.vocabulary import (
    absent_words,
    candidate_names,
    telling_absence,
    telling_document_absence,
    unknown_names,
)
from kruschnexus.schema.v1 import ExplainTrace, Hit, SearchResponse
from kruschnexus.store import queries as q
from kruschnexus.store.postgres import PgStore
from kruschnexus.store.records import LegRow
from kruschnexus.wire import hit_from_row

#: Embeds questions beside the rest of their searches (the model's own threads do the work; two searches of a server
#: at once each get one).
_EMBEDDING = ThreadPoolExecutor(max_workers=2, thread_name_prefix="nexus-embed")

#: Reads the lexical leg's spans back on a search's second connection while the dense leg runs on its first (see
#: :func:`run_search`'s ``side``).
_READING = ThreadPoolExecutor(max_workers=4, thread_name_prefix="nexus-lexical-read")


@dataclass(frozen=True)
class SearchOutcome:
    """Hits (best first, at most k) and the trace that explains them (``explain`` builds it)."""

    hits: list[Hit]
    explain: Callable[[], ExplainTrace] = field(repr=False, compare=False)

    @functools.cached_property
    def trace(self) -> ExplainTrace:
        """The trace that explains the hits, built when first asked for (a search that wants only its hits, as
        :meth:`~kruschnexus.corpus.Corpus.search` does, never pays for it)."""
        return self.explain()

    def response(self, query: str) -> SearchResponse:
        """The answer every surface gives (REST, MCP): the hits and, when there are none, why."""
        return SearchResponse(query=query, hits=self.hits, abstain=None if self.hits else self.trace.abstain)


def named_document(
    index: LexicalIndex, query: Query, sources: Callable[[list[str]], dict[str, str]], settings: FusionSettings
) -> DocMatch | None:
    """The document the question names (none when it uses ``doc:`` or names none clearly); ``sources`` gives
    documents' file names, to name twins together; ``settings`` the ``name_*`` knobs."""
    if query.docs:
        return None
    text = SECTION_REF.sub(" ", query.text)
    terms = name_terms(index.analyze, text)
    proper = {t for word in candidate_names(text) for t in index.analyze(word)}
    hits = index.documents(terms, 5, settings.name_front_weight)
    if not hits:
        return None
    names = functools.cache(lambda: sources([h.doc_id for h in hits]))  # read only when twins are asked about

    def twins(a: str, b: str) -> bool:
        return are_twins(names().get(a, a), names().get(b, b))

    return choose(
        hits,
        index.name_doc_freq,
        index.document_count(),
        proper,
        twins,
        identifier_terms(index.analyze, text),
        min_terms=settings.name_min_terms,
        distinctive_share=settings.name_distinctive_share,
        margin=settings.name_margin,
        max_named=settings.name_max_documents,
    )


def naming_terms(index: LexicalIndex, match: DocMatch, query: Query) -> list[str]:
    """The words that name the matched document: those its name holds, and the question's proper names (see
    :func:`~kruschnexus.retrieve.vocabulary.candidate_names`) that its first pages hold ("Tate & Lyle", "Ribbon")."""
    proper = [t for word in candidate_names(query.text) for t in index.analyze(word)]
    return [*match.terms, *sorted(index.front_terms(match.doc_id, proper))]


def run_search(
    store: PgStore,
    embedder: Embedder,
    lexicon: Lexicon,
    workspace: str,
    raw: str,
    k: int,
    settings: FusionSettings,
    side: PgStore | None = None,
    check: Callable[[], None] | None = None,
) -> SearchOutcome:
    """Run one query end to end (see the module docstring). ``side``: a second connection to the server ``store``
    reads from, on which the lexical leg's spans are read back while the dense leg runs on ``store`` (without one,
    one after the other). ``check``: what must hold before the search reads anything (the workspace exists, with
    this model), run while the question is embedded."""
    if k < 1:
        raise QueryError("k must be at least 1", 0)
    query = parse_query(raw)
    if query.is_empty:
        raise QueryError("nothing to search for: add words or a quoted phrase", 0)

    embedding = _Embeddings(embedder, "dense" in settings.legs)
    embedding.start(query.search_text)
    try:
        if check is not None:
            check()
        index, match, text = _named_early(store, lexicon, workspace, query, settings, embedding)
    except BaseException:
        embedding.keep(None)  # a failed check or read: the embeddings under way are given up
        raise
    # The lexical index holds the latest versions only: what it does not know, an older version may hold.
    pinned = bool(query.versions) or query.as_of is not None
    unknown = [] if pinned else unknown_names(SECTION_REF.sub(" ", query.text), index.analyze, index.knows)
    if unknown:
        embedding.keep(None)
        return SearchOutcome([], functools.partial(explain_trace, query, embedder, settings, [], {}, 0, None, unknown))
    doc_ids = match.doc_ids if match else ()
    absent = [] if pinned else _absent(index, text, match, settings, query.search_text)
    if absent:
        # No span holds the whole question, however well it covers the rest, and a leg's first ranks in the named
        # document are no answer either: only meaning can stand for the missing words.
        margin = settings.absent_document_margin if match is not None else settings.absent_margin
        settings = dataclasses.replace(settings, floor=settings.floor + margin, coverage_floor=math.inf, named_top=0)
    query = items_with_numbers(query)
    soft = items_only(query, named=match is not None)
    restricting = dataclasses.replace(query, sections=()) if soft else query
    legs = _Legs(store, embedder, index, settings, text, embedding.keep(text), bool(query.sections), side)
    names: tuple[str, ...] = ()
    if pinned and doc_ids:
        names, doc_ids = tuple(sorted(set(store.document_names(workspace, doc_ids).values()))), ()
    rows, candidates = legs.run(restricting, search_filter(store, restricting, workspace, doc_ids, names), doc_ids)
    named = dataclasses.replace(
        named_sections(query), document=match is not None, documents=len(match.doc_ids) if match else 1, soft=soft
    )
    scored = fuse(candidates, settings, named)
    mentioned: list[str] = []
    if not scored and match is not None and not soft and settings.section_mentions:
        # The named document has no such section, but its text may speak of it (an amendment's "Paragraph 2.3 of
        # the Original Agreement is deleted"): those passages answer, and only those.
        mentioned = section_mentions(query.text)
        if mentioned:
            bare = dataclasses.replace(restricting, sections=())
            mention_f = dataclasses.replace(
                span_filter(bare, workspace, doc_ids, names), mention_patterns=mention_patterns(mentioned)
            )
            rows, candidates = legs.run(bare, mention_f, doc_ids)
            scored = fuse(candidates, settings, dataclasses.replace(named, ids=(), lookup_only=False))
    admitted, repeats = once_per_passage(
        scored,
        k,
        lambda s: (*_described(rows[s.candidate.key]), s.admitted),
        same_share=settings.twin_same_passage,
        stands_for=settings.twin_stands_for,
    )
    if repeats:
        scored = _mark_repeats(scored, repeats, rows)
    hits = [
        hit_from_row(
            rows[s.candidate.key],
            score=round(s.score, 6),
            reasons=reasons(s, query, match, bool(mentioned)),
            confidence=_confidence(embedder, s, rank, settings, query, match is not None),
        )
        for rank, s in enumerate(admitted, start=1)
    ]
    unsearchable = None
    if match is not None and not hits and not index.span_count(match.doc_ids):
        unsearchable = store.document_sources(workspace, [match.doc_id]).get(match.doc_id, match.doc_id)
    trace = functools.partial(
        explain_trace,
        query,
        embedder,
        settings,
        scored,
        rows,
        len(hits),
        match,
        absent=absent,
        unsearchable=unsearchable,
        mentioned=mentioned if scored else None,
    )
    return SearchOutcome(hits, trace)


def _named_early(
    store: PgStore, lexicon: Lexicon, workspace: str, query: Query, settings: FusionSettings, embedding: _Embeddings
) -> tuple[LexicalIndex, DocMatch | None, str]:
    """The workspace's lexical index brought up to date, the document the question names in it, and what the dense
    leg embeds (:func:`_dense_text`). The whole question is being embedded (``embedding``); when the index as this
    process last read it names a document, the question without the naming words is embedded instead, at once. A
    commit since then records another state: the document is looked for again (and the text it leaves embedded
    later, if neither was)."""

    def sources(ids: list[str]) -> dict[str, str]:
        return store.document_sources(workspace, ids)

    opened = lexicon.opened(workspace)
    before = opened.state if opened is not None else None
    guess = _named(opened, query, settings, sources) if opened is not None and before is not None else None
    text = query.search_text
    if opened is not None and guess is not None:
        text = _dense_text(opened, query, guess)
        embedding.only(text)
    lexicon.sync(store, workspace)
    index = lexicon.index(workspace)
    if before is None or index is not opened or index.state != before:
        guess = _named(index, query, settings, sources)
        text = _dense_text(index, query, guess)
    return index, guess, text


def _named(
    index: LexicalIndex, query: Query, settings: FusionSettings, sources: Callable[[list[str]], dict[str, str]]
) -> DocMatch | None:
    """The document the question names, when the search looks for one (``settings.documents``; see
    :func:`named_document`, which ``sources`` gives documents' file names)."""
    return named_document(index, query, sources, settings) if settings.documents else None


def _dense_text(index: LexicalIndex, query: Query, match: DocMatch | None) -> str:
    """What the dense leg embeds: the question without the words that name its document (``match``), unless
    nothing else is left."""
    if match is None:
        return query.search_text
    return strip_naming(index.analyze, query.search_text, naming_terms(index, match, query)) or query.search_text


class _Embeddings:
    """The question's texts being embedded, each in a thread of its own (when the dense leg runs: ``wanted``), until
    the search knows which one its dense leg needs; the others are given up then."""

    def __init__(self, embedder: Embedder, wanted: bool) -> None:
        self.embedder, self.wanted = embedder, wanted
        self.started: dict[str, tuple[Future[Vectors], Stop]] = {}

    def start(self, text: str) -> None:
        """Embed ``text`` (once)."""
        if self.wanted and text not in self.started:
            stop = Stop()
            self.started[text] = (_EMBEDDING.submit(self.embedder.embed, [text], stop), stop)

    def only(self, text: str) -> None:
        """Embed ``text`` and give up the others: not started, or stopped where the model can (the error is left in
        their futures, never read)."""
        self.start(text)
        self._give_up(text)

    def keep(self, text: str | None) -> Future[Vectors] | None:
        """The embedding of ``text`` if it was started and not given up (else ``None``); the others are given up."""
        kept = self.started.get(text) if text is not None else None
        self._give_up(text)
        self.started.clear()
        return None if kept is None or kept[1].is_set() else kept[0]

    def _give_up(self, text: str | None) -> None:
        """Stop every embedding but that of ``text``: not started, or stopped where the model can."""
        for other, (future, stop) in self.started.items():
            if other != text:
                future.cancel()
                stop.set()


@dataclass(frozen=True)
class _Legs:
    """Both retrieval legs for one question's text; :meth:`run` under a given filter (the text embedded once)."""

    store: PgStore
    embedder: Embedder
    index: LexicalIndex
    settings: FusionSettings
    text: str
    #: The embedding of ``text`` on its way (see :data:`_EMBEDDING`), if it was asked for before.
    early: Future[Vectors] | None = None
    #: Read the section markers of each candidate's lines (only a question that names sections uses them).
    markers: bool = True
    #: A second connection to the same server, for the lexical leg's read while the dense leg runs.
    side: PgStore | None = None

    @functools.cached_property
    def vector(self) -> Vectors:
        """The question's embedding (a one-dimensional row)."""
        rows = self.early.result() if self.early is not None else self.embedder.embed([self.text])
        row: Vectors = rows[0]
        return row

    def run(
        self, query: Query, span_f: q.SpanFilter, doc_ids: tuple[str, ...]
    ) -> tuple[dict[tuple[str, int, int], LegRow], list[Candidate]]:
        """Each leg's candidates under ``span_f`` (``query`` gives the lexical index the same restrictions)."""
        # The lexical leg first: the question's embedding may still be on its way while the lexical index is
        # searched and its spans read (the dense leg's check reads their cosines later, by key).
        scores, deeper, seeds = self._lexical(query, span_f, doc_ids)
        try:
            dense_rows = self._dense(query, span_f, seeds, deeper) if "dense" in self.settings.legs else []
            sparse_rows = seeds.rows() if isinstance(seeds, PendingSeeds) else list(seeds)
        finally:
            if isinstance(seeds, PendingSeeds):
                wait([seeds.read])  # the second connection is free again before the search goes on, or its error
        return _candidates(dense_rows, sparse_rows, scores, self.markers)

    def _lexical(
        self, query: Query, span_f: q.SpanFilter, doc_ids: tuple[str, ...]
    ) -> tuple[dict[SpanKey, float], list[SpanKey], Seeds]:
        """The lexical leg: its spans' coverage (by key), the keys of the deeper ranking that mends the dense leg's
        walk (see :func:`~kruschnexus.retrieve.legs.seed_depth`), and its spans; with a second connection and the
        dense leg to run, their read on its way (:class:`~kruschnexus.retrieve.legs.PendingSeeds`)."""
        s = self.settings
        if "sparse" not in s.legs:
            return {}, [], []
        if span_f.pinned:
            # Older versions are not in the lexical index: PostgreSQL's full text ranks their spans.
            sparse_sql, params = q.fulltext_leg(span_f)
            bound = {**params, "text": self.text, "limit": s.sparse_depth}
            return {}, [], self.store.run_leg(sparse_sql, bound, planned_for_values=span_f.planned_for_values)
        lexical = lexical_query(query, self.text, doc_ids, s)
        # One ranking serves the lexical leg (its first spans) and the dense leg's mending (all of them).
        mending = seed_depth(self.index, span_f, s) if "dense" in s.legs else 0
        deep = self.index.search(lexical, max(s.sparse_depth, mending))
        ranked = deep[: s.sparse_depth]
        deeper = [h.key for h in deep] if len(deep) > len(ranked) else []
        scores = {h.key: h.coverage for h in ranked}
        if self.side is not None and "dense" in s.legs and ranked:
            keys = tuple(h.key for h in ranked)
            return scores, deeper, PendingSeeds(keys, _READING.submit(keyed_rows, self.side, span_f, self.text, ranked))
        return scores, deeper, keyed_rows(self.store, span_f, self.text, ranked)

    def _dense(self, query: Query, span_f: q.SpanFilter, seeds: Seeds, deeper: list[SpanKey]) -> list[LegRow]:
        """The dense leg's rows, checked against the lexical leg's ``seeds`` and mended from ``deeper``."""
        counted = functools.partial(self.index.phrase_spans, query.phrases) if query.phrases else None
        words = functools.partial(self.index.phrase_words, query.phrases) if query.phrases else None
        rows, _ = dense_leg_rows(
            self.store,
            span_f,
            self.embedder.dim,
            self.text,
            self.vector,
            self.settings,
            seeds=seeds,
            phrase_spans=counted,
            deeper=deeper,
            phrase_words=words,
        )
        return rows


def _absent(
    index: LexicalIndex, text: str, match: DocMatch | None, settings: FusionSettings, question: str
) -> list[str]:
    """The words of ``text`` (the ``question`` without the words that name its document) whose absence says the
    answer is not there (see :mod:`~kruschnexus.retrieve.vocabulary`): absent from the whole workspace when the
    question names no document, from the document it names when it does; ``[]`` when the absence tells nothing.
    Words are next to each other as the question has them, not as taking the naming words out left them."""
    if match is None:
        if index.span_count() < settings.absent_min_spans:
            return []
        absent = absent_words(text, index.analyze, index.knows, misspelt_chars=settings.absent_misspelt_chars)
        return absent if telling_absence(absent, index.query_terms(text), share=settings.absent_share) else []
    if not settings.absent_in_document:
        return []
    doc_ids = match.doc_ids

    def known(term: str) -> bool:
        return index.knows(term, doc_ids)

    absent = absent_words(text, index.analyze, known, misspelt_chars=settings.absent_misspelt_chars)
    terms = index.query_terms(text)
    telling = telling_document_absence(
        question, absent, terms, share=settings.absent_share, minimum=settings.absent_document_min
    )
    return absent if telling else []


def _mark_repeats(
    scored: list[Scored], repeats: list[tuple[Scored, Scored]], rows: dict[tuple[str, int, int], LegRow]
) -> list[Scored]:
    """``scored`` with the twins' repeats shown as not admitted, and why; a paged twin that stands for an admitted
    repeat is shown admitted."""
    why = {
        item.candidate.key: f"repeats {_citation(rows[kept.candidate.key])} (the same document in another format)"
        for item, kept in repeats
    }
    standing = {kept.candidate.key for _, kept in repeats}
    return [
        dataclasses.replace(s, admitted=False, rejected_because=why[s.candidate.key])
        if s.candidate.key in why
        else dataclasses.replace(s, admitted=True, rejected_because=None)
        if s.candidate.key in standing
        else s
        for s in scored
    ]


def _citation(row: LegRow) -> str:
    return hit_from_row(row).citation


def _described(row: LegRow) -> tuple[str, str, str, bool]:
    return row.doc_id, row.source, row.text, row.paged


def _confidence(
    embedder: Embedder, s: Scored, rank: int, settings: FusionSettings, query: Query, named: bool
) -> float | None:
    if embedder.calibration is None:
        return None
    value = embedder.calibration.confidence(features(s, rank, settings.rrf_k, bool(query.phrases), named))
    return round(value, 4)


def _candidates(
    dense_rows: list[LegRow],
    sparse_rows: list[LegRow],
    coverage: dict[tuple[str, int, int], float],
    markers: bool = True,
) -> tuple[dict[tuple[str, int, int], LegRow], list[Candidate]]:
    """Candidates of both legs; a span's ``sparse_score`` is its lexical coverage; ``markers``: with the section
    markers of their lines (see :class:`~kruschnexus.retrieve.fusion.Candidate`)."""
    rows: dict[tuple[str, int, int], LegRow] = {}
    fields: dict[tuple[str, int, int], dict[str, Any]] = {}
    dense_sorted = sorted(dense_rows, key=lambda r: (-row_cosine(r), r.key))
    for rank, row in enumerate(dense_sorted, start=1):
        key = row.key
        rows[key] = row
        fields.setdefault(key, {}).update(dense_rank=rank, cosine=round(row_cosine(row), 6))
    for rank, row in enumerate(sparse_rows, start=1):
        key = row.key
        rows.setdefault(key, row)
        fields.setdefault(key, {}).update(sparse_rank=rank, sparse_score=coverage.get(key, 0.0))
    return rows, [_candidate(key, rows[key], values, markers) for key, values in fields.items()]


def _candidate(key: tuple[str, int, int], row: LegRow, ranks: dict[str, Any], markers: bool = True) -> Candidate:
    """A span's leg ranks and scores, with what its section and its text say about it (``markers``: the section
    markers of its lines too)."""
    text = row.text
    return Candidate(
        key=key,
        fulltext_match=row.fulltext_match,
        section=row.section,
        section_path=tuple(row.section_path or ()),
        markers=tuple(line_markers(text)) if markers else (),
        opens=tuple(line_markers(text.lstrip().split("\n", 1)[0])) if markers else (),
        contents=looks_like_contents(text),
        title_only=is_title_only(text),
        **ranks,
    )
