"""The HTML reader (no database): units re-derived independently from the parsed file at their locator paths.

The helpers below are this test's own reading of "visible text", written apart from ``kruschnexus.parse.html``:
only lxml's parse is shared. The integration test imports them too.
"""

from __future__ import annotations

import re
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kruschnexus.errors import ParseError
from kruschnexus.extract import open_source, sniff
from kruschnexus.parse.html import open_html
from tests.conftest import CORPUS, FIXTURES, needs_corpus

FILING = FIXTURES / "html_filing.html"
LEASES = sorted((CORPUS / "lease").glob("*.htm")) if CORPUS.is_dir() else []

# ---------------------------------------------------------------------------------------------------------------
# The test's own notion of visible text.

LINE = "\x00"  # stands for a line break while text is gathered
PHRASING = {
    "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "blink", "br", "cite", "code", "data", "del", "dfn", "em",
    "font", "i", "img", "input", "ins", "kbd", "label", "mark", "nobr", "q", "rp", "rt", "ruby", "s", "samp",
    "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr",
}  # fmt: skip
NEVER_SHOWN = {"script", "style", "head", "title", "noscript", "template", "meta", "link"}
PREFORMATTED = {"pre", "listing", "plaintext", "xmp"}


def squash(raw: str) -> str:
    """Words of each line joined by one space; empty lines gone; lines joined by newlines."""
    lines = (" ".join(line.split()) for line in raw.split(LINE))
    return "\n".join(line for line in lines if line)


def shows_something(text: str) -> bool:
    return any(not ch.isspace() and unicodedata.category(ch) != "Cf" for ch in text)


def _style(el: Any) -> str:
    return re.sub(r"\s+", "", (el.get("style") or "").lower())


def _unseen(el: Any) -> bool:
    if not isinstance(el.tag, str) or el.tag in NEVER_SHOWN or "hidden" in el.attrib:
        return True
    style = _style(el)
    return "display:none" in style or "visibility:hidden" in style or "visibility:collapse" in style


def own_runs(el: Any) -> list[str]:
    """The visible pieces of text an element holds itself, split where a nested block element sits."""
    runs: list[list[str]] = [[]]
    pre = el.tag in PREFORMATTED or any(a.tag in PREFORMATTED for a in el.iterancestors())

    def add(text: str | None) -> None:
        if text:
            runs[-1].append(text.replace("\n", LINE) if pre else text)

    def visit(node: Any) -> None:
        add(node.text)
        for child in node:
            if _unseen(child):
                pass
            elif child.tag == "br":
                runs[-1].append(LINE)
            elif child.tag in PHRASING:
                gap = " " if "display:inline-block" in _style(child) else ""
                runs[-1].append(gap)
                visit(child)
                runs[-1].append(gap)
            else:
                runs.append([])
            add(child.tail)

    visit(el)
    return [text for text in (squash("".join(run)) for run in runs) if shows_something(text)]


def whole_text(el: Any) -> str:
    """All visible text inside an element, nested blocks included (each a word break)."""
    parts: list[str] = []

    def visit(node: Any) -> None:
        parts.append(node.text or "")
        for child in node:
            if not _unseen(child):
                if child.tag == "br":
                    parts.append(LINE)
                else:
                    gap = "" if child.tag in PHRASING and "inline-block" not in _style(child) else " "
                    parts.extend([gap])
                    visit(child)
                    parts.append(gap)
            parts.append(child.tail or "")

    visit(el)
    return squash("".join(parts))


def statement_row_text(tr: Any, cells: list[dict[str, Any]]) -> str:
    """A statement row's text from its cells: per cell, ``{header path}: {value}`` (no path for the label or
    where there is none), a lone ``$`` joined to the value after it, a lone ``)`` or ``%`` to the one before."""
    values: list[str] = []
    sign = ""
    for td in (c for c in tr if c.tag in ("td", "th") and not _unseen(c)):
        text = " ".join(whole_text(td).split())
        if not shows_something(text):
            continue
        if text in ("$", "€", "£"):
            sign += text
        elif re.fullmatch(r"[)%]+", text) and values:
            values[-1] += text
        else:
            values.append(sign + text)
            sign = ""
    values += [sign] if sign else []
    assert len(values) == len(cells)
    lines = []
    for k, (value, cell) in enumerate(zip(values, cells, strict=True)):
        labelled = cell["header"] and (k or re.fullmatch(r"[($€£]*\s*\d[\d,]*(?:\.\d+)?\s*[)%]*|[—–-]", value))
        lines.append(f"{' > '.join(cell['header'])}: {value}" if labelled else value)
    text = "\n".join(lines)
    for value, cell in zip(values, cells, strict=True):
        assert text[cell["start"] : cell["end"]] == value
    return text


