"""The Ollama embedder against a small HTTP server in the test that speaks ``POST /api/embed``.

Ollama itself cannot run here; the server below answers exactly as its API documents
(``{"model", "input": [...]}`` -> ``{"embeddings": [[...]]}``), with vectors from the hash embedder.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from kruschnexus import Corpus
from kruschnexus.config import Settings
from kruschnexus.embed.fake import HashEmbedder
from kruschnexus.embed.registry import make_embedder
from kruschnexus.errors import ConfigError, EmbedError
from tests.conftest import FIXTURES

pytestmark = pytest.mark.integration

_VECTORS = HashEmbedder(48)


class _OllamaHandler(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict[str, object]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        if self.path != "/api/embed" or body.get("model") != "tiny-embed":
            self._send(404, {"error": f"model {body.get('model')!r} not found, try pulling it first"})
            return
        vectors = _VECTORS.embed_batch(body["input"]).tolist()
        self._send(200, {"model": body["model"], "embeddings": vectors})

    def _send(self, status: int, payload: dict[str, object]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture(scope="module")
def ollama_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _OllamaHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _settings(settings: Settings, ollama_url: str, model: str) -> Settings:
    return Settings.load(
        overrides={
            "home": settings.home,
            "database_url": settings.database_url,
            "embedder": f"ollama:{model}",
            "ollama_url": ollama_url,
        },
        env={},
    )


def test_ingest_with_ollama(settings: Settings, ollama_url: str, workspace: str) -> None:
    cfg = _settings(settings, ollama_url, "tiny-embed")
    embedder = make_embedder(cfg)
    assert (embedder.model_id, embedder.dim) == ("ollama:tiny-embed", 48)
    with Corpus(workspace=workspace, settings=cfg, embedder=embedder) as corpus:
        [result] = corpus.ingest([FIXTURES / "sample_contract.pdf"])
        assert result.status == "ingested" and result.spans > 0
        assert corpus.store.workspace(workspace) == ("ollama:tiny-embed", 48)
    batch = _OllamaHandler.requests[-1]
    assert set(batch) == {"model", "input"} and isinstance(batch["input"], list)


def test_unknown_model_is_a_clear_error(settings: Settings, ollama_url: str) -> None:
    with pytest.raises(EmbedError, match=r"Ollama answered 404.*not found"):
        make_embedder(_settings(settings, ollama_url, "missing-model"))


def test_unreachable_server_is_a_clear_error(settings: Settings) -> None:
    with pytest.raises(EmbedError, match="cannot reach Ollama"):
        make_embedder(_settings(settings, "http://127.0.0.1:9", "tiny-embed"))


def test_unknown_embedder_name(settings: Settings) -> None:
    cfg = Settings.load(overrides={"home": settings.home, "embedder": "nonsense"}, env={})
    with pytest.raises(ConfigError, match="choose one of: local, ollama, hash"):
        make_embedder(cfg)
