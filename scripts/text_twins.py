"""The suite's questions on documents that also come as plain text, asked of the text and of the PDF.

Usage: ``python scripts/text_twins.py eval/corpus.jsonl --corpus ../shared/corpus [--split all] [--mixed]``

LegalBench-RAG ships its contracts (CUAD's) as ``.txt`` files saved from the PDFs, and the corpus keeps that
``.txt`` beside each CUAD PDF. This script takes the suite's answerable questions whose document has such a twin,
ingests the twins into a workspace of their own (``eval-text-twins``; with ``--mixed``, ``eval-text-twins-mixed``
holds the PDFs and the twins together, as a user who ingests the whole folder has them), and prints, for the text
workspace and for the corpus' evaluation workspace (the PDFs, which ``nexus eval`` ingests), how often a hit
among the first five (and the first) holds the gold words. A hit counts when it comes from the question's document
in the format counted (mixed workspace: either, the PDF only, the text only) and its folded text and the gold's
contain one another; pages are not compared (a text file has none). Hard negatives about one of these documents (a
clause it does not have) are counted as answered ``[]`` or not.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from kruschnexus import Corpus
from kruschnexus.config import Settings
from kruschnexus.embed.registry import make_embedder
from kruschnexus.eval.metrics import fold
from kruschnexus.eval.runner import workspace_for
from kruschnexus.eval.suite import SuiteQuery, load_suite
from kruschnexus.schema import Hit


@dataclass
class Tally:
    """Counts over the answerable questions and the hard negatives."""

    name: str
    asked: int = 0
    at_five: int = 0
    first: int = 0
    negatives: int = 0
    abstained: int = 0

    def line(self) -> str:
        return (
            f"{self.name:<12} Recall@5 {self.at_five}/{self.asked} ({self.at_five / max(self.asked, 1):.2f})"
            f"  top 1 {self.first}/{self.asked}  negatives [] {self.abstained}/{self.negatives}"
        )


def main(argv: list[str] | None = None) -> int:
    """Ingest the twins, ask the questions of both formats, print the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--split", default="all", choices=["dev", "test", "all"])
    parser.add_argument("--mixed", action="store_true", help="PDFs and twins in one workspace")
    args = parser.parse_args(argv)
    suite = load_suite(args.suite)
    if args.split != "all":
        suite = suite.select(args.split)
    with_twin = [q for q in suite.queries if q.doc and _twin(args.corpus, q.doc).is_file()]
    queries = [q for q in with_twin if not q.is_negative]
    negatives = [q for q in with_twin if q.is_negative]
    if not queries:
        print(f"no question of {args.suite} has a document with a .txt twin in {args.corpus}", file=sys.stderr)
        return 2
    settings = Settings.load()
    embedder = make_embedder(settings)
    twins = sorted({_twin(args.corpus, q.doc or "") for q in queries})
    files = twins + sorted({args.corpus / (q.doc or "") for q in queries}) if args.mixed else twins
    workspace = "eval-text-twins-mixed" if args.mixed else "eval-text-twins"
    tallies = []
    with Corpus(workspace, settings=settings, embedder=embedder) as corpus:
        results = corpus.ingest(files)
        failed = [r for r in results if r.status == "failed"]
        print(f"{workspace}: {len(files)} files, {sum(r.spans for r in results)} new spans, {len(failed)} failed")
        if args.mixed:
            tallies.append(_ask(corpus, "mixed: any", queries, negatives, (".txt", ".pdf")))
            tallies.append(_ask(corpus, "mixed: pdf", queries, negatives, (".pdf",)))
            tallies.append(_ask(corpus, "mixed: text", queries, negatives, (".txt",)))
        else:
            tallies.append(_ask(corpus, "text", queries, negatives, (".txt",)))
    with Corpus(workspace_for(args.corpus), settings=settings, embedder=embedder) as corpus:
        tallies.append(_ask(corpus, "pdf", queries, negatives, (".pdf",)))
    print(f"{len(queries)} answerable questions on {len(twins)} documents with a text twin ({args.split})")
    for tally in tallies:
        print(tally.line())
    return 0


def _twin(corpus: Path, doc: str) -> Path:
    return (corpus / doc).with_suffix(".txt")


def _ask(
    corpus: Corpus, name: str, queries: list[SuiteQuery], negatives: list[SuiteQuery], suffixes: tuple[str, ...]
) -> Tally:
    tally = Tally(name, asked=len(queries), negatives=len(negatives))
    for query in queries:
        found = [_holds_gold(hit, query, suffixes) for hit in corpus.search(query.query, 5)]
        tally.at_five += any(found)
        tally.first += bool(found and found[0])
    tally.abstained = sum(1 for query in negatives if not corpus.search(query.query, 5))
    return tally


def _holds_gold(hit: Hit, query: SuiteQuery, suffixes: tuple[str, ...]) -> bool:
    same = Path(hit.source).stem == Path(query.doc or "").stem and hit.source.lower().endswith(suffixes)
    text, gold = fold(hit.text), fold(query.gold_text or "")
    return same and bool(text) and bool(gold) and (gold in text or text in gold)


if __name__ == "__main__":
    raise SystemExit(main())
