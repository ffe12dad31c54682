"""The dense leg under filters: nearest-first when a filter passes many spans gives what ranking every passing span
gives, and falls back to that ranking when too few of the nearest pass; a named section and a quoted phrase are
answered by their indexes with the same rows as before."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from kruschnexus import Corpus
from kruschnexus.config import EF_SEARCH, MAX_EF_SEARCH, Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.lexical.index import LexicalHit
from kruschnexus.retrieve import legs
from kruschnexus.retrieve.filters import like_escape, phrase_pattern, span_filter
from kruschnexus.retrieve.legs import EXACT_WORK_MEM, PendingSeeds, dense_leg_rows, keyed_rows
from kruschnexus.retrieve.query import parse_query
from kruschnexus.store import queries as q
from kruschnexus.store.records import LegRow
from tests.binder import binder
from tests.conftest import FIXTURES

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def binders(settings: Settings, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    folder = tmp_path_factory.mktemp("binders")
    with Corpus(workspace="dense-leg", settings=settings, embedder=embedder) as corpus:
        corpus.store.delete_workspace(corpus.workspace)
        corpus.ingest([binder(folder / "binder.pdf", 24)], doc_type="agreement")
        corpus.ingest([FIXTURES / "sample_contract.pdf"], doc_type="lease")
        yield corpus


def _exact(corpus: Corpus, raw: str, depth: int) -> list[LegRow]:
    parsed = parse_query(raw)
    statement, params = q.dense_leg(span_filter(parsed, corpus.workspace), corpus.embedder.dim)
    vector = corpus.embedder.embed([parsed.search_text])[0]
    bound = {**params, "text": parsed.search_text, "limit": depth, "vector": vector}
    return corpus.store.run_leg(statement, bound, planned_for_values=True, exact=True)


def _served(corpus: Corpus, raw: str, depth: int, scan: int, **settings: Any) -> tuple[list[LegRow], str]:
    parsed = parse_query(raw)
    fusion = dataclasses.replace(corpus.fusion_settings(), dense_depth=depth, dense_scan=scan, **settings)
    vector = corpus.embedder.embed([parsed.search_text])[0]
    f = span_filter(parsed, corpus.workspace)
    rows, (statement, _) = dense_leg_rows(corpus.store, f, corpus.embedder.dim, parsed.search_text, vector, fusion)
    return rows, statement.as_string(None)


@pytest.mark.parametrize(
    "raw",
    [
        "insurance with financially sound carriers doc_type:agreement",
        "Lien on its property page:3-20 -swingline",
        '"liens" permitted liens on property',
    ],
)
def test_nearest_first_equals_ranking_every_passing_span(binders: Corpus, raw: str) -> None:
    assert q.reads_nearest_first(span_filter(parse_query(raw), binders.workspace))
    rows, statement = _served(binders, raw, depth=10, scan=30)
    assert "LIMIT %(scan)s" in statement, "enough of the 30 nearest pass: nearest-first answers"
    exact = _exact(binders, raw, 10)
    assert [r.key for r in rows] == [r.key for r in exact]
    assert [r.cosine for r in rows] == pytest.approx([r.cosine for r in exact], abs=1e-6)


def test_too_few_of_the_nearest_passing_ranks_every_passing_span(binders: Corpus) -> None:
    raw = "premises permitted use doc_type:lease"  # the lease has fewer spans than the leg's depth
    lease_spans = sum(1 for h in binders.export() if h.doc_type == "lease")
    depth = lease_spans + 5
    rows, statement = _served(binders, raw, depth=depth, scan=depth)
    assert "LIMIT %(scan)s" not in statement, "fewer than the depth pass: every passing span is ranked"
    assert len(rows) == lease_spans and all(r.doc_type == "lease" for r in rows)
    assert [r.key for r in rows] == [r.key for r in _exact(binders, raw, depth)]


def test_the_nearest_first_read_has_a_beam_as_wide_as_itself(binders: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past its beam an HNSW scan goes on by iterations of lesser quality: the nearest-first read of ``scan`` spans
    asks for a beam of ``scan`` (at most pgvector's 1000), the direct ranking for the configured one."""
    beams: list[int] = []
    run_leg = binders.store.run_leg

    def noting(
        statement: Any, params: Any, ef_search: int = 0, planned: bool = False, exact: bool = False, **more: Any
    ) -> Any:
        beams.append(ef_search)
        return run_leg(statement, params, ef_search, planned, exact, **more)

    monkeypatch.setattr(binders.store, "run_leg", noting)
    parsed = parse_query("insurance doc_type:agreement")
    vector = binders.embedder.embed([parsed.search_text])[0]
    f = span_filter(parsed, binders.workspace)
    for scan, expected in ((30, 40), (600, 600), (5000, 1000)):
        beams.clear()
        fusion = dataclasses.replace(binders.fusion_settings(), dense_depth=10, dense_scan=scan, ef_search=40)
        dense_leg_rows(binders.store, f, binders.embedder.dim, parsed.search_text, vector, fusion)
        assert beams == [expected], scan
    beams.clear()
    narrow = span_filter(parse_query("Section 3.02 liens"), binders.workspace)
    dense_leg_rows(binders.store, narrow, binders.embedder.dim, "liens", vector, fusion)
    assert beams == [40]  # ranked exactly: the beam is the configured one


def test_narrow_filters_are_ranked_directly(binders: Corpus) -> None:
    def nearest_first(raw: str) -> bool:
        return q.reads_nearest_first(span_filter(parse_query(raw), binders.workspace))

    for raw in ("Section 3.02 liens", 'Section 3.02 "liens"', "liens version:1", "liens"):
        assert not nearest_first(raw), raw
    for raw in ("doc_type:lease rent", "doc:*binder* liens", "liens page:2", "liens -swingline", '"sound" insurance'):
        assert nearest_first(raw), raw


