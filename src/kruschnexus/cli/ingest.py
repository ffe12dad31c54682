"""``nexus ingest PATH... --workspace W``."""

from __future__ import annotations

import difflib
from pathlib import Path

import click
from rich.progress import Progress, TaskID

from kruschnexus.cli import render
from kruschnexus.cli.app import json_option, workspace_option
from kruschnexus.config import OCR_MODES, Settings
from kruschnexus.corpus import Corpus
from kruschnexus.errors import NotFoundError
from kruschnexus.ingest import FileResult


def unknown_workspace(name: str, known: list[str]) -> str:
    """Why ingest refuses ``name``, with the closest known names."""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return f"no workspace {name!r}{hint or '.'} Add --create to make it."


class Bar:
    """Feeds ingest progress to a rich progress bar (pages of the current file)."""

    def __init__(self, bar: Progress) -> None:
        self.bar = bar
        self.task: TaskID | None = None

    def file_started(self, path: Path, pages: int) -> None:
        if self.task is not None:
            self.bar.remove_task(self.task)
        self.task = self.bar.add_task(path.name[:40], total=pages)

    def page_done(self, path: Path) -> None:
        if self.task is not None:
            self.bar.advance(self.task)

    def file_done(self, result: FileResult) -> None:
        if result.failed:
            render.err.print(f"[red]failed[/red] {result.path}: {result.reason}")


@click.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@workspace_option
@click.option("--doc-type", default=None, help="Label stored with each document (e.g. authority).")
@click.option(
    "--ocr",
    type=click.Choice(OCR_MODES),
    default=None,
    help="When PDF pages are OCR'd: auto (pages without a usable text layer; the default, or NEXUS_OCR),"
    " always (also re-OCR a poor existing OCR layer) or never.",
)
@click.option(
    "--as",
    "name",
    default=None,
    metavar="NAME",
    help="The document's name in the workspace, for a single file (default: its path relative to the folder"
    " given, or its file name). New bytes under a stored name add a version of that document.",
)
@click.option(
    "--create", is_flag=True, help="Create the workspace if it does not exist (a name it does not know is refused)."
)
@json_option
def command(
    paths: tuple[Path, ...],
    workspace: str,
    doc_type: str | None,
    ocr: str | None,
    name: str | None,
    create: bool,
    as_json: bool,
) -> None:
    """Ingest files and folders (PDF, DOCX, CSV/TSV, HTML, Markdown, text). Unchanged bytes are skipped; a bad
    file never stops the rest. Each file is a document named by its path relative to the folder given (or its file
    name, or --as); a changed file becomes the next version of its document, and searches answer from the latest.
    A workspace that does not exist is made only with --create, so that a misspelt name is an error, not a new
    empty workspace.

    Exit 1 if any file failed, 2 if the workspace does not exist and --create was not given.
    """
    with Corpus(workspace=workspace, settings=Settings.load()) as corpus, render.progress_bar() as bar:
        if not create and not corpus.exists():
            raise NotFoundError(unknown_workspace(workspace, [r.name for r in corpus.store.workspaces()]))
        results = corpus.ingest(list(paths), doc_type=doc_type, progress=Bar(bar), ocr=ocr, name=name)
    if as_json:
        render.ingest_json(results, workspace)
    else:
        render.ingest_results(results, workspace)
    raise SystemExit(1 if any(r.failed for r in results) else 0)
