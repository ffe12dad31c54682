"""parse -> chunk -> embed -> store, one transaction per document, idempotent by content hash."""

from __future__ import annotations

import hashlib
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from kruschnexus import blobs
from kruschnexus.config import OCR_MODES, OcrMode, Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.errors import (
    ConfigError,
    EmbedError,
    NotFoundError,
    ParseError,
    StoreError,
    StoreUnavailable,
    UnsupportedFormatError,
)
from kruschnexus.extract import EXTRACTOR_VERSION, ReadOptions
from kruschnexus.lexical.analysis import file_words, line_markers, title_of
from kruschnexus.model import Chunk, Page, to_xywh
from kruschnexus.parse.ocr import tesseract_languages, tesseract_version
from kruschnexus.store.postgres import PgStore
from kruschnexus.store.records import BlockRecord, DocumentRecord, PageRecord, ReadVersionsRow, SpanRecord, StoredRow
from kruschnexus.store.writer import DocumentWriter
from kruschnexus.worker import ReaderBugError, ReadLimits, ReadWorker

CHUNKER_VERSION = "sections-13"
#: Spans embedded and inserted per batch (memory stays flat however long the document).
SPAN_BATCH = 64
#: Pages (or units) inserted per batch at most.
PAGE_BATCH = 256
#: Characters of the document's title put before each span's text for the model (MiniLM reads 256 tokens).
EMBED_TITLE_CHARS = 100


class _StoredMeanwhile(Exception):
    """Another writer stored the same document while this one read it (its transaction is rolled back)."""


@dataclass(frozen=True)
class _Identity:
    """Which document, and which version of it, a content is stored as: a new version of ``name`` (``version``
    None: the next number, and the latest), or a stored version's own (read again in its place)."""

    name: str
    version: int | None = None
    latest: bool = True
    ingested_at: datetime | None = None

    @classmethod
    def of(cls, stored: StoredRow) -> _Identity:
        """A stored version's identity."""
        return cls(stored.name, stored.version, stored.latest, stored.ingested_at)


class _DeletedMeanwhile(Exception):
    """The document being read again was deleted meanwhile (the transaction is rolled back: it is not brought back)."""


#: The stages of a file's ingest that ``FileResult.stages`` times: ``read`` (starting the reader, its extraction,
#: OCR and chunking, as waited for), ``embed`` (the model, for the texts no stored span already has a vector for),
#: ``store`` (writing pages, blocks and spans to the database) and ``other``, the rest of the file's seconds
#: (hashing and keeping the original, committing, stopping the reader).
STAGES = ("read", "embed", "store", "other")


