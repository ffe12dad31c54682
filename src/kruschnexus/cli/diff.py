"""``nexus diff NAME [--from N] [--to M] --workspace W``: what changed between two versions of a document."""

from __future__ import annotations

import click

from kruschnexus.cli import render
from kruschnexus.cli.app import json_option, workspace_option
from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus


@click.command("diff")
@click.argument("name")
@workspace_option
@click.option(
    "--from", "from_version", type=click.IntRange(1), default=None, help="Older version (default: the one before --to)."
)
@click.option("--to", "to_version", type=click.IntRange(1), default=None, help="Newer version (default: the latest).")
@click.option("--all", "every", is_flag=True, help="Also list the sections that did not change.")
@json_option
def command(
    name: str, workspace: str, from_version: int | None, to_version: int | None, every: bool, as_json: bool
) -> None:
    """Compare two versions of the document NAME section by section: added, removed, renumbered and changed
    sections, each with its pages in both versions (sections are matched by their heading's words, so a renumbered
    section is not removed and added)."""
    with Corpus(workspace=workspace, settings=Settings.load()) as corpus:
        result = corpus.diff(name, from_version, to_version)
    if as_json:
        render.json_line(result.model_dump(mode="json"))
    else:
        render.document_diff(result, every)
