"""What a command costs before it searches: the modules a search imports, and the model loaded while the store
opens (docs/scaling.md, "From the shell")."""

from __future__ import annotations

import dataclasses
import gc
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

import kruschnexus
from kruschnexus.cli.app import COMMANDS, cli
from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.embed.registry import make_embedder
from kruschnexus.errors import ConfigError, NotFoundError, StoreError
from tests.conftest import ROOT

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


def _imported_by(code: str) -> set[str]:
    """The ``kruschnexus`` modules a fresh interpreter has imported after running ``code``."""
    shown = "import json, sys; print(json.dumps(sorted(m for m in sys.modules if m.startswith('kruschnexus'))))"
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\n{shown}"], capture_output=True, text=True, check=True, cwd=ROOT, timeout=120
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_the_search_command_imports_nothing_only_other_commands_need() -> None:
    loaded = _imported_by(
        "from kruschnexus.cli.app import cli\nimport click\n"
        "cli.get_command(click.Context(cli), 'search')\nimport kruschnexus.retrieve.search"
    )
    assert "kruschnexus.cli.search" in loaded and "kruschnexus.corpus" in loaded
    assert not loaded & set(NOT_FOR_A_SEARCH), sorted(loaded & set(NOT_FOR_A_SEARCH))
    assert not {m for m in loaded if m.startswith("kruschnexus.cli.")} - {
        "kruschnexus.cli.app",
        "kruschnexus.cli.render",
        "kruschnexus.cli.search",
    }


def test_the_package_names_resolve_where_they_are_defined() -> None:
    assert set(kruschnexus.__all__) == set(kruschnexus._HOMES)
    for name in kruschnexus.__all__:
        value = getattr(kruschnexus, name)
        home = sys.modules[kruschnexus._HOMES[name]]
        assert value is getattr(home, name), name
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        _ = kruschnexus.Nothing
    assert set(kruschnexus.__all__) <= set(dir(kruschnexus))


def test_every_verb_comes_from_its_module() -> None:
    assert list(cli.commands) == sorted(COMMANDS)
    for name in COMMANDS:
        command = cli.commands[name]
        assert command.name == name and sys.modules[COMMANDS[name]].command is command
    assert cli.commands.get("no-such-verb") is None


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
    monkeypatch.setattr("kruschnexus.corpus.make_embedder", _timed(model, make_embedder))
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
    unknown = dataclasses.replace(settings, embedder="no-such-model")
    with Corpus(workspace=workspace, settings=unknown) as corpus, pytest.raises(ConfigError, match="unknown embedder"):
        corpus.run("rent abatement")
    unreachable = dataclasses.replace(settings, database_url="postgresql://nexus@127.0.0.1:1/nexus?connect_timeout=2")
    with Corpus(workspace=workspace, settings=dataclasses.replace(unreachable, embedder="no-such-model")) as corpus:
        with pytest.raises(ConfigError, match="unknown embedder") as caught:
            corpus.run("rent abatement")
    assert isinstance(caught.value.__context__, StoreError)  # the store's failure is kept beside it
    loads = _Timed()
    monkeypatch.setattr("kruschnexus.corpus.make_embedder", _timed(loads, make_embedder))
    with Corpus(workspace=workspace, settings=unreachable) as corpus:
        with pytest.raises(StoreError):
            corpus.run("rent abatement")
        assert loads.thread.startswith("nexus-model")  # loaded meanwhile
        loads.thread = ""
        assert corpus.embedder.dim == 384 and not loads.thread  # and kept for the next try


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
