"""Blocks of a hand-built page -> chunks (``chunk.chunker.chunk_page``).

Pages are built the way ``layout.page`` builds them: lines joined by ``\\n``, blocks by ``\\n\\n``; every
offset comes from that one concatenation in :func:`make_page`, so the tests never search the text.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.chunk.chunker import chunk_page
from kruschnexus.chunk.lines import LONG_LINE
from kruschnexus.chunk.sections import SectionTracker
from kruschnexus.model import Block, BlockKind, Chunk, Line, Page, Rect

CHAR_W = 5.0
LINE_H = 10.0


def make_page(blocks: Sequence[tuple[BlockKind, Sequence[str]]], number: int = 1) -> Page:
    """A page whose blocks have the given kinds and lines; each printed character gets its own box."""
    text = ""
    rects: list[Rect | None] = []
    lines: list[Line] = []
    out: list[Block] = []
    y = 72.0
    for kind, block_lines in blocks:
        if text:
            text += "\n\n"
            rects += [None, None]
            y += LINE_H
        start, first = len(text), len(lines)
        for k, line in enumerate(block_lines):
            if k:
                text += "\n"
                rects.append(None)
            line_start = len(text)
            boxes = [
                None if ch.isspace() else (72 + i * CHAR_W, y, 72 + (i + 1) * CHAR_W, y + LINE_H)
                for i, ch in enumerate(line)
            ]
            inked = [b for b in boxes if b is not None]
            line_rect = (inked[0][0], y, max(b[2] for b in inked), y + LINE_H) if inked else (72, y, 72, y)
            text += line
            rects += boxes
            lines.append(Line(line_start, len(text), line_rect))
            y += LINE_H * 1.2
        out.append(Block(kind, start, len(text), first, len(lines) - 1, (72, 0, 540, y)))
    page = Page(number=number, width=612, height=792, rotation=0, text=text, char_rects=rects)
    page.lines = lines
    page.blocks = out
    return page


def block_text(page: Page, block: Block) -> str:
    return page.text[block.start : block.end]


def check_invariants(page: Page, chunks: Sequence[Chunk], max_chars: int) -> None:
    """What must hold for any page: exact text, order, body-only, full coverage, boxes, size."""
    previous_end = 0
    for c in chunks:
        assert c.page_number == page.number
        assert c.text == page.text[c.start : c.end]
        assert c.text and not c.text[0].isspace() and not c.text[-1].isspace()
        assert previous_end <= c.start < c.end
        assert c.end - c.start <= max_chars
        previous_end = c.end
        assert list(c.rects) == page.line_rects(c.start, c.end)
        assert c.heading_path[0] == f"Page {page.number}"
        for b in page.blocks:
            overlaps = b.start < c.end and c.start < b.end
            if not b.kind.is_body:
                assert not overlaps, (c, b)
            elif b.kind == BlockKind.FOOTNOTE and overlaps:
                assert b.start <= c.start and c.end <= b.end  # a footnote is its own chunk
        # Every character of a chunk is in a body block or is a separator between blocks.
        for i in range(c.start, c.end):
            if not page.text[i].isspace():
                assert any(b.kind.is_body and b.start <= i < b.end for b in page.blocks)
    covered = {i for c in chunks for i in range(c.start, c.end)}
    for b in page.blocks:
        if b.kind.is_body:
            missing = [i for i in range(b.start, b.end) if not page.text[i].isspace() and i not in covered]
            assert missing == [], (b, missing)


def test_make_page_offsets_compose() -> None:
    page = make_page([(BlockKind.HEADER, ["Acme Lease"]), (BlockKind.PARAGRAPH, ["one two", "three"])])
    assert page.text == "Acme Lease\n\none two\nthree"
    assert len(page.char_rects) == len(page.text)
    assert [block_text(page, b) for b in page.blocks] == ["Acme Lease", "one two\nthree"]
    assert [page.text[line.start : line.end] for line in page.lines] == ["Acme Lease", "one two", "three"]


def lease_page() -> Page:
    return make_page(
        [
            (BlockKind.HEADER, ["Commercial Lease Agreement — Acme Properties LLC"]),
            (BlockKind.HEADING, ["Section 1. Rent"]),
            (BlockKind.PARAGRAPH, ["Tenant shall pay rent monthly.", "Rent is due on the first day."]),
            (BlockKind.PARAGRAPH, ["Section 2. Term. The term is five years.", "It may be renewed once."]),
            (BlockKind.STAMP, ["DRAFT"]),
            (BlockKind.LIST_ITEM, ["(a) Renewal needs written notice."]),
            (BlockKind.FOOTNOTE, ["1 See the rider for renewal rent."]),
            (BlockKind.PAGE_NUMBER, ["Page 1 of 3"]),
        ]
    )


def test_lease_page_chunks() -> None:
    page = lease_page()
    chunks = chunk_page(page, SectionTracker(), max_chars=500)
    check_invariants(page, chunks, 500)
    b = page.blocks
    spans = [(c.start, c.end) for c in chunks]
    assert spans == [
        (b[1].start, b[2].end),  # the heading joins its paragraph
        (b[3].start, b[3].end),  # section 2, up to the stamp
        (b[5].start, b[5].end),  # section 2 again after the stamp
        (b[6].start, b[6].end),  # the footnote alone
    ]
    assert [c.section for c in chunks] == ["1", "2", "2(a)", "2(a)"]
    assert [c.section_path for c in chunks] == [("1",), ("2",), ("2", "2(a)"), ("2", "2(a)")]
    assert [c.block_kinds for c in chunks] == [
        ("heading", "paragraph"),
        ("paragraph",),
        ("list_item",),
        ("footnote",),
    ]
    assert chunks[0].header == "Section 1. Rent"
    assert chunks[0].heading_path == ("Page 1", "Section 1. Rent")
    assert chunks[1].heading_path[0] == "Page 1"
    assert chunks[1].header.startswith("Section 2.")
    assert chunks[3].text == "1 See the rider for renewal rent."


def test_rects_are_one_box_per_line() -> None:
    page = lease_page()
    chunks = chunk_page(page, SectionTracker(), max_chars=500)
    first = chunks[0]
    covered_lines = [line for line in page.lines if first.start <= line.start and line.end <= first.end]
    assert len(covered_lines) == 3  # heading line + two paragraph lines
    assert list(first.rects) == [line.rect for line in covered_lines]
    assert first.bbox == (
        72.0,
        covered_lines[0].rect[1],
        max(r[2] for r in first.rects),
        covered_lines[-1].rect[3],
    )


def test_sections_are_never_mixed_in_one_chunk() -> None:
    page = make_page(
        [
            (BlockKind.PARAGRAPH, ["Section 4.1 Rent. Tenant pays."]),
            (BlockKind.PARAGRAPH, ["It pays on time."]),
            (BlockKind.PARAGRAPH, ["Section 4.2 Deposit. Tenant deposits."]),
            (BlockKind.PARAGRAPH, ["(a) The deposit is returned."]),
        ]
    )
    chunks = chunk_page(page, SectionTracker(), max_chars=900)
    check_invariants(page, chunks, 900)
    assert [(c.section, c.text) for c in chunks] == [
        ("4.1", "Section 4.1 Rent. Tenant pays.\n\nIt pays on time."),
        ("4.2", "Section 4.2 Deposit. Tenant deposits."),
        ("4.2(a)", "(a) The deposit is returned."),
    ]


def test_heading_only_region_joins_the_next_section() -> None:
    page = make_page(
        [
            (BlockKind.HEADING, ["ARTICLE IV", "TERM"]),
            (BlockKind.HEADING, ["Section 4.1 Initial Term"]),
            (BlockKind.PARAGRAPH, ["The term is five years."]),
        ]
    )
    chunks = chunk_page(page, SectionTracker(), max_chars=900)
    check_invariants(page, chunks, 900)
    assert len(chunks) == 1
    only = chunks[0]
    assert (only.start, only.end) == (page.blocks[0].start, page.blocks[2].end)
    assert only.section == "4.1"
    assert only.section_path == ("Article IV", "4.1")
    assert only.header == "Section 4.1 Initial Term"
    assert only.heading_path == ("Page 1", "ARTICLE IV TERM", "Section 4.1 Initial Term")
    assert only.block_kinds == ("heading", "paragraph")


def test_heading_at_the_end_of_a_page_is_its_own_chunk() -> None:
    page = make_page(
        [
            (BlockKind.PARAGRAPH, ["Section 4.1 Term. The term is five years."]),
            (BlockKind.HEADING, ["Section 4.2 Renewal"]),
            (BlockKind.PAGE_NUMBER, ["4"]),
        ]
    )
    chunks = chunk_page(page, SectionTracker(), max_chars=900)
    check_invariants(page, chunks, 900)
    assert [(c.section, c.text) for c in chunks] == [
        ("4.1", "Section 4.1 Term. The term is five years."),
        ("4.2", "Section 4.2 Renewal"),
    ]


def test_unnumbered_heading_closes_sections() -> None:
    page = make_page(
        [
            (BlockKind.PARAGRAPH, ["Section 9.1 Notices. Notices are written."]),
            (BlockKind.HEADING, ["GUARANTY"]),
            (BlockKind.PARAGRAPH, ["Legal description of the premises."]),
        ]
    )
    tracker = SectionTracker()
    chunks = chunk_page(page, tracker, max_chars=900)
    assert [c.section for c in chunks] == ["9.1", None]
    assert chunks[1].header == "GUARANTY"
    assert chunks[1].text == "GUARANTY\n\nLegal description of the premises."
    assert tracker.headers == ("GUARANTY",)


def test_an_exhibit_heading_opens_its_own_section() -> None:
    """``EXHIBIT A`` is a division (grammar kind ``exhibit``): it closes ``9.1`` and opens ``Exhibit A``."""
    page = make_page(
        [
            (BlockKind.PARAGRAPH, ["Section 9.1 Notices. Notices are written."]),
            (BlockKind.HEADING, ["EXHIBIT A"]),
            (BlockKind.PARAGRAPH, ["Legal description of the premises."]),
            (BlockKind.PARAGRAPH, ["1. Parcel One. The land described in the deed."]),
        ]
    )
    tracker = SectionTracker()
    chunks = chunk_page(page, tracker, max_chars=900)
    assert [(c.section, c.section_path) for c in chunks] == [
        ("9.1", ("9.1",)),
        ("Exhibit A", ("Exhibit A",)),
        ("1", ("Exhibit A", "1")),
    ]
    assert chunks[1].text == "EXHIBIT A\n\nLegal description of the premises."


def test_tracker_carries_sections_across_pages() -> None:
    tracker = SectionTracker()
    chunk_page(make_page([(BlockKind.PARAGRAPH, ["Section 3.2 Use. Tenant uses."])]), tracker, 900)
    page2 = make_page([(BlockKind.PARAGRAPH, ["continued text of the use clause."])], number=2)
    chunks = chunk_page(page2, tracker, 900)
    assert [(c.page_number, c.section, c.heading_path) for c in chunks] == [(2, "3.2", ("Page 2", "Section 3.2 Use."))]


def test_long_region_is_windowed() -> None:
    sentence = "Tenant shall keep the premises clean and in good repair."
    page = make_page([(BlockKind.PARAGRAPH, [sentence] * 6)])
    chunks = chunk_page(page, SectionTracker(), max_chars=120)
    check_invariants(page, chunks, 120)
    assert len(chunks) > 1
    assert all(c.text.endswith(".") for c in chunks)


def test_page_of_furniture_only_has_no_chunks() -> None:
    page = make_page([(BlockKind.HEADER, ["Acme"]), (BlockKind.PAGE_NUMBER, ["7"]), (BlockKind.STAMP, ["VOID"])])
    assert chunk_page(page, SectionTracker(), 900) == []


line_text = (
    st.one_of(
        st.sampled_from(
            [
                "Section 4.1 Rent.",
                "ARTICLE II",
                "(a) first item.",
                "(b) second item",
                "1. Definitions",
                "A. Types",
                "Tenant shall pay rent. Landlord shall repair.",
                "8.22.030 - Exemptions.",
                "Page 3",
            ]
        ),
        st.text(alphabet="abcdefghij ABC.;()§0123456789", min_size=1, max_size=120),
    )
    .map(str.strip)
    .filter(bool)
)
block_specs = st.lists(
    st.tuples(st.sampled_from(list(BlockKind)), st.lists(line_text, min_size=1, max_size=4)), max_size=12
)


@given(block_specs, st.integers(20, 400))
def test_random_pages_keep_the_invariants(specs: list[tuple[BlockKind, list[str]]], max_chars: int) -> None:
    page = make_page(specs)
    assert len(page.char_rects) == len(page.text)
    for block, (_, lines) in zip(page.blocks, specs, strict=True):
        assert block_text(page, block) == "\n".join(lines)
    chunks = chunk_page(page, SectionTracker(), max_chars)
    check_invariants(page, chunks, max_chars)


def _sections(page: Page) -> list[tuple[str | None, str]]:
    return [(c.section, page.text[c.start : c.end]) for c in chunk_page(page, SectionTracker(), 900)]


def test_a_line_inside_a_block_that_opens_a_numbered_section_starts_it() -> None:
    page = make_page(
        [
            (
                BlockKind.LIST_ITEM,
                [
                    "12. Holidays",
                    "12.1 The Executive shall be entitled to 28 days' paid holiday.",
                    "12.2 The year runs.",
                ],
            )
        ]
    )
    assert _sections(page) == [
        ("12.1", "12. Holidays\n12.1 The Executive shall be entitled to 28 days' paid holiday."),
        ("12.2", "12.2 The year runs."),
    ]


def test_a_wrapped_line_that_starts_with_a_reference_opens_nothing() -> None:
    lines = ["The Borrower shall comply with the covenants set out in", "Section 7.1 of this Agreement at all times."]
    page = make_page([(BlockKind.PARAGRAPH, ["7. Covenants"]), (BlockKind.PARAGRAPH, lines)])
    assert {section for section, _ in _sections(page)} == {"7"}
    reference_after_sentence = ["Rent is due monthly.", "Section 7.1 of the Act applies."]
    page = make_page([(BlockKind.PARAGRAPH, ["7. Rent"]), (BlockKind.PARAGRAPH, reference_after_sentence)])
    assert {section for section, _ in _sections(page)} == {"7"}


def test_a_list_of_section_headings_stays_one_span() -> None:
    toc = ["2.1 Term Commitments", "2.2 Procedure for Term Loan Borrowing", "2.3 Repayment of Term Loans"]
    page = make_page([(BlockKind.PARAGRAPH, ["SECTION 2 AMOUNT AND TERMS"]), (BlockKind.PARAGRAPH, toc)])
    assert _sections(page) == [("2.1", "SECTION 2 AMOUNT AND TERMS\n\n" + "\n".join(toc))], "the title joins it"


def test_a_line_holding_only_a_section_title_joins_the_text_after_it() -> None:
    page = make_page(
        [
            (BlockKind.PARAGRAPH, ["7.1 Financial Condition Covenants."]),
            (BlockKind.LIST_ITEM, ["(a) Maximum Leverage Ratio. Permit the ratio to exceed 4.75:1.00."]),
            (BlockKind.LIST_ITEM, ["(b) Cure. The Borrower may cure a breach with equity."]),
            (BlockKind.PARAGRAPH, ["7.2 Indebtedness. Create no Indebtedness, except as follows."]),
            (BlockKind.PARAGRAPH, ["Ratio Tables Attached Hereto"]),
            (BlockKind.PARAGRAPH, ["7.3 Liens. Create no Lien."]),
        ]
    )
    assert _sections(page) == [
        (
            "7.1(a)",
            "7.1 Financial Condition Covenants.\n\n(a) Maximum Leverage Ratio. Permit the ratio to exceed 4.75:1.00.",
        ),
        ("7.1(b)", "(b) Cure. The Borrower may cure a breach with equity."),
        ("7.2", "7.2 Indebtedness. Create no Indebtedness, except as follows.\n\nRatio Tables Attached Hereto"),
        ("7.3", "7.3 Liens. Create no Lien."),
    ], "a title line that opens no section (the capitalised words after 7.2) joins nothing"


def test_a_heading_that_ends_mid_sentence_keeps_the_open_sections() -> None:
    page = make_page(
        [
            (BlockKind.LIST_ITEM, ["6. Committee"]),
            (BlockKind.LIST_ITEM, ["(d) Nominees shall:"]),
            (BlockKind.LIST_ITEM, ["i. commit the time to invest in the"]),
            (BlockKind.HEADING, ["CNCF TOC,"]),
            (BlockKind.PARAGRAPH, ["ii. demonstrate experience."]),
        ]
    )
    assert _sections(page)[-1][0] == "6(d)(ii)"


@given(
    st.lists(
        st.sampled_from(["4.1 The Tenant pays.", "Rent is due.", "4. Rent", "(a) Item one.", "and more"]),
        min_size=1,
        max_size=8,
    )
)
def test_cut_blocks_keep_every_character_once(lines: list[str]) -> None:
    page = make_page([(BlockKind.PARAGRAPH, lines)])
    chunks = chunk_page(page, SectionTracker(), 900)
    covered = "".join(page.text[c.start : c.end] for c in chunks)
    assert "".join(covered.split()) == "".join(page.text.split())
    assert all(a.end <= b.start for a, b in itertools.pairwise(chunks))


def test_a_line_after_a_comma_or_an_abbreviation_opens_nothing() -> None:
    heading = ["8.22.050 - Summary of notices required by this Chapter,", "Article I."]
    page = make_page([(BlockKind.PARAGRAPH, heading), (BlockKind.PARAGRAPH, ["The following is a summary."])])
    assert {section for section, _ in _sections(page)} == {"8.22.050"}
    lines = ["Rent increases for work required by O.M.C.", "Chapter 15.27. Allowable adjustments apply.", "More."]
    page = make_page([(BlockKind.PARAGRAPH, ["8.22.020 - Definitions."]), (BlockKind.PARAGRAPH, lines)])
    assert {section for section, _ in _sections(page)} == {"8.22.020"}


def test_figures_and_narrow_columns_open_nothing() -> None:
    figures = ["Redwood City, California 94063", "650.568.6000 (voice)", "5.7", "99.5"]
    page = make_page([(BlockKind.PARAGRAPH, ["9. Notices"]), (BlockKind.PARAGRAPH, figures)])
    assert {section for section, _ in _sections(page)} == {"9"}
    column = [
        "Texas reads the Compact to the contrary, but such provi-",
        "sions would produce further anomalous results. Consider",
        "§6.01(b). That provision states the rule for all States.",
    ]
    page = make_page([(BlockKind.PARAGRAPH, ["II. Analysis"]), (BlockKind.PARAGRAPH, column)])
    assert all(section is None or "6.01" not in section for section, _ in _sections(page))


def test_a_legend_set_as_a_heading_closes_no_section() -> None:
    legend = [
        "CONFIDENTIAL MATERIALS OMITTED AND FILED SEPARATELY",
        "WITH THE COMMISSION.",
        "ASTERISKS DENOTE OMISSIONS.",
    ]
    page = make_page(
        [
            (BlockKind.HEADING, ["16. GENERAL"]),
            (BlockKind.LIST_ITEM, ["a) Assignment. Neither party may assign this Agreement."]),
            (BlockKind.HEADING, legend),
            (BlockKind.LIST_ITEM, ["b) Governing Law. The laws of California govern."]),
        ]
    )
    assert _sections(page)[-1][0] == "16(b)"


def test_sections_run_together_on_one_line_are_cut_at_wide_gaps() -> None:
    """Text saved from a PDF (CUAD / LegalBench-RAG contracts) keeps sections on one line, breaks turned into
    runs of spaces: each section is still a span of its own, and a numbered title joins the section after it."""
    line = (
        "2.1 Rubicon grants to ISA a licence.     2.2 Rubicon grants to ISA a second licence.     "
        "4.2 Rubicon Fees.     4.2.1 ISA pays the fees.     6. TERM AND TERMINATION; WITHDRAWAL.     "
        "6.1 Term. The term is three years."
    )
    page = make_page([(BlockKind.PARAGRAPH, [line])])
    assert _sections(page) == [
        ("2.1", "2.1 Rubicon grants to ISA a licence."),
        ("2.2", "2.2 Rubicon grants to ISA a second licence."),
        ("4.2.1", "4.2 Rubicon Fees.     4.2.1 ISA pays the fees."),
        ("6.1", "6. TERM AND TERMINATION; WITHDRAWAL.     6.1 Term. The term is three years."),
    ]


def test_a_wide_gap_inside_a_sentence_or_a_list_of_names_opens_nothing() -> None:
    mid_sentence = "The Licensee shall pay, within thirty days of     2.2 of the Schedule, the fee."
    clause = "1.11 Parties shall mean ISA and Rubicon.     1.12 Term has the meaning in Section 6.1."
    names = "Noah's Ark     Realtime     S. Shiraishi Office, Inc.     The Herb Shop"
    for line in (mid_sentence, names):
        page = make_page([(BlockKind.PARAGRAPH, ["9. Notices"]), (BlockKind.PARAGRAPH, [line])])
        assert {section for section, _ in _sections(page)} == {"9"}, line
    page = make_page([(BlockKind.PARAGRAPH, [clause])])
    assert _sections(page) == [  # a short clause is no title: it does not join the next section
        ("1.11", "1.11 Parties shall mean ISA and Rubicon."),
        ("1.12", "1.12 Term has the meaning in Section 6.1."),
    ]


@given(
    st.lists(
        st.sampled_from(
            [
                "4.1 The Tenant pays.",
                "Rent is due.",
                "4. RENT.",
                "(a) Item one.",
                "and more",
                "5.2 Fees.",
                "12. Holidays",
                "The Company may amend each benefit plan at any time on reasonable notice to the Executive.",
            ]
        ),
        min_size=1,
        max_size=16,
    ),
    st.sampled_from(["   ", "     ", "\t\t\t", " "]),
)
def test_blocks_cut_at_gaps_keep_every_character_once(parts: list[str], gap: str) -> None:
    page = make_page([(BlockKind.PARAGRAPH, [gap.join(parts)])])
    chunks = chunk_page(page, SectionTracker(), 900)
    check_invariants(page, chunks, 900)
    covered = "".join(page.text[c.start : c.end] for c in chunks)
    assert "".join(covered.split()) == "".join(page.text.split())


def test_a_long_line_is_read_sentence_by_sentence() -> None:
    """A paragraph kept on one line with single spaces (``... notice. 12. Holidays 12.1 The Executive ...``):
    sections still open at sentence starts, a numbered title joins its first subsection, and a reference
    (``Paragraph 2.1`` in ``4. Paragraph 2.1 Term of Lease is amended``) opens nothing."""
    filler = "The Company may amend each benefit plan at any time on reasonable notice to the Executive. " * 5
    amendment = "4. Paragraph 2.1 Term of Lease is amended to read: the term is five years."
    line = (
        f"10.2 {filler}12. Holidays 12.1 The Executive shall be entitled to 28 days' paid holiday. "
        f"12.2 The year runs from 1 January. {amendment}"
    )
    assert len(line) > LONG_LINE
    page = make_page([(BlockKind.PARAGRAPH, [line])])
    assert _sections(page) == [
        ("10.2", f"10.2 {filler.strip()}"),
        ("12.1", "12. Holidays 12.1 The Executive shall be entitled to 28 days' paid holiday."),
        ("12.2", "12.2 The year runs from 1 January."),
        ("4", amendment),  # a plain number opening a sentence opens a section; the reference after it does not
    ]
    short = "Rent is due. 12. Holidays 12.1 The Executive rests."
    page = make_page([(BlockKind.PARAGRAPH, ["9. Notices"]), (BlockKind.PARAGRAPH, [short])])
    assert {section for section, _ in _sections(page)} == {"9"}  # a printed line is never cut at its sentences


def test_a_numbered_clause_inside_a_sentence_opens_nothing() -> None:
    """A double-spaced opinion sets each line as a block: ``(2)`` continues the sentence whose ``(1)`` was inside
    a line; a list that opened with ``(a)`` keeps its ``(b)`` even after ``; and``."""
    lines = [
        "a movant must show by a preponderance of the evidence (1) that his attorney failed to exercise the",
        "customary skill of a reasonably competent attorney, and",
        "(2) that he was prejudiced thereby. Sanders v. State, 738 S.W.2d 856.",
    ]
    page = make_page([(BlockKind.PARAGRAPH, ["II. Analysis"]), *((BlockKind.PARAGRAPH, [line]) for line in lines)])
    assert all(section is None or "(2)" not in section for section, _ in _sections(page))
    items = ["(a) pay the rent when due; and", "(b) keep the premises in good repair."]
    page = make_page([(BlockKind.PARAGRAPH, ["7. Tenant's Duties"]), *((BlockKind.LIST_ITEM, [i]) for i in items)])
    assert [section for section, _ in _sections(page)] == ["7(a)", "7(b)"], "the title line joins its first item"


def test_a_title_at_a_block_end_never_joins_the_next_block() -> None:
    """``12.1 The Landlord.`` ends its block: it keeps its section; the next block's ``13.`` does not take it."""
    page = make_page(
        [
            (BlockKind.PARAGRAPH, ["11.1 Rent is due monthly.     12.1 The Landlord."]),
            (BlockKind.PARAGRAPH, ["13. Insurance. The Tenant insures the premises."]),
        ]
    )
    assert _sections(page) == [
        ("11.1", "11.1 Rent is due monthly."),
        ("12.1", "12.1 The Landlord."),
        ("13", "13. Insurance. The Tenant insures the premises."),
    ]