def test_the_nearest_first_filter_is_tested_on_the_spans_read_only(binders: Corpus) -> None:
    """The filter of the nearest-first read applies to the spans read, whole rows: no index of the filter (a
    phrase's trigrams) can find spans for it, so at most ``scan`` spans are ever ranked."""
    parsed = parse_query('"the" insurance')
    f = span_filter(parsed, binders.workspace)
    statement, params = q.nearest_first_leg(f, binders.embedder.dim)
    vector = binders.embedder.embed([parsed.search_text])[0]
    bound = {**params, "text": parsed.search_text, "limit": 10, "vector": vector, "scan": 10}
    plan = "\n".join(binders.store.explain_leg(statement, bound, 10, planned_for_values=True))
    assert "spans_text_trgm" not in plan, plan
    rows = binders.store.run_leg(statement, bound, 10, planned_for_values=True)
    nearest = _exact(binders, "insurance", 10)
    assert {r.key for r in rows} <= {r.key for r in nearest}


def test_a_phrase_few_of_the_nearest_hold_is_ranked_exactly(binders: Corpus) -> None:
    """A quoted phrase that fewer of the nearest spans hold than the leg's depth: every span holding it is read and
    ranked by its exact distance, and the rows say how many passed; past the cap, the HNSW graph ranks them."""
    raw = '"financially sound carriers" rent payable monthly in advance'
    passing = len(_exact(binders, raw, 10_000))
    assert 0 < passing < 30, passing
    rows, statement = _served(binders, raw, depth=30, scan=30, dense_exact=100.0)
    assert "WITH passing" in statement
    assert [r.key for r in rows] == [r.key for r in _exact(binders, raw, 30)]
    assert rows[0].passing == passing
    parsed = parse_query(raw)
    vector = binders.embedder.embed([parsed.search_text])[0]
    f = span_filter(parsed, binders.workspace)
    tiny = dataclasses.replace(binders.fusion_settings(), dense_depth=30, dense_scan=30, dense_exact=1e-9)
    rows, (capped, _) = dense_leg_rows(binders.store, f, binders.embedder.dim, parsed.search_text, vector, tiny)
    assert "WITH passing" not in capped.as_string(None)
    assert [r.key for r in rows] == [r.key for r in _exact(binders, raw, 30)]


def test_keyed_filters_are_ranked_exactly_first(binders: Corpus) -> None:
    """A section or a named document passes spans by their keys: the dense leg tries ranking them exactly first; a
    phrase or a filter that may pass many does not."""

    def exactly_first(raw: str, doc_ids: tuple[str, ...] = ()) -> bool:
        return q.ranks_exactly_first(span_filter(parse_query(raw), binders.workspace, doc_ids))

    assert exactly_first("Section 3.02 liens") and exactly_first("Article II")
    assert exactly_first("liens", doc_ids=("a" * 64,))
    for raw in ('"financially sound carriers" insurance', 'Section 3.02 "sound carriers"', "doc:*binder* liens"):
        assert not exactly_first(raw), raw


def test_a_section_passing_few_is_ranked_exactly(binders: Corpus) -> None:
    """When the planner expects few spans to pass (under sqrt(depth x spans stored)), every one is read and ranked by
    its exact distance: the rows are the exact ranking's, and say how many passed."""
    raw = "Section 3.02 liens"
    rows, statement = _served(binders, raw, depth=10, scan=400)
    assert "WITH passing" in statement
    exact = _exact(binders, raw, 10)
    assert rows and [r.key for r in rows] == [r.key for r in exact]
    assert [r.cosine for r in rows] == pytest.approx([r.cosine for r in exact], abs=1e-6)
    assert rows[0].passing == len(_exact(binders, raw, 10_000))


