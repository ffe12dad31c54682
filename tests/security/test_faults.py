"""Faults on the database's side: the embedded server killed under a serving hub, connections dropped during an
ingest batch, two writers of one document at once, and error bodies that show nothing of the server's insides.

Each test that kills or drops something runs its own embedded server in its own NEXUS_HOME (``embedded_home``,
never the session's).
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient

from kruschnexus import Corpus
from kruschnexus.api.app import create_app
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.hub import Hub
from kruschnexus.ingest import FileResult
from kruschnexus.store.embedded import BACKENDS_EXIT_SECONDS
from tests.pdfgen import long_agreement

pytestmark = pytest.mark.integration

QUERY = "balance sheet certified by a Financial Officer"

#: What a client must never see in an error: absolute paths, connection strings, SQL, reprs, tracebacks.
LEAKS = (
    re.compile(r"(?<![\w.:/])/(?:[\w.@-]+/)+"),
    re.compile(r"postgres(?:ql)?://|host=|\.s\.PGSQL", re.IGNORECASE),
    re.compile(r"\b(?:SELECT|INSERT INTO|UPDATE|DELETE FROM)\b.+\b(?:FROM|VALUES|SET|WHERE)\b"),
    re.compile(r"Traceback|object at 0x|\w+Error\(|psycopg"),
)


def leaks(text: str) -> list[str]:
    """The forbidden fragments in ``text``."""
    return [m.group(0) for pattern in LEAKS for m in pattern.finditer(text)]


def test_the_leak_check_catches_what_it_must() -> None:
    assert leaks('connection to server on socket "/tmp/x/pgdata/.s.PGSQL.5432" failed')
    assert leaks("cannot connect to PostgreSQL (postgresql://***@/postgres)")
    assert leaks("INSERT INTO documents (a) VALUES (1)") and leaks("OperationalError('x')")
    assert not leaks("the database is unavailable for a moment; retry shortly")
    assert not leaks("refused 'passwd': is outside the ingest roots; see https://kruschnexus.dev/problems/503")


def _postmaster(home: Path) -> int | None:
    from kruschnexus.store.embedded import _postmaster_pid

    return _postmaster_pid(home / "pgdata")


def _settings(home: Path, **overrides: Any) -> Settings:
    return Settings.load(overrides={"home": home, **overrides}, env={})


def _search_until_answered(client: TestClient, workspace: str, seconds: float) -> list[int]:
    """Search every 0.2 s until a 200 with hits; every other answer must be a 503 problem with Retry-After."""
    statuses: list[int] = []
    deadline = time.monotonic() + seconds
    while True:
        response = client.get(f"/v1/workspaces/{workspace}/search", params={"q": QUERY})
        statuses.append(response.status_code)
        if response.status_code == 200 and response.json()["hits"]:
            return statuses
        assert response.status_code == 503, (response.status_code, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
        assert int(response.headers["retry-after"]) >= 1
        assert not leaks(response.text), response.text
        assert time.monotonic() < deadline, f"not recovered within {seconds} s: {statuses}"
        time.sleep(0.2)


def _search_until_restarted(
    client: TestClient, workspace: str, home: Path, killed: int, seconds: float
) -> tuple[list[int], int]:
    """Search (as :func:`_search_until_answered`) until a new postmaster runs; returns every status and its pid.

    A backend of the killed postmaster may still answer a question that reaches it before it notices the death
    (a right answer, from what it already holds); the restart comes with the next connection that is lost.
    """
    statuses: list[int] = []
    deadline = time.monotonic() + seconds
    while True:
        statuses += _search_until_answered(client, workspace, max(deadline - time.monotonic(), 0.0))
        now = _postmaster(home)
        if now is not None and now != killed:
            return statuses, now
        assert time.monotonic() < deadline, f"the server was not restarted within {seconds} s: {statuses}"
        time.sleep(0.2)


def test_a_killed_embedded_server_is_restarted_under_a_serving_hub(
    embedded_home: Path, embedder: Embedder, tmp_path: Path
) -> None:
    """SIGKILL the postmaster between requests and during a burst: no 500 ever, answers again within seconds,
    nothing stored is lost and every span still re-proves."""
    doc = long_agreement(tmp_path / "agreement_3p.pdf", 3)
    with Hub(_settings(embedded_home), embedder=embedder, connections=3) as hub:
        client = TestClient(create_app(hub), raise_server_exceptions=False)
        with doc.open("rb") as handle:
            response = client.post(
                "/v1/workspaces/faults/documents", files=[("files", (doc.name, handle))], data={"create": "true"}
            )
        assert response.status_code == 200, response.text
        assert _search_until_answered(client, "faults", 5) == [200]

        first = _postmaster(embedded_home)
        assert first is not None
        os.kill(first, signal.SIGKILL)
        statuses, second = _search_until_restarted(client, "faults", embedded_home, first, BACKENDS_EXIT_SECONDS + 20)
        print(f"after the first kill: {statuses}")  # noqa: T201

        # Killed while requests are in flight on every pooled connection: each thread asks until the kill, then
        # five more times.
        answers: list[tuple[bool, int]] = []
        killed = threading.Event()

        def burst() -> None:
            after = 0
            while after < 5:
                after += killed.is_set()
                status = client.get("/v1/workspaces/faults/search", params={"q": QUERY}).status_code
                answers.append((killed.is_set(), status))

        threads = [threading.Thread(target=burst) for _ in range(3)]
        for thread in threads:
            thread.start()
        time.sleep(0.3)
        os.kill(second, signal.SIGKILL)
        killed.set()
        for thread in threads:
            thread.join(timeout=120)
        assert not any(thread.is_alive() for thread in threads)
        assert {status for _, status in answers} <= {200, 503}, answers
        assert sum(1 for after, _ in answers if after) >= 15, answers
        _search_until_restarted(client, "faults", embedded_home, second, BACKENDS_EXIT_SECONDS + 20)
        print(f"burst around the second kill (after it?, status): {answers}")  # noqa: T201

        with hub.corpus("faults") as corpus:
            assert [d.source for d in corpus.documents()] == [doc.name]
            assert corpus.verify().ok


def test_a_corpus_whose_server_died_closes_and_the_next_one_starts_it(
    embedded_home: Path, embedder: Embedder, tmp_path: Path
) -> None:
    """The postmaster killed and nothing asked since: closing stops nothing and raises nothing, and the next corpus
    on the same data folder starts a new server that holds what was stored."""
    doc = long_agreement(tmp_path / "agreement_3p.pdf", 3)
    with Corpus("faults", settings=_settings(embedded_home), embedder=embedder) as corpus:
        corpus.create()
        assert [r.status for r in corpus.ingest([doc])] == ["ingested"]
        first = _postmaster(embedded_home)
        assert first is not None
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while _postmaster(embedded_home) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _postmaster(embedded_home) is None
    with Corpus("faults", settings=_settings(embedded_home), embedder=embedder) as corpus:
        assert [d.source for d in corpus.documents()] == [doc.name]
        second = _postmaster(embedded_home)
        assert second is not None and second != first
        assert corpus.search(QUERY, k=3) and corpus.verify().ok


class _DropConnections:
    """An ingest progress listener that, after each file, has the server end every connection of the workspace's
    ingest (``pg_terminate_backend``, as a restart or a network fault would)."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.dropped = 0

    def file_started(self, path: Path, pages: int) -> None:
        """Unused."""

    def page_done(self, path: Path) -> None:
        """Unused."""

    def file_done(self, result: FileResult) -> None:
        with psycopg.connect(self.dsn, autocommit=True) as admin:
            rows = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE pid <> pg_backend_pid() AND backend_type = 'client backend' AND datname = current_database()"
            ).fetchall()
        self.dropped += len(rows)


