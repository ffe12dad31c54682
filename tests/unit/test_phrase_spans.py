"""The lexical index counts the spans that hold quoted phrases (the dense leg's choice between ranking them exactly and
walking the graph): the count is the spans whose analysed words hold each phrase's analysed words in order, and a
word's document frequency stands for it, as a bound, when one of the phrases' words is that rare. Each word of the
phrases is counted too, and the dense leg's exact ranking finds a phrase's spans by its rarest word when most spans
holding the word hold the phrase, and reads more of the nearest spans first when that word is common."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kruschnexus.lexical.index import IndexState, SpanEntry
from kruschnexus.lexical.tantivy_index import TantivyIndex
from kruschnexus.retrieve import legs

WORDS = ("the", "borrower", "lender", "shall", "pay", "events", "event", "of", "default", "notice", "non-compete")


def _holds(words: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(words[i : i + n] == phrase for i in range(len(words) - n + 1))


texts = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join), min_size=1, max_size=40)
phrases = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join), min_size=1, max_size=2)


@contextmanager
def _indexed(texts: list[str]) -> Iterator[TantivyIndex]:
    """A lexical index in a temporary folder holding one span per text."""
    with tempfile.TemporaryDirectory() as folder:
        index = TantivyIndex(Path(folder) / "index")
        try:
            spans = [SpanEntry("a" * 64, 1, n, text, "", (), (), "lease", True) for n, text in enumerate(texts)]
            index.replace([], spans, [])
            index.commit(IndexState("test", 1))
            yield index
        finally:
            index.close()


@settings(max_examples=30, deadline=None)
@given(texts=texts, quoted=phrases)
def test_the_count_is_the_spans_holding_every_phrase(texts: list[str], quoted: list[str]) -> None:
    with _indexed(texts) as index:
        analysed = [index.analyze(t) for t in texts]
        wanted = [index.analyze(p) for p in quoted]
        holding = sum(all(_holds(words, p) for p in wanted) for words in analysed)
        rarest = min(sum(word in words for words in analysed) for p in wanted for word in p)
        # Counted whenever the rarest word is held by more spans than the bound asked for.
        assert index.phrase_spans(quoted, rarest - 1) == holding
        # Else that word's frequency, a bound of the count.
        assert index.phrase_spans(quoted, rarest) == rarest >= holding


@settings(max_examples=30, deadline=None)
@given(texts=texts, quoted=phrases)
def test_each_word_of_the_phrases_is_counted_by_its_rarest_stem(texts: list[str], quoted: list[str]) -> None:
    with _indexed(texts) as index:
        analysed = [set(index.analyze(t)) for t in texts]
        words = index.phrase_words([p.title() for p in quoted])  # counted as written, lower-cased
        assert set(words) == {w for p in quoted for w in p.split()}
        for word, holding in words.items():
            assert holding == min(sum(stem in held for held in analysed) for stem in index.analyze(word))


def _counts(
    words: dict[str, int], phrase: int | None
) -> tuple[Callable[[int], int | None], Callable[[], dict[str, int]]]:
    return (lambda beyond: phrase), (lambda: words)


def test_the_word_that_finds_a_phrase_s_spans() -> None:
    """The rarest word long enough for the trigram index, when most spans holding it hold the phrase and enough do."""
    many = legs.WORD_FIRST_FROM
    share = legs.WORD_FIRST_SHARE
    cap = 10 * many
    assert legs._word_first(*_counts({"the": many * 9, "borrower": many * 2}, many * 2), cap) == "borrower"
    # "rate" is rarer here, but too short for the trigram index: the next word finds the spans.
    assert legs._word_first(*_counts({"rate": many, "prime": many + 1}, many), cap) == "prime"
    # The word is held by more than the share allows: the phrase's spans are read.
    too_common = {"events": many * 5, "default": int(many * share) + 1}
    assert legs._word_first(*_counts(too_common, many), cap) is None
    assert legs._word_first(*_counts({"events": many * 5, "default": int(many * share)}, many), cap) == "default"
    # Too few hold the phrase for the word to save anything, though enough hold the word.
    assert legs._word_first(*_counts({"borrower": many}, many - 1), cap) is None
    assert legs._word_first(*_counts({"borrower": many - 1}, many - 1), cap) is None
    # More hold the word than the exact ranking may read.
    assert legs._word_first(*_counts({"borrower": cap + 1}, cap), cap) is None
    assert legs._word_first(*_counts({"borrower": cap}, cap), cap) == "borrower"
    # No word long enough, or no count of the phrase.
    assert legs._word_first(*_counts({"the": many, "rate": many}, many), cap) is None
    assert legs._word_first(*_counts({"borrower": many}, None), cap) is None
    assert legs._word_first(None, lambda: {"borrower": many}, cap) is None


def test_a_phrase_without_a_word_the_index_reads_is_not_counted(tmp_path: Path) -> None:
    index = TantivyIndex(tmp_path / "index")
    try:
        index.replace([], [SpanEntry("a" * 64, 1, 0, "Section § 4", "", (), (), "lease", True)], [])
        index.commit(IndexState("test", 1))
        assert index.phrase_spans(["§"], 0) is None
        assert index.phrase_spans(["§", "section"], 0) == 1
    finally:
        index.close()


@pytest.mark.parametrize(
    ("scan", "counts", "deep"),
    [
        (400, {"the": 900_000, "agent": 112_129}, legs.DEEP_SCAN),
        (400, {"agent": legs.DEEP_FROM}, legs.DEEP_SCAN),
        (400, {"the": 900_000, "majeure": legs.DEEP_FROM - 1}, None),
        (400, {}, None),
        (legs.DEEP_SCAN, {"agent": 112_129}, None),
    ],
)
def test_the_deeper_read_is_asked_for_by_the_rarest_word(scan: int, counts: dict[str, int], deep: int | None) -> None:
    """A deeper nearest-first read when the phrases' rarest word is held by at least ``DEEP_FROM`` spans and the read
    is deeper than the first."""
    assert legs.deep_scan(scan, lambda: counts) == deep
    assert legs.deep_scan(scan, None) is None
