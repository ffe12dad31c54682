"""Shared fixtures: one embedded PostgreSQL per run (or NEXUS_TEST_DSN), an isolated NEXUS_HOME, the real model."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
CORPUS = ROOT.parent / "shared" / "corpus"

needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"the shared corpus is not beside this clone ({CORPUS} is absent)"
)


@pytest.fixture(autouse=True)
def _isolate_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No NEXUS_* variable of the developer's shell leaks into a test."""
    for name in list(os.environ):
        if name.startswith("NEXUS_") and name not in ("NEXUS_TEST_DSN", "NEXUS_REGEN_GOLDEN"):
            monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def nexus_home() -> Iterator[Path]:
    """This run's data folder (never the user's), removed at the end.

    Not under pytest's basetemp: pytest prunes old basetemps at start, which would pull the data folder
    from under a server still used by a concurrent run.
    """
    home = Path(tempfile.mkdtemp(prefix="nexus-test-"))
    home.chmod(0o755)
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def database_url(nexus_home: Path) -> Iterator[str]:
    """DSN of the database under test: NEXUS_TEST_DSN, or an embedded server started once and stopped at the end."""
    external = os.environ.get("NEXUS_TEST_DSN")
    if external:
        yield external
        return
    from kruschnexus.store.embedded import EmbeddedServer

    server = EmbeddedServer(nexus_home / "pgdata")
    dsn = server.start()
    try:
        yield dsn
    finally:
        server.stop()


@pytest.fixture(scope="session")
def settings(nexus_home: Path, database_url: str) -> Settings:
    """Settings for integration tests (environment ignored)."""
    return Settings.load(overrides={"home": nexus_home, "database_url": database_url}, env={})


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real bundled model, loaded once."""
    from kruschnexus.embed.local import MiniLmEmbedder

    return MiniLmEmbedder(threads=2)


@pytest.fixture
def workspace() -> str:
    """A fresh workspace name."""
    return "t-" + uuid.uuid4().hex[:12]


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> None:
    """Environment for CLI runs: this run's home and database."""
    monkeypatch.setenv("NEXUS_HOME", str(settings.home))
    assert settings.database_url is not None
    monkeypatch.setenv("NEXUS_DATABASE_URL", settings.database_url)
