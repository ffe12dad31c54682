"""The one owner of the database server: the external one (``NEXUS_DATABASE_URL``) or the embedded one under
``NEXUS_HOME``, how connections to it are opened, and what happens when it goes away.

A lost connection is replaced by :meth:`Database.reconnect`: a dead embedded server is restarted first
(PostgreSQL's crash recovery), and a server that does not answer is retried with a growing back-off, each caller
told :class:`~kruschnexus.errors.StoreUnavailable` with a ``retry_after`` meanwhile rather than waiting.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from kruschnexus.errors import ConfigError, SchemaBusy, StoreError, StoreUnavailable
from kruschnexus.store.embedded import EmbeddedServer
from kruschnexus.store.postgres import PgStore
from kruschnexus.store.writer import Connection

#: A server that has just restarted refuses connections while it replays its log: tried this long per call.
CONNECT_PATIENCE_SECONDS = 3.0
#: Back-off between failed reconnections, doubling from the first value up to the second.
BACKOFF_SECONDS = (0.5, 5.0)


class Database:
    """The database of one process: open with :meth:`connect`, release with :meth:`close`.

    Reads may go to a streaming replica (:meth:`connect_replica`). Each write made through this process is noted
    (:meth:`note_write`, its log position on the primary), and :meth:`caught_up` tells whether a replica has
    replayed it, so that a search right after an ingest sees the ingest: on the replica once it has replayed it,
    else on the primary.

    Args:
        url: an external server's DSN; ``None`` for the embedded server in ``pgdata``.
        pgdata: the embedded server's data folder.
        read_url: a streaming replica of ``url`` for reads (``None``: reads go to ``url`` too).
        shared_buffers: the embedded server's ``shared_buffers`` (``Settings.pg_shared_buffers``).

    Raises:
        ConfigError: a replica without an external primary.
    """

    def __init__(
        self, url: str | None, pgdata: Path, read_url: str | None = None, shared_buffers: str = "auto"
    ) -> None:
        if read_url is not None and url is None:
            raise ConfigError(
                "NEXUS_READ_DATABASE_URL needs NEXUS_DATABASE_URL: a replica streams from an external primary"
            )
        self.url = url
        self.read_url = read_url
        self._written = 0
        self._written_lock = threading.Lock()  # not the reconnect lock: a reconnect may take seconds
        self.pgdata = pgdata
        self.shared_buffers = shared_buffers
        self._server: EmbeddedServer | None = None
        self._dsn: str | None = url
        self._lock = threading.Lock()
        self._retry_at = 0.0
        self._backoff = BACKOFF_SECONDS[0]

    def connect(self) -> PgStore:
        """A new connection (the embedded server started or joined on first use).

        Raises:
            StoreError: the server cannot be reached or lacks pgvector.
        """
        return PgStore(self._current_dsn(), reconnect=self.reconnect)

    def connect_replica(self) -> PgStore | None:
        """A new connection to the replica, or ``None`` when reads go to the primary.

        Raises:
            StoreError: the replica cannot be reached, is not in recovery, or lacks this version's schema.
        """
        return None if self.read_url is None else PgStore(self.read_url, replica=True)

    def note_write(self, primary: PgStore) -> None:
        """Remember that this process has written up to the primary's current log position."""
        position = primary.wal_position()
        with self._written_lock:
            self._written = max(self._written, position)

    def caught_up(self, replica: PgStore, wait: float) -> bool:
        """Whether ``replica`` has replayed every write noted here, waiting up to ``wait`` seconds for it."""
        with self._written_lock:
            written = self._written
        deadline = time.monotonic() + wait
        pause = 0.02
        while True:
            replayed = replica.replayed_position()
            if replayed is not None and replayed >= written:
                return True
            if time.monotonic() + pause > deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.25)

    def reconnect(self) -> Connection:
        """A fresh connection after one was lost: a dead embedded server is restarted first.

        Raises:
            StoreUnavailable: the server is not back yet (``retry_after`` says when to try again).
        """
        with self._lock:
            wait = self._retry_at - time.monotonic()
            if wait > 0:
                raise StoreUnavailable("the database is not back yet", retry_after=max(1, round(wait)))
            try:
                dsn = self._current_dsn()
                if self._server is not None and not self._server.alive():
                    dsn = self._dsn = self._server.restart()
                conn = _connect_patiently(dsn)
            except StoreError as exc:
                self._retry_at = time.monotonic() + self._backoff
                retry = max(1, round(self._backoff))
                self._backoff = min(self._backoff * 2, BACKOFF_SECONDS[1])
                raise StoreUnavailable(f"the database is not back yet: {exc}", retry_after=retry) from exc
            self._retry_at, self._backoff = 0.0, BACKOFF_SECONDS[0]
            return conn

    def close(self) -> None:
        """Release the embedded server (it stops when no process holds it)."""
        with self._lock:
            if self._server is not None:
                self._server.stop()
                self._server = None
                self._dsn = None

    def _current_dsn(self) -> str:
        if self._dsn is None:
            self._server = EmbeddedServer(self.pgdata, self.shared_buffers)
            self._dsn = self._server.start()
        return self._dsn


def _connect_patiently(dsn: str) -> Connection:
    """Connect, trying again for a few seconds while a restarted server replays its log."""
    deadline = time.monotonic() + CONNECT_PATIENCE_SECONDS
    pause = 0.05
    while True:
        try:
            return PgStore.open_connection(dsn)
        except SchemaBusy:
            raise  # the upgrade waited its own while already
        except StoreError:
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
