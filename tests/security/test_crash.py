"""kill -9 of ``nexus ingest`` at any moment leaves each document whole or absent, and the next run completes it.

``test_fifty_kills_*``: a reference ingest of a four-document batch (two generated agreements, a CSV, a DOCX) is
timed per file; then ``nexus ingest`` is SIGKILLed 50 times: 30 times at a moment drawn once from each 30th of the
run's expected duration (process start, model load, parsing, embedding, inserts, commit; a resumed run's duration
counts only the documents it still has to store) and 20 times when the client is seen (``pg_stat_activity``, by
``application_name``) writing in a document transaction, frozen (SIGSTOP) at once, or up to 0.4 s later, then
killed: a small file's transaction can end before that, so at least 10 kills must land inside one. Each run
resumes the workspace left by the previous kill; after ``CHAIN`` kills an uninterrupted run must complete it, and so
must any run that ends before its kill. After every kill: each stored document equals the reference's (documents
row, every page, block and span), no orphan row, and every kept blob's bytes match its name (staging copies left by
a kill are counted, never taken as kept bytes).

``test_embedded_server_*``: clients that know only ``NEXUS_HOME`` share the embedded server; one SIGKILLed mid-ingest
leaves the server up for the others, the next client completes the work, and the server still stops when the last
live holder exits (the killed pid left in the wheel's holder list used to keep it running forever).

The seed, the schedule and every run's outcome are printed (``-s``) and attached to any assertion message.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import psycopg
import pytest

from kruschnexus import blobs
from kruschnexus.config import Settings
from kruschnexus.store.embedded import EmbeddedServer
from tests.conftest import FIXTURES
from tests.pdfgen import long_agreement

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SEED = 20261202
KILLS = 50
TIMED_KILLS = 30  # one random delay in each of 30 equal slices of the reference duration
CHAIN = 4  # kills on one workspace before an uninterrupted run must complete it
MAX_RUNS = 150
#: A statement of a document transaction (the store quotes its table names: ``INSERT INTO "spans"``).
_DOC_WRITE = re.compile(r'^\s*insert\s+into\s+"?(documents|pages|blocks|spans)\b', re.IGNORECASE)

_SIGNATURE = """
SELECT d.doc_id, d.source, d.kind, d.page_count, d.byte_size,
  (SELECT count(*) FROM pages p WHERE p.workspace = d.workspace AND p.doc_id = d.doc_id) AS pages,
  (SELECT count(*) FROM blocks b WHERE b.workspace = d.workspace AND b.doc_id = d.doc_id) AS blocks,
  (SELECT count(*) FROM spans s WHERE s.workspace = d.workspace AND s.doc_id = d.doc_id) AS spans,
  (SELECT md5(string_agg(concat_ws('|', p.page_number, md5(p.text), p.width, p.height, p.rotation, p.label,
          p.used_ocr, p.needs_ocr, p.locator::text), E'\\n' ORDER BY p.page_number))
     FROM pages p WHERE p.workspace = d.workspace AND p.doc_id = d.doc_id) AS pages_md5,
  (SELECT md5(string_agg(concat_ws('|', b.page_number, b.ordinal, b.kind, b.char_start, b.char_end, b.bbox::text),
          E'\\n' ORDER BY b.page_number, b.ordinal))
     FROM blocks b WHERE b.workspace = d.workspace AND b.doc_id = d.doc_id) AS blocks_md5,
  (SELECT md5(string_agg(concat_ws('|', s.page_number, s.ordinal, s.char_start, s.char_end, md5(s.text), s.section,
          s.section_path::text, s.heading_path::text, s.boxes::text, s.bbox::text, s.locator::text, s.used_ocr,
          s.dim, vector_dims(s.embedding)), E'\\n' ORDER BY s.page_number, s.ordinal))
     FROM spans s WHERE s.workspace = d.workspace AND s.doc_id = d.doc_id) AS spans_md5
FROM documents d WHERE d.workspace = %(w)s
"""

_ORPHANS = """
SELECT 'page' AS kind, p.doc_id, p.page_number FROM pages p WHERE p.workspace = %(w)s
  AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.workspace = p.workspace AND d.doc_id = p.doc_id)
UNION ALL
SELECT 'block', b.doc_id, b.page_number FROM blocks b WHERE b.workspace = %(w)s
  AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.workspace = b.workspace AND p.doc_id = b.doc_id
                  AND p.page_number = b.page_number)
