"""``nexus mcp`` as a real subprocess, driven by the MCP SDK's own stdio client (and once by hand, to see that
stdout carries nothing but the protocol)."""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent

import kruschnexus
from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.embed.base import Embedder
from kruschnexus.errors import ConfigError, PkgError, QueryError
from kruschnexus.hub import Hub
from kruschnexus.mcp.server import NexusTools
from kruschnexus.schema.v1 import ExplainTrace, PageText, SearchResponse
from tests.conftest import FIXTURES, ROOT

pytestmark = pytest.mark.integration

HIT_SCHEMA = json.loads((Path(kruschnexus.__file__).parent / "schema" / "hit.v1.json").read_text(encoding="utf-8"))
QUERY = "commercial office space Section 8.22"
TOOLS = {
    "search", "explain", "resolve", "diff", "list_documents", "get_page_text", "get_unit_text", "list_workspaces",
    "ingest",
}  # fmt: skip


def server_command(workspace: str) -> list[str]:
    return [sys.executable, "-m", "kruschnexus", "mcp", "-w", workspace]


def server_env(settings: Settings, root: Path, *, database_url: bool = True) -> dict[str, str]:
    env = {"NEXUS_HOME": str(settings.home), "NEXUS_INGEST_ROOTS": str(root)}
    if database_url:
        assert settings.database_url is not None
        env["NEXUS_DATABASE_URL"] = settings.database_url
    return env


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The only ingest root: a copy of the sample contract, and a link out of the root to another PDF."""
    root = tmp_path / "roots"
    root.mkdir()
    shutil.copy(FIXTURES / "sample_contract.pdf", root / "sample_contract.pdf")
    shutil.copy(FIXTURES / "ligatures.pdf", tmp_path / "x")
    (root / "escape.pdf").symlink_to(tmp_path / "x")
    folder = root / "rolls"
    folder.mkdir()
    shutil.copy(FIXTURES / "office_rent_roll.csv", folder / "office_rent_roll.csv")
    (folder / "stray.pdf").symlink_to(tmp_path / "x")  # a link out of the roots, inside a folder
    return root


def payload(result: CallToolResult) -> Any:
    """The structured content, checked to equal the JSON text block."""
    assert not result.is_error, error_text(result)
    assert len(result.content) == 1 and isinstance(result.content[0], TextContent)
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def library_error(call: Any) -> str:
    with pytest.raises(PkgError) as caught:
        call()
    return str(caught.value)


async def refused_ingests(session: ClientSession, root: Path) -> None:
    """Paths outside the root, through a link or '..', are tool errors naming the file (not its folders: a tool
    error shows no server path); nothing is ingested."""
    for raw in ("/etc/passwd", str(root / "escape.pdf"), f"{root}/../x"):
        result = await session.call_tool("ingest", {"paths": [raw]})
        assert result.is_error, raw
        text = error_text(result)
        assert f"refused {Path(raw).name!r}" in text and "outside the ingest roots" in text
        assert str(root) not in text and "/etc" not in text
    # One bad path refuses the whole call: the good file beside it is not read either.
    result = await session.call_tool("ingest", {"paths": ["sample_contract.pdf", "/etc/passwd"]})
    assert result.is_error and "nothing was ingested" in error_text(result)


async def search_matches_the_sdk(session: ClientSession, corpus: Corpus) -> list[dict[str, Any]]:
    response = payload(await session.call_tool("search", {"query": QUERY}))
    SearchResponse.model_validate(response)
    hits = response["hits"]
    assert hits and response["abstain"] is None
    validator = Draft202012Validator(HIT_SCHEMA)
    for hit in hits:
        validator.validate(hit)
    assert hits == [h.model_dump(mode="json") for h in corpus.search(QUERY)]
    return list(hits)


async def pages_and_documents(session: ClientSession, corpus: Corpus, hits: list[dict[str, Any]]) -> None:
    for hit in hits:
        args = {"doc_id": hit["doc_id"], "page_number": hit["page_number"]}
        page = PageText.model_validate(payload(await session.call_tool("get_page_text", args)))
        assert page.text[hit["char_start"] : hit["char_end"]] == hit["text"]
    listed = payload(await session.call_tool("list_documents", {}))
    assert listed["workspace"] == corpus.workspace
    assert [(d["source"], d["doc_id"]) for d in listed["documents"]] == [("sample_contract.pdf", hits[0]["doc_id"])]
    assert listed["documents"] == [d.model_dump(mode="json") for d in corpus.documents()]
    missing = await session.call_tool("get_page_text", {"doc_id": hits[0]["doc_id"], "page_number": 999})
    assert missing.is_error
    assert error_text(missing) == library_error(lambda: corpus.page(hits[0]["doc_id"], 999))


async def errors_carry_the_library_message(session: ClientSession, corpus: Corpus) -> None:
    bad = await session.call_tool("search", {"query": '"office'})
    with pytest.raises(QueryError) as caught:
        corpus.search('"office')
    assert bad.is_error and error_text(bad) == str(caught.value)
    other = await session.call_tool("search", {"query": QUERY, "workspace": "someone-else"})
    assert other.is_error and "serves workspace" in error_text(other)


async def drive(params: StdioServerParameters, errlog: Any, root: Path, corpus: Corpus) -> None:
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        assert {t.name for t in listed.tools} == TOOLS and len(listed.tools) == len(TOOLS)
        assert all(t.description and t.output_schema for t in listed.tools)
        search_tool = next(t for t in listed.tools if t.name == "search")
        assert "doc_type:" in (search_tool.description or "") and "[]" in (search_tool.description or "")

        await refused_ingests(session, root)
        assert corpus.store.workspace(corpus.workspace) is None, "a refused ingest stored something"

        report = payload(await session.call_tool("ingest", {"paths": ["sample_contract.pdf"]}))
        [done] = report["files"]
        assert (done["status"], done["kind"], done["path"]) == ("ingested", "pdf", str(root / "sample_contract.pdf"))
        assert done["pages"] > 0 and done["spans"] > 0 and done["doc_id"]

        hits = await search_matches_the_sdk(session, corpus)
        await pages_and_documents(session, corpus, hits)
        trace = ExplainTrace.model_validate(payload(await session.call_tool("explain", {"query": QUERY})))
        assert trace.query == QUERY and trace.hits == len(hits) and trace.candidates
        await errors_carry_the_library_message(session, corpus)
        await a_folder_with_a_stray_link_and_unit_text(session, root, corpus)
        await invalid_arguments_read_plainly(session)
        listed_ws = payload(await session.call_tool("list_workspaces", {}))
        assert [w["name"] for w in listed_ws["workspaces"]] == [corpus.workspace], "a pinned session lists its own"


async def a_folder_with_a_stray_link_and_unit_text(session: ClientSession, root: Path, corpus: Corpus) -> None:
    """A link out of the roots found inside a folder is skipped and reported; the folder's other files are read.
    A CSV hit's unit is read back by its locator."""
    report = payload(await session.call_tool("ingest", {"paths": ["rolls"]}))
    entries = {Path(f["path"]).name: f for f in report["files"]}
    assert entries["office_rent_roll.csv"]["status"] == "ingested"
    stray = entries["stray.pdf"]
    assert stray["status"] == "skipped" and "outside the ingest roots" in stray["reason"]
    assert str(root.parent) not in stray["reason"], "the link's target is not shown"
    hit = next(h for h in corpus.search("monthly rent for suite 300") if h.locator is not None)
    args = {"doc_id": hit.doc_id, "locator": hit.locator}
    unit = PageText.model_validate(payload(await session.call_tool("get_unit_text", args)))
    assert unit.text[hit.char_start : hit.char_end] == hit.text and unit.locator == hit.locator
    missing = await session.call_tool("get_unit_text", {"doc_id": hit.doc_id, "locator": {"kind": "row", "row": 999}})
    assert missing.is_error and "has no unit at" in error_text(missing)
    nul = await session.call_tool("get_unit_text", {"doc_id": hit.doc_id, "locator": {"kind": "row\u0000"}})
    assert nul.is_error and error_text(nul) == "locator: contains a NUL character"


