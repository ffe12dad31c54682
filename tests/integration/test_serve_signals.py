"""``nexus serve`` stopped by SIGTERM (a service manager, ``docker stop``, ``kill``) releases the embedded
PostgreSQL it started, as Ctrl-C does. A real process with its own data folder, a real signal."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _postmasters(pgdata: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if proc.info["name"] == "postgres" and str(pgdata) in cmdline:
            found.append(proc)
    return found


def test_sigterm_stops_the_embedded_database(tmp_path: Path) -> None:
    home, port = tmp_path / "home", _free_port()
    env = {**os.environ, "NEXUS_HOME": str(home)}
    env.pop("NEXUS_DATABASE_URL", None)
    log = tmp_path / "serve.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "kruschnexus", "serve", "--port", str(port), "--log-level", "warning"],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, log.read_text(errors="replace")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=2) as response:
                    assert response.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline, "nexus serve did not answer within 120 s"
                time.sleep(0.5)
        assert _postmasters(home / "pgdata"), "the server runs its own embedded PostgreSQL"
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
        deadline = time.monotonic() + 30
        while _postmasters(home / "pgdata") and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not _postmasters(home / "pgdata"), "SIGTERM left the embedded PostgreSQL running"
    finally:
        if server.poll() is None:
            server.kill()
        for proc in _postmasters(home / "pgdata"):
            proc.kill()
