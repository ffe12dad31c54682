"""The lexical index counts the spans that hold quoted phrases (the dense leg's choice between ranking them exactly and
walking the graph): the count is the spans whose analysed words hold each phrase's analysed words in order, and a
word's document frequency stands for it, as a bound, when one of the phrases' words is that rare."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kruschnexus.lexical.index import IndexState, SpanEntry
from kruschnexus.lexical.tantivy_index import TantivyIndex

WORDS = ("the", "borrower", "lender", "shall", "pay", "events", "event", "of", "default", "notice")


def _holds(words: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(words[i : i + n] == phrase for i in range(len(words) - n + 1))


texts = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join), min_size=1, max_size=40)
phrases = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join), min_size=1, max_size=2)


@settings(max_examples=30, deadline=None)
@given(texts=texts, quoted=phrases)
def test_the_count_is_the_spans_holding_every_phrase(texts: list[str], quoted: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        index = TantivyIndex(Path(folder) / "index")
        try:
            spans = [SpanEntry("a" * 64, 1, n, text, "", (), (), "lease", True) for n, text in enumerate(texts)]
            index.replace([], spans, [])
            index.commit(IndexState("test", 1))
            analysed = [index.analyze(t) for t in texts]
            wanted = [index.analyze(p) for p in quoted]
            holding = sum(all(_holds(words, p) for p in wanted) for words in analysed)
            rarest = min(sum(word in words for words in analysed) for p in wanted for word in p)
            # Counted whenever the rarest word is held by more spans than the bound asked for.
            assert index.phrase_spans(quoted, rarest - 1) == holding
            # Else that word's frequency, a bound of the count.
            assert index.phrase_spans(quoted, rarest) == rarest >= holding
        finally:
            index.close()


def test_a_phrase_without_a_word_the_index_reads_is_not_counted(tmp_path: Path) -> None:
    index = TantivyIndex(tmp_path / "index")
    try:
        index.replace([], [SpanEntry("a" * 64, 1, 0, "Section § 4", "", (), (), "lease", True)], [])
        index.commit(IndexState("test", 1))
        assert index.phrase_spans(["§"], 0) is None
        assert index.phrase_spans(["§", "section"], 0) == 1
    finally:
        index.close()
