"""Every script of bench/ runs in its seconds-long smoke mode, so none of them rots unnoticed (issue #13).

Only the exit status and the keys of each report are checked, never a time. The scripts that read an ingested
workspace (search, rls, floor) use the session's database with a temporary NEXUS_HOME of this module; the others
start whatever they measure in temporary folders of their own (ingest, search's synthetic setting and load each
start an embedded PostgreSQL there).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from kruschnexus import Corpus
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.retrieve.query import parse_query
from tests.conftest import FIXTURES, ROOT

pytestmark = pytest.mark.integration

BENCH = ROOT / "bench"
LATENCY = {"p50_ms", "p95_ms", "mean_ms"}


def load(name: str) -> ModuleType:
    """``bench/<name>.py`` as a module (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def run(module: ModuleType, argv: Sequence[object], capsys: pytest.CaptureFixture[str]) -> Any:
    """Run the script's ``main(argv)`` here; it must exit 0. Returns its JSON report from stdout."""
    code = module.main([str(a) for a in argv])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


@pytest.fixture(autouse=True)
def _forget_bench_modules() -> Iterator[None]:
    """The scripts put folders on ``sys.path`` (and rls.py imports search.py as ``search``): undone after each test."""
    path = sys.path[:]
    yield
    sys.path[:] = path
    for name, module in list(sys.modules.items()):
        if Path(getattr(module, "__file__", None) or "/").parent == BENCH:
            del sys.modules[name]


@pytest.fixture(scope="module")
def bench_home() -> Iterator[Path]:
    """This module's NEXUS_HOME (not under pytest's basetemp, like the session's)."""
    home = Path(tempfile.mkdtemp(prefix="nexus-bench-smoke-"))
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="module")
def bench_workspace(bench_home: Path, database_url: str, embedder: Embedder) -> Iterator[str]:
    """A small ingested workspace in the session's database (a PDF and a DOCX), removed at the end."""
    settings = Settings.load(overrides={"home": bench_home, "database_url": database_url}, env={})
    with Corpus(workspace="bench-" + uuid.uuid4().hex[:8], settings=settings, embedder=embedder) as corpus:
        results = corpus.ingest([FIXTURES / "sample_contract.pdf", FIXTURES / "office_lease.docx"])
        assert [r.status for r in results] == ["ingested", "ingested"], results
        yield corpus.workspace
        corpus.delete()


@pytest.fixture
def bench_env(monkeypatch: pytest.MonkeyPatch, bench_home: Path, database_url: str) -> None:
    """The environment a script reading ``bench_workspace`` needs (``Settings.load()`` from the environment)."""
    monkeypatch.setenv("NEXUS_HOME", str(bench_home))
    monkeypatch.setenv("NEXUS_DATABASE_URL", database_url)


