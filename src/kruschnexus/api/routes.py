"""``/v1`` routes: each parses its input, calls one :class:`Corpus` (or :class:`Hub`) method and returns wire
objects. No SQL, ranking or formatting rules here."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Form, Query, Request, Response, UploadFile
from fastapi.responses import FileResponse, StreamingResponse

from kruschnexus.api import deps, uploads
from kruschnexus.api.deps import DocId, PageNumber, WorkspaceName
from kruschnexus.api.models import Health, HealthCheck, NewWorkspace
from kruschnexus.config import check_workspace_name
from kruschnexus.corpus import Corpus
from kruschnexus.doctor import Check
from kruschnexus.errors import ConfigError, NotFoundError, StoreUnavailable, without_paths
from kruschnexus.hub import Hub
from kruschnexus.ingest import FileResult
from kruschnexus.schema.v1 import (
    DocumentDiff,
    DocumentInfo,
    ExplainTrace,
    Hit,
    IngestReport,
    PageText,
    Resolution,
    SearchResponse,
    WorkspaceInfo,
)
from kruschnexus.tokens import Grant
from kruschnexus.wire import ingest_report

router = APIRouter(prefix="/v1", responses=deps.problems(422, 503))
GrantDep = Annotated[Grant | None, Depends(deps.grant)]
CorpusDep = Annotated[Corpus, Depends(deps.corpus)]
HubDep = Annotated[Hub, Depends(deps.hub)]
QueryText = Annotated[str, Query(min_length=1, max_length=2000, description="the query; operators allowed")]
TopK = Annotated[int, Query(ge=1, le=100, description="hits to return at most")]

_MEDIA_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "csv": "text/csv",
    "tsv": "text/tab-separated-values",
}


@router.get("/health", response_model=Health, responses={503: {"model": Health, "description": "degraded"}})
def health(hub: HubDep, grant: GrantDep, response: Response) -> Health:
    """The doctor report: database, pgvector, model, stored models, optional tools, disk; 503 while the database
    is away or restarting. A token holder sees no detail about other workspaces; no detail shows a server path."""
    report = hub.doctor()
    response.status_code = 200 if report.healthy else 503
    checks = [HealthCheck(name=c.name, ok=c.ok, detail=_health_detail(c, grant)) for c in report.checks]
    return Health(healthy=report.healthy, checks=checks)


def _health_detail(check: Check, grant: Grant | None) -> str:
    """What a client sees of one check: no server path, nothing of the database's own error message, nothing
    about other workspaces for a token holder."""
    if check.name == "workspaces" and grant is not None:
        return ""
    if check.name == "database" and not check.ok:
        return StoreUnavailable.public
    return without_paths(check.detail)


@router.get("/workspaces", response_model=list[WorkspaceInfo])
def list_workspaces(hub: HubDep, grant: GrantDep) -> list[WorkspaceInfo]:
    """Every workspace with its embedding model and document count (only its own with a token)."""
    return [w for w in hub.workspaces() if grant is None or w.name == grant.workspace]


@router.post(
    "/workspaces",
    status_code=201,
    response_model=WorkspaceInfo,
    responses={200: {"model": WorkspaceInfo, "description": "it exists already"}, **deps.problems(400, 409)},
)
def create_workspace(body: NewWorkspace, hub: HubDep, request: Request, response: Response) -> WorkspaceInfo:
    """Create a workspace bound to the server's embedding model: 201; 200 when it exists with that model."""
    name = check_workspace_name(body.name)
    deps.allow(request, name)
    with hub.corpus(name) as corpus:
        created = corpus.create()
    response.status_code = 201 if created else 200
    return next(w for w in hub.workspaces() if w.name == name)


@router.delete("/workspaces/{workspace}", status_code=204, responses=deps.problems(404))
def delete_workspace(corpus: CorpusDep) -> Response:
    """Delete a workspace, its documents and the kept bytes no other workspace holds."""
    if not corpus.delete():
        raise NotFoundError(f"workspace {corpus.workspace!r} does not exist")
    return Response(status_code=204)


@router.get("/workspaces/{workspace}/documents", response_model=list[DocumentInfo], responses=deps.problems(404))
def list_documents(corpus: CorpusDep) -> list[DocumentInfo]:
    """Stored documents of the workspace."""
    corpus.require_exists()
    return corpus.documents()


