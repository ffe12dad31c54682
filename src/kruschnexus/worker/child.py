"""The reader process: confines itself, then reads one file at a time on the ingester's requests.

Requests (from the ingester): ``("open", path, kind, options, chunk_max_chars)``, ``("next",)``, ``("close",)``,
``("exit",)``. Answers: ``("opened", kind, page_count, paged, meta, ocr_missing)``; per ``next`` one
``("page", page, chunks)`` (``chunks`` is ``None`` unless ``chunk_max_chars`` was given), or ``("end",)`` after the
last page; ``("closed",)`` after ``close``. A failure ends the file with ``("error", class_name, reason, page)``
(a ``ParseError``), ``("memory",)`` (then the process exits with :data:`MEMORY_EXIT`) or
``("bug", type_name, message, traceback)`` (any other exception).
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import traceback
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from kruschnexus.chunk.chunker import chunk_page
from kruschnexus.chunk.sections import SectionTracker
from kruschnexus.errors import ParseError
from kruschnexus.extract import ReadOptions, open_source
from kruschnexus.model import Page

#: Exit status of a reader that ran out of memory (it says so first when it can).
MEMORY_EXIT = 75
_PR_SET_PDEATHSIG = 1
_M_ARENA_MAX = -8
Message = tuple[Any, ...]


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
        _send(conn, ("ready",))
        while True:
            request = _recv(conn)
            if request[0] != "open":
                return
            _serve_file(conn, Path(request[1]), request[2], request[3], request[4])
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
            opened = (source.kind, source.page_count, source.paged, source.meta, getattr(source, "ocr_missing", None))
            _send(conn, ("opened", *opened))
            _stream(conn, source.pages(), max_chars)
    except ParseError as exc:
        _send(conn, ("error", type(exc).__name__, exc.reason, exc.page))
    except MemoryError:
        _send(conn, ("memory",))
        os._exit(MEMORY_EXIT)  # C libraries may be left half-way: no more files in this process
    except Exception as exc:  # noqa: BLE001 - a reader bug goes back to the ingester with its traceback
        _send(conn, ("bug", type(exc).__name__, str(exc), traceback.format_exc()))


def _stream(conn: Connection, pages: Iterator[Page], max_chars: int | None) -> None:
    tracker = SectionTracker()
    try:
        while _recv(conn)[0] == "next":
            page = next(pages, None)
            if page is None:
                _send(conn, ("end",))
            else:
                chunks = None if max_chars is None else chunk_page(page, tracker, max_chars)
                _send(conn, ("page", page, chunks))
    finally:
        close = getattr(pages, "close", None)  # a generator: stops OCR still queued for pages nobody wants
        if close is not None:
            close()
    _send(conn, ("closed",))


def _recv(conn: Connection) -> Message:
    try:
        message: Message = conn.recv()
    except (EOFError, OSError):
        raise _ParentGone() from None
    return message


def _send(conn: Connection, message: Message) -> None:
    try:
        conn.send(message)
    except OSError:
        raise _ParentGone() from None
