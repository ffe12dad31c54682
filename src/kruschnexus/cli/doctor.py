"""``nexus doctor``."""

from __future__ import annotations

import click

from kruschnexus.cli import render
from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def command(as_json: bool) -> None:
    """Check the database, pgvector, the model, stored workspaces and their indexes, optional tools and disk.

    Exit 0 when healthy, 1 when degraded.
    """
    with Corpus(workspace="doctor", settings=Settings.load()) as corpus:
        report = corpus.doctor()
    if as_json:
        render.doctor_json(report)
    else:
        render.doctor(report)
    raise SystemExit(0 if report.healthy else 1)
