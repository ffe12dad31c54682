"""The embedded server's own settings: its buffer cache is sized to the machine (or to ``NEXUS_PG_SHARED_BUFFERS``)
when it starts, through a file its ``postgresql.conf`` includes once."""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import pytest

from kruschnexus.store.buffers import SETTINGS_FILE, configure, shared_buffers
from kruschnexus.store.embedded import EmbeddedServer

pytestmark = pytest.mark.integration


def _buffers(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT pg_size_bytes(current_setting('shared_buffers'))").fetchone()
    assert row is not None
    return int(row[0])


def _bytes(size: str) -> int:
    assert size.endswith("MB"), size
    return int(size[:-2]) << 20


def test_nexus_conf_is_private_and_postgresql_conf_keeps_its_mode(tmp_path: Path) -> None:
    """The settings file is 0600 (as the server's own files) and owned as the folder; postgresql.conf is appended to,
    never rewritten, and a file that is not UTF-8 does not stop it; a folder without postgresql.conf is left alone."""
    pgdata = tmp_path / "pgdata"
    pgdata.mkdir()
    assert not configure(pgdata, "160MB") and not (pgdata / SETTINGS_FILE).exists()
    conf = pgdata / "postgresql.conf"
    conf.write_bytes(b"# caf\xe9: not UTF-8\nmax_connections = 100")
    conf.chmod(0o640)
    assert configure(pgdata, "160MB") and configure(pgdata, "176MB")
    assert conf.read_bytes() == (
        b"# caf\xe9: not UTF-8\nmax_connections = 100\n# KruschNexus: the embedded server's own settings\n"
        + f"include_if_exists = '{SETTINGS_FILE}'\n".encode()
    )
    assert conf.stat().st_mode & 0o777 == 0o640
    written = pgdata / SETTINGS_FILE
    assert written.read_text(encoding="utf-8") == "shared_buffers = '176MB'\n"
    assert written.stat().st_mode & 0o777 == 0o600 and written.stat().st_uid == pgdata.stat().st_uid
    assert sorted(p.name for p in pgdata.iterdir()) == [SETTINGS_FILE, "postgresql.conf"], "no staged file left"


@pytest.mark.skipif(bool(os.environ.get("NEXUS_TEST_DSN")), reason="an external server's settings are its DBA's")
def test_the_session_server_runs_with_a_quarter_of_the_memory(database_url: str) -> None:
    assert _buffers(database_url) == _bytes(shared_buffers("auto"))


def test_a_configured_size_applies_and_the_include_is_written_once(tmp_path: Path) -> None:
    server = EmbeddedServer(tmp_path / "pgdata", "160MB")
    assert server.buffers == f"{160 << 10}kB"
    try:
        assert _buffers(server.start()) == 160 << 20
    finally:
        server.stop()
    configure(tmp_path / "pgdata", "144MB")  # as the next start does
    conf = (tmp_path / "pgdata" / "postgresql.conf").read_text(encoding="utf-8")
    assert conf.count(f"include_if_exists = '{SETTINGS_FILE}'") == 1
    assert (tmp_path / "pgdata" / SETTINGS_FILE).read_text(encoding="utf-8") == "shared_buffers = '144MB'\n"
    again = EmbeddedServer(tmp_path / "pgdata", "144MB")
    try:
        assert _buffers(again.start()) == 144 << 20
    finally:
        again.stop()
