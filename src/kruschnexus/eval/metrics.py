"""Retrieval and calibration metrics: small pure functions over ranked relevance flags. No I/O, no database.

Relevance (DESIGN.md, "Evaluation suite format"): a hit is relevant when it is in the gold document (compared
by file name, since a hit's ``source`` is the name the file was ingested under), on the gold page, and its
folded text and the folded ``gold_text`` contain one another (see :func:`fold`).

Ranking metrics take ``relevance``: one flag per returned hit, best first. Every labelled query has exactly one
gold passage, so:

- ``recall_at_k`` is 1 when a relevant hit is among the first ``k`` and 0 otherwise (success@k);
- ``ndcg_at_k`` is binary nDCG whose ideal ranking holds that one passage at rank 1 (IDCG = 1). Only the
  *first* relevant hit gains: later hits that also contain the gold text repeat the same passage (overlapping
  or duplicate spans) and add nothing. So nDCG@k = 1 / log2(1 + r) for the first relevant rank r <= k, else 0;
  it is 1 exactly when the top hit is relevant. (Standard binary nDCG with ideal = min(#relevant, k) would
  reward returning the same passage twice, and would not be 1 for ``[relevant, other, relevant]``.)

Calibration: :func:`ece` is the expected calibration error of Naeini, Cooper and Hauskrecht, "Obtaining Well
Calibrated Probabilities Using Bayesian Binning" (AAAI 2015), with equal-width bins weighted by bin count;
:func:`reliability_bins` returns the per-bin numbers a reliability diagram plots.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from kruschnexus.chunk.sections import is_within
from kruschnexus.eval.suite import SuiteQuery

#: Code points a text layer uses for a hyphen that only marks a line-end break (soft hyphen, pdfium's U+FFFE, STX).
_BREAK_MARKS = re.compile("[\u00ad\ufffe\u0002]\\s*")
#: A printed hyphen inside a word, optionally followed by a line break: ``well-known``, ``commer-\ncial``.
_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_])[-\u2010\u2011](?:[ \t]*(?:\r\n|\r|\n)\s*)?(?=[^\W\d_])")
_QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "“": '"', "”": '"', "„": '"', "‟": '"'})
_SPACE = re.compile(r"\s+")


def fold(text: str) -> str:
    """The comparison key of a text: what relevance and the gold check compare, never what is shown.

    - case folded (``str.casefold``), which also expands ligatures: ``ﬁ`` -> ``fi``, ``ﬂ`` -> ``fl``, ``ﬃ``...;
    - typographic quotes become ASCII ``'`` and ``"``;
    - line-end hyphen marks (soft hyphen U+00AD, pdfium's U+FFFE, STX) are removed with the white space after
      them, joining the word halves (``commer\\ufffecial`` -> ``commercial``);
    - a printed hyphen (``-``, U+2010, U+2011) between two letters is removed, with a line break right after it
      if there is one. A text layer cannot tell a hyphenated word split at a line end (``commer-/cial``) from a
      compound split there (``well-/known``), so the key ignores word-internal hyphens on both sides
      (``well-known`` == ``wellknown``). That is the only dehyphenation: hyphens next to digits or spaces
      (``737-8``, ``A- or better``) and dashes are kept;
    - runs of white space (including line breaks) become one space; the ends are stripped.
    """
    text = _BREAK_MARKS.sub("", text.casefold())
    text = _WORD_HYPHEN.sub("", text)
    return _SPACE.sub(" ", text.translate(_QUOTES)).strip()


def same_document(hit_doc: str, gold_doc: str) -> bool:
    """The hit's document is the gold one, compared by file name (``a/b/x.pdf`` is ``x.pdf``)."""
    return PurePosixPath(hit_doc.replace("\\", "/")).name == PurePosixPath(gold_doc).name


def is_relevant(hit_doc: str, hit_page: int | None, hit_text: str, query: SuiteQuery) -> bool:
    """DESIGN's rule: same document, same page, and folded texts that contain one another.

    Always False for a hard negative, and for an empty (after folding) hit or gold text.
    """
    if query.doc is None or query.gold_text is None or query.page is None:
        return False
    if not same_document(hit_doc, query.doc) or hit_page != query.page:
        return False
    hit, gold = fold(hit_text), fold(query.gold_text)
    return bool(hit) and bool(gold) and (gold in hit or hit in gold)


def section_matches(hit_section: str | None, gold_section: str | None) -> bool:
    """The hit's section is the gold section or one of its sub-sections; a ``None`` gold section is not checked.

    ``7.1`` accepts ``7.1``, ``7.1(a)`` and ``7.1.2``; ``8.22.030`` does not accept ``8.22.0301``; ``7.1(a)``
    does not accept ``7.1``.
    """
    if gold_section is None:
        return True
    return hit_section is not None and is_within(hit_section.strip(), gold_section.strip())


def citation_correct(hit_doc: str, hit_page: int | None, hit_section: str | None, query: SuiteQuery) -> bool:
    """The (top) hit cites the right document, the right page and the gold section or a sub-section of it."""
    if query.doc is None or query.page is None:
        return False
    return same_document(hit_doc, query.doc) and hit_page == query.page and section_matches(hit_section, query.section)


def first_relevant_rank(relevance: Sequence[bool]) -> int | None:
    """1-based rank of the first relevant hit, or ``None`` when no hit is relevant."""
    return next((rank for rank, flag in enumerate(relevance, start=1) if flag), None)


def recall_at_k(relevance: Sequence[bool], k: int) -> float:
    """1.0 when a relevant hit is among the first ``k``, else 0.0 (one gold passage per query)."""
    _check_k(k)
    return 1.0 if any(relevance[:k]) else 0.0


def ndcg_at_k(relevance: Sequence[bool], k: int) -> float:
    """Binary nDCG@k graded by the first relevant hit: ``1 / log2(1 + rank)``, 0.0 when none is in the top ``k``."""
    _check_k(k)
    rank = first_relevant_rank(relevance[:k])
    return 0.0 if rank is None else 1.0 / math.log2(1 + rank)


@dataclass(frozen=True)
class ReliabilityBin:
    """One equal-width confidence bin of a reliability diagram.

    Attributes:
        lower / upper: the bin's confidence range, ``[lower, upper)`` (the last bin includes 1.0).
        count: predictions in the bin.
        mean_confidence / accuracy: their mean confidence and the fraction that were correct (0.0 when empty).
    """

    lower: float
    upper: float
    count: int
    mean_confidence: float
    accuracy: float


def reliability_bins(confidences: Sequence[float], correct: Sequence[bool], bins: int = 10) -> list[ReliabilityBin]:
    """Per-bin (count, mean confidence, accuracy) over ``bins`` equal-width bins of [0, 1], empty bins included."""
    if len(confidences) != len(correct):
        raise ValueError(f"{len(confidences)} confidences but {len(correct)} outcomes")
    if bins < 1:
        raise ValueError(f"bins must be at least 1 (got {bins})")
    counts, sums, hits = [0] * bins, [0.0] * bins, [0] * bins
    for confidence, ok in zip(confidences, correct, strict=True):
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"confidence {confidence!r} is outside [0, 1]")
        slot = min(int(confidence * bins), bins - 1)
        counts[slot] += 1
        sums[slot] += confidence
        hits[slot] += int(ok)
    return [
        ReliabilityBin(i / bins, (i + 1) / bins, n, sums[i] / n if n else 0.0, hits[i] / n if n else 0.0)
        for i, n in enumerate(counts)
    ]