UNION ALL
SELECT 'span', s.doc_id, s.page_number FROM spans s WHERE s.workspace = %(w)s
  AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.workspace = s.workspace AND p.doc_id = s.doc_id
                  AND p.page_number = s.page_number)
"""

_BACKENDS = """
SELECT pid, state, backend_xid::text AS xid, xact_start IS NOT NULL AS in_xact, left(query, 60) AS query
FROM pg_stat_activity WHERE application_name = %(app)s
"""


@dataclass
class Kill:
    """When to kill one run, as a fraction ``at`` of what that run has to do (a resumed run skips stored documents).

    ``timed``: after ``at`` x the run's expected duration (start-up plus the reference's seconds for each document
    not stored yet). ``txn``: ``extra`` seconds after the client is seen writing in a document transaction: the
    first, second ... of the documents still to store, picked by ``at``.
    """

    how: str  # "timed" or "txn"
    at: float
    extra: float = 0.0

    def __str__(self) -> str:
        return f"{self.how} {self.at:.3f}" + (f" +{self.extra:.2f}s" if self.how == "txn" else "")


def _schedule(rng: random.Random) -> list[Kill]:
    """30 moments stratified over the run (one in each 30th of it) and 20 transaction triggers, shuffled."""
    kills = [Kill("timed", at=rng.uniform(k / TIMED_KILLS, (k + 1) / TIMED_KILLS)) for k in range(TIMED_KILLS)]
    kills += [
        Kill("txn", at=rng.random(), extra=rng.choice([0.0, 0.0, rng.uniform(0.0, 0.4)]))
        for _ in range(KILLS - TIMED_KILLS)
    ]
    rng.shuffle(kills)
    return kills


def _batch(folder: Path) -> Path:
    folder.mkdir()
    long_agreement(folder / "a_agreement_2p.pdf", 2)
    shutil.copy(FIXTURES / "office_rent_roll.csv", folder / "b_rent_roll.csv")
    shutil.copy(FIXTURES / "office_lease.docx", folder / "c_office_lease.docx")
    long_agreement(folder / "d_agreement_3p.pdf", 3)
    return folder


def _env(home: Path, dsn: str | None, app: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEXUS_") and k != "PGAPPNAME"}
    env.update(NEXUS_HOME=str(home), PGAPPNAME=app)
    if dsn is not None:
        env["NEXUS_DATABASE_URL"] = dsn
    return env


def _nexus(*args: str) -> list[str]:
    return [sys.executable, "-m", "kruschnexus", *args]


def _run(env: dict[str, str], *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_nexus(*args), env=env, capture_output=True, text=True, timeout=timeout)


def _monitor(dsn: str) -> psycopg.Connection[Any]:
    conn = psycopg.connect(dsn, autocommit=True)
    conn.execute("SELECT set_config('nexus.workspace', '*', false)")  # the catalogue scope, if row security binds us
    return conn


def _signature(conn: psycopg.Connection[Any], workspace: str) -> dict[str, tuple[Any, ...]]:
    return {str(row[0]): tuple(row) for row in conn.execute(_SIGNATURE, {"w": workspace})}


def _backends(conn: psycopg.Connection[Any], app: str) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in conn.execute(_BACKENDS, {"app": app})]


def _phase(rows: list[tuple[Any, ...]]) -> str:
    """Where the client was when it died, from its backend's state frozen at that moment."""
    if not rows:
        return "no connection"
    for _pid, state, xid, _in_xact, query in rows:
        text = (query or "").lower()
        if xid is not None and state == "active" and text.startswith("commit"):
            return "commit"
        if xid is not None and _DOC_WRITE.match(text):
            return "document transaction"
        if xid is not None:
            return "other write"
    if any(in_xact for _pid, _state, _xid, in_xact, _query in rows):
        return "transaction, nothing written"
    return "connected, idle"


def _wait_gone(conn: psycopg.Connection[Any], app: str, timeout: float = 60) -> None:
    """The server has noticed the dead client and rolled its transaction back."""
    deadline = time.monotonic() + timeout
    while _backends(conn, app):
        assert time.monotonic() < deadline, f"the backend of killed client {app} is still there after {timeout}s"
        time.sleep(0.05)