def test_search(bench_workspace: str, bench_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    search = load("search")
    argv = ["--workspace", bench_workspace, "--generate", 2000, "--repeat", 1, "--alternate-connections", "--json"]
    report = run(search, argv, capsys)
    settings = report["settings"]
    assert set(settings) == {"corpus", "synthetic"}
    for result in settings.values():
        assert set(result["latency"]) == {"full", "bare", "dense", "sparse", "embed", "rest"}
        assert all(set(row) == LATENCY for row in result["latency"].values())
        assert len(result["per_query"]) == result["queries"] == len(search.QUERIES)
        assert search.render(result)
    synthetic = settings["synthetic"]
    assert synthetic["spans"] == synthetic["generation"]["lexical_index_spans"] == 2000
    assert synthetic["documents"] == 2 and synthetic["pages"] == 200
    assert settings["corpus"]["documents"] == 2
    assert all(set(r) == {"mean", "queries"} for r in synthetic["recall"].values())
    kinds = synthetic["full_by_kind"]
    assert set(kinds) == set(search.KINDS) and sum(k["queries"] for k in kinds.values()) == len(search.QUERIES)
    assert synthetic["generation"]["hnsw_build"] == {"m": 16, "ef_construction": 200}
    assert all(result["connections"] == 2 for result in settings.values()), "the lexical read beside the dense leg"
    for result in settings.values():
        alternated = result["connections_alternated"]
        assert alternated["connections"] == {"one": 1, "two": 2}
        assert set(alternated["full"]) == set(alternated["plain"]) == {"one", "two"}
        assert all(set(row) == LATENCY for row in alternated["full"].values())


def test_search_asks_the_questions_of_a_file(
    bench_workspace: str, bench_env: None, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--questions``: both settings (the ingested workspace, generated spans) are searched with a JSON-lines file's
    questions (the evaluation suite's format, the bench's quoted phrases); a file that holds none, or a line without a
    question, is refused naming the file and the line."""
    search = load("search")
    asked = ["What is the security deposit?", '"the landlord" may terminate the lease']
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps({"id": n, "query": q}) + "\n" for n, q in enumerate(asked)) + "\n")
    argv = ["--workspace", bench_workspace, "--generate", 1000, "--repeat", 1, "--questions", questions, "--json"]
    settings = run(search, argv, capsys)["settings"]
    assert set(settings) == {"corpus", "synthetic"}
    for result in settings.values():
        assert [row["query"] for row in result["per_query"]] == asked and result["questions"] == str(questions)
    assert settings["synthetic"]["full_by_kind"]["phrase"]["queries"] == 1
    assert f"({questions})" in search.render(settings["synthetic"])
    phrases = search.load_questions(BENCH / "phrase_questions.jsonl")
    assert len(phrases) >= 20 and all(parse_query(p).phrases for p in phrases)
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps({"query": asked[0]}) + "\n" + json.dumps({"id": 2}) + "\n")
    with pytest.raises(SystemExit) as refused:
        search.main(["--workspace", bench_workspace, "--generate", "0", "--questions", str(broken)])
    assert refused.value.code == 2 and f'{broken}:2: no "query" text' in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:
        search.main(["--skip-corpus", "--generate", "0", "--questions", str(questions)])
    assert refused.value.code == 2 and "nothing to measure" in capsys.readouterr().err


def test_search_like_a_workspace(bench_workspace: str, bench_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    """Synthetic spans drawn from an ingested workspace (texts and the model's vectors), then measured."""
    search = load("search")
    argv = ["--skip-corpus", "--like", bench_workspace, "--generate", 1000, "--repeat", 1, "--one-connection", "--json"]
    synthetic = run(search, argv, capsys)["settings"]["synthetic"]
    assert synthetic["generation"]["like"] == bench_workspace and synthetic["generation"]["pool_spans"] > 10
    assert synthetic["connections"] == 1
    assert synthetic["spans"] == 1000 and synthetic["recall"]["plain_at_10"]["queries"] > 0


def test_rls(bench_workspace: str, bench_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    rls = load("rls")
    code = rls.main(["--workspace", bench_workspace, "--repeat", "1", "--json"])
    out = capsys.readouterr().out
    if code == 1 and "not a superuser" in out:
        pytest.skip("the test database role is not a superuser: rls.py has no unscoped side to compare")
    assert code == 0, out
    report = json.loads(out)
    assert set(report["latency"]) == {"scoped", "unscoped", "ratio"}
    assert report["queries"] < report["legs"] <= 2 * report["queries"]


def test_cli(bench_workspace: str, bench_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh processes searching the session's database (an external server to them: no start or stop)."""
    cli = load("cli")
    report = run(cli, ["--workspace", bench_workspace, "--repeat", 1, "--json"], capsys)
    assert report["server"] == "external" and report["hits"] >= 1
    assert set(report["commands"]) == {"python", "imports", "search"}
    assert all(set(row) == {"p50_ms", "mean_ms", "min_ms"} for row in report["commands"].values())
    assert "search_beyond_imports_p50_ms" in report and cli.render(report)


@pytest.mark.skipif(
    bool(os.environ.get("NEXUS_TEST_DSN")), reason="the session's database is external: no embedded server to hold"
)
def test_cli_holding_the_embedded_server(
    bench_workspace: str, nexus_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The session's embedded server, joined by each command and held by the bench for one more search."""
    monkeypatch.setenv("NEXUS_HOME", str(nexus_home))
    cli = load("cli")
    report = run(cli, ["--workspace", bench_workspace, "--repeat", 1, "--json"], capsys)
    assert report["server"] == "embedded" and report["hits"] >= 1
    assert set(report["commands"]) == {"python", "imports", "search", "search_server_held"}
    assert "server_start_and_stop_p50_ms" in report


def test_cli_names_a_failed_command(bench_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    code = load("cli").main(["--workspace", "no-such-workspace", "--repeat", "1"])
    assert code == 1 and "exited 2" in capsys.readouterr().err


def test_floor(bench_workspace: str, bench_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    floor = load("floor")
    report = run(floor, ["--workspace", bench_workspace, "--json"], capsys)
    assert len(report["sweep"]) == len(floor.FLOORS)
    assert set(report["best_cosine"]) == set(floor.ON_TOPIC + floor.OFF_TOPIC)
    assert {"lowest_on_topic_best", "highest_off_topic_best", "midpoint"} <= set(report)


def test_revisions(bench_home: Path, bench_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    revisions = load("revisions")
    report = run(revisions, ["--home", bench_home, "--revisions", 2, "--scan", 0, "--json"], capsys)
    assert (report["revisions"], report["versions"]) == (2, 2)
    families = ("latest", "version_pinned", "as_of")
    assert {f"{f}_{m}" for f in families for m in ("recall@5", "citation")} | {"resolve_all"} <= set(report["scores"])
    assert all({"right", "asked", "ratio"} == set(t) for t in report["scores"].values())


def test_stamps(capsys: pytest.CaptureFixture[str]) -> None:
    stamps = load("stamps")
    report = run(stamps, ["--pdfs", 0, "--pages", 1, "--json"], capsys)
    assert report["pages"] == len(report["per_page"]) >= 1
    assert {"corrupted", "stamp_words_in_spans", "stamp_recall", "boxes_moved", "ocr_cer_mean"} <= set(report)


@pytest.mark.skipif(
    shutil.which("chromium") is None and os.environ.get("NEXUS_REQUIRE_BROWSER") != "1",
    reason="Chromium is not installed (bench/tables.py prints HTML with it)",
)
def test_tables(capsys: pytest.CaptureFixture[str]) -> None:
    report = run(load("tables"), ["--sample", "--json"], capsys)
    assert {"precision", "recall", "f1", "text_exact", "median_iou", "per_table"} <= set(report)
    assert report["tables"] == 2 and report["truth_cells"] > 0


def test_ingest(capsys: pytest.CaptureFixture[str]) -> None:
    ingest = load("ingest")
    argv = ["--pdf", FIXTURES / "sample_contract.pdf", "--limit-pages", 2, "--scaling-pages", 1, 2, "--json"]
    report = run(ingest, argv, capsys)
    phases = report["table"]["phases"]
    assert set(phases) == {"extract", "model", "ingest"}
    assert phases["ingest"]["spans"] > 0 and phases["extract"]["pages"] == 2
    assert set(report["scaling"]["phases"]) == {"extract", "ingest"}
    report["machine"]["load_average_1min_at_end"] = 0.0
    assert set(report["table"]["phases"]["ingest"]["stages"]) == {"read", "embed", "store", "other"}
    ingest.print_report(report, as_json=False)
    assert "memory scaling" in capsys.readouterr().out


def test_ingest_batch_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    ingest = load("ingest")
    argv = ["--pdf", FIXTURES / "sample_contract.pdf", "--limit-pages", 1, "--batch-shapes", 1, 4, "--json"]
    report = run(ingest, argv, capsys)
    assert [row["batch"] for row in report["batch_shapes"]["rows"]] == [1, 4] and "table" not in report
    assert all(row["spans_per_s"] > 0 and row["peak_rss_mib"] > 0 for row in report["batch_shapes"]["rows"])


def test_ocr(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from kruschnexus.parse.ocr import tesseract_version

    if tesseract_version() is None:
        pytest.skip("Tesseract is not installed: bench/ocr.py has nothing to measure")
    monkeypatch.setenv("OMP_THREAD_LIMIT", "1")  # the script changes it; restored for the tests after this one
    report = run(load("ocr"), ["--pdf", FIXTURES / "scanned_lease.pdf", "--repeat", 1, "--json"], capsys)
    assert [row["config"] for row in report["rows"]] == ["1 worker, 1 thread", "2 workers, 1 thread", "1 worker, OMP 2"]
    assert all(row["pages"] == 2 for row in report["rows"])


def test_reader(capsys: pytest.CaptureFixture[str]) -> None:
    reader = load("reader")
    report = run(reader, ["--smoke", "--json"], capsys)
    assert report["rows"] and all({"file", "pages", "in_process_s", "reader_s"} == set(r) for r in report["rows"])
    assert {"start_s", "load_average"} <= set(report)
    assert reader.render(report)


def test_fuzz(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fuzz = load("fuzz")
    argv = ["--cases", 40, "--no-corpus", "--progress", 0, "--findings", tmp_path, "--json"]
    report = run(fuzz, argv, capsys)
    assert report["cases"] == report["ok"] + report["parse_error"] == 40
    assert fuzz.render(report)


def run_script(name: str, argv: Sequence[object]) -> subprocess.CompletedProcess[str]:
    """``bench/<name>.py`` in a child process (its clients are spawned processes that import the script as their
    main module)."""
    return subprocess.run(
        [sys.executable, str(BENCH / f"{name}.py"), *map(str, argv)],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_load() -> None:
    pytest.importorskip("uvicorn", reason="bench/load.py serves through the 'api' extra")
    pytest.importorskip("reportlab", reason="bench/load.py makes its PDFs with reportlab")
    home = Path(tempfile.mkdtemp(prefix="nexus-bench-load-"))
    try:
        done = run_script("load", ["--seconds", 3, "--clients", 2, "--uploaders", 1, "--home", home, "--json"])
        log = home / "serve.log"
        assert done.returncode == 0, done.stderr[-3000:] + (log.read_text()[-2000:] if log.is_file() else "")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    report = json.loads(done.stdout)
    assert {"search", "upload"} <= set(report["ops"])
    assert set(report["documents"]) == {"load-shared", "load-c0", "load-c1"}


def test_chaos() -> None:
    """The chaos bench's short version: each fault once under load; nothing partial, no cross-talk, no 500."""
    pytest.importorskip("uvicorn", reason="bench/chaos.py serves through the 'api' extra")
    done = run_script("chaos", ["--seconds", 14, "--every", 4, "--clients", 2, "--uploaders", 1, "--json"])
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert [f["fault"] for f in report["faults"]] == ["postmaster", "reader", "client"], report["faults"]
    assert report["audit"]["documents"] >= 3 and not report["audit"]["partial"]
    assert report["cross_talk"] == 0 and "500" not in report["probe"]["statuses"]
