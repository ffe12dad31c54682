"""KruschNexus: citation-grounded retrieval with exact provenance (page, offsets, boxes)."""

from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.doctor import DoctorReport
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
    UnsupportedFormatError,
)
from kruschnexus.hub import Hub
from kruschnexus.ingest import FileResult
from kruschnexus.schema.v1 import (
    SCHEMA_VERSION,
    DocumentInfo,
    ExplainTrace,
    Hit,
    PageText,
    SearchResponse,
    WorkspaceInfo,
)
from kruschnexus.verify import VerifyReport

__all__ = [
    "SCHEMA_VERSION",
    "AuthError",
    "ConfigError",
    "Corpus",
    "DoctorReport",
    "DocumentInfo",
    "EmbedError",
    "ExplainTrace",
    "FileResult",
    "ForbiddenError",
    "Hit",
    "Hub",
    "NotFoundError",
    "PageText",
    "ParseError",
    "PkgError",
    "QueryError",
    "SchemaVersionError",
    "SearchResponse",
    "Settings",
    "StoreError",
    "UnsupportedFormatError",
    "VerifyReport",
    "WorkspaceInfo",
]
