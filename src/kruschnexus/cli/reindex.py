"""``nexus reindex --workspace W [--vectors | --rewrite] [--build-memory 2GB]``."""

from __future__ import annotations

import dataclasses
import time

import click
from rich.progress import TaskID

from kruschnexus.cli import render
from kruschnexus.cli.app import json_option, workspace_option
from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.doctor import vector_storage_detail


@click.command("reindex")
@workspace_option
@click.option(
    "--vectors",
    is_flag=True,
    help="rebuild the vector (HNSW) index instead, with the settings' hnsw_m and hnsw_ef_construction; it serves"
    " every workspace of the same vector dimension, and searches go on while it is built",
)
@click.option(
    "--rewrite",
    is_flag=True,
    help="rewrite the spans table instead (VACUUM FULL), every workspace's, so that spans stored by a version before"
    " migration 0011 keep their vectors in their rows (nexus doctor's 'vector storage' line); its indexes are built"
    " again. Searches and ingests wait until it ends (7.6 min at 10^6 spans on 2 cores), and the disk needs room"
    " for a second copy of the table and its indexes",
)
@click.option(
    "--build-memory",
    metavar="SIZE",
    default=None,
    help="with --vectors or --rewrite: memory for the vector index's build (PostgreSQL's maintenance_work_mem, e.g."
    " 2GB); a graph larger than it builds far slower. Default: the server's setting",
)
@json_option
def command(workspace: str, vectors: bool, rewrite: bool, build_memory: str | None, as_json: bool) -> None:
    """Rebuild the workspace's lexical (BM25) index from the database, or with --vectors its vector index. Nothing
    is lost: both are derived. Without --vectors, spans stored before they held their line markers (an earlier
    version) are given them first, so that a section look-up finds them by index. With --rewrite, the spans table
    is rewritten instead."""
    if vectors and rewrite:
        raise click.UsageError("--vectors and --rewrite are two commands: give one")
    if build_memory is not None and not (vectors or rewrite):
        raise click.UsageError("--build-memory sizes the vector index's build: give it with --vectors or --rewrite")
    with Corpus(workspace=workspace, settings=Settings.load()) as corpus:
        if vectors:
            _vectors(corpus, build_memory, as_json)
            return
        if rewrite:
            _rewrite(corpus, build_memory, as_json)
            return
        marked = 0
        with render.progress_bar() as bar:
            mark_task: TaskID | None = None

            def marking(done: int, total: int) -> None:
                nonlocal mark_task, marked
                if mark_task is None:
                    mark_task = bar.add_task(f"marking the lines of {workspace}'s older spans", total=total)
                marked = done
                bar.update(mark_task, completed=done, total=total)

            task = bar.add_task(f"indexing {workspace}", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            report = corpus.reindex(progress, marking)
    if as_json:
        render.json_line({"workspace": workspace, **dataclasses.asdict(report), "marked": marked})
    else:
        also = f" ({marked} older spans given their line markers)" if marked else ""
        render.out.print(f"reindexed {workspace}: {report.documents} documents, {report.spans} spans{also}")


def _vectors(corpus: Corpus, build_memory: str | None, as_json: bool) -> None:
    started = time.perf_counter()
    with render.progress_bar() as bar:
        title = f"building the vector index of {corpus.workspace} (searches go on meanwhile)"
        report = corpus.rebuild_vector_index(build_memory, render.stepper(bar, title))
    seconds = round(time.perf_counter() - started, 1)
    if as_json:
        render.json_line(
            {"workspace": corpus.workspace, "index": "vectors", **dataclasses.asdict(report), "seconds": seconds}
        )
        return
    before = (
        "none" if report.before is None else f"m {report.before.m}, ef_construction {report.before.ef_construction}"
    )
    render.out.print(
        f"rebuilt the vector index of {report.dim} dimensions in {seconds} s: m {report.after.m}, ef_construction"
        f" {report.after.ef_construction} (before: {before})"
    )


def _rewrite(corpus: Corpus, build_memory: str | None, as_json: bool) -> None:
    started = time.perf_counter()
    with render.progress_bar() as bar:
        before, after = corpus.rewrite_spans(build_memory, render.stepper(bar, "rewriting the spans table"))
    seconds = round(time.perf_counter() - started, 1)
    if as_json:
        render.json_line(
            {
                "workspace": corpus.workspace,
                "rewritten": "spans",
                "before": dataclasses.asdict(before),
                "after": dataclasses.asdict(after),
                "seconds": seconds,
            }
        )
        return
    render.out.print(f"rewrote the spans table in {seconds} s: {vector_storage_detail(after)}")
