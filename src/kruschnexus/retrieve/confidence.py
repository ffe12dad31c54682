"""The features a calibrator reads from a fused hit (the only place they are computed).

All are already known when a hit is returned: the dense cosine, the full-text rank score, the RRF score (scaled
so that rank 1 in one leg is 1.0), whether the span is in a section the query names, whether it matches every
full-text term, whether the query had a quoted phrase (which every admitted span then contains), and its rank.
"""

from __future__ import annotations

from kruschnexus.embed.calibration import FEATURES
from kruschnexus.retrieve.fusion import Scored

__all__ = ["FEATURES", "features"]


def features(scored: Scored, rank: int, rrf_k: int, phrase: bool) -> tuple[float, ...]:
    """Feature values of one admitted hit at 1-based ``rank`` (order of :data:`FEATURES`)."""
    c = scored.candidate
    return (
        c.cosine if c.cosine is not None else 0.0,
        min(c.sparse_score or 0.0, 1.0),
        (scored.dense_term + scored.sparse_term) * (rrf_k + 1),
        1.0 if scored.boost > 0 else 0.0,
        1.0 if c.fulltext_match else 0.0,
        1.0 if phrase else 0.0,
        1.0 / rank,
    )
