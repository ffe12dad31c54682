"""KruschNexus: citation-grounded retrieval with exact provenance (page, offsets, boxes).

The names below are imported on first use (PEP 562), so that a command that searches does not import the
ingestion's parsers, nor a search the doctor's checks: ``from kruschnexus import Corpus`` works as ever.
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
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

#: Each public name and the module it comes from.
_HOMES = {
    "SCHEMA_VERSION": "kruschnexus.schema.v1",
    "AuthError": "kruschnexus.errors",
    "ConfigError": "kruschnexus.errors",
    "Corpus": "kruschnexus.corpus",
    "DoctorReport": "kruschnexus.doctor",
    "DocumentInfo": "kruschnexus.schema.v1",
    "EmbedError": "kruschnexus.errors",
    "ExplainTrace": "kruschnexus.schema.v1",
    "FileResult": "kruschnexus.ingest",
    "ForbiddenError": "kruschnexus.errors",
    "Hit": "kruschnexus.schema.v1",
    "Hub": "kruschnexus.hub",
    "NotFoundError": "kruschnexus.errors",
    "PageText": "kruschnexus.schema.v1",
    "ParseError": "kruschnexus.errors",
    "PkgError": "kruschnexus.errors",
    "QueryError": "kruschnexus.errors",
    "SchemaVersionError": "kruschnexus.errors",
    "SearchResponse": "kruschnexus.schema.v1",
    "Settings": "kruschnexus.config",
    "StoreError": "kruschnexus.errors",
    "UnsupportedFormatError": "kruschnexus.errors",
    "VerifyReport": "kruschnexus.verify",
    "WorkspaceInfo": "kruschnexus.schema.v1",
}

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


if not _typing.TYPE_CHECKING:  # type checkers read the imports above, and flag a name not among them

    def __getattr__(name: str) -> _typing.Any:
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module 'kruschnexus' has no attribute {name!r}")
        value = getattr(_importlib.import_module(home), name)
        globals()[name] = value  # imported once
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *_HOMES})