def parse_kept(path: Path, encoding: str) -> Any:
    """The file parsed by lxml as a browser would see it, with the encoding the reader reported."""
    text = path.read_bytes().decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"\A\s*<\?xml[^>]*\?>", "", text)
    return lxml.html.document_fromstring(text, parser=lxml.html.HTMLParser(huge_tree=True)).getroottree()


def text_at(tree: Any, locator: dict[str, Any]) -> str:
    """A unit's text, re-derived from the parsed file at its locator."""
    [el] = tree.xpath(locator["path"])
    if el.tag == "tr" and "cells" in locator:
        return statement_row_text(el, locator["cells"])
    if el.tag == "tr":  # a hanging-indent row: its cells' text joined by a space
        cells = (whole_text(c) for c in el if c.tag in ("td", "th"))
        return " ".join(t for t in cells if shows_something(t))
    runs = own_runs(el)
    if "run" in locator:
        assert len(runs) > 1
        return runs[int(locator["run"]) - 1]
    assert len(runs) == 1, (locator, runs)
    return runs[0]


def check_units(path: Path) -> list[Any]:
    """Open ``path`` and assert every unit equals the independent re-derivation; return the pages."""
    with open_source(path, "html") as source:
        pages: list[Any] = list(source.pages())
        tree = parse_kept(path, source.meta["encoding"])
    assert [p.locator["index"] for p in pages] == list(range(1, len(pages) + 1))
    places = [(p.locator["path"], p.locator.get("run")) for p in pages]
    assert len(set(places)) == len(places), "two units at one place"
    for page in pages:
        assert page.locator["kind"] == "element" and page.number == page.locator["index"]
        assert page.text == text_at(tree, page.locator), page.locator
        assert page.char_rects == [None] * len(page.text) and page.width == 0.0
    return pages


# ---------------------------------------------------------------------------------------------------------------
# The fixture.


@pytest.fixture(scope="module")
def filing() -> list[Any]:
    return check_units(FILING)


def by_text(pages: list[Any], start: str) -> Any:
    [page] = [p for p in pages if p.text.startswith(start)]
    return page


def test_fixture_is_current() -> None:
    import runpy

    script = runpy.run_path(str(FIXTURES.parents[1] / "scripts" / "make_html_fixtures.py"), run_name="fixtures")
    assert FILING.read_bytes() == script["FILING"].encode("cp1252"), "run scripts/make_html_fixtures.py"


def test_every_unit_is_its_element_text(filing: list[Any]) -> None:
    assert len(filing) == 25


def test_meta_records_encoding_title_and_furniture() -> None:
    meta = open_html(FILING).meta
    assert meta == {
        "encoding": "cp1252",
        "encoding_source": "meta",
        "units": 25,
        "furniture_dropped": 3,
        "title": "Office Lease – Harbor Point",
        "sgml": {"type": "EX-10.2", "sequence": "3", "filename": "html_filing.htm", "description": "OFFICE LEASE"},
    }


def test_hidden_script_style_comment_and_wrapper_text_are_absent(filing: list[Any]) -> None:
    everything = "\n".join(p.text for p in filing)
    for secret in ("SECRET", "never a span", "margin", "filing agent", "EX-10.2", "html_filing.htm"):
        assert secret not in everything, secret
    assert "Harbor Point" in everything and "§ 5.1" in everything and "“Lease”" in everything


