"""Ranking math: Reciprocal Rank Fusion, the capped section boost and the fail-closed floor. Pure.

RRF: Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and individual rank
learning methods" (SIGIR 2009): ``score = Σ w_leg / (k + rank)`` over the legs that ranked a candidate, with a
weight per leg (1.0 each is plain RRF; the weights in force were chosen on the dev split, docs/evaluation.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kruschnexus.chunk.grammar import ends_within
from kruschnexus.chunk.sections import is_within
from kruschnexus.config import DEFAULT_FLOOR, MAX_SECTION_BOOST, RRF_K, default_of

#: Why a span is not admitted (:attr:`Scored.rejected_because`): outside the sections the query names.
REJECT_SECTION = "outside_named_section"
#: Why a span is not admitted: below the similarity floor, and nothing else admits it.
REJECT_FLOOR = "below_floor_no_fulltext_match"


@dataclass(frozen=True)
class Candidate:
    """One span seen by at least one leg.

    Attributes:
        key: ``(doc_id, page_number, ordinal)``.
        dense_rank / cosine: 1-based rank and cosine similarity in the dense leg, if it ranked the span.
        sparse_rank / sparse_score: 1-based rank in the lexical leg, if it ranked the span, and its lexical
            coverage (BM25 over that of an average-length span holding each query term once, 0-1; see
            :class:`~kruschnexus.lexical.index.LexicalHit`).
        fulltext_match: the span matches every term of the full-text query.
        section / section_path: the span's section id and its ancestors.
        markers: section markers that open a line of the span's text, lower-cased (``12.1``, ``exhibit a``):
            the span holds the start of those sections even where the chunker did not split at them.
        opens: the markers of the span's first line: the span is where those sections begin.
        contents: the span is a table of contents (see
            :func:`~kruschnexus.lexical.analysis.looks_like_contents`): it ranks after every other span.
        title_only: the span is a heading alone (see :func:`~kruschnexus.chunk.titles.is_title_only`): unless
            the query names a section, it ranks after every span that holds text.
    """

    key: tuple[str, int, int]
    dense_rank: int | None = None
    cosine: float | None = None
    sparse_rank: int | None = None
    sparse_score: float | None = None
    fulltext_match: bool = False
    section: str | None = None
    section_path: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()
    opens: tuple[str, ...] = ()
    contents: bool = False
    title_only: bool = False


@dataclass(frozen=True, kw_only=True)
class FusionSettings:
    """Knobs of fusion and the steps around it, each a :class:`~kruschnexus.config.Settings` field of the same name
    (``documents``: ``document_match``); the explain trace echoes ``rrf_k``, ``section_boost`` and ``floor``.
    Given by name only: a knob added in the middle cannot shift the others."""

    rrf_k: int = RRF_K
    section_boost: float = MAX_SECTION_BOOST
    #: Share of the section boost a span gets when it lies in a named section but does not open it.
    section_inside_share: float = default_of("section_inside_share", float)
    floor: float = DEFAULT_FLOOR
    dense_weight: float = default_of("dense_weight", float)
    sparse_weight: float = default_of("sparse_weight", float)
    #: A span whose lexical coverage reaches this is admitted below the similarity floor (above 1: never).
    coverage_floor: float = default_of("coverage_floor", float)
    #: In a document the question names, a span either leg ranks this high is admitted below the floor.
    named_top: int = default_of("named_top", int)
    #: A span both legs rank first is admitted this far below the floor when its lexical coverage reaches
    #: :attr:`agree_coverage` (the legs agree on it, and the question's words are mostly there).
    agree_margin: float = default_of("agree_margin", float)
    agree_coverage: float = default_of("agree_coverage", float)
    #: Candidates each leg contributes before fusion.
    dense_depth: int = default_of("dense_depth", int)
    sparse_depth: int = default_of("sparse_depth", int)
    #: Whether a question that names its document is answered from that document only.
    documents: bool = default_of("document_match", bool)
    #: Power of the named document's own IDF in the lexical leg (see :attr:`LexicalQuery.local_idf`).
    local_idf: float = default_of("local_idf", float)
    #: The HNSW beam of the dense leg.
    ef_search: int = default_of("ef_search", int)
    #: Spans the dense leg reads nearest-first under a filter that may pass many (see ``Settings.dense_scan``).
    dense_scan: int = default_of("dense_scan", int)
    #: Under a filter that passes spans by their keys, the dense leg ranks exactly when at most this many times
    #: sqrt(dense_depth x spans stored) pass (see ``Settings.dense_exact``).
    dense_exact: float = default_of("dense_exact", float)
    #: How deep in the lexical ranking a filtered walk of the graph is mended (see ``Settings.dense_seeds``).
    dense_seeds: int = default_of("dense_seeds", int)
    #: Added to the floor when the question holds a word no document of the workspace holds and names no document:
    #: only a passage this much closer in meaning may stand for what the workspace never mentions.
    absent_margin: float = default_of("absent_margin", float)
    #: The rule above holds only in a workspace of this many spans or more: a small one lacks everyday words.
    absent_min_spans: int = default_of("absent_min_spans", int)
    #: The same margin when the question names its document and that document lacks a telling share of its words.
    absent_in_document: bool = default_of("absent_in_document", bool)
    #: The margin of that rule: small, as the passages it keeps out are those below the floor that a named document's
    #: first ranks or lexical coverage would have admitted; one a little above the floor still answers.
    absent_document_margin: float = default_of("absent_document_margin", float)
    #: When the named document has no section the question names, answer from its passages that mention it.
    section_mentions: bool = default_of("section_mentions", bool)
    #: Below: knobs of the steps around fusion, carried there by the search (:class:`~kruschnexus.config.Settings`).
    absent_misspelt_chars: int = default_of("absent_misspelt_chars", int)
    absent_share: float = default_of("absent_share", float)
    absent_document_min: int = default_of("absent_document_min", int)
    name_min_terms: int = default_of("name_min_terms", int)
    name_distinctive_share: float = default_of("name_distinctive_share", float)
    name_margin: float = default_of("name_margin", float)
    name_max_documents: int = default_of("name_max_documents", int)
    name_front_weight: float = default_of("name_front_weight", float)
    context_boost: float = default_of("context_boost", float)
    ids_boost: float = default_of("ids_boost", float)
    local_idf_min_weight: float = default_of("local_idf_min_weight", float)
    local_idf_max_documents: int = default_of("local_idf_max_documents", int)
    twin_same_passage: float = default_of("twin_same_passage", float)
    twin_stands_for: float = default_of("twin_stands_for", float)
    #: Retrieval legs in use: both (the product), or one of them alone (the ablations ``nexus eval`` reports).
    legs: tuple[str, ...] = ("dense", "sparse")


@dataclass(frozen=True)
class Scored:
    """A candidate after fusion: its terms, its score, and whether it was admitted (and why not)."""

    candidate: Candidate
    dense_term: float
    sparse_term: float
    boost: float
    score: float
    admitted: bool
    reasons: tuple[str, ...] = ()
    rejected_because: str | None = None


@dataclass(frozen=True)
class NamedSections:
    """Sections a query names, and whether naming them is all the query does (a pure lookup)."""

    ids: tuple[str, ...] = ()
    lookup_only: bool = False
    #: The question names its document, and both legs ranked within that document only.
    document: bool = False
    #: How many documents it names together (one document in several formats): each leg's first
    #: ``named_top`` ranks per document are admitted, so that copies of one passage do not use up the admission.
    documents: int = 1
    #: The sections only reorder: spans outside them are not rejected (``paragraph (g)`` with no document named:
    #: every document has a ``(g)``).
    soft: bool = False


def rrf_term(rank: int | None, k: int) -> float:
    """``1 / (k + rank)``, or 0 when the leg did not rank the candidate."""
    return 0.0 if rank is None else 1.0 / (k + rank)


def in_named_section(candidate: Candidate, named: Sequence[str]) -> bool:
    """The span lies in one of the named sections or below it, or a line of it opens one of them."""
    if any(n.lower() in candidate.markers for n in named):
        return True
    if candidate.section is None:
        return False
    section = candidate.section
    return any(is_within(section, n) or ends_within(section, n) or n in candidate.section_path for n in named)


def score(candidate: Candidate, settings: FusionSettings, named: NamedSections) -> Scored:
    """Fuse one candidate: RRF terms, the capped boost, admission by section and floor."""
    dense = settings.dense_weight * rrf_term(candidate.dense_rank, settings.rrf_k)
    sparse = settings.sparse_weight * rrf_term(candidate.sparse_rank, settings.rrf_k)
    matched_section = bool(named.ids) and in_named_section(candidate, named.ids)
    boost = 0.0
    if matched_section:
        # The span where a named section begins gets the whole boost; its later spans a share of it (three quarters),
        # so a lookup cites the section's opening words first (the boost still only reorders).
        opening = any(n.lower() in candidate.opens for n in named.ids)
        share = 1.0 if opening else settings.section_inside_share
        boost = min(max(settings.section_boost, 0.0), MAX_SECTION_BOOST) * share
    above_floor = candidate.cosine is not None and candidate.cosine >= settings.floor
    covered = candidate.sparse_score is not None and candidate.sparse_score >= settings.coverage_floor
    best_rank = min(r for r in (candidate.dense_rank, candidate.sparse_rank, 10**9) if r is not None)
    top_of_named = named.document and best_rank <= settings.named_top * max(1, named.documents)
    legs_agree = (
        candidate.dense_rank == 1
        and candidate.sparse_rank == 1
        and candidate.cosine is not None
        and candidate.cosine >= settings.floor - settings.agree_margin
        and candidate.sparse_score is not None
        and candidate.sparse_score >= settings.agree_coverage
    )
    flags = {
        "section_locator_match": matched_section,
        "above_floor": above_floor,
        "lexical_coverage": covered,
        "fulltext_match": candidate.fulltext_match,
        "table_of_contents": candidate.contents,
        "heading_alone": candidate.title_only,
        "top_of_named_document": top_of_named,
        "legs_agree": legs_agree,
    }
    reasons = [
        f"{leg}_rank_{rank}" for leg, rank in (("dense", candidate.dense_rank), ("sparse", candidate.sparse_rank))
    ]
    reasons = [r for r in reasons if not r.endswith("_None")] + [name for name, on in flags.items() if on]
    rejected: str | None = None
    if named.ids and not matched_section and not named.soft:
        rejected = REJECT_SECTION
    elif not (
        above_floor
        or covered
        or candidate.fulltext_match
        or top_of_named
        or legs_agree
        or (named.lookup_only and matched_section and not named.soft)
    ):
        rejected = REJECT_FLOOR
    return Scored(candidate, dense, sparse, boost, dense + sparse + boost, rejected is None, tuple(reasons), rejected)


def fuse(candidates: Iterable[Candidate], settings: FusionSettings, named: NamedSections) -> list[Scored]:
    """Every candidate scored, best first (ties broken by key, so input order never matters); tables of contents,
    and headings alone when the query names no section, after every other span, whatever their score."""
    scored = [score(c, settings, named) for c in candidates]
    bare = not named.ids

    def empty(c: Candidate) -> bool:
        return c.contents or (bare and c.title_only)

    return sorted(scored, key=lambda s: (empty(s.candidate), -s.score, s.candidate.key))


@dataclass
class Abstain:
    """Why a search returned nothing: best cosine seen, the floor, and rejections by reason."""

    best_cosine: float | None
    floor: float
    candidates: int
    rejected: dict[str, int] = field(default_factory=dict)


def abstain_record(scored: Sequence[Scored], floor: float) -> Abstain:
    """Summary of rejected candidates."""
    cosines = [s.candidate.cosine for s in scored if s.candidate.cosine is not None]
    counts: dict[str, int] = {}
    for s in scored:
        if s.rejected_because:
            counts[s.rejected_because] = counts.get(s.rejected_because, 0) + 1
    return Abstain(max(cosines) if cosines else None, floor, len(scored), counts)
