"""The exception tree of kruschnexus.

::

    PkgError                      root: everything the library raises on purpose
    ├── ConfigError               bad settings, a missing extra, an unusable NEXUS_HOME
    │   └── NotFoundError         no such workspace, document or page
    ├── ParseError                a file that cannot be read (path, page, reason)
    │   └── UnsupportedFormatError  no parser for this kind of file
    ├── EmbedError                the embedding model failed or does not match the store
    ├── StoreError                the database is unreachable or refused an operation
    ├── QueryError                a malformed query (offset into the query string)
    ├── AuthError                 a missing, malformed, unknown or revoked API token (HTTP 401)
    ├── ForbiddenError            a valid token that does not grant this workspace or this write (HTTP 403)
    └── SchemaVersionError        a wire object of an unreadable schema version

Third-party errors are translated where they are caught (``raise ... from exc``);
each surface (CLI, API, MCP) maps this tree once.
"""

from __future__ import annotations

from pathlib import Path


class PkgError(Exception):
    """Root of every error kruschnexus raises on purpose."""


class ConfigError(PkgError):
    """Settings are invalid, or an optional extra is missing."""


class NotFoundError(ConfigError):
    """A workspace, document or page that does not exist."""


class ParseError(PkgError):
    """A document cannot be parsed.

    Attributes:
        path: the file that failed.
        page: 1-based page number where the failure happened, if known.
        reason: a one-line human explanation.
    """

    def __init__(self, path: Path | str, reason: str, page: int | None = None) -> None:
        self.path = str(path)
        self.reason = reason
        self.page = page
        where = f"{self.path} (page {page})" if page is not None else self.path
        super().__init__(f"{where}: {reason}")


class UnsupportedFormatError(ParseError):
    """No parser handles this kind of file."""


class EmbedError(PkgError):
    """The embedding model failed, or does not match what a workspace stores."""


class StoreError(PkgError):
    """The database is unreachable or refused an operation."""


class QueryError(PkgError):
    """A malformed query.

    Attributes:
        offset: 0-based character offset into the query where the problem is.
    """

    def __init__(self, message: str, offset: int) -> None:
        self.offset = offset
        super().__init__(f"{message} (at position {offset})")


class AuthError(PkgError):
    """No usable API token: missing, malformed, unknown or revoked. The message never names a workspace."""


class ForbiddenError(PkgError):
    """A valid token that does not grant this: another workspace, or a write with a read-only token."""


class SchemaVersionError(PkgError):
    """A wire object carries a schema version this reader cannot accept."""
