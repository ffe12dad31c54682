"""Ordered, append-only SQL migrations, each applied once in its own transaction and recorded."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

import psycopg
from psycopg.rows import tuple_row

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_LOCK_KEY = 0x6E657875  # advisory lock: one migrator at a time


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


def migrate(conn: psycopg.Connection[Any]) -> list[Migration]:
    """Apply pending migrations; returns those applied now."""
    applied_now: list[Migration] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        with conn.cursor(row_factory=tuple_row) as cur:
            done = {row[0] for row in cur.execute("SELECT version FROM schema_migrations").fetchall()}
        for mig in available():
            if mig.version in done:
                continue
            conn.execute(mig.sql.encode())
            conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (mig.version, mig.name))
            applied_now.append(mig)
    return applied_now
