"""The only place internal rows become schema objects."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from kruschnexus.errors import without_paths
from kruschnexus.model import locator_label
from kruschnexus.schema.v1 import DocumentInfo, Hit, IngestedFile, IngestReport, PageText, WorkspaceInfo
from kruschnexus.store.records import DocumentRow, HitRow, PageRow, WorkspaceRow


def citation(source: str, page_number: int | None, header: str, locator_label: str | None = None) -> str:
    """``"{source} p.{page} § {header}"``, or ``"{source} {locator label} § {header}"`` for an unpaged unit
    (``§ header`` left out when there is no heading)."""
    where = f"p.{page_number}" if page_number is not None else (locator_label or "")
    base = f"{source} {where}".strip()
    return f"{base} § {header}" if header else base


def hit_from_row(
    row: HitRow,
    score: float | None = None,
    reasons: Sequence[str] = (),
    confidence: float | None = None,
) -> Hit:
    """A stored span as a v1 hit."""
    page_number = row.page_number if row.paged else None
    label = None if page_number is not None or row.locator is None else locator_label(row.locator)
    return Hit(
        citation=citation(row.source, page_number, row.header, label),
        doc_id=row.doc_id,
        source=row.source,
        document=row.name,
        version=row.version,
        doc_type=row.doc_type,
        page_number=page_number,
        page_label=row.label,
        locator=row.locator,
        header=row.header,
        heading_path=list(row.heading_path),
        section=row.section,
        char_start=row.char_start,
        char_end=row.char_end,
        bbox=None if row.bbox is None else [float(v) for v in row.bbox],
        boxes=None if row.boxes is None else [[float(v) for v in box] for box in row.boxes],
        match_reasons=list(reasons),
        text=row.text,
        score=score,
        confidence=confidence,
        used_ocr=row.used_ocr,
    )


def workspace_from_row(row: WorkspaceRow) -> WorkspaceInfo:
    """A workspace as listed."""
    return WorkspaceInfo(name=row.name, model_id=row.model_id, dim=row.dim, documents=row.documents)


def document_from_row(row: DocumentRow) -> DocumentInfo:
    """A stored document version."""
    return DocumentInfo(
        doc_id=row.doc_id,
        source=row.source,
        name=row.name,
        version=row.version,
        latest=row.latest,
        doc_type=row.doc_type,
        kind=row.kind,
        byte_size=row.byte_size,
        page_count=row.page_count,
        extractor_version=row.extractor_version,
        meta=dict(row.meta),
        ingested_at=row.ingested_at.isoformat(),
    )


def page_from_row(row: PageRow) -> PageText:
    """A stored page (or unit)."""
    return PageText(
        doc_id=row.doc_id,
        source=row.source,
        page_number=row.page_number,
        page_label=row.label,
        locator=row.locator,
        width=float(row.width),
        height=float(row.height),
        text=row.text,
        used_ocr=row.used_ocr,
        needs_ocr=row.needs_ocr,
    )


class IngestOutcome(Protocol):
    """What happened to one file (:class:`kruschnexus.ingest.FileResult` has these)."""

    path: str
    status: str
    reason: str
    doc_id: str | None
    name: str
    version: int | None
    kind: str
    pages: int
    spans: int
    needs_ocr: list[int]
    ocr_pages: list[int]
    ocr_no_text: list[int]
    seconds: float
    meta: dict[str, Any]
    stages: dict[str, float]


def ingest_report(workspace: str, results: Sequence[IngestOutcome], uploads: bool = False) -> IngestReport:
    """Ingest results in the one shape every surface answers with; ``uploads``: the files were a client's uploads,
    so no server path is shown (``path`` is the file's name, reasons have paths removed)."""
    files = []
    for r in results:
        name = Path(r.path).name
        files.append(
            IngestedFile(
                file=name,
                path=name if uploads else r.path,
                status=r.status,
                reason=without_paths(r.reason) if uploads else r.reason,
                doc_id=r.doc_id,
                name=r.name,
                version=r.version,
                kind=r.kind,
                pages=r.pages,
                spans=r.spans,
                needs_ocr=r.needs_ocr,
                ocr_pages=r.ocr_pages,
                ocr_no_text=r.ocr_no_text,
                seconds=round(r.seconds, 3),
                meta=r.meta,
                stages=r.stages,
            )
        )
    return IngestReport(workspace=workspace, files=files)


def hit_id(hit: Hit) -> str:
    """A stable id for a hit: ``{doc_id}:{page_number or locator JSON}:{char_start}-{char_end}``; the same span gets
    the same id in every search, and every adapter (LangChain, LlamaIndex) uses it."""
    where = str(hit.page_number) if hit.page_number is not None else json.dumps(hit.locator, sort_keys=True)
    return f"{hit.doc_id}:{where}:{hit.char_start}-{hit.char_end}"
