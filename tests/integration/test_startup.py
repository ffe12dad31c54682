"""What a command costs before it searches: the modules a search imports, and the model loaded while the store
opens (docs/scaling.md, "From the shell")."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.embed.base import Embedder
from kruschnexus.embed.registry import load_embedder, make_embedder
from kruschnexus.errors import ConfigError, NotFoundError, StoreError
from tests.conftest import FIXTURES, ROOT

pytestmark = pytest.mark.integration

#: Modules only ingestion, evaluation, page images, the doctor, verification or the servers need.
NOT_FOR_A_SEARCH = (
    "kruschnexus.ingest",
    "kruschnexus.extract",
    "kruschnexus.parse.pdf",
    "kruschnexus.parse.docx",
    "kruschnexus.pageimage",
    "kruschnexus.doctor",
    "kruschnexus.verify",
    "kruschnexus.eval.runner",
    "kruschnexus.api",
    "kruschnexus.mcp",
)


def test_a_search_from_the_shell_imports_nothing_only_other_commands_need(
    settings: Settings, workspace: str, embedder: Embedder
) -> None:
    """A real ``nexus search`` in a fresh process (the session's database, a fixture ingested), the modules it
    imported listed as it exits."""
    with Corpus(workspace=workspace, settings=settings, embedder=embedder) as corpus:
        assert [r.status for r in corpus.ingest([FIXTURES / "sample_contract.pdf"])] == ["ingested"]
    listed = (
        "import atexit, json, sys\n"
        "atexit.register(lambda: print(json.dumps(sorted(m for m in sys.modules if m.startswith('kruschnexus'))),"
        " file=sys.stderr))\n"
        "import kruschnexus.embed.registry as registry\n"
        "begun = registry.load_embedder\n"
        "def load(settings):\n"
        "    print('corpus imported before the load' if 'kruschnexus.corpus' in sys.modules else 'load first',"
        " file=sys.stderr)\n"
        "    return begun(settings)\n"
        "registry.load_embedder = load\n"
        "from kruschnexus.cli.app import main\n"
        f"sys.argv = ['nexus', 'search', 'termination notice', '--workspace', {workspace!r}, '--json']\n"
        "main()"
    )
    assert settings.database_url is not None
    env = {**os.environ, "NEXUS_HOME": str(settings.home), "NEXUS_DATABASE_URL": settings.database_url}
    done = subprocess.run(
        [sys.executable, "-c", listed], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout), "the search found the fixture's clauses"
    assert "load first" in done.stderr.splitlines(), done.stderr  # the model's load begun before the corpus' imports
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert {"kruschnexus.cli.search", "kruschnexus.corpus", "kruschnexus.retrieve.search"} <= loaded
    assert not loaded & set(NOT_FOR_A_SEARCH), sorted(loaded & set(NOT_FOR_A_SEARCH))
    assert not {m for m in loaded if m.startswith("kruschnexus.cli.")} - {
        "kruschnexus.cli.app",
        "kruschnexus.cli.render",
        "kruschnexus.cli.search",
    }


@dataclasses.dataclass
class _Timed:
    """When a call ran, and on which thread."""

    started: float = 0.0
    ended: float = 0.0
    thread: str = ""


def _timed(record: _Timed, call: Callable[..., Any]) -> Callable[..., Any]:
    """``call``, its first run recorded in ``record`` (a search opens a second connection later)."""

    def timed(*args: Any, **kwargs: Any) -> Any:
        first = not record.thread
        if first:
            record.started, record.thread = time.perf_counter(), threading.current_thread().name
        try:
            return call(*args, **kwargs)
        finally:
            if first:
                record.ended = time.perf_counter()

    return timed


def test_a_first_search_loads_the_model_while_the_store_opens(
    settings: Settings, workspace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, store = _Timed(), _Timed()
    monkeypatch.setattr("kruschnexus.embed.registry.make_embedder", _timed(model, make_embedder))
    corpus = Corpus(workspace=workspace, settings=settings)
    monkeypatch.setattr(corpus.database, "connect", _timed(store, corpus.database.connect))
    with corpus, pytest.raises(NotFoundError, match="does not exist"):
        corpus.run("rent abatement")
    assert model.thread.startswith("nexus-model") and store.thread == threading.current_thread().name
    assert model.started < store.ended and store.started < model.ended, (model, store)  # the two overlapped
    assert corpus.embedder.model_id == "all-MiniLM-L6-v2-onnx-int8"


def test_the_model_error_comes_first_and_the_store_error_still_comes(
    settings: Settings, workspace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = dataclasses.replace(settings, embed_batch=0)  # the bundled model refuses to load
    with Corpus(workspace=workspace, settings=broken) as corpus, pytest.raises(ConfigError, match="batch size"):
        corpus.run("rent abatement")
    unreachable = dataclasses.replace(settings, database_url="postgresql://nexus@127.0.0.1:1/nexus?connect_timeout=2")
    with Corpus(workspace=workspace, settings=dataclasses.replace(unreachable, embed_batch=0)) as corpus:
        with pytest.raises(ConfigError, match="batch size") as caught:
            corpus.run("rent abatement")
    assert isinstance(caught.value.__context__, StoreError)  # the store's failure is kept beside it
    loads = _Timed()
    for where in ("kruschnexus.corpus", "kruschnexus.embed.registry"):  # a second load, by either way, is seen
        monkeypatch.setattr(f"{where}.make_embedder", _timed(loads, make_embedder))
    with Corpus(workspace=workspace, settings=unreachable) as corpus:
        with pytest.raises(StoreError):
            corpus.run("rent abatement")
        assert loads.thread.startswith("nexus-model")  # loaded meanwhile
        loads.thread = ""
        assert corpus.embedder.dim == 384 and not loads.thread  # and kept for the next try


def test_only_the_bundled_model_loads_beside_the_store(settings: Settings, workspace: str) -> None:
    """Another model (``hash`` here; ``ollama:`` asks its server) loads when first used, as before: an interrupt
    while the store opens is not held up by it."""
    hashed = dataclasses.replace(settings, embedder="hash:8")
    loads = _Timed()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("kruschnexus.corpus.make_embedder", _timed(loads, make_embedder))
        with Corpus(workspace=workspace, settings=hashed) as corpus, pytest.raises(NotFoundError):
            corpus.run("rent abatement")
    assert loads.thread == threading.current_thread().name


def test_invalid_legs_are_refused_before_anything_loads(
    settings: Settings, workspace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, store = _Timed(), _Timed()
    for where in ("kruschnexus.corpus", "kruschnexus.embed.registry"):
        monkeypatch.setattr(f"{where}.make_embedder", _timed(model, make_embedder))
    with Corpus(workspace=workspace, settings=settings) as corpus:
        monkeypatch.setattr(corpus.database, "connect", _timed(store, corpus.database.connect))
        with pytest.raises(ConfigError, match=r"legs must be .*not \['bogus'\]"):
            corpus.run("rent abatement", legs=("bogus", "dense"))
        with pytest.raises(ConfigError, match=r"legs must be .*not none"):
            corpus.run("rent abatement", legs=())
    assert not model.thread and not store.thread


def test_the_command_line_freezes_what_is_left_before_the_interpreter_exits(monkeypatch: pytest.MonkeyPatch) -> None:
    from kruschnexus.cli.app import main

    monkeypatch.setattr(sys, "argv", ["nexus", "--version"])
    assert gc.get_freeze_count() == 0
    try:
        with pytest.raises(SystemExit) as exited:
            main()
        assert exited.value.code == 0 and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_searches_from_several_threads_take_turns_on_one_model_and_store(
    settings: Settings, workspace: str, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two first searches at once (LangChain's ``abatch``): one loads the model and opens the store, the other
    waits its turn. Each load meets the other at a barrier, so two loads would both pass it; one alone waits it
    out."""
    with Corpus(workspace=workspace, settings=settings, embedder=embedder) as corpus:
        assert [r.status for r in corpus.ingest([FIXTURES / "sample_contract.pdf"])] == ["ingested"]
    met = threading.Barrier(2, timeout=1.5)
    loads: list[str] = []

    def load(given: Settings) -> Embedder:
        loads.append(threading.current_thread().name)
        with contextlib.suppress(threading.BrokenBarrierError):
            met.wait()
        return make_embedder(given)

    for where in ("kruschnexus.corpus", "kruschnexus.embed.registry"):
        monkeypatch.setattr(f"{where}.make_embedder", load)
    corpus = Corpus(workspace=workspace, settings=settings)
    opened: list[str] = []
    connect = corpus.database.connect

    def counted() -> Any:
        opened.append(threading.current_thread().name)
        return connect()

    monkeypatch.setattr(corpus.database, "connect", counted)
    with corpus, ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(lambda q: corpus.search(q, k=3), ["termination notice"] * 2))
    assert len(loads) == 1, loads
    assert len(opened) == 2, opened  # the store and the side connection, once each
    assert answers[0] and [h.citation for h in answers[0]] == [h.citation for h in answers[1]]


