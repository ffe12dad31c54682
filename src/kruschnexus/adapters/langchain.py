"""LangChain retriever over a :class:`~kruschnexus.corpus.Corpus` (extra: ``kruschnexus[langchain]``).

Example:
    >>> from kruschnexus import Corpus
    >>> from kruschnexus.adapters.langchain import NexusRetriever
    >>> retriever = NexusRetriever(corpus=Corpus(workspace="demo"), k=5)  # doctest: +SKIP
    >>> [d.metadata["citation"] for d in retriever.invoke("permitted use Section 8.22")]  # doctest: +SKIP
"""

from __future__ import annotations

from kruschnexus.corpus import Corpus
from kruschnexus.errors import ConfigError
from kruschnexus.schema.v1 import Hit
from kruschnexus.wire import hit_id

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from pydantic import ConfigDict, Field
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise ConfigError(
        f"the LangChain adapter needs the 'langchain' extra: pip install 'kruschnexus[langchain]' ({exc})"
    ) from exc

__all__ = ["NexusRetriever", "hit_document", "hit_id"]


def hit_document(hit: Hit) -> Document:
    """A LangChain ``Document`` for one hit: the span as ``page_content``, the full v1 hit JSON as ``metadata``."""
    return Document(page_content=hit.text, metadata=hit.model_dump(mode="json"), id=hit_id(hit))


class NexusRetriever(BaseRetriever):
    """A LangChain retriever answering from a KruschNexus workspace, one ``Document`` per cited span.

    ``metadata`` of each document is the v1 hit (``citation``, ``page_number``, ``char_start``/``char_end``,
    ``boxes``, ``score``, ...); a search that abstains returns ``[]``; a malformed query raises
    :class:`~kruschnexus.errors.QueryError`. The async path (``ainvoke``) is LangChain's default: the sync
    search run in an executor thread.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    corpus: Corpus
    """The workspace searched (opened lazily by the corpus; the caller closes it)."""
    k: int = Field(default=5, ge=1)
    """How many spans at most."""

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        """The best spans for ``query`` (operators allowed) as documents, best first."""
        return [hit_document(hit) for hit in self.corpus.search(query, k=self.k)]
