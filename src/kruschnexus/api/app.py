"""``create_app(hub)``: the FastAPI application behind ``nexus serve``: ``/v1`` routes, the web page at ``/``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from kruschnexus.api import problems, routes
from kruschnexus.hub import Hub
from kruschnexus.schema.v1 import SCHEMA_VERSION

STATIC = Path(str(resources.files("kruschnexus"))) / "api" / "static"
#: Where the Swagger UI and ReDoc assets are served.
DOCS_ASSETS = "/docs-assets"
#: One upload request may carry this many times the per-file limit: a file over the per-file limit fails alone (the
#: rest of its batch is ingested); a request over this is refused whole (413) before it is read.
BATCH_FACTOR = 4
#: Multipart framing around the files of one upload request.
_FORM_SLACK = 1 << 20


def create_app(hub: Hub, max_upload_bytes: int | None = None, require_token: bool | None = None) -> FastAPI:
    """The API over ``hub``. An uploaded file larger than ``max_upload_bytes`` (default: ``NEXUS_MAX_FILE_BYTES``)
    fails alone; a request larger than :data:`BATCH_FACTOR` times that is refused with 413 before it is read. With
    ``require_token`` (default: ``NEXUS_REQUIRE_TOKEN``) every ``/v1`` request needs ``Authorization: Bearer
    <token>``; a token sent is always checked."""
    # Swagger UI at /docs and ReDoc at /redoc from the assets fastapi-offline ships (served at DOCS_ASSETS), not from
    # a CDN: both work on a machine without internet.
    app = FastAPIOffline(
        title="KruschNexus",
        version=SCHEMA_VERSION,
        summary="Citation-grounded retrieval: every hit is the exact text on a physical page, with offsets and boxes.",
        docs_url="/docs",
        redoc_url="/redoc",
        static_url=DOCS_ASSETS,
        swagger_ui_parameters={"persistAuthorization": True},
        openapi_url="/v1/openapi.json",
    )
    app.state.hub = hub
    app.state.max_upload_bytes = max_upload_bytes or hub.settings.max_file_bytes
    app.state.require_token = hub.settings.require_token if require_token is None else require_token
    problems.install(app)
    app.include_router(routes.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_api_route("/", _index, include_in_schema=False)
    app.middleware("http")(_limit_body)
    if not app.state.require_token:
        _document_optional_auth(app)
    return app


def _document_optional_auth(app: FastAPI) -> None:
    """On a server that does not require tokens, the OpenAPI document says the bearer token is optional
    (an empty security requirement beside it)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        schema = build()
        for operations in schema["paths"].values():
            for operation in operations.values():
                if operation.get("security") and {} not in operation["security"]:
                    operation["security"].append({})
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def _index() -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html")


async def _limit_body(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
    """Refuse an upload whose declared length is past the request limit before reading it, and an upload that is
    not a multipart form (415, with how to send one)."""
    if request.method == "POST" and request.url.path.endswith("/documents"):
        kind = request.headers.get("content-type", "")
        if not kind.lower().startswith("multipart/form-data"):
            return problems.problem(
                415,
                f"send the files as multipart/form-data (a 'files' field per file, e.g. curl -F files=@lease.pdf),"
                f" not {kind or 'a body without a content type'}",
            )
    declared = request.headers.get("content-length")
    limit: int = request.app.state.max_upload_bytes * BATCH_FACTOR
    if request.method == "POST" and declared and declared.isdigit() and int(declared) > limit + _FORM_SLACK:
        return problems.problem(
            413, f"request body of {declared} bytes is larger than the limit of {limit} bytes for one request"
        )
    return await call_next(request)
