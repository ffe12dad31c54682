"""The Python SDK: :class:`Corpus`. The CLI, API and MCP server are thin shells over it."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from kruschnexus import blobs
from kruschnexus.config import IndexBuild, Settings, check_workspace_name
from kruschnexus.embed.base import Embedder
from kruschnexus.embed.registry import bundled, load_embedder, make_embedder
from kruschnexus.errors import ConfigError, EmbedError, NotFoundError, StoreError
from kruschnexus.lexical.analysis import line_markers
from kruschnexus.lexical.sync import Lexicon, SyncReport
from kruschnexus.retrieve.fusion import FusionSettings
from kruschnexus.retrieve.search import SearchOutcome, run_search
from kruschnexus.revisions import OldHit, diff, resolve
from kruschnexus.schema.v1 import DocumentDiff, DocumentInfo, ExplainTrace, Hit, PageText, Resolution
from kruschnexus.store.database import Database
from kruschnexus.store.postgres import PgStore
from kruschnexus.store.progress import Step, watched
from kruschnexus.store.records import PageRow, VectorStorage
from kruschnexus.wire import document_from_row, hit_from_row, page_from_row

if TYPE_CHECKING:
    # Imported where used: a search needs neither the ingestion's parsers, the page renderer, the doctor's
    # checks nor the verifier (0.2 s of a command's start; docs/scaling.md, "From the shell").
    from kruschnexus.doctor import DoctorReport
    from kruschnexus.ingest import FileResult, Progress
    from kruschnexus.verify import VerifyReport
    from kruschnexus.worker import ReaderPool

_log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class VectorIndexReport:
    """A rebuilt HNSW index: its vector dimension, how it was built before (``None``: there was none) and now."""

    dim: int
    before: IndexBuild | None
    after: IndexBuild


class Corpus:
    """One workspace of documents.

    Example:
        >>> from kruschnexus import Corpus
        >>> with Corpus(workspace="demo") as corpus:  # doctest: +SKIP
        ...     corpus.ingest(["lease.pdf"], doc_type="authority")

    The database (embedded unless ``NEXUS_DATABASE_URL`` is set) and the embedding model are opened on
    first use. Use as a context manager, or call :meth:`close`.

    A corpus answers one search at a time: searches from several threads (LangChain's ``abatch``) take turns, on
    the one store and model the first of them opened, and :meth:`close` waits for the one under way. Its other
    methods (ingest, page reads, documents) are for one thread at a time. For work side by side, give each thread
    its own corpus (:class:`~kruschnexus.hub.Hub` lends them over one pool of connections).
    """

    def __init__(
        self,
        workspace: str,
        settings: Settings | None = None,
        embedder: Embedder | Future[Embedder] | None = None,
        store: PgStore | None = None,
        lexicon: Lexicon | None = None,
        readers: ReaderPool | None = None,
        database: Database | None = None,
        replica: PgStore | None = None,
        side_connection: bool = True,
    ) -> None:
        """Args:
        workspace: the workspace name (see :func:`check_workspace_name`).
        settings: configuration; read from the environment when omitted.
        embedder: an already loaded embedding model to share, or one being loaded
            (:func:`~kruschnexus.embed.registry.load_embedder`); built from ``settings.embedder`` when omitted.
        store: an open store to borrow (a server's connection pool); :meth:`close` then leaves it open.
        lexicon: the process's lexical indexes to share (a server's); opened under ``NEXUS_HOME`` when omitted.
        readers: warm reader processes to borrow for ingests (a server's); each ingest starts its own without.
        database: the process's database to share (a server's), so that every corpus of the process knows its
            writes (see :attr:`read_from`).
        replica: an open connection to the replica to borrow (a server's pool).
        side_connection: a search reads its lexical leg's spans on a second connection to the primary while its
            dense leg runs on the first (see docs/retrieval.md); ``False``: one connection, one after the other.
            Only a corpus that opens its own store, without a replica, has one.
        """
        self.workspace = check_workspace_name(workspace)
        self.settings = settings or Settings.load()
        self._database: Database | None = database
        self._owns_database = database is None
        self._store: PgStore | None = store
        self._replica: PgStore | None = replica
        self._owns_replica = replica is None
        #: Which server answered the last search or page read, and why (``primary`` without a replica).
        self.read_from = "primary"
        self._owns_store = store is None
        self._side: PgStore | None = None
        self._side_wanted = side_connection
        self._embedder: Embedder | None = None if isinstance(embedder, Future) else embedder
        #: The model being loaded (given, or begun while the store opens: :meth:`_load_while_connecting`).
        self._loading: Future[Embedder] | None = embedder if isinstance(embedder, Future) else None
        self._lexicon = lexicon
        self._owns_lexicon = lexicon is None
        self._readers = readers
        #: Held by a search: its connections' transactions, and the store and model it opens first, are its own.
        self._searching = threading.RLock()

    def __enter__(self) -> Corpus:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def database(self) -> Database:
        """The database (the server, and its replica if one is set); nothing connects until :attr:`store`."""
        if self._database is None:
            s = self.settings
            self._database = Database(s.database_url, s.pgdata, s.read_database_url, s.pg_shared_buffers)
        return self._database

    @property
    def store(self) -> PgStore:
        """The open store on the primary (connects on first use)."""
        if self._store is None:
            self._store = self.database.connect()
        return self._store

    @property
    def read_store(self) -> PgStore:
        """Where searches and page reads go: the replica (``NEXUS_READ_DATABASE_URL``) once it has replayed every
        write of this process, waiting up to ``NEXUS_REPLICA_WAIT`` seconds for it; else the primary, which has
        them. :attr:`read_from` says which answered, and why.

        Raises:
            StoreError: the replica cannot be reached, or is not a replica of this version's schema.
        """
        if self.database.read_url is None:
            self.read_from = "primary"
            return self.store
        try:
            if self._replica is None:
                self._replica = self.database.connect_replica()
            assert self._replica is not None
            caught_up = self.database.caught_up(self._replica, self.settings.replica_wait)
        except StoreError as exc:
            # A replica that is down or was restarted: the primary answers, and the next read tries a new connection.
            self._drop_replica()
            self.read_from = f"primary: the replica cannot be read ({exc})"
            return self.store
        if caught_up:
            self.read_from = "replica"
            return self._replica
        self.read_from = (
            f"primary: the replica had not replayed this process's last write after {self.settings.replica_wait:g} s"
        )
        return self.store

    @property
    def search_connections(self) -> int:
        """How many connections its searches have used: 2 once the second was opened (see ``side_connection``),
        else 1."""
        return 1 if self._side is None else 2

    def _side_store(self) -> PgStore | None:
        """A second connection to the primary, on which a search reads its lexical leg's spans back while its dense
        leg runs on the first (opened on first use). Only for a corpus that opened its own store and reads from the
        primary: a server's corpus borrows one connection of a pool per request, and a replica's reads stay on one
        connection, whose replay position was checked."""
        if not self._side_wanted or not self._owns_store or self.database.read_url is not None:
            return None
        if self._side is None:
            try:
                self._side = self.database.connect()
            except StoreError as exc:
                # One connection answers as well, one leg after the other: searches go on without the second.
                _log.warning("searching on one connection: a second one could not be opened (%s)", exc)
                self._side_wanted = False
                return None
        return self._side

    def _drop_replica(self) -> None:
        if self._replica is not None and self._owns_replica:
            self._replica.close()
        self._replica = None
        self._owns_replica = True

    def _wrote(self) -> None:
        """Note this process's write, so that reads from the replica wait until it has replayed it."""
        if self.database.read_url is not None:
            self.database.note_write(self.store)

    @property
    def embedder(self) -> Embedder:
        """The embedding model (loaded on first use)."""
        if self._embedder is None:
            if self._loading is None:
                self._embedder = make_embedder(self.settings)
            else:
                try:
                    self._embedder = self._loading.result()
                except Exception:
                    self._loading = None  # failed: the next use loads it again
                    raise
                self._loading = None  # an interrupt while waiting keeps the load for the next use
        return self._embedder

    @property
    def lexicon(self) -> Lexicon:
        """The lexical (BM25) indexes, kept in step with the database (see :mod:`kruschnexus.lexical.sync`)."""
        if self._lexicon is None:
            self._lexicon = Lexicon(self.settings.lexical_dir)
        return self._lexicon

    def close(self) -> None:
        """Close the database connection and release the embedded server."""
        with self._searching:  # a search under way in another thread ends first
            if self._lexicon is not None and self._owns_lexicon:
                self._lexicon.close()
                self._lexicon = None
            if self._store is not None:
                if self._owns_store:
                    self._store.close()
                self._store = None
            if self._side is not None:
                self._side.close()
                self._side = None
            if self._replica is not None:
                self._drop_replica()
            if self._database is not None:
                if self._owns_database:
                    self._database.close()
                self._database = None

    def ingest(
        self,
        paths: Sequence[str | Path],
        doc_type: str | None = None,
        progress: Progress | None = None,
        ocr: str | None = None,
        confined: bool = False,
        name: str | None = None,
        names: Sequence[str] | None = None,
    ) -> list[FileResult]:
        """Ingest files and folders into this workspace; returns one result per file.

        Each file is a document named by its path relative to the folder given (its file name when given by
        itself), or ``name`` for a single file. New bytes under a name already stored add a version of that
        document (``FileResult.version``); searches answer from the latest version unless a query asks for another
        (``version:N``, ``as_of:DATE``). ``names``: each path's document name, for ``confined`` files a sandbox
        plan expanded (:attr:`~kruschnexus.sandbox.IngestPlan.names`).

        ``ocr`` (``auto``, ``always``, ``never``) overrides the ``ocr`` setting for this call. ``confined`` (for
        servers, after :func:`~kruschnexus.sandbox.plan_ingest`): each file is opened without following any
        symbolic link, so a checked path cannot be swapped for a link elsewhere before it is read.
        """
        from kruschnexus.ingest import Ingester

        files = [Path(p).expanduser() for p in paths]
        with self._readers.borrow() if self._readers else contextlib.nullcontext(None) as reader:
            ingester = Ingester(
                self.store, self.embedder, self.settings, self.workspace, ocr=ocr, confined=confined, reader=reader
            )
            try:
                results = ingester.ingest(files, doc_type=doc_type, progress=progress, name=name, names=names)
            finally:
                self._wrote()  # files stored before a failure are writes too
        self.lexicon.sync(self.store, self.workspace)
        return results

    def reread(self, every: bool = False, ocr: str | None = None, progress: Progress | None = None) -> list[FileResult]:
        """Read this workspace's stored documents again from their kept original bytes: those an older extractor or
        chunker read, or with pages that were not OCR'd and now can be (under ``ocr``, as :meth:`ingest`), or
        ``every`` one. Each is replaced in one transaction; spans whose text did not change keep their vectors.

        Raises:
            NotFoundError: the workspace does not exist.
        """
        from kruschnexus.ingest import Ingester

        self.require_exists()
        results = []
        with self._readers.borrow() if self._readers else contextlib.nullcontext(None) as reader:
            ingester = Ingester(self.store, self.embedder, self.settings, self.workspace, ocr=ocr, reader=reader)
            try:
                for row in self.store.read_versions(self.workspace):
                    doc_id = row.doc_id
                    if not every and not ingester.stale_because(doc_id, row):
                        continue
                    result = ingester.reread(doc_id, row.source, row.doc_type, progress)
                    if progress is not None:
                        progress.file_done(result)
                    results.append(result)
            finally:
                ingester.close()
                self._wrote()
        self.lexicon.sync(self.store, self.workspace)
        return results

    def reindex(
        self,
        progress: Callable[[int, int], None] | None = None,
        marking: Callable[[int, int], None] | None = None,
    ) -> SyncReport:
        """Rebuild this workspace's lexical index from the database (it is derived; nothing is lost);
        ``progress`` hears the spans indexed so far and the total. Spans stored before they held their line markers
        (migration 0010) are given them first, so that a section look-up finds them by index; ``marking`` hears the
        spans marked so far and how many had none (only when some had none; about 2 ms a span).

        Raises:
            NotFoundError: the workspace does not exist.
        """
        self.require_exists()
        unmarked = self.store.unmarked_count(self.workspace) if marking is not None else 0
        if marking is not None and unmarked:
            marking(0, unmarked)
            self.store.mark_lines(self.workspace, line_markers, progress=lambda done: marking(done, unmarked))
        else:
            self.store.mark_lines(self.workspace, line_markers)
        return self.lexicon.sync(self.store, self.workspace, rebuild=True, progress=progress)

    def rebuild_vector_index(
        self, maintenance_work_mem: str | None = None, progress: Callable[[Step], None] | None = None
    ) -> VectorIndexReport:
        """Build the HNSW index serving this workspace again with the settings' ``hnsw_m`` and
        ``hnsw_ef_construction`` (it serves every workspace of the same vector dimension), on a connection of its
        own. Searches and ingests go on meanwhile; the new index replaces the old one when it is complete.
        ``maintenance_work_mem``: memory for the build (``2GB``; the server's own setting when omitted).
        ``progress``: called from a thread of its own with each new step of the build (PostgreSQL's phase, and the
        table's blocks read or the tuples validated).

        Raises:
            NotFoundError: the workspace does not exist.
            StoreError: the build failed, or another rebuild is running (the index in use is kept).
        """
        _, dim = self.require_exists()
        before = self.store.vector_index_build(dim)
        build = self.settings.index_build
        with self._own_store() as rebuilder, self._watched(rebuilder, progress):  # its own session: closing it
            rebuilder.rebuild_vector_index(dim, build, maintenance_work_mem)  # releases the rebuild's lock
        return VectorIndexReport(dim, before, build)

    def rewrite_spans(
        self, maintenance_work_mem: str | None = None, progress: Callable[[Step], None] | None = None
    ) -> tuple[VectorStorage, VectorStorage]:
        """Rewrite the spans table, every workspace's (``VACUUM FULL``), on a connection of its own, so that spans
        stored before migration 0011 keep their vectors in their rows; its indexes, the HNSW graph included, are
        built again with ``maintenance_work_mem`` (``4GB``; the server's own when omitted). Searches and ingests wait
        until it ends (7.6 min at 10^6 spans on 2 cores). Returns where vectors were kept before and after.
        ``progress``: called from a thread of its own with each new step (waiting for other sessions, PostgreSQL's
        phase, the table's blocks read, the indexes built again).

        Raises:
            NotFoundError: the workspace does not exist.
            StoreError: the rewrite failed (the table is as it was).
        """
        self.require_exists()
        before = self.store.vector_storage()
        with self._own_store() as rewriter, self._watched(rewriter, progress):
            rewriter.rewrite_spans(maintenance_work_mem)
        return before, self.store.vector_storage()

    @contextlib.contextmanager
    def _watched(self, worker: PgStore, progress: Callable[[Step], None] | None) -> Iterator[None]:
        """``progress`` told the steps of ``worker``'s statements while the block runs, read on a connection of its
        own; nothing when it is ``None``."""
        if progress is None:
            yield
            return
        try:
            watcher = self.database.connect()
        except StoreError as exc:  # the work needs no watcher: it goes on unwatched
            _log.warning("the progress cannot be read (%s); the work goes on without it", exc)
            yield
            return
        try:
            with watched(watcher, worker.conn.info.backend_pid, progress):
                yield
        finally:
            watcher.close()

    @contextlib.contextmanager
    def _own_store(self) -> Iterator[PgStore]:
        """A connection of its own to the primary for one long piece of maintenance, closed after it; a write it
        completed is noted for the read replica's freshness check."""
        store = self.database.connect()
        try:
            yield store
            if self.database.read_url is not None:
                self.database.note_write(store)
        finally:
            store.close()

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """The best spans for ``query`` (operators allowed), best first; ``[]`` when nothing clears the floor.

        Raises:
            QueryError: the query is malformed (the message names the position).
        """
        return self.run(query, k).hits

    def explain(self, query: str, k: int = 5) -> ExplainTrace:
        """Every candidate of ``query`` with its ranks, RRF terms, boost and why it was admitted or not."""
        return self.run(query, k).trace

    def fusion_settings(self) -> FusionSettings:
        """The ranking knobs in force: the settings' (see :class:`~kruschnexus.config.Settings`), and the floor, the
        model's own unless ``NEXUS_FLOOR`` is set."""
        floor = self.settings.floor if self.settings.floor is not None else self.embedder.floor
        s = self.settings
        return FusionSettings(
            rrf_k=s.rrf_k,
            section_boost=s.section_boost,
            section_inside_share=s.section_inside_share,
            floor=floor,
            dense_weight=s.dense_weight,
            sparse_weight=s.sparse_weight,
            dense_depth=s.dense_depth,
            sparse_depth=s.sparse_depth,
            coverage_floor=s.coverage_floor,
            agree_margin=s.agree_margin,
            agree_coverage=s.agree_coverage,
            named_top=s.named_top,
            absent_margin=s.absent_margin,
            absent_min_spans=s.absent_min_spans,
            absent_in_document=s.absent_in_document,
            absent_document_margin=s.absent_document_margin,
            section_mentions=s.section_mentions,
            documents=s.document_match,
            local_idf=s.local_idf,
            ef_search=s.ef_search,
            dense_scan=s.dense_scan,
            dense_exact=s.dense_exact,
            dense_seeds=s.dense_seeds,
            absent_misspelt_chars=s.absent_misspelt_chars,
            absent_share=s.absent_share,
            absent_document_min=s.absent_document_min,
            name_min_terms=s.name_min_terms,
            name_distinctive_share=s.name_distinctive_share,
            name_margin=s.name_margin,
            name_max_documents=s.name_max_documents,
            name_front_weight=s.name_front_weight,
            context_boost=s.context_boost,
            ids_boost=s.ids_boost,
            local_idf_min_weight=s.local_idf_min_weight,
            local_idf_max_documents=s.local_idf_max_documents,
            twin_same_passage=s.twin_same_passage,
            twin_stands_for=s.twin_stands_for,
        )

    def run(
        self, query: str, k: int = 5, legs: tuple[str, ...] | None = None, floor: float | None = None
    ) -> SearchOutcome:
        """One search returning both the hits and the explain trace (what the CLI uses).

        ``legs`` restricts retrieval to ``("dense",)`` or ``("sparse",)`` (the ablations ``nexus eval`` reports);
        the default is both. ``floor`` overrides the similarity floor for this call (the calibration sweep).
        """
        unknown = set(legs or ()) - {"dense", "sparse"}
        if legs is not None and (unknown or not legs):
            raise ConfigError(f"legs must be 'dense' and/or 'sparse', not {sorted(unknown) or 'none'}")
        with self._searching:
            self._load_while_connecting()
            settings = self.fusion_settings()
            if floor is not None:
                settings = dataclasses.replace(settings, floor=floor)
            if legs is not None:
                settings = dataclasses.replace(settings, legs=tuple(legs))
            store = self.read_store
            side = self._side_store() if "sparse" in settings.legs and "dense" in settings.legs else None
            return run_search(
                store,
                self.embedder,
                self.lexicon,
                self.workspace,
                query,
                k,
                settings,
                side,
                check=self._require_workspace,
            )

    def _load_while_connecting(self) -> None:
        """On a corpus that has neither its model nor its store yet (a command's first search), load the bundled
        model while the store opens (unless it is being loaded already: ``embedder``): the embedded server's start
        waits on ``pg_ctl`` most of its 0.25 s, the model's load is onnxruntime's graph optimisation (0.2-0.3 s), and
        the two overlap (docs/scaling.md, "From the shell"). The model's error comes first, as when it loaded before
        the store opened; an interrupt passes at once (the load ends on its thread, a fraction of a second later).
        Only the bundled model is loaded so: another (``ollama:``) asks its server on its first use, and the process
        would wait for that answer before it exits."""
        if self._embedder is not None or self._store is not None:
            return
        if self._loading is None:
            if not bundled(self.settings):
                return
            self._loading = load_embedder(self.settings)
        try:
            _ = self.store
        except Exception:
            _ = self.embedder  # its error first, the store's as its context
            raise
        _ = self.embedder

    def exists(self) -> bool:
        """Whether this workspace exists."""
        return self.store.workspace(self.workspace) is not None

    def require_exists(self) -> tuple[str, int]:
        """The ``(model_id, dim)`` this workspace was built with.

        Raises:
            NotFoundError: the workspace does not exist.
        """
        stored = self.store.workspace(self.workspace)
        if stored is None:
            raise NotFoundError(f"workspace {self.workspace!r} does not exist: ingest into it first")
        return stored

    def _require_workspace(self) -> None:
        stored = self.require_exists()
        if stored != (self.embedder.model_id, self.embedder.dim):
            raise EmbedError(
                f"workspace {self.workspace!r} was built with {stored[0]} ({stored[1]} dims); the current model is"
                f" {self.embedder.model_id} ({self.embedder.dim} dims)"
            )

    def export(self) -> Iterator[Hit]:
        """Every stored span as a v1 hit (``score`` null), in document and page order.

        Raises:
            NotFoundError: the workspace does not exist (checked before the first span, not on iteration).
        """
        self.require_exists()
        # From the primary: a long read of a whole workspace on a hot standby may be cancelled by replay.
        return (hit_from_row(row) for row in self.store.iter_spans(self.workspace))

    def resolve(self, hit: Hit | dict[str, Any] | str) -> Resolution:
        """Where the words of an old hit (a :class:`Hit`, its JSON object, or its id) are in the latest version of
        its document: ``current``, ``moved`` (new page and offsets, the stored span holding them), ``changed`` (the
        section's text now) or ``removed``.

        Raises:
            QueryError: ``hit`` is not a hit nor a hit id.
            NotFoundError: the workspace, or the hit's document, is not there.
        """
        self.require_exists()
        return resolve(self.store, self.workspace, OldHit.parse(hit))

    def diff(self, name: str, from_version: int | None = None, to_version: int | None = None) -> DocumentDiff:
        """The sections of two versions of the document ``name`` compared: added, removed, renumbered, changed
        (default: the version before the latest, and the latest).

        Raises:
            NotFoundError: no such workspace, document or version.
            QueryError: only one version to compare.
        """
        self.require_exists()
        return diff(self.store, self.workspace, name, from_version, to_version)

    def verify(self, tick: Any = None) -> VerifyReport:
        """Re-derive every span from the kept original bytes and compare text and boxes.

        Raises:
            NotFoundError: the workspace does not exist.
        """
        from kruschnexus.verify import verify_workspace

        self.require_exists()
        return verify_workspace(self.store, self.settings, self.workspace, tick)

    def documents(self) -> list[DocumentInfo]:
        """Stored documents of this workspace, by source name.

        Raises:
            NotFoundError: the workspace does not exist.
        """
        self.require_exists()
        return [document_from_row(row) for row in self.store.documents(self.workspace)]

    def versions(self, name: str) -> list[DocumentInfo]:
        """Every version of the document ``name``, oldest first.

        Raises:
            NotFoundError: the workspace does not exist, or has no document of that name.
        """
        self.require_exists()
        infos = [document_from_row(row) for row in self.store.versions(self.workspace, name)]
        if not infos:
            raise NotFoundError(f"no document named {name!r} in workspace {self.workspace!r}")
        return infos

    def document(self, doc_id: str) -> DocumentInfo:
        """One stored document.

        Raises:
            NotFoundError: no such document in this workspace.
        """
        row = self.store.document(self.workspace, doc_id)
        if row is None:
            raise NotFoundError(f"no document {doc_id!r} in workspace {self.workspace!r}")
        return document_from_row(row)

    def create(self) -> bool:
        """Create this workspace bound to the current embedding model (a no-op when it exists with that model); True
        when this call created it (of two racing calls, exactly one).

        Raises:
            EmbedError: the workspace exists but was built with another model.
        """
        created = self.store.ensure_workspace(
            self.workspace, self.embedder.model_id, self.embedder.dim, self.settings.index_build
        )
        self._wrote()
        return created

    def delete(self) -> bool:
        """Delete this workspace, its rows and the kept bytes no other workspace holds; True if it existed."""
        existed, orphans = self.store.delete_workspace_documents(self.workspace)
        self._wrote()
        self.lexicon.drop(self.workspace)
        for doc_id in orphans:
            blobs.forget(self.settings.blob_dir, doc_id)
        return existed

    def delete_document(self, doc_id: str) -> None:
        """Delete one document and, when no workspace holds them any more, its kept bytes.

        Raises:
            NotFoundError: no such document in this workspace.
        """
        existed, orphan = self.store.delete_document(self.workspace, doc_id)
        if not existed:
            raise NotFoundError(f"no document {doc_id!r} in workspace {self.workspace!r}")
        self._wrote()
        self.lexicon.sync(self.store, self.workspace)
        if orphan:
            blobs.forget(self.settings.blob_dir, doc_id)

    def original(self, doc_id: str) -> tuple[Path, DocumentInfo]:
        """Where the kept original bytes of a document are, and the document.

        Raises:
            NotFoundError: no such document, or its kept bytes are gone from ``NEXUS_HOME/blobs``.
        """
        info = self.document(doc_id)
        path = blobs.blob_path(self.settings.blob_dir, doc_id)
        if not path.is_file():
            raise NotFoundError(f"the kept bytes of {info.source} ({doc_id}) are missing from {path.parent}")
        return path, info

    def page(self, doc_id: str, page_number: int) -> PageText:
        """The stored text of one page (or unpaged unit); hit offsets index into its ``text``.

        Raises:
            NotFoundError: no such document or page in this workspace.
        """
        return page_from_row(self._page_row(self.read_store, doc_id, page_number))

    def _page_row(self, store: PgStore, doc_id: str, page_number: int) -> PageRow:
        row = store.page(self.workspace, doc_id, page_number)
        if row is None:
            self.document(doc_id)
            raise NotFoundError(f"document {doc_id!r} has no page {page_number}")
        return row

    def unit(self, doc_id: str, locator: dict[str, Any]) -> PageText:
        """The stored unit of an unpaged document at ``locator`` (a hit's ``locator``); ``page_number`` in the
        result is the unit's number, which :meth:`page_spans` takes.

        Raises:
            NotFoundError: no such document, or no unit there.
        """
        if "\\u0000" in json.dumps(locator):  # json writes a NUL as \\u0000
            raise ConfigError("locator: contains a NUL character")
        row = self.read_store.unit(self.workspace, doc_id, locator)
        if row is None:
            self.document(doc_id)
            raise NotFoundError(f"document {doc_id!r} has no unit at {locator}")
        return page_from_row(row)

    def page_spans(self, doc_id: str, page_number: int) -> list[Hit]:
        """Every stored span of one page as v1 hits (``score`` null), in reading order."""
        store = self.read_store  # one choice of server for both reads
        self._page_row(store, doc_id, page_number)
        return [hit_from_row(row) for row in store.page_spans(self.workspace, doc_id, page_number)]

    def span(self, doc_id: str, page_number: int, char_start: int, char_end: int) -> Hit:
        """The stored span of a page at exactly these offsets, as a v1 hit (``score`` null).

        Raises:
            NotFoundError: no such document, page, or span of that page.
        """
        for hit in self.page_spans(doc_id, page_number):
            if (hit.char_start, hit.char_end) == (char_start, char_end):
                return hit
        raise NotFoundError(f"page {page_number} of {doc_id} has no stored span {char_start}-{char_end}")

    def page_image(self, doc_id: str, page_number: int, dpi: int = 100, boxes: Sequence[Sequence[float]] = ()) -> bytes:
        """A PDF page as displayed, as PNG at ``dpi`` (36-300), with ``boxes`` (hit coordinates) drawn over it.

        Raises:
            NotFoundError: no such page, or the document is not a PDF (units of other formats have no image).
            ConfigError: ``dpi`` is out of range.
        """
        from kruschnexus import pageimage

        if not pageimage.MIN_DPI <= dpi <= pageimage.MAX_DPI:
            raise ConfigError(f"dpi must be between {pageimage.MIN_DPI} and {pageimage.MAX_DPI}, not {dpi}")
        self.page(doc_id, page_number)
        path, info = self.original(doc_id)
        if info.kind != "pdf":
            raise NotFoundError(f"{info.source} is {info.kind}, not a PDF: its units have text but no page image")
        return pageimage.page_png(path, page_number, dpi, boxes)

    def counts(self) -> tuple[int, int, int]:
        """Documents, pages and spans stored."""
        return self.store.counts(self.workspace)

    def doctor(self) -> DoctorReport:
        """Health report: database, pgvector, model, stored models, optional tools, disk."""
        from kruschnexus.doctor import run_checks

        return run_checks(self.settings, lambda: self.store, lambda: self.embedder)
