"""The REST API in process (Starlette's TestClient over the real app, database and model)."""

from __future__ import annotations

import hashlib
import io
import json
import re
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from openapi_spec_validator import validate
from PIL import Image

import kruschnexus
from kruschnexus.errors import QueryError
from kruschnexus.hub import Hub
from kruschnexus.schema.v1 import SCHEMA_VERSION
from tests.conftest import FIXTURES

pytestmark = pytest.mark.integration

HIT_SCHEMA = json.loads((Path(kruschnexus.__file__).parent / "schema" / "hit.v1.json").read_text(encoding="utf-8"))
PROBLEM = "application/problem+json"
STORY = "commercial office space Section 8.22"


def search(client: TestClient, workspace: str, q: str, k: int = 5) -> Any:
    response = client.get(f"/v1/workspaces/{workspace}/search", params={"q": q, "k": k})
    assert response.status_code == 200, response.text
    return response.json()


def test_openapi_document_is_valid(client: TestClient) -> None:
    document = client.get("/v1/openapi.json").json()
    validate(document)
    paths = set(document["paths"])
    assert "/v1/workspaces/{workspace}/search" in paths
    assert "/v1/workspaces/{workspace}/documents/{doc_id}/pages/{page_number}/image" in paths


def test_search_hits_are_the_sdk_hits(client: TestClient, hub: Hub, fixtures_workspace: str) -> None:
    body = search(client, fixtures_workspace, STORY)
    with hub.corpus(fixtures_workspace) as corpus:
        expected = [h.model_dump(mode="json") for h in corpus.search(STORY)]
    assert body["hits"] == expected and expected
    assert body["abstain"] is None and body["schema_version"] == SCHEMA_VERSION
    for hit in body["hits"]:
        jsonschema.validate(hit, HIT_SCHEMA)
    assert body["hits"][0]["section"] == "8.22" or body["hits"][0]["section"].startswith("8.22")


def test_abstain_says_why(client: TestClient, fixtures_workspace: str) -> None:
    body = search(client, fixtures_workspace, "recipe for banana bread with walnuts")
    assert body["hits"] == []
    assert body["abstain"]["reason"] and body["abstain"]["floor"] > 0


def test_errors_are_problems_with_the_cli_message(client: TestClient, hub: Hub, fixtures_workspace: str) -> None:
    bad = client.get(f"/v1/workspaces/{fixtures_workspace}/search", params={"q": '"office space'})
    assert bad.status_code == 400 and bad.headers["content-type"] == PROBLEM
    problem = bad.json()
    with hub.corpus(fixtures_workspace) as corpus, pytest.raises(QueryError) as raised:
        corpus.search('"office space')
    assert problem["status"] == 400 and problem["detail"] == str(raised.value) and problem["offset"] == 0
    missing = client.get("/v1/workspaces/no-such-workspace-here/search", params={"q": "rent"})
    assert missing.status_code == 404 and missing.headers["content-type"] == PROBLEM
    assert missing.json()["detail"] == "workspace 'no-such-workspace-here' does not exist: ingest into it first"
    invalid = client.get("/v1/workspaces/Bad%20Name/search", params={"q": "rent"})
    assert invalid.status_code == 422 and invalid.headers["content-type"] == PROBLEM
    assert "workspace" in invalid.json()["detail"]


def test_page_text_holds_every_hit(client: TestClient, fixtures_workspace: str) -> None:
    for query in (STORY, "monthly rent for suite 300"):
        for hit in search(client, fixtures_workspace, query)["hits"]:
            base = f"/v1/workspaces/{fixtures_workspace}/documents/{hit['doc_id']}"
            if hit["page_number"] is not None:
                page = client.get(f"{base}/pages/{hit['page_number']}").json()
            else:
                page = client.get(f"{base}/units", params={"locator": json.dumps(hit["locator"])}).json()
                assert page["locator"] == hit["locator"]
            assert page["text"][hit["char_start"] : hit["char_end"]] == hit["text"], hit["citation"]


