"""One hit per passage when a workspace holds the same document twice, in two formats.

A folder often keeps a contract as a PDF and as the text saved from it (CUAD and LegalBench-RAG ship both; EDGAR
filings come as ``.htm`` and ``.pdf``). Both are ingested, both match a question alike, and without this step the
first five hits are the same two or three passages twice. Twins are documents whose file names differ only in
their extension (:func:`are_twins`); a hit whose words a better-ranked hit from its twin already shows (most of
the shorter one's distinct words are in the other) is dropped, and of the two the one with a physical page (a
page image and boxes to show) takes the better rank. Documents that merely share boilerplate (two contracts'
governing-law clauses) are not twins and keep their hits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import TypeVar

from kruschnexus.lexical.analysis import file_stem

T = TypeVar("T")

#: Share of the shorter hit's distinct words that the other must hold for the two to be one passage.
SAME_PASSAGE = 0.8
_WORD = re.compile(r"\w+")


def are_twins(a: str, b: str) -> bool:
    """Two sources are twins: the same file name in two formats (``Supply.pdf`` and ``Supply.txt``). Two files
    of one name and format (``matter1/contract.pdf``, ``matter2/contract.pdf``, or two versions) are not."""
    return file_stem(a) == file_stem(b) and PurePath(a).suffix.casefold() != PurePath(b).suffix.casefold()


def once_per_passage(
    ranked: Sequence[T], k: int, describe: Callable[[T], tuple[str, str, str, bool, bool]]
) -> tuple[list[T], list[tuple[T, T]]]:
    """The first ``k`` admitted items of ``ranked`` with twins' repeats of a passage taken out, and the repeats
    taken out (each with the item kept in its place).

    ``describe`` gives an item's ``(doc_id, source, text, paged, admitted)``. The kept item of a repeated passage
    sits at the better rank and is the paged one when only one of the two is, however far down the paged one ranks
    and even if it was not admitted itself (its twin's words were).
    """
    kept: list[tuple[T, str, str, frozenset[str], bool]] = []  # item, doc_id, source, words, paged
    repeats: list[tuple[T, T]] = []  # (taken out, kept in its place)
    for item in ranked:
        doc_id, source, text, paged, admitted = describe(item)
        if not admitted and not (paged and any(not entry[4] for entry in kept)):
            continue
        words = passage_words(text)
        same = [
            i
            for i, (_, d, s, w, _) in enumerate(kept)
            if d != doc_id and are_twins(s, source) and _one_passage(words, w)
        ]
        if not same:
            if admitted and len(kept) < k:
                kept.append((item, doc_id, source, words, paged))
        elif paged and not any(kept[i][4] for i in same):
            # The paged copy stands for every text copy it repeats, at the best of their ranks.
            replaced = {id(kept[i][0]) for i in same}
            repeats = [(out, item if id(standing) in replaced else standing) for out, standing in repeats]
            repeats += [(kept[i][0], item) for i in same]
            kept[same[0]] = (item, doc_id, source, words, paged)
            kept = [entry for j, entry in enumerate(kept) if j == same[0] or j not in same]
        elif admitted:
            repeats.append((item, kept[same[0]][0]))
    return [entry[0] for entry in kept], repeats


def passage_words(text: str) -> frozenset[str]:
    """The distinct words (case folded) that two copies of a passage are compared by."""
    return frozenset(w.casefold() for w in _WORD.findall(text))


def same_passage(a: str, b: str) -> bool:
    """Two texts are one passage: :data:`SAME_PASSAGE` of the shorter one's distinct words are in the other."""
    return _one_passage(passage_words(a), passage_words(b))


def _one_passage(a: frozenset[str], b: frozenset[str]) -> bool:
    shorter = min(len(a), len(b))
    return shorter > 0 and len(a & b) >= SAME_PASSAGE * shorter
