"""Shared route parameters: the hub, a borrowed corpus, validated path parameters, documented problems."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import Path, Request

from kruschnexus.api.problems import Problem
from kruschnexus.corpus import Corpus
from kruschnexus.hub import Hub

WorkspaceName = Annotated[
    str,
    Path(
        pattern=r"^[a-z0-9][a-z0-9_-]{0,62}$",
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


def corpus(workspace: WorkspaceName, request: Request) -> Iterator[Corpus]:
    """A :class:`Corpus` on a pooled connection for the request's workspace."""
    with hub(request).corpus(workspace) as opened:
        yield opened


def problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the problem+json responses a route can give."""
    schema = {"$ref": "#/components/schemas/Problem"}
    return {
        status: {"model": Problem, "content": {"application/problem+json": {"schema": schema}}, "description": text}
        for status, text in _PROBLEM_TEXT.items()
        if status in statuses
    }


_PROBLEM_TEXT = {
    400: "malformed query or invalid setting",
    404: "no such workspace, document or page",
    409: "the workspace was built with another embedding model",
    413: "upload larger than the limit",
    422: "invalid request, or a file that cannot be read",
    503: "the database is unavailable",
}
