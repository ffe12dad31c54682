"""Retrievers for third-party RAG frameworks, each behind an optional extra.

* :mod:`kruschnexus.adapters.langchain` -- ``NexusRetriever`` (``pip install 'kruschnexus[langchain]'``)
* :mod:`kruschnexus.adapters.llamaindex` -- ``NexusLlamaRetriever`` (``pip install 'kruschnexus[llamaindex]'``)

Both wrap :meth:`kruschnexus.Corpus.search`; every result carries the full v1 hit JSON as metadata, and a search
that abstains returns ``[]``. Importing an adapter whose extra is missing raises
:class:`kruschnexus.errors.ConfigError` naming the extra. This package imports nothing on its own.
"""
