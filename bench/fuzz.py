"""Fuzz the readers: mutated real PDFs, DOCX and HTML read as the ingester reads them, in the killable reader.

Each case is a seed document (``tests/fixtures`` plus, by default, a few small PDFs and every HTML/DOCX file of
``../shared/corpus``) changed by one to four byte-level mutations (``tests/fuzzing.py``), written to a temporary
file with the seed's suffix and read through ``ReadWorker`` with the time limit and memory cap, spans cut in the
reader, embedding texts built here; nothing is embedded or stored. Counted: cases read whole, clean
``ParseError``\\ s by reason, reader bugs (any other exception: the case file and traceback are kept under
``--findings``), readers stopped at the time limit, hangs past the limit (must be 0), reader crashes and memory
stops (clean per-file errors) and reader restarts. A crash of this process would end the run: finishing is the
"0 parent crashes" figure.

    python bench/fuzz.py                        # 10,000 cases, seed 1
    python bench/fuzz.py --cases 500 --seed 7 --timeout 5 --json
    python bench/fuzz.py --no-corpus            # tests/fixtures only
    python bench/fuzz.py --cases 40 --no-corpus --progress 0 --findings /tmp/findings --json   # smoke run

Not a test: its figures are never asserted (``tests/security/test_hostile_files.py`` runs a few hundred cases;
``tests/integration/test_bench_smoke.py`` only checks that a 40-case run finishes).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fuzzing import SUFFIXES, Outcome, mutate, read_case  # noqa: E402

from kruschnexus.config import OcrMode  # noqa: E402
from kruschnexus.extract import ReadOptions  # noqa: E402
from kruschnexus.worker import ReadLimits, ReadWorker  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus"
FIXTURES = REPO / "tests" / "fixtures"


@dataclass
class Tally:
    """Counts over a run."""

    cases: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    categories: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)
    timeouts: int = 0
    hangs_past_limit: int = 0
    crashes: int = 0
    memory: int = 0
    unnamed: int = 0
    slowest: float = 0.0
    findings: list[str] = field(default_factory=list)

    def add(self, outcome: Outcome, suffix: str, path: Path) -> None:
        """Count one case."""
        self.cases += 1
        self.statuses[outcome.status] += 1
        self.by_kind[f"{suffix} {outcome.status}"] += 1
        self.slowest = max(self.slowest, outcome.seconds)
        if outcome.status == "parse_error":
            self.categories[outcome.category] += 1
            self.timeouts += outcome.category.startswith("took longer than")
            self.crashes += outcome.category.startswith(("the reader crashed", "the reader exited"))
            self.memory += outcome.category.startswith("needed more than")
            self.unnamed += outcome.error_path != str(path)
        self.hangs_past_limit += outcome.hung_past_limit


def seeds(use_corpus: bool, pdfs: int, extra: list[Path]) -> list[Path]:
    """Seed documents: the fixtures, then (``use_corpus``) the ``pdfs`` smallest corpus PDFs and every corpus
    DOCX/HTML file, then ``extra`` files or folders."""
    found = [p for p in sorted(FIXTURES.iterdir()) if p.suffix.lower() in SUFFIXES]
    if use_corpus and CORPUS.is_dir():
        files = sorted((p for p in CORPUS.rglob("*") if p.is_file()), key=lambda p: (p.stat().st_size, p))
        found += [p for p in files if p.suffix.lower() == ".pdf"][:pdfs]
        found += [p for p in files if p.suffix.lower() in (".docx", ".html", ".htm", ".xhtml")]
    for item in extra:
        found += sorted(p for p in item.rglob("*") if p.is_file()) if item.is_dir() else [item]
    return found


def keep_finding(findings: Path, index: int, case_path: Path, outcome: Outcome, steps: tuple[str, ...]) -> str:
    """Copy a case that found a bug (or hung past the limit) and write what happened beside it."""
    findings.mkdir(parents=True, exist_ok=True)
    target = findings / f"case-{index:06d}{case_path.suffix}"
    shutil.copyfile(case_path, target)
    note = f"{outcome.status}: {outcome.reason}\nseconds {outcome.seconds:.2f}\nsteps {steps}\n\n{outcome.trace}"
    target.with_suffix(target.suffix + ".txt").write_text(note, encoding="utf-8")
    return str(target)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run the cases and return the figures."""
    seed_files = seeds(not args.no_corpus, args.corpus_pdfs, args.seeds)
    if args.kinds:
        seed_files = [p for p in seed_files if p.suffix.lower().lstrip(".") in args.kinds]
    blobs = {p: p.read_bytes() for p in seed_files}
    rng = random.Random(args.seed)
    limits = ReadLimits(timeout=args.timeout, page_timeout=args.page_timeout, memory_mb=args.memory_mb)
    tally = Tally()
    started = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="nexus-fuzz-"))
    try:
        with ReadWorker(limits) as worker:
            for index in range(args.cases):
                seed = rng.choice(seed_files)
                others = [blobs[p] for p in seed_files if p.suffix == seed.suffix]
                case = mutate(rng, seed, blobs[seed], others)
                ocr = OcrMode.AUTO if rng.random() < args.ocr_share else OcrMode.NEVER
                path = workdir / f"case-{index:06d}{case.suffix}"
                path.write_bytes(case.data)
                outcome = read_case(worker, path, ReadOptions(ocr=ocr, ocr_workers=1))
                tally.add(outcome, case.suffix, path)
                if outcome.status == "bug" or outcome.hung_past_limit:
                    kept = keep_finding(args.findings, index, path, outcome, case.steps)
                    tally.findings.append(kept)
                    print(f"[fuzz] finding {kept}: {outcome.reason}\n{outcome.trace}", file=sys.stderr)
                path.unlink()
                if args.progress and (index + 1) % args.progress == 0:
                    rate = (index + 1) / (time.monotonic() - started)
                    print(f"[fuzz] {index + 1} cases, {rate:.1f}/s, {dict(tally.statuses)}", file=sys.stderr)
            restarts = max(0, worker.started - 1)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    seconds = time.monotonic() - started
    return report(args, tally, seconds, restarts, seed_files)


