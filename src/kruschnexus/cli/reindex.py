"""``nexus reindex --workspace W``."""

from __future__ import annotations

import dataclasses

import click

from kruschnexus.cli import render
from kruschnexus.cli.app import json_option, workspace_option
from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus


@click.command("reindex")
@workspace_option
@json_option
def command(workspace: str, as_json: bool) -> None:
    """Rebuild the workspace's lexical (BM25) index from the database. Nothing is lost: the index is derived."""
    with Corpus(workspace=workspace, settings=Settings.load()) as corpus, render.progress_bar() as bar:
        task = bar.add_task(f"indexing {workspace}", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        report = corpus.reindex(progress)
    if as_json:
        render.json_line({"workspace": workspace, **dataclasses.asdict(report)})
    else:
        render.out.print(f"reindexed {workspace}: {report.documents} documents, {report.spans} spans")
