"""The explain trace of one search: every candidate with its ranks, RRF terms, boost and why it was admitted or not,
what the question was parsed into, and why the search abstained when it did; and the reasons a hit shows."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from kruschnexus.embed.base import Embedder
from kruschnexus.retrieve.documents import DocMatch
from kruschnexus.retrieve.fusion import FusionSettings, Scored, abstain_record
from kruschnexus.retrieve.query import Query
from kruschnexus.schema.v1 import AbstainTrace, CandidateTrace, ExplainTrace
from kruschnexus.store.records import LegRow
from kruschnexus.wire import hit_from_row


def reasons(s: Scored, query: Query, match: DocMatch | None = None, mentioned: bool = False) -> list[str]:
    """What a hit (or a candidate of the trace) says of why it matched."""
    out = list(s.reasons)
    if query.phrases:
        out.append("phrase_match")
    if match is not None:
        out.append("document_named")
    if mentioned:
        out.append("section_mentioned")
    return out


def explain_trace(
    query: Query,
    embedder: Embedder,
    settings: FusionSettings,
    scored: list[Scored],
    rows: dict[tuple[str, int, int], LegRow],
    hits: int,
    match: DocMatch | None,
    unknown: list[str] | None = None,
    absent: list[str] | None = None,
    unsearchable: str | None = None,
    mentioned: list[str] | None = None,
) -> ExplainTrace:
    """The explain trace; ``unsearchable``: the file name of the document the question names when it holds no
    searchable text at all (a scan stored without OCR)."""
    candidates = []
    for s in scored:
        c = s.candidate
        row = rows[c.key]
        candidates.append(
            CandidateTrace(
                citation=hit_from_row(row).citation,
                doc_id=c.key[0],
                page_number=c.key[1] if row.paged else None,
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
                match_reasons=reasons(s, query, match, bool(mentioned)),
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
        if unknown:
            reason = f"the question names {', '.join(unknown)}, which no document of this workspace contains"
        elif absent and scored:
            where = "the document the question names holds none of" if match else "no document of this workspace holds"
            reason = (
                f"{where} {', '.join(absent)}, and no candidate came close enough in "
                f"meaning to stand for it (similarity floor raised to {settings.floor:.2f})"
            )
        elif unsearchable is not None:
            reason = (
                f"the document the question names, {unsearchable}, holds no searchable text (pages without a text "
                "layer that were not OCR'd: install Tesseract, then run nexus reingest)"
            )
        elif match is not None and query.sections and (not scored or mentioned):
            reason = f"the document the question names has no section {', '.join(query.section_refs or query.sections)}"
            if mentioned:
                reason += f"; no passage that mentions {', '.join(mentioned)} came close enough to answer"
        abstain = AbstainTrace(
            reason=reason,
            best_cosine=record.best_cosine,
            floor=record.floor,
            candidates=record.candidates,
            rejected=record.rejected,
        )
    parsed: dict[str, Any] = {
        k: v.isoformat() if isinstance(v, datetime) else v
        for k, v in dataclasses.asdict(query).items()
        if v not in ((), "", None)
    }
    if absent:
        parsed["absent_words"] = list(absent)
    if mentioned:
        parsed["section_mentioned"] = list(mentioned)
    if match is not None:
        parsed["document"] = {
            "doc_id": match.doc_id,
            "source": next((r.source for r in rows.values() if r.doc_id == match.doc_id), unsearchable),
            "doc_ids": list(match.doc_ids),
            "naming_terms": list(match.terms),
            "score": round(match.score, 4),
            "runner_up": round(match.runner_up, 4),
        }
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
