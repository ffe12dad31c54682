"""``nexus reingest --workspace W [--all] [--ocr MODE]``."""

from __future__ import annotations

import click

from kruschnexus.cli import render
from kruschnexus.cli.app import json_option, workspace_option
from kruschnexus.cli.ingest import Bar
from kruschnexus.config import OCR_MODES, Settings
from kruschnexus.corpus import Corpus


@click.command("reingest")
@workspace_option
@click.option("--all", "every", is_flag=True, help="Read every document again, not only those that would change.")
@click.option(
    "--ocr",
    type=click.Choice(OCR_MODES),
    default=None,
    help="When PDF pages are OCR'd, as for ingest (default: auto, or NEXUS_OCR).",
)
@json_option
def command(workspace: str, every: bool, ocr: str | None, as_json: bool) -> None:
    """Read stored documents again from their kept original bytes: those an older extractor or chunker read, or
    whose pages without a text layer were not OCR'd and now can be (Tesseract installed). Each document is replaced
    in one transaction (searches see the old version until then); spans whose text did not change keep their
    vectors.

    Exit 1 if any document failed (its stored version stays).
    """
    with Corpus(workspace=workspace, settings=Settings.load()) as corpus, render.progress_bar() as bar:
        results = corpus.reread(every=every, ocr=ocr, progress=Bar(bar))
    if as_json:
        render.ingest_json(results, workspace)
    elif not results:
        render.out.print(f"every document of {workspace!r} is read by this version: nothing to read again")
    else:
        render.ingest_results(results, workspace, title=f"read again in workspace {workspace!r}")
    raise SystemExit(1 if any(r.failed for r in results) else 0)
