"""The lexical (BM25) leg: an index derived from PostgreSQL, never primary.

- :mod:`.analysis`: legal ids kept whole (``8.22.030(C)``, ``12(b)(6)``, ``INV-2002``) and document names;
- :mod:`.index`: the records indexed and searched, and the small :class:`LexicalIndex` interface an engine
  implements;
- :mod:`.tantivy_index`: the default engine (Tantivy, Okapi BM25), one index per workspace under
  ``NEXUS_HOME/lexical``;
- :mod:`.sync`: applies the outbox each document transaction writes, catches up at start, rebuilds on demand.
"""

from kruschnexus.lexical.index import DocEntry, DocHit, LexicalHit, LexicalIndex, LexicalQuery, SpanEntry
from kruschnexus.lexical.sync import Lexicon

__all__ = ["DocEntry", "DocHit", "LexicalHit", "LexicalIndex", "LexicalQuery", "Lexicon", "SpanEntry"]