def test_an_ingest_batch_goes_on_after_its_connection_is_dropped(
    embedded_home: Path, embedder: Embedder, tmp_path: Path
) -> None:
    docs = [long_agreement(tmp_path / f"agreement_{n}p.pdf", n) for n in (2, 3, 4)]
    with Corpus("batch", settings=_settings(embedded_home), embedder=embedder) as corpus:
        corpus.create()
        dsn = corpus.store.conn.info.dsn
        dropper = _DropConnections(dsn)
        results = corpus.ingest(docs, progress=dropper)
        assert dropper.dropped >= 2
        assert [r.status for r in results] == ["ingested"] * 3, [(r.status, r.reason) for r in results]
        assert len(corpus.documents()) == 3
        assert corpus.verify().ok


def test_two_writers_of_one_document_store_it_once_without_an_error(
    settings: Settings, embedder: Embedder, workspace: str, tmp_path: Path
) -> None:
    """Both ingests read and embed the same bytes at once; one stores it, the other says "unchanged"."""
    doc = long_agreement(tmp_path / "agreement_6p.pdf", 6)
    results: list[FileResult] = []

    def write(index: int, start: threading.Barrier) -> None:
        with Corpus(workspace, settings=settings, embedder=embedder) as corpus:
            corpus.create()
            start.wait()
            results.extend(corpus.ingest([doc]))

    _at_once(write, timeout=300)
    assert sorted(r.status for r in results) == ["ingested", "unchanged"], [(r.status, r.reason) for r in results]
    with Corpus(workspace, settings=settings, embedder=embedder) as corpus:
        assert len(corpus.documents()) == 1
        assert corpus.verify().ok


