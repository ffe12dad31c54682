"""The reader process: confines itself, then reads one file at a time on the ingester's requests (the messages
of :mod:`kruschnexus.worker.messages`).
"""

from __future__ import annotations

import ctypes
import os
import queue
import resource
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path

import kruschnexus.worker.messages as msg
from kruschnexus.chunk.chunker import chunk_page
from kruschnexus.chunk.sections import SectionTracker
from kruschnexus.errors import ParseError
from kruschnexus.extract import ReadOptions, open_source
from kruschnexus.model import Page

#: Exit status of a reader that ran out of memory (it says so first when it can).
MEMORY_EXIT = 75
#: Pages the ingester asks for ahead of the one it works on, and pages read waiting to be sent: reading goes on while
#: the ingester embeds (a batch of spans takes the model longer than reading a page).
AHEAD = 4
_PR_SET_PDEATHSIG = 1
_M_ARENA_MAX = -8


class _ParentGone(BaseException):
    """The ingester closed its end of the pipe: the reader exits."""


def main(argv: list[str]) -> None:
    """Entry point of the reader process: ``argv`` is the socket's file descriptor and the memory cap in MiB."""
    conn = Connection(int(argv[0]))
    confine(int(argv[1]))
    serve(conn)


def serve(conn: Connection) -> None:
    """The reader's main loop: say ``ready``, then serve ``open`` requests until ``exit`` or end of pipe."""
    try:
        _send(conn, msg.Ready())
        while True:
            request = _recv(conn)
            if isinstance(request, msg.Next):
                continue  # asked ahead for a file whose read ended (its end, or an error): nothing to read
            if not isinstance(request, msg.Open):
                return
            _serve_file(conn, Path(request.path), request.kind, request.options, request.chunk_max_chars)
    except _ParentGone:
        return


def confine(memory_mb: int) -> None:
    """Death with the parent (Linux), few malloc arenas, no core files, ``RLIMIT_AS`` of ``memory_mb`` MiB.

    (The parent started this process in a session of its own, so a kill of its group reaches Tesseract too.)
    """
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        libc.mallopt(_M_ARENA_MAX, 2)  # few malloc arenas: the address space follows what is really used
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    cap = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _serve_file(conn: Connection, path: Path, kind: str | None, options: ReadOptions, max_chars: int | None) -> None:
    try:
        with open_source(path, kind, options) as source:
            missing = getattr(source, "ocr_missing", None)
            _send(conn, msg.Opened(source.kind, source.page_count, source.paged, source.meta, missing))
            _stream(conn, source.pages(), max_chars)
    except ParseError as exc:
        _send(conn, msg.Failed(type(exc).__name__, exc.reason, exc.page))
    except MemoryError:
        _send(conn, msg.OutOfMemory())
        os._exit(MEMORY_EXIT)  # C libraries may be left half-way: no more files in this process
    except Exception as exc:  # noqa: BLE001 - a reader bug goes back to the ingester with its traceback
        _send(conn, msg.Bug(type(exc).__name__, str(exc), traceback.format_exc()))


def _stream(conn: Connection, pages: Iterator[Page], max_chars: int | None) -> None:
    """Answer each ``Next`` with the next page (``End`` after the last) until ``Close``. Pages go out through a
    :class:`_Sender`, so that the next page is read while this one waits for the ingester to take it."""
    tracker = SectionTracker()
    sender = _Sender(conn)
    try:
        while isinstance(_recv(conn), msg.Next):
            page = next(pages, None)
            if page is None:
                sender.send(msg.End())
            else:
                chunks = None if max_chars is None else chunk_page(page, tracker, max_chars)
                sender.send(msg.PageRead(page, chunks))
    finally:
        sender.close()  # every page read is sent (or the ingester is gone) before any other answer
        close = getattr(pages, "close", None)  # a generator: stops OCR still queued for pages nobody wants
        if close is not None:
            close()
    _send(conn, msg.Closed())


class _Sender:
    """Sends a file's pages from a thread of its own, in order.

    A page's message is larger than the socket's buffer, so sending it waits until the ingester takes it, which it
    does between embedding batches: sent from the reading thread, it would hold up reading the pages the ingester
    has already asked for. Pages wait here at most :data:`AHEAD` at a time (memory stays flat), and the reading
    thread never sends while this one holds messages (answers stay in order)."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._queue: queue.Queue[msg.Answer | None] = queue.Queue(maxsize=AHEAD)
        self._gone = False
        #: What stopped the thread sending (pickling a page ran out of memory, a page would not pickle): raised in
        #: the reading thread at its next send, so it is answered as it would have been without this thread.
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="reader-sender", daemon=True)
        self._thread.start()

    def send(self, message: msg.Answer) -> None:
        """Queue ``message`` (waits while :data:`AHEAD` are queued).

        Raises:
            _ParentGone: the ingester closed its end.
            BaseException: what stopped an earlier message from being sent.
        """
        self._raise()
        self._queue.put(message)

    def close(self) -> None:
        """Wait until every queued message is sent, then stop the thread (raises as :meth:`send`)."""
        self._queue.put(None)
        self._thread.join()
        self._raise()

    def _raise(self) -> None:
        if self._gone:
            raise _ParentGone()
        if self._failure is not None:
            raise self._failure

    def _run(self) -> None:
        while (message := self._queue.get()) is not None:
            if self._gone or self._failure is not None:
                continue  # drain: the reading thread may still be queueing
            try:
                self._conn.send(message)
            except OSError:
                self._gone = True
            except BaseException as exc:  # noqa: BLE001 - handed to the reading thread, which answers for it
                self._failure = exc


def _recv(conn: Connection) -> msg.Request:
    try:
        message: msg.Request = conn.recv()
    except (EOFError, OSError):
        raise _ParentGone() from None
    return message


def _send(conn: Connection, message: msg.Answer) -> None:
    try:
        conn.send(message)
    except OSError:
        raise _ParentGone() from None
