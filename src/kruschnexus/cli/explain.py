"""``nexus explain QUERY --workspace W``."""

from __future__ import annotations

import click

from kruschnexus.cli import render
from kruschnexus.cli.app import QueryCommand, json_option, searching_corpus, workspace_option


@click.command("explain", cls=QueryCommand)
@click.argument("query", nargs=-1, required=True)
@workspace_option
@click.option("--k", "k", default=5, show_default=True, type=click.IntRange(1, 100), help="Hits the search keeps.")
@json_option
def command(query: tuple[str, ...], workspace: str, k: int, as_json: bool) -> None:
    """Show every candidate of a search: dense rank and cosine, full-text rank and score, RRF terms, boost,
    admitted or rejected and why, and the parsed query. The query is read as by nexus search."""
    with searching_corpus(workspace) as corpus:
        trace = corpus.explain(" ".join(query), k=k)
    if as_json:
        render.json_line(trace.model_dump(mode="json"))
    else:
        render.explain(trace)
