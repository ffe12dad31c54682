"""Keeping each workspace's lexical index in step with PostgreSQL, the one source of truth.

Every document transaction writes an outbox row (``lexical_outbox``: ``upsert`` or ``delete`` of one document) in
the same transaction as the document, numbered in commit order. :meth:`Lexicon.sync` applies the rows past the
index's recorded position: for each document named, its old entries go and its current rows (if it still exists) are
read back from PostgreSQL and added; then the index commits and records the new position. A crash anywhere leaves
either the old position (the rows are applied again: applying is idempotent) or the new one. An index that is
missing, of another format, or of an older workspace of the same name is rebuilt from PostgreSQL whole, and so is
one in which the entries deleted since it was last built whole pass :data:`STALE_SHARE` of its live ones (the
engine's statistics still count them). Searches call :meth:`sync` first, so a search sees every committed document,
whichever process stored it.
"""

from __future__ import annotations

import fcntl
import functools
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from kruschnexus.lexical.analysis import entity_names, file_stem, file_words, legal_ids, line_markers, title_of
from kruschnexus.lexical.index import DocEntry, IndexState, SpanEntry
from kruschnexus.lexical.tantivy_index import TantivyIndex, remove_index
from kruschnexus.store.postgres import PgStore
from kruschnexus.store.records import LexicalDocumentRow, LexicalSpanRow

#: How much of a document's beginning the document index reads: pages (units) and characters.
FRONT_PAGES = 40
FRONT_CHARS = 6000
#: Span entries added to the index in one call while it is synced (progress is told after each such batch).
_BATCH = 2000
#: Told the spans indexed so far and the total while an index is rebuilt.
Progress = Callable[[int, int], None]
#: When the span entries deleted since the index was built whole pass this share of its live ones, the next sync
#: builds it whole again: the engine counts deleted entries in its statistics until their segments merge, so a
#: workspace whose documents were read again would otherwise rank by the words of their old versions (re-reading
#: 27 of 47 documents once moved 3 of 126 dev questions out of the top five).
STALE_SHARE = 0.1


@dataclass(frozen=True)
class SyncReport:
    """What one :meth:`Lexicon.sync` did: ``rebuilt`` the whole index, or applied ``documents`` changes."""

    rebuilt: bool = False
    documents: int = 0
    spans: int = 0


