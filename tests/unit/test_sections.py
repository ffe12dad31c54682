"""Legal section markers and the section tree (``chunk.sections``).

``parse_marker`` is table-driven from ``cases/sections.json``; the tracker is walked through real
numbering patterns (Oakland municipal code, an article/section contract, a numbered contract).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.chunk.sections import Marker, SectionTracker, is_within, item_type, parse_marker

CASES = json.loads((Path(__file__).parent / "cases" / "sections.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[repr(c["text"]) for c in CASES])
def test_parse_marker(case: dict[str, object]) -> None:
    marker = parse_marker(str(case["text"]))
    if case["kind"] is None:
        assert marker is None
    else:
        assert marker is not None
        assert (marker.kind, marker.value, marker.extra) == (case["kind"], case["value"], tuple(case["extra"]))  # type: ignore[arg-type]


def test_item_style_is_how_the_label_is_written() -> None:
    assert parse_marker("(a) text") == Marker("item", "a", style="paren")
    assert parse_marker("a. text") == Marker("item", "a", style="dot")


def test_a_bare_number_numbers_a_heading_block_only() -> None:
    assert parse_marker("22 JURISDICTION AND CHOICE OF LAW", heading=True) == Marker("number", "22")
    assert parse_marker("22 JURISDICTION AND CHOICE OF LAW") is None
    assert parse_marker("2021 ANNUAL REPORT", heading=True) is None


def test_items_of_two_styles_nest() -> None:
    """``(e)`` then ``i.`` then ``a.``: three levels, though ``(e)`` and ``a.`` are both letters."""
    tracker = SectionTracker()
    for text in [
        "6. Technical Oversight Committee",
        "(e) Process",
        "i. Nominations",
        "a. A nomination",
        "b. The Board",
    ]:
        marker = parse_marker(text)
        assert marker is not None
        tracker.open(marker, text)
    assert tracker.section == "6(e)(i)(b)"
    marker = parse_marker("(f) Constraints")
    assert marker is not None
    tracker.open(marker, "(f) Constraints")
    assert tracker.section == "6(f)"


def test_cases_file_is_well_formed() -> None:
    assert len(CASES) >= 20
    assert all(set(c) == {"text", "kind", "value", "extra"} for c in CASES)
    assert any(c["kind"] is None for c in CASES)
    assert {c["kind"] for c in CASES} >= {"section", "article", "number", "item", None}


@pytest.mark.parametrize(
    ("label", "previous", "expected"),
    [
        ("3", None, "digit"),
        ("12", "11", "digit"),
        ("a", None, "lower"),
        ("c", "b", "lower"),
        ("c", None, "lower"),
        ("A", None, "upper"),
        ("C", "B", "upper"),
        ("C", None, "upper"),
        ("i", None, "roman"),
        ("i", "b", "roman"),
        ("ii", "i", "roman"),
        ("iv", None, "roman"),
        ("v", "iv", "roman"),
        ("x", None, "roman"),
        ("i", "h", "lower"),
        ("v", "u", "lower"),
        ("x", "w", "lower"),
        ("j", "i", "lower"),
        ("I", None, "upper_roman"),
        ("IV", None, "upper_roman"),
        ("I", "H", "upper"),
    ],
)
def test_item_type(label: str, previous: str | None, expected: str) -> None:
    assert item_type(label, previous) == expected


@pytest.mark.parametrize(
    ("section", "ancestor", "expected"),
    [
        ("8.22.030(C)", "8.22", True),
        ("8.22.030(C)", "8.22.030", True),
        ("8.22.030(C)", "8.22.030(C)", True),
        ("8.22", "8.22", True),
        ("4.2(b)(i)", "4.2(b)", True),
        ("8.22", "8.22.030(C)", False),
        ("8.221", "8.22", False),
        ("8.22.030", "8.22.03", False),
        ("4.2", "4.1", False),
        ("Article IV", "Article I", False),
        ("12", "1", False),
    ],
)
def test_is_within(section: str, ancestor: str, expected: bool) -> None:
    assert is_within(section, ancestor) is expected


def walk(tracker: SectionTracker, text: str) -> str | None:
    """Open the marker that starts ``text`` (it must have one); return the innermost section."""
    marker = parse_marker(text)
    assert marker is not None, text
    tracker.open(marker, text)
    return tracker.section


def path(tracker: SectionTracker) -> tuple[str, ...]:
    """The open section ids (a call, so the type checker does not pin the value between steps)."""
    return tracker.section_path


def headers(tracker: SectionTracker) -> tuple[str, ...]:
    return tracker.headers


def test_fresh_tracker_is_empty() -> None:
    tracker = SectionTracker()
    assert tracker.section is None
    assert path(tracker) == ()
    assert tracker.headers == ()


def test_oakland_municipal_code_pattern() -> None:
    tracker = SectionTracker()
    assert walk(tracker, "Chapter 8.22 - RESIDENTIAL RENT ADJUSTMENT PROGRAM") == "8.22"
    blocks = [
        "8.22.030 - Exemptions.",
        "A. Types of Dwelling Units Exempt. The following dwelling units are not covered units:",
        "1. Dwelling units whose rents are controlled by a government unit;",
        "2. Dwelling units in hotels rented to transient guests;",
        "B. Exemption Procedures.",
        "1. Owners may petition for an exemption:",
        "a. by filing a petition;",
        "b. by paying the fee.",
        "C. Burden of Proof. The owner bears the burden.",
    ]
    ids = [walk(tracker, text) for text in blocks]
    assert ids == [
        "8.22.030",
        "8.22.030(A)",
        "8.22.030(A)(1)",
        "8.22.030(A)(2)",
        "8.22.030(B)",
        "8.22.030(B)(1)",
        "8.22.030(B)(1)(a)",
        "8.22.030(B)(1)(b)",
        "8.22.030(C)",
    ]
    assert path(tracker) == ("8.22", "8.22.030", "8.22.030(C)")
    assert tracker.headers == (
        "Chapter 8.22 - RESIDENTIAL RENT ADJUSTMENT PROGRAM",
        "8.22.030 - Exemptions.",
        "C. Burden of Proof. The owner bears the burden.",
    )
    # The next section of the chapter closes 8.22.030 and its items but not the chapter.
    assert walk(tracker, "8.22.040 - Notice to tenants.") == "8.22.040"
    assert path(tracker) == ("8.22", "8.22.040")


def test_contract_articles_sections_and_items() -> None:
    tracker = SectionTracker()
    texts = [
        "Article IV",
        "Section 4.1 Rent.",
        "Section 4.2 Late charges.",
        "(a)",
        "(b)",
        "(i)",
        "(ii)",
        "(c)",
    ]
    ids = [walk(tracker, t) for t in texts]
    assert ids == ["Article IV", "4.1", "4.2", "4.2(a)", "4.2(b)", "4.2(b)(i)", "4.2(b)(ii)", "4.2(c)"]
    assert path(tracker) == ("Article IV", "4.2", "4.2(c)")
    # A new article closes every section of the previous one.
    assert walk(tracker, "ARTICLE V") == "Article V"
    assert path(tracker) == ("Article V",)


def test_letter_run_through_i_stays_letters() -> None:
    tracker = SectionTracker()
    walk(tracker, "Section 5.1 Default.")
    ids = [walk(tracker, t) for t in ["(g) text", "(h) text", "(i) text", "(j) text"]]
    assert ids == ["5.1(g)", "5.1(h)", "5.1(i)", "5.1(j)"]
    assert path(tracker) == ("5.1", "5.1(j)")


def test_roman_under_letter_when_i_does_not_follow_h() -> None:
    tracker = SectionTracker()
    walk(tracker, "Section 5.1 Default.")
    walk(tracker, "(a) text")
    assert walk(tracker, "(i) text") == "5.1(a)(i)"
    assert walk(tracker, "(ii) text") == "5.1(a)(ii)"
    assert walk(tracker, "(b) text") == "5.1(b)"


def test_capital_roman_numerals_are_the_parts_of_an_opinion() -> None:
    """An opinion's ``I. Background`` / ``II. Analysis`` are ``Part I`` and ``Part II`` (as ``PART II`` reads, and
    as the text cites them), not items ``(I)`` of the numbered paragraph open before them; the paragraphs and
    lettered headings inside a part nest in it."""
    tracker = SectionTracker()
    assert walk(tracker, "¶ 1 This case concerns a statute.") == "1"
    assert walk(tracker, "I. Background") == "Part I"
    assert walk(tracker, "¶ 3 The General Assembly acted.") == "3"
    assert path(tracker) == ("Part I", "3")
    assert walk(tracker, "II. Analysis") == "Part II"
    assert path(tracker) == ("Part II",)
    assert walk(tracker, "¶ 16 Plaintiffs argue.") == "16"
    assert walk(tracker, "A. The Predominant-Factor Test") == "16(A)"
    assert path(tracker) == ("Part II", "16", "16(A)")
    assert walk(tracker, "¶ 37 Accordingly, we hold.") == "37"
    assert walk(tracker, "D. Gambling") == "37(D)"
    assert walk(tracker, "III. Conclusion") == "Part III"
    assert path(tracker) == ("Part III",)
    assert tracker.headers == ("III. Conclusion",)


def test_capital_i_after_h_is_still_a_letter() -> None:
    tracker = SectionTracker()
    walk(tracker, "2. During each Contract Year")
    assert [walk(tracker, f"{c}. Text of the item.") for c in "GHIJ"] == ["2(G)", "2(H)", "2(I)", "2(J)"]


def test_capital_i_after_h_and_its_numbered_items_is_still_a_letter() -> None:
    """``H.``, ``1.``, ``2.``, ``I.``: ``I`` follows ``H`` (the items in between are numbers), as in a code's
    definitions; so do ``V.`` after ``U.`` and ``v.`` after ``u.``."""
    tracker = SectionTracker()
    walk(tracker, "8.22.030 Definitions.")
    for text in ["H. eighth", "1. sub one", "2. sub two"]:
        walk(tracker, text)
    assert walk(tracker, "I. ninth") == "8.22.030(I)"
    assert walk(tracker, "J. tenth") == "8.22.030(J)"
    lower = SectionTracker()
    walk(lower, "Section 5.1 Default.")
    for text in ["u. text", "1. sub one"]:
        walk(lower, text)
    marker = parse_marker("v. text")
    assert marker is not None and lower.opens(marker)
    lower.open(marker, "v. text")
    assert lower.section == "5.1(v)"


def test_a_part_inside_a_division_is_named_by_it() -> None:
    tracker = SectionTracker()
    walk(tracker, "EXHIBIT B")
    assert walk(tracker, "I. Points of Delivery") == "Exhibit B(I)"
    assert walk(tracker, "II. Points of Receipt") == "Exhibit B(II)"
    assert path(tracker) == ("Exhibit B", "Exhibit B(II)")


def test_a_small_roman_numeral_opens_an_item_only_in_its_list() -> None:
    """``v. Hardin`` (a case name) opens nothing; ``i.`` starts a list and ``ii.`` continues it."""
    tracker = SectionTracker()
    walk(tracker, "¶ 34 Here, chance controls the game.")
    hardin = parse_marker("v. Hardin, 183 N.C. App. 92, 99 (2007)")
    assert hardin is not None
    assert not tracker.opens(hardin)
    listed = SectionTracker()
    walk(listed, "Section 5.1 Default.")
    for text, opens in [("i. first", True), ("ii. second", True), ("iv. skipped one", False), ("iii. third", True)]:
        marker = parse_marker(text)
        assert marker is not None
        assert listed.opens(marker) is opens, text
        if opens:
            listed.open(marker, text)
    assert listed.section == "5.1(iii)"


def test_numbered_contract_top_numbers_are_siblings() -> None:
    tracker = SectionTracker()
    assert walk(tracker, "1. Definitions") == "1"
    assert walk(tracker, '1.1 "Affiliate" means any entity') == "1.1"
    assert path(tracker) == ("1", "1.1")
    assert walk(tracker, "1.2 Other terms") == "1.2"
    assert path(tracker) == ("1", "1.2")
    assert walk(tracker, "2. Term") == "2"
    assert path(tracker) == ("2",)
    assert walk(tracker, "2.1 Initial term") == "2.1"
    assert path(tracker) == ("2", "2.1")


def test_section_with_written_sub_items() -> None:
    tracker = SectionTracker()
    assert walk(tracker, "7.1(a)(iv) text") == "7.1(a)(iv)"
    assert path(tracker) == ("7.1", "7.1(a)", "7.1(a)(iv)")


def test_title_closes_open_sections() -> None:
    tracker = SectionTracker()
    walk(tracker, "Article IV")
    walk(tracker, "Section 4.1 Rent.")
    walk(tracker, "(a) text")
    tracker.title("EXHIBIT A")
    assert tracker.section is None
    assert path(tracker) == ()
    assert tracker.headers == ("EXHIBIT A",)
    # A title stays the outermost heading of the article that follows it.
    walk(tracker, "Article V")
    assert path(tracker) == ("Article V",)
    assert headers(tracker) == ("EXHIBIT A", "Article V")
    tracker.body()  # text of Article V: a heading after it is no longer the article's caption
    tracker.title("SIGNATURES")
    assert headers(tracker) == ("SIGNATURES",)


def test_headings_right_after_a_division_are_its_caption() -> None:
    tracker = SectionTracker()
    walk(tracker, "Section 9.1 Notices.")
    assert walk(tracker, "EXHIBIT A") == "Exhibit A"
    tracker.title("LEGAL DESCRIPTION OF PREMISES")
    tracker.title("THAT PART OF LOT 4")
    assert tracker.section == "Exhibit A"
    assert headers(tracker) == ("EXHIBIT A", "THAT PART OF LOT 4")
    assert walk(tracker, "1. Parcel One") == "1"
    assert path(tracker) == ("Exhibit A", "1")
    tracker.body()
    tracker.title("SIGNATURES")
    assert tracker.section is None
    # An article's title on its own line keeps the article open, and the next article drops the caption.
    walk(tracker, "ARTICLE 2")
    tracker.title("TERM")
    assert (tracker.section, headers(tracker)) == ("Article 2", ("SIGNATURES", "ARTICLE 2", "TERM"))
    walk(tracker, "ARTICLE 3")
    assert headers(tracker) == ("SIGNATURES", "ARTICLE 3")


MARKER_TEXTS = [
    "Article IV",
    "ARTICLE 5",
    "Chapter 8.22",
    "Section 4.1",
    "Section 4.2",
    "8.22.030 - Exemptions.",
    "8.22.040 - Notice.",
    "7.1(a) text",
    "1. Definitions",
    "2. Term",
    "1.1 Text",
    "(a) text",
    "(b) text",
    "(h) text",
    "(i) text",
    "(ii) text",
    "A. text",
    "B. text",
    "a. text",
    "3. the landlord",
    "I. Background",
    "II. Analysis",
    "EXHIBIT B",
]


@given(st.lists(st.sampled_from([*MARKER_TEXTS, None]), max_size=30))
def test_section_path_is_a_chain(texts: list[str | None]) -> None:
    """Whatever the order of markers, each open id lies within the one before it (divisions and parts aside)."""
    tracker = SectionTracker()
    for text in texts:
        if text is None:
            tracker.title("A TITLE")
        else:
            walk(tracker, text)
        path = tracker.section_path
        assert tracker.section == (path[-1] if path else None)
        assert len(tracker.headers) >= len(path)
        for outer, inner in itertools.pairwise(path):
            assert outer != inner
            assert outer.startswith(("Article ", "Exhibit ", "Part ")) or is_within(inner, outer), path


def test_a_plain_number_just_past_a_dotted_section_is_the_next_top_level() -> None:
    """Text saved from a PDF often runs ``1. Definitions`` and ``3. Pre-Conditions`` into the paragraph before, so
    the tracker sees ``2.2`` and then ``4. Duties``: that is section 4, not item ``2.2(4)``. A list under the
    section (``1.``, ``2.``, ...) stays a list, however far it goes; a number far past the section is an item."""
    tracker = SectionTracker()
    assert walk(tracker, "2.1 Notice. Six weeks.") == "2.1"
    assert walk(tracker, "2.2 The Executive's period of continuous employment commenced in 2013.") == "2.2"
    assert walk(tracker, "4. Duties") == "4"
    assert walk(tracker, "4.1 The Executive shall serve as Chief Medical Officer.") == "4.1"
    assert walk(tracker, "5. Place of Work") == "5"

    listed = SectionTracker()
    assert walk(listed, "8.22.030 - Exemptions.") == "8.22.030"
    assert [walk(listed, f"{n}. Dwelling units of kind {n};") for n in range(1, 12)] == [
        f"8.22.030({n})" for n in range(1, 12)
    ]
    far = SectionTracker()
    assert walk(far, "2.2 Term.") == "2.2"
    assert walk(far, "7. Pay the fee.") == "2.2(7)"


def test_a_paragraph_item_heading_inside_a_section_is_an_item() -> None:
    """``Paragraph (b) Notwithstanding ...`` at the start of a block opens no section of its own (before, the
    question form ``paragraph (g)`` leaked into the heading grammar and made it an empty top-level section)."""
    assert parse_marker("Paragraph (b) Notwithstanding the foregoing") is None
    assert parse_marker("PARAGRAPH 13. DAMAGE") == Marker("section", "13")
