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

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from kruschnexus.config import default_of
from kruschnexus.lexical.analysis import file_stem, file_suffix

T = TypeVar("T")

#: A word two copies of a passage are compared by.
_WORD = re.compile(r"\w+")


def are_twins(a: str, b: str) -> bool:
    """Two sources are twins: the same file name in two formats (``Supply.pdf`` and ``Supply.txt``). Two files
    of one name and format (``matter1/contract.pdf``, ``matter2/contract.pdf``, or two versions) are not; nor are
    names without an extension (``X-EX-10.26-Agency`` has none)."""
    x, y = file_suffix(a), file_suffix(b)
    return bool(x) and bool(y) and x != y and file_stem(a) == file_stem(b)


@dataclass
class _Kept(Generic[T]):
    item: T
    doc_id: str
    source: str
    stem: str
    text: str
    paged: bool

    @functools.cached_property
    def words(self) -> frozenset[str]:
        return passage_words(self.text)  # only when a twin's hit is compared with it


def once_per_passage(
    ranked: Sequence[T],
    k: int,
    describe: Callable[[T], tuple[str, str, str, bool, bool]],
    *,
    same_share: float = default_of("twin_same_passage", float),
    stands_for: float = default_of("twin_stands_for", float),
) -> tuple[list[T], list[tuple[T, T]]]:
    """The first ``k`` admitted items of ``ranked`` once twins' repeats of a passage are taken out, and the repeats
    taken out (each with the item kept in its place).

    ``describe`` gives an item's ``(doc_id, source, text, paged, admitted)``. The kept item of a repeated passage
    sits at the better rank and is the paged one when only one of the two is and it holds the other's words,
    however far down the paged one ranks and even if it was not admitted itself (its twin's words were).

    ``same_share``: the share of the shorter item's distinct words the other must hold for the two to be one passage
    (:func:`same_passage`); ``stands_for``: the share of a text copy's distinct words its paged twin must hold to
    stand in for it.
    """
    kept: list[_Kept[T]] = []
    repeats: list[tuple[T, T]] = []  # (taken out, kept in its place)
    for item in ranked:
        doc_id, source, text, paged, admitted = describe(item)
        stem = file_stem(source)
        candidates = [
            i for i, e in enumerate(kept) if e.stem == stem and e.doc_id != doc_id and are_twins(e.source, source)
        ]
        if not admitted and not (paged and any(not kept[i].paged for i in candidates)):
            continue
        entry = _Kept(item, doc_id, source, stem, text, paged)
        same = [i for i in candidates if _one_passage(entry.words, kept[i].words, same_share)]
        text_copies = [i for i in same if not kept[i].paged and _holds(entry.words, kept[i].words, stands_for)]
        if paged and text_copies and len(text_copies) == len(same):
            # The paged copy stands for every text copy it repeats, at the best of their ranks.
            replaced = {id(kept[i].item) for i in text_copies}
            repeats = [(out, item if id(standing) in replaced else standing) for out, standing in repeats]
            repeats += [(kept[i].item, item) for i in text_copies]
            kept[text_copies[0]] = entry
            kept = [e for j, e in enumerate(kept) if j == text_copies[0] or j not in text_copies]
        elif same and admitted:
            repeats.append((item, kept[same[0]].item))
        elif not same and admitted:
            kept.append(entry)
    shown = kept[:k]
    standing = {id(e.item) for e in shown}
    return [e.item for e in shown], [(out, keep) for out, keep in repeats if id(keep) in standing]


def passage_words(text: str) -> frozenset[str]:
    """The distinct words (case folded) that two copies of a passage are compared by."""
    return frozenset(w.casefold() for w in _WORD.findall(text))


def same_passage(a: str, b: str, *, share: float = default_of("twin_same_passage", float)) -> bool:
    """Two texts are one passage: ``share`` of the shorter one's distinct words are in the other."""
    return _one_passage(passage_words(a), passage_words(b), share)


def _holds(a: frozenset[str], b: frozenset[str], share: float) -> bool:
    """``a`` holds ``share`` of ``b``'s words: a page's fragment never stands for a whole clause, while the PDF's
    window of a clause the text kept longer still does."""
    return len(a & b) >= share * len(b)


def _one_passage(a: frozenset[str], b: frozenset[str], share: float) -> bool:
    shorter = min(len(a), len(b))
    return shorter > 0 and len(a & b) >= share * shorter
