"""``nexus eval SUITE.jsonl --corpus DIR``."""

from __future__ import annotations

from pathlib import Path

import click
from rich.progress import Progress, TaskID

from kruschnexus.cli import render
from kruschnexus.cli.app import json_option
from kruschnexus.config import Settings
from kruschnexus.errors import ConfigError
from kruschnexus.eval.plot import reliability_png
from kruschnexus.eval.runner import SYSTEMS, evaluate
from kruschnexus.eval.suite import Split

#: ``--split`` choices and the split each selects (``all``: every query).
_SPLITS: dict[str, Split | None] = {"dev": "dev", "test": "test", "all": None}


class _Bar:
    """Feeds evaluation stages to a rich progress bar."""

    def __init__(self, bar: Progress) -> None:
        self.bar = bar
        self.task: TaskID | None = None

    def stage(self, name: str, total: int) -> None:
        if self.task is not None:
            self.bar.remove_task(self.task)
        self.task = self.bar.add_task(name, total=total)

    def step(self) -> None:
        if self.task is not None:
            self.bar.advance(self.task)


@click.command("eval")
@click.argument("suite", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--corpus",
    "corpus_dir",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder the suite's `doc` paths are relative to; its files are ingested into a workspace of its own.",
)
@click.option(
    "--baseline",
    "baselines",
    multiple=True,
    type=click.Choice([*SYSTEMS[1:], "none"]),
    help="Baselines to run beside nexus (repeatable; default: all of langchain, fulltext, dense).",
)
@click.option("--workspace", "-w", default=None, help="Workspace to ingest into (default: eval-<hash of the folder>).")
@click.option("--k", "k", default=5, show_default=True, type=click.IntRange(1, 50), help="Hits per query.")
@click.option(
    "--split",
    type=click.Choice(["dev", "test", "all"]),
    default="all",
    show_default=True,
    help="Score only the suite's dev or test queries (the `split` field); the corpus ingested is the same.",
)
@click.option("--all-files", is_flag=True, help="Ingest every file of the folder, not only the suite's formats.")
@click.option(
    "--plot", type=click.Path(dir_okay=False, path_type=Path), help="Write nexus's reliability diagram (PNG)."
)
@json_option
def command(
    suite: Path,
    corpus_dir: Path,
    baselines: tuple[str, ...],
    workspace: str | None,
    k: int,
    split: str,
    all_files: bool,
    plot: Path | None,
    as_json: bool,
) -> None:
    """Score a labelled suite: Recall@5, nDCG@5, citation accuracy, span precision, hard negatives answered [],
    answerable queries answered [], ECE; per family and kind, with baselines beside nexus.

    Each figure is printed as a ratio with its raw counts. The corpus is ingested once into its own workspace
    (a rerun skips unchanged files). `--split dev|test` scores only that split of the suite.
    """
    chosen = [b for b in baselines if b != "none"] if baselines else list(SYSTEMS[1:])
    settings = Settings.load()
    with render.progress_bar() as bar:
        report = evaluate(
            suite,
            corpus_dir,
            settings,
            systems=["nexus", *chosen],
            workspace=workspace,
            k=k,
            all_files=all_files,
            progress=_Bar(bar),
            split=_SPLITS[split],
        )
    if plot is not None:
        overall = report.scores["nexus"]["overall"]
        if not overall.confidences:
            raise ConfigError("--plot: the embedding model has no calibration, so no hit carries a confidence")
        title = f"nexus on {suite.name}" + ("" if report.split is None else f" ({report.split})")
        reliability_png(plot, overall.confidences, overall.correct, title)
    if as_json:
        render.eval_json(report)
    else:
        render.eval_report(report)
        if plot is not None:
            render.out.print(f"reliability diagram written to {plot}")
