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
from click.testing import CliRunner

from kruschnexus.cli.app import cli
from kruschnexus.config import Settings

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_serve_answers_on_loopback_and_stops_on_ctrl_c(settings: Settings, fixtures_workspace: str) -> None:
    port = _free_port()
    env = {**os.environ, "NEXUS_HOME": str(settings.home), "NEXUS_DATABASE_URL": str(settings.database_url)}
    process = subprocess.Popen(
        [sys.executable, "-m", "kruschnexus", "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, process.communicate()[1]
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "nexus serve did not answer within 120 s"
                time.sleep(0.25)
        assert health.json()["checks"]
        url = f"http://127.0.0.1:{port}/v1/workspaces/{fixtures_workspace}/search"
        hits = httpx.get(url, params={"q": "security deposit"}, timeout=30).json()["hits"]
        assert hits and all(h["schema_version"] == "1.0" for h in hits)
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert out == "", "nexus serve printed to stdout"
    assert f"serving on http://127.0.0.1:{port}/" in err


def test_serve_refuses_a_public_address_without_allow_remote() -> None:
    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--port", "1"])
    assert result.exit_code == 2
    assert "not a loopback address" in result.output and "--allow-remote" in result.output
