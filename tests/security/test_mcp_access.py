"""The MCP server with a token: every tool is refused on another workspace, a read-only token cannot ingest,
a revoked token stops working mid-session, and without a token (when one is required) the server will not start."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent

from kruschnexus.config import Settings
from kruschnexus.hub import Hub
from tests.conftest import FIXTURES
from tests.security.conftest import ATTEMPTS

pytestmark = pytest.mark.integration

OTHER = "mcp-matter-other"


def text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def env_for(settings: Settings, token: str | None, root: Path) -> dict[str, str]:
    env = {**os.environ, "NEXUS_HOME": str(settings.home), "NEXUS_DATABASE_URL": str(settings.database_url)}
    env.update({"NEXUS_REQUIRE_TOKEN": "1", "NEXUS_INGEST_ROOTS": str(root)})
    if token is not None:
        env["NEXUS_TOKEN"] = token
    return env


def other_calls(doc_id: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("search", {"query": "landmark", "workspace": OTHER}),
        ("explain", {"query": "landmark", "workspace": OTHER}),
        ("list_documents", {"workspace": OTHER}),
        ("get_page_text", {"doc_id": doc_id, "page_number": 1, "workspace": OTHER}),
        ("ingest", {"paths": ["sample_contract.pdf"], "workspace": OTHER}),
    ]


async def session_run(params: StdioServerParameters, hub: Hub, token_id: str, other_doc: str) -> None:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for tool, args in other_calls(other_doc):
            result = await session.call_tool(tool, args)
            assert result.is_error, (tool, result.content)
            ATTEMPTS["MCP: a tool on another workspace"] += 1
        page = await session.call_tool("get_page_text", {"doc_id": other_doc, "page_number": 1})
        assert page.is_error and "no document" in text(page) and OTHER not in text(page)
        ATTEMPTS["MCP: another workspace's document by id"] += 1
        ingest = await session.call_tool("ingest", {"paths": ["sample_contract.pdf"]})
        assert ingest.is_error and text(ingest) == "this token is read-only"
        ATTEMPTS["MCP: ingest with a read-only token"] += 1
        own = await session.call_tool("search", {"query": "commercial office space"})
        assert not own.is_error and own.structured_content and own.structured_content["hits"]
        await asyncio.to_thread(hub.revoke_token, token_id)
        after = await session.call_tool("search", {"query": "commercial office space"})
        assert after.is_error and "valid API token is required" in text(after)
        ATTEMPTS["MCP: a token revoked mid-session"] += 1


def test_mcp_tools_stay_inside_the_token_workspace(
    hub: Hub, settings: Settings, fixtures_workspace: str, tmp_path: Path
) -> None:
    with hub.corpus(OTHER) as corpus:
        corpus.delete()
        [result] = corpus.ingest([FIXTURES / "ligatures.pdf"])
    assert result.doc_id is not None
    (tmp_path / "sample_contract.pdf").write_bytes((FIXTURES / "sample_contract.pdf").read_bytes())
    token, info = hub.create_token(fixtures_workspace, "read")
    command = [sys.executable, "-m", "kruschnexus", "mcp"]
    params = StdioServerParameters(command=command[0], args=command[1:], env=env_for(settings, token, tmp_path))
    asyncio.run(session_run(params, hub, info.token_id, result.doc_id))


def test_mcp_will_not_start_without_a_required_token(settings: Settings, tmp_path: Path) -> None:
    for token in (None, "nxt_000000000000_" + "A" * 43):
        done = subprocess.run(
            [sys.executable, "-m", "kruschnexus", "mcp"],
            env=env_for(settings, token, tmp_path),
            input="",
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert "token" in done.stderr.lower()
        ATTEMPTS["MCP: start without a valid token"] += 1