def ece(confidences: Sequence[float], correct: Sequence[bool], bins: int = 10) -> float:
    """Expected calibration error: ``Σ_b (n_b / N) * |accuracy_b - mean_confidence_b|`` over equal-width bins."""
    if not confidences:
        raise ValueError("ECE needs at least one prediction")
    table = reliability_bins(confidences, correct, bins)
    return sum(b.count / len(confidences) * abs(b.accuracy - b.mean_confidence) for b in table)


@dataclass(frozen=True)
class Tally:
    """A metric kept as raw counts so a report can print ``0.83 (45/54)``.

    Attributes:
        numerator: the sum of per-query scores (a count for 0/1 metrics, a float sum for nDCG).
        denominator: the number of queries scored.
    """

    numerator: float = 0
    denominator: int = 0

    @classmethod
    def of(cls, scores: Iterable[float | bool]) -> Tally:
        """Sum per-query scores (``True`` counts as 1)."""
        values = [float(s) for s in scores]
        total = math.fsum(values)
        return cls(int(total) if total.is_integer() else total, len(values))

    @property
    def value(self) -> float | None:
        """numerator / denominator, or ``None`` when nothing was scored."""
        return self.numerator / self.denominator if self.denominator else None

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.numerator + other.numerator, self.denominator + other.denominator)

    def __str__(self) -> str:
        value = self.value
        num = self.numerator
        shown = str(int(num)) if float(num).is_integer() else f"{num:.2f}"
        return f"{'n/a' if value is None else f'{value:.2f}'} ({shown}/{self.denominator})"


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be at least 1 (got {k})")
