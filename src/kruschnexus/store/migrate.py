"""Ordered, append-only SQL migrations, each applied once in its own transaction and recorded."""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from importlib import resources
from typing import Any

import psycopg
from psycopg.rows import tuple_row

from kruschnexus.errors import SchemaBusy

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_LOCK_KEY = 0x6E657875  # advisory lock: one migrator at a time
_log = logging.getLogger(__name__)

#: How long a migration's statement waits for a lock other sessions hold before the upgrade is tried again.
LOCK_TIMEOUT = "5s"
#: Tries of the whole upgrade, and the pause after the first (growing by as much after each, at most 10 s).
ATTEMPTS = 4
RETRY_PAUSE_SECONDS = 2.0


@dataclass(frozen=True)
class Migration:
    """One numbered SQL file."""

    version: int
    name: str
    sql: str


def available() -> list[Migration]:
    """Every migration shipped with the package, in order."""
    out: list[Migration] = []
    for entry in resources.files("kruschnexus.store").joinpath("migrations").iterdir():
        m = _NAME.match(entry.name)
        if m:
            out.append(Migration(int(m.group(1)), m.group(2), entry.read_text(encoding="utf-8")))
    return sorted(out, key=lambda mig: mig.version)


def migrate(
    conn: psycopg.Connection[Any], lock_timeout: str = LOCK_TIMEOUT, attempts: int = ATTEMPTS
) -> list[Migration]:
    """Apply pending migrations; returns those applied now.

    A migration's statement waits at most ``lock_timeout`` for a lock other sessions hold (a search's or an
    ingest's transaction on the table it changes): a statement waiting for an exclusive lock queues every later
    reader of the table behind it, so a long wait would stall every search. The whole upgrade is then rolled back
    and tried again after a pause, ``attempts`` times in all.

    Raises:
        SchemaBusy: every attempt waited too long (nothing of the upgrade is applied).
    """
    for attempt in range(1, attempts + 1):
        try:
            return _migrate_once(conn, lock_timeout)
        except psycopg.errors.LockNotAvailable as exc:
            if attempt == attempts:
                raise SchemaBusy(
                    f"the database's schema was not upgraded: {attempts} tries each waited more than {lock_timeout}"
                    f" for other sessions' transactions ({str(exc).strip()}). Let long ingests, reindexes or"
                    " open transactions end, then start again"
                ) from exc
            pause = min(RETRY_PAUSE_SECONDS * attempt, 10.0)
            _log.warning(
                "upgrading the schema waited more than %s for other sessions' transactions (try %d of %d); again in"
                " %.1f s",
                lock_timeout,
                attempt,
                attempts,
                pause,
            )
            time.sleep(pause)
    return []  # attempts < 1: nothing tried


def _migrate_once(conn: psycopg.Connection[Any], lock_timeout: str) -> list[Migration]:
    applied_now: list[Migration] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))  # another migrator: waits for it, unbounded
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        with conn.cursor(row_factory=tuple_row) as cur:
            done = {row[0] for row in cur.execute("SELECT version FROM schema_migrations").fetchall()}
        pending = [mig for mig in available() if mig.version not in done]
        if pending:
            conn.execute("SELECT set_config('lock_timeout', %s, true)", (lock_timeout,))
        for mig in pending:
            conn.execute(mig.sql.encode())
            conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (mig.version, mig.name))
            applied_now.append(mig)
    return applied_now
