"""``nexus explain QUERY --workspace W``."""

from __future__ import annotations

import click

from kruschnexus.cli import render
from kruschnexus.cli.app import QueryCommand, json_option, workspace_option
from kruschnexus.config import Settings, check_workspace_name
from kruschnexus.embed.registry import bundled, load_embedder


@click.command("explain", cls=QueryCommand)
@click.argument("query", nargs=-1, required=True)
@workspace_option
@click.option("--k", "k", default=5, show_default=True, type=click.IntRange(1, 100), help="Hits the search keeps.")
@json_option
def command(query: tuple[str, ...], workspace: str, k: int, as_json: bool) -> None:
    """Show every candidate of a search: dense rank and cosine, full-text rank and score, RRF terms, boost,
    admitted or rejected and why, and the parsed query. The query is read as by nexus search."""
    settings = Settings.load()
    check_workspace_name(workspace)  # bad input refused before anything loads
    loading = load_embedder(settings) if bundled(settings) else None
    from kruschnexus.corpus import Corpus  # imported while the model loads (docs/scaling.md, "From the shell")

    with Corpus(workspace=workspace, settings=settings, embedder=loading) as corpus:
        trace = corpus.explain(" ".join(query), k=k)
    if as_json:
        render.json_line(trace.model_dump(mode="json"))
    else:
        render.explain(trace)
