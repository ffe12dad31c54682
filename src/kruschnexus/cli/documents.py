"""``nexus documents [list | show DOC | versions NAME | delete DOC] --workspace W``: DOC is a document id, a unique
prefix of one (8 characters or more), a document's name (its latest version) or a stored file name."""

from __future__ import annotations

import click
from rich.table import Table

from kruschnexus.cli import render
from kruschnexus.cli.app import json_option, workspace_option
from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.errors import NotFoundError
from kruschnexus.schema.v1 import DocumentInfo

#: The shortest document id prefix taken as naming one document.
MIN_PREFIX = 8


@click.group("documents")
def command() -> None:
    """List, show and delete the documents of a workspace, and list a document's versions."""


@command.command("list")
@workspace_option
@click.option("--all", "every", is_flag=True, help="Every version of each document, not only the latest.")
@json_option
def list_(workspace: str, every: bool, as_json: bool) -> None:
    """The workspace's documents: name, latest version, format, pages, reader version, id (``--all``: every
    version, not only the latest)."""
    with Corpus(workspace=workspace, settings=Settings.load()) as corpus:
        docs = corpus.documents()
    if not every:
        docs = [d for d in docs if d.latest]
    if as_json:
        render.json_line([d.model_dump(mode="json") for d in docs])
        return
    _table(f"documents of workspace {workspace!r}", docs)
    if not docs:
        render.out.print(f"no documents in {workspace!r}")


@command.command("versions")
@click.argument("name")
@workspace_option
@json_option
def versions(name: str, workspace: str, as_json: bool) -> None:
    """Every version of the document NAME, oldest first (the latest is the one searches answer from)."""
    with Corpus(workspace=workspace, settings=Settings.load()) as corpus:
        docs = corpus.versions(name)
    if as_json:
        render.json_line([d.model_dump(mode="json") for d in docs])
        return
    _table(f"versions of {name!r} in {workspace!r}", docs)


def _table(title: str, docs: list[DocumentInfo]) -> None:
    if not docs:
        return
    table = Table(title=title)
    for column in ("name", "version", "kind", "pages", "read by", "ingested", "doc_id"):
        table.add_column(column, overflow="fold")
    for d in docs:
        version = f"v{d.version}" + (" (latest)" if d.latest else "")
        row = (d.name, version, d.kind, str(d.page_count), d.extractor_version, d.ingested_at[:19], d.doc_id[:12])
        table.add_row(*row)
    render.out.print(table)


@command.command("show")
@click.argument("doc")
@workspace_option
@json_option
def show(doc: str, workspace: str, as_json: bool) -> None:
    """One document: its id, file name, format, size, pages, reader version and what the reader detected."""
    with Corpus(workspace=workspace, settings=Settings.load()) as corpus:
        info = find(corpus, doc)
    if as_json:
        render.json_line(info.model_dump(mode="json"))
        return
    for key, value in info.model_dump(mode="json").items():
        render.out.print(f"{key:18} {value}")


@command.command("delete")
@click.argument("doc")
@workspace_option
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
def delete(doc: str, workspace: str, yes: bool, as_json: bool) -> None:
    """Delete one document (its pages, spans and index entries; its kept bytes when no workspace holds them)."""
    with Corpus(workspace=workspace, settings=Settings.load()) as corpus:
        info = find(corpus, doc)
        if not yes:
            what = f"{info.name} v{info.version} ({info.doc_id[:12]})"
            click.confirm(f"delete {what} from {workspace!r}?", abort=True, err=True)
        corpus.delete_document(info.doc_id)
    if as_json:
        render.json_line(
            {"workspace": workspace, "deleted": info.doc_id, "source": info.source, "name": info.name,
             "version": info.version}
        )  # fmt: skip
    else:
        render.out.print(f"deleted {info.name} v{info.version} ({info.doc_id[:12]}) from {workspace!r}")


def find(corpus: Corpus, doc: str) -> DocumentInfo:
    """The one document version ``doc`` names: its id, a unique id prefix of :data:`MIN_PREFIX` characters or more,
    a document's name (its latest version) or a stored file name (of a latest version).

    Raises:
        NotFoundError: none, or several, match (the message lists them).
    """
    docs = corpus.documents()
    matches = [d for d in docs if d.doc_id == doc]
    matches = matches or [d for d in docs if d.name == doc and d.latest]
    matches = matches or [d for d in docs if d.source == doc and d.latest]
    if not matches and len(doc) >= MIN_PREFIX:
        matches = [d for d in docs if d.doc_id.startswith(doc.lower())]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise NotFoundError(f"no document {doc!r} in workspace {corpus.workspace!r} (`nexus documents list`)")
    listed = ", ".join(f"{d.name} v{d.version} ({d.doc_id[:12]})" for d in matches)
    raise NotFoundError(f"{doc!r} names {len(matches)} documents of {corpus.workspace!r}: {listed}; give the id")