def test_an_exact_ranking_past_its_cap_walks_the_graph_instead(
    binders: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The planner's estimate can be wrong: when more spans pass than the exact ranking reads (twice the threshold),
    its rows are no answer and the HNSW index ranks them (the estimate is made wrong here: the store says the planner
    expects none to pass, and the threshold is one span, so two are read)."""
    raw = "Article II liens"
    passing = len(_exact(binders, raw, 10_000))
    assert passing > 4, passing
    monkeypatch.setattr(binders.store, "passing_estimate", lambda *args, **kwargs: (0.0, 1.0))
    parsed = parse_query(raw)
    fusion = dataclasses.replace(binders.fusion_settings(), dense_depth=1, dense_exact=1.0)
    vector = binders.embedder.embed([parsed.search_text])[0]
    f = span_filter(parsed, binders.workspace)
    rows, (statement, _) = dense_leg_rows(binders.store, f, binders.embedder.dim, parsed.search_text, vector, fusion)
    text = statement.as_string(None)
    assert "WITH passing" not in text and "ORDER BY" in text
    assert len(rows) == 1 and rows[0].key == _exact(binders, raw, 1)[0].key


def test_a_section_expected_to_pass_many_walks_the_graph(binders: Corpus) -> None:
    """A threshold below what the planner expects: the HNSW index ranks, with no exact reading first."""
    fusion = dataclasses.replace(binders.fusion_settings(), dense_depth=10, dense_exact=1e-6)
    parsed = parse_query("Section 3.02 liens")
    vector = binders.embedder.embed([parsed.search_text])[0]
    f = span_filter(parsed, binders.workspace)
    rows, (statement, _) = dense_leg_rows(binders.store, f, binders.embedder.dim, parsed.search_text, vector, fusion)
    assert "WITH passing" not in statement.as_string(None)
    assert [r.key for r in rows] == [r.key for r in _exact(binders, "Section 3.02 liens", 10)]


def test_a_section_and_a_phrase_pass_what_their_patterns_pass(binders: Corpus) -> None:
    """Through the index arms (0008_section_lookup) a section keeps every span of it or below it (and may keep a
    span whose line opens with its number), and a phrase exactly the spans holding it."""
    spans = list(binders.export())
    rows = _exact(binders, "Section 3.02 liens", 500)
    expected = {(h.doc_id, h.page_number, h.char_start) for h in spans if h.section and h.section.startswith("3.02")}
    assert expected and {(r.doc_id, r.page_number, r.char_start) for r in rows} >= expected
    phrase = "financially sound carriers"
    rows = _exact(binders, f'"{phrase}" insurance', 500)
    holding = {(h.doc_id, h.page_number, h.char_start) for h in spans if phrase in " ".join(h.text.lower().split())}
    assert holding and {(r.doc_id, r.page_number, r.char_start) for r in rows} == holding


_CHARS = "abAB.,()§'-*?+[]{}^$|\\/1 \n\u00a0\t"


@hypothesis_settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(alphabet=_CHARS, max_size=40),
    start=st.integers(0, 40),
    length=st.integers(1, 10),
    other=st.none() | st.text(alphabet=_CHARS, min_size=1, max_size=6),
)
def test_a_phrase_pattern_matches_where_the_folded_text_holds_the_phrase(
    binders: Corpus, text: str, start: int, length: int, other: str | None
) -> None:
    """The phrase condition (a regular expression the trigram index answers) holds exactly where the text, lower-cased
    with its runs of white space folded to one space, holds the lower-cased phrase (the condition it replaced): for a
    phrase cut from the text and for one drawn apart from it, marks of regular expressions included."""
    phrase = " ".join((text[start : start + length] if other is None else other).split())
    assume(phrase)
    with binders.store.scoped(binders.workspace) as conn:
        row = conn.execute(
            "SELECT lower(regexp_replace(%(t)s, '[\\s\u00a0\u2007\u202f]+', ' ', 'g')) LIKE %(like)s AS old,"
            " %(t)s ~* %(pattern)s AS new",
            {"t": text, "like": f"%{like_escape(phrase.lower())}%", "pattern": phrase_pattern(phrase)},
        ).fetchone()
    assert row is not None and row["old"] == row["new"], (text, phrase)


class _Walks:
    """Notes the beam of each dense read of a store, and makes the check read ``fake`` cosines for the spans named
    there (as if the walk had missed them)."""

    def __init__(self, corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
        self.beams: list[int] = []
        self.fake: dict[tuple[str, int, int], float] = {}
        self.read: list[dict[tuple[str, int, int], float]] = []
        #: The ``work_mem`` each read of :meth:`PgStore.run_leg` asked for (``None``: the server's).
        self.memory: list[str | None] = []
        store = corpus.store
        run_leg, run_checked = store.run_leg, store.run_leg_and_cosines

        def noting(
            statement: Any,
            params: Any,
            ef_search: int = EF_SEARCH,
            planned_for_values: bool = False,
            exact: bool = False,
            work_mem: str | None = None,
        ) -> Any:
            if not exact:  # the reference ranking is not the leg's
                self.beams.append(ef_search)
                self.memory.append(work_mem)
            return run_leg(statement, params, ef_search, planned_for_values, exact, work_mem)

        def checked(statement: Any, params: Any, ef_search: int, planned: bool, seeds: Any, dim: int) -> Any:
            self.beams.append(ef_search)
            rows, cosines = run_checked(statement, params, ef_search, planned, seeds, dim)
            self.read.append(cosines)
            return rows, {**cosines, **{k: v for k, v in self.fake.items() if k in cosines}}

        monkeypatch.setattr(store, "run_leg", noting)
        monkeypatch.setattr(store, "run_leg_and_cosines", checked)

    def clear(self) -> None:
        self.beams.clear()
        self.read.clear()
        self.memory.clear()


def test_a_lexical_span_nearer_than_the_tenth_walks_the_graph_again(
    binders: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A span of the lexical leg nearer the question than the graph's tenth row, and not among its rows, proves the
    walk missed part of the graph: it is walked again with the widest beam, and joins the rows at its rank. Seeds
    no nearer than the farthest row, or among the rows, change nothing; their cosines are the exact ranking's."""
    parsed = parse_query("insurance with financially sound carriers")
    vector = binders.embedder.embed([parsed.search_text])[0]
    f = span_filter(parsed, binders.workspace)
    fusion = dataclasses.replace(binders.fusion_settings(), dense_depth=20, ef_search=40)
    served, _ = dense_leg_rows(binders.store, f, binders.embedder.dim, parsed.search_text, vector, fusion)
    outside = _exact(binders, parsed.text, 60)[20:]  # passing spans the leg did not return
    assert served and outside and all(r.key not in {s.key for s in served} for r in outside)
    walks = _Walks(binders, monkeypatch)

    def walk(seeds: list[LegRow]) -> tuple[list[int], list[LegRow]]:
        walks.clear()
        lexical = [dataclasses.replace(r, cosine=None) for r in seeds]  # as the lexical leg reads them
        rows, _ = dense_leg_rows(binders.store, f, binders.embedder.dim, parsed.search_text, vector, fusion, lexical)
        return list(walks.beams), rows

    beams, rows = walk(outside)
    assert beams == [40] and rows == served, "the spans outside are no nearer than the farthest row"
    assert walks.read[0] == pytest.approx({r.key: r.cosine for r in outside}, abs=1e-6), "read as ranked exactly"
    beams, rows = walk(served)
    assert beams == [40] and rows == served, "spans among the rows prove nothing"
    tenth = served[9].cosine
    assert tenth is not None
    walks.fake = {outside[0].key: tenth + 0.01}  # as if the walk had missed it
    beams, rows = walk([outside[0]])
    assert beams == [40, MAX_EF_SEARCH]
    assert [r.key for r in rows] == [r.key for r in served[:9]] + [outside[0].key] + [r.key for r in served[9:19]]
    assert rows[9].cosine == pytest.approx(tenth + 0.01) and len(rows) == fusion.dense_depth
    # The rows' order is not trusted (relaxed iterative scans): the tenth nearest is found by sorting. A seed below
    # it walks nothing again, but still joins the rows at its rank.
    walks.fake = {outside[0].key: tenth - 1e-4}
    beams, rows = walk([outside[0]])
    assert beams == [40]
    assert [r.key for r in rows] == [r.key for r in served[:10]] + [outside[0].key] + [r.key for r in served[10:19]]


def test_the_nearest_first_read_is_walked_again_and_an_exact_ranking_never(
    binders: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check holds for a nearest-first read that answers (its beam as wide as its read, then the widest), and
    never for an exact ranking (a section passing few), whatever the seeds say."""
    fusion = dataclasses.replace(binders.fusion_settings(), dense_depth=10, dense_scan=60, ef_search=40)
    walks = _Walks(binders, monkeypatch)
    for raw, first in (("insurance doc_type:agreement", [60]), ("Section 3.02 liens", [40])):
        parsed = parse_query(raw)
        vector = binders.embedder.embed([parsed.search_text])[0]
        f = span_filter(parsed, binders.workspace)
        dim = binders.embedder.dim
        rows, (statement, _) = dense_leg_rows(binders.store, f, dim, parsed.search_text, vector, fusion)
        # A passing span the rows lack (a section passing few has none: then any span, which an exact ranking never
        # consults).
        spans = [*_exact(binders, raw, 10_000), *_exact(binders, "liens", 10_000)]
        far = next(r for r in spans if r.key not in {x.key for x in rows})
        walks.fake = {far.key: 1.0}
        walks.clear()
        again, _ = dense_leg_rows(binders.store, f, dim, parsed.search_text, vector, fusion, [far])
        exactly = "WITH passing" in statement.as_string(None)
        assert exactly == raw.startswith("Section"), raw
        if exactly:
            assert walks.beams == first, raw  # ranked exactly: nothing to walk again
            assert walks.memory == [EXACT_WORK_MEM], raw  # its bitmap kept by row, its passing spans in memory
            assert [r.key for r in again] == [r.key for r in rows], raw
        else:
            assert walks.beams == [*first, MAX_EF_SEARCH], raw
            assert [r.key for r in again] == [far.key, *(r.key for r in rows[:-1])], raw


def test_a_search_gives_the_dense_leg_the_lexical_spans(binders: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """A search hands the lexical leg's spans to the dense leg's check; fusion knows the cosine of dense-leg
    candidates only."""
    from kruschnexus.retrieve import search as search_module

    given: list[list[tuple[str, int, int]]] = []
    lexical: list[tuple[str, int, int]] = []

    def noting(*args: Any, **kwargs: Any) -> Any:
        seeds = kwargs.get("seeds", ())
        given.append(list(seeds.keys) if isinstance(seeds, PendingSeeds) else [r.key for r in seeds])
        return dense_leg_rows(*args, **kwargs)

    def reading(*args: Any, **kwargs: Any) -> Any:
        rows = keyed_rows(*args, **kwargs)
        lexical.extend(r.key for r in rows)
        return rows

    monkeypatch.setattr(search_module, "dense_leg_rows", noting)
    monkeypatch.setattr(search_module, "keyed_rows", reading)
    trace = binders.explain("insurance with financially sound carriers", k=5)
    assert given and given[0] and given[0] == lexical
    assert all((c.cosine is None) == (c.dense_rank is None) for c in trace.candidates)
    assert any(c.dense_rank is None for c in trace.candidates), "some candidate comes from the lexical leg alone"


def test_a_phrase_the_lexical_index_finds_in_many_spans_is_ranked_by_the_graph(
    binders: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When few of the nearest spans hold a quoted phrase, the lexical index counts the spans that do: more than the
    exact ranking reads (twice ``dense_exact`` x sqrt(depth x stored)), and the graph ranks them with the widest
    beam, reading none of them exactly first; at most that, and they are ranked exactly."""
    raw = '"financially sound carriers" rent payable monthly in advance'
    parsed = parse_query(raw)
    vector = binders.embedder.embed([parsed.search_text])[0]
    f = span_filter(parsed, binders.workspace)
    index = binders.lexicon.index(binders.workspace)
    held = index.phrase_spans(parsed.phrases, 0)
    assert held is not None and 0 < held < 30, held
    walks = _Walks(binders, monkeypatch)
    asked: list[int] = []

    def counting(beyond: int) -> int | None:
        asked.append(beyond)
        return index.phrase_spans(parsed.phrases, beyond)

    for share, graph in ((1e-9, True), (100.0, False)):
        fusion = dataclasses.replace(binders.fusion_settings(), dense_depth=30, dense_scan=30, dense_exact=share)
        asked.clear()
        walks.clear()
        dim = binders.embedder.dim
        rows, (statement, _) = dense_leg_rows(
            binders.store, f, dim, parsed.search_text, vector, fusion, phrase_spans=counting
        )
        assert len(asked) == 1, share
        assert ("WITH passing" not in statement.as_string(None)) == graph, share
        first = max(fusion.ef_search, 30)  # the nearest-first read's
        assert walks.beams == [first, MAX_EF_SEARCH if graph else fusion.ef_search], share
        assert [r.key for r in rows] == [r.key for r in _exact(binders, raw, 30)], share
    # Another restriction may pass few of the phrase's spans, which the graph would not reach: no count, and the
    # exact ranking reads what passes.
    narrowed = span_filter(parse_query(raw + " doc:*binder*"), binders.workspace)
    asked.clear()
    fusion = dataclasses.replace(binders.fusion_settings(), dense_depth=30, dense_scan=30, dense_exact=100.0)
    rows, (statement, _) = dense_leg_rows(
        binders.store, narrowed, binders.embedder.dim, parsed.search_text, vector, fusion, phrase_spans=counting
    )
    assert asked == [] and "WITH passing" in statement.as_string(None)


def test_a_walk_short_of_an_answer_is_never_made_one_by_the_seeds(
    binders: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A nearest-first read walked again (a seed proved the first walk incomplete) that then passes fewer spans than
    an answer needs gives way to another ranking: the lexical leg's spans do not fill it up."""
    from kruschnexus.retrieve.legs import _walked

    parsed = parse_query("insurance doc_type:agreement")
    vector = binders.embedder.embed([parsed.search_text])[0]
    f = span_filter(parsed, binders.workspace)
    statement, params = q.nearest_first_leg(f, binders.embedder.dim)
    bound = {**params, "text": parsed.search_text, "limit": 10, "vector": vector, "scan": 60}
    passing = _exact(binders, raw := "insurance doc_type:agreement", 40)
    assert len(passing) == 40, raw
    walks = _Walks(binders, monkeypatch)
    walks.fake = {passing[30].key: 1.0}  # as if the first walk had missed it: walked again
    run_leg = binders.store.run_leg
    monkeypatch.setattr(
        binders.store, "run_leg", lambda *args, **kwargs: run_leg(*args, **kwargs)[-3:]
    )  # the second walk passes 3, the farthest of its ten: seeds nearer than they are would join an answer
    rows = _walked(binders.store, statement, bound, 60, True, passing[5:], binders.embedder.dim, enough=10)
    assert walks.beams == [60, MAX_EF_SEARCH] and len(rows) == 3, "walked again, and short: no seed joins"
    monkeypatch.setattr(binders.store, "run_leg", run_leg)
    walks.clear()
    rows = _walked(binders.store, statement, bound, 60, True, passing[5:], binders.embedder.dim, enough=10)
    assert walks.beams == [60, MAX_EF_SEARCH] and len(rows) == 10, "walked again, an answer"


def test_only_seeds_nearer_than_the_farthest_row_join(binders: Corpus) -> None:
    """The lexical leg's spans join the dense rows where they are nearer than the farthest of them, at their ranks,
    once each; a walk that returned fewer rows than its depth is not filled up with farther spans."""
    from kruschnexus.retrieve.legs import _joined

    ranked = _exact(binders, "insurance with financially sound carriers", 20)
    cosines = {r.key: float(r.cosine or 0.0) for r in ranked}
    rows, farther = ranked[:5], ranked[5:]
    lexical = [dataclasses.replace(r, cosine=None) for r in farther]
    assert _joined(rows, lexical, cosines, 20) == rows, "every seed is farther than the farthest row"
    assert _joined([], lexical, cosines, 20) == []
    missed = [dataclasses.replace(r, cosine=None) for r in (ranked[2], ranked[2], *farther)]
    joined = _joined([ranked[0], ranked[1], ranked[3], ranked[4]], missed, cosines, 20)
    assert [r.key for r in joined] == [r.key for r in ranked[:5]], "a missed span joins once, at its rank"
    assert joined[2].cosine == pytest.approx(ranked[2].cosine)
    assert [r.key for r in _joined([ranked[0], ranked[1], ranked[3], ranked[4]], missed, cosines, 3)] == [
        r.key for r in ranked[:3]
    ]


def test_a_leg_s_work_mem_is_set_for_its_transaction_alone(binders: Corpus) -> None:
    store = binders.store
    before = store.conn.execute("SELECT current_setting('work_mem') AS value").fetchone()
    assert before is not None
    other = "7MB" if before["value"] != "7MB" else "9MB"  # a value the server does not already run with
    for asked in (other, EXACT_WORK_MEM):
        with store._leg_scope({"workspace": binders.workspace}, 40, False, asked) as conn:
            inside = conn.execute("SELECT current_setting('work_mem') AS value").fetchone()
        assert inside == {"value": asked}
    with store._leg_scope({"workspace": binders.workspace}, 40, False) as conn:
        plain = conn.execute("SELECT current_setting('work_mem') AS value").fetchone()
    after = store.conn.execute("SELECT current_setting('work_mem') AS value").fetchone()
    assert plain == before and after == before


def test_spans_deeper_in_the_lexical_ranking_mend_a_filtered_walk(binders: Corpus) -> None:
    """Keys from deeper in the lexical ranking join a walk's rows where their spans pass the filter and are nearer
    than the farthest row, at their ranks and with their exact cosines; a span the filter refuses, one farther than
    every row, and one already among the rows change nothing."""
    from kruschnexus.retrieve.legs import _deepened

    raw = "insurance with financially sound carriers doc_type:agreement"
    parsed = parse_query(raw)
    f = span_filter(parsed, binders.workspace)
    exact = _exact(binders, raw, 20)
    refused = _exact(binders, "insurance with financially sound carriers doc_type:lease", 1)
    assert len(exact) == 20 and refused and refused[0].key not in {r.key for r in exact}
    vector = binders.embedder.embed([parsed.search_text])[0]
    common = {"text": parsed.search_text, "limit": 10, "vector": vector}
    walked = [*exact[:3], *exact[5:12]]  # as if the walk had missed the 4th and 5th nearest
    assert (refused[0].cosine or 0.0) > (exact[11].cosine or 0.0), "the refused span is nearer than the farthest row"
    deeper = [refused[0].key, exact[15].key, exact[4].key, exact[0].key, exact[3].key, exact[4].key]
    mended = _deepened(binders.store, f, binders.embedder.dim, common, walked, (), deeper)
    assert [r.key for r in mended] == [r.key for r in exact[:10]]
    assert [r.cosine for r in mended] == pytest.approx([r.cosine for r in exact[:10]], abs=1e-6)
    assert mended[3] == exact[3], "read whole, as the lexical leg reads its spans"
    assert _deepened(binders.store, f, binders.embedder.dim, common, walked, (), [exact[15].key]) == walked
    assert _deepened(binders.store, f, binders.embedder.dim, common, [], (), deeper) == []
    short = exact[:2]  # a walk short of its depth: only spans nearer than its farthest row join
    assert _deepened(binders.store, f, binders.embedder.dim, common, short, (), deeper) == short
    seeded = _deepened(binders.store, f, binders.embedder.dim, common, walked, [exact[3], exact[4]], deeper)
    assert seeded == walked, "the lexical leg's own spans were the walk's seeds already"


def test_the_lexical_ranking_mends_only_filtered_walks_of_large_workspaces(
    binders: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kruschnexus.retrieve import legs

    index = binders.lexicon.index(binders.workspace)
    fusion = binders.fusion_settings()
    filtered = span_filter(parse_query("insurance doc_type:agreement"), binders.workspace)
    plain = span_filter(parse_query("insurance"), binders.workspace)
    assert legs.seed_depth(index, filtered, fusion) == 0, f"{index.span_count()} spans: the graph's walk is enough"
    monkeypatch.setattr(legs, "DEEPER_FROM", index.span_count())
    assert legs.seed_depth(index, filtered, fusion) == fusion.dense_seeds > fusion.sparse_depth
    assert legs.seed_depth(index, plain, fusion) == 0
    for seeds in (0, fusion.sparse_depth):
        assert legs.seed_depth(index, filtered, dataclasses.replace(fusion, dense_seeds=seeds)) == 0


def test_a_search_mending_its_walks_answers_as_one_that_does_not(
    binders: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Here the walks are exact, so the mending (asked of every filtered question that walks the graph) finds
    nothing to add: the same hits, with the lexical ranking read deeper than its leg keeps."""
    from kruschnexus.retrieve import legs

    questions = [
        "insurance with financially sound carriers doc_type:agreement",
        '"insurance" doc_type:agreement page:1-10',
        "rent doc:*contract* -insurance",
    ]
    fusion = dataclasses.replace(binders.fusion_settings(), sparse_depth=5, dense_seeds=60)
    monkeypatch.setattr(binders, "fusion_settings", lambda: fusion)  # the lexical leg keeps fewer than it ranks
    before = {raw: binders.search(raw, k=5) for raw in questions}
    deepened: list[int] = []
    mend = legs._deepened
    run_leg = binders.store.run_leg
    nearer: list[int] = []

    def noting(*args: Any) -> list[LegRow]:
        deepened.append(len(args[-1]))
        return mend(*args)

    def reading(statement: Any, params: Any, *args: Any, **kwargs: Any) -> list[LegRow]:
        rows = run_leg(statement, params, *args, **kwargs)
        if "farthest" in params:  # the mending's read by key
            nearer.append(len(rows))
        return rows

    monkeypatch.setattr(binders.store, "run_leg", reading)

    monkeypatch.setattr(legs, "DEEPER_FROM", 0)
    monkeypatch.setattr(legs, "_deepened", noting)
    for raw in questions:
        assert binders.search(raw, k=5) == before[raw], raw
    assert deepened and all(n > fusion.sparse_depth for n in deepened), deepened
    assert nearer and not any(nearer), "read through the filter, and none nearer than the exact rows' farthest"


def test_the_keyed_read_begins_with_the_keys(binders: Corpus) -> None:
    """The lexical leg's spans are read by their keys whatever the filter: a phrase's or a ``doc:`` pattern's
    estimate never has the planner read the spans another way first."""
    parsed = parse_query('"insurance" doc:*binder* -premium page:1-20')
    f = span_filter(parsed, binders.workspace)
    keys = [r.key for r in _exact(binders, "insurance", 30)]
    for statement, params in (q.keyed_leg(f), q.keyed_nearer(f, binders.embedder.dim)):
        vector = binders.embedder.embed([parsed.search_text])[0]
        bound = {**params, "text": parsed.search_text, "vector": vector, "farthest": -1.0}
        bound |= q.key_arrays(keys)
        for planned in (True, False):
            plan = "\n".join(binders.store.explain_leg(statement, bound, planned_for_values=planned))
            assert "Bitmap Heap Scan on spans" not in plan and "Seq Scan on spans" not in plan, plan


def _on_their_way(keys: Sequence[tuple[str, int, int]], rows: list[LegRow]) -> PendingSeeds:
    """Seeds whose read by key has already given ``rows``."""
    read: Future[list[LegRow]] = Future()
    read.set_result(rows)
    return PendingSeeds(tuple(keys), read)


def test_seeds_on_their_way_count_only_the_spans_that_pass(binders: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the lexical leg's spans are read back on another connection, the walk's check reads the cosines of all
    their keys; only those whose spans pass the filter (the read's rows) walk the graph again and join the rows."""
    raw = "insurance doc_type:agreement"
    parsed = parse_query(raw)
    vector = binders.embedder.embed([parsed.search_text])[0]
    f = span_filter(parsed, binders.workspace)
    dim = binders.embedder.dim
    fusion = dataclasses.replace(binders.fusion_settings(), dense_depth=10, dense_scan=60, ef_search=40)
    served, _ = dense_leg_rows(binders.store, f, dim, parsed.search_text, vector, fusion)
    refused = _exact(binders, "insurance doc_type:lease", 1)
    passing = next(r for r in _exact(binders, raw, 100) if r.key not in {s.key for s in served})
    assert len(served) == 10 and refused
    ordered = sorted(served, key=lambda r: -(r.cosine or 0.0))  # relaxed iterative scans: rows slightly out of order
    tenth = ordered[9].cosine
    assert tenth is not None
    walks = _Walks(binders, monkeypatch)
    walks.fake = {refused[0].key: tenth + 0.01, passing.key: tenth + 0.01}  # both as if the walk had missed them

    def walk(seeds: PendingSeeds) -> tuple[list[int], list[LegRow]]:
        walks.clear()
        rows, _ = dense_leg_rows(binders.store, f, dim, parsed.search_text, vector, fusion, seeds)
        return list(walks.beams), rows

    beams, rows = walk(_on_their_way([refused[0].key], []))
    assert refused[0].key in walks.read[0], "its cosine was read with the walk"
    assert beams == [60] and rows == served, "a span the filter refuses proves nothing"
    lexical = dataclasses.replace(passing, cosine=None)
    beams, rows = walk(_on_their_way([refused[0].key, passing.key], [lexical]))
    assert beams == [60, MAX_EF_SEARCH], "the passing one walks the graph again"
    keys = [r.key for r in rows]
    assert len(rows) == 10 and passing.key in keys and refused[0].key not in keys
    joined = rows[keys.index(passing.key)]
    assert joined.cosine == pytest.approx(tenth + 0.01) and joined.text == passing.text
    cosines = [r.cosine or 0.0 for r in rows]
    assert cosines == sorted(cosines, reverse=True), "at its rank"


def test_a_search_reads_its_lexical_spans_beside_the_dense_leg(
    binders: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A corpus that opened its own store reads the lexical leg's spans on a second connection while the dense leg
    runs on the first: every kind of question gets the same candidates and hits as on one connection."""
    from kruschnexus.retrieve import search as search_module

    questions = [
        "insurance with financially sound carriers",
        "insurance with financially sound carriers doc_type:agreement",
        '"financially sound carriers" rent payable monthly in advance',
        "Section 3.02 liens",
        "rent doc:*contract* -insurance",
        '"insurance" doc_type:agreement page:1-10',
    ]
    stores: list[Any] = []
    read = keyed_rows

    def reading(store: Any, *args: Any, **kwargs: Any) -> list[LegRow]:
        stores.append(store)
        return read(store, *args, **kwargs)

    monkeypatch.setattr(search_module, "keyed_rows", reading)
    beside = {raw: binders.explain(raw, k=5) for raw in questions}
    side = binders._side
    assert side is not None and side is not binders.store and side.conn is not binders.store.conn
    assert stores and all(store is side for store in stores), "read on the second connection"
    assert binders.search_connections == 2
    monkeypatch.setattr(binders, "_side_store", lambda: None)
    stores.clear()
    for raw in questions:
        assert binders.explain(raw, k=5) == beside[raw], raw
    assert stores and all(store is binders.store for store in stores)
    assert any(trace.hits for trace in beside.values())


def test_lexical_spans_the_filter_refuses_change_no_search(binders: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spans the lexical index ranks first but PostgreSQL's filter refuses (the index matches stems, the filter
    substrings) are in the keys handed to the dense leg beside its walk, never in the rows read: the search answers
    as one connection does."""
    from kruschnexus.retrieve import search as search_module

    raw = "insurance with financially sound carriers doc_type:agreement"
    refused = [r.key for r in _exact(binders, "insurance with financially sound carriers doc_type:lease", 3)]
    index = binders.lexicon.index(binders.workspace)
    ranking = index.search

    def intruding(query: Any, limit: int) -> list[LexicalHit]:
        return [*(LexicalHit(key, 99.0, 1.0) for key in refused), *ranking(query, limit)][:limit]

    handed: list[Any] = []

    def noting(*args: Any, **kwargs: Any) -> Any:
        handed.append(kwargs["seeds"])
        return dense_leg_rows(*args, **kwargs)

    monkeypatch.setattr(index, "search", intruding)
    monkeypatch.setattr(search_module, "dense_leg_rows", noting)
    beside = binders.explain(raw, k=5)
    assert handed and isinstance(handed[0], PendingSeeds)
    assert list(handed[0].keys[:3]) == refused and not set(refused) & {r.key for r in handed[0].rows()}
    monkeypatch.setattr(binders, "_side_store", lambda: None)
    handed.clear()
    assert binders.explain(raw, k=5) == beside
    assert handed and not isinstance(handed[0], PendingSeeds) and not set(refused) & {r.key for r in handed[0]}


def test_a_failed_dense_leg_leaves_the_second_connection_free(binders: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lexical leg's read on the second connection is over before the dense leg's error leaves the search; the
    next search uses both connections again."""
    from kruschnexus.retrieve import search as search_module

    reads: list[Any] = []
    submit = search_module._READING.submit

    def noting(*args: Any, **kwargs: Any) -> Any:
        reads.append(submit(*args, **kwargs))
        return reads[-1]

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the dense leg failed")

    monkeypatch.setattr(search_module._READING, "submit", noting)
    monkeypatch.setattr(search_module, "dense_leg_rows", failing)
    with pytest.raises(RuntimeError, match="the dense leg failed"):
        binders.search("insurance with financially sound carriers", k=5)
    assert reads and reads[-1].done()
    assert binders._side is not None and binders._side.reusable, "no transaction left open on it"
    monkeypatch.setattr(search_module, "dense_leg_rows", dense_leg_rows)
    assert binders.search("insurance with financially sound carriers", k=5)
    assert len(reads) == 2 and reads[-1].done()


def test_a_second_connection_refused_leaves_searches_on_one(
    binders: Corpus, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A server that refuses the second connection (too many clients) costs the search nothing but the overlap: it
    answers on one connection, says why once, and asks no more."""
    from kruschnexus.errors import StoreUnavailable

    before = binders.search("insurance with financially sound carriers", k=5)
    tries: list[int] = []

    def refusing() -> Any:
        tries.append(1)
        raise StoreUnavailable("too many clients already")

    monkeypatch.setattr(binders, "_side", None)  # as before its first search (the open one is put back after)
    monkeypatch.setattr(binders, "_side_wanted", True)
    monkeypatch.setattr(binders.database, "connect", refusing)
    with caplog.at_level("WARNING"):
        assert binders.search("insurance with financially sound carriers", k=5) == before
        assert binders.search("insurance with financially sound carriers", k=5) == before
    assert tries == [1] and "too many clients already" in caplog.text


def test_the_question_is_embedded_while_the_workspace_is_checked(
    binders: Corpus, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workspace's check (a read of its model) runs once the question's embedding is on its way; a workspace
    that does not exist still stops the search before its lexical index is read (the embedding is not waited for)."""
    from kruschnexus.errors import NotFoundError
    from kruschnexus.retrieve import search as search_module

    events: list[str] = []
    pool = search_module._EMBEDDING

    class Noting:
        def submit(self, *args: Any) -> Future[Any]:
            events.append("embedding submitted")
            return pool.submit(*args)

    real_check = Corpus._require_workspace

    def checking(self: Corpus) -> None:
        events.append("workspace checked")
        real_check(self)

    def syncing(*args: Any, **kwargs: Any) -> Any:
        events.append("lexical index synced")
        return real_sync(*args, **kwargs)

    real_sync = type(binders.lexicon).sync
    monkeypatch.setattr(search_module, "_EMBEDDING", Noting())
    monkeypatch.setattr(Corpus, "_require_workspace", checking)
    monkeypatch.setattr(type(binders.lexicon), "sync", syncing)
    assert binders.search("insurance with financially sound carriers", k=3)
    assert events == ["embedding submitted", "workspace checked", "lexical index synced"]
    events.clear()
    with Corpus(workspace="no-such-workspace", settings=settings, embedder=binders.embedder) as missing:
        with pytest.raises(NotFoundError, match="does not exist"):
            missing.search("insurance with financially sound carriers", k=3)
    assert events == ["embedding submitted", "workspace checked"]


def _deep_read(
    binders: Corpus, monkeypatch: pytest.MonkeyPatch, raw: str, deep: int, deep_from: int, depth: int = 15
) -> tuple[list[LegRow], str, dict[str, Any], list[int]]:
    """The dense leg of ``raw`` (``depth``, a first read of the max(20, ``depth``) nearest) with a deeper read of
    ``deep`` spans allowed from ``deep_from`` spans holding the phrase's rarest word; the rows, the statement and
    parameters that gave them, and the ``scan`` of every nearest-first read."""
    monkeypatch.setattr(legs, "DEEP_SCAN", deep)
    monkeypatch.setattr(legs, "DEEP_FROM", deep_from)
    parsed = parse_query(raw)
    vector = binders.embedder.embed([parsed.search_text])[0]
    f = span_filter(parsed, binders.workspace)
    index = binders.lexicon.index(binders.workspace)
    fusion = dataclasses.replace(binders.fusion_settings(), dense_depth=depth, dense_scan=20, dense_exact=100.0)
    scans: list[int] = []
    run_leg = type(binders.store).run_leg  # the class's: a wrapper of an earlier call is never wrapped again

    def noting(statement: Any, params: Any, *args: Any, **kwargs: Any) -> Any:
        if "scan" in params:
            scans.append(params["scan"])
        return run_leg(binders.store, statement, params, *args, **kwargs)

    monkeypatch.setattr(binders.store, "run_leg", noting)
    rows, (statement, bound) = dense_leg_rows(
        binders.store,
        f,
        binders.embedder.dim,
        parsed.search_text,
        vector,
        fusion,
        phrase_spans=functools.partial(index.phrase_spans, parsed.phrases),
        phrase_words=functools.partial(index.phrase_words, parsed.phrases),
    )
    return rows, statement.as_string(None), bound, scans


#: A phrase 24 spans of the binders hold: 9 of the 20 spans nearest the question, 21 of the 60 nearest.
DEEP_QUESTION = '"the borrower" maintain insurance with financially sound carriers'


def test_a_phrase_whose_words_many_spans_hold_is_read_deeper_first(
    binders: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fewer of the nearest spans hold a quoted phrase than the leg's depth, and its rarest word is held by many
    spans (an exact ranking would read them all): the nearest spans are read again, deeper, before any exact ranking.
    When enough of them hold the phrase they are the answer, the exact ranking's rows; when too few do, the exact
    ranking answers; when the word is rarer, no deeper read."""
    exact = _exact(binders, DEEP_QUESTION, 15)
    holders = _exact(binders, DEEP_QUESTION, 10_000)
    assert len(holders) > 15
    parsed = parse_query(DEEP_QUESTION)
    unfiltered, params = q.dense_leg(span_filter(dataclasses.replace(parsed, phrases=()), binders.workspace), 384)
    vector = binders.embedder.embed([parsed.search_text])[0]
    near = {**params, "text": parsed.search_text, "limit": 60, "vector": vector}
    nearest = [r.key for r in binders.store.run_leg(unfiltered, near, planned_for_values=True, exact=True)]
    held = {r.key for r in holders}
    assert sum(key in held for key in nearest[:20]) < 15 <= sum(key in held for key in nearest)
    rows, statement, bound, scans = _deep_read(binders, monkeypatch, DEEP_QUESTION, 60, 1)
    assert scans == [20, 60] and bound["scan"] == 60 and "WITH" not in statement
    assert [r.key for r in rows] == [r.key for r in exact]
    assert [r.cosine for r in rows] == pytest.approx([r.cosine for r in exact], abs=1e-6)
    # Too few of the 30 nearest hold it: the exact ranking reads every span that does.
    assert sum(key in held for key in nearest[:30]) < 15
    rows, statement, _, scans = _deep_read(binders, monkeypatch, DEEP_QUESTION, 30, 1)
    assert scans == [20, 30] and "WITH" in statement
    assert [r.key for r in rows] == [r.key for r in exact]
    # The phrase's rarest word held by fewer spans than the deeper read asks for: straight to the exact ranking.
    words = binders.lexicon.index(binders.workspace).phrase_words(["the borrower"])
    rows, statement, _, scans = _deep_read(binders, monkeypatch, DEEP_QUESTION, 60, min(words.values()) + 1)
    assert scans == [20] and "WITH" in statement
    assert [r.key for r in rows] == [r.key for r in exact]
    # Fewer spans hold the phrase than the leg's depth, as the lexical index counts them (the rarest word's count
    # standing for the phrase's, as a bound, below the cap): no read can find enough, none is tried.
    counted = binders.lexicon.index(binders.workspace).phrase_spans(["the borrower"], 10**9)
    assert counted is not None and counted < 30
    rows, statement, _, scans = _deep_read(binders, monkeypatch, DEEP_QUESTION, 100, 1, depth=30)
    assert scans == [30] and "WITH" in statement
    assert [r.key for r in rows] == [r.key for r in _exact(binders, DEEP_QUESTION, 30)]
    # With another restriction the lexical index counts nothing: the deeper read is tried, and answers.
    restricted = DEEP_QUESTION + " doc_type:agreement"
    rows, statement, bound, scans = _deep_read(binders, monkeypatch, restricted, 60, 1)
    assert scans == [20, 60] and bound["scan"] == 60 and "WITH" not in statement
    assert [r.key for r in rows] == [r.key for r in _exact(binders, restricted, 15)]


def test_the_search_reads_deeper_with_the_same_hits(binders: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the search (the lexical index counts the phrase's words): the deeper read answers, with no exact
    ranking, and the hits are those the exact ranking gives without it."""
    fusion = dataclasses.replace(binders.fusion_settings(), dense_depth=15, dense_scan=20, dense_exact=100.0)
    monkeypatch.setattr(Corpus, "fusion_settings", lambda self: fusion)
    scans: list[int] = []
    run_leg = type(binders.store).run_leg

    def noting(self: Any, statement: Any, params: Any, *args: Any, **kwargs: Any) -> Any:
        if "scan" in params:
            scans.append(params["scan"])
        if "cap" in params:  # an exact ranking's
            scans.append(-1)
        return run_leg(self, statement, params, *args, **kwargs)

    checked = type(binders.store).run_leg_and_cosines

    def checking(self: Any, statement: Any, params: Any, *args: Any, **kwargs: Any) -> Any:
        if "scan" in params:
            scans.append(params["scan"])
        return checked(self, statement, params, *args, **kwargs)

    monkeypatch.setattr(type(binders.store), "run_leg", noting)
    monkeypatch.setattr(type(binders.store), "run_leg_and_cosines", checking)
    hits = {}
    for deep_from in (10**12, 1):
        monkeypatch.setattr(legs, "DEEP_SCAN", 60)
        monkeypatch.setattr(legs, "DEEP_FROM", deep_from)
        scans.clear()
        hits[deep_from] = [(h.citation, h.score) for h in binders.search(DEEP_QUESTION, k=5)]
        assert (60 in scans) == (deep_from == 1) and (-1 in scans) == (deep_from != 1), scans
    assert hits[1] == hits[10**12] and hits[1]
