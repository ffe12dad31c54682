"""The HNSW index's build parameters: taken from the settings when it is created, rebuilt with others beside the
index in use (``nexus reindex --vectors``), read back from the server, and reported by ``doctor``."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Callable, Iterator

import psycopg
import pytest
from click.testing import CliRunner
from psycopg import sql

from kruschnexus import Corpus
from kruschnexus.cli.app import cli
from kruschnexus.config import IndexBuild, Settings
from kruschnexus.corpus import VectorIndexReport
from kruschnexus.doctor import run_checks, vector_storage_detail
from kruschnexus.embed.base import Embedder
from kruschnexus.errors import StoreError
from kruschnexus.retrieve.filters import span_filter
from kruschnexus.retrieve.query import parse_query
from kruschnexus.store import queries as q
from kruschnexus.store.postgres import CATALOGUE, PgStore
from kruschnexus.store.progress import APPLICATION_NAME, EVERY_SECONDS, WAITING, Step
from kruschnexus.store.records import VectorStorage
from tests.conftest import FIXTURES

pytestmark = pytest.mark.integration

QUESTIONS = ("when may the landlord terminate the lease", "late charge on overdue rent", "security deposit")


@pytest.fixture
def corpus(settings: Settings, embedder: Embedder, workspace: str) -> Iterator[Corpus]:
    """A workspace with one lease; the index is put back to the settings' build afterwards (it serves every
    workspace of the session's database)."""
    with Corpus(workspace=workspace, settings=settings, embedder=embedder) as c:
        c.ingest([FIXTURES / "sample_contract.pdf", FIXTURES / "office_lease.docx"])
        try:
            yield c
        finally:
            c.rebuild_vector_index()


def _with_build(corpus: Corpus, m: int, ef_construction: int) -> Corpus:
    settings = dataclasses.replace(corpus.settings, hnsw_m=m, hnsw_ef_construction=ef_construction)
    return Corpus(workspace=corpus.workspace, settings=settings, embedder=corpus.embedder)


def _by_index(corpus: Corpus, question: str) -> list[tuple[str, int, int]]:
    """The dense leg's keys as the HNSW index serves them (sequential scans off), and a check that it did."""
    parsed = parse_query(question)
    statement, params = q.dense_leg(span_filter(parsed, corpus.workspace), corpus.embedder.dim)
    vector = corpus.embedder.embed([parsed.search_text])[0]
    bound = {**params, "text": parsed.search_text, "limit": 10, "vector": vector}
    # only the HNSW index gives the order: no sort, no sequential or bitmap read of the spans
    # the index holds every workspace of the session's database: scan on until ten of this one's pass
    forced = {
        "enable_seqscan": "off",
        "enable_bitmapscan": "off",
        "enable_sort": "off",
        "hnsw.ef_search": "1000",
        "hnsw.iterative_scan": "strict_order",
        "hnsw.max_scan_tuples": "1000000",
    }
    with corpus.store.scoped(corpus.workspace, forced) as conn:
        plan = [str(next(iter(r.values()))) for r in conn.execute(b"EXPLAIN " + statement.as_bytes(conn), bound)]
        assert any(q.hnsw_index_name(corpus.embedder.dim) in line for line in plan), "\n".join(plan)
        return [(r["doc_id"], r["page_number"], r["ordinal"]) for r in conn.execute(statement, bound)]


def _exact(corpus: Corpus, question: str) -> list[tuple[str, int, int]]:
    parsed = parse_query(question)
    statement, params = q.dense_leg(span_filter(parsed, corpus.workspace), corpus.embedder.dim)
    vector = corpus.embedder.embed([parsed.search_text])[0]
    bound = {**params, "text": parsed.search_text, "limit": 10, "vector": vector}
    return [r.key for r in corpus.store.run_leg(statement, bound, exact=True)]


