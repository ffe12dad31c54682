"""One answer everywhere: the same queries through the CLI (``--json``), the SDK, the REST API and the MCP server
give identical hit JSON, valid against the v1 JSON Schema."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import TextContent

import kruschnexus
from kruschnexus.cli.app import cli
from kruschnexus.config import Settings
from kruschnexus.hub import Hub
from kruschnexus.wire import hit_id
from tests.conftest import FIXTURES
from tests.pdfgen import lease_revisions

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cli_env")]

VALIDATOR = Draft202012Validator(
    json.loads((Path(kruschnexus.__file__).parent / "schema" / "hit.v1.json").read_text(encoding="utf-8"))
)
QUERIES = (
    "commercial office space Section 8.22",  # section locator + dense + full text
    '"security deposit" -retail page:1',  # operators
    "monthly rent for suite 300",  # CSV rows: unpaged units with locators
    "recipe for banana bread with walnuts",  # nothing clears the floor: [] everywhere
)


def via_cli(workspace: str, query: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(cli, ["search", query, "-w", workspace, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    hits: list[dict[str, Any]] = json.loads(result.output)
    return hits


def via_rest(client: TestClient, workspace: str, query: str) -> list[dict[str, Any]]:
    response = client.get(f"/v1/workspaces/{workspace}/search", params={"q": query, "k": 5})
    assert response.status_code == 200, response.text
    hits: list[dict[str, Any]] = response.json()["hits"]
    return hits


async def via_mcp(settings: Settings, workspace: str, queries: tuple[str, ...]) -> list[list[dict[str, Any]]]:
    env = {**os.environ, "NEXUS_HOME": str(settings.home), "NEXUS_DATABASE_URL": str(settings.database_url)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "kruschnexus", "mcp", "-w", workspace], env=env)
    answers = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for query in queries:
            result = await session.call_tool("search", {"query": query, "k": 5})
            assert not result.is_error and isinstance(result.content[0], TextContent), result.content
            answers.append(json.loads(result.content[0].text)["hits"])
    return answers


def test_one_answer_everywhere(client: TestClient, hub: Hub, settings: Settings, fixtures_workspace: str) -> None:
    mcp_answers = asyncio.run(via_mcp(settings, fixtures_workspace, QUERIES))
    answered = 0
    seen: list[dict[str, Any]] = []
    for query, from_mcp in zip(QUERIES, mcp_answers, strict=True):
        with hub.corpus(fixtures_workspace) as corpus:
            from_sdk = [h.model_dump(mode="json") for h in corpus.search(query, k=5)]
        from_cli = via_cli(fixtures_workspace, query)
        from_rest = via_rest(client, fixtures_workspace, query)
        assert from_cli == from_sdk, query
        assert from_rest == from_sdk, query
        assert from_mcp == from_sdk, query
        for hit in from_sdk:
            VALIDATOR.validate(hit)
        answered += bool(from_sdk)
        seen += from_sdk
    assert answered == len(QUERIES) - 1, "every query but the last should have hits"
    assert {h["page_number"] is None for h in seen} == {True, False}, "both PDF pages and unpaged units compared"


async def ingest_via_mcp(settings: Settings, workspace: str, path: Path) -> dict[str, Any]:
    env = {
        **os.environ,
        "NEXUS_HOME": str(settings.home),
        "NEXUS_DATABASE_URL": str(settings.database_url),
        "NEXUS_INGEST_ROOTS": str(path.parent),
    }
    params = StdioServerParameters(command=sys.executable, args=["-m", "kruschnexus", "mcp", "-w", workspace], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("ingest", {"paths": [str(path)]})
        assert not result.is_error and isinstance(result.content[0], TextContent), result.content
        report: dict[str, Any] = json.loads(result.content[0].text)
        return report


def test_one_ingest_report_everywhere(client: TestClient, hub: Hub, settings: Settings) -> None:
    source = FIXTURES / "office_rent_roll_latin1.csv"  # a reader's note (the guessed encoding) and meta to compare
    names = {surface: f"surfaces-ingest-{surface}" for surface in ("cli", "rest", "mcp")}
    for name in names.values():
        with hub.corpus(name) as corpus:
            corpus.delete()
    result = CliRunner().invoke(
        cli, ["ingest", str(source), "-w", names["cli"], "--create", "--json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    from_cli = json.loads(result.output)
    upload = client.post(
        f"/v1/workspaces/{names['rest']}/documents",
        files=[("files", (source.name, source.read_bytes()))],
        data={"create": "true"},
    )
    assert upload.status_code == 200, upload.text
    from_rest = upload.json()
    from_mcp = asyncio.run(ingest_via_mcp(settings, names["mcp"], source))
    reports = {"cli": from_cli, "rest": from_rest, "mcp": from_mcp}
    for surface, report in reports.items():
        assert report["workspace"] == names[surface]
        [entry] = report["files"]
        assert entry["status"] == "ingested" and entry["file"] == source.name, (surface, entry)
        assert entry["reason"].startswith("not UTF-8: read as cp1252"), (surface, entry)
    assert reports["cli"]["files"][0]["path"] == reports["mcp"]["files"][0]["path"] == str(source)
    assert reports["rest"]["files"][0]["path"] == source.name, "an upload shows no server path"

    def comparable(report: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in report["files"][0].items() if k not in ("path", "seconds", "stages")}

    assert comparable(from_cli) == comparable(from_rest) == comparable(from_mcp)
    assert set(from_cli["files"][0]) == set(from_rest["files"][0]) == set(from_mcp["files"][0])
    assert all(set(r["files"][0]["stages"]) == {"read", "embed", "store", "other"} for r in reports.values())


async def revisions_via_mcp(
    settings: Settings, workspace: str, hit: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    env = {**os.environ, "NEXUS_HOME": str(settings.home), "NEXUS_DATABASE_URL": str(settings.database_url)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "kruschnexus", "mcp", "-w", workspace], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        answers = []
        for tool, arguments in (("resolve", {"hit": hit}), ("diff", {"name": "lease.pdf"})):
            result = await session.call_tool(tool, arguments)
            assert not result.is_error and isinstance(result.content[0], TextContent), result.content
            answers.append(json.loads(result.content[0].text))
        return answers[0], answers[1]


def test_one_resolution_and_one_diff_everywhere(
    client: TestClient, hub: Hub, settings: Settings, tmp_path: Path
) -> None:
    """An old hit resolved, and two versions compared, give the same JSON from the SDK, CLI, REST and MCP."""
    r1, r2, *_ = lease_revisions(tmp_path)
    workspace = "surfaces-versions"
    with hub.corpus(workspace) as corpus:
        corpus.delete()
        corpus.ingest([r1], name="lease.pdf")
        old = corpus.search('"base rent of four thousand dollars"')[0]
        corpus.ingest([r2], name="lease.pdf")
        from_sdk = corpus.resolve(old).model_dump(mode="json")
        diff_sdk = corpus.diff("lease.pdf").model_dump(mode="json")
    assert from_sdk["status"] == "moved" and from_sdk["to_version"] == 2, from_sdk
    assert {c["change"] for c in diff_sdk["sections"]} >= {"added", "renumbered", "unchanged"}

    result = CliRunner().invoke(cli, ["resolve", hit_id(old), "-w", workspace, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    from_cli = json.loads(result.output)
    piped = CliRunner().invoke(
        cli, ["resolve", "-w", workspace, "--json"], input=json.dumps([old.model_dump(mode="json")])
    )
    assert piped.exit_code == 0 and json.loads(piped.output) == from_cli, piped.output
    diff_cli = json.loads(CliRunner().invoke(cli, ["diff", "lease.pdf", "-w", workspace, "--json"]).output)

    rest = client.get(f"/v1/workspaces/{workspace}/resolve", params={"hit": hit_id(old)})
    assert rest.status_code == 200, rest.text
    diff_rest = client.get(f"/v1/workspaces/{workspace}/diff", params={"name": "lease.pdf", "from": 1, "to": 2})
    assert diff_rest.status_code == 200, diff_rest.text
    from_mcp, diff_mcp = asyncio.run(revisions_via_mcp(settings, workspace, old.model_dump(mode="json")))

    assert from_cli == [from_sdk] and rest.json() == from_sdk and from_mcp == from_sdk
    assert diff_cli == diff_rest.json() == diff_mcp == diff_sdk
    for hit in from_sdk["hits"]:
        VALIDATOR.validate(hit)
    missing = client.get(f"/v1/workspaces/{workspace}/resolve", params={"hit": "0" * 64 + ":1:0-5"})
    assert missing.status_code == 404 and "not in workspace" in missing.json()["detail"], missing.text
    bad = client.get(f"/v1/workspaces/{workspace}/resolve", params={"hit": "not a hit"})
    assert bad.status_code == 400, bad.text
