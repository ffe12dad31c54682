"""The section grammar shared by documents and questions (``chunk.grammar``).

A table of written forms (both letter cases), negatives, and round trips: an id rendered as a heading marker
parses back to itself, and rendered as a reference in a question finds that stored id among its lookup ids.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.chunk import grammar
from kruschnexus.chunk.grammar import (
    SectionRef,
    ends_within,
    find_refs,
    is_numbered_title_line,
    is_within,
    match_keys,
    normalize_id,
    parse_heading_marker,
    parse_id,
    starts_with_section_marker,
    strip_leading_id,
    strip_refs,
)
from kruschnexus.chunk.sections import is_within as sections_is_within
from kruschnexus.retrieve.query import SECTION_REF, normalize_section

# (text, kind, id, alternatives): one reference, the whole text.
FORMS = [
    ("Section 8.22.030(C)", "section", "8.22.030(C)", ()),
    ("section 8.22.030(c)", "section", "8.22.030(c)", ()),
    ("SECTION 8.22", "section", "8.22", ()),
    ("Sec. 5.2(a)", "section", "5.2(a)", ()),
    ("sec. 5A", "section", "5A", ()),
    ("SEC. 12A", "section", "12A", ()),
    ("§ 8.22.030", "section", "8.22.030", ()),
    ("§8.22", "section", "8.22", ()),
    ("§§ 2.01a", "section", "2.01a", ()),
    ("Section 7.1(a)(iv)", "section", "7.1(a)(iv)", ()),
    ("Section 12(b)(6)", "section", "12(b)(6)", ()),
    ("Article IV", "article", "Article IV", ("Article 4", "4")),
    ("Article iv", "article", "Article IV", ("Article 4", "4")),
    ("ARTICLE 7", "article", "Article 7", ("Article VII", "7")),
    ("article 7(b)", "article", "Article 7(b)", ("Article VII(b)", "7(b)")),
    ("Art. IX", "article", "Article IX", ("Article 9", "9")),
    ("art. 33", "article", "Article 33", ("Article XXXIII", "33")),
    ("Clause 14.2", "clause", "14.2", ()),
    ("clause 14.2(b)", "clause", "14.2(b)", ()),
    ("Paragraph 30", "paragraph", "30", ()),
    ("PARAGRAPH 30", "paragraph", "30", ()),
    ("para. 30", "paragraph", "30", ()),
    ("¶ 30", "paragraph", "30", ()),
    ("¶¶ 30", "paragraph", "30", ()),
    ("Schedule 2.01", "schedule", "Schedule 2.01", ()),
    ("schedule 1.1(a)", "schedule", "Schedule 1.1(a)", ()),
    ("SCHEDULE A", "schedule", "Schedule A", ()),
    ("Exhibit C", "exhibit", "Exhibit C", ()),
    ("exhibit C-2", "exhibit", "Exhibit C-2", ()),
    ("EXHIBIT 10.1", "exhibit", "Exhibit 10.1", ()),
    ("Annex A", "annex", "Annex A", ()),
    ("annex B", "annex", "Annex B", ()),
    ("Appendix B-1", "appendix", "Appendix B-1", ()),
    ("Chapter 8.22", "chapter", "8.22", ()),
    ("CHAPTER 8.22", "chapter", "8.22", ()),
    ("Title 8", "title", "Title 8", ("Title VIII",)),
    ("TITLE IV", "title", "Title IV", ("Title 4",)),
    ("Part II", "part", "Part II", ("Part 2",)),
    ("part 2", "part", "Part 2", ("Part II",)),
    ("O.M.C. 1.2.345(B)", "section", "1.2.345(B)", ()),
    ("o.m.c. 1.2.345(b)", "section", "1.2.345(b)", ()),
    ("OMC 8.22.030", "section", "8.22.030", ()),
    ("Municipal Code 1.2.340", "section", "1.2.340", ()),
    ("Civil Code 1946.1", "section", "1946.1", ()),
    ("Code Section 12.04", "section", "12.04", ()),
    ("U.S.C. § 1983", "section", "1983", ()),
    ("paragraph (g)", "paragraph", "(g)", ()),
    ("Paragraph (h)(2)", "paragraph", "(h)(2)", ()),
]


@pytest.mark.parametrize(("text", "kind", "sid", "alternatives"), FORMS, ids=[f[0] for f in FORMS])
def test_forms(text: str, kind: str, sid: str, alternatives: tuple[str, ...]) -> None:
    refs = find_refs(f"what does {text} say")
    assert refs == [SectionRef(kind, sid, alternatives, 10, 10 + len(text))]
    assert kind in grammar.KINDS
    assert strip_refs(f"what does {text} say") == "what does   say"
    assert parse_id(text) == SectionRef(kind, sid, alternatives, 0, len(text))


@pytest.mark.parametrize(
    "text",
    [
        "$8.22",
        "12.04.2021",
        "page 12",
        "1.5 times",
        "the section on rent",
        "this section applies",
        "Section",
        "an Article about leases",
        "the article",
        "Articles of incorporation",
        "subsection 5",
        "zip code 94612",
        "NYC 2.5 million",
        "exhibit a pattern of late payment",
        "schedule a meeting",
        "in part i think",
        "the article mix",
        "art 5",
        "Secretary 5",
        "titles",
        "8.22.030",
    ],
)
def test_not_references(text: str) -> None:
    assert find_refs(text) == []
    assert strip_refs(text) == text


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("Sections 8.22 and 8.24 apply", ["8.22", "8.24"]),
        ("§§ 3, 4, and 5(a)", ["3", "4", "5(a)"]),
        ("Articles IV or V", ["Article IV", "Article V"]),
        ("Exhibits A & B", ["Exhibit A", "Exhibit B"]),
        ("Section 4 and 5 months", ["4"]),
        ("Section 8.22 and Article IV and ¶ 3", ["8.22", "Article IV", "3"]),
        ("Oakland Municipal Code Section 8.22.010 findings", ["8.22.010"]),
    ],
)
def test_references_in_text(text: str, ids: list[str]) -> None:
    refs = find_refs(text)
    assert [r.id for r in refs] == ids
    assert all(0 <= r.start < r.end <= len(text) for r in refs)


def test_listed_ids_have_their_own_offsets() -> None:
    text = "see Sections 8.22 and 8.24"
    first, second = find_refs(text)
    assert text[first.start : first.end] == "Sections 8.22"
    assert text[second.start : second.end] == "8.24"
    assert strip_refs(text) == "see  "


def test_code_prefix_is_in_the_span_not_the_id() -> None:
    text = "Oakland Municipal Code Section 8.22.010"
    (ref,) = find_refs(text)
    assert ref.id == "8.22.010"
    assert text[ref.start : ref.end] == "Municipal Code Section 8.22.010"
    (ref,) = find_refs("oakland municipal code 1.2.340")
    assert (ref.id, ref.start) == ("1.2.340", 18)  # a lower-case word before "code" stays free text


def test_section_ref_is_the_grammar_pattern() -> None:
    """``retrieve.query.SECTION_REF`` (used by ``retrieve.search``) strips exactly what ``find_refs`` finds."""
    text = "rent O.M.C. 1.2.345(B) and Article IV, Exhibit C-2"
    assert SECTION_REF.sub(" ", text) == strip_refs(text)
    assert re.search(r"\w", SECTION_REF.sub(" ", "Section 8.22 § 8.24")) is None


# --- markers at the start of a block -----------------------------------------------------------------------------

# (block text, kind, id): what the chunker stores.
HEADINGS = [
    ("Section 8.22. Rent Adjustments", "section", "8.22"),
    ("SEC. 12A. Notices.", "section", "12A"),
    ("§§ 8.22.030(B)(1)(a) applies", "section", "8.22.030(B)(1)(a)"),
    ("Section 3 of the Act provides that", "section", "3"),
    ("8.22.030 - Exemptions.", "section", "8.22.030"),
    ("7.1(a)(iv) text", "section", "7.1(a)(iv)"),
    ("ARTICLE IV - TERM", "article", "Article IV"),
    ("Article iv", "article", "Article IV"),
    ("ARTICLE 5", "article", "Article 5"),
    ("Chapter 8.22, Article I", "chapter", "8.22"),
    ("EXHIBIT C", "exhibit", "Exhibit C"),
    ("Exhibit C-2 - Form of Guaranty", "exhibit", "Exhibit C-2"),
    ("EXHIBIT C: LEGAL DESCRIPTION", "exhibit", "Exhibit C"),
    ("Schedule 2.01 Commitments", "schedule", "Schedule 2.01"),
    ("Schedule 1.1(a)", "schedule", "Schedule 1.1(a)"),
    ("ANNEX A", "annex", "Annex A"),
    ("Appendix B. Rules", "appendix", "Appendix B"),
    ("TITLE 8 - HEALTH AND SAFETY", "title", "Title 8"),
    ("PART II", "part", "Part II"),
    ("Clause 14.2 Termination", "clause", "14.2"),
    ("PARAGRAPH 13. DAMAGE TO BUILDING", "paragraph", "13"),
    ("¶ 30", "paragraph", "30"),
    ("   8.22.030 - Exemptions.", "section", "8.22.030"),
]


@pytest.mark.parametrize(("text", "kind", "sid"), HEADINGS, ids=[h[0] for h in HEADINGS])
def test_heading_markers(text: str, kind: str, sid: str) -> None:
    ref = parse_heading_marker(text)
    assert ref is not None
    assert (ref.kind, ref.id) == (kind, sid)
    assert text[ref.start : ref.end].startswith(text.strip()[:3])


@pytest.mark.parametrize(
    "text",
    [
        "Exhibit C attached hereto sets forth the legal description.",
        "Schedule 2.01 lists the commitments.",
        "Paragraph 13 of the lease applies.",
        "Clause 14.2 applies.",
        "Part of the premises",
        "Title to the premises",
        "exhibit C",
        "section 5 continues a sentence",
        "Sections 8.22 and 8.24 apply.",
        "Articles of incorporation",
        "12.04.2021",
        "12.04.2021 The lease was signed.",
        "$8.22 is due",
        "1.5 times the rent",
        "ARTICLE CIVIL RIGHTS",
        "SCHEDULE OF SERVICES AND FEES",
        "EXHIBIT TO THE LEASE",
        "O.M.C. 1.2.345(B) provides",
        "1. Definitions",
        "(a) text",
        "",
    ],
)
def test_not_heading_markers(text: str) -> None:
    assert parse_heading_marker(text) is None


def test_heading_marker_parts() -> None:
    ref = parse_heading_marker("  Schedule 1.1(a)(ii) - Pricing")
    assert ref is not None
    assert (ref.base, ref.items, ref.start, ref.end) == ("Schedule 1.1", ("a", "ii"), 2, 21)


# --- values of the section: operator, match keys, containment ----------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("art.iv", "Article IV"),
        ("Article 7", "Article 7"),
        ("8.22.030(c)", "8.22.030(c)"),
        ("8.22.030(C)", "8.22.030(C)"),
        ("Section 4.2", "4.2"),
        ("§8.22", "8.22"),
        ("sec.5.2.", "5.2"),
        ("chapter 8.22", "8.22"),
        ("¶30", "30"),
        ("exhibit c-2", "Exhibit C-2"),
        ("Schedule 2.01", "Schedule 2.01"),
        ("part ii", "Part II"),
        ("(e)", "(e)"),
        ("hello", "hello"),
        ("article ab", "article ab"),
    ],
)
def test_normalize_id(value: str, expected: str) -> None:
    assert normalize_id(value) == expected
    assert normalize_section(value) == expected


@pytest.mark.parametrize("value", ["hello", "article", "article ab", "Title X1", "", "section", "8.22 rent"])
def test_parse_id_refuses_nonsense(value: str) -> None:
    assert parse_id(value) is None


@pytest.mark.parametrize(
    ("sid", "keys"),
    [
        ("8.22.030(C)", ("8.22.030(C)", "8.22.030(c)")),
        ("4.2(b)(i)", ("4.2(b)(i)", "4.2(b)(I)", "4.2(B)(i)", "4.2(B)(I)")),
        ("12a", ("12a", "12A")),
        ("8.22", ("8.22",)),
        ("Article IV", ("Article IV",)),
        ("Article 7(b)", ("Article 7(b)", "Article 7(B)")),
        ("12(b)(6)", ("12(b)(6)", "12(B)(6)")),
    ],
)
def test_match_keys(sid: str, keys: tuple[str, ...]) -> None:
    assert match_keys(sid) == keys


def test_match_keys_are_bounded() -> None:
    sid = "1(a)(b)(c)(d)(e)(f)"
    assert match_keys(sid) == (sid, "1(A)(B)(C)(D)(E)(F)")
    assert len(match_keys("1(a)(b)(c)(d)(e)")) <= grammar.MAX_MATCH_KEYS


def test_lookup_ids_match_a_stored_id_in_another_case() -> None:
    (ref,) = find_refs("section 8.22.030(c)")
    assert "8.22.030(C)" in ref.lookup_ids
    assert any(is_within("8.22.030(C)(2)", key) for key in ref.lookup_ids)
    assert not any(is_within("8.22", key) for key in ref.lookup_ids)


@pytest.mark.parametrize(
    ("section", "ancestor", "expected"),
    [
        ("8.22.030(C)", "8.22", True),
        ("8.22.030(C)", "8.22.030(C)", True),
        ("8.22", "8.22.030(C)", False),
        ("8.221", "8.22", False),
        ("Article IV(a)", "Article IV", True),
        ("Article IV", "Article I", False),
        ("8.22.030(C)", "8.22.030(c)", False),
    ],
)
def test_is_within(section: str, ancestor: str, expected: bool) -> None:
    assert is_within(section, ancestor) is expected
    assert sections_is_within is is_within


@pytest.mark.parametrize(
    ("section", "items", "expected"),
    [
        ("(g)", "(g)", True),
        ("5.1(g)", "(g)", True),
        ("5.1(g)(2)", "(g)", True),
        ("(h)(2)", "(h)(2)", True),
        ("5.1(gg)", "(g)", False),
        ("5.1(a)", "(g)", False),
        ("5.1", "5", False),
        ("(g)x", "(g)", False),
    ],
)
def test_ends_within(section: str, items: str, expected: bool) -> None:
    """A key of sub-items only (``paragraph (g)``) names that item under any section."""
    assert ends_within(section, items) is expected


# --- round trips -------------------------------------------------------------------------------------------------

_ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIV", "XIX", "XL", "XLIV"]
_ARABIC = {r: i for i, r in enumerate(["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"])}
_ARABIC.update({"XIV": 14, "XIX": 19, "XL": 40, "XLIV": 44})

numbers = st.lists(st.integers(0, 999), min_size=1, max_size=4).map(lambda xs: ".".join(map(str, xs)))
labels = st.sampled_from(["a", "b", "c", "i", "ii", "iv", "x", "A", "B", "C", "IV", "1", "2", "12"])
items = st.lists(labels, max_size=3).map(lambda xs: "".join(f"({x})" for x in xs))
letter = st.sampled_from(["", "A", "a", "B"])


@st.composite
def section_ids(draw: st.DrawFn) -> str:
    return draw(numbers) + draw(letter) + draw(items)


def _swap_items(sid: str) -> str:
    """The id as a question might write it: every sub-item in the other letter case."""
    cut = sid.find("(")
    return sid if cut < 0 else sid[:cut] + sid[cut:].swapcase()


@given(
    section_ids(),
    st.sampled_from(["Section {}", "SECTION {}", "Sec. {}", "SEC. {}", "§ {}", "§{}", "§§ {}"]),
    st.sampled_from(["", " Rent Adjustments", ". Rent", " - Rent", ": Rent", ", as amended"]),
)
def test_section_headings_round_trip(sid: str, style: str, tail: str) -> None:
    ref = parse_heading_marker(style.format(sid) + tail)
    assert ref is not None and (ref.kind, ref.id) == ("section", sid)


@given(numbers.filter(lambda n: "." in n), items, st.sampled_from(["", " Rent", " - Rent", " (Rent)"]))
def test_bare_dotted_headings_round_trip(number: str, sub: str, tail: str) -> None:
    if re.fullmatch(r"\d{1,2}\.\d{1,2}\.(?:19|20)\d\d", number):
        return  # a date, never a marker
    ref = parse_heading_marker(number + sub + tail)
    assert ref is not None and ref.id == number + sub


@given(
    section_ids(),
    st.sampled_from(["section", "Section", "SECTION", "sec.", "Sec.", "§", "§§", "O.M.C. §", "Municipal Code Section"]),
    st.sampled_from(["", "what does ", "rent under "]),
    st.booleans(),
)
def test_section_references_round_trip(sid: str, keyword: str, before: str, swap: bool) -> None:
    written = _swap_items(sid) if swap else sid
    refs = find_refs(f"{before}{keyword} {written} applies")
    assert len(refs) == 1
    assert refs[0].id == written
    assert sid in refs[0].lookup_ids


@given(
    st.sampled_from(_ROMAN),
    st.sampled_from(["ARTICLE {}", "Article {}", "Art. {}", "ART. {}"]),
    st.sampled_from(["", " - TERM", " Term", ". Term"]),
    st.sampled_from(["article {}", "Article {}", "art. {}", "ARTICLE {}"]),
    st.booleans(),
)
def test_article_round_trip(roman: str, heading: str, tail: str, question: str, arabic: bool) -> None:
    stored = parse_heading_marker(heading.format(roman) + tail)
    assert stored is not None and stored.id == f"Article {roman}"
    value = str(_ARABIC[roman]) if arabic else roman.lower() if roman != "I" else roman
    refs = find_refs(question.format(value) + " repairs")
    assert len(refs) == 1
    assert stored.id in refs[0].lookup_ids
    assert refs[0].id == stored.id or stored.id in refs[0].alternatives


@given(
    st.sampled_from(["exhibit", "schedule", "annex", "appendix"]),
    st.sampled_from(["A", "C", "C-2", "AA", "1", "2.01", "1.1(a)", "B-1"]),
    st.sampled_from(["{K} {}", "{k} {}"]),
    st.sampled_from(["", " - Legal Description", ": FORM OF NOTE", " Legal Description", ". Rules"]),
    st.sampled_from(["{k} {}", "{K} {}", "{U} {}"]),
)
def test_division_round_trip(kind: str, ident: str, heading: str, tail: str, question: str) -> None:
    words = {"K": kind.capitalize(), "k": kind.capitalize(), "U": kind.upper()}
    marker = parse_heading_marker(heading.format(ident, **{**words, "k": kind.upper()}) + tail)
    assert marker is not None and (marker.kind, marker.id) == (kind, f"{kind.capitalize()} {ident}")
    lower = {**words, "k": kind}
    refs = find_refs("see " + question.format(ident, **lower) + " for details")
    assert [r.id for r in refs] == [marker.id]


@given(
    st.sampled_from(["paragraph", "clause", "chapter"]),
    numbers,
    st.sampled_from(["", " Damage to Building", ". DAMAGE", " - Damage"]),
)
def test_numbered_kinds_round_trip(kind: str, number: str, tail: str) -> None:
    marker = parse_heading_marker(f"{kind.upper()} {number}{tail}")
    if kind == "chapter" or tail:
        assert marker is not None and (marker.kind, marker.id) == (kind, number)
    refs = find_refs(f"what does {kind} {number} say")
    assert [(r.kind, r.id) for r in refs] == [(kind, number)]


@given(st.text(max_size=80))
def test_any_text_is_safe(text: str) -> None:
    refs = find_refs(text)
    assert all(0 <= r.start < r.end <= len(text) and r.kind in grammar.KINDS for r in refs)
    assert [r.start for r in refs] == sorted(r.start for r in refs)
    parse_heading_marker(text)
    parse_id(text)


# --- ids at the start of a line ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Section 4.2", True),
        ("SECTION 4. Rent", True),
        ("section", True),
        ("§ 12", True),
        ("§12 Notices", True),
        ("SEC. 5", True),
        ("sec. 5A applies", True),
        ("Article IV", True),
        ("ARTICLE 7. INSURANCE", True),
        ("2.2 Procedure for Term Loan Borrowing", True),
        ("4.1(a) Rent", True),
        ("8.22.030 Hours.", True),
        ("1.5 times the Rent", True),
        ("Sections 8.22 and 8.24", False),
        ("Sec 5", False),
        ("Second, the Tenant shall", False),
        ("Articles of Incorporation", False),
        ("Articled clerk", False),
        ("$8.22 per foot", False),
        ("4. Rent", False),
        ("12 Notices", False),
        ("(a) the Tenant", False),
        (" Section 4", False),
        ("the Section 4 notice", False),
        ("", False),
    ],
)
def test_starts_with_section_marker(text: str, expected: bool) -> None:
    assert starts_with_section_marker(text) is expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("2.2 Procedure for Term Loan Borrowing", True),
        ("Section 8.01 Governing Law", True),
        ("SECTION 2 AMOUNT AND TERMS", True),
        ("§ 12 Notices", True),
        ("article 7 Insurance", True),
        ("ARTICLE 7. INSURANCE", True),
        ("  4. Rent", True),
        ("12 Holidays", True),
        ("19.1 Either Party may terminate, without cause, by giving two", False),
        ("12.1 The Executive shall be entitled to 28 days' paid holiday.", False),
        ("ARTICLE IV REPRESENTATIONS AND WARRANTIES", False),
        ("4.1(a) Rent", False),
        ("Section 4.2", False),
        ("$8.22 per linear foot", False),
        ("Sec. 5 Rent", False),
        ("2.2 " + "x" * 51, False),
        ("Governing Law", False),
        ("", False),
    ],
)
def test_is_numbered_title_line(line: str, expected: bool) -> None:
    assert is_numbered_title_line(line) is expected


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        ("4.1(a) Rent", " Rent"),
        ("8.22.030 Hours.", " Hours."),
        ("12.1(a) Late Charges", " Late Charges"),
        ("IV. Conclusion", ". Conclusion"),
        ("xii: Terms", ": Terms"),
        ("§ 12 Notices", " Notices"),
        ("¶ 35 Here", " Here"),
        ("  .7 - Use", " - Use"),
        ("4", ""),
        ("Illness", "Illness"),
        ("Civil Rights", " Rights"),
        ("Definitions", "Definitions"),
        ("Section 4 Rent", "Section 4 Rent"),
        ("$8.22 Rent", "$8.22 Rent"),
        ("12A Rent", "12A Rent"),
        ("", ""),
    ],
)
def test_strip_leading_id(text: str, rest: str) -> None:
    assert strip_leading_id(text) == rest


@given(
    st.sampled_from(["", " ", "§ ", "¶ ", "§", ". "]),
    numbers.flatmap(lambda n: items.map(lambda x: n + x)) | st.sampled_from(_ROMAN + [r.lower() for r in _ROMAN]),
    st.sampled_from([" ", ". ", ": ", " - ", " — ", "\t"]),
    st.text(max_size=30),
)
def test_strip_leading_id_leaves_the_title(before: str, sid: str, sep: str, title: str) -> None:
    assert strip_leading_id(f"{before}{sid}{sep}{title}") == f"{sep}{title}"


_TITLE_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'-() ", min_size=1, max_size=49)


@given(
    st.sampled_from(["", "Section ", "SECTION ", "article ", "§ ", "§"]),
    numbers,
    st.sampled_from([" ", ". ", "  "]),
    st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    _TITLE_WORDS,
    st.sampled_from(".,;:"),
)
def test_a_numbered_title_line_is_a_number_and_a_short_title(
    keyword: str, number: str, sep: str, first: str, title: str, stop: str
) -> None:
    line = f"{keyword}{number}{sep}{first}{title}"
    assert is_numbered_title_line(line)
    assert not is_numbered_title_line(f"{line}{stop}"), "a title with a stop in it is a sentence"
    assert not is_numbered_title_line(f"{line}{'x' * (50 - len(title))}"), "a title of 51 characters is too long"


@given(
    st.sampled_from(["§", "section", "sec.", "article"]).flatmap(
        lambda kw: st.lists(st.booleans(), min_size=len(kw), max_size=len(kw)).map(
            lambda up: "".join(c.upper() if u else c for c, u in zip(kw, up, strict=True))
        )
    ),
    st.text(max_size=20),
    numbers.filter(lambda n: "." in n),
)
def test_a_section_keyword_or_dotted_number_starts_a_marker(keyword: str, rest: str, dotted: str) -> None:
    """Any letter case, anything after it (after a space when the keyword is a word); never inside a word."""
    after = rest if keyword[-1] in ".§" else f" {rest}"
    assert starts_with_section_marker(keyword + after)
    assert starts_with_section_marker(dotted + rest)
    assert not starts_with_section_marker("x" + keyword + after)
    if keyword[-1] not in ".§":
        assert not starts_with_section_marker(f"{keyword}s{after}"), "a plural keyword lists ids: no marker"
