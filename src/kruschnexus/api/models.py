"""Request and response bodies of the API that are not v1 wire objects (those live in ``schema/v1.py``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from kruschnexus.config import WORKSPACE_PATTERN


class NewWorkspace(BaseModel):
    """``POST /v1/workspaces``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        pattern=WORKSPACE_PATTERN,
        description="1-63 of a-z, 0-9, '_' or '-', starting with a letter or digit",
    )


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
