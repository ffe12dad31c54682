"""Reading in a child process the ingester can kill: a time limit per file, a memory cap, crashes contained.

Everything CPU-bound and driven by the file's bytes (sniffing, opening, parsing, layout, OCR, cutting spans) runs
in a *reader process* (:mod:`kruschnexus.worker.child`); the ingester keeps embedding and the database. One
:class:`ReadWorker` owns one reader process, started on first use (a fresh interpreter, ``sys.executable -c``: no
``multiprocessing`` main-module re-import, so a script without an ``if __name__ == "__main__"`` guard is safe; it
takes about a second to import the readers, not counted in any file's time) and reused for file after file. The
reader:

- runs in a session of its own (its Tesseract processes share its process group, so a kill takes them too), dies
  with its parent (Linux ``PR_SET_PDEATHSIG``), caps its address space at ``memory_mb`` MiB (``RLIMIT_AS``,
  inherited by Tesseract), writes no core files and never writes to stdout;
- answers one file at a time over a socket pair (:mod:`kruschnexus.worker.messages`): ``Open`` -> ``Opened`` (kind,
  page count, meta), then one ``PageRead`` (a page and its spans) per ``Next``, ``End`` after the last, ``Closed``
  after ``Close``. The ingester keeps :data:`~kruschnexus.worker.child.AHEAD` pages asked for ahead of the one it
  works on, and the reader sends pages from a thread of its own, so reading the next pages overlaps embedding and
  storing this one (a page's message is larger than the socket's buffer: sent from the reading thread it would
  hold up reading until the ingester took it); at most that many pages are in flight (memory stays flat however
  long the document). Requests still queued when a file's read ends in an error are dropped by the reader.

Time: the ingester counts only the seconds it waits for the reader. Opening may take ``timeout`` seconds; a paged
document (PDF) then gets ``page_timeout`` more per page; and no single wait (opening, or one page) may exceed
``timeout``, so a hang is stopped after ``timeout`` seconds however long the document is. Over either limit the
process group is killed and the file fails with a :class:`~kruschnexus.errors.ParseError`
("took longer than 120 s to read; stopped"); the next file starts a fresh process.

Failures inside the reader come back as they would in-process: a ``ParseError`` as a ``ParseError`` for the same
path and page, a ``MemoryError`` (the cap) as "needed more than 2048 MB to read; stopped" (so is a death by a
signal with the reader's peak memory, noted while it works, near the cap: a C library that cannot allocate aborts
rather than raise), any other death by a signal as "the reader crashed (signal 11, SIGSEGV); stopped", and any
other exception, a reader bug, as a
:class:`ReaderBugError` carrying the child's traceback.

This contains crashes, hangs and memory blow-ups; it is not a security boundary against code execution (the
reader runs as the same user). Messages from the reader are unpickled with an allow-list: the answer classes and
the page types.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from types import TracebackType
from typing import Any, NoReturn

from kruschnexus.config import Settings
from kruschnexus.errors import ParseError, UnsupportedFormatError
from kruschnexus.extract import ReadOptions
from kruschnexus.model import Chunk, Page
from kruschnexus.worker.child import AHEAD, MEMORY_EXIT
from kruschnexus.worker.messages import (
    ANSWERS,
    Answer,
    Bug,
    Close,
    End,
    Exit,
    Failed,
    Next,
    Open,
    Opened,
    OutOfMemory,
    PageRead,
    Ready,
    Request,
)

#: Seconds a reader asked to exit gets before it is killed.
GRACE_SECONDS = 5.0
#: Seconds a new reader may take to start (import the readers); not counted in any file's time.
START_SECONDS = 60.0
_BOOT = "import sys; from kruschnexus.worker.child import main; main(sys.argv[1:])"
#: How often (seconds) a wait for the reader notes its peak memory.
PEAK_EVERY = 0.1
#: A reader killed by a signal whose peak resident size came within this much of its memory cap (or to half of
#: it, for small caps) died of the cap: its address space holds this much more than it touches (libraries mapped).
AT_CAP_SLACK = 256 * 1024 * 1024
#: Classes a reader's messages may contain besides builtins (pages, spans and what they hold).
_ALLOWED = {("kruschnexus.model", name) for name in ("Page", "Block", "BlockKind", "Line", "Cell", "Chunk")} | {
    (cls.__module__, cls.__name__) for cls in ANSWERS
}
_SAFE_BUILTINS = frozenset({"list", "dict", "tuple", "set", "frozenset", "str", "int", "float", "bool", "bytes"})


@dataclass(frozen=True)
class ReadLimits:
    """Limits of the reader process (see the module docstring).

    Attributes:
        timeout: seconds to open a file, and the most any one wait (opening, one page) may take.
        page_timeout: seconds added to a paged document's budget per page.
        memory_mb: address space of the reader process in MiB.
    """

    timeout: float = 120.0
    page_timeout: float = 20.0
    memory_mb: int = 2048

    @classmethod
    def from_settings(cls, settings: Settings) -> ReadLimits:
        """``NEXUS_PARSE_TIMEOUT``, ``NEXUS_PARSE_PAGE_TIMEOUT`` and ``NEXUS_PARSE_MEMORY_MB``."""
        return cls(settings.parse_timeout, settings.parse_page_timeout, settings.parse_memory_mb)

    def memory_reason(self) -> str:
        """Why a file that hit the memory cap failed."""
        return f"needed more than {self.memory_mb} MB to read; stopped"


class ReaderBugError(RuntimeError):
    """An exception other than ``ParseError`` escaped a reader: a bug to fix, reported with the child's traceback.

    Attributes:
        path: the file being read.
        type_name: the exception's class name in the reader.
        remote_traceback: the traceback as the reader formatted it.
    """

    def __init__(self, path: str, type_name: str, message: str, remote_traceback: str) -> None:
        self.path = path
        self.type_name = type_name
        self.remote_traceback = remote_traceback
        super().__init__(f"{type_name}: {message}")


class _Stopped(Exception):
    """Internal: the reader was killed or died; ``reason`` says why (one line)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class ReadWorker:
    """One reader process, started on first use and reused across files; replaced after a kill or a crash.

    Use as a context manager, or call :meth:`close` when done.
    """

    def __init__(self, limits: ReadLimits | None = None) -> None:
        self.limits = limits or ReadLimits()
        #: Reader processes started so far (the first, plus one after each kill or crash).
        self.started = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._conn: Connection | None = None
        self._ready = False
        #: The live reader's peak resident size in bytes, as last seen (0: not seen yet).
        self._peak = 0

    def __enter__(self) -> ReadWorker:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """Process id of the live reader, if any."""
        return None if self._process is None else self._process.pid

    def start(self) -> None:
        """Start the reader now (it imports the readers while the caller does other work); :meth:`open` starts
        it when needed anyway."""
        if self._process is None or self._process.poll() is not None:
            self._kill()
            self._spawn()

    def open(
        self,
        path: Path,
        kind: str | None = None,
        options: ReadOptions | None = None,
        chunk_max_chars: int | None = None,
    ) -> RemoteSource:
        """Open ``path`` in the reader (as ``kind``, else as its bytes and suffix say); with ``chunk_max_chars``
        the reader also cuts each page into spans (see :meth:`RemoteSource.chunked_pages`).

        Raises:
            ParseError: the file cannot be read, or the reader ran over a limit or crashed.
            ReaderBugError: the reader raised something else.
        """
        source = RemoteSource(self, path)
        request = Open(str(path), kind, options or ReadOptions(), chunk_max_chars)
        try:
            self._ready_conn(path).send(request)
        except OSError:  # the reader died while idle (after a file that broke it): start another
            self._kill()
            self._ready_conn(path).send(request)
        source.expect_opened()
        return source

    def close(self) -> None:
        """Ask the reader to exit; kill it if it does not within :data:`GRACE_SECONDS`."""
        if self._process is not None and self._conn is not None:
            with contextlib.suppress(OSError):  # a reader already gone is what closing wants
                self._conn.send(Exit())
            with contextlib.suppress(subprocess.TimeoutExpired):  # killed just below
                self._process.wait(GRACE_SECONDS)
        self._kill()

    def post(self, message: Request) -> None:
        """Send a request about the open file; a reader that died is reported by the next :meth:`receive`."""
        if self._conn is None:
            return
        with contextlib.suppress(OSError):
            self._conn.send(message)

    def receive(self, allowed: float) -> Answer | None:
        """The reader's next message, or ``None`` when none came within ``allowed`` seconds.

        Raises:
            _Stopped: the reader died (the reason names the signal or the memory cap).
        """
        conn = self._conn
        assert conn is not None
        deadline = time.monotonic() + max(0.0, allowed)
        try:
            # Waited in short steps, noting the reader's peak memory at each (see _death_reason).
            while not conn.poll(max(0.0, min(PEAK_EVERY, deadline - time.monotonic()))):
                self._note_peak()
                if time.monotonic() >= deadline:
                    return None
            data = conn.recv_bytes()
        except (EOFError, OSError):
            raise _Stopped(self._death_reason()) from None
        try:
            return _loads(data)
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError) as exc:
            self._kill()
            raise _Stopped(f"the reader sent an unreadable answer ({exc}); stopped") from None

    def stop(self) -> None:
        """Kill the reader (its whole process group) now."""
        self._kill()

    def _spawn(self) -> None:
        ours, theirs = socket.socketpair()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))}
        command = [sys.executable, "-c", _BOOT, str(theirs.fileno()), str(self.limits.memory_mb)]
        try:
            self._process = subprocess.Popen(
                command,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,  # its own process group: a kill reaches its Tesseract processes too
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # stdout may be a protocol channel (the MCP server)
                env=env,
            )
        finally:
            theirs.close()
        self._conn = Connection(ours.detach())
        self._ready = False
        self._peak = 0
        self.started += 1

    def _note_peak(self) -> None:
        """Keep the reader's own peak resident size (``VmHWM``; a process that has died has none to read)."""
        process = self._process
        if process is None:
            return
        with contextlib.suppress(OSError, ValueError, StopIteration):
            with open(f"/proc/{process.pid}/status", encoding="ascii") as status:
                line = next(line for line in status if line.startswith("VmHWM:"))
            self._peak = max(self._peak, int(line.split()[1]) * 1024)

    def _ready_conn(self, path: Path) -> Connection:
        """The connection to a reader that has finished starting (not counted in any file's time)."""
        self.start()
        conn = self._conn
        assert conn is not None
        if not self._ready:
            try:
                answered = conn.poll(START_SECONDS)
                ready = answered and isinstance(_loads(conn.recv_bytes()), Ready)
            except (EOFError, OSError, pickle.UnpicklingError):
                answered, ready = True, False
            if not ready:
                if answered:  # it died (or said something else) while starting
                    raise ParseError(path, f"while starting, {self._death_reason()}")
                self._kill()
                raise ParseError(path, f"the reader process did not start within {START_SECONDS:g} s")
            self._ready = True
        return conn

    def _death_reason(self) -> str:
        process = self._process
        assert process is not None
        try:
            code = process.wait(GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            code = None
        self._kill()
        if code is None:
            return "the reader stopped answering; stopped"
        if code == MEMORY_EXIT:
            return self.limits.memory_reason()
        cap = self.limits.memory_mb * 1024 * 1024
        if code < 0 and self._peak >= max(cap / 2, cap - AT_CAP_SLACK):
            # A C library (pdfium's, Tesseract's) that cannot allocate under the cap aborts or faults instead of
            # raising MemoryError: a reader that died by a signal with its memory near the cap died of the cap.
            return self.limits.memory_reason()
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = "unknown signal"
            return f"the reader crashed (signal {-code}, {name}); stopped"
        return f"the reader exited unexpectedly (exit status {code}); stopped"

    def _kill(self) -> None:
        """Kill the reader's process group (Tesseract included) and reap the reader."""
        process, conn = self._process, self._conn
        self._process = self._conn = None
        self._ready = False
        if conn is not None:
            conn.close()
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone already
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


class RemoteSource:
    """A file opened in the reader process: ``kind``, ``page_count``, ``paged``, ``meta`` and ``ocr_missing`` as
    the in-process source has them, and :meth:`pages` streamed from the reader under the time limits."""

    def __init__(self, worker: ReadWorker, path: Path) -> None:
        self.path = path
        self.kind = ""
        self.page_count = 0
        self.paged = False
        self.meta: dict[str, Any] = {}
        self.ocr_missing: str | None = None
        self._worker = worker
        self._limits = worker.limits
        self._budget = worker.limits.timeout
        self._spent = 0.0
        self._live = False
        self._asked = 0
        self._delivered = 0

    def __enter__(self) -> RemoteSource:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def expect_opened(self) -> None:
        """Wait for the reader to open the file (raises as :meth:`ReadWorker.open` says)."""
        message = self._receive(None)
        if not isinstance(message, Opened):
            self._fail(message, None)
        self.kind, self.page_count, self.paged = message.kind, message.page_count, message.paged
        self.meta, self.ocr_missing = message.meta, message.ocr_missing
        self._live = True
        if self.paged:
            self._budget += self._limits.page_timeout * self.page_count

    def pages(self) -> Iterator[Page]:
        """Every page or unit in order (the next one is read while the caller works on this one).

        Raises:
            ParseError: a page cannot be read, or the reader ran over a limit or crashed (``page`` set).
            ReaderBugError: the reader raised something else.
        """
        for message in self._stream():
            yield message.page

    def chunked_pages(self) -> Iterator[tuple[Page, list[Chunk]]]:
        """Every page or unit in order with its spans, cut in the reader by
        :func:`~kruschnexus.chunk.chunker.chunk_page` with one section tracker for the whole document (the file
        must have been opened with ``chunk_max_chars``; raises as :meth:`pages`)."""
        for message in self._stream():
            if message.chunks is None:
                raise ValueError("the file was opened without chunk_max_chars")
            yield message.page, message.chunks

    def _stream(self) -> Iterator[PageRead]:
        if not self._live:
            return
        while self._asked < AHEAD:
            self._ask()
        while True:
            number = self._delivered + 1
            message = self._receive(number)
            self._asked -= 1
            if isinstance(message, End):
                return
            if not isinstance(message, PageRead):
                self._fail(message, number)
            self._delivered += 1
            self._ask()
            yield message

    def close(self) -> None:
        """Let the reader close the file (a page still being read is waited for, within the limits)."""
        if not self._live:
            return
        try:
            while self._asked:
                message = self._receive(self._delivered + 1, closing=True)
                self._asked -= 1
                if not isinstance(message, PageRead | End):
                    self._live = False  # the read ended in an error nobody asked for any more
                    return
            self._worker.post(Close())
            self._receive(None, closing=True)
        except ParseError:
            pass  # the reader was killed for running over while closing; the next file gets a new one
        self._live = False

    def _ask(self) -> None:
        self._worker.post(Next())
        self._asked += 1

    def _receive(self, page: int | None, closing: bool = False) -> Answer:
        """The reader's next message within the time left (at least :data:`GRACE_SECONDS` to close a file whose
        budget is spent); over the limit the reader is killed."""
        step = self._limits.timeout
        left = self._budget - self._spent
        allowed = min(step, max(left, GRACE_SECONDS) if closing else left)
        started = time.monotonic()
        try:
            message = self._worker.receive(allowed)
        except _Stopped as exc:
            self._live = False
            raise ParseError(self.path, exc.reason, page) from None
        finally:
            self._spent += time.monotonic() - started
        if message is None:
            self._worker.stop()
            self._live = False
            raise ParseError(self.path, self._timeout_reason(left < step), page)
        return message

    def _timeout_reason(self, whole_file: bool) -> str:
        if not whole_file:
            return f"took longer than {self._limits.timeout:g} s to read; stopped"
        return (
            f"took longer than {self._budget:g} s to read ({self._limits.timeout:g} s + {self._limits.page_timeout:g}"
            f" s for each of {self.page_count} pages); stopped"
        )

    def _fail(self, message: Answer, page: int | None) -> NoReturn:
        """Raise what the reader reported; after any of these the reader holds no file."""
        self._live = False
        if isinstance(message, Failed):
            cls = UnsupportedFormatError if message.class_name == "UnsupportedFormatError" else ParseError
            raise cls(self.path, message.reason, message.page)
        if isinstance(message, OutOfMemory):
            self._worker.stop()
            raise ParseError(self.path, self._limits.memory_reason(), page)
        if isinstance(message, Bug):
            raise ReaderBugError(str(self.path), message.type_name, message.message, message.traceback)
        self._worker.stop()
        raise ParseError(self.path, f"the reader answered out of turn ({type(message).__name__}); stopped", page)


class _PageUnpickler(pickle.Unpickler):
    """Unpickles only builtins and the page types."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED or (module == "builtins" and name in _SAFE_BUILTINS):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a reader message may not contain {module}.{name}")


def _loads(data: bytes) -> Answer:
    message = _PageUnpickler(io.BytesIO(data)).load()
    if not isinstance(message, ANSWERS):
        raise pickle.UnpicklingError(f"a reader message is an answer, not {type(message).__name__}")
    return message