class _Clock:
    """Adds the seconds of each timed stretch to ``stages[stage]``."""

    def __init__(self, stages: dict[str, float]) -> None:
        self.stages = stages
        for stage in STAGES[:-1]:
            stages.setdefault(stage, 0.0)

    @contextmanager
    def timing(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.stages[stage] += time.perf_counter() - started


@dataclass
class _Batch:
    """Rows waiting to be written: pages and blocks first, then the spans cut from them."""

    pages: list[PageRecord] = field(default_factory=list)
    blocks: list[BlockRecord] = field(default_factory=list)
    spans: list[tuple[Chunk, int]] = field(default_factory=list)


@dataclass
class FileResult:
    """What happened to one file.

    Attributes:
        status: ``ingested``, ``unchanged`` (same bytes already stored), ``skipped`` (found while walking a
            folder but of an unsupported kind) or ``failed``.
        needs_ocr: 1-based numbers of pages without a usable text layer that were not OCR'd.
        ocr_pages: 1-based numbers of pages whose text came from OCR.
        ocr_no_text: OCR'd pages on which nothing read as text (a map, a photo, a page too faint to read).
        pages: physical pages, or units of an unpaged format (paragraphs, cells, rows, elements, line runs).
        kind: the format read (``pdf``, ``docx``, ``csv``, ...).
        meta: what the reader detected (text encoding, CSV dialect, OCR engine).
    """

    path: str
    status: str
    reason: str = ""
    doc_id: str | None = None
    pages: int = 0
    spans: int = 0
    needs_ocr: list[int] = field(default_factory=list)
    ocr_pages: list[int] = field(default_factory=list)
    ocr_no_text: list[int] = field(default_factory=list)
    seconds: float = 0.0
    kind: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    #: Spans whose vector was taken from a stored span with the same embedding text (see :func:`embed_key`).
    reused: int = 0
    #: Seconds per stage (see :data:`STAGES`): where ``seconds`` went.
    stages: dict[str, float] = field(default_factory=dict)
    #: The document's name in the workspace, and which version of it these bytes are (set once stored or found).
    name: str = ""
    version: int | None = None

    @property
    def failed(self) -> bool:
        """True when the file could not be stored."""
        return self.status == "failed"


class Progress(Protocol):
    """Receives progress while a batch ingests."""

    def file_started(self, path: Path, pages: int) -> None:
        """A file was opened."""

    def page_done(self, path: Path) -> None:
        """One more page is stored."""

    def file_done(self, result: FileResult) -> None:
        """A file is finished (any status)."""


def expand(paths: Iterable[Path]) -> Iterator[tuple[Path, bool, str]]:
    """Files to ingest: ``(path, named, name)`` where ``named`` is False for files found by walking a folder, and
    ``name`` is the document's name in its workspace: its path relative to the folder walked (``/``-separated), or
    the file's name for a file given by itself."""
    for path in paths:
        if path.is_dir():
            for child in sorted(p for p in path.rglob("*") if not p.is_dir()):
                relative = child.relative_to(path)
                if not any(part.startswith(".") for part in relative.parts):
                    yield child, False, relative.as_posix()
        else:
            yield path, True, path.name


class Ingester:
    """Stores documents into one workspace.

    Files are read in a reader process (:class:`~kruschnexus.worker.ReadWorker`) under ``NEXUS_PARSE_TIMEOUT``,
    ``NEXUS_PARSE_PAGE_TIMEOUT`` and ``NEXUS_PARSE_MEMORY_MB``; embedding and storing stay here. :meth:`ingest`
    stops that process when the batch is done (call :meth:`close` after using :meth:`ingest_file` alone).
    """

    def __init__(
        self,
        store: PgStore,
        embedder: Embedder,
        settings: Settings,
        workspace: str,
        ocr: str | None = None,
        confined: bool = False,
        reader: ReadWorker | None = None,
    ) -> None:
        self.confined = confined
        #: A reader lent by the caller (a server's warm one) is not stopped by :meth:`close`.
        self._owns_reader = reader is None
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.workspace = workspace
        self.read_options = read_options(settings, ocr)
        self.reader = reader or ReadWorker(ReadLimits.from_settings(settings))
        self._title: str | None = None
        self._reused = 0
        #: Vectors of the document being read again, by embedding key (see :meth:`reread`).
        self._kept: dict[str, Any] = {}
        #: Vectors of the document being stored that the embedding cache lacks, written to it after the commit.
        self._to_cache: dict[str, Any] = {}

    def close(self) -> None:
        """Stop the reader process (a later file starts another), unless it was lent."""
        if self._owns_reader:
            self.reader.close()

    def ingest(
        self,
        paths: Sequence[Path],
        doc_type: str | None = None,
        progress: Progress | None = None,
        name: str | None = None,
        names: Sequence[str] | None = None,
    ) -> list[FileResult]:
        """Ingest files and folders; one failure never stops the rest. ``name``: the document's name in the
        workspace for a single file (by default its path relative to the folder walked, or its file name); new
        bytes under a name already stored add a version of that document. ``names``: each confined path's name
        (see :attr:`~kruschnexus.sandbox.IngestPlan.names`; default: its file name).

        Raises:
            ConfigError: ``name`` is given for more than one file, or is blank; ``names`` does not match ``paths``.
        """
        if names is not None and len(names) != len(paths):
            raise ConfigError(f"{len(names)} names for {len(paths)} files")
        if name is not None and (len(paths) != 1 or paths[0].is_dir()):
            raise ConfigError("a document name (--as) names one file, not a folder or several files")
        if name is not None and not name.strip():
            raise ConfigError("a document name (--as) cannot be blank")
        self.store.ensure_workspace(
            self.workspace, self.embedder.model_id, self.embedder.dim, self.settings.index_build
        )
        results = []
        try:
            # Confined paths were checked one by one (folders expanded by the sandbox): none is walked again here.
            given = names if names is not None else [p.name for p in paths]
            items = list(zip(paths, [True] * len(paths), given, strict=True)) if self.confined else expand(paths)
            for path, named, found_as in items:
                result = self.ingest_file(path, doc_type, named, progress, name=name or found_as)
                if progress is not None:
                    progress.file_done(result)
                results.append(result)
        finally:
            self.close()
        return results

    def ingest_file(
        self,
        path: Path,
        doc_type: str | None,
        named: bool = True,
        progress: Progress | None = None,
        name: str | None = None,
    ) -> FileResult:
        """Ingest one file as the document ``name`` (default: the file's name; see :class:`FileResult`)."""
        return self._guarded(path, named, lambda: self._ingest(path, doc_type, progress, name or path.name))

    def reread(self, doc_id: str, source: str, doc_type: str | None, progress: Progress | None = None) -> FileResult:
        """Read a stored document again from its kept original bytes, with this version's reader, chunker and OCR
        choice, and replace it in one transaction (searches see the old version until commit, then the new one).
        Spans whose embedding text did not change keep their vectors (see :func:`embed_key`). The result's status is
        ``ingested``; ``failed`` when it cannot be read (the stored version stays); ``skipped`` when it was deleted
        meanwhile (it is not brought back) or another writer read it again first.

        Raises:
            NotFoundError: the workspace does not exist (it is never made here).
        """
        if self.store.workspace(self.workspace) is None:
            raise NotFoundError(f"workspace {self.workspace!r} does not exist")
        path = Path(source)

        def read_again() -> FileResult:
            stored = self.store.stored(self.workspace, doc_id)
            if stored is None:
                return FileResult(source, "skipped", "deleted before it could be read again", doc_id=doc_id)
            # Read before the transaction that replaces the document: inside it, its old spans are gone.
            self._kept = self.store.document_vectors(self.workspace, doc_id, self.embedder.dim)
            try:
                with blobs.kept_as(self.settings.blob_dir, doc_id, source) as kept:
                    return self._store_new(path, kept, doc_id, doc_type, progress, _Identity.of(stored))
            except _DeletedMeanwhile:
                return FileResult(source, "skipped", "deleted while it was being read again", doc_id=doc_id)
            except _StoredMeanwhile:
                return FileResult(source, "skipped", "read again by another writer meanwhile", doc_id=doc_id)
            finally:
                self._kept = {}

        return self._guarded(path, True, read_again)

    def _guarded(self, path: Path, named: bool, run: Callable[[], FileResult]) -> FileResult:
        """``run()``, with every error of reading or storing one file turned into its failed result."""
        started = time.monotonic()
        try:
            result = run()
        except UnsupportedFormatError as exc:
            result = FileResult(str(path), "failed" if named else "skipped", exc.reason)
        except ParseError as exc:
            page = f" (page {exc.page})" if exc.page is not None else ""
            result = FileResult(str(path), "failed", exc.reason + page)
        except (EmbedError, StoreError, ConfigError) as exc:
            result = FileResult(str(path), "failed", str(exc))
        except ReaderBugError as exc:
            result = FileResult(str(path), "failed", f"unexpected reader error: {exc}")
        except Exception as exc:  # noqa: BLE001 - a reader bug on hostile input fails this file, not the batch
            result = FileResult(str(path), "failed", f"unexpected reader error: {type(exc).__name__}: {exc}")
        result.seconds = round(time.monotonic() - started, 3)
        if result.stages:  # the rest: hashing and keeping the original, committing, stopping the reader
            result.stages["other"] = max(0.0, result.seconds - sum(result.stages.values()))
            result.stages = {stage: round(seconds, 3) for stage, seconds in result.stages.items()}
        return result

    def _ingest(self, path: Path, doc_type: str | None, progress: Progress | None, name: str) -> FileResult:
        _check_file(path, self.settings.max_file_bytes)
        if not self.confined:
            # Bytes already stored need no copy: re-ingesting a folder reads each unchanged file once, writes nothing.
            # (A confined ingest never reads a path except through the snapshot's open.)
            unchanged = self._unchanged(path, blobs.sha256_file(path), name)
            if unchanged is not None:
                return unchanged
        # Read once: the hash, the reader and the kept bytes all see this one copy (see blobs.snapshot).
        limit, blob_dir = self.settings.max_file_bytes, self.settings.blob_dir
        with blobs.snapshot(path, blob_dir, limit, self.confined) as (copy, digest):
            unchanged = self._unchanged(path, digest, name)
            if unchanged is not None:
                return unchanged
            try:
                return self._store_new(path, copy, digest, doc_type, progress, _Identity(name))
            except _StoredMeanwhile:
                return self._unchanged(path, digest, name) or FileResult(
                    str(path), "unchanged", "stored by another writer"
                )
            except StoreUnavailable:
                # The connection was lost mid-document: once more on a fresh connection, unless it was lost as the
                # document was being committed and the commit went through.
                stored = self._unchanged(path, digest, name)
                if stored is not None:
                    stored.reason = "stored: the connection to the database was lost as the document was committed"
                    return stored
                return self._store_new(path, copy, digest, doc_type, progress, _Identity(name))

    def _unchanged(self, path: Path, digest: str, name: str) -> FileResult | None:
        """The result when the same bytes are already stored in the workspace: "unchanged", or, when they are an
        older version of this name (the file went back to them), that version made the latest again."""
        stored = self.store.stored(self.workspace, digest)
        if stored is None:
            return None
        version, stored_name = stored.version, stored.name
        if stored.name == name and not stored.latest:
            with self.store.document_transaction(self.workspace) as writer:
                for changed in writer.restore_latest(self.workspace, name, digest):
                    writer.announce(self.workspace, changed, "upsert")
            note = f"same bytes as version {version}, which is the latest again"
            return FileResult(str(path), "ingested", note, doc_id=digest, name=stored_name, version=version)
        note = "same bytes already stored" + ("" if stored_name == name else f" as {stored_name}")
        why = self.stale_because(digest)
        if why:
            note += f"; {why}: `nexus reingest -w {self.workspace}` reads it again"
        return FileResult(str(path), "unchanged", note, doc_id=digest, name=stored_name, version=version)

    def stale_because(self, doc_id: str, row: ReadVersionsRow | None = None) -> str:
        """Why reading the stored document again would change it (``""`` when it would not): an older extractor or
        chunker read it, or pages still without text would be OCR'd under this ingest's OCR choice."""
        if row is None:
            rows = self.store.read_versions(self.workspace, doc_id)
            if not rows:
                return ""
            row = rows[0]
        versions = (row.extractor_version, row.chunker_version)
        if versions != (EXTRACTOR_VERSION, CHUNKER_VERSION):
            return f"read by an older version ({versions[0]}, {versions[1]})"
        ocr = self.read_options
        if row.needs_ocr and ocr.ocr != OcrMode.NEVER and ocr_can_run(ocr.ocr_lang):
            return "pages without a text layer that were not OCR'd then, and Tesseract is here now"
        return ""

    def _store_new(
        self,
        path: Path,
        copy: Path,
        digest: str,
        doc_type: str | None,
        progress: Progress | None,
        identity: _Identity,
    ) -> FileResult:
        """Store the document read from ``copy`` (the snapshot of ``path``) as a new version of ``identity.name``,
        or, when ``identity`` is a stored version's, in its place (read again)."""
        replace = identity.version is not None
        self._title = None
        self._reused = 0
        self._to_cache = {}
        clock = _Clock({})
        with ExitStack() as opened:
            with clock.timing("read"):  # starting the reader and opening the file
                source = opened.enter_context(
                    self.reader.open(copy, options=self.read_options, chunk_max_chars=self.settings.chunk_max_chars)
                )
            if source.paged and source.page_count > self.settings.max_pages:
                raise ParseError(path, f"{source.page_count} pages is over the limit of {self.settings.max_pages}")
            if progress is not None:
                progress.file_started(path, source.page_count)
            result = FileResult(
                str(path),
                "ingested",
                doc_id=digest,
                pages=source.page_count,
                kind=source.kind,
                meta=source.meta,
                stages=clock.stages,
            )
            with self.store.document_transaction(self.workspace) as writer:
                if replace and not writer.remove(self.workspace, digest):
                    raise _DeletedMeanwhile
                superseded: list[str] = []
                version, latest = identity.version, identity.latest
                if version is None:
                    version, superseded = writer.claim_version(self.workspace, identity.name, digest)
                result.name, result.version = identity.name, version
                stored = writer.document(
                    DocumentRecord(
                        workspace=self.workspace,
                        doc_id=digest,
                        source=path.name,
                        doc_type=doc_type,
                        kind=source.kind,
                        byte_size=copy.stat().st_size,
                        page_count=source.page_count,
                        extractor_version=EXTRACTOR_VERSION,
                        chunker_version=CHUNKER_VERSION,
                        model_id=self.embedder.model_id,
                        meta=source.meta,
                        name=identity.name,
                        version=version,
                        latest=latest,
                        ingested_at=identity.ingested_at,
                    )
                )
                if not stored:
                    raise _StoredMeanwhile
                tick = (lambda: progress.page_done(path)) if progress is not None else None
                if source.kind in ("csv", "tsv") and self.settings.embed_title:
                    self._title = file_words(path.name)[:EMBED_TITLE_CHARS]  # a row's first line names no document
                self._write_pages(writer, digest, source.chunked_pages(), result, clock, tick)
                for doc_id in (digest, *superseded):  # the lexical index holds the latest versions only
                    writer.announce(self.workspace, doc_id, "upsert")
                blobs.adopt(self.settings.blob_dir, copy, digest)  # only once the file has been read whole
        if self._to_cache:
            with clock.timing("store"):
                self.store.cache_vectors(self.embedder.dim, self._to_cache)
            self._to_cache = {}
        result.reason = _reader_note(result, getattr(source, "ocr_missing", None))
        if superseded:
            note = f"new version of {identity.name}: v{version - 1} is searched only when asked for (version:N)"
            result.reason = f"{note}; {result.reason}" if result.reason else note
        result.reused = self._reused
        if replace:
            note = (
                f"read again ({EXTRACTOR_VERSION}, {CHUNKER_VERSION}); {result.reused} of {result.spans} vectors kept"
            )
            result.reason = f"{note}; {result.reason}" if result.reason else note
        return result

    def _write_pages(
        self,
        writer: DocumentWriter,
        doc_id: str,
        pages: Iterable[tuple[Page, list[Chunk]]],
        result: FileResult,
        clock: _Clock,
        tick: Callable[[], None] | None,
    ) -> None:
        batch = _Batch()
        source = iter(pages)
        while True:
            with clock.timing("read"):
                item = next(source, None)
            if item is None:
                break
            page, chunks = item
            if self._title is None:
                self._title = title_of(page.text)[:EMBED_TITLE_CHARS] if self.settings.embed_title else ""
            batch.pages.append(self._page_record(doc_id, page))
            batch.blocks.extend(self._block_record(doc_id, page, k) for k in range(len(page.blocks)))
            if page.needs_ocr:
                result.needs_ocr.append(page.number)
            if page.used_ocr:
                result.ocr_pages.append(page.number)
                if not page.text.strip():
                    result.ocr_no_text.append(page.number)
            batch.spans.extend((chunk, ordinal) for ordinal, chunk in enumerate(chunks))
            if len(batch.spans) >= SPAN_BATCH or len(batch.pages) >= PAGE_BATCH:
                result.spans += self._flush(writer, doc_id, batch, clock)
                batch = _Batch()
            if tick is not None:
                tick()
        result.spans += self._flush(writer, doc_id, batch, clock)

    def _flush(self, writer: DocumentWriter, doc_id: str, batch: _Batch, clock: _Clock) -> int:
        with clock.timing("store"):
            writer.pages(batch.pages)
            writer.blocks(batch.blocks)
        if not batch.spans:
            return 0
        texts = [embedding_text(chunk, self._title or "") for chunk, _ in batch.spans]
        keys = [embed_key(self.embedder.model_id, text) for text in texts]
        vectors = self._vectors(writer, texts, keys, clock)
        spans = [
            self._span_record(doc_id, chunk, ordinal, vector, key)
            for (chunk, ordinal), vector, key in zip(batch.spans, vectors, keys, strict=True)
        ]
        with clock.timing("store"):
            writer.spans(spans)
        return len(spans)

    def _vectors(self, writer: DocumentWriter, texts: list[str], keys: list[str], clock: _Clock) -> list[Any]:
        """A vector for each text: a stored span's with the same key (in this workspace, or in the embedding cache
        shared between workspaces when it is on), or the model's (for those alone)."""
        dim = self.embedder.dim
        known = {key: self._kept[key] for key in keys if key in self._kept}
        cached: dict[str, Any] = {}
        with clock.timing("store"):
            known.update(writer.vectors_by_key(self.workspace, dim, [k for k in keys if k not in known]))
            if self.settings.embed_cache:
                cached = writer.cached_vectors(dim, [k for k in keys if k not in known])
                known.update(cached)
        missing = [i for i, key in enumerate(keys) if key not in known]
        with clock.timing("embed"):
            fresh: Iterator[Any] = iter(self.embedder.embed([texts[i] for i in missing]) if missing else [])
        self._reused += len(texts) - len(missing)
        vectors = [known[key] if key in known else next(fresh) for key in keys]
        if self.settings.embed_cache:  # written once the document is committed (see _store_new)
            self._to_cache.update((k, v) for k, v in zip(keys, vectors, strict=True) if k not in cached)
        return vectors

    def _page_record(self, doc_id: str, page: Page) -> PageRecord:
        return PageRecord(
            workspace=self.workspace,
            doc_id=doc_id,
            page_number=page.number,
            text=page.text,
            width=page.width,
            height=page.height,
            rotation=page.rotation,
            label=page.label,
            used_ocr=page.used_ocr,
            needs_ocr=page.needs_ocr,
            locator=page.locator,
        )

    def _block_record(self, doc_id: str, page: Page, ordinal: int) -> BlockRecord:
        block = page.blocks[ordinal]
        return BlockRecord(
            workspace=self.workspace,
            doc_id=doc_id,
            page_number=page.number,
            ordinal=ordinal,
            kind=block.kind.value,
            char_start=block.start,
            char_end=block.end,
            bbox=list(to_xywh(block.rect)),
        )

    def _span_record(self, doc_id: str, chunk: Chunk, ordinal: int, vector: Any, key: str) -> SpanRecord:
        bbox = chunk.bbox
        return SpanRecord(
            workspace=self.workspace,
            doc_id=doc_id,
            page_number=chunk.page_number,
            ordinal=ordinal,
            char_start=chunk.start,
            char_end=chunk.end,
            text=chunk.text,
            section=chunk.section,
            section_path=list(chunk.section_path),
            heading_path=list(chunk.heading_path),
            header=chunk.header,
            boxes=[list(to_xywh(r)) for r in chunk.rects] if chunk.rects else None,
            bbox=None if bbox is None else list(to_xywh(bbox)),
            locator=chunk.locator,
            used_ocr=chunk.used_ocr,
            dim=self.embedder.dim,
            embedding=vector,
            embed_key=key,
            line_markers=line_markers(chunk.text),
        )


def ocr_can_run(lang: str) -> bool:
    """Tesseract is installed with data for ``lang`` (every ``+``-joined part of it)."""
    return tesseract_version() is not None and set(lang.split("+")) <= tesseract_languages()


def embed_key(model_id: str, text: str) -> str:
    """What a vector is stored under: the model and the exact text it read (two spans with one key have one vector)."""
    return hashlib.sha256(f"{model_id}\0{text}".encode()).hexdigest()


def read_options(settings: Settings, ocr: str | None = None) -> ReadOptions:
    """How files are read under these settings (``ocr`` overrides ``settings.ocr``)."""
    mode = ocr or settings.ocr
    try:
        ocr_mode = OcrMode(mode)
    except ValueError as exc:
        raise ConfigError(f"unknown OCR mode {mode!r}; choose one of: {', '.join(OCR_MODES)}") from exc
    return ReadOptions(ocr=ocr_mode, ocr_workers=settings.ocr_workers, ocr_lang=settings.ocr_lang)


def embedding_text(chunk: Chunk, title: str = "") -> str:
    """What the model reads for a span: the document's title, its headings (without the page), its context (a
    table's header row) and its text, spaces folded. The stored span text and offsets never change."""
    parts = [" ".join(title.split())] if title.strip() else []
    parts += [h for h in chunk.heading_path[1:] if h and h not in chunk.text]
    if chunk.context and chunk.context not in chunk.text:
        parts.append(" ".join(chunk.context.split()))
    context = " > ".join(parts)
    body = " ".join(chunk.text.split())
    return f"{context}\n{body}" if context else body


def _check_file(path: Path, max_bytes: int) -> None:
    try:
        info = path.stat()
    except FileNotFoundError as exc:
        raise ParseError(path, "no such file") from exc
    except OSError as exc:
        raise ParseError(path, f"cannot read the file ({exc.strerror or exc})") from exc
    if not stat.S_ISREG(info.st_mode):
        raise ParseError(path, "not a regular file (a folder, device, socket or pipe)")
    if info.st_size == 0:
        raise ParseError(path, "the file is empty (0 bytes)")
    if info.st_size > max_bytes:
        raise ParseError(path, f"{info.st_size} bytes is over the limit of {max_bytes} (NEXUS_MAX_FILE_BYTES)")


def _reader_note(result: FileResult, ocr_missing: str | None) -> str:
    """What the reader noticed about a stored document, for its result's reason ("" when nothing)."""
    if result.needs_ocr:
        why = ocr_missing or "OCR is off (--ocr never)"
        return (
            f"{len(result.needs_ocr)} page(s) have no usable text layer and were not OCR'd"
            f" ({why}): {_ranges(result.needs_ocr)}"
        )
    if result.meta.get("encoding_detected"):
        return f"not UTF-8: read as {result.meta.get('encoding')} (guessed; check the stored text)"
    if result.ocr_pages:
        reason = f"OCR'd {len(result.ocr_pages)} page(s): {_ranges(result.ocr_pages)}"
        if result.ocr_no_text:
            reason += f"; no text recognised (a picture, or too faint to read) on: {_ranges(result.ocr_no_text)}"
        return reason
    return ""


def _ranges(numbers: Sequence[int]) -> str:
    parts: list[str] = []
    for n in numbers:
        if parts and parts[-1].split("-")[-1] == str(n - 1):
            parts[-1] = f"{parts[-1].split('-')[0]}-{n}"
        else:
            parts.append(str(n))
    return ", ".join(parts)