def _await_transaction(conn: psycopg.Connection[Any], proc: subprocess.Popen[bytes], app: str, nth: int) -> bool:
    """Wait until ``app`` is inside its ``nth`` document transaction; False if the process ended first."""
    seen: set[str] = set()
    while proc.poll() is None:
        for _pid, _state, xid, _in_xact, query in _backends(conn, app):
            if xid is not None and _DOC_WRITE.match(query or ""):
                seen.add(xid)
        if len(seen) >= nth:
            return True
        time.sleep(0.01)
    return False


def _blob_state(home: Path, doc_ids: list[str]) -> tuple[list[str], int]:
    """Problems with kept bytes (a name that is not the sha256 of its content, a document without its bytes) and
    the number of staging copies left by kills (the next ingest removes those of dead processes)."""
    root = home / "blobs"
    problems, incoming = [], 0
    for path in sorted(root.rglob("*")) if root.is_dir() else []:
        if path.is_dir():
            continue
        if blobs.STAGING in path.relative_to(root).parts:
            incoming += 1
        elif hashlib.sha256(path.read_bytes()).hexdigest() != path.name:
            problems.append(f"{path} does not hold the bytes its name says")
    problems += [f"document {d} has no kept bytes" for d in doc_ids if not (root / d[:2] / d).is_file()]
    return problems, incoming


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _reap_strays(children: list[psutil.Process]) -> list[str]:
    """Children of a killed client must not outlive it for long; any left after 15 s are killed and reported."""
    _gone, alive = psutil.wait_procs(children, timeout=15)
    strays = []
    for proc in alive:
        try:
            strays.append(f"{proc.pid} {' '.join(proc.cmdline())[:80]}")
            proc.kill()
        except psutil.NoSuchProcess:
            pass
    return strays


@dataclass
class _Chain:
    """One workspace (and one NEXUS_HOME, so the blob store starts empty) that kills accumulate on."""

    number: int
    root: Path
    prefix: str
    kills: int = 0

    @property
    def workspace(self) -> str:
        return f"{self.prefix}-c{self.number}"

    @property
    def home(self) -> Path:
        return self.root / f"home-{self.number}"


