"""``nexus export --workspace W``."""

from __future__ import annotations

import click

from kruschnexus.cli import render
from kruschnexus.cli.app import workspace_option
from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus


@click.command("export")
@workspace_option
def command(workspace: str) -> None:
    """Print every stored span as one v1 hit JSON object per line (score null)."""
    with Corpus(workspace=workspace, settings=Settings.load()) as corpus:
        render.hits_jsonl(corpus.export())
