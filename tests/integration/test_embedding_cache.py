"""The embedding cache shared between workspaces (``NEXUS_EMBED_CACHE``, off by default): a document ingested into a
second workspace keeps the vectors the first one embedded, and a deleted document's vectors leave the cache. Against
the real database and model; the model's calls are counted, not replaced."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Sequence

import pytest

from kruschnexus import Corpus
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder, Vectors
from tests.conftest import FIXTURES

pytestmark = pytest.mark.integration

CONTRACT = FIXTURES / "sample_contract.pdf"


def counted(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The texts the real model embeds, call by call."""
    calls: list[int] = []
    real = embedder.embed_batch

    def embed_batch(texts: Sequence[str]) -> Vectors:
        calls.append(len(texts))
        return real(texts)

    monkeypatch.setattr(embedder, "embed_batch", embed_batch)
    return calls


def cached_keys(corpus: Corpus) -> int:
    with corpus.store.scoped(corpus.workspace) as conn:
        row = conn.execute("SELECT count(*) AS n FROM embedding_cache").fetchone()
    assert row is not None
    return int(row["n"])


def test_a_second_workspace_keeps_the_vectors_the_first_embedded(
    settings: Settings, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = dataclasses.replace(settings, embed_cache=True)
    first, second = f"cache-a-{uuid.uuid4().hex[:8]}", f"cache-b-{uuid.uuid4().hex[:8]}"
    with Corpus(workspace=first, settings=shared, embedder=embedder) as a:
        [stored] = a.ingest([CONTRACT])
        assert stored.status == "ingested" and stored.reused == 0
        keys = cached_keys(a)
        assert keys > 0
        hits_a = [(h.text, h.score) for h in a.search("security deposit returned")]
    calls = counted(embedder, monkeypatch)
    with Corpus(workspace=second, settings=shared, embedder=embedder) as b:
        [again] = b.ingest([CONTRACT])
        assert again.status == "ingested" and again.reused == again.spans == stored.spans
        embedded_at_ingest = sum(calls)
        assert [(h.text, h.score) for h in b.search("security deposit returned")] == hits_a
        assert b.verify().ok
    assert embedded_at_ingest == 0, "no text of the document was embedded again"
    with Corpus(workspace=first, settings=shared, embedder=embedder) as a:
        [doc] = [d.doc_id for d in a.documents()]
        a.delete_document(doc)
        assert cached_keys(a) == 0, "a deleted document's vectors leave the cache"
        a.delete()
    with Corpus(workspace=second, settings=shared, embedder=embedder) as b:
        assert b.search("security deposit returned"), "the second workspace keeps its own vectors"
        b.delete()


def test_without_the_cache_a_second_workspace_embeds_its_own(
    settings: Settings, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = f"nocache-a-{uuid.uuid4().hex[:8]}", f"nocache-b-{uuid.uuid4().hex[:8]}"
    with Corpus(workspace=first, settings=settings, embedder=embedder) as a:
        a.ingest([CONTRACT])
        assert cached_keys(a) == 0, "off by default: nothing is shared"
    calls = counted(embedder, monkeypatch)
    with Corpus(workspace=second, settings=settings, embedder=embedder) as b:
        [again] = b.ingest([CONTRACT])
        assert again.reused == 0 and sum(calls) == again.spans
        b.delete()
    with Corpus(workspace=first, settings=settings, embedder=embedder) as a:
        a.delete()
