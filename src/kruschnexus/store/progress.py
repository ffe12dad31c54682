"""Where a long piece of maintenance stands (a table rewrite, a vector index build), read from PostgreSQL's progress
views on a connection of its own while the work runs on another."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import psycopg

from kruschnexus.errors import StoreError
from kruschnexus.store import queries as q
from kruschnexus.store.postgres import PgStore
from kruschnexus.store.records import ProgressRow

_log = logging.getLogger(__name__)

#: The watcher's session as ``pg_stat_activity`` names it.
APPLICATION_NAME = "nexus progress"

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


def step_of(row: ProgressRow) -> Step | None:
    """The step ``row`` tells, or ``None`` when the backend reports nothing yet (its statement has not started, or has
    ended).

    A rewrite counts the table's blocks, then the indexes it has built again (the HNSW graph, last, is most of the
    time); an index build counts tuples when it knows how many (pgvector does not say while it builds the graph,
    only while the build is validated), else the table's blocks."""
    if row.waiting:
        return Step(WAITING)
    if row.rewrite_phase is not None:
        if row.rewrite_phase == "rebuilding index":
            return _counted(row.rewrite_phase, row.indexes_done, row.indexes_total, "indexes")
        return _counted(row.rewrite_phase, row.blocks_done, row.blocks_total, "blocks")
    if row.build_phase is not None:
        if row.tuples_total:
            return _counted(row.build_phase, row.tuples_done, row.tuples_total, "tuples")
        return _counted(row.build_phase, row.build_blocks_done, row.build_blocks_total, "blocks")
    return None


def _counted(phase: str, done: int | None, total: int | None, unit: str) -> Step:
    """``phase``, with ``done`` of ``total`` ``unit`` when there is a total."""
    if not total:
        return Step(phase)
    return Step(phase, int(done or 0), int(total), unit)


@contextlib.contextmanager
def watched(watcher: PgStore, pid: int, report: Callable[[Step], None], every: float = EVERY_SECONDS) -> Iterator[None]:
    """Report the steps of backend ``pid``'s work, read through ``watcher`` (a connection used by nothing else)
    every ``every`` seconds while the block runs; ``report`` is called from a thread of its own, never after the block.
    A reading that fails, or a ``report`` that raises, stops the readings with a warning; the work goes on."""
    watcher.conn.execute(q.SET_APPLICATION_NAME, {"name": APPLICATION_NAME})
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
            if step is None or step == last:
                continue
            try:
                report(step)
            except Exception:  # noqa: BLE001 - a caller's function: what it raises is logged, the work goes on
                _log.exception("showing the progress of backend %s failed; no more readings", pid)
                return
            last = step

    thread = threading.Thread(target=poll, name="nexus-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