def test_an_indented_block_chunks_like_an_unindented_one() -> None:
    for line in ["   5.1 The Tenant pays.", "5.1 The Tenant pays."]:
        page = make_page([(BlockKind.HEADING, ["12. Holidays"]), (BlockKind.PARAGRAPH, [line])])
        assert [section for section, _ in _sections(page)] == ["5.1"], line


def test_a_code_section_title_in_sentence_case_joins_its_first_subsection() -> None:
    """Municipal codes print ``8.22.010 - Findings and purpose.``: a title in sentence case after a dash, on one line
    or wrapped onto two. It joins the text after it like a capitalised title; a short sentence after a number does
    not."""
    page = make_page(
        [
            (BlockKind.PARAGRAPH, ["8.22.010 - Findings and purpose."]),
            (BlockKind.LIST_ITEM, ["A. The City Council finds that there is a shortage of rental housing."]),
            (BlockKind.PARAGRAPH, ["8.22.060 - Notice of the existence of this Chapter required at", "commencement."]),
            (BlockKind.LIST_ITEM, ["A. Owners shall give each new tenant a notice."]),
            (BlockKind.PARAGRAPH, ["8.22.070 - Rent. Owners may raise rents once a year."]),
            (BlockKind.LIST_ITEM, ["A. The increase is capped."]),
        ]
    )
    assert _sections(page) == [
        (
            "8.22.010(A)",
            "8.22.010 - Findings and purpose.\n\nA. The City Council finds that there is a shortage of rental housing.",
        ),
        (
            "8.22.060(A)",
            "8.22.060 - Notice of the existence of this Chapter required at\ncommencement.\n\n"
            "A. Owners shall give each new tenant a notice.",
        ),
        ("8.22.070", "8.22.070 - Rent. Owners may raise rents once a year."),
        ("8.22.070(A)", "A. The increase is capped."),
    ]


