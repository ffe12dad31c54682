"""Line markers stored with each span (migration 0010): the section markers that open a line of its text, as the
lexical analysis reads them. A section look-up finds the spans where a line opens the section through their index,
with the test fusion applies; spans stored before the migration (no markers) are still found by the regular
expression, until ``Corpus.reindex`` marks them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kruschnexus import Corpus
from kruschnexus.config import Settings
from kruschnexus.doctor import run_checks
from kruschnexus.embed.base import Embedder
from kruschnexus.lexical.analysis import line_markers
from kruschnexus.retrieve.filters import span_filter
from kruschnexus.retrieve.fusion import Candidate, in_named_section
from kruschnexus.retrieve.query import parse_query
from kruschnexus.store import queries as q
from tests.binder import binder
from tests.conftest import FIXTURES

pytestmark = pytest.mark.integration

#: Look-ups of the binder's, the contract's and the handbook's sections (the handbook's 12.1 opens a line of a span of
#: section 12: only that line finds it).
LOOKUPS = ("Section 3.02", "Article II", "Section 4.05 notices", "Section 9.9", "Article IV", "Section 12.1")
HANDBOOK = """# Employee Handbook

## 12. Holidays

The Company observes the public holidays listed in Schedule B.
12.1 Floating holidays. Each employee may choose two floating holidays a year with the approval of a manager.
12.2 Holiday pay. An employee who works on a holiday is paid one and a half times the regular rate.

## 13. Leave

