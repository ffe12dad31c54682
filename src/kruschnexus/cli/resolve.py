"""``nexus resolve HIT... --workspace W``: where old hits' words are in the latest version of their document."""

from __future__ import annotations

import json
import sys

import click

from kruschnexus.cli import render
from kruschnexus.cli.app import json_option, workspace_option
from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.errors import QueryError


@click.command("resolve")
@click.argument("hits", nargs=-1)
@workspace_option
@json_option
def command(hits: tuple[str, ...], workspace: str, as_json: bool) -> None:
    """Say where the words of old hits are in the latest version of their document: current, moved (new page,
    offsets and the stored span holding them), changed (the section's text now) or removed. HIT is a hit id
    ({doc_id}:{page}:{start}-{end}) or a hit's JSON; with no HIT (or -), hits are read from standard input: the
    output of nexus search --json (an array) or nexus export (one per line).

    Exit 1 when a hit's words are no longer in the latest version (changed or removed).
    """
    values = [v for v in hits if v != "-"]
    if not values or "-" in hits:
        values += _stdin_hits(sys.stdin.read())
    if not values:
        raise QueryError("no hit to resolve: give a hit id or a hit's JSON, or pipe nexus search --json", 0)
    with Corpus(workspace=workspace, settings=Settings.load()) as corpus:
        resolved = [corpus.resolve(v) for v in values]
    if as_json:
        render.json_line([r.model_dump(mode="json") for r in resolved])
    else:
        render.resolutions(resolved)
    raise SystemExit(0 if all(r.status in ("current", "moved") for r in resolved) else 1)


def _stdin_hits(text: str) -> list[str]:
    """Hits piped in: one JSON array, or one JSON object (or hit id) per line."""
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            return [json.dumps(h) for h in json.loads(stripped)]
        except json.JSONDecodeError as exc:
            raise QueryError(f"standard input is not a JSON array of hits: {exc.msg}", exc.pos) from exc
    return [line for line in (raw.strip() for raw in text.splitlines()) if line]