def test_page_numbers_are_dropped(filing: list[Any]) -> None:
    texts = [p.text for p in filing]
    for furniture in ("- 1 -", "Page 2 of 3", "3"):
        assert furniture not in texts
    assert not any(re.fullmatch(r"[-\s]*\d+[-\s]*|Page \d+ of \d+", t) for t in texts)


def test_headings(filing: list[Any]) -> None:
    headings = {p.text: p.blocks[0].level for p in filing if p.blocks[0].kind.value == "heading"}
    assert headings == {
        "Exhibit 10.2": 0,
        "OFFICE LEASE": 0,
        "ARTICLE 1\nPREMISES": 0,
        "ARTICLE 3\nRENT": 0,
        "ARTICLE 5\nUSE AND SERVICES": 0,
        "SECTION 5.1": 0,
        "Signatures": 2,
    }
    run_in = by_text(filing, "Section 3.1 Base Rent.")
    assert run_in.blocks[0].kind.value == "paragraph"


def test_nested_blocks_are_not_repeated(filing: list[Any]) -> None:
    everything = "\n".join(p.text for p in filing)
    for sentence in ("Tenant may use forty parking spaces", "janitorial service", "Additional services are billed"):
        assert everything.count(sentence) == 1, sentence
    intro = by_text(filing, "Landlord shall furnish")
    after = by_text(filing, "Additional services")
    assert intro.locator["path"] == after.locator["path"] and (intro.locator["run"], after.locator["run"]) == (1, 2)
    items = [p for p in filing if p.blocks[0].kind.value == "list_item"]
    assert [p.locator["path"].rsplit("/", 1)[1] for p in items] == ["li[1]", "li[2]", "li[3]"]


def test_statement_rows_carry_their_figures_with_header_paths(filing: list[Any]) -> None:
    """A table of figures (the rent schedule) is read a row at a time, each figure after its column's header."""
    row = by_text(filing, "Third Lease Year")
    assert row.text == (
        "Third Lease Year escalation step\nAnnual Base Rent: $328,879.00\nMonthly Installment: $27,406.58"
    )
    assert {k: row.locator[k] for k in ("table", "row")} == {"table": 1, "row": 4} and "col" not in row.locator
    assert row.locator["path"].endswith("table[1]/tr[4]")
    assert row.blocks[0].kind.value == "table" and row.place == f"Block {row.locator['index']}"
    cells = row.locator["cells"]
    assert [(c["col"], c["header"]) for c in cells] == [
        (1, ["Period"]),
        (2, ["Annual Base Rent"]),
        (3, ["Monthly Installment"]),
    ]
    assert [row.text[c["start"] : c["end"]] for c in cells] == [
        "Third Lease Year escalation step",
        "$328,879.00",
        "$27,406.58",
    ]
    header = by_text(filing, "Period")
    assert header.text == "Period\nAnnual Base Rent\nMonthly Installment" and header.locator["path"].endswith("tr[1]")


def test_hanging_rows(filing: list[Any]) -> None:
    row = by_text(filing, "(a) The late charge")
    assert row.locator["path"].endswith("table[2]/tr") and "col" not in row.locator
    assert row.blocks[0].kind.value == "paragraph"


def test_line_breaks_and_spaces() -> None:
    from kruschnexus.parse.html import normalise

    assert normalise(["  a\u00a0\u00a0b ", None, " ", None, "\tc\n"]) == "a b\nc"
    assert normalise([None, " x ", None]) == "x"
    assert normalise(["\u2003"]) == ""


# ---------------------------------------------------------------------------------------------------------------
# Encodings and odd files.


def _write(tmp_path: Path, data: bytes, name: str = "doc.html") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("data", "encoding", "source"),
    [
        (b'\xef\xbb\xbf<meta charset="iso-8859-1"><p>caf\xc3\xa9</p>', "utf-8-sig", "bom"),
        (b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<html><body><p>caf\xe9</p></body></html>', "cp1252", "xml"),
        (b'<html><head><meta charset="utf-8"></head><p>caf\xc3\xa9</p>', "utf-8", "meta"),
        (b"<p>caf\xc3\xa9</p>", "utf-8", "utf-8"),
        (b'<meta charset="no-such-codec"><p>caf\xc3\xa9</p>', "utf-8", "utf-8"),
    ],
)
def test_encoding_is_read_from_bom_declaration_or_bytes(
    tmp_path: Path, data: bytes, encoding: str, source: str
) -> None:
    html = open_html(_write(tmp_path, data))
    assert (html.meta["encoding"], html.meta["encoding_source"]) == (encoding, source)
    assert html.page(1).text == "café"