Leave requests go to the employee's manager in writing.
"""


@pytest.fixture(scope="module")
def marked(settings: Settings, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    folder = tmp_path_factory.mktemp("marked")
    with Corpus(workspace="line-markers", settings=settings, embedder=embedder) as corpus:
        corpus.store.delete_workspace(corpus.workspace)
        handbook = folder / "handbook.md"
        handbook.write_text(HANDBOOK, encoding="utf-8")
        corpus.ingest([binder(folder / "binder.pdf", 18), FIXTURES / "sample_contract.pdf", handbook])
        yield corpus


def _stored(corpus: Corpus) -> dict[tuple[str, int, int], tuple[str, list[str] | None]]:
    with corpus.store.scoped(corpus.workspace) as conn:
        rows = conn.execute(
            "SELECT doc_id, page_number, ordinal, text, line_markers FROM spans WHERE workspace = %(w)s",
            {"w": corpus.workspace},
        ).fetchall()
    return {(r["doc_id"], r["page_number"], r["ordinal"]): (r["text"], r["line_markers"]) for r in rows}


def _admitted(corpus: Corpus, raw: str, unmarked: bool) -> set[tuple[str, int, int]]:
    """The spans the SQL section filter passes (every one, ranked exactly) that fusion then keeps as in the section."""
    parsed = parse_query(raw)
    f = span_filter(parsed, corpus.workspace, unmarked=unmarked)
    statement, params = q.dense_leg(f, corpus.embedder.dim)
    vector = corpus.embedder.embed([parsed.search_text])[0]
    bound = {**params, "text": parsed.search_text, "limit": 10_000, "vector": vector}
    rows = corpus.store.run_leg(statement, bound, planned_for_values=True, exact=True)
    kept = set()
    for r in rows:
        candidate = Candidate(
            key=r.key,
            section=r.section,
            section_path=tuple(r.section_path),
            markers=tuple(line_markers(r.text)),
        )
        if in_named_section(candidate, parsed.sections):
            kept.add(candidate.key)
    return kept


def _doctor_line(corpus: Corpus) -> str:
    report = run_checks(corpus.settings, lambda: corpus.store, lambda: corpus.embedder)
    check = next(c for c in report.checks if c.name == "line markers")
    assert check.ok
    return check.detail


def _hits(corpus: Corpus) -> dict[str, list[tuple[str, int | None, int]]]:
    return {raw: [(h.doc_id, h.page_number, h.char_start) for h in corpus.search(raw, k=5)] for raw in LOOKUPS}


def test_each_span_is_stored_with_the_markers_of_its_lines(marked: Corpus) -> None:
    stored = _stored(marked)
    assert stored and all(markers == line_markers(text) for text, markers in stored.values())
    assert any(markers for _, markers in stored.values())  # the binder's contents and sections open lines
    assert not marked.store.has_unmarked_spans(marked.workspace)


def _unmark(corpus: Corpus) -> None:
    with corpus.store.scoped(corpus.workspace) as conn:
        conn.execute("UPDATE spans SET line_markers = NULL WHERE workspace = %(w)s", {"w": corpus.workspace})


@pytest.mark.parametrize("raw", LOOKUPS)
def test_the_stored_markers_admit_what_the_regular_expression_admitted(marked: Corpus, raw: str) -> None:
    """The same spans reach fusion in the section, whether a line's opening is read from the stored markers or
    matched by the regular expression over the text of spans stored without them."""
    by_markers = _admitted(marked, raw, unmarked=False)
    _unmark(marked)
    try:
        by_pattern = _admitted(marked, raw, unmarked=True)
    finally:
        assert marked.store.mark_lines(marked.workspace, line_markers) == len(_stored(marked))
    assert by_markers == by_pattern
    key = parse_query(raw).sections[0].lower()
    opened = {k for k, (text, _) in _stored(marked).items() if key in line_markers(text)}
    assert opened <= by_markers  # every span where a line opens the section, whatever section it lies in


def test_look_ups_reach_spans_only_a_line_of_which_opens_the_section(marked: Corpus) -> None:
    """Without the markers (nor the expression) some look-ups lose spans: the arm is what finds them. ``Section 12.1``
    is answered by the span of section 12 whose second line opens 12.1."""
    hits = marked.search("Section 12.1", k=3)
    assert hits and hits[0].section == "12" and "\n12.1 Floating holidays" in hits[0].text
    _unmark(marked)
    try:
        lost = {raw: _admitted(marked, raw, unmarked=False) for raw in LOOKUPS}
    finally:
        marked.store.mark_lines(marked.workspace, line_markers)
    assert any(_admitted(marked, raw, unmarked=False) - lost[raw] for raw in LOOKUPS)


def test_spans_stored_before_the_markers_are_found_and_reindex_marks_them(marked: Corpus) -> None:
    """Spans without markers (as migration 0010 leaves the spans it finds) are still found by the regular
    expression; ``reindex`` gives them their markers, and the hits do not change."""
    before = _hits(marked)
    _unmark(marked)
    assert marked.store.has_unmarked_spans(marked.workspace)
    assert _hits(marked) == before
    assert "line-markers" in _doctor_line(marked)
    marked.reindex()
    assert not marked.store.has_unmarked_spans(marked.workspace)
    assert all(markers == line_markers(text) for text, markers in _stored(marked).values())
    assert _hits(marked) == before
    assert "line-markers" not in _doctor_line(marked)


def test_a_workspace_s_marking_is_its_own(marked: Corpus, settings: Settings, embedder: Embedder) -> None:
    """Unmarked spans of another workspace do not make this one's look-ups fall back to the regular expression."""
    with Corpus(workspace="line-markers-other", settings=settings, embedder=embedder) as other:
        other.store.delete_workspace(other.workspace)
        other.ingest([FIXTURES / "sample_contract.pdf"])
        with other.store.scoped(other.workspace) as conn:
            conn.execute("UPDATE spans SET line_markers = NULL WHERE workspace = %(w)s", {"w": other.workspace})
        assert other.store.has_unmarked_spans(other.workspace)
        assert not marked.store.has_unmarked_spans(marked.workspace)
        other.store.delete_workspace(other.workspace)


def test_reindex_tells_how_marking_goes(marked: Corpus, cli_env: None) -> None:
    """Marking older spans can take long (about 2 ms a span): ``reindex`` reports it from 0 to every span without
    markers, and the command says how many it marked; a workspace with none reports no marking."""
    import json

    from click.testing import CliRunner

    from kruschnexus.cli.app import cli

    total = len(_stored(marked))
    _unmark(marked)
    assert marked.store.unmarked_count(marked.workspace) == total
    heard: list[tuple[int, int]] = []
    marked.reindex(marking=lambda done, of: heard.append((done, of)))
    assert heard[0] == (0, total) and heard[-1] == (total, total)
    assert [done for done, _ in heard] == sorted(done for done, _ in heard)
    heard.clear()
    marked.reindex(marking=lambda done, of: heard.append((done, of)))
    assert heard == [] and marked.store.unmarked_count(marked.workspace) == 0
    _unmark(marked)
    result = CliRunner().invoke(cli, ["reindex", "-w", marked.workspace, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["marked"] == total
    _unmark(marked)
    text = CliRunner().invoke(cli, ["reindex", "-w", marked.workspace])
    assert text.exit_code == 0 and f"({total} older spans given their line markers)" in text.output, text.output
    text = CliRunner().invoke(cli, ["reindex", "-w", marked.workspace])
    assert text.exit_code == 0 and "older spans given" not in text.output, text.output
