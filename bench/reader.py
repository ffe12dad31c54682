"""What reading in the reader process costs: in-process reading vs ``ReadWorker``, per file, plus the start.

For each file, best of ``--repeat`` runs (taken in turns) of (a) ``open_source`` + ``chunk_page`` on every page in
this process and (b) the same through one ``ReadWorker`` (pages and spans pickled back page by page), the reader
started beforehand. The reader's start (a fresh interpreter importing the readers) is timed on its own.

    python bench/reader.py                       # tests/fixtures + the credit agreement of ../shared/corpus
    python bench/reader.py --pdf other.pdf --repeat 5 --ocr auto --json
    python bench/reader.py --smoke --json        # seconds: tests/fixtures only, one round
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kruschnexus.chunk.chunker import chunk_page  # noqa: E402
from kruschnexus.chunk.sections import SectionTracker  # noqa: E402
from kruschnexus.config import OcrMode  # noqa: E402
from kruschnexus.extract import ReadOptions, open_source  # noqa: E402
from kruschnexus.worker import ReadWorker  # noqa: E402

DEFAULT_PDF = REPO.parent / "shared" / "corpus" / "debt" / "ribbon_credit_agreement_2024.pdf"
FIXTURES = REPO / "tests" / "fixtures"
MAX_CHARS = 900


def in_process(path: Path, options: ReadOptions) -> int:
    """Pages read in this process."""
    tracker = SectionTracker()
    with open_source(path, options=options) as source:
        return sum(1 for page in source.pages() if chunk_page(page, tracker, MAX_CHARS) is not None)


def in_reader(worker: ReadWorker, path: Path, options: ReadOptions) -> int:
    """Pages read through the reader process."""
    with worker.open(path, options=options, chunk_max_chars=MAX_CHARS) as source:
        return sum(1 for _ in source.chunked_pages())


def timed(run: Callable[[], int]) -> tuple[float, int]:
    """Seconds of one run and the page count."""
    started = time.perf_counter()
    pages = run()
    return time.perf_counter() - started, pages


def best_pair(repeat: int, local: Callable[[], int], remote: Callable[[], int]) -> tuple[float, float, int]:
    """Fastest of ``repeat`` runs of each, taken in turns (so a change of load hits both alike), and the pages."""
    locals_, remotes, pages = [], [], 0
    for _ in range(repeat):
        seconds, pages = timed(local)
        locals_.append(seconds)
        remotes.append(timed(remote)[0])
    return min(locals_), min(remotes), pages


def measure(files: list[Path], repeat: int, options: ReadOptions) -> dict[str, Any]:
    """Start time and per-file times."""
    started = time.perf_counter()
    worker = ReadWorker()
    with worker:
        with worker.open(FIXTURES / "office_rent_roll.csv") as source:  # first open waits for the start
            list(source.pages())
        start_s = time.perf_counter() - started
        rows = []
        for path in files:
            local, remote, pages = best_pair(
                repeat,
                functools.partial(in_process, path, options),
                functools.partial(in_reader, worker, path, options),
            )
            rows.append({"file": path.name, "pages": pages, "in_process_s": local, "reader_s": remote})
    return {"start_s": start_s, "rows": rows, "load_average": os.getloadavg()[0]}


def render(figures: dict[str, Any]) -> str:
    """The figures as a table."""
    lines = [
        f"reader start (interpreter + imports, once per batch and after a kill): {figures['start_s']:.2f} s",
        f"load average {figures['load_average']:.2f}",
        "",
        f"{'file':44} {'pages':>5} {'in-process ms':>14} {'reader ms':>10} {'overhead ms':>12} {'ms/page':>8}",
    ]
    total_local = total_remote = 0.0
    for row in figures["rows"]:
        local, remote = row["in_process_s"] * 1000, row["reader_s"] * 1000
        total_local, total_remote = total_local + local, total_remote + remote
        per_page = (remote - local) / max(1, row["pages"])
        lines.append(
            f"{row['file'][:44]:44} {row['pages']:5d} {local:14.1f} {remote:10.1f} {remote - local:12.1f}"
            f" {per_page:8.2f}"
        )
    lines.append(f"{'total':44} {'':5} {total_local:14.1f} {total_remote:10.1f} {total_remote - total_local:12.1f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdf", type=Path, default=DEFAULT_PDF, help="a long PDF to time beside the fixtures")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ocr", choices=[m.value for m in OcrMode], default="never")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="a seconds-long run: tests/fixtures only, one round")
    args = parser.parse_args(argv)
    files = [p for p in sorted(FIXTURES.iterdir()) if p.suffix in (".pdf", ".docx", ".html", ".csv", ".tsv")]
    if args.smoke:
        args.repeat = 1
    elif args.pdf.is_file():
        files.append(args.pdf)
    else:
        print(f"[bench] {args.pdf} is missing; fixtures only", file=sys.stderr)
    figures = measure(files, args.repeat, ReadOptions(ocr=OcrMode(args.ocr)))
    print(json.dumps(figures, indent=2) if args.json else render(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