class _Crasher:
    """Runs the kill loop and keeps its log."""

    def __init__(
        self, dsn: str, batch: Path, reference: dict[str, tuple[Any, ...]], timing: dict[str, float], prefix: str
    ) -> None:
        self.dsn = dsn
        self.batch = batch
        self.reference = reference
        self.timing = timing  # the reference run's seconds per doc_id, and "start" for the rest of it
        self.scale = 1.0  # observed / expected duration of uninterrupted runs (the reference ran with cold caches)
        self.conn = _monitor(dsn)
        self.chain = _Chain(0, batch.parent, prefix)
        self.log: list[str] = []
        self.phases: Counter[str] = Counter()
        self.strays: list[str] = []
        self.incoming = 0
        self.completions = 0
        self.runs = 0

    def close(self) -> None:
        self.conn.close()

    def report(self) -> str:
        head = f"seed {SEED}, {sum(self.phases.values())} kills, {self.completions} completing runs"
        return "\n".join([head, *self.log, f"kill moments: {dict(self.phases)}"])

    def check(self, label: str) -> dict[str, tuple[Any, ...]]:
        """Each stored document equals the reference's; no orphan rows; kept bytes are whole."""
        stored = _signature(self.conn, self.chain.workspace)
        for doc_id, row in stored.items():
            assert row == self.reference.get(doc_id), f"{label}: partial or different document {doc_id}\n{row}\n" + (
                self.report()
            )
        orphans = self.conn.execute(_ORPHANS, {"w": self.chain.workspace}).fetchall()
        assert not orphans, f"{label}: orphan rows {orphans[:5]}\n{self.report()}"
        problems, incoming = _blob_state(self.chain.home, list(stored))
        assert not problems, f"{label}: {problems}\n{self.report()}"
        self.incoming = max(self.incoming, incoming)
        return stored

    def complete(self, app: str) -> subprocess.CompletedProcess[str]:
        """An uninterrupted run finishes the chain's workspace exactly as the reference."""
        done = _run(
            _env(self.chain.home, self.dsn, app),
            "ingest",
            str(self.batch),
            "--workspace",
            self.chain.workspace,
            "--create",
            "--json",
        )
        self.log.append(f"  chain {self.chain.number}: completing run exit {done.returncode}")
        assert done.returncode == 0, f"completing run failed: {done.stderr[-2000:]}\n{self.report()}"
        statuses = {f["status"] for f in json.loads(done.stdout)["files"]}
        assert statuses <= {"ingested", "unchanged"}, f"{statuses}\n{self.report()}"
        assert self.check(f"chain {self.chain.number} completed") == self.reference, self.report()
        self.completions += 1
        return done

    def next_chain(self) -> None:
        self.chain = _Chain(self.chain.number + 1, self.chain.root, self.chain.prefix)

    def attempt(self, kill: Kill) -> bool:
        """One run of ``nexus ingest`` killed as ``kill`` says; False if it finished first (then it must be whole)."""
        self.runs += 1
        app = f"crash-{os.getpid()}-{self.runs}"
        env = _env(self.chain.home, self.dsn, app)
        cmd = _nexus("ingest", str(self.batch), "--workspace", self.chain.workspace, "--create", "--json")
        todo = [d for d in self.reference if d not in _signature(self.conn, self.chain.workspace)]
        expected = self.scale * (self.timing["start"] + sum(self.timing[d] for d in todo))
        delay = kill.at * expected
        started = time.monotonic()
        err = self.chain.root / "logs" / f"{app}.err"
        err.parent.mkdir(exist_ok=True)
        with err.open("wb") as sink:
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=sink)
        try:
            if kill.how == "timed":
                try:
                    proc.wait(timeout=delay)
                except subprocess.TimeoutExpired:
                    pass
            elif _await_transaction(self.conn, proc, app, 1 + int(kill.at * len(todo))):
                time.sleep(kill.extra)
            if proc.poll() is None:
                # Frozen first, so the kill lands at this moment: a document transaction of a small file can end in
                # the milliseconds it takes to list the process's children (no instruction runs before the SIGKILL).
                proc.send_signal(signal.SIGSTOP)
            children = _descendants(proc.pid)
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                phase = _phase(_backends(self.conn, app))  # the dead client's backend still shows where it was
            else:
                phase = ""
            proc.wait(timeout=600)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        at = time.monotonic() - started
        if not phase:
            self.scale *= (at / expected) ** 0.5  # halfway (geometrically) towards what this run took
            self.log.append(
                f"run {self.runs:3d} chain {self.chain.number:2d} {kill}: finished first, exit {proc.returncode}"
            )
            assert proc.returncode == 0, f"uninterrupted run failed: {err.read_text()[-2000:]}\n{self.report()}"
            assert self.check(f"run {self.runs}") == self.reference, self.report()
            self.completions += 1
            self.next_chain()
            return False
        _wait_gone(self.conn, app)
        self.strays += _reap_strays(children)
        stored = self.check(f"run {self.runs} ({kill}, {phase})")
        self.phases[phase] += 1
        self.chain.kills += 1
        self.log.append(
            f"run {self.runs:3d} chain {self.chain.number:2d} {kill}: killed at {at:5.2f}s in {phase};"
            f" {len(stored)}/{len(self.reference)} documents stored"
        )
        return True