class Lexicon:
    """The lexical indexes of every workspace under ``root`` (``NEXUS_HOME/lexical``), one open index each."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._indexes: dict[str, TantivyIndex] = {}
        self._lock = threading.Lock()

    def index(self, workspace: str) -> TantivyIndex:
        """The open index of ``workspace`` (created empty when missing; :meth:`sync` fills it)."""
        with self._lock:
            if workspace not in self._indexes:
                self._indexes[workspace] = TantivyIndex(self.root / workspace)
            return self._indexes[workspace]

    def opened(self, workspace: str) -> TantivyIndex | None:
        """The index of ``workspace`` if this process has opened it already (never creates one), as it stands: it
        may be behind the workspace's outbox until :meth:`sync`."""
        with self._lock:
            return self._indexes.get(workspace)

    def sync(
        self, store: PgStore, workspace: str, rebuild: bool = False, progress: Progress | None = None
    ) -> SyncReport:
        """Apply the workspace's outbox past the index's position (or rebuild it whole); a rebuild tells
        ``progress`` the spans indexed so far and the total after each batch."""
        head = store.outbox_head(workspace)
        if head is None:
            return SyncReport()
        generation, last = head
        state = self.index(workspace).state
        if not rebuild and state is not None and state.generation == generation and state.applied >= last:
            return SyncReport()
        with self._lock, self._file_lock(workspace):
            index = self._indexes.get(workspace) or TantivyIndex(self.root / workspace)
            self._indexes[workspace] = index
            state = index.state
            try:
                if rebuild or state is None or state.generation != generation:
                    return self._rebuild(store, workspace, index, generation, progress)
                return self._apply(store, workspace, index, state)
            finally:
                index.close()

    def drop(self, workspace: str) -> None:
        """Forget a deleted workspace's index (its folder is removed)."""
        with self._lock, self._file_lock(workspace):
            index = self._indexes.pop(workspace, None)
            if index is not None:
                index.close()
            remove_index(self.root / workspace)

    def close(self) -> None:
        """Release every open index."""
        with self._lock:
            for index in self._indexes.values():
                index.close()
            self._indexes.clear()

    @contextmanager
    def _file_lock(self, workspace: str) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / f"{workspace}.lock").open("a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _rebuild(
        self, store: PgStore, workspace: str, index: TantivyIndex, generation: str, progress: Progress | None
    ) -> SyncReport:
        head = store.outbox_head(workspace)
        last = 0 if head is None else head[1]
        index.discard_other_formats()
        index.clear()
        docs = _doc_entries(store.lexical_documents(workspace, None, FRONT_PAGES, FRONT_CHARS))
        tick = None
        if progress is not None:
            total = store.counts(workspace)[2]
            progress(0, total)
            tick = functools.partial(_tick, progress, total)
        spans = _add(index, [], store.lexical_spans(workspace, None), docs, tick)
        index.commit(IndexState(generation, last))
        return SyncReport(rebuilt=True, documents=len(docs), spans=spans)

    def _apply(self, store: PgStore, workspace: str, index: TantivyIndex, state: IndexState) -> SyncReport:
        changes = store.outbox_after(workspace, state.applied)
        if not changes:
            return SyncReport()
        doc_ids = list(dict.fromkeys(doc_id for _, doc_id, _ in changes))
        deleted = state.deleted + index.span_count(doc_ids)
        if deleted > STALE_SHARE * index.span_count():
            return self._rebuild(store, workspace, index, state.generation, None)
        docs = _doc_entries(store.lexical_documents(workspace, doc_ids, FRONT_PAGES, FRONT_CHARS))
        spans = _add(index, doc_ids, store.lexical_spans(workspace, doc_ids), docs)
        index.commit(IndexState(state.generation, max(seq for seq, _, _ in changes), deleted))
        return SyncReport(documents=len(doc_ids), spans=spans)


def _add(
    index: TantivyIndex,
    removed: Sequence[str],
    rows: Iterable[LexicalSpanRow],
    docs: dict[str, DocEntry],
    tick: Callable[[int], None] | None = None,
) -> int:
    """Index ``rows`` (and ``docs``) in place of the spans of ``removed``; ``tick`` hears the count after each
    batch."""
    titles = {doc_id: title_of(d.front) for doc_id, d in docs.items()}
    added = index.replace(removed, [], docs.values())
    batch: list[SpanEntry] = []
    for row in rows:
        batch.append(span_entry(row, titles.get(row.doc_id, "")))
        if len(batch) >= _BATCH:
            added += index.replace([], batch, [])
            batch = []
            if tick is not None:
                tick(added)
    added += index.replace([], batch, [])
    if tick is not None:
        tick(added)
    return added


def _tick(progress: Progress, total: int, done: int) -> None:
    progress(done, total)


def _doc_entries(rows: list[LexicalDocumentRow]) -> dict[str, DocEntry]:
    out = {}
    for row in rows:
        front = row.front or ""
        name = " \n".join(part for part in (title_of(front), file_words(row.source), *entity_names(front)) if part)
        out[row.doc_id] = DocEntry(row.doc_id, name, front, file_stem(row.source))
    return out


def span_entry(row: LexicalSpanRow, title: str) -> SpanEntry:
    """A stored span as the index holds it (context: title, headings below the page, section id)."""
    section = row.section
    path = tuple(row.section_path or ())
    headings = [h for h in list(row.heading_path or ())[1:] if h]
    context = " \n".join(part for part in (title, *headings, section or "") if part)
    keys = tuple(dict.fromkeys([*path, *([section] if section else [])]))
    return SpanEntry(
        doc_id=row.doc_id,
        page_number=row.page_number,
        ordinal=row.ordinal,
        text=row.text,
        context=context,
        ids=tuple(dict.fromkeys([*legal_ids(f"{row.text} {section or ''}"), *line_markers(row.text)])),
        section_keys=keys,
        doc_type=row.doc_type,
        paged=row.paged,
    )