async def invalid_arguments_read_plainly(session: ClientSession) -> None:
    bad = await session.call_tool("search", {"query": "rent", "k": 1000})
    assert bad.is_error
    assert error_text(bad) == "invalid arguments for search: k: Input should be less than or equal to 100 (got 1000)"
    none = await session.call_tool("get_page_text", {"doc_id": "abc"})
    assert none.is_error and error_text(none) == "invalid arguments for get_page_text: page_number: Field required"


def test_mcp_tools_over_stdio(
    settings: Settings, embedder: Embedder, workspace: str, root: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    params = StdioServerParameters(
        command=server_command(workspace)[0],
        args=server_command(workspace)[1:],
        env=server_env(settings, root),
        cwd=tmp_path,
    )
    stderr_path = tmp_path / "server.stderr"
    with stderr_path.open("w", encoding="utf-8") as errlog, Corpus(workspace, settings, embedder) as corpus:
        asyncio.run(drive(params, errlog, root, corpus))
    # The client logs (and skips) any stdout line that is not JSON-RPC.
    assert not [r for r in caplog.records if r.name.startswith("mcp.client") and r.levelno >= logging.WARNING]
    logged = stderr_path.read_text(encoding="utf-8")
    assert "kruschnexus.mcp.server: ready" in logged
    assert "search answered" in logged and "search failed: unbalanced quote" in logged
    assert "Traceback" not in logged


def rpc(proc: subprocess.Popen[str], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()


def reply(proc: subprocess.Popen[str]) -> dict[str, Any]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    message = json.loads(line)
    assert message["jsonrpc"] == "2.0", line
    return dict(message)


@pytest.mark.timeout(180)
def test_stdout_carries_only_the_protocol(settings: Settings, workspace: str, root: Path, tmp_path: Path) -> None:
    """Every line on stdout is a JSON-RPC message, from start-up (the embedded server joined by its data folder
    unless NEXUS_TEST_DSN is set, the model loaded) to exit; the logs went to stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEXUS_")}
    env |= server_env(settings, root, database_url=bool(os.environ.get("NEXUS_TEST_DSN")))
    proc = subprocess.Popen(
        server_command(workspace),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw-test", "version": "0"}}
    rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
    welcome = reply(proc)
    assert welcome["id"] == 1
    assert welcome["result"]["serverInfo"]["version"] == importlib.metadata.version("kruschnexus")
    rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert {t["name"] for t in reply(proc)["result"]["tools"]} == TOOLS
    call = {"name": "list_documents", "arguments": {}}
    rpc(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
    answer = reply(proc)
    assert answer["result"]["isError"] is True and "does not exist" in answer["result"]["content"][0]["text"]
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in stdout.splitlines() if line)
    assert "kruschnexus.mcp.server: ready" in stderr and "kruschnexus.mcp.server: stopped" in stderr


def test_workspace_policy(settings: Settings) -> None:
    """With --workspace the session is bound to it; without, every call names its own."""
    hub = Hub(settings)
    bound = NexusTools(hub, "demo")
    assert bound.workspace(None) == bound.workspace("demo") == "demo"
    with pytest.raises(ConfigError, match="serves workspace 'demo' only"):
        bound.workspace("other")
    free = NexusTools(hub, None)
    assert free.workspace("other") == "other"
    with pytest.raises(ConfigError, match="no workspace"):
        free.workspace(None)
    with pytest.raises(ConfigError, match="invalid workspace name"):
        free.workspace("Bad Name")
    with pytest.raises(ConfigError, match="invalid workspace name"):
        NexusTools(hub, "../etc")


def test_the_python_example_of_the_mcp_page_runs(settings: Settings, embedder: Embedder, tmp_path: Path) -> None:
    """docs/mcp.md's client example, run as written against this run's database: only the server's executable
    (this interpreter) and the environment (this run's home, database and an existing ingest root) are the test's."""
    import textwrap

    import mcp as mcp_sdk

    block = re.search(r"```python\n(.*?)```", (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8"), re.DOTALL)
    assert block is not None
    with Corpus("demo", settings, embedder) as corpus:
        corpus.create()
        corpus.ingest([FIXTURES / "sample_contract.pdf"])
    ours = server_env(settings, tmp_path)

    class HereServer(StdioServerParameters):
        def __init__(self, command: str, args: list[str], env: dict[str, str] | None = None) -> None:
            assert command == "nexus" and env is not None and "NEXUS_INGEST_ROOTS" in env
            super().__init__(command=sys.executable, args=["-m", "kruschnexus", *args], env={**env, **ours})

    source = "async def example():\n" + textwrap.indent(block.group(1), "    ") + "    return hits\n"
    namespace: dict[str, Any] = {}
    exec(compile(source, "docs/mcp.md python block", "exec"), namespace)
    real = mcp_sdk.StdioServerParameters
    mcp_sdk.StdioServerParameters = HereServer  # type: ignore[misc,assignment]
    try:
        hits = asyncio.run(namespace["example"]())
    finally:
        mcp_sdk.StdioServerParameters = real  # type: ignore[misc]
    assert hits and hits[0]["source"] == "sample_contract.pdf" and hits[0]["section"] == "8.22"
