"""What a reading of PostgreSQL's progress views tells (``store.progress.step_of``), and how the CLI shows it."""

from __future__ import annotations

import dataclasses
import io

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.progress import Progress

from kruschnexus.cli.render import stepper
from kruschnexus.store.progress import WAITING, Step, step_of
from kruschnexus.store.records import ProgressRow

NOTHING = ProgressRow(
    waiting=False,
    rewrite_phase=None,
    blocks_done=None,
    blocks_total=None,
    indexes_done=None,
    indexes_total=None,
    build_phase=None,
    tuples_done=None,
    tuples_total=None,
    build_blocks_done=None,
    build_blocks_total=None,
)


def _row(**fields: object) -> ProgressRow:
    return dataclasses.replace(NOTHING, **fields)  # type: ignore[arg-type]


def test_a_backend_that_reports_nothing_has_no_step() -> None:
    assert step_of(NOTHING) is None
    assert step_of(_row(waiting=None)) is None  # pg_stat_activity: no wait event


def test_waiting_for_a_lock_comes_first() -> None:
    assert step_of(_row(waiting=True, rewrite_phase="seq scanning heap")) == Step(WAITING)


def test_a_rewrite_counts_blocks_then_indexes() -> None:
    scanning = _row(rewrite_phase="seq scanning heap", blocks_done=10, blocks_total=40)
    assert step_of(scanning) == Step("seq scanning heap", 10, 40, "blocks")
    rebuilding = dataclasses.replace(scanning, rewrite_phase="rebuilding index", indexes_done=2, indexes_total=9)
    assert step_of(rebuilding) == Step("rebuilding index", 2, 9, "indexes")
    assert step_of(_row(rewrite_phase="initializing", blocks_total=0)) == Step("initializing")


def test_a_build_counts_tuples_when_it_knows_how_many_else_blocks() -> None:
    loading = _row(build_phase="building index: loading tuples", tuples_done=5, tuples_total=50)
    assert step_of(loading) == Step("building index: loading tuples", 5, 50, "tuples")
    pgvector = dataclasses.replace(
        loading, tuples_done=19089, tuples_total=0, build_blocks_done=7802, build_blocks_total=41824
    )
    assert step_of(pgvector) == Step("building index: loading tuples", 7802, 41824, "blocks")
    waiting = _row(build_phase="waiting for writers before build", tuples_done=0, tuples_total=0)
    assert step_of(waiting) == Step("waiting for writers before build")


@given(st.integers(0, 10**9), st.integers(1, 10**9), st.sampled_from(["rewrite", "build"]))
def test_counts_pass_through_unchanged(done: int, total: int, kind: str) -> None:
    row = (
        _row(rewrite_phase="writing new heap", blocks_done=done, blocks_total=total)
        if kind == "rewrite"
        else _row(build_phase="building index: loading tuples", tuples_done=done, tuples_total=total)
    )
    step = step_of(row)
    assert step is not None and (step.done, step.total) == (done, total)


def test_the_bar_drops_a_count_when_a_phase_counts_nothing() -> None:
    """rich keeps a task's total when an update gives none: a phase after a counted one must not show 0 of it."""
    bar = Progress(console=Console(file=io.StringIO()))
    show = stepper(bar, "rewriting")
    show(Step("seq scanning heap", 5, 40, "blocks"))
    [task] = bar.tasks
    assert (task.description, task.completed, task.total) == ("rewriting: seq scanning heap (blocks)", 5, 40)
    show(Step("performing final cleanup"))
    [task] = bar.tasks
    assert (task.description, task.total) == ("rewriting: performing final cleanup", None)
    show(Step("rebuilding index", 1, 9, "indexes"))
    [task] = bar.tasks
    assert (task.completed, task.total) == (1, 9)
