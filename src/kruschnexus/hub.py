"""What a long-running server shares between requests: settings, one database, one loaded model, a small pool
of connections. The REST API and the MCP server hold one :class:`Hub`; each request borrows a :class:`Corpus`.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Iterator
from types import TracebackType

from kruschnexus import tokens
from kruschnexus.config import Settings, check_workspace_name
from kruschnexus.corpus import Corpus
from kruschnexus.doctor import DoctorReport, run_checks
from kruschnexus.embed.base import Embedder
from kruschnexus.embed.registry import make_embedder
from kruschnexus.errors import StoreError, StoreUnavailable
from kruschnexus.lexical.sync import Lexicon
from kruschnexus.schema.v1 import WorkspaceInfo
from kruschnexus.store.database import Database
from kruschnexus.store.postgres import PgStore
from kruschnexus.wire import workspace_from_row
from kruschnexus.worker import ReaderPool, ReadLimits

POOL_WAIT_SECONDS = 30.0


class Hub:
    """Shared resources of one server process. Use as a context manager, or call :meth:`close`.

    Args:
        settings: configuration of the whole process.
        embedder: an already loaded model to share; built from ``settings.embedder`` when omitted.
        connections: most database connections open at once (requests beyond it wait their turn).
    """

    def __init__(self, settings: Settings, embedder: Embedder | None = None, connections: int = 4) -> None:
        self.settings = settings
        self._embedder = embedder
        self._lock = threading.Lock()
        self.database = Database(
            settings.database_url, settings.pgdata, settings.read_database_url, settings.pg_shared_buffers
        )
        self._primary = _Pool(self.database.connect, max(1, connections), "database")
        self._replica = _Pool(self._connect_replica, max(1, connections), "replica")
        self.lexicon = Lexicon(settings.lexical_dir)
        #: Reader processes kept warm for ingests (an upload does not wait for one to start).
        self.readers = ReaderPool(ReadLimits.from_settings(settings))

    def __enter__(self) -> Hub:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def embedder(self) -> Embedder:
        """The shared embedding model (loaded on first use)."""
        with self._lock:
            if self._embedder is None:
                self._embedder = make_embedder(self.settings)
            return self._embedder

    def start(self) -> None:
        """Start (or join) the database and load the model now rather than on the first request."""
        with self._store():
            pass
        _ = self.embedder
        self.readers.warm()

    def close(self) -> None:
        """Stop the idle readers, close every idle connection and the lexical indexes, release the embedded server."""
        self.readers.close()
        self.lexicon.close()
        self._primary.close()
        self._replica.close()
        self.database.close()

    @contextlib.contextmanager
    def corpus(self, workspace: str) -> Iterator[Corpus]:
        """A :class:`Corpus` for ``workspace`` on a borrowed connection, returned to the pool afterwards."""
        name = check_workspace_name(workspace)
        with self._store() as store, contextlib.ExitStack() as stack:
            replica = self._borrow_replica(stack)
            yield Corpus(
                name,
                settings=self.settings,
                embedder=self.embedder,
                store=store,
                lexicon=self.lexicon,
                readers=self.readers,
                database=self.database,
                replica=replica,
            )

    def _borrow_replica(self, stack: contextlib.ExitStack) -> PgStore | None:
        """A pooled replica connection for the request, or ``None`` (no replica, or it cannot be reached now: the
        corpus then tries once itself and reads the primary, saying why in ``read_from``)."""
        if self.database.read_url is None:
            return None
        try:
            return stack.enter_context(self._replica.borrowed())
        except StoreError:
            return None

    def _connect_replica(self) -> PgStore:
        replica = self.database.connect_replica()
        if replica is None:
            raise StoreError("no replica is configured (NEXUS_READ_DATABASE_URL)")
        return replica

    def workspaces(self) -> list[WorkspaceInfo]:
        """Every workspace with its model and document count."""
        with self._store() as store:
            return [workspace_from_row(row) for row in store.workspaces()]

    def authenticate(self, presented: str) -> tokens.Grant:
        """The grant of an API token (see :mod:`kruschnexus.tokens`).

        Raises:
            AuthError: malformed, unknown or revoked.
        """
        with self._store() as store:
            return tokens.authenticate(store, presented)

    def create_token(self, workspace: str, mode: tokens.Mode = "read", label: str = "") -> tuple[str, tokens.TokenInfo]:
        """Issue a token for one workspace; the token string is returned once and never stored."""
        with self._store() as store:
            return tokens.create(store, check_workspace_name(workspace), mode, label)

    def tokens(self, workspace: str) -> list[tokens.TokenInfo]:
        """The tokens of a workspace (no secrets)."""
        with self._store() as store:
            return tokens.listing(store, check_workspace_name(workspace))

    def revoke_token(self, token_id: str) -> None:
        """Revoke a token at once."""
        with self._store() as store:
            tokens.revoke(store, token_id)

    def doctor(self) -> DoctorReport:
        """The health report ``nexus doctor`` prints, on a pooled connection; while the database is away (or
        restarting) its check fails and the report is unhealthy, rather than the call raising."""
        with contextlib.ExitStack() as borrowed:
            return run_checks(self.settings, lambda: borrowed.enter_context(self._store()), lambda: self.embedder)

    @contextlib.contextmanager
    def _store(self) -> Iterator[PgStore]:
        with self._primary.borrowed() as store:
            yield store


class _Pool:
    """At most ``limit`` connections of one kind (the primary's or the replica's), reused while sound."""

    def __init__(self, open_store: Callable[[], PgStore], limit: int, what: str) -> None:
        self._open = open_store
        self._limit = limit
        self._what = what
        self._idle: queue.LifoQueue[PgStore] = queue.LifoQueue()
        self._opened = 0
        self._closed = False
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def borrowed(self) -> Iterator[PgStore]:
        """A connection for the block, given back (or closed, when unsound) afterwards.

        Raises:
            StoreUnavailable: every connection stayed busy for ``POOL_WAIT_SECONDS``.
        """
        store = self._borrow()
        try:
            yield store
        finally:
            self._give_back(store)

    def close(self) -> None:
        """Close every idle connection; those still borrowed are closed when given back."""
        with self._lock:
            self._closed = True
        while True:
            try:
                store = self._idle.get_nowait()
            except queue.Empty:
                break
            store.close()
            with self._lock:
                self._opened -= 1

    def _borrow(self) -> PgStore:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            room = self._opened < self._limit
            if room:
                self._opened += 1
        if room:
            try:
                return self._open()
            except BaseException:
                with self._lock:
                    self._opened -= 1
                raise
        try:
            return self._idle.get(timeout=POOL_WAIT_SECONDS)
        except queue.Empty:
            raise StoreUnavailable(
                f"all {self._limit} {self._what} connections stayed busy for {POOL_WAIT_SECONDS:.0f} s", retry_after=5
            ) from None

    def _give_back(self, store: PgStore) -> None:
        with self._lock:
            closed = self._closed
        if closed or not store.reusable:
            store.close()
            with self._lock:
                self._opened -= 1
            return
        self._idle.put(store)
