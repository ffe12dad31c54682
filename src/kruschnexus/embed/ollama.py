"""Embeddings from an Ollama server (``POST /api/embed``)."""

from __future__ import annotations

from collections.abc import Sequence

import httpx
import numpy as np

from kruschnexus.embed.base import Embedder, Vectors
from kruschnexus.errors import EmbedError


class OllamaEmbedder(Embedder):
    """``NEXUS_EMBEDDER=ollama:<model>``: ``{"model", "input": [...]}`` -> ``{"embeddings": [[...]]}``.

    The dimension is read from the server's first answer.
    """

    def __init__(self, model: str, base_url: str, batch_size: int = 32, timeout: float = 120.0) -> None:
        if not model:
            raise EmbedError("NEXUS_EMBEDDER=ollama:<model> needs a model name, e.g. ollama:nomic-embed-text")
        self.model = model
        self.model_id = f"ollama:{model}"
        self.batch_size = batch_size
        self._client = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout)
        self.dim = int(self._request(["dimension probe"]).shape[1])

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        """One request per batch."""
        return self._request(list(texts))

    def _request(self, texts: list[str]) -> Vectors:
        try:
            response = self._client.post("/api/embed", json={"model": self.model, "input": texts})
            response.raise_for_status()
            payload = response.json()
        except httpx.HTTPStatusError as exc:
            raise EmbedError(
                f"{self.model_id}: Ollama answered {exc.response.status_code}: {exc.response.text[:200]}"
            ) from exc
        except (httpx.HTTPError, ValueError) as exc:
            raise EmbedError(f"{self.model_id}: cannot reach Ollama at {self._client.base_url} ({exc})") from exc
        vectors = payload.get("embeddings") if isinstance(payload, dict) else None
        if not isinstance(vectors, list) or len(vectors) != len(texts):
            raise EmbedError(f"{self.model_id}: malformed answer from Ollama (no 'embeddings' list of {len(texts)})")
        try:
            return np.asarray(vectors, dtype=np.float32)
        except ValueError as exc:
            raise EmbedError(f"{self.model_id}: malformed vectors from Ollama ({exc})") from exc