def test_page_image_draws_the_span_boxes(client: TestClient, fixtures_workspace: str) -> None:
    hit = search(client, fixtures_workspace, STORY)["hits"][0]
    url = f"/v1/workspaces/{fixtures_workspace}/documents/{hit['doc_id']}/pages/{hit['page_number']}/image"
    plain = client.get(url, params={"dpi": 72})
    drawn = client.get(url, params={"dpi": 72, "hit": f"{hit['char_start']}-{hit['char_end']}"})
    assert plain.headers["content-type"] == drawn.headers["content-type"] == "image/png"
    page = client.get(url.removesuffix("/image")).json()
    before, after = Image.open(io.BytesIO(plain.content)), Image.open(io.BytesIO(drawn.content))
    assert before.size == after.size == (round(page["width"]), round(page["height"]))
    x, y, w, h = hit["bbox"]
    inside = (int(x + w / 2), int(y + h / 2))
    outside = (int(x + w / 2), min(int(y + h + 30), before.size[1] - 1))
    assert before.convert("RGB").getpixel(inside) != after.convert("RGB").getpixel(inside)
    assert before.convert("RGB").getpixel(outside) == after.convert("RGB").getpixel(outside)
    bad = client.get(url, params={"boxes": "1,2,3"})
    assert bad.status_code == 400 and "x,y,w,h" in bad.json()["detail"]
    unknown = client.get(url, params={"hit": "0-1"})
    assert unknown.status_code == 404


def test_unpaged_units_have_text_but_no_image(client: TestClient, fixtures_workspace: str) -> None:
    docs = client.get(f"/v1/workspaces/{fixtures_workspace}/documents").json()
    csv = next(d for d in docs if d["kind"] == "csv")
    base = f"/v1/workspaces/{fixtures_workspace}/documents/{csv['doc_id']}"
    assert client.get(f"{base}/pages/1").json()["locator"] == {"kind": "row", "row": 1}
    image = client.get(f"{base}/pages/1/image")
    assert image.status_code == 404 and "not a PDF" in image.json()["detail"]


def test_export_streams_every_span(client: TestClient, hub: Hub, fixtures_workspace: str) -> None:
    response = client.get(f"/v1/workspaces/{fixtures_workspace}/export")
    assert response.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in response.text.splitlines()]
    with hub.corpus(fixtures_workspace) as corpus:
        assert lines == [h.model_dump(mode="json") for h in corpus.export()]
        paged = next(line for line in lines if line["page_number"] is not None)
        found = corpus.span(paged["doc_id"], paged["page_number"], paged["char_start"], paged["char_end"])
        assert found.model_dump(mode="json") == paged, "the span at a hit's offsets is that hit"


def test_original_bytes_come_back_as_an_attachment(client: TestClient, fixtures_workspace: str) -> None:
    docs = client.get(f"/v1/workspaces/{fixtures_workspace}/documents").json()
    pdf = next(d for d in docs if d["kind"] == "pdf")
    response = client.get(f"/v1/workspaces/{fixtures_workspace}/documents/{pdf['doc_id']}/original")
    assert hashlib.sha256(response.content).hexdigest() == pdf["doc_id"]
    assert response.headers["content-type"] == "application/pdf"
    assert response.headers["content-disposition"].startswith("attachment")
    assert response.headers["x-content-type-options"] == "nosniff"


def test_upload_batch_names_bad_files_and_sanitises_names(client: TestClient, workspace: str) -> None:
    files = [
        ("files", ("../../etc/evil name.pdf", (FIXTURES / "sample_contract.pdf").read_bytes())),
        ("files", ("broken.pdf", b"%PDF-1.7\nthis is not a PDF body")),
        ("files", ("notes.xyz", b"plain words")),
    ]
    response = client.post(f"/v1/workspaces/{workspace}/documents", files=files, data={"create": "true"})
    assert response.status_code == 200, response.text
    outcome = {f["file"]: f for f in response.json()["files"]}
    assert outcome["evil name.pdf"]["status"] == "ingested"
    assert outcome["broken.pdf"]["status"] == "failed" and "not a readable PDF" in outcome["broken.pdf"]["reason"]
    assert outcome["notes.xyz"]["status"] == "failed" and outcome["notes.xyz"]["reason"]
    assert "upload-" not in response.text, "a server-side temporary path leaked into the response"
    docs = client.get(f"/v1/workspaces/{workspace}/documents").json()
    assert [d["source"] for d in docs] == ["evil name.pdf"]


