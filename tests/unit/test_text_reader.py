"""Plain text and Markdown readers: units are exact line runs of the decoded file."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kruschnexus.errors import ParseError
from kruschnexus.model import BlockKind, Page
from kruschnexus.parse.text import open_markdown, open_text

MARKDOWN = """# Master Services Agreement

Intro paragraph that
wraps over two lines.

## 1. Definitions

- (a) "Services" means the work in Schedule A.
- (b) "Fees" means the amounts in Schedule B.

1. First numbered item
2. Second numbered item

| Period | Rent |
|---|---|
| 1-12 | $4,500 |

```
code block line
```

Setext Heading
--------------

Last paragraph. ## not a heading
"""


def lines_of(page: Page, source_lines: list[str]) -> str:
    assert page.locator is not None and page.locator["kind"] == "lines"
    return "\n".join(source_lines[page.locator["start"] - 1 : page.locator["end"]])


def test_markdown_units_are_the_lines_their_locators_name(tmp_path: Path) -> None:
    path = tmp_path / "msa.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    source_lines = MARKDOWN.split("\n")
    with open_markdown(path) as doc:
        pages = list(doc.pages())
    assert doc.paged is False and doc.meta["encoding"] == "utf-8"
    for page in pages:
        assert page.text == lines_of(page, source_lines)
        assert page.char_rects == [None] * len(page.text) and page.line_rects(0, len(page.text)) == []
    kinds = [(p.blocks[0].kind, p.text[p.blocks[0].start : p.blocks[0].end]) for p in pages]
    assert kinds[0] == (BlockKind.HEADING, "Master Services Agreement")
    assert (BlockKind.HEADING, "1. Definitions") in kinds
    assert (BlockKind.LIST_ITEM, '(a) "Services" means the work in Schedule A.') in kinds
    assert (BlockKind.LIST_ITEM, "1. First numbered item") in kinds
    assert (BlockKind.HEADING, "Setext Heading") in kinds
    assert any(k == BlockKind.TABLE and "$4,500" in t for k, t in kinds)
    assert [p.blocks[0].level for p in pages if p.blocks[0].kind == BlockKind.HEADING] == [1, 2, 2]
    assert pages[1].locator == {"kind": "lines", "start": 3, "end": 4}
    assert pages[1].place == "Lines 3-4"


def test_plain_text_paragraphs_and_capital_headings(tmp_path: Path) -> None:
    text = "AGENCY AGREEMENT\r\n\r\n1. Appointment. Agent is appointed\r\nfor the term.\r\n\r\n\r\nSigned.\r\n"
    path = tmp_path / "agency.txt"
    path.write_bytes(text.encode("utf-8"))
    with open_text(path) as doc:
        pages = list(doc.pages())
    assert [p.text for p in pages] == [
        "AGENCY AGREEMENT",
        "1. Appointment. Agent is appointed\nfor the term.",
        "Signed.",
    ]
    assert [p.locator for p in pages] == [
        {"kind": "lines", "start": 1, "end": 1},
        {"kind": "lines", "start": 3, "end": 4},
        {"kind": "lines", "start": 7, "end": 7},
    ]
    assert [p.blocks[0].kind for p in pages] == [BlockKind.HEADING, BlockKind.PARAGRAPH, BlockKind.PARAGRAPH]


def test_legacy_encoding_is_detected_and_recorded(tmp_path: Path) -> None:
    path = tmp_path / "notice.txt"
    text = "Avis au locataire : le loyer échu sera majoré de 5 % après le délai de grâce prévu à l'article 3.\n" * 3
    path.write_bytes(text.encode("cp1252"))
    with open_text(path) as doc:
        [page] = list(doc.pages())
    assert doc.meta["encoding_detected"] is True
    assert "échu" in page.text and "délai de grâce" in page.text


@pytest.mark.parametrize(
    ("data", "reason"),
    [(b"\x00\x01\x02binary\x00", "binary"), (b"   \n\n \t\n", "has no text")],
)
def test_bad_text_files_are_clear_errors(tmp_path: Path, data: bytes, reason: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    with pytest.raises(ParseError, match=reason) as info:
        open_text(path)
    assert info.value.path == str(path)


_line = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs", "Cc", "Zl", "Zp"]), max_size=30)


@settings(max_examples=60, deadline=None)
@given(st.lists(_line, min_size=1, max_size=25))
def test_any_text_file_round_trips_by_line_locators(tmp_path_factory: pytest.TempPathFactory, lines: list[str]) -> None:
    path = tmp_path_factory.mktemp("txt") / "doc.txt"
    content = "\n".join(lines)
    path.write_bytes(content.encode("utf-8"))
    if not content.strip():
        with pytest.raises(ParseError):
            open_text(path)
        return
    with open_text(path) as doc:
        pages = list(doc.pages())
    covered: list[str] = []
    for page in pages:
        assert page.text == lines_of(page, lines)
        covered.extend(page.text.split("\n"))
    assert [ln for ln in covered if ln.strip()] == [ln for ln in lines if ln.strip()]


def test_page_numbers_of_text_saved_from_a_pdf_are_furniture(tmp_path: Path) -> None:
    """A paragraph that is only a page number ("2", "Page 3 of 9", "- 4 -", "vii") stays in the unit's text but is
    page furniture, so no span holds it; a number with words, a roman heading in capitals, a word are text."""
    from kruschnexus.chunk.chunker import chunk_page
    from kruschnexus.chunk.sections import SectionTracker

    numbers = ["2", "Page 3 of 9", "- 4 -", "vii"]
    kept = ["2. Term", "II", "civil"]
    path = tmp_path / "saved.txt"
    path.write_text("\n\n".join(["1. Definitions", *numbers, *kept, "The end."]) + "\n")
    with open_text(path) as doc:
        pages = list(doc.pages())
    kinds = {p.text: p.blocks[0].kind for p in pages}
    assert all(kinds[n] == BlockKind.PAGE_NUMBER for n in numbers), kinds
    assert all(kinds[k] != BlockKind.PAGE_NUMBER for k in kept), kinds
    tracker = SectionTracker()
    spans = [c.text for p in pages for c in chunk_page(p, tracker, 900)]
    assert not set(numbers) & set(spans) and set(kept) <= set(spans), spans
