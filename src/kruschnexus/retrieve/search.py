"""Search: parse -> both legs in SQL (same filters) -> fusion -> floor -> v1 hits, and the explain trace."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from kruschnexus.embed.base import Embedder
from kruschnexus.errors import QueryError
from kruschnexus.retrieve.confidence import features
from kruschnexus.retrieve.fusion import (
    Candidate,
    FusionSettings,
    NamedSections,
    Scored,
    abstain_record,
    fuse,
)
from kruschnexus.retrieve.query import SECTION_REF, Query, parse_query
from kruschnexus.schema.v1 import AbstainTrace, CandidateTrace, ExplainTrace, Hit
from kruschnexus.store import queries as q
from kruschnexus.store.postgres import PgStore, Row
from kruschnexus.wire import hit_from_row

#: Candidates each leg contributes before fusion.
LEG_DEPTH = 50


@dataclass(frozen=True)
class SearchOutcome:
    """Hits (best first, at most k) and the trace that explains them."""

    hits: list[Hit]
    trace: ExplainTrace


def like_escape(text: str) -> str:
    """Escape ``%``, ``_`` and ``\\`` for a LIKE pattern."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def glob_to_like(glob: str) -> str:
    """``*.pdf`` -> ``%.pdf``; ``?`` -> ``_``; other characters literal."""
    return "".join("%" if c == "*" else "_" if c == "?" else like_escape(c) for c in glob)


def span_filter(query: Query, workspace: str) -> q.SpanFilter:
    """The SQL restrictions a parsed query puts on both legs."""
    return q.SpanFilter(
        workspace=workspace,
        doc_types=query.doc_types,
        page_ranges=query.pages,
        source_likes=tuple(glob_to_like(d) for d in query.docs),
        sections=query.sections,
        section_likes=tuple(like_escape(s) + tail for s in query.sections for tail in (".%", "(%")),
        phrase_likes=tuple(f"%{like_escape(p.lower())}%" for p in query.phrases),
        excluded_likes=tuple(f"%{like_escape(p.lower())}%" for p in query.excluded_phrases),
        excluded_terms=query.excluded_terms,
    )


def named_sections(query: Query) -> NamedSections:
    """The sections a query names; ``lookup_only`` when the free text is nothing but section references."""
    if not query.sections:
        return NamedSections()
    rest = SECTION_REF.sub(" ", query.text)
    lookup_only = not query.phrases and re.search(r"\w", rest) is None
    return NamedSections(query.sections, lookup_only)


def run_search(
    store: PgStore, embedder: Embedder, workspace: str, raw: str, k: int, settings: FusionSettings
) -> SearchOutcome:
    """Run one query end to end (see the module docstring)."""
    if k < 1:
        raise QueryError("k must be at least 1", 0)
    query = parse_query(raw)
    if query.is_empty:
        raise QueryError("nothing to search for: add words or a quoted phrase", 0)
    span_f = span_filter(query, workspace)
    vector = embedder.embed([query.search_text])[0]
    base = {"text": query.search_text, "limit": LEG_DEPTH, "vector": vector}
    dense_rows: list[Row] = []
    sparse_rows: list[Row] = []
    if "dense" in settings.legs:
        dense_sql, params = q.dense_leg(span_f, embedder.dim)
        dense_rows = store.run_leg(dense_sql, {**params, **base})
    if "sparse" in settings.legs:
        sparse_sql, params = q.sparse_leg(span_f)
        sparse_rows = store.run_leg(sparse_sql, {**params, **base})
    rows, candidates = _candidates(dense_rows, sparse_rows)
    scored = fuse(candidates, settings, named_sections(query))
    admitted = [s for s in scored if s.admitted][:k]
    hits = [
        hit_from_row(
            rows[s.candidate.key],
            score=round(s.score, 6),
            reasons=_reasons(s, query),
            confidence=_confidence(embedder, s, rank, settings, query),
        )
        for rank, s in enumerate(admitted, start=1)
    ]
    trace = _trace(query, embedder, settings, scored, rows, len(hits))
    return SearchOutcome(hits, trace)


def _confidence(embedder: Embedder, s: Scored, rank: int, settings: FusionSettings, query: Query) -> float | None:
    if embedder.calibration is None:
        return None
    value = embedder.calibration.confidence(features(s, rank, settings.rrf_k, bool(query.phrases)))
    return round(value, 4)


def _key(row: Row) -> tuple[str, int, int]:
    return (str(row["doc_id"]), int(row["page_number"]), int(row["ordinal"]))


def _candidates(
    dense_rows: list[Row], sparse_rows: list[Row]
) -> tuple[dict[tuple[str, int, int], Row], list[Candidate]]:
    rows: dict[tuple[str, int, int], Row] = {}
    fields: dict[tuple[str, int, int], dict[str, Any]] = {}
    dense_sorted = sorted(dense_rows, key=lambda r: (-float(r["cosine"]), _key(r)))
    for rank, row in enumerate(dense_sorted, start=1):
        key = _key(row)
        rows[key] = row
        fields.setdefault(key, {}).update(dense_rank=rank, cosine=round(float(row["cosine"]), 6))
    for rank, row in enumerate(sparse_rows, start=1):
        key = _key(row)
        rows.setdefault(key, row)
        fields.setdefault(key, {}).update(sparse_rank=rank, sparse_score=round(float(row["rank_score"]), 6))
    candidates = [
        Candidate(
            key=key,
            fulltext_match=bool(rows[key]["fulltext_match"]),
            section=rows[key]["section"],
            section_path=tuple(rows[key]["section_path"] or ()),
            **values,
        )
        for key, values in fields.items()
    ]
    return rows, candidates


def _reasons(s: Scored, query: Query) -> list[str]:
    reasons = list(s.reasons)
    if query.phrases:
        reasons.append("phrase_match")
    return reasons


def _trace(
    query: Query,
    embedder: Embedder,
    settings: FusionSettings,
    scored: list[Scored],
    rows: dict[tuple[str, int, int], Row],
    hits: int,
) -> ExplainTrace:
    candidates = []
    for s in scored:
        c = s.candidate
        row = rows[c.key]
        candidates.append(
            CandidateTrace(
                citation=hit_from_row(row).citation,
                doc_id=c.key[0],
                page_number=c.key[1] if row["paged"] else None,
                ordinal=c.key[2],
                section=c.section,
                dense_rank=c.dense_rank,
                cosine=c.cosine,
                sparse_rank=c.sparse_rank,
                sparse_score=c.sparse_score,
                fulltext_match=c.fulltext_match,
                dense_term=round(s.dense_term, 6),
                sparse_term=round(s.sparse_term, 6),
                boost=s.boost,
                score=round(s.score, 6),
                admitted=s.admitted,
                rejected_because=s.rejected_because,
                match_reasons=_reasons(s, query),
            )
        )
    abstain = None
    if hits == 0:
        record = abstain_record(scored, settings.floor)
        reason = (
            "no span passed the filters (named section, phrase, page, document)"
            if not scored
            else "no candidate reached the similarity floor or matched every full-text term"
        )
        abstain = AbstainTrace(
            reason=reason,
            best_cosine=record.best_cosine,
            floor=record.floor,
            candidates=record.candidates,
            rejected=record.rejected,
        )
    parsed = {k: v for k, v in dataclasses.asdict(query).items() if v not in ((), "")}
    return ExplainTrace(
        query=query.raw,
        parsed=parsed,
        model_id=embedder.model_id,
        rrf_k=settings.rrf_k,
        section_boost=settings.section_boost,
        floor=settings.floor,
        candidates=candidates,
        hits=hits,
        abstain=abstain,
    )