def test_a_slip_opinion_part_alone_on_its_line_opens_the_part_and_citations_open_nothing() -> None:
    """The Supreme Court sets ``II`` and its subpart ``A`` alone on their lines: a part, and a subpart inside it; a
    lone capital outside any part is text. A section id cited at a block's start (``§1.01(b), id., at 9.``,
    ``Section 6.03(b), which covers ...``, ``§5.05(b)(1)’s silence``) opens nothing; ``Section 6.03(b) Rent`` does."""
    page = make_page(
        [
            (BlockKind.PARAGRAPH, ["B", "In the years since the Compact was ratified, the region has grown."]),
            (BlockKind.PARAGRAPH, ["§1.01(b), id., at 9. The Compact governs the allocation of water."]),
            (BlockKind.PARAGRAPH, ["II", "A", "Tarrant claims that under the Compact it may take water."]),
            (BlockKind.PARAGRAPH, ["§5.05(b)(1)’s silence means that state borders are irrelevant."]),
            (BlockKind.PARAGRAPH, ["Section 6.03(b), which covers subbasin 3, says so expressly."]),
            (BlockKind.PARAGRAPH, ["B", "Interstate compacts are construed as contracts under state law."]),
            (BlockKind.PARAGRAPH, ["III", "We affirm the judgment of the Court of Appeals."]),
            (BlockKind.PARAGRAPH, ["Section 6.03(b) Rent is due monthly."]),
        ]
    )
    assert [section for section, _ in _sections(page)] == [None, "Part II", "Part II(B)", "Part III", "6.03(b)"]


def test_a_lone_numeral_before_figures_opens_no_part() -> None:
    """A pricing grid's level (``III`` before ``≥1.90:1.00``), or a numeral that is a block of its own, is no part."""
    page = make_page(
        [
            (BlockKind.PARAGRAPH, ["1.01 Defined Terms. Applicable Rate means the rate below."]),
            (BlockKind.PARAGRAPH, ["III", "≥1.90:1.00 5.75%"]),
            (BlockKind.PARAGRAPH, ["IV"]),
            (BlockKind.PARAGRAPH, ["(a) Consolidated Net Income, plus"]),
        ]
    )
    assert [section for section, _ in _sections(page)] == ["1.01", "1.01(a)"]
