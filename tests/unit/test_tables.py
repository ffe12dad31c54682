"""Tables on synthetic pages: ruled grids (``layout.grid``), table detection (``layout.tables``), the page text of a
table (``layout.page``) and table spans (``chunk.chunker.table_pieces``).

Fragments and glyphs are built with a fixed advance (5 pt) and height (10 pt), so every box is known.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kruschnexus.chunk.chunker import chunk_page, table_pieces
from kruschnexus.chunk.sections import SectionTracker
from kruschnexus.layout.cells import Table, cut_at, header_rows, is_figure
from kruschnexus.layout.fragments import Fragment, split_fragments
from kruschnexus.layout.furniture import Furniture
from kruschnexus.layout.grid import grids_of, merged_slots, rules_of
from kruschnexus.layout.page import build_page
from kruschnexus.layout.tables import find_tables
from kruschnexus.model import BlockKind, Cell, Page, Rect, union
from kruschnexus.parse.glyphs import Glyph
from kruschnexus.parse.pdf import PageGeometry, RawPage
from tests.unit.test_chunk_page import check_invariants

W = 5.0
H = 10.0
PITCH = 14.0

Line = Sequence[tuple[str, float]]  # runs of one printed line: (text, left x)


def frag(text: str, x: float, y: float, bold: bool = False) -> Fragment:
    rects: list[Rect | None] = [
        None if ch == " " else (x + k * W, y, x + (k + 1) * W, y + H) for k, ch in enumerate(text)
    ]
    box = union(r for r in rects if r is not None)
    assert box is not None
    return Fragment(text, rects, box, H, bold)


def frags_of(lines: Sequence[Line], top: float = 100.0, pitch: float = PITCH) -> list[Fragment]:
    return [frag(text, x, top + k * pitch) for k, line in enumerate(lines) for text, x in line]


def grid_rulings(xs: Sequence[float], ys: Sequence[float]) -> list[Rect]:
    """Stroked rules of a full grid, as zero-thickness rectangles."""
    return [(x, ys[0], x, ys[-1]) for x in xs] + [(xs[0], y, xs[-1], y) for y in ys]


def table_texts(table: Table) -> list[list[str]]:
    return [[" ".join(f.text for f in c.frags) for c in table.cells if c.row == r] for r in range(1, table.rows + 1)]


RENT = [
    ("Period", "Monthly Rent", "Annual Rent"),
    ("Months 1-12", "$4,500.00", "$54,000.00"),
    ("Months 13-24", "$4,635.00", "$55,620.00"),
    ("Months 25-36", "$4,774.05", "$57,288.60"),
]


def rent_lines() -> list[Line]:
    return [[(a, 72.0), (b, 250.0), (c, 400.0)] for a, b, c in RENT]


# --- grids ------------------------------------------------------------------------------------------------------


def test_rules_merge_touching_pieces_and_ignore_short_or_thick_shapes() -> None:
    hs, vs = rules_of(
        [
            (72, 100, 200, 100),
            (200, 100.4, 300, 100.6),  # continues the first, drawn as a thin bar
            (72, 300, 76, 304),  # a square bullet: neither
            (72, 400, 300, 420),  # a shaded box: too thick
            (72, 100, 72, 200),
        ]
    )
    assert [(round(h.pos), h.lo, h.hi) for h in hs] == [(100, 72, 300)]
    assert [(v.pos, v.lo, v.hi) for v in vs] == [(72, 100, 200)]


def test_grid_with_a_title_row_spanning_all_columns() -> None:
    xs, ys = [72.0, 200.0, 300.0, 400.0], [100.0, 120.0, 140.0, 160.0]
    rulings = [(x, ys[0] if x in (72.0, 400.0) else ys[1], x, ys[-1]) for x in xs]
    rulings += [(xs[0], y, xs[-1], y) for y in ys]
    [grid] = grids_of(*rules_of(rulings))
    assert grid.xs == xs and grid.ys == ys
    assert merged_slots(grid) == [
        (0, 0, 0, 2),
        (1, 0, 1, 0),
        (1, 1, 1, 1),
        (1, 2, 1, 2),
        (2, 0, 2, 0),
        (2, 1, 2, 1),
        (2, 2, 2, 2),
    ]


def test_a_double_rule_is_one_boundary() -> None:
    rulings = [*grid_rulings([72, 200, 300], [100, 120, 140]), (72, 121.5, 300, 121.5)]
    [grid] = grids_of(*rules_of(rulings))
    assert grid.ys == [100, 120, 140]


def test_a_merge_that_is_not_a_rectangle_is_no_grid() -> None:
    rulings = [(72, 100, 300, 100), (72, 140, 300, 140), (72, 100, 72, 140), (300, 100, 300, 140)]
    rulings += [(200, 120, 200, 140), (200, 120, 300, 120)]  # only the bottom-right slot is closed off
    [grid] = grids_of(*rules_of(rulings))
    assert merged_slots(grid) is None


def test_rows_drawn_as_separate_boxes_are_one_grid() -> None:
    rulings = [r for top in (100.0, 124.0, 148.0) for r in grid_rulings([72, 200, 300], [top, top + 20.0])]
    [grid] = grids_of(*rules_of(rulings))
    assert grid.ys == [100.0, 122.0, 146.0, 168.0]
    assert merged_slots(grid) == [(r, c, r, c) for r in range(3) for c in range(2)]


def test_a_run_crossing_a_rule_is_cut_there() -> None:
    run = frag("$4,500.00 $54,000.00", 150.0, 100.0)  # the space is at x 195..200
    left, right = cut_at(run, [197.0])
    assert (left.text, right.text) == ("$4,500.00", "$54,000.00")
    assert left.rect == (150.0, 100.0, 195.0, 110.0) and right.rect == (200.0, 100.0, 250.0, 110.0)
    assert cut_at(run, [100.0, 400.0]) == [run]


# --- detection --------------------------------------------------------------------------------------------------


def test_ruled_table_places_text_in_cells_and_cuts_runs_at_rules() -> None:
    xs, ys = [72.0, 240.0, 380.0, 540.0], [95.0, 115.0, 135.0, 155.0, 175.0]
    frags = [
        frag(t, (78.0, 246.0, 386.0)[k], 100.0 + 20.0 * r) for r, row in enumerate(RENT[:3]) for k, t in enumerate(row)
    ]
    crossing = frag("$4,774.05 $57,288.60", 335.0, 160.0)  # its space lies on the rule at x 380
    prose = frag("Rent is due on the first day of each month.", 72.0, 200.0)
    tables, rest = find_tables([*frags, frag("Months 25-36", 78.0, 160.0), crossing, prose], grid_rulings(xs, ys))
    [table] = tables
    assert rest == [prose]
    assert table.is_ruled and (table.rows, table.cols) == (4, 3) and table.header_rows == 1
    assert table_texts(table) == [list(row) for row in RENT]
    assert table.cells[0].rect == (72.0, 95.0, 240.0, 115.0)
    assert table.cells[-1].frags[0].rect == (385.0, 160.0, 435.0, 170.0)


def test_aligned_rent_schedule_is_a_table() -> None:
    tables, rest = find_tables(frags_of(rent_lines()), [])
    [table] = tables
    assert rest == [] and not table.is_ruled
    assert table_texts(table) == [list(row) for row in RENT]
    assert table.header_rows == 1
    assert table.cells[4].rect == frag("$4,500.00", 250.0, 114.0).rect


def test_wrapped_lines_continue_their_row_when_rows_are_further_apart() -> None:
    lines = [
        ([("6/18/26", 72.0), ("Rules Committee", 150.0), ("Scheduled to the", 300.0)], 100.0),
        ([("Finance", 150.0), ("Committee", 300.0)], 112.0),
        ([("7/9/26", 72.0), ("Rules Committee", 150.0), ("Received and", 300.0)], 128.0),
        ([("Council", 150.0), ("Filed", 300.0)], 140.0),
        ([("7/14/26", 72.0), ("Finance", 150.0), ("$1,000.00", 300.0)], 156.0),
    ]
    frags = [frag(t, x, y) for line, y in lines for t, x in line]
    [table] = find_tables(frags, [])[0]
    assert table_texts(table) == [
        ["6/18/26", "Rules Committee Finance", "Scheduled to the Committee"],
        ["7/9/26", "Rules Committee Council", "Received and Filed"],
        ["7/14/26", "Finance", "$1,000.00"],
    ]


def prose_columns(count: int) -> list[Line]:
    width = 468.0 / count
    words = "Tenant shall keep the Premises in good repair and condition at its own cost"
    return [[(words[: int(width / W) - 4], 72.0 + k * width) for k in range(count)] for _ in range(12)]


NEGATIVES: dict[str, list[Line]] = {
    "two-column page": prose_columns(2),
    "three-column page": prose_columns(3),
    "numbered list": [[(f"{k}.", 90.0), (f"Item {k} of the list", 130.0)] for k in range(1, 6)],
    "lettered list": [[(f"({c})", 90.0), ("delivers the notice", 130.0)] for c in "abcd"],
    "signature block": [
        [("LANDLORD:", 72.0), ("TENANT:", 324.0)],
        [("ACME PROPERTIES LLC", 72.0), ("BETA CONSULTING INC.", 324.0)],
        [("By: ____________", 72.0), ("By: ____________", 324.0)],
        [("Name: Jane Smith", 72.0), ("Name: John Doe", 324.0)],
        [("Title: Manager", 72.0), ("Title: President", 324.0)],
    ],
    "table of contents": [[(f"Section {k}.1 Heading", 72.0), (str(k * 3), 520.0)] for k in range(1, 8)],
    "dot leaders": [[(f"{k}. Heading ..........", 72.0), (f"Page {k}", 400.0)] for k in range(1, 6)],
    "address blocks": [
        [("If to Landlord:", 72.0), ("If to Tenant:", 324.0)],
        [("Acme Properties LLC", 72.0), ("Beta Consulting Inc.", 324.0)],
        [("100 Main Street", 72.0), ("2929 Campus Drive", 324.0)],
        [("Springfield, Illinois", 72.0), ("San Mateo, California", 324.0)],
    ],
    "columns of long capitalized runs": [
        [
            ("Airplanes, Attention: Contractual", 72.0),
            ("Washington, DC 20590, between 9", 240.0),
            ("Information Business Office", 408.0),
        ],
        [
            ("Services (C&DS), Westminster Blvd.", 72.0),
            ("New Jersey Avenue SE, Monday", 240.0),
            ("Confidential Business Unit", 408.0),
        ],
        [
            ("Seal Beach, California Boeing", 72.0),
            ("Room W12-140, Docket Operations", 240.0),
            ("Federal Aviation Administration", 408.0),
        ],
    ],
    "contact lines": [
        [("Salt Lake City, Utah 84115", 72.0), ("Phone: 650-292-7704", 324.0)],
        [("Phone: 801-466-3361", 72.0), ("Fax: 650-292-8710", 324.0)],
        [("Fax: 801-746-3447", 72.0), ("Email: a@b.example", 324.0)],
    ],
    "two lines only": rent_lines()[:2],
    "a paragraph": [[("Tenant shall pay Rent monthly in advance on the first day.", 72.0)] for _ in range(5)],
}


@pytest.mark.parametrize("name", sorted(NEGATIVES))
def test_lookalikes_are_not_tables(name: str) -> None:
    frags = frags_of(NEGATIVES[name], pitch=18.0 if name == "signature block" else PITCH)
    tables, rest = find_tables(frags, [])
    assert tables == [] and rest == frags


def test_a_ruled_frame_around_two_prose_columns_is_not_a_table() -> None:
    frags = frags_of(prose_columns(2))
    rulings = grid_rulings([60.0, 306.0, 552.0], [90.0, 280.0])
    assert find_tables(frags, rulings)[0] == []


def test_a_ruled_frame_around_an_unruled_table_leaves_it_to_alignment() -> None:
    xs = (80.0, 150.0, 220.0, 320.0, 390.0, 460.0)
    rows = [[(f"Store {k}", xs[0]), *((f"{k}{n},000", x) for n, x in enumerate(xs[1:]))] for k in range(1, 6)]
    [table] = find_tables(frags_of(rows), grid_rulings([70.0, 300.0, 540.0], [90.0, 180.0]))[0]
    assert not table.is_ruled and (table.rows, table.cols) == (5, 6)


def test_header_rows_and_figures() -> None:
    assert header_rows([["Period", "Rent"], ["Months 1-12", "$4,500"], ["Months 13-24", "$4,635"]], [False] * 3) == 1
    assert header_rows([["Title"], ["A", "B"], ["1", "2"]], [True, True, False]) == 2
    assert header_rows([["1", "2"], ["3", "4"]], [False, False]) == 0
    assert is_figure("$4,500.00") and is_figure("10/1/2025 – 9/30/2026") and is_figure("[***]")
    assert not is_figure("12 months") and not is_figure("2929 Campus Drive, Suite 400") and not is_figure("")


# --- page text and spans ----------------------------------------------------------------------------------------


def glyph_run(text: str, x: float, y: float) -> list[Glyph]:
    return [Glyph(ch, None if ch == " " else (x + k * W, y, x + (k + 1) * W, y + H)) for k, ch in enumerate(text)]


def rent_page() -> Page:
    """A heading, a paragraph, a ruled rent schedule (header + 3 rows, one empty cell) and a closing paragraph."""
    glyphs: list[Glyph] = []
    newline = [Glyph("\r", None), Glyph("\n", None)]
    for text, y in (("SCHEDULE OF RENT", 80.0), ("Tenant shall pay the rent below.", 100.0)):
        glyphs += glyph_run(text, 72.0, y) + newline
    rows = [list(RENT[0]), list(RENT[1]), [RENT[2][0], "", RENT[2][2]], list(RENT[3])]
    for r, row in enumerate(rows):
        for k, text in enumerate(row):
            glyphs += glyph_run(text, 78.0 + 160.0 * k, 125.0 + 20.0 * r)
        glyphs += newline
    glyphs += glyph_run("Rent for a partial month is prorated.", 72.0, 220.0)
    rulings = grid_rulings([72.0, 232.0, 392.0, 552.0], [120.0, 140.0, 160.0, 180.0, 200.0])
    raw = RawPage(1, PageGeometry(612.0, 792.0, 0), glyphs, None, tuple(rulings))
    return build_page(raw, Furniture([]))


def test_a_table_is_one_block_written_row_by_row() -> None:
    page = rent_page()
    kinds = [b.kind for b in page.blocks]
    assert kinds == [BlockKind.HEADING, BlockKind.PARAGRAPH, BlockKind.TABLE, BlockKind.PARAGRAPH]
    table = page.blocks[2]
    assert page.text[table.start : table.end] == (
        "Period\tMonthly Rent\tAnnual Rent\n"
        "Months 1-12\t$4,500.00\t$54,000.00\n"
        "Months 13-24\t\t$55,620.00\n"
        "Months 25-36\t$4,774.05\t$57,288.60"
    )
    assert len(page.cells) == 11 and all(c.table == 1 for c in page.cells)
    empty_row = [(c.row, c.col) for c in page.cells if c.row == 3]
    assert empty_row == [(3, 1), (3, 3)]
    for cell in page.cells:
        text = page.text[cell.start : cell.end]
        [box] = page.line_rects(cell.start, cell.end)
        assert box == (cell.rect[0] + 6.0, cell.rect[1] + 5.0, cell.rect[0] + 6.0 + W * len(text), cell.rect[1] + 15.0)
        assert cell.is_header == (cell.row == 1)


def test_table_spans_are_whole_rows_with_cell_locators() -> None:
    page = rent_page()
    chunks = chunk_page(page, SectionTracker(), 70)
    check_invariants(page, chunks, 70)
    table = [c for c in chunks if c.block_kinds == ("table",)]
    assert [c.text for c in table] == [
        "Period\tMonthly Rent\tAnnual Rent\nMonths 1-12\t$4,500.00\t$54,000.00",
        "Months 13-24\t\t$55,620.00\nMonths 25-36\t$4,774.05\t$57,288.60",
    ]
    assert [c.locator for c in table] == [
        {"kind": "table_cell", "table": 1, "row": 1, "col": 1, "row_end": 2, "col_end": 3},
        {"kind": "table_cell", "table": 1, "row": 3, "col": 1, "row_end": 4, "col_end": 3},
    ]
    assert [c.context for c in table] == ["", "Period\tMonthly Rent\tAnnual Rent"]
    assert all(c.page_number == 1 and c.heading_path == ("Page 1", "SCHEDULE OF RENT") for c in table)
    prose = [c for c in chunks if "table" not in c.block_kinds]
    assert [c.locator for c in prose] == [None, None]
    assert prose[0].text == "SCHEDULE OF RENT\n\nTenant shall pay the rent below."


def test_table_pieces_cut_long_rows_between_cells_and_long_cells_into_windows() -> None:
    text = "Label\tA long cell of many words here\tEnd"
    cells = [Cell(2, 1, 1, 0, 5, (0, 0, 1, 1)), Cell(2, 1, 2, 6, 36, (0, 0, 1, 1)), Cell(2, 1, 3, 37, 40, (0, 0, 1, 1))]
    pieces = table_pieces(text, cells, 20)
    assert [text[p.start : p.end] for p in pieces] == ["Label", "A long cell of many", "words here", "End"]
    assert [(p.locator or {}).get("col") for p in pieces] == [1, 2, 2, 3]
    assert [(p.locator or {}).get("col_end") for p in pieces] == [1, 2, 2, 3]
    assert table_pieces(text, cells, 40)[0].end == 40


# --- financial statements (bench/tables.py scores the same on a printed 10-K) -----------------------------------


def test_a_statement_with_a_sparse_currency_column_and_lone_label_rows_is_one_table() -> None:
    lines: list[Line] = [
        [("Current assets:", 40.0)],
        [("Cash", 50.0), ("$", 300.0), ("16,058,714", 340.0), ("$", 420.0), ("5,993,388", 460.0)],
        [("Inventory", 50.0), ("770,248", 355.0), ("668,525", 475.0)],
        [("Prepaid expenses", 50.0), ("1,125,777", 345.0), ("1,167,068", 465.0)],
        [("Changes in operating assets and liabilities:", 40.0)],
        [("Total current assets", 40.0), ("$", 300.0), ("23,890,122", 340.0), ("$", 420.0), ("11,562,833", 460.0)],
    ]
    [table] = find_tables(frags_of(lines), [])[0]
    texts = table_texts(table)
    assert texts[0] == ["Current assets:", "", "", "", ""]
    assert texts[1] == ["Cash", "$", "16,058,714", "$", "5,993,388"]
    assert texts[2] == ["Inventory", "", "770,248", "", "668,525"]
    assert texts[4][0] == "Changes in operating assets and liabilities:"
    assert texts[5] == ["Total current assets", "$", "23,890,122", "$", "11,562,833"]


def test_a_two_level_column_header_spans_the_columns_below_it() -> None:
    """``Common Stock`` over ``Shares`` and ``Amount``; ``Total`` / ``Equity`` stacked over one column."""
    lines: list[Line] = [
        [("Common Stock", 262.0), ("Total", 455.0)],
        [("Shares", 220.0), ("Amount", 330.0), ("Equity", 450.0)],
        [("Balance, 2019", 40.0), ("18,215,069", 210.0), ("18,215", 335.0), ("(24,113,922)", 440.0)],
        [("Net loss", 40.0), ("406,568", 225.0), ("407", 350.0), ("(3,142,714)", 445.0)],
        [("Balance, 2020", 40.0), ("21,970,638", 210.0), ("21,971", 335.0), ("(24,796,965)", 440.0)],
    ]
    # underlines: Common Stock's over both columns, the others' over their own (y: just below each header line)
    rules = [(205.0, 111.0, 370.0, 111.0), (205.0, 125.0, 265.0, 125.0), (325.0, 125.0, 370.0, 125.0)]
    rules.append((435.0, 125.0, 505.0, 125.0))
    [table] = find_tables(frags_of(lines), rules)[0]
    assert table.header_rows == 2
    common = next(c for c in table.cells if c.frags and c.frags[0].text == "Common Stock")
    assert (common.row, common.col, common.col_span) == (1, 2, 2)
    total = next(c for c in table.cells if c.frags and c.frags[0].text == "Total")
    assert [f.text for f in total.frags] == ["Total", "Equity"]
    assert (total.col, total.col_span) == (4, 1)
    shares = next(c for c in table.cells if c.frags and c.frags[0].text == "Shares")
    assert (shares.row, shares.col) == (2, 2)
    assert table_texts(table)[2] == ["Balance, 2019", "18,215,069", "18,215", "(24,113,922)"]


def test_a_title_centred_over_a_table_is_not_its_header() -> None:
    title_x = (40.0 + 300.0 + 6 * W) / 2 - len("BALANCE SHEETS") * W / 2
    lines: list[Line] = [
        [("BALANCE SHEETS", title_x)],
        [("2021", 200.0), ("2020", 300.0)],
        [("Cash", 40.0), ("1,000", 200.0), ("2,000", 300.0)],
        [("Inventory", 40.0), ("3,000", 200.0), ("4,000", 300.0)],
        [("Goodwill", 40.0), ("5,000", 200.0), ("6,000", 300.0)],
    ]
    [table], rest = find_tables(frags_of(lines), [])
    assert [f.text for f in rest] == ["BALANCE SHEETS"]
    assert table_texts(table)[0] == ["", "2021", "2020"]


def test_exhibit_numbers_joined_to_their_titles_are_cut_into_their_column() -> None:
    """A marker-looking first column (``3.1``) kept joined to the text after a wide gap is cut back in a table."""
    rows = [("3.1", "Articles of Incorporation", "8-K"), ("3.2", "Bylaws", "8-K"), ("10.1", "Lease agreement", "10-K")]
    glyphs: list[Glyph] = []
    for k, (number, title, form) in enumerate(rows):
        y = 100.0 + k * PITCH
        glyphs += [*glyph_run(number, 40.0, y), Glyph(" ", None), *glyph_run(title, 80.0, y), Glyph(" ", None)]
        glyphs += [*glyph_run(form, 300.0, y), Glyph("\n", None)]
    frags = split_fragments(glyphs)
    assert frags[0].text == "3.1 Articles of Incorporation"
    [table], rest = find_tables(frags, [])
    assert rest == []
    assert table_texts(table) == [list(row) for row in rows]


def test_a_run_reaching_into_the_next_column_at_a_space_is_cut_there() -> None:
    """``Form of Indemnity Agree 10-Q``: the title printed up to the form column is one run; the table
    cuts it where the column starts, at the space, and gives back nothing twice."""
    lines: list[Line] = [
        [("10.16", 40.0), ("Lease agreement", 80.0), ("8-K", 200.0), ("99.1", 260.0)],
        [("10.17", 40.0), ("Form of Indemnity Agree 10-Q", 80.0), ("99.2", 260.0)],
        [("10.18", 40.0), ("Warrant Agreement", 80.0), ("10-K", 200.0), ("99.3", 260.0)],
        [("10.19", 40.0), ("Loan Agreement", 80.0), ("8-K", 200.0), ("99.4", 260.0)],
    ]
    frags = frags_of(lines)
    assert frags[5].rect[2] > 200.0  # "Form of Indemnity 10-Q" reaches into the form column
    [table], rest = find_tables(frags, [])
    assert rest == []
    assert table_texts(table)[1] == ["10.17", "Form of Indemnity Agree", "10-Q", "99.2"]
    assert sum(len(c.frags) for c in table.cells) == len(frags) + 1


def test_a_run_crossing_a_column_inside_a_word_is_not_cut() -> None:
    lines: list[Line] = [
        [("Cash", 40.0), ("1,000", 200.0), ("2,000", 300.0)],
        [("Inventory", 40.0), ("3,000", 200.0), ("4,000", 300.0)],
        [("Accumulatedcomprehensiveincome", 40.0), ("5,000", 300.0)],
        [("Goodwill", 40.0), ("7,000", 200.0), ("8,000", 300.0)],
    ]
    tables, _ = find_tables(frags_of(lines), [])
    assert all("Accumulatedcomprehensiveincome" in " ".join(f.text for c in t.cells for f in c.frags) for t in tables)
    assert not any(
        f.text.startswith("Accumulated") and f.text != "Accumulatedcomprehensiveincome"
        for t in tables
        for c in t.cells
        for f in c.frags
    )


FEE_LINES: list[Line] = [
    [("Fee Type", 120.0), ("2021", 300.0), ("2020", 400.0)],
    [("Audit fees", 40.0), ("$", 280.0), ("265,088", 300.0), ("$", 380.0), ("318,285", 400.0)],
]


def test_one_row_under_a_ruled_header_is_a_table() -> None:
    """``Fee Type | 2021 | 2020`` underlined above one row of fees: the rule makes one row a table."""
    rules = [(40.0, 111.0, 270.0, 111.0), (278.0, 111.0, 340.0, 111.0), (378.0, 111.0, 440.0, 111.0)]
    [table], rest = find_tables(frags_of(FEE_LINES), rules)
    assert rest == []
    assert table.header_rows == 1
    assert table_texts(table) == [["Fee Type", "2021", "2020"], ["Audit fees", "$", "265,088", "$", "318,285"]]
    # each year's underline covers its sign column and its figures' column
    assert [(c.col, c.col_span) for c in table.cells if c.row == 1] == [(1, 1), (2, 2), (4, 2)]


def test_one_or_two_rows_without_a_ruled_header_are_not_a_table() -> None:
    """The same lines with no rule under the header, and two lines of figures with nothing above them, stay
    text: a short run alone is not told from prose."""
    assert find_tables(frags_of(FEE_LINES), [])[0] == []
    two = [FEE_LINES[1], [("Tax fees", 40.0), ("$", 280.0), ("1,000", 300.0), ("$", 380.0), ("2,000", 400.0)]]
    assert find_tables(frags_of(two), [(40.0, 95.0, 440.0, 95.0)])[0] == []


def test_the_last_line_of_a_paragraph_above_a_table_is_not_its_header() -> None:
    """``Lease as follows:`` ends the sentence above the table; the header starts below it."""
    prose = "payable in advance each month on or before the first day of each month for the duration of this"
    lines: list[Line] = [
        [(prose, 40.0)],
        [("as follows:", 40.0)],
        [("From", 40.0), ("To", 120.0), ("Monthly Rent", 200.0)],
        [("1", 40.0), ("12", 120.0), ("$18,493.75", 200.0)],
        [("13", 40.0), ("24", 120.0), ("$18,863.63", 200.0)],
        [("25", 40.0), ("36", 120.0), ("$19,240.90", 200.0)],
    ]
    [table], rest = find_tables(frags_of(lines), [])
    assert [f.text for f in rest] == [prose, "as follows:"]
    assert table_texts(table)[0] == ["From", "To", "Monthly Rent"]
