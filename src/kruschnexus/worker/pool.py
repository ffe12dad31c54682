"""Reader processes kept warm for a long-running server (REST, MCP): an ingest borrows one instead of starting a
process (Python and the PDF, Office and OCR readers imported) for every request.

A reader serves one request only: when it comes back it is stopped and a fresh one is started in its place (it
imports its readers while the server waits for the next request), so whatever a hostile file did to a reader never
meets another request's files."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from kruschnexus.worker.reader import ReadLimits, ReadWorker

#: Idle readers kept between requests; a request that finds none idle starts its own (and gives it back).
KEEP_IDLE = 1


class ReaderPool:
    """Lends :class:`ReadWorker` s, each to one request: at most :data:`KEEP_IDLE` fresh ones wait between
    requests."""

    def __init__(self, limits: ReadLimits) -> None:
        self.limits = limits
        self._idle: list[ReadWorker] = []
        self._lock = threading.Lock()
        self._closed = False

    @property
    def idle(self) -> tuple[ReadWorker, ...]:
        """The readers waiting for a request."""
        with self._lock:
            return tuple(self._idle)

    def warm(self) -> None:
        """Start a reader now (unless :data:`KEEP_IDLE` wait already), so that the next request does not wait."""
        with self._lock:
            if len(self._idle) >= KEEP_IDLE or self._closed:
                return
        worker = ReadWorker(self.limits)
        worker.start()  # before it can be lent: one thread starts it
        with self._lock:
            if len(self._idle) < KEEP_IDLE and not self._closed:
                self._idle.append(worker)
                return
        worker.close()

    @contextlib.contextmanager
    def borrow(self) -> Iterator[ReadWorker]:
        """A fresh reader for one request; stopped afterwards, and another started in its place."""
        with self._lock:
            worker = self._idle.pop() if self._idle else ReadWorker(self.limits)
        try:
            yield worker
        finally:
            worker.close()
            self.warm()

    def close(self) -> None:
        """Stop the idle readers; readers lent out are stopped when they come back."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.close()
