"""An exact ranking under a quoted phrase that finds its spans by one word of the phrase, and tests the phrase on the
nearest only (``word_first_exact_leg``), ranks the same spans as one that tests the phrase on every span: whatever
the letter case and white space of the phrase in the text, and however deep the ranking."""

from __future__ import annotations

import csv
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from kruschnexus import Corpus
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.retrieve import legs
from kruschnexus.retrieve.filters import span_filter
from kruschnexus.retrieve.query import parse_query
from kruschnexus.store.records import LegRow

pytestmark = pytest.mark.integration

#: How the phrase ``the borrower`` may stand in a clause: each holds it (as its regular expression matches: any
#: letter case, any white space, inside a longer word too) but the last four, which hold the word alone.
HOLDING = (
    "the borrower",
    "The Borrower",
    "THE BORROWER",
    "the\nborrower",
    "tHe BoRrOwEr",
    "the  borrowers",
    "bathe Borrower",
    "the Borrower's",
    "the\u00a0Borrower",
)
WORD_ONLY = ("Borrower", "each Borrower", "BORROWER", "theborrower")
TOPICS = (
    "shall maintain insurance on the leased premises",
    "shall pay interest monthly",
    "shall deliver financial statements",
    "may prepay the loans without premium",
    "shall give notice of any default",
    "shall keep its properties in good repair",
)


@pytest.fixture(scope="module")
def clauses(settings: Settings, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    path = tmp_path_factory.mktemp("word-first") / "clauses.csv"
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["id", "clause"])
        for n, (form, topic) in enumerate(((f, t) for f in HOLDING + WORD_ONLY for t in TOPICS), start=1):
            writer.writerow([n, f"{form} {topic}."])
    with Corpus(workspace="word-first", settings=settings, embedder=embedder) as corpus:
        corpus.store.delete_workspace(corpus.workspace)
        corpus.ingest([Path(path)], doc_type="credit_agreement")
        yield corpus


def _ranked(corpus: Corpus, raw: str, depth: int, few: float, word: str | None) -> tuple[list[LegRow], str] | None:
    parsed = parse_query(raw)
    vector = corpus.embedder.embed([parsed.search_text])[0]
    fusion = dataclasses.replace(corpus.fusion_settings(), dense_depth=depth)
    common = {"text": parsed.search_text, "limit": depth, "vector": vector}
    f = span_filter(parsed, corpus.workspace)
    got = legs._capped_exact(corpus.store, f, corpus.embedder.dim, common, few, fusion, word)
    if got is None:
        return None
    rows, (statement, _) = got
    return rows, statement.as_string(None)


@hypothesis_settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(topic=st.sampled_from(TOPICS), depth=st.integers(1, 90), quoted=st.sampled_from(["the borrower", "BORROWER"]))
def test_found_by_the_word_the_ranking_is_the_same(clauses: Corpus, topic: str, depth: int, quoted: str) -> None:
    raw = f'"{quoted}" {topic}'
    few = 1000.0  # every span is read: the cap is far above them
    by_word = _ranked(clauses, raw, depth, few, quoted.split()[-1].lower())
    by_phrase = _ranked(clauses, raw, depth, few, None)
    assert by_word is not None and by_phrase is not None
    assert "WITH holding" in by_word[1] and "WITH passing" in by_phrase[1]
    assert [r.key for r in by_word[0]] == [r.key for r in by_phrase[0]]
    assert [r.cosine for r in by_word[0]] == pytest.approx([r.cosine for r in by_phrase[0]], abs=1e-6)
    holding = len(HOLDING) * len(TOPICS) if quoted == "the borrower" else len(HOLDING + WORD_ONLY) * len(TOPICS)
    assert len(by_word[0]) == min(depth, holding)
    # The spans holding the word, whatever their case: each holds "borrower" somehow.
    assert by_word[0][0].passing == len(HOLDING + WORD_ONLY) * len(TOPICS)


def test_more_spans_holding_the_word_than_the_cap_read_those_holding_the_phrase(clauses: Corpus) -> None:
    """The word's spans are more than the exact ranking may read (78 > 2 x 36), the phrase's fewer (54): the
    phrase's spans are read and ranked as without the word; with a cap below those too, no exact ranking."""
    raw = '"the borrower" shall pay interest monthly'
    ranked = _ranked(clauses, raw, 50, 36.0, "borrower")
    assert ranked is not None
    rows, statement = ranked
    assert "WITH passing" in statement
    assert rows == _ranked(clauses, raw, 50, 36.0, None)[0]  # type: ignore[index]
    assert rows[0].passing == len(HOLDING) * len(TOPICS)
    assert _ranked(clauses, raw, 50, 20.0, "borrower") is None


def test_no_span_holding_the_phrase_among_those_holding_the_word(clauses: Corpus) -> None:
    """Spans hold the word, none the phrase: the phrase's own reading says so (no rows, an answer)."""
    ranked = _ranked(clauses, '"borrower shall lend" insurance', 10, 1000.0, "borrower")
    assert ranked is not None and ranked[0] == [] and "WITH passing" in ranked[1]


def test_the_search_finds_a_common_phrase_by_its_word(clauses: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the search: the lexical index's counts choose the word (most spans holding it hold the phrase, and
    enough of them: the thresholds are lowered to the fixture's size), and the hits are those of the ranking by the
    phrase. The leg's depth (60) is more than the phrase's spans (54): the nearest-first read falls short; the cap
    (``dense_exact``) is far above the word's spans."""
    raw = '"the borrower" insurance on the leased premises'
    fusion = dataclasses.replace(clauses.fusion_settings(), dense_depth=60, dense_exact=100.0)
    monkeypatch.setattr(Corpus, "fusion_settings", lambda self: fusion)
    without = [(h.citation, h.score) for h in clauses.search(raw, k=5)]
    chosen: list[str | None] = []
    real = legs._word_first

    def noting(*args: Any, **kwargs: Any) -> str | None:
        word = real(*args, **kwargs)
        chosen.append(word)
        return word

    statements: list[str] = []
    run_leg = type(clauses.store).run_leg

    def running(self: Any, statement: Any, *args: Any, **kwargs: Any) -> Any:
        rows = run_leg(self, statement, *args, **kwargs)
        statements.append(statement.as_string(None) if hasattr(statement, "as_string") else str(statement))
        return rows

    monkeypatch.setattr(legs, "WORD_FIRST_FROM", 10)
    monkeypatch.setattr(legs, "WORD_FIRST_SHARE", 2.0)
    monkeypatch.setattr(legs, "_word_first", noting)
    monkeypatch.setattr(type(clauses.store), "run_leg", running)
    with_word = [(h.citation, h.score) for h in clauses.search(raw, k=5)]
    assert chosen == ["borrower"]
    exact = [text for text in statements if "WITH holding" in text or "WITH passing" in text]
    assert len(exact) == 1 and "WITH holding" in exact[0], "the word's ranking answered, without the phrase's"
    assert with_word == without and with_word
