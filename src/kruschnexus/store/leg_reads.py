"""The retrieval legs' reads: a leg's statement run in its workspace's scope with the HNSW settings it needs, the
cosines of given spans beside it, and the planner's estimates the dense leg chooses its ranking by."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from psycopg import sql
from psycopg.rows import tuple_row

from kruschnexus.config import EF_SEARCH
from kruschnexus.store import queries as q
from kruschnexus.store.base import StoreBase, all_rows, read
from kruschnexus.store.records import LegRow
from kruschnexus.store.writer import Connection


class LegReads(StoreBase):
    """The retrieval legs' reads (a part of :class:`~kruschnexus.store.postgres.PgStore`)."""

    @read
    def run_leg(
        self,
        query: Any,
        params: Mapping[str, Any],
        ef_search: int = EF_SEARCH,
        planned_for_values: bool = False,
        exact: bool = False,
        work_mem: str | None = None,
    ) -> list[LegRow]:
        """Run one retrieval leg for ``params["workspace"]`` (HNSW with a beam of ``ef_search`` and iterative
        scans, so filters keep recall); ``planned_for_values``: plan this run for its own values, never a cached
        generic plan (see :attr:`~kruschnexus.store.queries.SpanFilter.planned_for_values`); ``exact``: no index
        scan, so a dense leg ranks by the exact distance of every span (what ``bench/search.py`` measures the
        HNSW index's recall against); ``work_mem``: PostgreSQL's ``work_mem`` for this leg's transaction alone
        (``32MB``), the server's own when omitted."""
        with self._leg_scope(params, ef_search, planned_for_values, work_mem) as conn:
            if exact:
                conn.execute("SET LOCAL enable_indexscan = off")
            return all_rows(conn, LegRow, query, params)

    @read
    def run_leg_and_cosines(
        self,
        query: Any,
        params: Mapping[str, Any],
        ef_search: int,
        planned_for_values: bool,
        seeds: Sequence[tuple[str, int, int]],
        dim: int,
    ) -> tuple[list[LegRow], dict[tuple[str, int, int], float]]:
        """:meth:`run_leg` (never exact), and in the same transaction the cosines to ``params["vector"]`` of the
        ``seeds`` (span keys; :func:`~.queries.span_cosines`: spans of another dimension have none)."""
        with self._leg_scope(params, ef_search, planned_for_values) as conn:
            rows = all_rows(conn, LegRow, query, params)
            others = list(dict.fromkeys(seeds))
            if not others:
                return rows, {}
            bound = {"workspace": params["workspace"], "vector": params["vector"], **q.key_arrays(others)}
            with conn.cursor(row_factory=tuple_row) as cur:
                found = cur.execute(q.span_cosines(dim), bound).fetchall()
        return rows, {(doc, page, ordinal): float(cosine) for doc, page, ordinal, cosine in found}

    def passing_estimate(
        self, query: Any, params: Mapping[str, Any], planned_for_values: bool = False
    ) -> tuple[float, float]:
        """``(spans the planner expects to pass, spans stored)`` for a :func:`~.queries.passing_plan` statement,
        under the scope :meth:`run_leg` uses."""
        with (
            self._leg_scope(params, EF_SEARCH, planned_for_values) as conn,
            conn.cursor(row_factory=tuple_row) as cur,
        ):
            plan = cur.execute(query, dict(params)).fetchone()
            stored = _spans_stored(cur)
        rows = float(plan[0][0]["Plan"]["Plan Rows"]) if plan is not None else 0.0
        return rows, stored

    def spans_stored(self, workspace: str) -> float:
        """How many spans the table holds, as the planner last counted them (every workspace's: the HNSW index
        holds them all), read under ``workspace``'s scope."""
        with self.scoped(workspace) as conn, conn.cursor(row_factory=tuple_row) as cur:
            return _spans_stored(cur)

    def explain_leg(
        self, query: Any, params: Mapping[str, Any], ef_search: int = EF_SEARCH, planned_for_values: bool = False
    ) -> list[str]:
        """The planner's plan of one retrieval leg under the settings :meth:`run_leg` uses, line by line."""
        with (
            self._leg_scope(params, ef_search, planned_for_values) as conn,
            conn.cursor(row_factory=tuple_row) as cur,
        ):
            return [str(row[0]) for row in cur.execute(sql.SQL("EXPLAIN ") + query, dict(params))]

    @contextlib.contextmanager
    def _leg_scope(
        self, params: Mapping[str, Any], ef_search: int, planned_for_values: bool, work_mem: str | None = None
    ) -> Iterator[Connection]:
        """A leg's transaction: its workspace's scope, HNSW with a beam of ``ef_search``, iterative scans (and
        ``work_mem`` when given)."""
        settings = {"hnsw.ef_search": str(ef_search), "hnsw.iterative_scan": "relaxed_order"}
        if planned_for_values:
            settings["plan_cache_mode"] = "force_custom_plan"
        if work_mem is not None:
            settings["work_mem"] = work_mem
        with self.scoped(str(params["workspace"]), settings) as conn:
            yield conn


def _spans_stored(cur: Any) -> float:
    """The planner's count of the spans table's rows (:data:`~.queries.SELECT_SPANS_ESTIMATE`), on a tuple cursor."""
    row = cur.execute(q.SELECT_SPANS_ESTIMATE).fetchone()
    return float(row[0]) if row is not None else 0.0