def test_fifty_kills_leave_whole_documents_or_none_and_the_rerun_completes(
    settings: Settings, workspace: str, tmp_path: Path
) -> None:
    assert settings.database_url is not None
    dsn = settings.database_url
    batch = _batch(tmp_path / "batch")
    started = time.monotonic()
    ref_env = _env(tmp_path / "ref-home", dsn, f"crash-ref-{os.getpid()}")
    ref = _run(ref_env, "ingest", str(batch), "--workspace", f"{workspace}-ref", "--create", "--json")
    duration = time.monotonic() - started
    assert ref.returncode == 0, ref.stderr
    with _monitor(dsn) as conn:
        reference = _signature(conn, f"{workspace}-ref")
    assert len(reference) == 4 and all(row[7] > 0 for row in reference.values()), reference
    timing = {f["doc_id"]: float(f["seconds"]) for f in json.loads(ref.stdout)["files"]}
    timing["start"] = max(0.5, duration - sum(timing.values()))

    rng = random.Random(SEED)
    schedule = _schedule(rng)
    crasher = _Crasher(dsn, batch, reference, timing, workspace)
    try:
        crasher.log.append(
            f"reference ingest {duration:.2f}s (start-up and the rest {timing['start']:.2f}s);"
            f" schedule (fractions of each run): {', '.join(map(str, schedule))}"
        )
        pending = iter(schedule)
        kill = next(pending)
        while crasher.runs < MAX_RUNS:
            if crasher.chain.kills >= CHAIN:
                crasher.complete(f"crash-done-{os.getpid()}-{crasher.chain.number}")
                crasher.next_chain()
            fresh = crasher.chain.kills == 0
            landed = crasher.attempt(kill)
            if landed or fresh:
                # a kill that landed is spent; so is one that missed even a fresh run (then another is drawn); one
                # that missed a resumed run is tried again on the fresh workspace that follows
                if sum(crasher.phases.values()) >= KILLS:
                    break
                kill = next(pending, None) or Kill("timed", at=rng.random())
        print(crasher.report())  # noqa: T201
        assert sum(crasher.phases.values()) == KILLS, crasher.report()

        crasher.complete(f"crash-final-{os.getpid()}")
        final = _env(crasher.chain.home, dsn, f"crash-verify-{os.getpid()}")
        verify = _run(final, "verify", "--workspace", crasher.chain.workspace, "--json")
        assert verify.returncode == 0, verify.stdout[-2000:] + verify.stderr[-2000:] + crasher.report()
        counts = crasher.conn.execute(
            "SELECT (SELECT count(*) FROM documents WHERE workspace = %(w)s), (SELECT count(*) FROM pages WHERE"
            " workspace = %(w)s), (SELECT count(*) FROM spans WHERE workspace = %(w)s)",
            {"w": crasher.chain.workspace},
        ).fetchone()
    finally:
        crasher.close()
    expected = (len(reference), sum(r[5] for r in reference.values()), sum(r[7] for r in reference.values()))
    assert counts == expected, crasher.report()
    inside = crasher.phases["document transaction"] + crasher.phases["commit"]
    summary = f"kills inside a document transaction: {inside}/{KILLS}; staging copies left: {crasher.incoming}"
    print(summary)  # noqa: T201
    assert inside >= 10, f"too few kills landed inside a document transaction\n{crasher.report()}"
    assert crasher.phases["no connection"] >= 1, f"no kill landed during process start\n{crasher.report()}"
    assert not crasher.strays, f"children outlived the killed client by 15 s: {crasher.strays}\n{crasher.report()}"


# --- the embedded server and killed clients ----------------------------------------------------------------------


def _postmaster_pid(home: Path) -> int | None:
    """The running postmaster of this home, or None."""
    try:
        pid = int((home / "pgdata" / "postmaster.pid").read_text().split("\n", 1)[0])
    except (FileNotFoundError, ValueError):
        return None
    return pid if pid > 0 and psutil.pid_exists(pid) else None


