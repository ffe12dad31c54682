"""Fusion: RRF terms, the capped boost that only reorders, the fail-closed floor, order independence."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.config import MAX_SECTION_BOOST
from kruschnexus.retrieve.fusion import (
    REJECT_FLOOR,
    REJECT_SECTION,
    Candidate,
    FusionSettings,
    NamedSections,
    abstain_record,
    fuse,
    rrf_term,
    score,
)

SETTINGS = FusionSettings(rrf_k=60, section_boost=0.12, floor=0.4)

_candidates = st.lists(
    st.builds(
        Candidate,
        key=st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(1, 5), st.integers(0, 9)),
        dense_rank=st.none() | st.integers(1, 50),
        cosine=st.none() | st.floats(-1, 1),
        sparse_rank=st.none() | st.integers(1, 50),
        sparse_score=st.none() | st.floats(0, 1),
        fulltext_match=st.booleans(),
        section=st.none() | st.sampled_from(["8.22", "8.22.030", "8.22.030(C)", "4.1", "4.1(a)"]),
    ),
    max_size=30,
    unique_by=lambda c: c.key,
)
_named = st.builds(NamedSections, ids=st.lists(st.sampled_from(["8.22", "8.22.030(C)", "4.1"]), max_size=2).map(tuple))


def test_rrf_term() -> None:
    assert rrf_term(1, 60) == pytest.approx(1 / 61)
    assert rrf_term(None, 60) == 0.0


@given(_candidates, _named, st.randoms())
def test_fusion_does_not_depend_on_input_order(candidates: list[Candidate], named: NamedSections, rnd) -> None:  # type: ignore[no-untyped-def]
    shuffled = list(candidates)
    rnd.shuffle(shuffled)
    assert fuse(candidates, SETTINGS, named) == fuse(shuffled, SETTINGS, named)


@given(_candidates, _named, st.floats(-5, 5))
def test_boost_is_capped_and_never_admits(candidates: list[Candidate], named: NamedSections, boost: float) -> None:
    settings = FusionSettings(rrf_k=60, section_boost=boost, floor=0.4)
    without = {
        s.candidate.key: s for s in fuse(candidates, FusionSettings(rrf_k=60, section_boost=0.0, floor=0.4), named)
    }
    for s in fuse(candidates, settings, named):
        assert 0.0 <= s.boost <= MAX_SECTION_BOOST
        assert s.admitted == without[s.candidate.key].admitted
        assert s.score == pytest.approx(s.dense_term + s.sparse_term + s.boost)


def test_floor_or_full_text_admits() -> None:
    none = NamedSections()
    assert score(Candidate(("a", 1, 0), dense_rank=1, cosine=0.41), SETTINGS, none).admitted
    low = score(Candidate(("a", 1, 0), dense_rank=1, cosine=0.39), SETTINGS, none)
    assert not low.admitted and low.rejected_because == REJECT_FLOOR
    assert score(Candidate(("a", 1, 0), sparse_rank=1, fulltext_match=True, cosine=0.1), SETTINGS, none).admitted
    partial = score(Candidate(("a", 1, 0), sparse_rank=1, fulltext_match=False, cosine=0.1), SETTINGS, none)
    assert not partial.admitted


def test_named_section_restricts_and_boosts() -> None:
    named = NamedSections(("8.22.030",))
    inside = score(Candidate(("a", 1, 0), dense_rank=3, cosine=0.9, section="8.22.030(C)"), SETTINGS, named)
    outside = score(Candidate(("a", 1, 1), dense_rank=1, cosine=0.9, section="8.22"), SETTINGS, named)
    assert inside.admitted and inside.boost == pytest.approx(0.09) and "section_locator_match" in inside.reasons
    opening = Candidate(("a", 1, 2), dense_rank=3, cosine=0.9, section="8.22.030", opens=("8.22.030",))
    assert score(opening, SETTINGS, named).boost == 0.12, "the span that opens the section gets the whole boost"
    assert not outside.admitted and outside.rejected_because == REJECT_SECTION
    lookup = NamedSections(("8.22.030(C)",), lookup_only=True)
    assert score(Candidate(("a", 1, 0), dense_rank=9, cosine=0.0, section="8.22.030(C)"), SETTINGS, lookup).admitted
    parent = score(Candidate(("a", 1, 0), dense_rank=9, cosine=0.9, section="8.22.030"), SETTINGS, lookup)
    assert not parent.admitted, "8.22.030 must not answer a query for 8.22.030(C)"


def test_an_item_named_in_no_named_document_only_reorders() -> None:
    """``paragraph (g)`` with no document named: a ``(g)`` under any section is boosted, and spans elsewhere are
    not rejected for it (every document has a ``(g)``); within a named document it restricts as a section does."""
    soft = NamedSections(("(g)",), soft=True)
    nested = score(Candidate(("a", 1, 0), dense_rank=3, cosine=0.9, section="5.1(g)"), SETTINGS, soft)
    other = score(Candidate(("a", 1, 1), dense_rank=1, cosine=0.9, section="5.1(h)"), SETTINGS, soft)
    assert nested.admitted and nested.boost == pytest.approx(0.09)
    assert other.admitted and other.boost == 0.0
    lookup = NamedSections(("(g)",), lookup_only=True, soft=True)
    weak = score(Candidate(("a", 1, 2), dense_rank=9, cosine=0.3, section="(g)"), SETTINGS, lookup)
    assert not weak.admitted, "an item named in no document is no lookup: below the floor it stays out"
    hard = NamedSections(("(g)",), document=True)
    assert score(Candidate(("a", 1, 0), dense_rank=3, cosine=0.9, section="(g)(2)"), SETTINGS, hard).admitted
    assert score(Candidate(("a", 1, 1), dense_rank=1, cosine=0.9, section="(h)"), SETTINGS, hard).rejected_because == (
        REJECT_SECTION
    )


def test_reasons_and_abstain_record() -> None:
    s = score(Candidate(("a", 1, 0), dense_rank=2, cosine=0.2, sparse_rank=7), SETTINGS, NamedSections())
    assert s.reasons[:2] == ("dense_rank_2", "sparse_rank_7")
    record = abstain_record([s], 0.4)
    assert record.best_cosine == 0.2 and record.rejected == {REJECT_FLOOR: 1} and record.candidates == 1


def test_admission_routes_below_the_floor() -> None:
    low = Candidate(key=("a", 1, 0), dense_rank=9, cosine=0.1, sparse_rank=9, sparse_score=0.2)
    assert score(low, SETTINGS, NamedSections()).rejected_because == REJECT_FLOOR
    covered = Candidate(key=("a", 1, 1), dense_rank=9, cosine=0.1, sparse_rank=1, sparse_score=0.9)
    scored = score(covered, SETTINGS, NamedSections())
    assert scored.admitted and "lexical_coverage" in scored.reasons
    top = Candidate(key=("a", 1, 2), dense_rank=2, cosine=0.1, sparse_rank=30, sparse_score=0.1)
    assert not score(top, SETTINGS, NamedSections()).admitted
    named_doc = score(top, FusionSettings(named_top=2), NamedSections(document=True))
    assert named_doc.admitted and "top_of_named_document" in named_doc.reasons
    assert not score(top, FusionSettings(named_top=1), NamedSections(document=True)).admitted
    # One document named in two formats: each leg's ranks hold two copies of a passage, so twice the ranks count.
    assert score(top, FusionSettings(named_top=1), NamedSections(document=True, documents=2)).admitted


@pytest.mark.parametrize(
    ("dense_rank", "sparse_rank", "cosine", "coverage", "admitted"),
    [
        (1, 1, 0.446, 0.70, True),  # both legs' first, just under the floor, most words there
        (1, 1, 0.39, 0.70, False),  # too far under the floor
        (1, 1, 0.446, 0.40, False),  # too few of the question's words
        (1, 2, 0.446, 0.70, False),  # the legs disagree
        (2, 1, 0.446, 0.70, False),
    ],
)
def test_a_span_both_legs_rank_first_is_admitted_just_under_the_floor(
    dense_rank: int, sparse_rank: int, cosine: float, coverage: float, admitted: bool
) -> None:
    settings = FusionSettings(floor=0.45)
    candidate = Candidate(
        ("a", 1, 0), dense_rank=dense_rank, cosine=cosine, sparse_rank=sparse_rank, sparse_score=coverage
    )
    scored = score(candidate, settings, NamedSections())
    assert scored.admitted == admitted and ("legs_agree" in scored.reasons) == admitted


def test_a_line_that_opens_the_named_section_counts_as_in_it() -> None:
    opened = Candidate(key=("a", 6, 0), cosine=0.9, section="12", section_path=("12",), markers=("12", "12.1"))
    assert score(opened, SETTINGS, NamedSections(("12.1",))).admitted
    exhibit = Candidate(key=("a", 16, 0), cosine=0.9, section=None, markers=("exhibit a",))
    assert score(exhibit, SETTINGS, NamedSections(("Exhibit A",))).admitted
    other = Candidate(key=("a", 6, 1), cosine=0.9, section="12", section_path=("12",), markers=("12",))
    assert score(other, SETTINGS, NamedSections(("12.1",))).rejected_because == REJECT_SECTION


@given(_candidates, st.floats(0.1, 3.0), st.floats(0.1, 3.0))
def test_leg_weights_scale_their_terms(candidates: list[Candidate], wd: float, ws: float) -> None:
    plain = {s.candidate.key: s for s in fuse(candidates, SETTINGS, NamedSections())}
    weighted = FusionSettings(rrf_k=60, section_boost=0.12, floor=0.4, dense_weight=wd, sparse_weight=ws)
    for s in fuse(candidates, weighted, NamedSections()):
        assert s.dense_term == pytest.approx(wd * plain[s.candidate.key].dense_term)
        assert s.sparse_term == pytest.approx(ws * plain[s.candidate.key].sparse_term)
        assert s.admitted == plain[s.candidate.key].admitted


def test_a_table_of_contents_ranks_after_every_other_span() -> None:
    listing = Candidate(("a", 2, 0), dense_rank=1, cosine=0.9, sparse_rank=1, contents=True)
    clause = Candidate(("a", 8, 0), dense_rank=5, cosine=0.5, sparse_rank=7)
    fused = fuse([listing, clause], SETTINGS, NamedSections())
    assert [s.candidate.key for s in fused] == [("a", 8, 0), ("a", 2, 0)]
    assert fused[1].score > fused[0].score and fused[1].admitted
    assert "table_of_contents" in fused[1].reasons


def test_a_heading_alone_ranks_last_unless_a_section_is_named() -> None:
    heading = Candidate(("a", 2, 0), dense_rank=1, cosine=0.9, sparse_rank=1, section="5", title_only=True)
    clause = Candidate(("a", 3, 0), dense_rank=5, cosine=0.5, sparse_rank=7, section="5(a)")
    assert [s.candidate.key for s in fuse([heading, clause], SETTINGS, NamedSections())] == [("a", 3, 0), ("a", 2, 0)]
    lookup = NamedSections(("5",), lookup_only=True)
    assert fuse([heading, clause], SETTINGS, lookup)[0].candidate.key == ("a", 2, 0)