@router.post(
    "/workspaces/{workspace}/documents", response_model=IngestReport, responses=deps.problems(404, 409, 413, 415)
)
def upload_documents(
    corpus: CorpusDep,
    request: Request,
    files: Annotated[list[UploadFile], File(min_length=1, max_length=100, description="one or more documents")],
    doc_type: Annotated[str | None, Form(max_length=64, description="label stored with each document")] = None,
    ocr: Annotated[
        Literal["server", "auto", "always", "never"],
        Form(description="when PDF pages are OCR'd; 'server' uses the server's NEXUS_OCR setting"),
    ] = "server",
    create: Annotated[bool, Form(description="create the workspace when it does not exist (else 404)")] = False,
) -> IngestReport:
    """Ingest uploaded files; one bad file (damaged, of an unknown kind, over the size limit) never stops the rest.
    The workspace must exist, or ``create`` be true: a misspelt name is an error, not a new workspace."""
    if create:
        corpus.create()  # now, so that it exists even when every file fails
    elif not corpus.exists():
        raise NotFoundError(
            f"workspace {corpus.workspace!r} does not exist: create it (POST /v1/workspaces) or send create=true"
        )
    limit: int = request.app.state.max_upload_bytes
    with uploads.saved(files, corpus.settings.home / "uploads", limit) as saved:
        kept = [s for s in saved if isinstance(s, Path)]
        read = iter(corpus.ingest(kept, doc_type=doc_type, ocr=None if ocr == "server" else ocr) if kept else [])
        results = [next(read) if isinstance(s, Path) else FileResult(s.name, "failed", s.reason) for s in saved]
    return ingest_report(corpus.workspace, results, uploads=True)


@router.get("/workspaces/{workspace}/documents/{doc_id}", response_model=DocumentInfo, responses=deps.problems(404))
def get_document(corpus: CorpusDep, doc_id: DocId) -> DocumentInfo:
    """One stored document."""
    corpus.require_exists()
    return corpus.document(doc_id)


@router.delete("/workspaces/{workspace}/documents/{doc_id}", status_code=204, responses=deps.problems(404))
def delete_document(corpus: CorpusDep, doc_id: DocId) -> Response:
    """Delete a document (and its kept bytes when no workspace holds them any more)."""
    corpus.require_exists()
    corpus.delete_document(doc_id)
    return Response(status_code=204)


@router.get(
    "/workspaces/{workspace}/documents/{doc_id}/original",
    response_class=FileResponse,
    responses={200: {"content": {"application/octet-stream": {}}, "description": "the bytes"}, **deps.problems(404)},
)
def original(corpus: CorpusDep, doc_id: DocId) -> FileResponse:
    """The original bytes as ingested (always as an attachment, never rendered inline)."""
    corpus.require_exists()
    path, info = corpus.original(doc_id)
    media_type = _MEDIA_TYPES.get(info.kind, "application/octet-stream")
    headers = {"X-Content-Type-Options": "nosniff"}
    return FileResponse(
        path, media_type=media_type, filename=info.source, content_disposition_type="attachment", headers=headers
    )


@router.get(
    "/workspaces/{workspace}/documents/{doc_id}/pages/{page_number}",
    response_model=PageText,
    responses=deps.problems(404),
)
def page_text(corpus: CorpusDep, doc_id: DocId, page_number: PageNumber) -> PageText:
    """The stored text of a page (or unit); hit offsets index into ``text``."""
    corpus.require_exists()
    return corpus.page(doc_id, page_number)


@router.get(
    "/workspaces/{workspace}/documents/{doc_id}/units",
    response_model=PageText,
    responses=deps.problems(400, 404),
)
def unit_text(
    corpus: CorpusDep,
    doc_id: DocId,
    locator: Annotated[str, Query(max_length=2000, description="a hit's locator as JSON")],
) -> PageText:
    """The stored unit of an unpaged document (DOCX, CSV, HTML, text) at a hit's ``locator``; its
    ``page_number`` is the unit number the ``pages`` routes take."""
    corpus.require_exists()
    return corpus.unit(doc_id, _locator(locator))


@router.get(
    "/workspaces/{workspace}/documents/{doc_id}/pages/{page_number}/spans",
    response_model=list[Hit],
    responses=deps.problems(404),
)
def page_spans(corpus: CorpusDep, doc_id: DocId, page_number: PageNumber) -> list[Hit]:
    """Every span stored on a page, as v1 hits (``score`` null), in reading order."""
    corpus.require_exists()
    return corpus.page_spans(doc_id, page_number)