def test_a_file_over_the_limit_fails_alone_and_a_request_over_the_batch_limit_is_413(
    client: TestClient, workspace: str
) -> None:
    big = b"%PDF-1.7\n" + b"0" * 2_100_000  # the test app's per-file limit is 2,000,000 bytes
    small = (FIXTURES / "office_rent_roll.csv").read_bytes()
    files = [("files", ("big.pdf", big)), ("files", ("rent_roll.csv", small))]
    response = client.post(f"/v1/workspaces/{workspace}/documents", files=files, data={"create": "true"})
    assert response.status_code == 200, response.text
    big_out, small_out = response.json()["files"]
    assert (big_out["file"], big_out["status"]) == ("big.pdf", "failed")
    assert "larger than the limit of 2000000 bytes" in big_out["reason"]
    assert (small_out["file"], small_out["status"]) == ("rent_roll.csv", "ingested"), small_out
    docs = client.get(f"/v1/workspaces/{workspace}/documents").json()
    assert [d["source"] for d in docs] == ["rent_roll.csv"]
    huge = b"0" * (4 * 2_000_000 + (2 << 20))
    refused = client.post(f"/v1/workspaces/{workspace}/documents", files=[("files", ("huge.pdf", huge))])
    assert refused.status_code == 413 and refused.headers["content-type"] == PROBLEM
    assert "larger than the limit" in refused.json()["detail"]
    assert [d["source"] for d in client.get(f"/v1/workspaces/{workspace}/documents").json()] == ["rent_roll.csv"]


def test_an_upload_to_a_missing_workspace_is_404_unless_asked_to_create(client: TestClient, workspace: str) -> None:
    files = [("files", ("ficus.txt", b"The tenant shall water the ficus every Tuesday."))]
    missing = client.post(f"/v1/workspaces/{workspace}/documents", files=files)
    assert missing.status_code == 404 and missing.headers["content-type"] == PROBLEM
    assert "does not exist" in missing.json()["detail"] and "create=true" in missing.json()["detail"]
    assert workspace not in [w["name"] for w in client.get("/v1/workspaces").json()], "a misspelt name was created"
    too_big = [("files", ("big.pdf", b"%PDF-1.7\n" + b"0" * 2_100_000))]
    failed = client.post(f"/v1/workspaces/{workspace}/documents", files=too_big, data={"create": "true"})
    assert failed.status_code == 200 and failed.json()["files"][0]["status"] == "failed"
    assert workspace in [w["name"] for w in client.get("/v1/workspaces").json()], "create=true creates it anyway"
    created = client.post(f"/v1/workspaces/{workspace}/documents", files=files)
    assert created.status_code == 200 and created.json()["files"][0]["status"] == "ingested"


def test_an_upload_that_is_not_a_form_is_415_with_a_hint(client: TestClient, fixtures_workspace: str) -> None:
    sent = client.post(f"/v1/workspaces/{fixtures_workspace}/documents", json={"files": ["lease.pdf"]})
    assert sent.status_code == 415 and sent.headers["content-type"] == PROBLEM
    assert "multipart/form-data" in sent.json()["detail"] and "curl -F files=@" in sent.json()["detail"]