def test_undeclared_legacy_bytes_are_detected(tmp_path: Path) -> None:
    body = "<p>The “Landlord” shall deliver the Premises, and the Tenant’s deposit is held in trust.</p>" * 3
    html = open_html(_write(tmp_path, body.encode("cp1252")))
    assert html.meta["encoding_source"] == "detected"
    assert "“Landlord”" in html.page(1).text


def test_a_wrong_declaration_is_not_trusted(tmp_path: Path) -> None:
    data = '<meta charset="utf-8"><p>Tenant’s “deposit” is held in trust by the Landlord.</p>'.encode("cp1252")
    html = open_html(_write(tmp_path, data))
    assert html.meta["encoding_source"] == "detected" and "“deposit”" in html.page(1).text


@pytest.mark.parametrize(
    "data", [b"<html><head><title>t</title></head><body><script>x()</script></body></html>", b"   ", b"<!-- -->"]
)
def test_no_visible_text_is_a_parse_error(tmp_path: Path, data: bytes) -> None:
    with pytest.raises(ParseError):
        open_html(_write(tmp_path, data))


def test_registry_reads_html_by_suffix(tmp_path: Path) -> None:
    for name in ("a.html", "b.htm", "c.xhtml"):
        path = _write(tmp_path, b"<p>Rent is due monthly.</p>", name)
        assert sniff(path) == "html"
        with open_source(path) as source:
            assert source.kind == "html" and source.paged is False and source.page_count == 1


def test_deep_unclosed_markup_and_pre(tmp_path: Path) -> None:
    deep = "<font>" * 1500 + "<p>deep text</p>" + "<pre>line one\n\n   line  two</pre><PAGE><p>after</p>"
    pages = check_units(_write(tmp_path, deep.encode()))
    assert [p.text for p in pages] == ["deep text", "line one\nline two", "after"]


def test_too_deep_markup_fails_instead_of_losing_text(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="nests deeper"):
        open_html(_write(tmp_path, ("<font>" * 3000 + "<p>deep text</p>").encode()))


def test_edge_furniture_running_footers(tmp_path: Path) -> None:
    long = "<p>{} obligations continue through the term of this lease and any renewal or extension of it"
    long += " that the parties agree.</p>"
    page = long + "<p>Tenant: ABC Corp</p>" + long + "<p>{}</p><p>Lease - Page {}</p><hr>"
    pages = [("Rent", "Tax", "i", 1), ("Water", "Power", "ii", 2)]
    html = "".join(page.format(*p) for p in pages)
    source = open_html(_write(tmp_path, html.encode()))
    texts = [p.text.split(" obligations")[0] for p in source.pages()]
    assert texts == ["Rent", "Tenant: ABC Corp", "Tax", "Water", "Tenant: ABC Corp", "Power"]
    assert source.meta["furniture_dropped"] == 4


# ---------------------------------------------------------------------------------------------------------------
# Random documents: nothing lost, nothing repeated, every unit at its path.

VOCABULARY = [("rent", "rent"), ("lease", "lease"), ("tenant", "tenant"), ("caf&eacute;", "café"),
              ("&amp;", "&"), ("&#8220;quote&#8221;", "“quote”"), ("&lt;tag&gt;", "<tag>"), ("Premises", "Premises"),
              ("NOTICE", "NOTICE"), ("über", "über")]  # fmt: skip
GAPS = [" ", "\n", "  \t", "&nbsp;", " &nbsp; ", "\r\n"]
INLINE_CHOICES = ["b", "i", "span", "font", "u", "em", "strong", "sup", "small"]


