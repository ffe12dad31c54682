"""KruschNexus: citation-grounded retrieval with exact provenance (page, offsets, boxes)."""

from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.doctor import DoctorReport
from kruschnexus.errors import (
    ConfigError,
    EmbedError,
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
    "ConfigError",
    "Corpus",
    "DoctorReport",
    "DocumentInfo",
    "EmbedError",
    "ExplainTrace",
    "FileResult",
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
