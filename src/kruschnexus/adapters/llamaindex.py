"""LlamaIndex retriever over a :class:`~kruschnexus.corpus.Corpus` (extra: ``kruschnexus[llamaindex]``).

Example:
    >>> from kruschnexus import Corpus
    >>> from kruschnexus.adapters.llamaindex import NexusLlamaRetriever
    >>> retriever = NexusLlamaRetriever(Corpus(workspace="demo"), k=5)  # doctest: +SKIP
    >>> [n.node.metadata["citation"] for n in retriever.retrieve("permitted use Section 8.22")]  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
from typing import Any

from kruschnexus.corpus import Corpus
from kruschnexus.errors import ConfigError
from kruschnexus.schema.v1 import Hit
from kruschnexus.wire import hit_id

try:
    from llama_index.core.callbacks import CallbackManager
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise ConfigError(
        f"the LlamaIndex adapter needs the 'llamaindex' extra: pip install 'kruschnexus[llamaindex]' ({exc})"
    ) from exc

__all__ = ["LLM_METADATA_KEYS", "NexusLlamaRetriever", "hit_id", "hit_node"]

LLM_METADATA_KEYS = ("citation",)
"""Metadata keys LlamaIndex renders into the text an LLM sees; every other key stays in ``metadata`` only."""


def hit_node(hit: Hit) -> NodeWithScore:
    """A scored ``TextNode`` for one hit: the span as text, the full v1 hit JSON as metadata.

    Metadata keys only steer rendering: an LLM prompt shows the citation above the span, an embedding model
    (if a pipeline re-embeds) sees the span alone; the ``metadata`` dict itself keeps every key.
    """
    metadata: dict[str, Any] = hit.model_dump(mode="json")
    return NodeWithScore(
        node=TextNode(
            id_=hit_id(hit),
            text=hit.text,
            metadata=metadata,
            excluded_llm_metadata_keys=[key for key in metadata if key not in LLM_METADATA_KEYS],
            excluded_embed_metadata_keys=list(metadata),
        ),
        score=hit.score,
    )


class NexusLlamaRetriever(BaseRetriever):
    """A LlamaIndex retriever answering from a KruschNexus workspace, one scored node per cited span.

    Node ``metadata`` is the v1 hit (``citation``, ``page_number``, ``char_start``/``char_end``, ``boxes``, ...);
    ``score`` is the hit's fused score; a search that abstains returns ``[]``; a malformed query raises
    :class:`~kruschnexus.errors.QueryError`.
    """

    def __init__(
        self, corpus: Corpus, k: int = 5, callback_manager: CallbackManager | None = None, verbose: bool = False
    ) -> None:
        """Args:
        corpus: the workspace searched (opened lazily by the corpus; the caller closes it).
        k: how many spans at most (at least 1).
        callback_manager: LlamaIndex callbacks; the global ones when omitted.
        verbose: LlamaIndex's verbose flag.
        """
        if k < 1:
            raise ConfigError(f"k must be at least 1, not {k}")
        self.corpus = corpus
        self.k = k
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """The best spans for the bundle's ``query_str`` (operators allowed), best first."""
        return [hit_node(hit) for hit in self.corpus.search(query_bundle.query_str, k=self.k)]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """:meth:`_retrieve` in a worker thread, so ``aretrieve`` does not block the event loop."""
        return await asyncio.to_thread(self._retrieve, query_bundle)