@router.get(
    "/workspaces/{workspace}/documents/{doc_id}/pages/{page_number}/image",
    response_class=Response,
    responses={200: {"content": {"image/png": {}}, "description": "the page as PNG"}, **deps.problems(400, 404)},
)
def page_image(
    corpus: CorpusDep,
    doc_id: DocId,
    page_number: PageNumber,
    dpi: Annotated[int, Query(ge=36, le=300, description="resolution")] = 100,
    hit: Annotated[
        str | None, Query(pattern=r"^\d{1,9}-\d{1,9}$", description="draw the stored span START-END of this page")
    ] = None,
    boxes: Annotated[
        str | None,
        Query(max_length=20_000, description="draw boxes 'x,y,w,h;x,y,w,h' in points (hit coordinates)"),
    ] = None,
) -> Response:
    """A PDF page as displayed, rendered to PNG, with a span's boxes drawn when ``hit`` or ``boxes`` is given."""
    corpus.require_exists()
    drawn = _boxes(boxes) if boxes else []
    if hit is not None:
        drawn += _span_boxes(corpus, doc_id, page_number, hit)
    png = corpus.page_image(doc_id, page_number, dpi=dpi, boxes=drawn)
    return Response(png, media_type="image/png")


@router.get("/workspaces/{workspace}/search", response_model=SearchResponse, responses=deps.problems(400, 404, 409))
def search(corpus: CorpusDep, q: QueryText, k: TopK = 5) -> SearchResponse:
    """Hybrid search; ``hits`` is the v1 array (``[]`` with ``abstain`` saying why when nothing clears the floor)."""
    return corpus.run(q, k=k).response(q)


@router.get("/workspaces/{workspace}/explain", response_model=ExplainTrace, responses=deps.problems(400, 404, 409))
def explain(corpus: CorpusDep, q: QueryText, k: TopK = 5) -> ExplainTrace:
    """Every candidate of a search with its ranks, RRF terms, boost and why it was admitted or not."""
    return corpus.explain(q, k=k)


@router.get("/workspaces/{workspace}/resolve", response_model=Resolution, responses=deps.problems(400, 404))
def resolve(
    corpus: CorpusDep,
    hit: Annotated[
        str,
        Query(min_length=1, max_length=20000, description="a hit id ({doc_id}:{page}:{start}-{end}) or a hit's JSON"),
    ],
) -> Resolution:
    """Where an old hit's words are in the latest version of its document: current, moved, changed or removed."""
    return corpus.resolve(hit)


@router.get("/workspaces/{workspace}/diff", response_model=DocumentDiff, responses=deps.problems(400, 404))
def diff(
    corpus: CorpusDep,
    name: Annotated[str, Query(min_length=1, max_length=1000, description="the document's name")],
    from_version: Annotated[int | None, Query(alias="from", ge=1, description="older version")] = None,
    to_version: Annotated[int | None, Query(alias="to", ge=1, description="newer version (default: latest)")] = None,
) -> DocumentDiff:
    """Two versions of a document compared section by section (default: the one before the latest, the latest)."""
    return corpus.diff(name, from_version, to_version)


@router.get(
    "/workspaces/{workspace}/export",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"application/x-ndjson": {}}, "description": "one v1 hit per line"},
        **deps.problems(404),
    },
)
def export(workspace: WorkspaceName, hub: HubDep, request: Request) -> StreamingResponse:
    """Every stored span as a v1 hit (``score`` null), one JSON object per line, streamed."""
    deps.allow(request, workspace)
    with hub.corpus(workspace) as corpus:
        corpus.require_exists()
    return StreamingResponse(_export_lines(hub, workspace), media_type="application/x-ndjson")


def _export_lines(hub: Hub, workspace: str) -> Iterator[str]:
    with hub.corpus(workspace) as corpus:
        for hit in corpus.export():
            yield hit.model_dump_json() + "\n"


def _locator(raw: str) -> dict[str, Any]:
    if "\x00" in raw or "\\u0000" in raw:
        raise ConfigError("locator: contains a NUL character")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"locator: not JSON ({exc.msg} at position {exc.pos})") from exc
    if not isinstance(value, dict):
        raise ConfigError('locator: expected a JSON object such as {"kind": "row", "row": 4}')
    return value


def _boxes(raw: str) -> list[list[float]]:
    out: list[list[float]] = []
    for part in raw.split(";"):
        values = part.split(",")
        try:
            box = [float(v) for v in values]
        except ValueError:
            box = []
        if len(box) != 4 or any(v != v or abs(v) > 1e6 for v in box) or box[2] < 0 or box[3] < 0:
            raise ConfigError(f"boxes: {part!r} is not x,y,w,h (four finite numbers, w and h not negative)")
        out.append(box)
    if len(out) > 500:
        raise ConfigError(f"boxes: {len(out)} boxes, at most 500")
    return out


def _span_boxes(corpus: Corpus, doc_id: str, page_number: int, hit: str) -> list[list[float]]:
    start, end = (int(v) for v in hit.split("-"))
    return corpus.span(doc_id, page_number, start, end).boxes or []
