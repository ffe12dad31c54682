"""Shared route parameters: the hub, a borrowed corpus, validated path parameters, documented problems."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from kruschnexus.api.problems import Problem
from kruschnexus.config import WORKSPACE_PATTERN
from kruschnexus.corpus import Corpus
from kruschnexus.errors import AuthError
from kruschnexus.hub import Hub
from kruschnexus.tokens import Grant

_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})

WorkspaceName = Annotated[
    str,
    Path(
        pattern=WORKSPACE_PATTERN,
        description="workspace name: 1-63 of a-z, 0-9, '_' or '-', starting with a letter or digit",
    ),
]
DocId = Annotated[str, Path(pattern=r"^[0-9a-f]{64}$", description="sha256 of the document's bytes")]
PageNumber = Annotated[
    int, Path(ge=1, le=1_000_000, description="1-based physical page (or unit number for unpaged formats)")
]


def hub(request: Request) -> Hub:
    """The app's :class:`Hub`."""
    found: Hub = request.app.state.hub
    return found


_BEARER = HTTPBearer(auto_error=False, description="an API token from `nexus token create`")
Bearer = Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)]


def grant(request: Request, _documented: Bearer = None) -> Grant | None:
    """The grant of the request's bearer token; ``None`` when no token is sent and none is required.

    Raises:
        AuthError: a token is required and missing, or the one sent is malformed, unknown or revoked.
    """
    header = request.headers.get("authorization")
    if header is None:
        if request.app.state.require_token:
            raise AuthError("a valid API token is required (see nexus token create)")
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value:
        raise AuthError("a valid API token is required (see nexus token create)")
    return hub(request).authenticate(value)


def allow(request: Request, workspace: str) -> None:
    """Check that the request may act on ``workspace`` (writes need a read-write token).

    Raises:
        AuthError: see :func:`grant`.
        ForbiddenError: the token grants another workspace, or only reading.
    """
    granted = grant(request)
    if granted is not None:
        granted.check(workspace, write=request.method in _WRITES)


def corpus(workspace: WorkspaceName, request: Request) -> Iterator[Corpus]:
    """A :class:`Corpus` on a pooled connection for the request's workspace, once the token allows it."""
    allow(request, workspace)
    with hub(request).corpus(workspace) as opened:
        yield opened


def problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the problem+json responses a route can give."""
    schema = {"$ref": "#/components/schemas/Problem"}
    return {
        status: {"model": Problem, "content": {"application/problem+json": {"schema": schema}}, "description": text}
        for status, text in _PROBLEM_TEXT.items()
        if status in statuses or status in (401, 403)
    }


_PROBLEM_TEXT = {
    400: "malformed query or invalid setting",
    401: "a valid API token is required",
    403: "the token does not grant this workspace, or is read-only",
    404: "no such workspace, document or page",
    409: "the workspace was built with another embedding model",
    413: "upload larger than the limit",
    422: "invalid request, or a file that cannot be read",
    503: "the database is unavailable",
}
