"""The retrieval systems ``nexus eval`` scores side by side, behind one small interface.

* ``nexus``: the product (both legs, fusion, capped boost, fail-closed floor), with span proofs;
* ``dense`` / ``fulltext``: the same pipeline with one leg switched off (floor and filters unchanged), to show
  what fusion adds;
* ``langchain``: the common stack the product argues against (:mod:`kruschnexus.eval.baseline_langchain`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from kruschnexus import blobs
from kruschnexus.config import OcrMode
from kruschnexus.corpus import Corpus
from kruschnexus.errors import ParseError
from kruschnexus.extract import PdfSource, ReadOptions, Source, open_source
from kruschnexus.model import Page
from kruschnexus.schema.v1 import DocumentInfo, Hit
from kruschnexus.verify import check_span


@dataclass(frozen=True)
class EvalHit:
    """What scoring needs from one returned hit.

    Attributes:
        source: the file name the hit cites.
        page: its 1-based page, or ``None`` (unpaged units).
        section: its section id, or ``None``.
        text: the returned text.
        confidence: the calibrated probability it is relevant, or ``None``.
        proved: its offsets and boxes re-proved against the original bytes (always False for systems that
            return no offsets).
    """

    source: str
    page: int | None
    section: str | None
    text: str
    confidence: float | None
    proved: bool


class System(Protocol):
    """A retrieval system under evaluation."""

    name: str

    def search(self, query: str, k: int) -> list[EvalHit]:
        """The top ``k`` hits for ``query`` (``[]`` when the system abstains)."""


class SpanProver:
    """Re-proves hits against freshly extracted pages of the kept originals (pages cached per document)."""

    def __init__(self, corpus: Corpus) -> None:
        self._corpus = corpus
        self._docs: dict[str, DocumentInfo] = {d.doc_id: d for d in corpus.documents()}
        self._pages: dict[tuple[str, int], Page] = {}
        self._units: dict[str, list[Page]] = {}

    def prove(self, hit: Hit) -> bool:
        """True when the hit's text is its page's slice and its boxes are the re-derived line boxes."""
        try:
            page = self._page(hit)
        except ParseError:
            return False
        if page is None:
            return False
        return check_span(page, hit.char_start, hit.char_end, hit.text, hit.boxes) is None

    def _page(self, hit: Hit) -> Page | None:
        doc = self._docs.get(hit.doc_id)
        if doc is None:
            return None
        if hit.page_number is not None:
            key = (hit.doc_id, hit.page_number)
            if key not in self._pages:
                with self._open(doc) as source:
                    if isinstance(source, PdfSource):  # read as at ingest: OCR only where it was used
                        self._pages[key] = source.page(hit.page_number, ocr=hit.used_ocr)
                    else:
                        self._pages[key] = source.page(hit.page_number)
            return self._pages[key]
        if hit.doc_id not in self._units:
            with self._open(doc) as source:
                self._units[hit.doc_id] = list(source.pages())
        return next((p for p in self._units[hit.doc_id] if p.locator == hit.locator), None)

    def _open(self, doc: DocumentInfo) -> Source:
        meta = doc.meta
        settings = self._corpus.settings
        options = ReadOptions(ocr=OcrMode(meta.get("ocr", "never")), ocr_workers=1, ocr_lang=settings.ocr_lang)
        path: Path = blobs.blob_path(self._corpus.settings.blob_dir, doc.doc_id)
        return open_source(path, doc.kind, options)


class NexusSystem:
    """The product's search, or one of its legs alone."""

    def __init__(self, corpus: Corpus, name: str = "nexus", legs: Sequence[str] | None = None) -> None:
        self.name = name
        self._corpus = corpus
        self._legs = None if legs is None else tuple(legs)
        self._prover = SpanProver(corpus)

    def search(self, query: str, k: int) -> list[EvalHit]:
        """Search, and prove the top hit (only the top hit is scored for span precision)."""
        hits = self._corpus.run(query, k, legs=self._legs).hits
        return [
            EvalHit(h.source, h.page_number, h.section, h.text, h.confidence, rank == 0 and self._prover.prove(h))
            for rank, h in enumerate(hits)
        ]
