"""``nexus search QUERY --workspace W``."""

from __future__ import annotations

import click

from kruschnexus.cli import render
from kruschnexus.cli.app import QueryCommand, json_option, searching_corpus, workspace_option


@click.command("search", cls=QueryCommand)
@click.argument("query", nargs=-1, required=True)
@workspace_option
@click.option("--k", "k", default=5, show_default=True, type=click.IntRange(1, 100), help="Hits to return at most.")
@json_option
def command(query: tuple[str, ...], workspace: str, k: int, as_json: bool) -> None:
    """Search a workspace. Prints citation, score and snippet (piped: one tab-separated line per hit); --json prints
    the v1 hit array ([] when nothing).

    Operators: "exact phrase", -term, -"phrase", doc_type:X, page:N, page:N-M, doc:GLOB, section:ID; section
    references in the text (Section 8.22.030(C), § 8.22, Art. IV) restrict hits to that section. The query may
    start with an exclusion (nexus search '-waiver late charge'); doc: is case-insensitive; section:ID alone looks
    the section up.
    """
    with searching_corpus(workspace) as corpus:
        outcome = corpus.run(" ".join(query), k=k)
    if as_json:
        render.hits_json(outcome.hits)
    elif outcome.hits:
        render.hits_table(outcome.hits)
    else:
        render.abstain(outcome.trace)
