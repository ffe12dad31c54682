"""The embedded server's own settings: its buffer cache is sized to the machine (or to ``NEXUS_PG_SHARED_BUFFERS``)
when it starts, through a file its ``postgresql.conf`` includes once."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import psycopg
import pytest

from kruschnexus.errors import StoreError
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


def _maps_what_it_asks() -> bool:
    """The kernel refuses a shared mapping far larger than its memory (heuristic or strict overcommit)."""
    try:
        return Path("/proc/sys/vm/overcommit_memory").read_text(encoding="ascii").strip() != "1"
    except OSError:
        return False


@pytest.mark.skipif(not _maps_what_it_asks(), reason="this kernel maps any size (vm.overcommit_memory = 1)")
def test_a_start_that_fails_with_auto_s_size_starts_with_postgresql_s_default(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``auto`` may ask more than a host lets PostgreSQL map: the server then starts with 128 MB, and says so.
    A size the settings name is not second-guessed: its failure is the error, naming the size."""
    server = EmbeddedServer(tmp_path / "pgdata")
    if server.fallback is None:
        pytest.skip(f"auto is PostgreSQL's default here ({server.buffers}): nothing to fall back to")
    server.buffers = "1000GB"  # as if auto had chosen more than this host maps
    try:
        with caplog.at_level(logging.WARNING, logger="kruschnexus.store.embedded"):
            assert _buffers(server.start()) == 128 << 20
    finally:
        server.stop()
    assert "did not start" in caplog.text and "shared_buffers 128MB instead of 1000GB" in caplog.text
    assert (tmp_path / "pgdata" / SETTINGS_FILE).read_text(encoding="utf-8") == "shared_buffers = '128MB'\n"
    given = EmbeddedServer(tmp_path / "pgdata", "1000GB")
    assert given.fallback is None
    with pytest.raises(StoreError, match=r"did not start .*shared_buffers: 1048576000kB"):
        given.start()
    again = EmbeddedServer(tmp_path / "pgdata", "144MB")  # nothing of the failed starts is left behind
    try:
        assert _buffers(again.start()) == 144 << 20
    finally:
        again.stop()


def test_a_start_that_fails_for_another_reason_is_not_tried_with_less_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Only a server that could not have its shared memory starts again with a smaller cache: any other failure (here
    a setting out of range) is the error, at once, and says what the server logged."""
    server = EmbeddedServer(tmp_path / "pgdata")
    try:
        server.start()
    finally:
        server.stop()
    with (tmp_path / "pgdata" / "postgresql.conf").open("a", encoding="utf-8") as conf:
        conf.write("\nmax_connections = -1\n")
    broken = EmbeddedServer(tmp_path / "pgdata")
    broken.fallback = "128MB"  # as on a machine where auto asks for more than PostgreSQL's default
    with caplog.at_level(logging.WARNING, logger="kruschnexus.store.embedded"):
        with pytest.raises(StoreError, match=r"(?s)did not start.*max_connections"):
            broken.start()
    assert "instead of" not in caplog.text, "not started again with less memory"


def test_the_settings_file_is_written_only_when_its_size_changes(tmp_path: Path) -> None:
    pgdata = tmp_path / "pgdata"
    pgdata.mkdir()
    (pgdata / "postgresql.conf").write_text("max_connections = 100\n", encoding="utf-8")
    assert configure(pgdata, "160MB")
    first = (pgdata / SETTINGS_FILE).stat()
    assert configure(pgdata, "160MB")
    assert (pgdata / SETTINGS_FILE).stat().st_ino == first.st_ino, "the same file: not replaced"
    assert configure(pgdata, "176MB")
    assert (pgdata / SETTINGS_FILE).read_text(encoding="utf-8") == "shared_buffers = '176MB'\n"
