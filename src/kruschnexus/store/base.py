"""What every part of the store stands on: a connection, the transaction scoped to one workspace that every read
and write runs in, the retry of a read whose connection was lost, and rows read as typed records."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Concatenate, ParamSpec, TypeVar

import psycopg
from psycopg.rows import class_row

from kruschnexus.errors import StoreUnavailable
from kruschnexus.store import queries as q
from kruschnexus.store.writer import Connection

__all__ = ["CATALOGUE", "StoreBase", "all_rows", "one_row", "read"]

_P = ParamSpec("_P")
_T = TypeVar("_T")
_R = TypeVar("_R")
_S = TypeVar("_S", bound="StoreBase")

CATALOGUE = "*"
"""The scope of operations across workspaces (listing them, sharing kept bytes); not a valid workspace name."""


def all_rows(conn: Connection, record: type[_R], statement: Any, params: Mapping[str, Any]) -> list[_R]:
    """Every row of ``statement`` as a ``record``."""
    with conn.cursor(row_factory=class_row(record)) as cur:
        return cur.execute(statement, dict(params)).fetchall()


def one_row(conn: Connection, record: type[_R], statement: Any, params: Mapping[str, Any]) -> _R | None:
    """The first row of ``statement`` as a ``record``, or ``None``."""
    with conn.cursor(row_factory=class_row(record)) as cur:
        return cur.execute(statement, dict(params)).fetchone()


def read(method: Callable[Concatenate[_S, _P], _T]) -> Callable[Concatenate[_S, _P], _T]:
    """A read that failed because the connection was lost runs once more, on a fresh connection."""

    @functools.wraps(method)
    def once_more(store: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return method(store, *args, **kwargs)
        except StoreUnavailable:
            if store._reconnect is None:
                raise
            return method(store, *args, **kwargs)

    return once_more


class StoreBase:
    """A connection to a migrated database, and the scoped transactions every part of the store runs in (see
    :class:`~kruschnexus.store.postgres.PgStore`, which opens it)."""

    conn: Connection
    _reconnect: Callable[[], Connection] | None
    #: Acting for a workspace takes the role ``nexus_workspace`` (the connected role bypasses row security).
    _lower_role: bool

    @contextlib.contextmanager
    def scoped(self, workspace: str, settings: Mapping[str, str] | None = None) -> Iterator[Connection]:
        """A transaction acting for ``workspace`` (:data:`CATALOGUE` for every workspace): row-level security
        shows and accepts only its rows. Nested use keeps the outer scope's role. ``settings``: more
        transaction-local settings (name to value), set in the same statement.

        A connection found lost is replaced first (see :class:`~kruschnexus.store.database.Database`).

        Raises:
            StoreUnavailable: the connection was lost during the transaction (nothing of it is committed).
        """
        if self.conn.closed or self.conn.broken:
            self._replace_connection()
        try:
            with self.conn.transaction():
                extra = list((settings or {}).items())
                params = {"workspace": workspace}
                for i, (name, value) in enumerate(extra):
                    params[f"setting_{i}"], params[f"value_{i}"] = name, value
                lower = self._lower_role and workspace != CATALOGUE
                self.conn.execute(q.scope_statement(lower, len(extra)), params)
                yield self.conn
        except psycopg.OperationalError as exc:
            if self.conn.closed or self.conn.broken:
                raise StoreUnavailable(f"the connection to the database was lost: {exc}") from exc
            raise

    def _replace_connection(self) -> None:
        if self._reconnect is None:
            raise StoreUnavailable("the connection to the database was lost")
        self.conn.close()
        self.conn = self._reconnect()
