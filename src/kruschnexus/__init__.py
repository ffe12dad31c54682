"""KruschNexus: citation-grounded retrieval with exact provenance (page, offsets, boxes)."""

from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.errors import (
    ConfigError,
    EmbedError,
    ParseError,
    PkgError,
    QueryError,
    SchemaVersionError,
    StoreError,
    UnsupportedFormatError,
)
from kruschnexus.schema.v1 import SCHEMA_VERSION, Hit

__all__ = [
    "SCHEMA_VERSION",
    "ConfigError",
    "Corpus",
    "EmbedError",
    "Hit",
    "ParseError",
    "PkgError",
    "QueryError",
    "SchemaVersionError",
    "Settings",
    "StoreError",
    "UnsupportedFormatError",
]
