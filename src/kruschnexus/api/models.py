"""Request and response bodies of the API that are not v1 wire objects (those live in ``schema/v1.py``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class NewWorkspace(BaseModel):
    """``POST /v1/workspaces``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        pattern=r"^[a-z0-9][a-z0-9_-]{0,62}$",
        description="1-63 of a-z, 0-9, '_' or '-', starting with a letter or digit",
    )


class FileOutcome(BaseModel):
    """What happened to one uploaded file (``nexus ingest --json`` prints the same fields)."""

    model_config = ConfigDict(extra="forbid")

    file: str = Field(description="the stored (sanitised) file name")
    status: str = Field(description="ingested, unchanged, skipped or failed")
    reason: str
    doc_id: str | None
    kind: str
    pages: int
    spans: int
    needs_ocr: list[int]
    ocr_pages: list[int]
    seconds: float


class IngestResponse(BaseModel):
    """``POST /v1/workspaces/{workspace}/documents``."""

    model_config = ConfigDict(extra="forbid")

    workspace: str
    files: list[FileOutcome]


class HealthCheck(BaseModel):
    """One line of the doctor report."""

    model_config = ConfigDict(extra="forbid")

    name: str
    ok: bool
    detail: str


class Health(BaseModel):
    """``GET /v1/health``: the report ``nexus doctor`` prints."""

    model_config = ConfigDict(extra="forbid")

    healthy: bool
    checks: list[HealthCheck]
