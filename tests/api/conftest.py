"""One API app per test module over the session's database and model, with the fixtures uploaded once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from kruschnexus.api.app import create_app
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.hub import Hub
from tests.conftest import FIXTURES

#: Ingested by the module fixture below; names long enough that generated test input never hits them.
API_WORKSPACE = "api-fixtures-contract-and-rent-roll"
UPLOADS = ("sample_contract.pdf", "office_rent_roll.csv")


@pytest.fixture(scope="module")
def hub(settings: Settings, embedder: Embedder) -> Iterator[Hub]:
    with Hub(settings, embedder=embedder) as opened:
        opened.start()
        yield opened


@pytest.fixture(scope="module")
def app(hub: Hub) -> FastAPI:
    return create_app(hub, max_upload_bytes=2_000_000)


@pytest.fixture(scope="module")
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as opened:
        yield opened


@pytest.fixture(scope="module")
def fixtures_workspace(client: TestClient, hub: Hub) -> str:
    with hub.corpus(API_WORKSPACE) as corpus:
        corpus.delete()
    files = [("files", (name, (FIXTURES / name).read_bytes())) for name in UPLOADS]
    response = client.post(
        f"/v1/workspaces/{API_WORKSPACE}/documents", files=files, data={"doc_type": "lease", "create": "true"}
    )
    assert response.status_code == 200, response.text
    assert [f["status"] for f in response.json()["files"]] == ["ingested", "ingested"], response.text
    return API_WORKSPACE
