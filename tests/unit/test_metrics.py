"""Evaluation metrics: hand-computed cases plus properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.eval.metrics import (
    Tally,
    citation_correct,
    ece,
    fold,
    is_relevant,
    ndcg_at_k,
    recall_at_k,
    reliability_bins,
    section_matches,
)
from kruschnexus.eval.suite import SuiteQuery

GOLD = SuiteQuery(
    id="q1",
    family="commercial_lease",
    query="when can the landlord keep the security deposit",
    doc="lease/sample lease.pdf",
    page=3,
    section="7.1",
    gold_text="Landlord may apply the Security Deposit to cure any default",
    kind="concept",
)
NEGATIVE = SuiteQuery(
    id="n1", family="municipal", query="Section 8.22.999", doc=None, page=None, section=None, gold_text=None,
    kind="hard_negative",
)  # fmt: skip


# --- nDCG and recall -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("relevance", "expected"),
    [
        ([True, False, False, False, False], 1.0),
        ([False, False, True, False, False], 0.5),  # 1 / log2(3 + 1)
        ([False, True, False], 1 / math.log2(3)),
        ([False] * 5, 0.0),
        ([], 0.0),
        ([False, False, True, True, True], 0.5),  # only the first relevant hit gains
    ],
)
def test_ndcg_at_5_hand_computed(relevance: list[bool], expected: float) -> None:
    assert ndcg_at_k(relevance, 5) == pytest.approx(expected)


def test_ndcg_ignores_hits_below_k() -> None:
    assert ndcg_at_k([False, False, False, False, False, True], 5) == 0.0
    assert ndcg_at_k([False, False, False, False, False, True], 6) == pytest.approx(1 / math.log2(7))


def test_recall_at_k() -> None:
    assert recall_at_k([False, False, True], 3) == 1.0
    assert recall_at_k([False, False, True], 2) == 0.0
    assert recall_at_k([], 5) == 0.0
    assert recall_at_k([True, True], 1) == 1.0


@pytest.mark.parametrize("k", [0, -1])
def test_k_must_be_positive(k: int) -> None:
    with pytest.raises(ValueError, match="k must be at least 1"):
        ndcg_at_k([True], k)
    with pytest.raises(ValueError, match="k must be at least 1"):
        recall_at_k([True], k)


@given(st.lists(st.booleans(), max_size=12), st.integers(1, 12))
def test_ndcg_is_in_unit_interval_and_one_iff_top_hit_relevant(relevance: list[bool], k: int) -> None:
    score = ndcg_at_k(relevance, k)
    assert 0.0 <= score <= 1.0
    assert (score == 1.0) == (bool(relevance) and relevance[0])
    assert (score > 0.0) == (recall_at_k(relevance, k) == 1.0)
    assert recall_at_k(relevance, k) <= recall_at_k(relevance, k + 1)


# --- calibration -----------------------------------------------------------------------------------------


def test_ece_of_a_perfectly_calibrated_set_is_zero() -> None:
    confidences = [0.25] * 4 + [0.75] * 4 + [1.0] * 2
    correct = [True, False, False, False, True, True, True, False, True, True]
    assert ece(confidences, correct) == pytest.approx(0.0, abs=1e-12)


def test_ece_of_a_badly_calibrated_set() -> None:
    # Bin [0.9, 1.0): 4 predictions at 0.9, 1 right -> |0.25 - 0.9| = 0.65, weight 4/6.
    # Bin [0.2, 0.3): 2 predictions at 0.2, none right -> |0 - 0.2| = 0.2, weight 2/6.
    # ECE = (4 * 0.65 + 2 * 0.2) / 6 = 3.0 / 6 = 0.5
    confidences = [0.9, 0.9, 0.9, 0.9, 0.2, 0.2]
    correct = [True, False, False, False, False, False]
    assert ece(confidences, correct) == pytest.approx(0.5)


def test_ece_of_confident_and_always_wrong_is_one() -> None:
    assert ece([1.0, 1.0, 1.0], [False, False, False]) == pytest.approx(1.0)


def test_reliability_bins_for_plotting() -> None:
    bins = reliability_bins([0.05, 0.15, 0.18, 1.0], [False, True, False, True], bins=10)
    assert len(bins) == 10
    assert [b.count for b in bins] == [1, 2, 0, 0, 0, 0, 0, 0, 0, 1]  # 1.0 falls in the last, closed bin
    assert bins[1].mean_confidence == pytest.approx(0.165)
    assert bins[1].accuracy == pytest.approx(0.5)
    assert (bins[2].mean_confidence, bins[2].accuracy) == (0.0, 0.0)
    assert (bins[9].lower, bins[9].upper) == (0.9, 1.0)


@pytest.mark.parametrize(
    ("confidences", "correct", "message"),
    [
        ([0.5], [True, False], "1 confidences but 2 outcomes"),
        ([1.5], [True], "outside"),
        ([-0.1], [True], "outside"),
        ([], [], "at least one prediction"),
    ],
)
def test_ece_rejects_bad_input(confidences: list[float], correct: list[bool], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ece(confidences, correct)


@given(
    st.lists(st.tuples(st.floats(0.0, 1.0), st.booleans()), min_size=1, max_size=50),
    st.integers(1, 20),
)
def test_ece_is_in_unit_interval_and_bins_cover_every_prediction(pairs: list[tuple[float, bool]], bins: int) -> None:
    confidences = [c for c, _ in pairs]
    correct = [ok for _, ok in pairs]
    assert 0.0 <= ece(confidences, correct, bins) <= 1.0 + 1e-12
    table = reliability_bins(confidences, correct, bins)
    assert sum(b.count for b in table) == len(pairs)
    assert all(b.lower <= b.mean_confidence <= b.upper for b in table if b.count)


# --- relevance and citation ------------------------------------------------------------------------------


def test_relevance_folds_whitespace_and_case() -> None:
    hit = "LANDLORD  may apply the\nSecurity   Deposit to cure any default by Tenant."
    assert is_relevant("sample lease.pdf", 3, hit, GOLD)


def test_relevance_accepts_containment_both_ways() -> None:
    assert is_relevant("sample lease.pdf", 3, "… Landlord may apply the Security Deposit to cure any default.", GOLD)
    assert is_relevant("sample lease.pdf", 3, "may apply the Security Deposit", GOLD)  # hit inside the gold text


def test_relevance_needs_the_same_document_and_page() -> None:
    text = GOLD.gold_text or ""
    assert is_relevant("lease/sample lease.pdf", 3, text, GOLD)  # compared by file name
    assert not is_relevant("sample lease.pdf", 4, text, GOLD)
    assert not is_relevant("sample lease.pdf", None, text, GOLD)
    assert not is_relevant("other lease.pdf", 3, text, GOLD)


def test_relevance_rejects_unrelated_empty_and_negative() -> None:
    assert not is_relevant("sample lease.pdf", 3, "Tenant shall pay Base Rent monthly.", GOLD)
    assert not is_relevant("sample lease.pdf", 3, "  \n ", GOLD)
    assert not is_relevant("anything.pdf", 1, "Section 8.22.999", NEGATIVE)


@pytest.mark.parametrize(
    ("raw", "folded"),
    [
        ("The of\ufb01ce  is \ufb02oor\nspace", "the office is floor space"),
        ("commer\ufffecial premises", "commercial premises"),
        ("commer\u00ad\ncial", "commercial"),
        ("a well-\nknown landmark", "a wellknown landmark"),
        ("a well-known landmark", "a wellknown landmark"),
        ("Model 737-8, rated A- or better", "model 737-8, rated a- or better"),
        ("“Lease” and ‘Tenant’", "\"lease\" and 'tenant'"),
    ],
)
def test_fold(raw: str, folded: str) -> None:
    assert fold(raw) == folded


@given(st.text(max_size=80))
def test_fold_is_idempotent(text: str) -> None:
    assert fold(fold(text)) == fold(text)


@pytest.mark.parametrize(
    ("hit", "gold", "ok"),
    [
        ("7.1", "7.1", True),
        ("7.1(a)", "7.1", True),
        ("7.1.2", "7.1", True),
        ("7.1", "7.1(a)", False),
        ("7.10", "7.1", False),
        ("8.22.030(C)", "8.22.030", True),
        ("8.22.0301", "8.22.030", False),
        ("Article IV", "Article IV", True),
        (None, "7.1", False),
        (None, None, True),
        ("anything", None, True),
    ],
)
def test_section_rule(hit: str | None, gold: str | None, ok: bool) -> None:
    assert section_matches(hit, gold) is ok


def test_citation_needs_document_page_and_section() -> None:
    assert citation_correct("sample lease.pdf", 3, "7.1(a)", GOLD)
    assert not citation_correct("sample lease.pdf", 3, "7.2", GOLD)
    assert not citation_correct("sample lease.pdf", 2, "7.1", GOLD)
    assert not citation_correct("other.pdf", 3, "7.1", GOLD)
    assert citation_correct("sample lease.pdf", 3, None, GOLD.model_copy(update={"section": None}))
    assert not citation_correct("x.pdf", 1, None, NEGATIVE)


# --- Tally -----------------------------------------------------------------------------------------------


def test_tally_prints_value_and_raw_counts() -> None:
    assert str(Tally(45, 54)) == "0.83 (45/54)"
    assert str(Tally.of([True, False, True])) == "0.67 (2/3)"
    assert str(Tally.of([1.0, 0.5, 0.0])) == "0.50 (1.50/3)"
    assert str(Tally()) == "n/a (0/0)"
    assert Tally().value is None
    assert Tally(1, 2) + Tally(2, 2) == Tally(3, 4)