def _wait_stopped(home: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while _postmaster_pid(home) is not None:
        holders = home / "pgdata" / ".handle_pids.json"
        listed = holders.read_text() if holders.is_file() else "absent"
        assert time.monotonic() < deadline, f"the server still runs with no live holder (holder list {listed})"
        time.sleep(0.2)


def _dsn_when_ready(home: Path, client: subprocess.Popen[bytes], timeout: float = 120) -> str:
    """The DSN of the server a client is starting, once postmaster.pid says it is ready."""
    deadline = time.monotonic() + timeout
    while True:
        assert client.poll() is None and time.monotonic() < deadline, "the client did not start the server"
        try:
            info = (home / "pgdata" / "postmaster.pid").read_text().splitlines()
        except FileNotFoundError:
            info = []
        if len(info) >= 8 and info[7].strip() == "ready" and _postmaster_pid(home) is not None:
            return f"postgresql://postgres@/postgres?host={info[4].strip()}&port={info[3].strip()}"
        time.sleep(0.1)


def _kill_in_transaction(conn: psycopg.Connection[Any], env: dict[str, str], paths: list[Path], workspace: str) -> str:
    """Start ``nexus ingest``, SIGKILL it inside its first document transaction; returns where it died."""
    app = env["PGAPPNAME"]
    proc = subprocess.Popen(_nexus("ingest", *map(str, paths), "--workspace", workspace, "--create"), env=env)
    try:
        assert _await_transaction(conn, proc, app, 1), "the client finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        phase = _phase(_backends(conn, app))
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    _wait_gone(conn, app)
    return phase


def _search_hits(env: dict[str, str], workspace: str) -> list[Any]:
    found = _run(env, "search", "balance sheet certified by a Financial Officer", "--workspace", workspace, "--json")
    assert found.returncode == 0, found.stderr
    hits: list[Any] = json.loads(found.stdout)
    return hits


def test_embedded_server_survives_a_killed_client_and_still_stops_after_the_last_live_one(
    embedded_home: Path, tmp_path: Path
) -> None:
    docs = [long_agreement(tmp_path / "agreement_4p.pdf", 4), long_agreement(tmp_path / "agreement_3p.pdf", 3)]
    home, pgdata = embedded_home, embedded_home / "pgdata"
    env = _env(home, None, f"emb-a-{os.getpid()}")  # NEXUS_HOME only: every client starts or joins the server

    # This process holds the server (and ran initdb); a client that joins it is killed mid-document.
    holder = EmbeddedServer(pgdata)
    conn = _monitor(holder.start())
    try:
        phase = _kill_in_transaction(conn, env, docs, "emb")
        assert phase == "document transaction", phase
        killed_listed = json.loads((pgdata / ".handle_pids.json").read_text())
        assert conn.execute("SELECT 1").fetchone() == (1,), "the server went down with a killed client"
        assert not conn.execute(_ORPHANS, {"w": "emb"}).fetchall()
        partial = conn.execute("SELECT count(*) FROM documents WHERE workspace = 'emb'").fetchone()
        assert partial is not None and partial[0] == 0, "the killed first document was committed"

        # The next client joins the same server and completes the work; search and verify see it whole.
        env_b = _env(home, None, f"emb-b-{os.getpid()}")
        again = _run(env_b, "ingest", *map(str, docs), "--workspace", "emb", "--create", "--json")
        assert again.returncode == 0, again.stderr
        assert {f["status"] for f in json.loads(again.stdout)["files"]} == {"ingested"}
        assert _search_hits(env_b, "emb")
        verify = _run(env_b, "verify", "--workspace", "emb", "--json")
        assert verify.returncode == 0, verify.stdout + verify.stderr
    finally:
        conn.close()
        holder.stop()
    # The killed client is still listed by the wheel unless dropped: the server must stop anyway.
    print(f"holders listed right after the kill: {killed_listed}")  # noqa: T201
    _wait_stopped(home)

    # A holder list left unreadable (a client killed while the wheel rewrote it) must not block the next start.
    (pgdata / ".handle_pids.json").write_text("[4")
    assert _search_hits(_env(home, None, f"emb-c-{os.getpid()}"), "emb")
    _wait_stopped(home)

    # A killed client that was the only holder: the server stays up, unowned; the next client joins and
    # completes, and the server stops when that client exits. No stale postmaster.pid or lock blocks anything.
    env_d = _env(home, None, f"emb-d-{os.getpid()}")
    third = long_agreement(tmp_path / "agreement_5p.pdf", 5)
    starter = subprocess.Popen(
        _nexus("ingest", str(third), "--workspace", "emb-solo", "--create"), env=env_d, stdout=subprocess.DEVNULL
    )
    try:
        with _monitor(_dsn_when_ready(home, starter)) as solo:
            assert _await_transaction(solo, starter, env_d["PGAPPNAME"], 1)
            starter.send_signal(signal.SIGKILL)
            starter.wait(timeout=60)
            _wait_gone(solo, env_d["PGAPPNAME"])
            assert solo.execute("SELECT count(*) FROM documents WHERE workspace = 'emb-solo'").fetchone() == (0,)
    finally:
        if starter.poll() is None:
            starter.kill()
            starter.wait()
    assert _postmaster_pid(home) is not None, "the server died with its only (killed) client"
    rerun = _run(
        _env(home, None, f"emb-e-{os.getpid()}"), "ingest", str(third), "--workspace", "emb-solo", "--create", "--json"
    )
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["files"][0]["status"] == "ingested"
    _wait_stopped(home)
    assert json.loads((pgdata / ".handle_pids.json").read_text()) == []


def test_a_new_data_folder_appears_whole_or_not_at_all(tmp_path: Path) -> None:
    """initdb runs in a staging folder renamed into place when complete: a process killed during it leaves only
    a staging folder, which the next start removes; a half-made data folder is never left to brick the home."""
    pgdata = tmp_path / "home" / "pgdata"
    dead = pgdata.with_name("pgdata.init-999999999")  # a staging folder of a process killed during initdb
    dead.mkdir(parents=True)
    (dead / "PG_VERSION").write_text("17\n")  # initdb writes this first: alone, it is no data folder
    server = EmbeddedServer(pgdata)
    conn = psycopg.connect(server.start(), autocommit=True)
    try:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        conn.close()
        server.stop()
    assert (pgdata / "PG_VERSION").exists() and (pgdata / "global").is_dir()
    assert sorted(p.name for p in pgdata.parent.iterdir()) == ["pgdata"], "staging folders left behind"