def test_workspace_lifecycle_removes_rows_and_kept_bytes(client: TestClient, app: FastAPI, workspace: str) -> None:
    created = client.post("/v1/workspaces", json={"name": workspace})
    assert created.status_code == 201 and created.json()["documents"] == 0
    again = client.post("/v1/workspaces", json={"name": workspace})
    assert again.status_code == 200 and again.json() == created.json(), "an existing workspace is not created"
    assert workspace in [w["name"] for w in client.get("/v1/workspaces").json()]
    text = f"Unique clause {workspace}: the tenant shall water the ficus every Tuesday.\n".encode()
    upload = client.post(f"/v1/workspaces/{workspace}/documents", files=[("files", ("ficus.txt", text))])
    doc_id = upload.json()["files"][0]["doc_id"]
    settings = app.state.hub.settings
    kept = settings.blob_dir / doc_id[:2] / doc_id
    assert kept.is_file()
    assert client.get(f"/v1/workspaces/{workspace}/documents/{doc_id}").json()["source"] == "ficus.txt"
    assert client.delete(f"/v1/workspaces/{workspace}/documents/{doc_id}").status_code == 204
    assert not kept.is_file()
    assert client.get(f"/v1/workspaces/{workspace}/documents/{doc_id}").status_code == 404
    assert client.delete(f"/v1/workspaces/{workspace}").status_code == 204
    assert client.delete(f"/v1/workspaces/{workspace}").status_code == 404
    assert client.get(f"/v1/workspaces/{workspace}/search", params={"q": "ficus"}).status_code == 404


def test_health_is_the_doctor_report(client: TestClient) -> None:
    response = client.get("/v1/health")
    body = response.json()
    assert response.status_code == (200 if body["healthy"] else 503)
    assert {c["name"] for c in body["checks"]} >= {"database", "model"}


def test_web_page_is_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert 'src="/static/app.js"' in page.text
    assert client.get("/static/app.js").status_code == 200


def test_nul_characters_are_clean_errors(client: TestClient, fixtures_workspace: str) -> None:
    base = f"/v1/workspaces/{fixtures_workspace}"
    assert client.get(f"{base}/search", params={"q": "rent\x00"}).status_code == 400
    doc = client.get(f"{base}/documents").json()[0]["doc_id"]
    for locator in ('{"kind": "row\\u0000"}', '{"kind": "row\x00"}'):
        response = client.get(f"{base}/documents/{doc}/units", params={"locator": locator})
        assert response.status_code == 400 and "NUL" in response.json()["detail"]


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_api_docs_load_every_asset_from_the_server_itself(client: TestClient, path: str) -> None:
    page = client.get(path)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    urls = re.findall(r"""(?:src|href|url)\s*[=:(]\s*['"]?([^'" )>]+)""", page.text)
    assets = [u for u in urls if u.endswith((".js", ".css", ".png"))]
    assert assets, page.text
    assert not [u for u in urls if u.startswith(("http://", "https://", "//"))], "an asset is loaded from elsewhere"
    for url in assets:
        response = client.get(url)
        assert response.status_code == 200 and len(response.content) > 1000, url
    assert "/v1/openapi.json" in page.text


def test_the_web_page_links_the_api_docs(client: TestClient) -> None:
    html = client.get("/").text
    assert 'href="/docs"' in html and 'href="/redoc"' in html


def test_uploads_borrow_a_warm_reader_and_never_share_one(client: TestClient, app: FastAPI, workspace: str) -> None:
    readers = app.state.hub.readers
    readers.warm()
    seen = []
    for n in range(2):
        [warm] = readers.idle
        assert warm.pid is not None, "a reader is started before the upload comes"
        seen.append(warm.pid)
        text = f"Upload {n} of {workspace}: the tenant shall water the ficus.\n".encode()
        files = [("files", (f"note{n}.txt", text))]
        reply = client.post(f"/v1/workspaces/{workspace}/documents", files=files, data={"create": "true"})
        assert reply.status_code == 200 and reply.json()["files"][0]["status"] == "ingested", reply.text
        assert warm.pid is None and warm.started == 1, "the upload used the warm reader, which is then stopped"
    [fresh] = readers.idle
    assert fresh.pid is not None and len({*seen, fresh.pid}) == 3, "each upload gets a reader of its own"
