"""``nexus serve`` as a user runs it: a real process on a loopback port, stopped with Ctrl-C."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

from kruschnexus.config import Settings
from kruschnexus.hub import Hub
from kruschnexus.schema.v1 import SCHEMA_VERSION

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _serve(settings: Settings, host: str, port: int) -> subprocess.Popen[str]:
    env = {**os.environ, "NEXUS_HOME": str(settings.home), "NEXUS_DATABASE_URL": str(settings.database_url)}
    return subprocess.Popen(
        [sys.executable, "-m", "kruschnexus", "serve", "--host", host, "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(process: subprocess.Popen[str], url: str) -> httpx.Response:
    deadline = time.monotonic() + 120
    while True:
        assert process.poll() is None, process.communicate()[1]
        try:
            return httpx.get(url, timeout=5)
        except httpx.TransportError:
            assert time.monotonic() < deadline, "nexus serve did not answer within 120 s"
            time.sleep(0.25)


def _stop(process: subprocess.Popen[str]) -> tuple[str, str]:
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert out == "", "nexus serve printed to stdout"
    return out, err


def test_serve_answers_on_loopback_and_stops_on_ctrl_c(settings: Settings, fixtures_workspace: str) -> None:
    port = _free_port()
    process = _serve(settings, "127.0.0.1", port)
    try:
        health = _wait_for(process, f"http://127.0.0.1:{port}/v1/health")
        assert health.json()["checks"]
        url = f"http://127.0.0.1:{port}/v1/workspaces/{fixtures_workspace}/search"
        hits = httpx.get(url, params={"q": "security deposit"}, timeout=30).json()["hits"]
        assert hits and all(h["schema_version"] == SCHEMA_VERSION for h in hits)
    finally:
        _, err = _stop(process)
    assert f"serving on http://127.0.0.1:{port}/" in err and "no token needed on loopback" in err


def test_serve_beyond_loopback_requires_tokens(settings: Settings, hub: Hub, fixtures_workspace: str) -> None:
    port = _free_port()
    process = _serve(settings, "0.0.0.0", port)
    try:
        url = f"http://127.0.0.1:{port}/v1/workspaces/{fixtures_workspace}/search"
        refused = _wait_for(process, f"{url}?q=rent")
        assert refused.status_code == 401
        token, _ = hub.create_token(fixtures_workspace, "read")
        allowed = httpx.get(url, params={"q": "rent"}, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert allowed.status_code == 200
    finally:
        _, err = _stop(process)
    assert "API tokens required" in err