def report(
    args: argparse.Namespace, tally: Tally, seconds: float, restarts: int, seed_files: list[Path]
) -> dict[str, Any]:
    """The run's figures as one JSON-ready dict."""
    return {
        "cases": tally.cases,
        "seed": args.seed,
        "seeds": [str(p.relative_to(REPO.parent)) for p in seed_files],
        "limits": {"timeout_s": args.timeout, "page_timeout_s": args.page_timeout, "memory_mb": args.memory_mb},
        "ocr_share": args.ocr_share,
        "ok": tally.statuses["ok"],
        "parse_error": tally.statuses["parse_error"],
        "bugs": tally.statuses["bug"],
        "parse_error_without_the_path": tally.unnamed,
        "stopped_at_time_limit": tally.timeouts,
        "hangs_past_limit": tally.hangs_past_limit,
        "reader_crashes": tally.crashes,
        "memory_cap_stops": tally.memory,
        "parent_crashes": 0,
        "reader_restarts": restarts,
        "slowest_case_s": round(tally.slowest, 2),
        "seconds": round(seconds, 1),
        "cases_per_s": round(tally.cases / seconds, 2) if seconds else 0.0,
        "categories": dict(tally.categories.most_common()),
        "by_kind": dict(sorted(tally.by_kind.items())),
        "findings": tally.findings,
    }


def render(figures: dict[str, Any]) -> str:
    """The figures as text."""
    lines = [
        f"fuzz: {figures['cases']} cases, seed {figures['seed']}, {len(figures['seeds'])} seed documents,"
        f" limits {figures['limits']}, OCR on {figures['ocr_share']:.0%} of cases",
        f"{figures['seconds']} s, {figures['cases_per_s']} cases/s (load average {os.getloadavg()[0]:.2f})",
        f"ok {figures['ok']}, clean ParseError {figures['parse_error']}, bugs {figures['bugs']}",
        f"stopped at the time limit {figures['stopped_at_time_limit']}, hangs past the limit"
        f" {figures['hangs_past_limit']}, reader crashes {figures['reader_crashes']}, memory-cap stops"
        f" {figures['memory_cap_stops']}, reader restarts {figures['reader_restarts']}, parent crashes 0",
        f"ParseError without the file's path: {figures['parse_error_without_the_path']};"
        f" slowest case {figures['slowest_case_s']} s",
        "",
        "ParseError reasons:",
        *(f"  {count:6d}  {name}" for name, count in figures["categories"].items()),
        "",
        "by kind:",
        *(f"  {count:6d}  {name}" for name, count in figures["by_kind"].items()),
    ]
    if figures["findings"]:
        lines += ["", "findings:", *(f"  {path}" for path in figures["findings"])]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (see the module docstring); exit status 1 on a bug, a hang past the limit or a ParseError not
    naming the file."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=10.0, help="NEXUS_PARSE_TIMEOUT for the cases (s)")
    parser.add_argument("--page-timeout", type=float, default=2.0, help="NEXUS_PARSE_PAGE_TIMEOUT (s)")
    parser.add_argument("--memory-mb", type=int, default=2048, help="NEXUS_PARSE_MEMORY_MB")
    parser.add_argument("--ocr-share", type=float, default=0.01, help="share of cases read with OCR auto")
    parser.add_argument("--corpus-pdfs", type=int, default=4, help="smallest corpus PDFs used as seeds")
    parser.add_argument("--no-corpus", action="store_true", help="seed from tests/fixtures only")
    parser.add_argument("--kinds", nargs="*", default=[], help="only seeds with these suffixes (pdf docx html ...)")
    parser.add_argument("--seeds", type=Path, nargs="*", default=[], help="more seed files or folders")
    parser.add_argument("--findings", type=Path, default=REPO / "build" / "fuzz-findings")
    parser.add_argument("--progress", type=int, default=500, help="print a progress line every N cases (0: never)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    figures = run(args)
    print(json.dumps(figures, indent=2) if args.json else render(figures))
    return 1 if figures["bugs"] or figures["hangs_past_limit"] or figures["parse_error_without_the_path"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
