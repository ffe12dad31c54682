"""``nexus mcp [--workspace W]``."""

from __future__ import annotations

import click

from kruschnexus.config import Settings
from kruschnexus.errors import ConfigError


@click.command("mcp")
@click.option(
    "--workspace",
    "-w",
    default=None,
    envvar="NEXUS_WORKSPACE",
    help="The workspace the tools work on; when set, calls naming another workspace are refused.",
)
@click.option(
    "--token",
    default=None,
    envvar="NEXUS_TOKEN",
    help="API token (nexus token create) the tools act with; required when NEXUS_REQUIRE_TOKEN=1.",
)
def command(workspace: str | None, token: str | None) -> None:
    """Serve the MCP tools (search, explain, list_documents, get_page_text, ingest) over stdio.

    Stdout carries only the protocol; logs go to stderr. The ingest tool reads only files inside
    NEXUS_INGEST_ROOTS. With a token (NEXUS_TOKEN) the tools act on its workspace only and ingest needs a
    read-write token. See docs/mcp.md for a client configuration.
    """
    try:
        from kruschnexus.mcp.server import run_stdio
    except ImportError as exc:
        if exc.name is not None and exc.name.split(".")[0] == "mcp":
            raise ConfigError(f"nexus mcp needs the 'mcp' extra: pip install 'kruschnexus[mcp]' ({exc})") from exc
        raise
    run_stdio(Settings.load(), workspace, token)
