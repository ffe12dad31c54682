"""What the store writes and reads, as typed records: nothing crosses out of ``store/`` as an untyped row.

Written records (``*Record``) carry the columns of one ``INSERT`` (their field names are its columns, see
:func:`kruschnexus.store.queries.insert_statement`); read records (``*Row``) are the columns of one ``SELECT``,
in its order, built by psycopg's ``class_row`` (a query and its record that disagree fail on the first row).
:mod:`kruschnexus.wire` turns read records into schema objects; no other module does.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from kruschnexus.model import Locator

#: A stored box: ``[x, y, w, h]`` in PDF points.
Box = list[float]


def columns(record: type) -> tuple[str, ...]:
    """The field names of a record class, in order: the columns it stands for."""
    return tuple(f.name for f in fields(record))


def values(record: object) -> dict[str, Any]:
    """A record's fields as the bound parameters of its statement (shallow: the values are not copied)."""
    return {f.name: getattr(record, f.name) for f in fields(record)}  # type: ignore[arg-type]


# --- written -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    """One stored version of a document (``documents``); ``ingested_at`` ``None``: now."""

    workspace: str
    doc_id: str
    source: str
    doc_type: str | None
    kind: str
    byte_size: int
    page_count: int
    extractor_version: str
    chunker_version: str
    model_id: str
    meta: dict[str, Any]
    name: str
    version: int
    latest: bool
    ingested_at: datetime | None


@dataclass(frozen=True, slots=True)
class PageRecord:
    """One physical page, or one unit of an unpaged format (``locator`` set), with its canonical text."""

    workspace: str
    doc_id: str
    page_number: int
    text: str
    width: float
    height: float
    rotation: int
    label: str | None
    used_ocr: bool
    needs_ocr: bool
    locator: Locator | None


@dataclass(frozen=True, slots=True)
class BlockRecord:
    """One typed block of a page: its kind and offsets into the page's text, its ``[x, y, w, h]`` box."""

    workspace: str
    doc_id: str
    page_number: int
    ordinal: int
    kind: str
    char_start: int
    char_end: int
    bbox: Box


@dataclass(frozen=True, slots=True)
class SpanRecord:
    """One span: its offsets into its page's text, section, boxes and vector (``embedding``, a numpy array),
    stored under ``embed_key`` (the model and the exact text it read); ``line_markers``: the section markers that
    open a line of its text (:func:`~kruschnexus.lexical.analysis.line_markers`)."""

    workspace: str
    doc_id: str
    page_number: int
    ordinal: int
    char_start: int
    char_end: int
    text: str
    section: str | None
    section_path: list[str]
    heading_path: list[str]
    header: str
    boxes: list[Box] | None
    bbox: Box | None
    locator: Locator | None
    used_ocr: bool
    dim: int
    embedding: Any
    embed_key: str | None
    line_markers: list[str]


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """A new API token; ``secret_hash`` is the secret's hash, never the secret."""

    token_id: str
    workspace: str
    secret_hash: bytes
    mode: str
    label: str


# --- read ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoleStandingRow:
    """What the connected role is: superuser, bypassing row security, owner of the tables; whether the scoped role
    exists and full-text matching is LEAKPROOF (so that row security keeps its GIN index usable), and so are the
    functions of a section look-up's indexed conditions (LIKE, a case-insensitive regular expression, array overlap)."""

    role: str
    superuser: bool
    bypass_rls: bool
    scoped_role: bool
    fulltext_leakproof: bool
    lookups_leakproof: bool
    owner: str | None
    database: str


@dataclass(frozen=True, slots=True)
class ProgressRow:
    """Where one backend's long maintenance stands (``SELECT_MAINTENANCE_PROGRESS``): waiting for a lock, a table
    rewrite's phase and counts (``pg_stat_progress_cluster``), an index build's (``pg_stat_progress_create_index``);
    ``None`` where the view has no row for it."""

    waiting: bool | None
    rewrite_phase: str | None
    blocks_done: int | None
    blocks_total: int | None
    indexes_done: int | None
    indexes_total: int | None
    build_phase: str | None
    tuples_done: int | None
    tuples_total: int | None
    build_blocks_done: int | None
    build_blocks_total: int | None


@dataclass(frozen=True, slots=True)
class VectorStorage:
    """Where spans keep their vectors (migration 0011 keeps them in their rows)."""

    #: Size of the ``spans`` table's TOAST data, in bytes: 0 when no value of any span is kept there.
    toast_bytes: int
    #: Spans of documents stored before migration 0011 was applied (their vectors may be in TOAST).
    older: int
    #: Of those, how many were read to tell (at most the sample; 0 when the server cannot tell).
    read: int
    #: Of those read, how many keep their vector in TOAST; ``None`` when the server (before PostgreSQL 17) cannot
    #: tell.
    outside: int | None


