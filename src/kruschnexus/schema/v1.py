"""Hit schema v1.0: one cited span. Frozen; additive changes bump the minor version.

``hit.v1.json`` beside this file is generated from :class:`Hit` (``python scripts/gen_docs.py``) and a
golden test fails on any difference.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.0"

Box = Annotated[list[float], Field(min_length=4, max_length=4, description="[x, y, w, h] in PDF points")]


class Hit(BaseModel):
    """One span with its citation and provenance.

    Coordinates are PDF points with the origin at the top-left of the page as displayed, y downwards.
    Offsets are 0-based, half-open, in Unicode code points of the page text (or the unpaged unit's text).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal["1.0"] = Field(default="1.0", description="contract version")
    citation: str = Field(
        description='"{source} p.{page_number} § {header}"; unpaged: "{source} {locator label} § {header}"'
    )
    doc_id: str = Field(description="stable id of the document version (sha256 of its bytes)")
    source: str = Field(description="the file's name as ingested")
    doc_type: str | None = Field(description="label given at ingest")
    page_number: int | None = Field(ge=1, description="1-based physical page index; null for unpaged formats")
    page_label: str | None = Field(description="printed page label where the PDF defines one")
    locator: dict[str, Any] | None = Field(
        description="unpaged position, e.g. {'kind': 'row', 'row': 4}, or a PDF table cell"
        " {'kind': 'table_cell', 'table': 1, 'row': 2, 'col': 1, ...} (page_number then stays set)"
    )
    header: str = Field(description="nearest heading above the span")
    heading_path: list[str] = Field(description='["Page 1", outermost heading, ..., header]')
    section: str | None = Field(description="normalized section id, e.g. 8.22.030(C)")
    char_start: int = Field(ge=0, description="start offset into the page text")
    char_end: int = Field(ge=0, description="end offset (exclusive) into the page text")
    bbox: Box | None = Field(description="union of boxes")
    boxes: list[Box] | None = Field(description="one box per line of the span")
    match_reasons: list[str] = Field(
        description="dense_rank_N, sparse_rank_N, section_locator_match, phrase_match, ..."
    )
    text: str = Field(description="the span")
    score: float | None = Field(description="fused score (RRF plus capped boost); null outside a search")
    confidence: float | None = Field(ge=0.0, le=1.0, description="calibrated probability that the span is relevant")
    used_ocr: bool = Field(description="the span's text came from OCR")


def json_schema_text() -> str:
    """The committed JSON Schema document for :class:`Hit` (sorted keys, 2-space indent, final newline)."""
    schema = Hit.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://kruschnexus.dev/schema/hit.v1.json"
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


class CandidateTrace(BaseModel):
    """One candidate of a search as ``explain`` shows it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    citation: str
    doc_id: str
    page_number: int | None
    ordinal: int
    section: str | None
    dense_rank: int | None = Field(description="1-based rank in the dense (cosine) leg")
    cosine: float | None
    sparse_rank: int | None = Field(description="1-based rank in the full-text leg")
    sparse_score: float | None = Field(
        description=(
            "lexical coverage: the span's BM25 over that of an average-length span holding each query term once (0-1)"
        )
    )
    fulltext_match: bool = Field(description="the span holds every term of the full-text query")
    dense_term: float = Field(description="1 / (k + dense_rank), 0 when unranked")
    sparse_term: float = Field(description="1 / (k + sparse_rank), 0 when unranked")
    boost: float = Field(description="section boost (at most 0.12)")
    score: float
    admitted: bool
    rejected_because: str | None
    match_reasons: list[str]


class AbstainTrace(BaseModel):
    """Why a search returned ``[]``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reason: str
    best_cosine: float | None
    floor: float
    candidates: int
    rejected: dict[str, int]


class ExplainTrace(BaseModel):
    """Everything behind one search: the parsed query, the knobs, every candidate, and the abstain record."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal["1.0"] = "1.0"
    query: str
    parsed: dict[str, Any]
    model_id: str
    rrf_k: int
    section_boost: float
    floor: float
    candidates: list[CandidateTrace]
    hits: int
    abstain: AbstainTrace | None


class SearchResponse(BaseModel):
    """One search as the REST API returns it: the hits (the same v1 array ``nexus search --json`` prints) and,
    when there are none, why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal["1.0"] = "1.0"
    query: str
    hits: list[Hit]
    abstain: AbstainTrace | None = Field(description="why nothing was returned; null when there are hits")


class WorkspaceInfo(BaseModel):
    """A workspace and the embedding model it is bound to."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    model_id: str
    dim: int
    documents: int


class DocumentInfo(BaseModel):
    """A stored document version."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    doc_id: str = Field(description="sha256 of the document's bytes")
    source: str
    doc_type: str | None
    kind: str = Field(description="format read: pdf, docx, csv, tsv, html, markdown, text")
    byte_size: int
    page_count: int = Field(description="physical pages, or units of an unpaged format")
    extractor_version: str
    meta: dict[str, Any] = Field(description="what the reader detected (encoding, CSV dialect, OCR engine)")
    ingested_at: str = Field(description="ISO 8601 timestamp")


class IngestedFile(BaseModel):
    """What happened to one file of an ingest: the same shape from ``nexus ingest --json``, the REST upload and the
    MCP ``ingest`` tool."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str = Field(description="the file's name (an upload's sanitised name)")
    path: str = Field(description="the path that was read (CLI, MCP); the file's name for an upload")
    status: str = Field(description="ingested, unchanged, skipped or failed")
    reason: str = Field(description="why it failed or was skipped, or what a reader noticed; '' when nothing")
    doc_id: str | None = Field(description="sha256 of the bytes, when read")
    kind: str = Field(description="format read: pdf, docx, csv, tsv, html, markdown, text ('' when not read)")
    pages: int = Field(description="physical pages, or units of an unpaged format")
    spans: int
    needs_ocr: list[int] = Field(description="1-based pages without a usable text layer that were not OCR'd")
    ocr_pages: list[int] = Field(description="1-based pages whose text came from OCR")
    ocr_no_text: list[int] = Field(description="OCR'd pages on which nothing read as text")
    seconds: float
    meta: dict[str, Any] = Field(description="what the reader detected (encoding, CSV dialect, OCR engine)")


class IngestReport(BaseModel):
    """The result of one ingest call, on every surface."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    workspace: str
    files: list[IngestedFile]


class PageText(BaseModel):
    """The stored text of one physical page (or unpaged unit): hit offsets index into ``text``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    doc_id: str
    source: str
    page_number: int = Field(ge=1, description="physical page, or the unit's number for unpaged formats")
    page_label: str | None
    locator: dict[str, Any] | None = Field(description="the unit's position for unpaged formats; null for a page")
    width: float = Field(description="page width in points as displayed (0 for units)")
    height: float = Field(description="page height in points as displayed (0 for units)")
    text: str
    used_ocr: bool
    needs_ocr: bool
