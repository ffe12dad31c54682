"""``nexus token create|list|revoke``: API tokens for the REST API and the MCP server."""

from __future__ import annotations

import click

from kruschnexus.cli import render
from kruschnexus.cli.app import json_option, workspace_option
from kruschnexus.config import Settings
from kruschnexus.hub import Hub
from kruschnexus.tokens import TokenInfo


@click.group("token")
def command() -> None:
    """API tokens: each grants one workspace, read-only or read-write; only a hash is stored.

    REST requires one when `nexus serve` binds beyond loopback or NEXUS_REQUIRE_TOKEN=1; `nexus mcp` then reads
    it from NEXUS_TOKEN.
    """


@command.command("create")
@workspace_option
@click.option("--write", is_flag=True, help="Allow uploads and deletions (default: read-only).")
@click.option("--label", default="", help="A note to recognise the token by in `nexus token list`.")
@json_option
def create(workspace: str, write: bool, label: str, as_json: bool) -> None:
    """Issue a token for one existing workspace and print it once (it cannot be shown again)."""
    with Hub(Settings.load()) as hub:
        token, info = hub.create_token(workspace, "write" if write else "read", label)
    if as_json:
        render.json_line({"token": token, **_record(info)})
    else:
        render.note(f"token {info.token_id} for workspace {workspace!r} ({info.mode}); store it now:")
        click.echo(token)


@command.command("list")
@workspace_option
@json_option
def list_tokens(workspace: str, as_json: bool) -> None:
    """The tokens of a workspace (ids, modes, labels, dates; never the secrets)."""
    with Hub(Settings.load()) as hub:
        infos = hub.tokens(workspace)
    if as_json:
        render.json_line([_record(i) for i in infos])
    else:
        render.tokens(infos)


@command.command("revoke")
@click.argument("token_id")
def revoke(token_id: str) -> None:
    """Revoke a token by its id (the 12 hex digits after nxt_); it stops working at once."""
    with Hub(Settings.load()) as hub:
        hub.revoke_token(token_id)
    render.note(f"revoked token {token_id}")


def _record(info: TokenInfo) -> dict[str, str | None]:
    return {
        "token_id": info.token_id,
        "workspace": info.workspace,
        "mode": info.mode,
        "label": info.label,
        "created_at": info.created_at.isoformat(),
        "revoked_at": info.revoked_at.isoformat() if info.revoked_at else None,
    }
