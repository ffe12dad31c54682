"""``nexus workspaces [list | create NAME | delete NAME]``."""

from __future__ import annotations

import click
from rich.table import Table

from kruschnexus.cli import render
from kruschnexus.cli.app import json_option
from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.errors import NotFoundError
from kruschnexus.hub import Hub


@click.group("workspaces")
def command() -> None:
    """List, create and delete workspaces."""


@command.command("list")
@json_option
def list_(as_json: bool) -> None:
    """Every workspace with its embedding model and document count."""
    with Hub(Settings.load()) as hub:
        found = hub.workspaces()
    if as_json:
        render.json_line([w.model_dump(mode="json") for w in found])
        return
    table = Table(title="workspaces")
    for name in ("name", "documents", "model"):
        table.add_column(name, overflow="fold")
    for w in found:
        table.add_row(w.name, str(w.documents), f"{w.model_id} ({w.dim})")
    render.out.print(table if found else "no workspaces yet: `nexus ingest PATH -w NAME --create` makes one")


@command.command("create")
@click.argument("name")
@json_option
def create(name: str, as_json: bool) -> None:
    """Create workspace NAME bound to the configured embedding model (nothing changes if it exists with it)."""
    with Corpus(workspace=name, settings=Settings.load()) as corpus:
        created = corpus.create()
    if as_json:
        render.json_line({"workspace": name, "created": created})
    else:
        render.out.print(f"workspace {name!r} " + ("created" if created else "already exists"))


@command.command("delete")
@click.argument("name")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
def delete(name: str, yes: bool, as_json: bool) -> None:
    """Delete workspace NAME: its documents, spans and index, and the kept bytes no other workspace holds."""
    with Corpus(workspace=name, settings=Settings.load()) as corpus:
        if not corpus.exists():
            raise NotFoundError(f"no workspace {name!r}")
        documents = len(corpus.documents())
        if not yes:
            click.confirm(f"delete workspace {name!r} and its {documents} document(s)?", abort=True, err=True)
        corpus.delete()
    if as_json:
        render.json_line({"workspace": name, "deleted": True, "documents": documents})
    else:
        render.out.print(f"deleted workspace {name!r} ({documents} document(s))")