@st.composite
def phrasing(draw: Any, depth: int) -> tuple[str, list[str]]:
    html, words = [], []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["text", "text", "inline", "br", "hidden"] if depth < 3 else ["text", "br"]))
        gap = draw(st.sampled_from(GAPS))
        if kind == "text":
            picked = draw(st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=3))
            html.append(gap + gap.join(h for h, _ in picked) + gap)
            words += [w for _, w in picked]
        elif kind == "inline":
            tag = draw(st.sampled_from(INLINE_CHOICES))
            style = draw(st.sampled_from(["", ' style="font-weight:bold"', ' style="display:inline-block"']))
            inner, inner_words = draw(phrasing(depth + 1))
            html.append(f"{gap}<{tag}{style}>{inner}</{tag}>{gap}")
            words += inner_words
        elif kind == "br":
            html.append(gap + "<br>" + gap)
        else:
            html.append(draw(st.sampled_from(HIDDEN_BITS)))
    return "".join(html), words


HIDDEN_BITS = [
    '<span style="display: none">SECRET words</span>',
    "<script>var SECRET = 1;</script>",
    "<!-- SECRET -->",
    "<style>p.SECRET { color: red }</style>",
    '<font style="visibility:hidden">SECRET</font>',
]


@st.composite
def flow(draw: Any, depth: int) -> tuple[str, list[str]]:
    html, words = [], []
    for _ in range(draw(st.integers(0, 4))):
        kinds = ["phrasing", "p", "hidden"] + (["div", "ul", "table", "pre", "blockquote"] if depth < 3 else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "phrasing":
            part, part_words = draw(phrasing(depth))
        elif kind in ("p", "pre"):
            inner, part_words = draw(phrasing(depth))
            part = f"<{kind}>{inner}</{kind}>"
        elif kind in ("div", "blockquote"):
            inner, part_words = draw(flow(depth + 1))
            part = f"<{kind}>{inner}</{kind}>"
        elif kind == "ul":
            items = draw(st.lists(flow(depth + 1), min_size=1, max_size=3))
            part = "<ul>" + "".join(f"<li>{h}</li>" for h, _ in items) + "</ul>"
            part_words = [w for _, ws in items for w in ws]
        elif kind == "table":
            rows = draw(st.lists(st.lists(flow(depth + 1), min_size=1, max_size=3), min_size=1, max_size=3))
            part = "<table>" + "".join("<tr>" + "".join(f"<td>{h}</td>" for h, _ in r) + "</tr>" for r in rows)
            part += "</table>"
            part_words = [w for r in rows for _, ws in r for w in ws]
        else:
            part, part_words = '<div style="display:none"><p>SECRET block</p></div>', []
        html.append(part)
        words += part_words
    return "".join(html), words


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=flow(0))
def test_random_documents_lose_and_repeat_nothing(body: tuple[str, list[str]]) -> None:
    html, words = body
    document = f"<html><head><title>SECRET</title><style>p {{}}</style></head><body>{html}</body></html>"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "random.html"
        path.write_bytes(document.encode("utf-8"))
        if not words:
            with pytest.raises(ParseError):
                open_html(path)
            return
        pages = check_units(path)
    assert " ".join(p.text for p in pages).split() == " ".join(words).split()


# ---------------------------------------------------------------------------------------------------------------
# The shared corpus.


@needs_corpus
@pytest.mark.parametrize("path", LEASES, ids=[p.name for p in LEASES])
def test_corpus_filings_re_derive(path: Path) -> None:
    pages = check_units(path)
    assert len(pages) > 20
    assert not any(re.fullmatch(r"[-\s]*\d{1,3}[-\s]*", p.text) for p in pages if "col" not in p.locator)


@needs_corpus
def test_table_cells_open_no_sections() -> None:
    """The NNN rent cell '11.00' is an amount: table cells never open sections, so '5. USE.' stays section 5."""
    from kruschnexus.chunk.chunker import chunk_page
    from kruschnexus.chunk.sections import SectionTracker

    tracker = SectionTracker()
    with open_html(CORPUS / "lease" / "edgar_lease_11_nnn_commercial.htm") as source:
        chunks = [c for page in source.pages() for c in chunk_page(page, tracker, 1200)]
    [use] = [c for c in chunks if c.text == "5. USE."]
    assert use.section == "5"