def _leftover_indexes(store: PgStore) -> list[str]:
    with store.scoped(CATALOGUE) as conn:
        # the names a rebuild of the 384-dimension index uses (other tests make indexes of other dimensions)
        names = [q.hnsw_index_name(384) + suffix for suffix in (q.REBUILD_SUFFIX, q.REPLACED_SUFFIX)]
        rows = conn.execute("SELECT indexname FROM pg_indexes WHERE indexname = ANY(%s)", (names,)).fetchall()
    return [str(r["indexname"]) for r in rows]


def test_the_index_is_built_as_the_settings_say(corpus: Corpus) -> None:
    assert corpus.store.vector_index_build(corpus.embedder.dim) == corpus.settings.index_build == IndexBuild(16, 200)
    assert corpus.store.vector_index_build(7) is None  # no index of that dimension


def test_a_rebuild_takes_other_parameters_and_serves_the_same_nearest_spans(corpus: Corpus) -> None:
    dim = corpus.embedder.dim
    before = {question: _by_index(corpus, question) for question in QUESTIONS}
    hits = corpus.search(QUESTIONS[0])
    with _with_build(corpus, 12, 64) as narrow:
        report = narrow.rebuild_vector_index("64MB")
    assert (report.dim, report.before, report.after) == (dim, IndexBuild(16, 200), IndexBuild(12, 64))
    assert corpus.store.vector_index_build(dim) == IndexBuild(12, 64)
    assert not _leftover_indexes(corpus.store)
    for question in QUESTIONS:
        # a few spans: any HNSW build finds the exact nearest, before and after
        assert _by_index(corpus, question) == _exact(corpus, question) == before[question], question
    assert [(h.doc_id, h.page_number, h.char_start) for h in corpus.search(QUESTIONS[0])] == [
        (h.doc_id, h.page_number, h.char_start) for h in hits
    ]


def test_what_a_stopped_rebuild_left_is_dropped_by_the_next(corpus: Corpus) -> None:
    """A rebuild stopped during its build leaves an index under the rebuild name (invalid), one stopped after the swap
    the replaced index: the next rebuild drops both."""
    dim = corpus.embedder.dim
    leftovers = [q.hnsw_index_name(dim) + suffix for suffix in (q.REBUILD_SUFFIX, q.REPLACED_SUFFIX)]
    with corpus.store.scoped(CATALOGUE) as conn:
        for name in leftovers:
            conn.execute(sql.SQL("CREATE INDEX {} ON spans (doc_id)").format(sql.Identifier(name)))
    assert sorted(_leftover_indexes(corpus.store)) == sorted(leftovers)
    with _with_build(corpus, 12, 48) as other:
        other.rebuild_vector_index()
    assert not _leftover_indexes(corpus.store)
    assert corpus.store.vector_index_build(dim) == IndexBuild(12, 48)


def test_a_second_rebuild_is_refused_while_one_runs(corpus: Corpus) -> None:
    holder = corpus.database.connect()
    try:
        assert holder.conn.execute(q.TRY_LOCK_INDEX_REBUILD).fetchone() == {"locked": True}
        with pytest.raises(StoreError, match="another rebuild of a vector index is running"):
            corpus.rebuild_vector_index()
    finally:
        holder.close()  # the session's lock goes with it
    assert corpus.rebuild_vector_index().after == IndexBuild(16, 200)


def test_searches_go_on_while_the_index_is_rebuilt(corpus: Corpus) -> None:
    """A second connection searches in a loop through the whole rebuild, the swap included: every search answers,
    and alike."""
    expected = [(h.doc_id, h.char_start) for h in corpus.search(QUESTIONS[1])]
    answers: list[list[tuple[str, int]]] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def search() -> None:
        with Corpus(workspace=corpus.workspace, settings=corpus.settings, embedder=corpus.embedder) as reader:
            while not done.is_set() or not answers:
                try:
                    answers.append([(h.doc_id, h.char_start) for h in reader.search(QUESTIONS[1])])
                except Exception as exc:  # noqa: BLE001 - any failure of a search during the rebuild is the finding
                    errors.append(exc)
                    return

    thread = threading.Thread(target=search)
    thread.start()
    try:
        with _with_build(corpus, 12, 64) as other:
            other.rebuild_vector_index()
    finally:
        done.set()
        thread.join(timeout=60)
    assert not errors and answers and all(a == expected for a in answers)


