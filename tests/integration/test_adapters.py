"""The LangChain and LlamaIndex adapters against the real packages, database and model."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda
from llama_index.core.schema import MetadataMode, TextNode

from kruschnexus import Corpus
from kruschnexus.adapters.langchain import NexusRetriever
from kruschnexus.adapters.llamaindex import NexusLlamaRetriever
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.errors import QueryError
from kruschnexus.schema.v1 import Hit
from tests.conftest import FIXTURES, ROOT

pytestmark = pytest.mark.integration

QUERY = "commercial office space Section 8.22"
SEVERAL = "rent payment"  # several spans on pages 1 and 4: checks the order, not just one hit
OFF_TOPIC = "recipe for banana bread"
MALFORMED = '"office'
HIT_SCHEMA = json.loads((ROOT / "src" / "kruschnexus" / "schema" / "hit.v1.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def lease(settings: Settings, embedder: Embedder) -> Iterator[Corpus]:
    with Corpus(workspace="adapters-fixtures", settings=settings, embedder=embedder) as corpus:
        corpus.store.delete_workspace(corpus.workspace)
        corpus.ingest([FIXTURES / "sample_contract.pdf"], doc_type="lease")
        yield corpus


@pytest.fixture(scope="module")
def hits(lease: Corpus) -> list[Hit]:
    found = lease.search(QUERY, k=5)
    assert found and found[0].section == "8.22", [h.citation for h in found]
    return found


def _check_v1(metadata: dict[str, Any], hit: Hit) -> None:
    assert metadata == hit.model_dump(mode="json")
    jsonschema.validate(metadata, HIT_SCHEMA)
    assert Hit.model_validate(metadata) == hit


@pytest.mark.parametrize("query", [QUERY, SEVERAL])
def test_langchain_documents_are_the_hits(lease: Corpus, query: str) -> None:
    hits = lease.search(query, k=5)
    assert hits
    docs = NexusRetriever(corpus=lease, k=5).invoke(query)
    assert len(docs) == len(hits)
    for doc, hit in zip(docs, hits, strict=True):
        assert doc.page_content == hit.text
        _check_v1(doc.metadata, hit)
        assert doc.id == f"{hit.doc_id}:{hit.page_number}:{hit.char_start}-{hit.char_end}"
    assert len({doc.id for doc in docs}) == len(docs)


@pytest.mark.parametrize("query", [QUERY, SEVERAL])
def test_llamaindex_nodes_are_the_hits(lease: Corpus, query: str) -> None:
    hits = lease.search(query, k=5)
    assert hits
    nodes = NexusLlamaRetriever(lease, k=5).retrieve(query)
    assert len(nodes) == len(hits)
    for scored, hit in zip(nodes, hits, strict=True):
        node = scored.node
        assert isinstance(node, TextNode)
        assert node.text == hit.text
        assert scored.score == hit.score
        _check_v1(node.metadata, hit)
        assert node.id_ == f"{hit.doc_id}:{hit.page_number}:{hit.char_start}-{hit.char_end}"
        # The LLM sees the citation above the span, the embedder the span alone; metadata keeps every key.
        assert node.get_content(MetadataMode.LLM) == f"citation: {hit.citation}\n\n{hit.text}"
        assert node.get_content(MetadataMode.EMBED) == hit.text
        assert sorted(node.metadata) == sorted(HIT_SCHEMA["properties"])
    assert len({n.node.id_ for n in nodes}) == len(nodes)  # LlamaIndex drops repeated node ids


def test_both_adapters_give_the_same_ids_and_honour_k(lease: Corpus) -> None:
    docs = NexusRetriever(corpus=lease, k=3).invoke(SEVERAL)
    nodes = NexusLlamaRetriever(lease, k=3).retrieve(SEVERAL)
    assert len(docs) == 3
    assert [d.id for d in docs] == [n.node.id_ for n in nodes]


def test_async_paths_match_the_sync_ones(lease: Corpus, hits: list[Hit]) -> None:
    async def both() -> tuple[list[Any], list[Any]]:
        docs = await NexusRetriever(corpus=lease).ainvoke(QUERY)
        nodes = await NexusLlamaRetriever(lease).aretrieve(QUERY)
        return docs, nodes

    docs, nodes = asyncio.run(both())
    assert [d.metadata for d in docs] == [h.model_dump(mode="json") for h in hits]
    assert [n.node.metadata for n in nodes] == [h.model_dump(mode="json") for h in hits]


def test_abstaining_search_returns_nothing(lease: Corpus) -> None:
    assert lease.search(OFF_TOPIC) == []
    assert NexusRetriever(corpus=lease).invoke(OFF_TOPIC) == []
    assert NexusLlamaRetriever(lease).retrieve(OFF_TOPIC) == []


def test_malformed_query_raises_query_error(lease: Corpus) -> None:
    with pytest.raises(QueryError, match="position"):
        NexusRetriever(corpus=lease).invoke(MALFORMED)
    with pytest.raises(QueryError, match="position"):
        NexusLlamaRetriever(lease).retrieve(MALFORMED)


def test_langchain_retriever_composes_in_lcel(lease: Corpus, hits: list[Hit]) -> None:
    def citations(docs: list[Document]) -> list[str]:
        return [str(d.metadata["citation"]) for d in docs]

    chain = NexusRetriever(corpus=lease) | RunnableLambda(citations)
    assert chain.invoke(QUERY) == [h.citation for h in hits]
    assert all("sample_contract.pdf p.1" in c for c in chain.invoke(QUERY))


@pytest.mark.parametrize(
    ("module", "blocked", "extra"),
    [
        ("kruschnexus.adapters.langchain", "langchain_core", "kruschnexus[langchain]"),
        ("kruschnexus.adapters.llamaindex", "llama_index", "kruschnexus[llamaindex]"),
    ],
)
def test_missing_extra_is_a_config_error(module: str, blocked: str, extra: str, tmp_path: Path) -> None:
    # A fresh interpreter where the framework cannot be imported (None in sys.modules is how Python spells
    # "not installed"); the adapter must translate the ImportError into ConfigError naming the extra.
    script = (
        "import sys, importlib\n"
        f"sys.modules[{blocked!r}] = None\n"
        "from kruschnexus.errors import ConfigError\n"
        "try:\n"
        f"    importlib.import_module({module!r})\n"
        "except ConfigError as exc:\n"
        "    assert isinstance(exc.__cause__, ImportError), exc.__cause__\n"
        "    print(exc)\n"
        "else:\n"
        "    raise SystemExit('imported without the extra')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    assert f"pip install '{extra}'" in done.stdout