def test_two_writers_of_new_bytes_under_one_name_take_two_versions(
    settings: Settings, embedder: Embedder, workspace: str, tmp_path: Path
) -> None:
    """Two edits of one document ingested at once: each is a version (1 and 2), exactly one is the latest."""
    for i in (0, 1):
        (tmp_path / f"edit{i}").mkdir()
    edits = [long_agreement(tmp_path / f"edit{i}" / "agreement.pdf", pages) for i, pages in enumerate((3, 4))]
    results: list[FileResult] = []

    def write(index: int, start: threading.Barrier) -> None:
        with Corpus(workspace, settings=settings, embedder=embedder) as corpus:
            corpus.create()
            start.wait()
            results.extend(corpus.ingest([edits[index]], name="agreement.pdf"))

    _at_once(write, timeout=300)
    assert sorted((r.status, r.version) for r in results) == [("ingested", 1), ("ingested", 2)], [
        (r.status, r.reason) for r in results
    ]
    with Corpus(workspace, settings=settings, embedder=embedder) as corpus:
        versions = corpus.versions("agreement.pdf")
        assert [(v.version, v.latest) for v in versions] == [(1, False), (2, True)]
        assert {h.version for h in corpus.search("Covenant consolidated balance sheet")} == {2}
        assert corpus.verify().ok


