"""The features a calibrator reads from a fused hit (the only place they are computed).

All are already known when a hit is returned: the dense cosine, the full-text rank score, the RRF score (scaled
so that rank 1 in one leg is 1.0), whether the span is in a section the query names, whether it matches every
full-text term, whether the query had a quoted phrase (which every admitted span then contains), its rank, and
whether the question named its document (the search then ran within it).
"""

from __future__ import annotations

from kruschnexus.embed.calibration import FEATURES
from kruschnexus.retrieve.fusion import Scored
from kruschnexus.schema.v1 import CandidateTrace

__all__ = ["FEATURES", "feature_values", "features", "trace_features"]


def features(scored: Scored, rank: int, rrf_k: int, phrase: bool, named: bool) -> tuple[float, ...]:
    """Feature values of one admitted hit at 1-based ``rank`` (order of :data:`FEATURES`); ``named``: the
    question named its document."""
    c = scored.candidate
    return feature_values(
        c.cosine,
        c.sparse_score,
        scored.dense_term + scored.sparse_term,
        scored.boost > 0,
        c.fulltext_match,
        phrase,
        rank,
        rrf_k,
        named,
    )


def trace_features(candidate: CandidateTrace, rank: int, rrf_k: int) -> tuple[float, ...]:
    """The same features read back from an explain trace's candidate (what calibration fits on)."""
    return feature_values(
        candidate.cosine,
        candidate.sparse_score,
        candidate.dense_term + candidate.sparse_term,
        candidate.boost > 0,
        candidate.fulltext_match,
        "phrase_match" in candidate.match_reasons,
        rank,
        rrf_k,
        "document_named" in candidate.match_reasons,
    )


def feature_values(
    cosine: float | None,
    sparse_score: float | None,
    rrf: float,
    section_match: bool,
    fulltext_match: bool,
    phrase: bool,
    rank: int,
    rrf_k: int,
    named: bool = False,
) -> tuple[float, ...]:
    """The feature vector (order of :data:`FEATURES`); RRF is scaled so that rank 1 in one leg is 1.0."""
    return (
        cosine if cosine is not None else 0.0,
        min(sparse_score or 0.0, 1.0),
        rrf * (rrf_k + 1),
        1.0 if section_match else 0.0,
        1.0 if fulltext_match else 0.0,
        1.0 if phrase else 0.0,
        1.0 / rank,
        1.0 if named else 0.0,
    )