@dataclass(frozen=True, slots=True)
class WorkspaceRow:
    """A workspace, its embedding model and how many documents it holds (latest versions)."""

    name: str
    model_id: str
    dim: int
    documents: int


@dataclass(frozen=True, slots=True)
class DocumentRow:
    """A stored document version as listed (``SELECT_DOCUMENTS``, ``SELECT_VERSIONS``, ``SELECT_DOCUMENT_INFO``)."""

    doc_id: str
    source: str
    doc_type: str | None
    kind: str
    byte_size: int
    page_count: int
    extractor_version: str
    meta: dict[str, Any]
    ingested_at: datetime
    name: str
    version: int
    latest: bool


@dataclass(frozen=True, slots=True)
class SpanVectorRow:
    """A span's text and its stored vector (``SELECT_SPAN_VECTORS``)."""

    text: str
    embedding: Any


@dataclass(frozen=True, slots=True)
class StoredRow:
    """How a stored content is known: its name, version, standing and when it was stored."""

    doc_id: str
    source: str
    name: str
    version: int
    latest: bool
    ingested_at: datetime


@dataclass(frozen=True, slots=True)
class ReadVersionsRow:
    """Which versions of the extractor and chunker read a document, and whether a page still lacks text."""

    doc_id: str
    source: str
    doc_type: str | None
    extractor_version: str
    chunker_version: str
    needs_ocr: bool


@dataclass(frozen=True, slots=True)
class PageRow:
    """One stored page (or unit) with its document's source, name, version and kind."""

    doc_id: str
    source: str
    name: str
    version: int
    kind: str
    page_number: int
    text: str
    width: float
    height: float
    rotation: int
    label: str | None
    used_ocr: bool
    needs_ocr: bool
    locator: Locator | None


@dataclass(frozen=True, slots=True)
class PageTextRow:
    """A page's number and text (``SELECT_PAGES``)."""

    page_number: int
    text: str
    needs_ocr: bool
    used_ocr: bool
    locator: Locator | None


@dataclass(frozen=True, slots=True)
class HitRow:
    """A stored span with what a hit shows of its document and page (``queries._HIT_COLUMN_LIST``); ``paged`` is
    false for a unit of an unpaged format, whose ``page_number`` is then only its order."""

    doc_id: str
    source: str
    name: str
    version: int
    doc_type: str | None
    page_number: int
    label: str | None
    paged: bool
    locator: Locator | None
    header: str
    heading_path: list[str]
    section: str | None
    section_path: list[str]
    char_start: int
    char_end: int
    bbox: Box | None
    boxes: list[Box] | None
    text: str
    used_ocr: bool
    ordinal: int

    @property
    def key(self) -> tuple[str, int, int]:
        """``(doc_id, page_number, ordinal)``: the span's identity in its workspace."""
        return (self.doc_id, self.page_number, self.ordinal)


@dataclass(frozen=True, slots=True)
class LegRow(HitRow):
    """A span a retrieval leg found: whether it holds every word of the question (PostgreSQL full text), and its
    cosine to the question (the dense leg's rows only, those of the lexical leg's spans that join them included)."""

    fulltext_match: bool
    cosine: float | None = None
    #: How many spans passed the filter, up to its cap and one more (:func:`~.queries.capped_exact_leg`), or held the
    #: word that found them (:func:`~.queries.word_first_exact_leg`); exact rankings only.
    passing: int | None = None


@dataclass(frozen=True, slots=True)
class SpanTextRow:
    """A span's offsets, text, boxes and locator (``SELECT_DOC_SPANS``), for re-proving them against the page."""

    page_number: int
    ordinal: int
    char_start: int
    char_end: int
    text: str
    boxes: list[Box] | None
    locator: Locator | None


@dataclass(frozen=True, slots=True)
class LexicalSpanRow:
    """What the lexical index holds of a span (latest versions only)."""

    doc_id: str
    page_number: int
    ordinal: int
    text: str
    section: str | None
    section_path: list[str]
    heading_path: list[str]
    source: str
    doc_type: str | None
    paged: bool


@dataclass(frozen=True, slots=True)
class LexicalDocumentRow:
    """What the lexical index holds of a document: its source, type and the text of its first pages."""

    doc_id: str
    source: str
    doc_type: str | None
    front: str | None


@dataclass(frozen=True, slots=True)
class TokenRow:
    """An API token as listed (no hash)."""

    token_id: str
    workspace: str
    mode: str
    label: str
    created_at: datetime
    revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class TokenSecretRow:
    """An API token with its secret's hash, for checking a presented secret."""

    token_id: str
    workspace: str
    secret_hash: bytes
    mode: str
    label: str
    created_at: datetime
    revoked_at: datetime | None
