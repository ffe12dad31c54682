"""``nexus verify --workspace W``."""

from __future__ import annotations

import click

from kruschnexus.cli import render
from kruschnexus.cli.app import json_option, workspace_option
from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus


@click.command("verify")
@workspace_option
@json_option
def command(workspace: str, as_json: bool) -> None:
    """Re-derive every stored span from the original bytes; list mismatches. Exit 1 on any."""
    with Corpus(workspace=workspace, settings=Settings.load()) as corpus, render.progress_bar() as bar:
        corpus.require_exists()
        total = corpus.counts()[0]
        task = bar.add_task("verifying", total=total)
        report = corpus.verify(tick=lambda _name: bar.advance(task))
    if as_json:
        render.verify_json(report)
    else:
        render.verify(report)
    raise SystemExit(0 if report.ok else 1)
