"""Reads of stored documents, their pages and their spans, for one workspace: what citing, showing a page,
verifying, exporting and re-reading need."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from psycopg.rows import class_row
from psycopg.types.json import Jsonb

from kruschnexus.store import queries as q
from kruschnexus.store.base import StoreBase, all_rows, one_row, read
from kruschnexus.store.records import (
    DocumentRow,
    HitRow,
    PageRow,
    PageTextRow,
    ReadVersionsRow,
    SpanTextRow,
    SpanVectorRow,
    StoredRow,
)


class DocumentReads(StoreBase):
    """Reads of documents, pages and spans (a part of :class:`~kruschnexus.store.postgres.PgStore`)."""

    @read
    def page(self, workspace: str, doc_id: str, page_number: int) -> PageRow | None:
        """One stored page (or unit) with its document's source and kind, or ``None``."""
        params = {"workspace": workspace, "doc_id": doc_id, "page_number": page_number}
        with self.scoped(workspace) as conn:
            return one_row(conn, PageRow, q.SELECT_PAGE, params)

    @read
    def unit(self, workspace: str, doc_id: str, locator: Mapping[str, Any]) -> PageRow | None:
        """The stored unit of an unpaged document at ``locator``, or ``None``."""
        params = {"workspace": workspace, "doc_id": doc_id, "locator": Jsonb(dict(locator))}
        with self.scoped(workspace) as conn:
            return one_row(conn, PageRow, q.SELECT_UNIT, params)

    @read
    def page_spans(self, workspace: str, doc_id: str, page_number: int) -> list[HitRow]:
        """The spans of one page in reading order."""
        params = {"workspace": workspace, "doc_id": doc_id, "page_number": page_number}
        with self.scoped(workspace) as conn:
            return all_rows(conn, HitRow, q.SELECT_PAGE_SPANS, params)

    @read
    def document_source(self, workspace: str, doc_id: str) -> str | None:
        """The stored source name of a document version, or ``None`` if absent."""
        with self.scoped(workspace) as conn:
            row = conn.execute(q.SELECT_DOCUMENT, {"workspace": workspace, "doc_id": doc_id}).fetchone()
        return None if row is None else str(row["source"])

    @read
    def stored(self, workspace: str, doc_id: str) -> StoredRow | None:
        """How a stored content is known (name, version, latest, ingested_at), or ``None``."""
        with self.scoped(workspace) as conn:
            return one_row(conn, StoredRow, q.SELECT_STORED, {"workspace": workspace, "doc_id": doc_id})

    @read
    def versions(self, workspace: str, name: str) -> list[DocumentRow]:
        """Every version of a document name, oldest first."""
        with self.scoped(workspace) as conn:
            return all_rows(conn, DocumentRow, q.SELECT_VERSIONS, {"workspace": workspace, "name": name})

    @read
    def document_names(self, workspace: str, doc_ids: Sequence[str]) -> dict[str, str]:
        """The names of the given stored contents (those that exist), by doc_id."""
        with self.scoped(workspace) as conn:
            rows = conn.execute(q.SELECT_DOCUMENT_NAMES, {"workspace": workspace, "doc_ids": list(doc_ids)})
            return {str(row["doc_id"]): str(row["name"]) for row in rows.fetchall()}

    @read
    def document_hits(self, workspace: str, doc_id: str) -> list[HitRow]:
        """Every span of one stored version in reading order."""
        with self.scoped(workspace) as conn:
            return all_rows(conn, HitRow, q.SELECT_DOCUMENT_HITS, {"workspace": workspace, "doc_id": doc_id})

    @read
    def document_sources(self, workspace: str, doc_ids: Sequence[str]) -> dict[str, str]:
        """The stored source names of the given documents (those that exist), by doc_id."""
        with self.scoped(workspace) as conn:
            rows = conn.execute(q.SELECT_DOCUMENT_SOURCES, {"workspace": workspace, "doc_ids": list(doc_ids)})
            return {str(row["doc_id"]): str(row["source"]) for row in rows.fetchall()}

    @read
    def read_versions(self, workspace: str, doc_id: str | None = None) -> list[ReadVersionsRow]:
        """Each document's (or one's) source, type, extractor and chunker versions, and whether a page still needs
        OCR."""
        with self.scoped(workspace) as conn:
            return all_rows(conn, ReadVersionsRow, q.SELECT_READ_VERSIONS, {"workspace": workspace, "doc_id": doc_id})

    @read
    def span_vectors(self, workspace: str, dim: int, limit: int) -> list[SpanVectorRow]:
        """Up to ``limit`` spans of the latest versions with their vectors of dimension ``dim``, in document order
        (what ``bench/search.py --like`` builds realistic spans from)."""
        with self.scoped(workspace) as conn:
            params = {"workspace": workspace, "dim": dim, "limit": limit}
            return all_rows(conn, SpanVectorRow, q.SELECT_SPAN_VECTORS, params)

    @read
    def document_vectors(self, workspace: str, doc_id: str, dim: int) -> dict[str, Any]:
        """The stored vectors of one document by embedding key."""
        with self.scoped(workspace) as conn:
            rows = conn.execute(q.SELECT_DOCUMENT_VECTORS, {"workspace": workspace, "doc_id": doc_id, "dim": dim})
            return {str(r["embed_key"]): r["embedding"] for r in rows.fetchall()}

    @read
    def documents(self, workspace: str) -> list[DocumentRow]:
        """Documents of a workspace."""
        with self.scoped(workspace) as conn:
            return all_rows(conn, DocumentRow, q.SELECT_DOCUMENTS, {"workspace": workspace})

    @read
    def document(self, workspace: str, doc_id: str) -> DocumentRow | None:
        """One document of a workspace, or ``None``."""
        with self.scoped(workspace) as conn:
            return one_row(conn, DocumentRow, q.SELECT_DOCUMENT_INFO, {"workspace": workspace, "doc_id": doc_id})

    @read
    def pages(self, workspace: str, doc_id: str) -> list[PageTextRow]:
        """Stored pages of a document (number, text, needs_ocr)."""
        with self.scoped(workspace) as conn:
            return all_rows(conn, PageTextRow, q.SELECT_PAGES, {"workspace": workspace, "doc_id": doc_id})

    @read
    def document_spans(self, workspace: str, doc_id: str) -> list[SpanTextRow]:
        """Stored spans of a document (offsets, text, boxes)."""
        with self.scoped(workspace) as conn:
            return all_rows(conn, SpanTextRow, q.SELECT_DOC_SPANS, {"workspace": workspace, "doc_id": doc_id})

    def iter_spans(self, workspace: str) -> Iterator[HitRow]:
        """Every span of a workspace with its document and page fields, streamed."""
        with self.scoped(workspace) as conn, conn.cursor(name="export_spans", row_factory=class_row(HitRow)) as cur:
            cur.itersize = 500
            cur.execute(q.SELECT_SPANS, {"workspace": workspace})
            yield from cur

    @read
    def counts(self, workspace: str) -> tuple[int, int, int]:
        """Documents, pages and spans stored in a workspace."""
        with self.scoped(workspace) as conn:
            row = conn.execute(q.COUNT_WORKSPACE, {"workspace": workspace}).fetchone()
        assert row is not None
        return int(row["documents"]), int(row["pages"]), int(row["spans"])
