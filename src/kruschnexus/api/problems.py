"""Errors as ``application/problem+json`` (RFC 9457): the library's exception tree mapped once to HTTP."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException

from kruschnexus.errors import (
    AuthError,
    ConfigError,
    EmbedError,
    ForbiddenError,
    NotFoundError,
    ParseError,
    PkgError,
    QueryError,
    SchemaVersionError,
    StoreError,
    StoreUnavailable,
    public_message,
)

_log = logging.getLogger(__name__)

MEDIA_TYPE = "application/problem+json"

# Most specific first: the first class an error is an instance of decides its status.
_STATUS: tuple[tuple[type[PkgError], int], ...] = (
    (AuthError, 401),
    (ForbiddenError, 403),
    (NotFoundError, 404),
    (QueryError, 400),
    (ParseError, 422),
    (EmbedError, 409),
    (StoreError, 503),
    (SchemaVersionError, 400),
    (ConfigError, 400),
)


class Problem(BaseModel):
    """An error response: ``detail`` is the message the command line prints for the same error."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    detail: str


def status_of(exc: PkgError) -> int:
    """The HTTP status of a library error."""
    for cls, status in _STATUS:
        if isinstance(exc, cls):
            return status
    return 500


def problem(status: int, detail: str, **extra: Any) -> JSONResponse:
    """A problem+json response."""
    title = HTTPStatus(status).phrase
    body = {"type": f"https://kruschnexus.dev/problems/{status}", "title": title, "status": status, "detail": detail}
    return JSONResponse({**body, **extra}, status_code=status, media_type=MEDIA_TYPE)


def install(app: FastAPI) -> None:
    """Route every library, HTTP and validation error through :func:`problem`."""

    async def on_library_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, PkgError)
        extra = {"offset": exc.offset} if isinstance(exc, QueryError) else {}
        status = status_of(exc)
        if status >= 500:
            _log.warning("%s %s: %s", request.method, request.url.path, exc)
        response = problem(status, public_message(exc), **extra)
        if isinstance(exc, AuthError):
            response.headers["WWW-Authenticate"] = 'Bearer realm="kruschnexus"'
        if isinstance(exc, StoreUnavailable):
            response.headers["Retry-After"] = str(exc.retry_after)
        elif isinstance(exc, StoreError):
            response.headers["Retry-After"] = "5"
        return response

    async def on_unexpected_error(request: Request, exc: Exception) -> JSONResponse:
        # The traceback goes to the server's log; the client learns only that it was not its fault.
        _log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return problem(500, "an unexpected server error; it has been logged")

    async def on_http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        return problem(exc.status_code, str(exc.detail))

    async def on_invalid_request(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = [{"loc": list(e["loc"]), "msg": e["msg"]} for e in exc.errors()]
        detail = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors)
        return problem(422, detail, errors=errors)

    app.add_exception_handler(PkgError, on_library_error)
    app.add_exception_handler(HTTPException, on_http_error)
    app.add_exception_handler(RequestValidationError, on_invalid_request)
    app.add_exception_handler(Exception, on_unexpected_error)
