"""The exception tree of kruschnexus.

::

    PkgError                      root: everything the library raises on purpose
    ├── ConfigError               bad settings, a missing extra, an unusable NEXUS_HOME
    │   └── NotFoundError         no such workspace, document or page
    ├── ParseError                a file that cannot be read (path, page, reason)
    │   └── UnsupportedFormatError  no parser for this kind of file
    ├── EmbedError                the embedding model failed or does not match the store
    ├── StoreError                the database is unreachable or refused an operation
    │   └── StoreUnavailable      the connection was lost or the server is restarting: retry shortly
    ├── QueryError                a malformed query (offset into the query string)
    ├── AuthError                 a missing, malformed, unknown or revoked API token (HTTP 401)
    ├── ForbiddenError            a valid token that does not grant this workspace or this write (HTTP 403)
    └── SchemaVersionError        a wire object of an unreadable schema version

Third-party errors are translated where they are caught (``raise ... from exc``);
each surface (CLI, API, MCP) maps this tree once.
"""

from __future__ import annotations

import re
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
    """The database is unreachable or refused an operation.

    The message may name the data folder or quote the server; a remote client is shown :attr:`public` instead.
    """

    public = "the database refused the operation"


class SchemaBusy(StoreError):
    """The schema's upgrade waited too long for other sessions' transactions (a long ingest, a reindex): nothing of
    it was applied, and connecting again at once would only wait again."""

    public = "the database is being upgraded and other work holds its tables; retry in a minute"


class StoreUnavailable(StoreError):
    """The connection to the database was lost, or the server is (re)starting: the same call may succeed
    after :attr:`retry_after` seconds."""

    public = "the database is unavailable for a moment; retry shortly"

    def __init__(self, message: str, retry_after: int = 1) -> None:
        self.retry_after = retry_after
        super().__init__(message)


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


#: An absolute file-system path (POSIX or Windows), up to its last component.
_PATH = re.compile(r"""(?<![\w.:/])(?:[A-Za-z]:\\|/)(?:[^\s/\\:'"()<>]+[/\\])+(?=[^\s/\\:'"()<>]*)""")


def without_paths(text: str) -> str:
    """``text`` with every absolute path cut to its last component (``/srv/uploads/x/lease.pdf`` -> ``lease.pdf``).

    >>> without_paths("cannot read /tmp/upload-1/0/lease.pdf: truncated")
    'cannot read lease.pdf: truncated'
    """
    return _PATH.sub("", text)


def public_message(exc: PkgError) -> str:
    """What a remote client (REST, MCP) is told of an error: a database error's fixed :attr:`StoreError.public`
    text (the server's own message can quote SQL, a socket's folder or a connection string), any other error's
    message without the folders of the paths it names. The full message goes to the server's log."""
    if isinstance(exc, StoreError):
        return exc.public
    return without_paths(str(exc))