def test_no_error_body_shows_internals(embedder: Embedder, tmp_path: Path, settings: Settings) -> None:
    """Every problem type the API gives, and the database down, carry no path, SQL, DSN or repr."""
    dead = f"postgresql://nexus:secret@/postgres?host={tmp_path}/no-server"
    down = Settings.load(overrides={"home": tmp_path / "home", "database_url": dead}, env={})
    with Hub(down, embedder=embedder) as hub:
        client = TestClient(create_app(hub), raise_server_exceptions=False)
        bodies = {
            "503 search": client.get("/v1/workspaces/w/search", params={"q": "rent"}),
            "503 list": client.get("/v1/workspaces"),
        }
        for name, response in bodies.items():
            assert response.status_code == 503, (name, response.text)
            assert response.headers["retry-after"], name
        health = client.get("/v1/health")
        assert health.status_code == 503 and not health.json()["healthy"], health.text
        assert not next(c for c in health.json()["checks"] if c["name"] == "database")["ok"]
        assert not leaks(health.text.replace("\\n", " ")), health.text
    with Hub(settings, embedder=embedder) as hub:
        app = create_app(hub, max_upload_bytes=10_000, require_token=True)

        @app.get("/v1/boom")
        def boom() -> None:
            raise RuntimeError(f"unexpected failure reading {tmp_path}/secret.txt")

        client = TestClient(app, raise_server_exceptions=False)
        with hub.corpus("faults-read") as corpus:
            corpus.create()
        token, _ = hub.create_token("faults-read", "read")
        auth = {"Authorization": f"Bearer {token}"}
        writer, _ = hub.create_token("faults-read", "write")
        broken = tmp_path / "broken.pdf"
        broken.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
        with broken.open("rb") as handle:
            upload = [("files", (broken.name, handle))]
            forbidden = client.post("/v1/workspaces/other/documents", files=upload, headers=auth)
        bodies.update(
            {
                "400": client.get("/v1/workspaces/faults-read/search", params={"q": "page:0-"}, headers=auth),
                "401": client.get("/v1/workspaces"),
                "403": forbidden,
                "404": client.get(f"/v1/workspaces/faults-read/documents/{'0' * 64}", headers=auth),
                "413": client.post(
                    "/v1/workspaces/faults-read/documents",
                    files=[("files", ("big.pdf", b"x" * 2_000_000))],  # over four times the per-file limit
                    headers={"Authorization": f"Bearer {writer}"},
                ),
                "415": client.post(
                    "/v1/workspaces/faults-read/documents",
                    json={"files": ["/etc/passwd"]},
                    headers={"Authorization": f"Bearer {writer}"},
                ),
                "422": client.get("/v1/workspaces/faults-read/search", params={"k": "x"}, headers=auth),
                "500": client.get("/v1/boom", headers=auth),
            }
        )
    for name, response in bodies.items():
        assert response.headers["content-type"].startswith("application/problem+json"), (name, response.text)
        assert str(response.status_code) == name.split()[0], (name, response.status_code, response.text)
        assert not leaks(response.text), (name, response.text)


def test_first_writers_of_a_new_database_do_not_collide_on_its_vector_index(embedded_home: Path) -> None:
    """Two writers that each make the HNSW index of a new model's dimension at once: one makes it, the other
    waits and finds it (before: a raw unique violation on ``pg_class``)."""
    from kruschnexus.store.database import Database

    database = Database(None, embedded_home / "pgdata")
    errors: list[str] = []
    try:
        for attempt in range(4):
            stores = [database.connect() for _ in range(2)]
            with stores[0].scoped("*") as conn:
                conn.execute("DROP INDEX IF EXISTS spans_hnsw_d384")

            def create(
                index: int, start: threading.Barrier, attempt: int = attempt, stores: list[Any] = stores
            ) -> None:
                start.wait()
                try:
                    stores[index].ensure_workspace(f"first-{attempt}-{index}", "model", 384)
                except Exception as exc:  # noqa: BLE001 - collected and asserted below
                    errors.append(repr(exc))

            _at_once(create)
            for store in stores:
                store.close()
    finally:
        database.close()
    assert errors == []


def test_of_two_racing_creates_of_one_workspace_exactly_one_creates_it(embedded_home: Path) -> None:
    """``POST /workspaces`` answers 201 only to the request that made the workspace: two at once get one 201 and
    one 200 (before: both 201, each having looked before either inserted)."""
    from kruschnexus.store.database import Database

    database = Database(None, embedded_home / "pgdata")
    try:
        for attempt in range(4):
            stores = [database.connect() for _ in range(2)]
            created: list[bool] = []

            def create(
                index: int,
                start: threading.Barrier,
                stores: list[Any] = stores,
                created: list[bool] = created,
                name: str = f"racing-{attempt}",
            ) -> None:
                start.wait()
                created.append(stores[index].ensure_workspace(name, "model", 384))

            _at_once(create)
            for store in stores:
                store.close()
            assert sorted(created) == [False, True], attempt
    finally:
        database.close()


def _at_once(action: Callable[[int, threading.Barrier], None], count: int = 2, timeout: float = 60) -> None:
    """Run ``action(i, start)`` in ``count`` threads; each waits on ``start`` so that they race from one moment."""
    start = threading.Barrier(count)
    threads = [threading.Thread(target=action, args=(i, start)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
