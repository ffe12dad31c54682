"""OCR benchmark: pages per second with 1 and 2 OCR workers, beside Tesseract's own threading.

Each configuration reads the same scanned pages through ``PdfSource.pages()`` (render at 300 dpi + Tesseract +
layout), ``--repeat`` times; the best time is kept. Configurations:

* ``1 worker, 1 thread``   — one single-threaded Tesseract process at a time (the baseline);
* ``2 workers, 1 thread``  — what ``NEXUS_OCR_WORKERS=2`` does on this machine;
* ``1 worker, OMP 2``      — one Tesseract process allowed two OpenMP threads (its default threading, capped).

Usage (from the repository root)::

    python bench/ocr.py                 # the two scanned SCOTUS pages of ../shared/corpus (else the fixture)
    python bench/ocr.py --pdf FILE.pdf --repeat 3 --json
    python bench/ocr.py --pdf tests/fixtures/scanned_lease.pdf --repeat 1 --json   # smoke run (seconds)

Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from kruschnexus.config import OcrMode  # noqa: E402
from kruschnexus.extract import PdfSource, ReadOptions  # noqa: E402
from kruschnexus.parse.ocr import tesseract_version  # noqa: E402

SCOTUS = ROOT.parent / "shared" / "corpus" / "court" / "scotus_tarrant_v_herrmann_2013_pp1-2_SCANNED.pdf"
FIXTURE = ROOT / "tests" / "fixtures" / "scanned_lease.pdf"


def _cpu_seconds() -> float:
    """CPU time of this process and its reaped children (the Tesseract processes)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def run(pdf: Path, workers: int, omp: str, repeat: int) -> tuple[float, float, int]:
    """Best wall time of reading every page, the CPU seconds spent per wall second in that run (how many cores
    were busy), and the page count."""
    os.environ["OMP_THREAD_LIMIT"] = omp
    best, busy = float("inf"), 0.0
    pages = 0
    for _ in range(repeat):
        started, cpu = time.perf_counter(), _cpu_seconds()
        with PdfSource(pdf, ReadOptions(ocr=OcrMode.ALWAYS, ocr_workers=workers)) as source:
            pages = sum(1 for page in source.pages() if page.used_ocr)
        wall = time.perf_counter() - started
        if wall < best:
            best, busy = wall, (_cpu_seconds() - cpu) / wall
    return best, busy, pages


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdf", type=Path, default=SCOTUS if SCOTUS.is_file() else FIXTURE)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--json", action="store_true", dest="as_json")
    args = parser.parse_args(argv)
    if tesseract_version() is None:
        print("Tesseract is not installed (apt install tesseract-ocr)", file=sys.stderr)
        return 1
    load = os.getloadavg()
    rows: list[dict[str, Any]] = []
    for label, workers, omp in (
        ("1 worker, 1 thread", 1, "1"),
        ("2 workers, 1 thread", 2, "1"),
        ("1 worker, OMP 2", 1, "2"),
    ):
        print(f"[bench] {label} ...", file=sys.stderr)
        seconds, busy, pages = run(args.pdf, workers, omp, args.repeat)
        rows.append(
            {
                "config": label,
                "pages": pages,
                "seconds": round(seconds, 2),
                "pages_per_s": round(pages / seconds, 3),
                "cores_busy": round(busy, 2),
            }
        )
    base = rows[0]["seconds"]
    for row in rows:
        row["speedup"] = round(base / row["seconds"], 2)
    report = {
        "pdf": str(args.pdf),
        "cpus": os.cpu_count(),
        "tesseract": tesseract_version(),
        "load": [round(x, 2) for x in load],
        "rows": rows,
    }
    if args.as_json:
        print(json.dumps(report))
        return 0
    print(f"{args.pdf.name}: {rows[0]['pages']} pages, {report['cpus']} CPUs, Tesseract {report['tesseract']}")
    print(f"{'configuration':<22}{'seconds':>9}{'pages/s':>9}{'speedup':>9}{'cores busy':>12}")
    for row in rows:
        print(
            f"{row['config']:<22}{row['seconds']:>9}{row['pages_per_s']:>9}{row['speedup']:>9}{row['cores_busy']:>12}"
        )
    print(f"machine load average before the run: {report['load']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