def test_a_model_handed_over_as_it_loads_is_the_one_searched_with(settings: Settings, workspace: str) -> None:
    """``nexus search`` begins the model's load before it imports the corpus, and hands the corpus the load."""
    loading = load_embedder(settings)
    with Corpus(workspace=workspace, settings=settings, embedder=loading) as corpus:
        with pytest.raises(NotFoundError):
            corpus.run("rent abatement")
        assert corpus.embedder is loading.result()
    unreachable = dataclasses.replace(settings, database_url="postgresql://nexus@127.0.0.1:1/nexus?connect_timeout=2")
    broken = load_embedder(dataclasses.replace(settings, embed_batch=0))
    with Corpus(workspace=workspace, settings=unreachable, embedder=broken) as corpus:
        with pytest.raises(ConfigError, match="batch size") as caught:
            corpus.run("rent abatement")
    assert isinstance(caught.value.__context__, StoreError)


def test_a_bad_workspace_name_is_refused_before_the_model_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from kruschnexus.cli.app import cli

    begun: list[str] = []
    for verb in ("search", "explain"):
        assert cli.commands[verb].name == verb  # the verb's module, imported
        monkeypatch.setattr("kruschnexus.embed.registry.load_embedder", lambda _settings: begun.append("load"))
        result = CliRunner().invoke(cli, [verb, "rent", "--workspace", "Not A Name"])
        assert result.exit_code == 2 and "invalid workspace name" in result.output, result.output
    assert not begun
