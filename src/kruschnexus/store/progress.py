"""Where a long piece of maintenance stands (a table rewrite, a vector index build), read from PostgreSQL's progress
views on a connection of its own while the work runs on another."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import psycopg

from kruschnexus.errors import StoreError
from kruschnexus.store.postgres import PgStore

_log = logging.getLogger(__name__)

#: How often the progress views are read.
EVERY_SECONDS = 0.5

#: The phase of a statement waiting for other sessions' locks (a rewrite waits for every search and ingest).
WAITING = "waiting for other sessions' transactions on the table (searches, ingests) to end"


@dataclass(frozen=True)
class Step:
    """One reading: the phase in PostgreSQL's words, and how far it is in ``unit`` (``None`` when the phase counts
    nothing)."""

    phase: str
    done: int | None = None
    total: int | None = None
    unit: str | None = None


def step_of(row: Mapping[str, Any]) -> Step | None:
    """The step a :data:`~kruschnexus.store.queries.SELECT_MAINTENANCE_PROGRESS` row tells, or ``None`` when the
    backend reports nothing yet (its statement has not started, or has ended).

    A rewrite counts the table's blocks, then the indexes it has built again (the HNSW graph, last, is most of the
    time); an index build counts tuples when it knows how many (pgvector does not say), else the table's blocks."""
    if row.get("waiting"):
        return Step(WAITING)
    phase = row.get("rewrite_phase")
    if phase is not None:
        if phase == "rebuilding index":
            return _counted(str(phase), row, "indexes_done", "indexes_total", "indexes")
        return _counted(str(phase), row, "blocks_done", "blocks_total", "blocks")
    phase = row.get("build_phase")
    if phase is not None:
        if row.get("tuples_total"):
            return _counted(str(phase), row, "tuples_done", "tuples_total", "tuples")
        return _counted(str(phase), row, "build_blocks_done", "build_blocks_total", "blocks")
    return None


def _counted(phase: str, row: Mapping[str, Any], done: str, total: str, unit: str) -> Step:
    """``phase`` with the counts ``row`` holds under ``done`` and ``total``, when it has a total."""
    if not row.get(total):
        return Step(phase)
    return Step(phase, int(row.get(done) or 0), int(row[total]), unit)


@contextlib.contextmanager
def watched(watcher: PgStore, pid: int, report: Callable[[Step], None], every: float = EVERY_SECONDS) -> Iterator[None]:
    """Report the steps of backend ``pid``'s work, read through ``watcher`` (a connection used by nothing else)
    every ``every`` seconds while the block runs. A reading that fails stops the readings, with a warning; the
    work goes on."""
    stop = threading.Event()

    def poll() -> None:
        last: Step | None = None
        while not stop.wait(every):
            try:
                row = watcher.maintenance_progress(pid)
            except (psycopg.Error, StoreError) as exc:
                _log.warning("the progress of backend %s could not be read (%s); no more readings", pid, exc)
                return
            step = step_of(row) if row is not None else None
            if step is not None and step != last:
                report(step)
                last = step

    thread = threading.Thread(target=poll, name="nexus-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
