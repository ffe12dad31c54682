"""Choose fusion knobs on the dev split: leg weights, leg depths, and document matching, with ablations.

Usage: ``python scripts/tune_fusion.py eval/corpus.jsonl --corpus ../shared/corpus [--split dev]``

The corpus must already be ingested into its evaluation workspace (``nexus eval`` does that). Every setting of
the grid is run over the split's queries with the real model and printed with Recall@5, nDCG@5, citation
accuracy, hard negatives answered ``[]`` and answerable questions answered ``[]`` (raw counts), best first by
Recall@5 then nDCG@5. Nothing is written: the chosen values go into ``Settings`` defaults by hand, with the
table in docs/evaluation.md.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path
from typing import Any

from kruschnexus import Corpus
from kruschnexus.config import Settings
from kruschnexus.embed.registry import make_embedder
from kruschnexus.eval.runner import run_suite, score, workspace_for
from kruschnexus.eval.suite import load_suite
from kruschnexus.eval.systems import NexusSystem

GRID: dict[str, list[Any]] = {
    "local_idf": [1.5],
}


def main(argv: list[str] | None = None) -> int:
    """Run the grid and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--split", default="dev", choices=["dev", "test", "all"])
    parser.add_argument("--legs", default="both", choices=["both", "dense", "sparse"])
    args = parser.parse_args(argv)
    suite = load_suite(args.suite)
    if args.split != "all":
        suite = suite.select(args.split)
    base = Settings.load()
    embedder = make_embedder(base)
    legs = None if args.legs == "both" else (args.legs,)
    rows = []
    keys = list(GRID)
    for values in itertools.product(*(GRID[k] for k in keys)):
        overrides = dict(zip(keys, values, strict=True))
        settings = Settings.load(overrides=overrides)
        with Corpus(workspace_for(args.corpus), settings=settings, embedder=embedder) as corpus:
            groups = score(run_suite(NexusSystem(corpus, legs=legs), suite))
        overall = groups["overall"]
        rows.append((overrides, overall, groups))
        print(_line(overrides, overall, groups), file=sys.stderr)
    rows.sort(key=lambda r: (-(r[1].recall.value or 0.0), -(r[1].ndcg.value or 0.0)))
    print(f"split {args.split}: {len(suite.queries)} queries")
    for overrides, overall, groups in rows:
        print(_line(overrides, overall, groups))
    return 0


def _line(overrides: dict[str, Any], overall: Any, groups: dict[str, Any]) -> str:
    knobs = " ".join(f"{k}={v}" for k, v in overrides.items())
    cuad = groups.get("family:cuad_qa")
    extra = f" cuad_qa R@5 {cuad.recall}" if cuad is not None else ""
    return (
        f"{knobs}: R@5 {overall.recall} nDCG {overall.ndcg} cite {overall.citation} neg[] {overall.negatives_abstained}"
        f" ans[] {overall.answerable_abstained}{extra}"
    )


if __name__ == "__main__":
    sys.exit(main())
