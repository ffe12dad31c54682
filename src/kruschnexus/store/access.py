"""Who may do what: API tokens, and what the connected role cannot do (with what a DBA runs to lift it)."""

from __future__ import annotations

from dataclasses import dataclass

from psycopg import sql

from kruschnexus.store import queries as q
from kruschnexus.store.base import CATALOGUE, StoreBase, all_rows, one_row, read
from kruschnexus.store.records import RoleStandingRow, TokenRecord, TokenRow, TokenSecretRow, values

__all__ = ["LOOKUP_FUNCTIONS", "Access", "RoleLimit"]


@dataclass(frozen=True)
class RoleLimit:
    """Something the connected role cannot do, and the statement a DBA runs so that it can."""

    what: str
    fix: str


#: The functions of the indexed conditions of a section look-up or a quoted phrase, which row security lets an index
#: answer only when LEAKPROOF (migration 0008 marks them so when it runs as a superuser).
LOOKUP_FUNCTIONS = ("textlike(text, text)", "texticregexeq(text, text)", "arrayoverlap(anyarray, anyarray)")


class Access(StoreBase):
    """API tokens and the connected role's standing (a part of :class:`~kruschnexus.store.postgres.PgStore`)."""

    @read
    def role_limits(self) -> list[RoleLimit]:
        """What the connected role cannot do that the store would use, each with what a DBA runs to lift it
        (empty: nothing is missing)."""
        with self.scoped(CATALOGUE) as conn:
            row = one_row(conn, RoleStandingRow, q.SELECT_ROLE_STANDING, {})
        assert row is not None
        limits = []
        if not row.fulltext_leakproof:
            limits.append(
                RoleLimit(
                    "full-text matching is not LEAKPROOF, so under row security the full-text leg of a search of"
                    " older versions scans its workspace instead of using the GIN index (5-10x slower)",
                    "ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF;  -- as a superuser",
                )
            )
        if not row.lookups_leakproof:
            limits.append(
                RoleLimit(
                    "LIKE, case-insensitive regular expressions and array overlap are not LEAKPROOF, so under row"
                    " security a question that names a section ranks every span of its workspace instead of using"
                    " the section indexes (0.5 s instead of 5 ms at 10^5 spans)",
                    " ".join(f"ALTER FUNCTION pg_catalog.{f} LEAKPROOF;" for f in LOOKUP_FUNCTIONS)
                    + "  -- as a superuser",
                )
            )
        if row.owner is not None and row.owner != row.role and not row.superuser:
            limits.append(
                RoleLimit(
                    f"the tables belong to {row.owner}, not {row.role}: a new version's migrations cannot run",
                    f"connect as {row.owner} once after upgrading, or, as a superuser (or a member of both roles):"
                    f" REASSIGN OWNED BY {_quoted(row.owner)} TO {_quoted(row.role)};",
                )
            )
        return limits

    def role_summary(self) -> str:
        """Who the connection acts as, and what binds it to one workspace at a time."""
        with self.scoped(CATALOGUE) as conn:
            row = one_row(conn, RoleStandingRow, q.SELECT_ROLE_STANDING, {})
        assert row is not None
        if row.superuser or row.bypass_rls:
            return f"{row.role} on {row.database} bypasses row security: workspace transactions act as nexus_workspace"
        if row.owner is not None and row.owner != row.role:
            return (
                f"{row.role} on {row.database} (no superuser, not the tables' owner {row.owner}): row security binds it"
            )
        return f"{row.role} on {row.database} (no superuser): row security binds it as the tables' owner"

    def insert_token(self, token: TokenRecord) -> None:
        """Store a new API token (its secret hashed by the caller)."""
        with self.scoped(CATALOGUE) as conn:
            conn.execute(q.INSERT_TOKEN, values(token))

    @read
    def token(self, token_id: str) -> TokenSecretRow | None:
        """One token by id (revoked ones included), or ``None``."""
        with self.scoped(CATALOGUE) as conn:
            return one_row(conn, TokenSecretRow, q.SELECT_TOKEN, {"token_id": token_id})

    @read
    def tokens(self, workspace: str) -> list[TokenRow]:
        """The tokens of a workspace, without their hashes."""
        with self.scoped(CATALOGUE) as conn:
            return all_rows(conn, TokenRow, q.SELECT_TOKENS, {"workspace": workspace})

    def revoke_token(self, token_id: str) -> bool:
        """Revoke a token; True if it was live."""
        with self.scoped(CATALOGUE) as conn:
            return conn.execute(q.REVOKE_TOKEN, {"token_id": token_id}).rowcount > 0


def _quoted(name: str) -> str:
    """A role name as SQL writes it (for advice shown to a DBA, never run here)."""
    return sql.Identifier(name).as_string(None)
