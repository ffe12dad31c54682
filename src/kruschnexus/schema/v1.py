"""Hit schema v1.1: one cited span. Frozen; additive changes bump the minor version (1.1 added ``document`` and
``version``). A 1.x reader ignores fields it does not know, and accepts any ``schema_version`` of the form ``1.N``.

``hit.v1.json`` beside this file is generated from :class:`Hit` (``python scripts/gen_docs.py``) and a
golden test fails on any difference.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.1"
#: Any minor version of schema 1 (what a 1.x reader accepts).
SCHEMA_1 = r"^1\.\d+$"

Box = Annotated[list[float], Field(min_length=4, max_length=4, description="[x, y, w, h] in PDF points")]


class Hit(BaseModel):
    """One span with its citation and provenance.

    Coordinates are PDF points with the origin at the top-left of the page as displayed, y downwards.
    Offsets are 0-based, half-open, in Unicode code points of the page text (or the unpaged unit's text).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: str = Field(default=SCHEMA_VERSION, pattern=SCHEMA_1, description="contract version (1.x)")
    citation: str = Field(
        description='"{source} p.{page_number} § {header}"; unpaged: "{source} {locator label} § {header}"'
    )
    doc_id: str = Field(description="stable id of the document version (sha256 of its bytes)")
    source: str = Field(description="the file's name as ingested")
    document: str = Field(
        description="the document's name in its workspace (its path relative to the ingested folder, or the name"
        " given with --as); every version of a document has it (since 1.1)"
    )
    version: int = Field(ge=1, description="which version of the document the span is from: 1, 2, ... (since 1.1)")
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

    schema_version: str = Field(default=SCHEMA_VERSION, pattern=SCHEMA_1)
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

    schema_version: str = Field(default=SCHEMA_VERSION, pattern=SCHEMA_1)
    query: str
    hits: list[Hit]
    abstain: AbstainTrace | None = Field(description="why nothing was returned; null when there are hits")


class WorkspaceInfo(BaseModel):
    """A workspace and the embedding model it is bound to."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    model_id: str
    dim: int
    documents: int = Field(description="documents (by name; their older versions not counted)")


class DocumentInfo(BaseModel):
    """A stored document version."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    doc_id: str = Field(description="sha256 of the document's bytes")
    source: str
    name: str = Field(description="the document's name in its workspace, shared by its versions")
    version: int = Field(description="1, 2, ...: the order in which its contents were stored under the name")
    latest: bool = Field(description="the version searches answer from by default")
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
    name: str = Field(description="the document's name in the workspace ('' when not stored)")
    version: int | None = Field(description="the version these bytes are of that document, when stored or found")
    kind: str = Field(description="format read: pdf, docx, csv, tsv, html, markdown, text ('' when not read)")
    pages: int = Field(description="physical pages, or units of an unpaged format")
    spans: int
    needs_ocr: list[int] = Field(description="1-based pages without a usable text layer that were not OCR'd")
    ocr_pages: list[int] = Field(description="1-based pages whose text came from OCR")
    ocr_no_text: list[int] = Field(description="OCR'd pages on which nothing read as text")
    seconds: float
    meta: dict[str, Any] = Field(description="what the reader detected (encoding, CSV dialect, OCR engine)")
    stages: dict[str, float] = Field(
        default_factory=dict,
        description="seconds per stage: read (extraction, OCR, chunking), embed (the model), store (database writes),"
        " other (hashing and keeping the original, committing); empty when the file was not read",
    )


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


class Resolution(BaseModel):
    """Where the words of an old hit are in the latest version of its document (``nexus resolve``).

    ``status``: ``current`` (the hit is from the latest version), ``moved`` (the same words are in the latest
    version: ``hits[0]`` is the stored span holding them and ``char_start``/``char_end`` the words themselves on its
    page), ``changed`` (the words are gone but their section is there: ``hits`` are its spans now) or ``removed``
    (neither the words nor their section are there: ``hits`` is empty).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: str = Field(default=SCHEMA_VERSION, pattern=SCHEMA_1)
    status: str = Field(description="current, moved, changed or removed")
    document: str = Field(description="the document's name")
    from_version: int = Field(description="the version the old hit cites")
    to_version: int = Field(description="the latest version")
    text: str = Field(description="the old hit's words")
    page_number: int | None = Field(description="where the words are now (current, moved)")
    char_start: int | None = Field(description="start offset of the words in that page's text (current, moved)")
    char_end: int | None = Field(description="end offset (exclusive) of the words (current, moved)")
    hits: list[Hit] = Field(description="the latest version's spans: the one holding the words, or the section's")
    reason: str = Field(description="how the place was found, or why nothing was")


class SectionChange(BaseModel):
    """One section of a document compared across two versions."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    change: str = Field(description="added, removed, renumbered, changed, renumbered+changed or unchanged")
    title: str = Field(description="the section's heading without its number")
    from_section: str | None = Field(description="its id in the older version (null when added)")
    to_section: str | None = Field(description="its id in the newer version (null when removed)")
    from_pages: list[int] = Field(description="its pages in the older version")
    to_pages: list[int] = Field(description="its pages in the newer version")
    from_text: str | None
    to_text: str | None


class DocumentDiff(BaseModel):
    """What changed between two versions of a document, section by section (``nexus diff``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: str = Field(default=SCHEMA_VERSION, pattern=SCHEMA_1)
    document: str
    from_version: int
    to_version: int
    sections: list[SectionChange] = Field(description="in the newer version's order, removed ones where they were")
