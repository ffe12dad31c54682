"""Killing ``nexus ingest`` (SIGKILL) mid-document leaves no trace of it; running it again finishes the job."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from kruschnexus.config import Settings
from tests.pdfgen import long_agreement

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PAGES = 60


def _ingest_cmd(path: Path, workspace: str) -> list[str]:
    return [sys.executable, "-m", "kruschnexus", "ingest", str(path), "--workspace", workspace, "--json"]


def _state(dsn: str, workspace: str) -> tuple[int, int, int]:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM documents WHERE workspace = %(w)s),"
            " (SELECT count(*) FROM pages WHERE workspace = %(w)s),"
            " (SELECT count(*) FROM spans WHERE workspace = %(w)s)",
            {"w": workspace},
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


def test_sigkill_mid_ingest_leaves_nothing_then_rerun_completes(
    settings: Settings, workspace: str, tmp_path: Path
) -> None:
    pdf = long_agreement(tmp_path / "long.pdf", PAGES)
    assert settings.database_url is not None
    env = {**os.environ, "NEXUS_HOME": str(settings.home), "NEXUS_DATABASE_URL": settings.database_url}
    rng = random.Random(20261202)
    kills = 0
    for _ in range(3):
        proc = subprocess.Popen(
            _ingest_cmd(pdf, workspace), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(rng.uniform(2.0, 6.0))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
        docs, pages, spans = _state(settings.database_url, workspace)
        assert (docs, pages, spans) == (0, 0, 0) or (docs == 1 and pages == PAGES and spans > 0)
        if docs:
            break
    assert kills >= 1, "the ingest finished before any kill: make the document longer"
    done = subprocess.run(_ingest_cmd(pdf, workspace), env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    docs, pages, spans = _state(settings.database_url, workspace)
    assert docs == 1 and pages == PAGES and spans >= PAGES * 4
    verify = subprocess.run(
        [sys.executable, "-m", "kruschnexus", "verify", "--workspace", workspace, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