def test_a_failed_rebuild_keeps_the_index_in_use(corpus: Corpus) -> None:
    dim = corpus.embedder.dim
    with pytest.raises(StoreError, match="cannot rebuild the vector index of 384 dimensions"):
        corpus.store.rebuild_vector_index(dim, IndexBuild(1, 10))  # pgvector refuses m = 1
    assert corpus.store.vector_index_build(dim) == IndexBuild(16, 200)
    assert not _leftover_indexes(corpus.store)
    assert corpus.search(QUESTIONS[0]), "the store still answers"


def test_doctor_says_how_the_index_was_built_and_how_to_rebuild_it(corpus: Corpus) -> None:
    def line() -> tuple[bool, str]:
        report = run_checks(corpus.settings, lambda: corpus.store, lambda: corpus.embedder)
        check = next(c for c in report.checks if c.name == "vector index")
        return check.ok, check.detail

    ok, detail = line()
    assert ok and detail == f"{corpus.embedder.dim} dims, m 16, ef_construction 200", detail
    with _with_build(corpus, 8, 32) as other:
        other.rebuild_vector_index()
    ok, detail = line()
    assert ok, "an index built otherwise still serves"
    assert "built with m 8, ef_construction 32" in detail and "ask for m 16, ef_construction 200" in detail
    assert "nexus reindex -w WORKSPACE --vectors" in detail


def test_doctor_weighs_the_vector_index_against_the_buffer_cache(corpus: Corpus) -> None:
    report = run_checks(corpus.settings, lambda: corpus.store, lambda: corpus.embedder)
    check = next(c for c in report.checks if c.name == "buffer cache")
    buffers, index = corpus.store.buffer_cache(corpus.embedder.dim)
    assert check.ok and index is not None and 0 < index <= buffers
    assert check.detail.startswith("shared_buffers ") and check.detail.endswith(") fits"), check.detail


def test_doctor_finds_every_vector_kept_in_its_span_s_row(corpus: Corpus) -> None:
    report = run_checks(corpus.settings, lambda: corpus.store, lambda: corpus.embedder)
    check = next(c for c in report.checks if c.name == "vector storage")
    storage = corpus.store.vector_storage()
    assert storage.older == 0, storage  # the session's database was made by this version
    assert check.ok and check.detail == vector_storage_detail(storage)
    assert check.detail.startswith("vectors are kept in their spans' rows ("), check.detail


