"""API tokens: each grants one workspace, read-only or read-write. Only a SHA-256 of the secret is stored, and
secrets are compared in constant time.

A token reads ``nxt_<id>_<secret>``: ``id`` (12 hex digits) finds the row, ``secret`` (43 URL-safe characters,
256 random bits) proves possession. A high-entropy secret needs no slow hash; a stolen table gives no token.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from kruschnexus.errors import AuthError, ForbiddenError, NotFoundError
from kruschnexus.store.postgres import PgStore
from kruschnexus.store.records import TokenRecord, TokenRow, TokenSecretRow

Mode = Literal["read", "write"]
_TOKEN = re.compile(r"^nxt_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
_NO_SUCH = hashlib.sha256(b"no such token").digest()


@dataclass(frozen=True)
class Grant:
    """What a presented token allows."""

    token_id: str
    workspace: str
    mode: Mode

    @property
    def can_write(self) -> bool:
        """True for a read-write token."""
        return self.mode == "write"

    def check(self, workspace: str, write: bool = False) -> None:
        """Raise unless this grant covers ``workspace`` (and writing, when ``write``).

        Raises:
            ForbiddenError: another workspace (the message does not say which one the token grants, nor whether
                the other exists), or a write with a read-only token.
        """
        if workspace != self.workspace:
            raise ForbiddenError("this token does not grant that workspace")
        if write and not self.can_write:
            raise ForbiddenError("this token is read-only")


@dataclass(frozen=True)
class TokenInfo:
    """A stored token as ``nexus token list`` shows it (never the secret)."""

    token_id: str
    workspace: str
    mode: Mode
    label: str
    created_at: datetime
    revoked_at: datetime | None


def create(store: PgStore, workspace: str, mode: Mode = "read", label: str = "") -> tuple[str, TokenInfo]:
    """Issue a token for an existing workspace; returns the token (shown once) and its record.

    Raises:
        NotFoundError: the workspace does not exist.
    """
    if store.workspace(workspace) is None:
        raise NotFoundError(f"workspace {workspace!r} does not exist: ingest into it first")
    token_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
    store.insert_token(TokenRecord(token_id, workspace, _hash(secret), mode, label))
    row = store.token(token_id)
    assert row is not None
    return f"nxt_{token_id}_{secret}", _info(row)


def authenticate(store: PgStore, presented: str) -> Grant:
    """The grant of a presented token.

    Raises:
        AuthError: malformed, unknown or revoked (one message for all three).
    """
    match = _TOKEN.match(presented.strip())
    token_id, secret = match.groups() if match else ("", "")
    row = store.token(token_id) if token_id else None
    stored = bytes(row.secret_hash) if row is not None else _NO_SUCH
    genuine = hmac.compare_digest(stored, _hash(secret))
    if row is None or not genuine or row.revoked_at is not None:
        raise AuthError("a valid API token is required (see nexus token create)")
    return Grant(token_id=row.token_id, workspace=row.workspace, mode=_mode(row.mode))


def listing(store: PgStore, workspace: str) -> list[TokenInfo]:
    """Every token of a workspace, revoked ones included."""
    return [_info(row) for row in store.tokens(workspace)]


def revoke(store: PgStore, token_id: str) -> None:
    """Revoke a token at once.

    Raises:
        NotFoundError: no live token with that id.
    """
    if not store.revoke_token(token_id):
        raise NotFoundError(f"no live token {token_id!r}")


def _hash(secret: str) -> bytes:
    return hashlib.sha256(secret.encode("utf-8")).digest()


def _mode(stored: str) -> Mode:
    return "write" if stored == "write" else "read"


def _info(row: TokenRow | TokenSecretRow) -> TokenInfo:
    return TokenInfo(
        token_id=row.token_id,
        workspace=row.workspace,
        mode=_mode(row.mode),
        label=row.label,
        created_at=row.created_at,
        revoked_at=row.revoked_at,
    )
