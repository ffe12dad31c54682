"""Injection through every input a user controls: query operators, workspace names and file names reach SQL only
as bound parameters, so each payload is either a clean error or an ordinary search of its own workspace, and
no table changes."""

from __future__ import annotations

import shutil
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient

from kruschnexus.config import Settings
from kruschnexus.errors import ConfigError, QueryError
from kruschnexus.hub import Hub
from kruschnexus.sandbox import plan_ingest
from tests.conftest import FIXTURES
from tests.security.conftest import ATTEMPTS

pytestmark = pytest.mark.integration

QUERY_PAYLOADS = (
    "rent'; DROP TABLE spans; --",
    "doc:'; DELETE FROM documents; --",
    "doc:*' OR '1'='1",
    "doc_type:x' OR 1=1 --",
    "section:1' OR '1'='1",
    "section:8.22); DROP TABLE pages; --",
    'page:1 "\'); TRUNCATE spans; --"',
    "page:1-2;DROP",
    "-\"x' OR workspace <> '\"",
    "rent UNION SELECT * FROM tokens --",
    "rent & !deposit | (x) <-> y:*",
    "'\\'; SELECT pg_sleep(10); --",
    "doc:%",
    "doc:_",
    "rent\x00 OR 1=1",
)
WORKSPACE_PAYLOADS = (
    "a'; DROP TABLE workspaces; --",
    "*",
    "../other",
    "A",
    "a b",
    "a" * 64,
    "-leading",
    "x\x00y",
    "%",
    "",
)


def table_counts(settings: Settings) -> dict[str, int]:
    with psycopg.connect(str(settings.database_url)) as conn:
        return {
            table: int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])  # type: ignore[index]
            for table in ("workspaces", "documents", "pages", "blocks", "spans", "tokens")
        }


def test_query_operators_never_reach_sql_as_text(
    client: TestClient, hub: Hub, settings: Settings, fixtures_workspace: str
) -> None:
    before = table_counts(settings)
    with hub.corpus(fixtures_workspace) as corpus:
        own = {d.doc_id for d in corpus.documents()}
        for payload in QUERY_PAYLOADS:
            try:
                hits = corpus.search(payload, k=10)
            except QueryError:
                hits = []
            assert {h.doc_id for h in hits} <= own, payload
            response = client.get(f"/v1/workspaces/{fixtures_workspace}/search", params={"q": payload})
            assert response.status_code in (200, 400), (payload, response.text)
            assert response.status_code == 400 or {h["doc_id"] for h in response.json()["hits"]} <= own
            ATTEMPTS["SQL through query operators (SDK and REST)"] += 2
    assert table_counts(settings) == before


def test_workspace_names_are_refused_before_any_sql(client: TestClient, hub: Hub, settings: Settings) -> None:
    before = table_counts(settings)
    for payload in WORKSPACE_PAYLOADS:
        with pytest.raises(ConfigError, match="invalid workspace name"):
            hub.corpus(payload).__enter__()
        created = client.post("/v1/workspaces", json={"name": payload})
        assert created.status_code in (400, 422), payload
        ATTEMPTS["SQL or traversal through workspace names (SDK and REST)"] += 2
    assert client.get("/v1/workspaces/a'%3B%20DROP%20TABLE%20spans%3B--/search", params={"q": "x"}).status_code == 422
    assert table_counts(settings) == before


def test_file_names_are_data(client: TestClient, hub: Hub, tmp_path: Path, workspace: str) -> None:
    hostile = "lease'); DROP TABLE spans; --.pdf"
    shutil.copy(FIXTURES / "sample_contract.pdf", tmp_path / hostile)
    with hub.corpus(workspace) as corpus:
        [result] = corpus.ingest([tmp_path / hostile])
        assert result.status == "ingested", result.reason
        assert [d.source for d in corpus.documents()] == [hostile]
        hits = corpus.search("commercial office space")
        assert hits and hits[0].citation.startswith(hostile)
    upload = client.post(
        f"/v1/workspaces/{workspace}/documents",
        files=[("files", ("../../x'); DELETE FROM documents;--.txt", b"Parking rules for the garage."))],
    )
    assert upload.status_code == 200
    stored = upload.json()["files"][0]
    assert stored["status"] == "ingested" and "/" not in stored["file"] and ".." not in stored["file"]
    ATTEMPTS["SQL or traversal through file names (SDK and upload)"] += 2


def test_a_checked_path_swapped_for_a_link_is_not_read(hub: Hub, tmp_path: Path, workspace: str) -> None:
    """The MCP ingest checks paths (sandbox.plan_ingest), then reads them confined: a file replaced by a link out
    of the roots between the check and the read fails alone, and nothing outside the roots is stored."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("The vault code is 0000.", encoding="utf-8")
    (root / "notes.txt").write_text("Parking rules for the garage.", encoding="utf-8")
    (root / "rules.txt").write_text("The tenant shall water the ficus.", encoding="utf-8")
    plan = plan_ingest([str(root)], [root])
    assert plan.files == [root / "notes.txt", root / "rules.txt"] and not plan.refused
    (root / "rules.txt").unlink()
    (root / "rules.txt").symlink_to(outside / "secret.txt")
    with hub.corpus(workspace) as corpus:
        notes, rules = corpus.ingest(plan.files, confined=True)
        assert notes.status == "ingested"
        assert rules.status == "failed" and "symbolic link" in rules.reason, rules.reason
        assert [d.source for d in corpus.documents()] == ["notes.txt"]
        assert corpus.search('"vault code"') == []
    ATTEMPTS["a checked path swapped for a link before it is read"] += 1