def test_reindex_vectors_command(corpus: Corpus, cli_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEXUS_HNSW_M", "10")
    monkeypatch.setenv("NEXUS_HNSW_EF_CONSTRUCTION", "40")
    result = CliRunner().invoke(
        cli, ["reindex", "-w", corpus.workspace, "--vectors", "--build-memory", "128MB", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.strip().splitlines()[-1])
    assert report["index"] == "vectors" and report["dim"] == corpus.embedder.dim
    assert report["before"] == {"m": 16, "ef_construction": 200}
    assert report["after"] == {"m": 10, "ef_construction": 40}
    assert corpus.store.vector_index_build(corpus.embedder.dim) == IndexBuild(10, 40)
    text = CliRunner().invoke(cli, ["reindex", "-w", corpus.workspace, "--vectors"])
    assert text.exit_code == 0, text.output
    assert "m 10, ef_construction 40 (before: m 10, ef_construction 40)" in " ".join(text.output.split())
    lonely = CliRunner().invoke(cli, ["reindex", "-w", corpus.workspace, "--build-memory", "1GB"])
    assert lonely.exit_code == 2 and "--vectors" in lonely.output
    wrong = CliRunner().invoke(cli, ["reindex", "-w", corpus.workspace, "--vectors", "--build-memory", "lots"])
    assert wrong.exit_code != 0 and "cannot rebuild the vector index" in wrong.output
    assert corpus.store.vector_index_build(corpus.embedder.dim) == IndexBuild(10, 40), "a failed rebuild keeps it"
    monkeypatch.setenv("NEXUS_HNSW_EF_CONSTRUCTION", "8")
    refused = CliRunner().invoke(cli, ["reindex", "-w", corpus.workspace, "--vectors"])
    assert refused.exit_code != 0 and "twice hnsw_m" in refused.output
    monkeypatch.delenv("NEXUS_HNSW_EF_CONSTRUCTION")
    missing = CliRunner().invoke(cli, ["reindex", "-w", "no-such-workspace-y", "--vectors"])
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_reindex_rewrite_command(corpus: Corpus, cli_env: None) -> None:
    """``--rewrite`` rewrites the spans table (VACUUM FULL) and reports where vectors are kept; nothing is lost and
    searches answer as before."""
    question = "what must the tenant insure"
    hits = [(h.doc_id, h.page_number, h.char_start) for h in corpus.search(question)]
    stored = corpus.store.counts(corpus.workspace)
    result = CliRunner().invoke(
        cli, ["reindex", "-w", corpus.workspace, "--rewrite", "--build-memory", "64MB", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.strip().splitlines()[-1])
    assert report["rewritten"] == "spans" and report["seconds"] >= 0
    assert report["after"]["older"] == 0 and report["after"]["outside"] == 0
    assert corpus.store.counts(corpus.workspace) == stored
    assert [(h.doc_id, h.page_number, h.char_start) for h in corpus.search(question)] == hits and hits
    text = CliRunner().invoke(cli, ["reindex", "-w", corpus.workspace, "--rewrite"])
    assert text.exit_code == 0 and "rewrote the spans table in" in text.output, text.output
    both = CliRunner().invoke(cli, ["reindex", "-w", corpus.workspace, "--rewrite", "--vectors"])
    assert both.exit_code == 2 and "give one" in both.output
    wrong = CliRunner().invoke(cli, ["reindex", "-w", corpus.workspace, "--rewrite", "--build-memory", "lots"])
    assert wrong.exit_code != 0 and "cannot rewrite the spans table" in wrong.output
    missing = CliRunner().invoke(cli, ["reindex", "-w", "no-such-workspace-y", "--rewrite"])
    assert missing.exit_code == 2 and "does not exist" in missing.output


def _while_held(
    corpus: Corpus,
    lock: str,
    work: Callable[[Callable[[Step], None]], object],
    then: Callable[[list[Step]], None] | None = None,
) -> list[Step]:
    """Run ``work`` (given a progress callback) while another session holds ``lock`` on the spans table, until the
    steps say it waits; then (after ``then``, given the steps so far, if any) let go. Returns every step reported."""
    steps: list[Step] = []
    failures: list[BaseException] = []

    def run() -> None:
        try:
            work(steps.append)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread below
            failures.append(exc)

    holder = corpus.database.connect()
    thread = threading.Thread(target=run)
    try:
        with holder.scoped(CATALOGUE) as conn:
            conn.execute(sql.SQL("LOCK TABLE spans IN {} MODE").format(sql.SQL(lock)))
            thread.start()
            deadline = time.monotonic() + 30
            while WAITING not in [s.phase for s in steps] and thread.is_alive() and time.monotonic() < deadline:
                time.sleep(0.05)
            if then is not None:
                then(steps)
                time.sleep(3 * EVERY_SECONDS)  # the next readings fail
    finally:
        holder.close()
        thread.join(timeout=120)
    assert not failures, failures
    return steps


def test_a_rewrite_says_it_waits_for_other_sessions(corpus: Corpus) -> None:
    """A rewrite queued behind another session's transaction says so while it waits, then ends as usual."""
    reports: list[tuple[VectorStorage, VectorStorage]] = []
    steps = _while_held(corpus, "ACCESS SHARE", lambda progress: reports.append(corpus.rewrite_spans(None, progress)))
    assert steps and steps[0] == Step(WAITING), steps  # a rewrite reports nothing before it holds the table
    assert reports and reports[0][1].older == 0


def test_a_watcher_that_loses_its_connection_stops_and_the_work_goes_on(
    corpus: Corpus, caplog: pytest.LogCaptureFixture
) -> None:
    """The progress readings' connection is ended by the server while the rewrite waits: a warning says the readings
    stopped, and the rewrite still ends as usual."""

    def end_the_watcher(steps: list[Step]) -> None:
        with corpus.store.scoped(CATALOGUE) as conn:
            ended = conn.execute(
                "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = %s",
                (APPLICATION_NAME,),
            ).fetchall()
        assert ended, "no watcher found"

    reports: list[tuple[VectorStorage, VectorStorage]] = []
    with caplog.at_level("WARNING", logger="kruschnexus.store.progress"):
        steps = _while_held(
            corpus,
            "ACCESS SHARE",
            lambda progress: reports.append(corpus.rewrite_spans(None, progress)),
            then=end_the_watcher,
        )
    assert steps[0] == Step(WAITING), steps
    assert reports and reports[0][1].older == 0
    assert any("no more readings" in r.getMessage() for r in caplog.records), caplog.text


def test_a_rebuild_says_it_waits_for_writers(corpus: Corpus) -> None:
    """A concurrent build of the vector index waits for transactions that may write the table, and says so."""
    reports: list[VectorIndexReport] = []
    steps = _while_held(
        corpus, "ROW EXCLUSIVE", lambda progress: reports.append(corpus.rebuild_vector_index(None, progress))
    )
    assert Step(WAITING) in steps, steps
    before = steps[: steps.index(Step(WAITING))]
    assert all(s.total is None for s in before), steps  # at most the build's first phase, which counts nothing
    assert reports and reports[0].after == IndexBuild(16, 200)
    assert corpus.search(QUESTIONS[0]), "the new index answers"


def test_doctor_names_an_index_postgresql_does_not_use(corpus: Corpus) -> None:
    """A concurrent build that failed leaves an invalid index that searches never use: doctor fails its line and
    says what rebuilds it; a vector index rebuild's leftover passes (the index in use still serves)."""

    def line() -> tuple[bool, str]:
        report = run_checks(corpus.settings, lambda: corpus.store, lambda: corpus.embedder)
        check = next(c for c in report.checks if c.name == "indexes")
        return check.ok, check.detail

    assert line() == (True, "every index is valid")
    conn = corpus.store.conn  # autocommit: a concurrent build runs outside any transaction
    conn.execute("CREATE TABLE doctor_probe (x integer)")
    try:
        conn.execute("INSERT INTO doctor_probe VALUES (1), (1)")
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute("CREATE UNIQUE INDEX CONCURRENTLY doctor_probe_x ON doctor_probe (x)")
        ok, detail = line()
        assert not ok and "doctor_probe_x: its table's owner runs REINDEX INDEX CONCURRENTLY doctor_probe_x" in detail
        conn.execute("DROP INDEX doctor_probe_x")
        leftover = q.hnsw_index_name(corpus.embedder.dim) + q.REBUILD_SUFFIX
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                sql.SQL("CREATE UNIQUE INDEX CONCURRENTLY {} ON doctor_probe (x)").format(sql.Identifier(leftover))
            )
        ok, detail = line()
        assert ok and f"{leftover}: a vector index rebuild under way" in detail, detail
    finally:
        conn.execute("DROP TABLE doctor_probe")
    assert line() == (True, "every index is valid")
