"""Reader processes kept warm for a long-running server (REST, MCP): an ingest borrows one instead of starting a
process (Python and the PDF, Office and OCR readers imported) for every request."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from kruschnexus.worker.reader import ReadLimits, ReadWorker

#: Idle readers kept between requests; a request that finds none idle starts its own (and gives it back).
KEEP_IDLE = 1


class ReaderPool:
    """Lends :class:`ReadWorker` s: at most :data:`KEEP_IDLE` wait between requests, each used by one request at a
    time; a reader that failed with an error the caller did not handle is closed, not kept."""

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
        """Start one reader now, so that the first request does not wait for it."""
        with self._lock:
            if self._idle or self._closed:
                return
            worker = ReadWorker(self.limits)
            self._idle.append(worker)
        worker.start()

    @contextlib.contextmanager
    def borrow(self) -> Iterator[ReadWorker]:
        """A reader for one request, given back afterwards."""
        with self._lock:
            worker = self._idle.pop() if self._idle else ReadWorker(self.limits)
        try:
            yield worker
        except BaseException:
            worker.close()
            raise
        with self._lock:
            if not self._closed and len(self._idle) < KEEP_IDLE:
                self._idle.append(worker)
                return
        worker.close()

    def close(self) -> None:
        """Stop the idle readers; readers lent out are stopped when they come back."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.close()
