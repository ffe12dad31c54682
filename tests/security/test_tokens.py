"""Tokens: one workspace each, read or write, hashed at rest. A token of workspace A is refused on every REST
route of workspace B (and of a workspace that does not exist, with the same answer); no token, a forged one
or a revoked one is 401."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from kruschnexus.api.app import create_app
from kruschnexus.cli.app import cli
from kruschnexus.config import Settings
from kruschnexus.hub import Hub
from tests.conftest import FIXTURES
from tests.security.conftest import ATTEMPTS

pytestmark = pytest.mark.integration

B = "tok-matter-b"
WRITES = {"post", "put", "patch", "delete"}


@pytest.fixture(scope="module")
def guarded(hub: Hub) -> Iterator[TestClient]:
    with TestClient(create_app(hub, require_token=True)) as opened:
        yield opened


@pytest.fixture(scope="module")
def other(client: TestClient, hub: Hub) -> str:
    """Workspace B with one document; returns its doc_id."""
    with hub.corpus(B) as corpus:
        corpus.delete()
    files = [("files", ("ligatures.pdf", (FIXTURES / "ligatures.pdf").read_bytes()))]
    response = client.post(f"/v1/workspaces/{B}/documents", files=files, data={"create": "true"})
    doc_id: str = response.json()["files"][0]["doc_id"]
    return doc_id


@pytest.fixture(scope="module")
def tokens(hub: Hub, fixtures_workspace: str, other: str) -> dict[str, str]:
    return {
        "a_read": hub.create_token(fixtures_workspace, "read")[0],
        "a_write": hub.create_token(fixtures_workspace, "write")[0],
        "b_read": hub.create_token(B, "read")[0],
        "b_write": hub.create_token(B, "write")[0],
    }


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def workspace_routes(guarded: TestClient) -> list[tuple[str, str]]:
    document = guarded.get("/v1/openapi.json").json()
    return sorted((method, path) for path, ops in document["paths"].items() if "{workspace}" in path for method in ops)


def call(client: TestClient, method: str, path: str, workspace: str, doc_id: str, token: str | None) -> Any:
    url = path.format(workspace=workspace, doc_id=doc_id, page_number=1)
    kwargs: dict[str, Any] = {"headers": bearer(token) if token else {}}
    if url.endswith(("/search", "/explain")):
        kwargs["params"] = {"q": "rent"}
    if url.endswith("/units"):
        kwargs["params"] = {"locator": json.dumps({"kind": "row", "row": 1})}
    if method == "post":
        kwargs["files"] = [("files", ("x.txt", b"Secret clause of another matter."))]
    return client.request(method.upper(), url, **kwargs)


def test_every_route_refuses_a_token_of_another_workspace(
    guarded: TestClient, tokens: dict[str, str], other: str
) -> None:
    routes = workspace_routes(guarded)
    assert len(routes) >= 13, routes
    for method, path in routes:
        for name in ("a_read", "a_write"):
            for target in (B, "no-such-matter"):
                response = call(guarded, method, path, target, other, tokens[name])
                assert response.status_code == 403, (method, path, name, target, response.text)
                assert response.json()["detail"] == "this token does not grant that workspace"
                assert B not in response.text and "no-such-matter" not in response.text
                ATTEMPTS["REST: a token of workspace A on a route of another workspace"] += 1
        response = call(guarded, method, path, B, other, None)
        assert response.status_code == 401 and response.headers["www-authenticate"].startswith("Bearer")
        ATTEMPTS["REST: no token where one is required"] += 1
        forged = tokens["b_read"][:-4] + "AAAA"
        assert call(guarded, method, path, B, other, forged).status_code == 401
        assert call(guarded, method, path, B, other, "nxt_' OR 1=1 --").status_code == 401
        ATTEMPTS["REST: forged or malformed token"] += 2
        if method in WRITES:
            response = call(guarded, method, path, B, other, tokens["b_read"])
            assert response.status_code == 403 and response.json()["detail"] == "this token is read-only"
            ATTEMPTS["REST: write with a read-only token"] += 1


def test_the_right_token_works_and_sees_only_its_workspace(
    guarded: TestClient, tokens: dict[str, str], other: str, fixtures_workspace: str
) -> None:
    listed = guarded.get("/v1/workspaces", headers=bearer(tokens["b_read"])).json()
    assert [w["name"] for w in listed] == [B]
    ATTEMPTS["REST: list other workspaces with a token"] += 1
    page = guarded.get(f"/v1/workspaces/{B}/documents/{other}/pages/1", headers=bearer(tokens["b_read"]))
    assert page.status_code == 200 and "landmark" in page.json()["text"]
    health = guarded.get("/v1/health", headers=bearer(tokens["b_read"])).json()
    assert all(c["detail"] == "" for c in health["checks"] if c["name"] == "workspaces")
    assert guarded.get("/v1/health").status_code == 401
    search = guarded.get(
        f"/v1/workspaces/{fixtures_workspace}/search", params={"q": "rent"}, headers=bearer(tokens["a_read"])
    )
    assert search.status_code == 200 and search.json()["hits"]


def test_tokens_are_hashed_at_rest_and_revocation_is_immediate(
    guarded: TestClient, hub: Hub, settings: Settings, other: str
) -> None:
    token, info = hub.create_token(B, "read", label="short-lived")
    secret = token.split("_", 2)[2]
    with psycopg.connect(str(settings.database_url)) as conn:
        row = conn.execute("SELECT * FROM tokens WHERE token_id = %s", (info.token_id,)).fetchone()
    assert row is not None and secret not in repr(row) and token not in repr(row)
    assert hashlib.sha256(secret.encode()).digest() in [bytes(v) for v in row if isinstance(v, bytes | memoryview)]
    url = f"/v1/workspaces/{B}/documents"
    assert guarded.get(url, headers=bearer(token)).status_code == 200
    hub.revoke_token(info.token_id)
    assert guarded.get(url, headers=bearer(token)).status_code == 401
    ATTEMPTS["REST: a revoked token"] += 1


def test_token_cli_creates_lists_and_revokes(cli_env: None, guarded: TestClient, other: str) -> None:
    runner = CliRunner()
    created = runner.invoke(cli, ["token", "create", "-w", B, "--write", "--label", "ci", "--json"])
    assert created.exit_code == 0, created.output
    record = json.loads(created.output)
    assert record["token"].startswith(f"nxt_{record['token_id']}_") and record["mode"] == "write"
    listed = runner.invoke(cli, ["token", "list", "-w", B, "--json"])
    assert record["token_id"] in listed.output and record["token"] not in listed.output
    upload = guarded.post(
        f"/v1/workspaces/{B}/documents",
        files=[("files", ("note.txt", b"A note about the parking garage."))],
        headers=bearer(record["token"]),
    )
    assert upload.status_code == 200 and upload.json()["files"][0]["status"] == "ingested"
    revoked = runner.invoke(cli, ["token", "revoke", record["token_id"]])
    assert revoked.exit_code == 0, revoked.output
    assert guarded.get(f"/v1/workspaces/{B}/documents", headers=bearer(record["token"])).status_code == 401
    again = runner.invoke(cli, ["token", "revoke", record["token_id"]])
    assert again.exit_code == 2 and "no live token" in again.output
    missing = runner.invoke(cli, ["token", "create", "-w", "no-such-matter"])
    assert missing.exit_code == 2 and "does not exist" in missing.output
