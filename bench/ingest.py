"""Ingest benchmark: where the time and the memory of ingesting one PDF go.

Three phases, each run in its own child process so that its peak RSS is its own (read by the parent
with ``os.wait4``):

* ``extract``: the bare extractor and chunker (``open_source`` -> pages -> ``chunk_page``);
* ``model``: the bare MiniLM model embedding the span texts the extract phase wrote;
* ``ingest``: the whole ingest through the SDK (``Corpus.ingest``) into a fresh embedded PostgreSQL.

Then a memory-scaling check runs ``extract`` and ``ingest`` on a small and a large generated closing binder
(``tests/binder.py``: agreement, schedules of tables, exhibits, running headers): flat memory means the large
figure is close to the small one. The ingest phase shows a progress bar on stderr and reports where its seconds
went (read, embed, store).

Usage (from the repository root)::

    python bench/ingest.py                      # the table and the scaling check
    python bench/ingest.py --limit-pages 20     # a quick smoke run on the first 20 pages
    python bench/ingest.py --no-memory-scaling  # the table only
    python bench/ingest.py --memory-scaling     # the scaling check only
    python bench/ingest.py --json               # the same figures as one JSON object
    python bench/ingest.py --pdf tests/fixtures/sample_contract.pdf --limit-pages 2 --scaling-pages 1 2  # smoke

Figures are printed, never asserted. Progress goes to stderr; the report to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from kruschnexus import Corpus, FileResult

REPO = Path(__file__).resolve().parent.parent
DEFAULT_PDF = REPO.parent / "shared" / "corpus" / "debt" / "ribbon_credit_agreement_2024.pdf"
PHASES = ("extract", "model", "ingest")
SCALING_PHASES = ("extract", "ingest")
SCALING_PAGES = (40, 600)
#: Docling's published CPU parsing speed (pages/s, parsing alone, no embedding), the figure to beat.
DOCLING_PAGES_PER_S = (1.2, 1.5)
MODEL_THREADS = 2
#: Seconds between samples of the database server's memory during the ingest phase.
SERVER_SAMPLE_SECONDS = 1.0

Result = dict[str, Any]


# --------------------------------------------------------------------------- phases (child processes)


def phase_extract(pdf: Path, texts: Path, limit: int | None) -> Result:
    """Extract and chunk every page (or the first ``limit``); write each span's embedding text as JSON lines."""
    from kruschnexus.chunk.chunker import chunk_page
    from kruschnexus.chunk.sections import SectionTracker
    from kruschnexus.config import Settings
    from kruschnexus.extract import open_source
    from kruschnexus.ingest import embedding_text

    max_chars = Settings().chunk_max_chars
    pages = spans = 0
    started = time.perf_counter()
    with open_source(pdf) as source, texts.open("w", encoding="utf-8") as out:
        numbers = range(1, min(limit or source.page_count, source.page_count) + 1)
        # One tracker for the whole document, as the ingester keeps it: the headings it carries across
        # pages are part of the text the model reads.
        tracker = SectionTracker()
        for number in numbers:
            chunks = chunk_page(source.page(number), tracker, max_chars)
            out.writelines(json.dumps(embedding_text(chunk)) + "\n" for chunk in chunks)
            pages += 1
            spans += len(chunks)
    return {"seconds": time.perf_counter() - started, "pages": pages, "spans": spans}


def phase_model(texts_path: Path, batch: int | None = None) -> Result:
    """Load MiniLM and embed every text of ``texts_path`` (``batch`` texts per call; the model's own choice when
    ``None``); only the embedding is in ``seconds``."""
    from kruschnexus.embed.local import MiniLmEmbedder

    texts = [json.loads(line) for line in texts_path.read_text(encoding="utf-8").splitlines()]
    started = time.perf_counter()
    embedder = MiniLmEmbedder(threads=MODEL_THREADS, batch_size=batch or MiniLmEmbedder.DEFAULT_BATCH)
    load_seconds = time.perf_counter() - started
    started = time.perf_counter()
    vectors = embedder.embed(texts)
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "load_seconds": load_seconds,
        "spans": len(vectors),
        "unique_texts": len(set(texts)),
    }


def phase_ingest(pdf: Path, limit: int | None) -> Result:
    """Ingest ``pdf`` (truncated to ``limit`` pages) through the SDK into a fresh home, then remove it."""
    from kruschnexus import Corpus
    from kruschnexus.config import Settings

    work = Path(tempfile.mkdtemp(prefix="nexus-bench-"))
    try:
        source = truncated_copy(pdf, limit, work / "input") if limit else pdf
        settings = Settings.load(overrides={"home": str(work / "home")}, env={})
        corpus = Corpus(workspace="bench", settings=settings)
        try:
            return timed_ingest(corpus, source)
        finally:
            corpus.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def truncated_copy(pdf: Path, pages: int, folder: Path) -> Path:
    """A copy of the first ``pages`` pages of ``pdf`` in ``folder`` (same file name)."""
    import pypdfium2

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / pdf.name
    original = pypdfium2.PdfDocument(pdf)
    copy = pypdfium2.PdfDocument.new()
    try:
        copy.import_pages(original, list(range(min(pages, len(original)))))
        copy.save(target)
    finally:
        copy.close()
        original.close()
    return target


def timed_ingest(corpus: Corpus, source: Path) -> Result:
    """Start the server and load the model first (timed apart), then time ``corpus.ingest`` alone."""
    started = time.perf_counter()
    _ = corpus.store
    server_seconds = time.perf_counter() - started
    started = time.perf_counter()
    _ = corpus.embedder
    load_seconds = time.perf_counter() - started
    from rich.console import Console
    from rich.progress import Progress

    with ServerMemory(corpus.settings.pgdata) as server, Progress(console=Console(stderr=True)) as bar:
        started = time.perf_counter()
        (result,) = corpus.ingest([source], progress=PageBar(bar))
        seconds = time.perf_counter() - started
    if result.status != "ingested":
        raise SystemExit(f"ingest of {source} ended {result.status}: {result.reason}")
    return {
        "seconds": seconds,
        "server_start_seconds": server_seconds,
        "load_seconds": load_seconds,
        "pages": result.pages,
        "spans": result.spans,
        "needs_ocr": len(result.needs_ocr),
        "stages": result.stages,
        "server_peak_pss_mib": server.peak_mib,
    }


class PageBar:
    """Ingest progress (pages stored) on a rich progress bar: the SDK's ``Progress`` protocol."""

    def __init__(self, bar: Progress) -> None:
        self.bar = bar
        self.task: TaskID | None = None

    def file_started(self, path: Path, pages: int) -> None:
        self.task = self.bar.add_task(f"ingest {path.name}", total=pages)

    def page_done(self, path: Path) -> None:
        if self.task is not None:
            self.bar.advance(self.task)

    def file_done(self, result: FileResult) -> None:
        pass


class ServerMemory:
    """Samples the embedded PostgreSQL's memory (postmaster and backends, summed PSS) in a thread.

    The server is a daemon, not a child of the phase process, so ``ru_maxrss`` never counts it.
    """

    def __init__(self, pgdata: Path) -> None:
        self.pid_file = pgdata / "postmaster.pid"
        self.peak_mib: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ServerMemory:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while True:
            mib = self.sample()
            if mib is not None:
                self.peak_mib = max(self.peak_mib or 0.0, mib)
            if self._stop.wait(SERVER_SAMPLE_SECONDS):
                return

    def sample(self) -> float | None:
        """Summed PSS of the server's processes now, in MiB (``None`` when it cannot be read)."""
        import psutil

        try:
            root = psutil.Process(int(self.pid_file.read_text().split()[0]))
            processes = [root, *root.children(recursive=True)]
        except (OSError, ValueError, IndexError, psutil.Error):
            return None
        total = 0
        for process in processes:
            try:
                total += process.memory_full_info().pss
            except psutil.Error:
                continue
        return total / 2**20


def run_phase(args: argparse.Namespace) -> None:
    """Child entry point: run one phase and write its result as JSON to ``--out``."""
    pdf, limit = args.pdf.resolve(), args.limit_pages
    if args.phase == "extract":
        result = phase_extract(pdf, args.texts, limit)
    elif args.phase == "model":
        result = phase_model(args.texts, args.batch)
    else:
        result = phase_ingest(pdf, limit)
    args.out.write_text(json.dumps(result), encoding="utf-8")


# --------------------------------------------------------------------------- parent


def maxrss_mib(ru_maxrss: int) -> float:
    """``ru_maxrss`` in MiB (KiB on Linux, bytes on macOS)."""
    return ru_maxrss / (2**20 if sys.platform == "darwin" else 2**10)


def spawn(phase: str, pdf: Path, work: Path, limit: int | None, batch: int | None = None) -> Result:
    """Run one phase in a child process; its result plus ``peak_rss_mib`` from the child's rusage."""
    out = work / f"{pdf.stem}.{phase}.json"
    command = [sys.executable, str(Path(__file__).resolve()), "--phase", phase, "--pdf", str(pdf)]
    command += ["--texts", str(work / f"{pdf.stem}.texts.jsonl"), "--out", str(out)]
    if limit:
        command += ["--limit-pages", str(limit)]
    if batch:
        command += ["--batch", str(batch)]
    log(f"{phase}: {pdf.name}{f' (first {limit} pages)' if limit else ''} ...")
    child = subprocess.Popen(command, cwd=REPO)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"bench/ingest.py: the {phase} phase failed (exit status {child.returncode})")
    result: Result = json.loads(out.read_text(encoding="utf-8"))
    result["peak_rss_mib"] = maxrss_mib(usage.ru_maxrss)
    log(f"{phase}: {result['seconds']:.1f} s, peak RSS {result['peak_rss_mib']:.0f} MiB")
    return result


def main_table(pdf: Path, limit: int | None) -> Result:
    """The three phases on ``pdf``, with rates and ratios."""
    with tempfile.TemporaryDirectory(prefix="nexus-bench-") as tmp:
        phases = {phase: spawn(phase, pdf, Path(tmp), limit) for phase in PHASES}
    phases["model"]["pages"] = phases["extract"]["pages"]
    for result in phases.values():
        result["pages_per_s"] = result["pages"] / result["seconds"]
        result["spans_per_s"] = result["spans"] / result["seconds"]
    extract, model, ingest = (phases[p] for p in PHASES)
    ratios = {
        "ingest_time_over_extract_plus_model": ingest["seconds"] / (extract["seconds"] + model["seconds"]),
        "ingest_throughput_over_bare_pipeline": (extract["seconds"] + model["seconds"]) / ingest["seconds"],
        "ingest_rss_over_extract_rss": ingest["peak_rss_mib"] / extract["peak_rss_mib"],
        "ingest_rss_over_model_rss": ingest["peak_rss_mib"] / model["peak_rss_mib"],
    }
    return {"pdf": str(pdf), "limit_pages": limit, "phases": phases, "ratios": ratios}


def batch_shapes(pdf: Path, limit: int | None, sizes: Sequence[int]) -> Result:
    """The bare model at each batch size (texts per call) on the spans of ``pdf``: spans/s and peak RSS, one child
    process per size, on the same texts (the extract phase's, read once)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="nexus-bench-") as tmp:
        extract = spawn("extract", pdf, Path(tmp), limit)
        for size in sizes:
            r = spawn("model", pdf, Path(tmp), limit, batch=size)
            rows.append({"batch": size, "spans_per_s": r["spans"] / r["seconds"], "peak_rss_mib": r["peak_rss_mib"]})
    return {"pdf": str(pdf), "limit_pages": limit, "spans": extract["spans"], "rows": rows}


def memory_scaling(sizes: tuple[int, int]) -> Result:
    """Peak RSS of ``extract`` and ``ingest`` on synthetic agreements of two sizes, and large / small."""
    sys.path.insert(0, str(REPO))
    from tests.binder import binder

    runs: dict[str, dict[int, Result]] = {phase: {} for phase in SCALING_PHASES}
    with tempfile.TemporaryDirectory(prefix="nexus-bench-") as tmp:
        for pages in sizes:
            pdf = binder(Path(tmp) / f"binder_{pages}p.pdf", pages)
            for phase in SCALING_PHASES:
                runs[phase][pages] = spawn(phase, pdf, Path(tmp), None)
    small, large = sizes
    return {
        "pages": list(sizes),
        "phases": {
            phase: {
                "seconds": {str(n): runs[phase][n]["seconds"] for n in sizes},
                "spans": {str(n): runs[phase][n]["spans"] for n in sizes},
                "peak_rss_mib": {str(n): runs[phase][n]["peak_rss_mib"] for n in sizes},
                "stages": {str(n): runs[phase][n].get("stages") for n in sizes},
                "rss_ratio": runs[phase][large]["peak_rss_mib"] / runs[phase][small]["peak_rss_mib"],
            }
            for phase in SCALING_PHASES
        },
    }


def machine() -> Result:
    """Where the figures were measured."""
    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "model_threads": MODEL_THREADS,
        "load_average_1min": os.getloadavg()[0],
    }


# --------------------------------------------------------------------------- report


def table_lines(report: Result) -> Iterator[str]:
    """The main table, the side timings and the ratios."""
    phases, ratios = report["phases"], report["ratios"]
    limit = f" (first {report['limit_pages']} pages)" if report["limit_pages"] else ""
    yield f"PDF: {report['pdf']}{limit}"
    yield f"pages {phases['extract']['pages']}, spans {phases['extract']['spans']}"
    yield ""
    yield f"{'phase':<8} {'seconds':>9} {'pages/s':>9} {'spans/s':>9} {'peak RSS MiB':>13}"
    for name in PHASES:
        r = phases[name]
        yield (
            f"{name:<8} {r['seconds']:>9.2f} {r['pages_per_s']:>9.2f} {r['spans_per_s']:>9.2f}"
            f" {r['peak_rss_mib']:>13.1f}"
        )
    model, ingest = phases["model"], phases["ingest"]
    server = ingest["server_peak_pss_mib"]
    yield ""
    yield f"model phase: model load {model['load_seconds']:.2f} s (not in seconds above)"
    yield (
        f"ingest phase: server start (with initdb) {ingest['server_start_seconds']:.2f} s,"
        f" model load {ingest['load_seconds']:.2f} s (not in seconds above); {ingest['spans']} spans stored"
    )
    yield (
        "ingest phase: database server memory (summed PSS, sampled, not in peak RSS above): "
        + ("n/a" if server is None else f"{server:.1f} MiB")
    )
    yield f"ingest phase: {stage_line(ingest['stages'])}"
    yield ""
    low, high = DOCLING_PAGES_PER_S
    yield f"ingest pages/s: {ingest['pages_per_s']:.2f} (Docling's published CPU parsing alone: {low}-{high} pages/s)"
    yield f"ingest throughput / bare pipeline (extract + model): {ratios['ingest_throughput_over_bare_pipeline']:.2f}"
    yield f"ingest time / (extract + model) time: {ratios['ingest_time_over_extract_plus_model']:.2f}"
    yield f"peak RSS ingest / extract:            {ratios['ingest_rss_over_extract_rss']:.2f}"
    yield f"peak RSS ingest / model:              {ratios['ingest_rss_over_model_rss']:.2f}"


def scaling_lines(scaling: Result) -> Iterator[str]:
    """Peak RSS per phase at both sizes and their ratio."""
    small, large = (str(n) for n in scaling["pages"])
    yield f"memory scaling (generated binder, {small} vs {large} pages)"
    yield f"{'phase':<8} {small + ' p MiB':>10} {large + ' p MiB':>10} {'ratio':>7} {'spans':>13} {'seconds':>15}"
    for name, r in scaling["phases"].items():
        rss, spans, secs = r["peak_rss_mib"], r["spans"], r["seconds"]
        yield (
            f"{name:<8} {rss[small]:>10.1f} {rss[large]:>10.1f} {r['rss_ratio']:>7.2f}"
            f" {f'{spans[small]} / {spans[large]}':>13} {f'{secs[small]:.1f} / {secs[large]:.1f}':>15}"
        )
    yield f"(flat memory: ratio near 1; memory growing with the document: near {int(large) / int(small):.0f})"
    stages = scaling["phases"]["ingest"]["stages"]
    for size in (small, large):
        yield f"ingest of {size} pages: {stage_line(stages[size])}"


def stage_line(stages: dict[str, float] | None) -> str:
    """Where an ingest's seconds went (``FileResult.stages``)."""
    if not stages:
        return "no stage timings"
    return "seconds by stage: " + ", ".join(f"{stage} {seconds:.1f}" for stage, seconds in stages.items())


def batch_lines(shapes: Result) -> Iterator[str]:
    """Spans/s and peak RSS of the bare model per batch size."""
    limit = f" (first {shapes['limit_pages']} pages)" if shapes["limit_pages"] else ""
    yield f"batch shape: the bare model on the {shapes['spans']} spans of {Path(shapes['pdf']).name}{limit}"
    yield f"{'texts per call':>14} {'spans/s':>9} {'peak RSS MiB':>13}"
    for row in shapes["rows"]:
        yield f"{row['batch']:>14} {row['spans_per_s']:>9.1f} {row['peak_rss_mib']:>13.1f}"


def print_report(report: Result, as_json: bool) -> None:
    """Print ``report`` as text or as one JSON object."""
    if as_json:
        print(json.dumps(report, indent=2))
        return
    host = report["machine"]
    print(f"ingest benchmark, {report['date']}, {host['cpus']} CPUs, {host['platform']}, Python {host['python']}")
    print(
        f"load average (1 min) at start {host['load_average_1min']:.2f}, at end {host['load_average_1min_at_end']:.2f}"
        " (other work on the machine slows every phase)"
    )
    print()
    if "table" in report:
        print("\n".join(table_lines(report["table"])))
        print()
    if "scaling" in report:
        print("\n".join(scaling_lines(report["scaling"])))
    if "batch_shapes" in report:
        print("\n".join(batch_lines(report["batch_shapes"])))


def log(message: str) -> None:
    """Progress on stderr (stdout carries the report)."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- command line


def positive(text: str) -> int:
    """An argument that must be a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line options (``--phase``, ``--texts`` and ``--out`` are for the child processes)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pdf", type=Path, default=DEFAULT_PDF, help="the PDF to measure (default: %(default)s)")
    parser.add_argument("--limit-pages", type=int, metavar="N", help="only the first N pages (a quick smoke run)")
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--memory-scaling", action="store_true", help="only the memory-scaling check")
    scope.add_argument("--no-memory-scaling", action="store_true", help="only the main table")
    parser.add_argument(
        "--scaling-pages",
        type=int,
        nargs=2,
        metavar=("SMALL", "LARGE"),
        default=SCALING_PAGES,
        help="synthetic document sizes of the scaling check (default: %(default)s)",
    )
    parser.add_argument(
        "--batch-shapes",
        type=positive,
        nargs="+",
        metavar="N",
        help="instead of the rest: the bare model at each of these batch sizes (texts per call), spans/s and peak RSS",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--batch", type=positive, help=argparse.SUPPRESS)
    parser.add_argument("--phase", choices=PHASES, help=argparse.SUPPRESS)
    parser.add_argument("--texts", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.limit_pages is not None and args.limit_pages < 1:
        parser.error("--limit-pages must be at least 1")
    if args.batch_shapes and (args.memory_scaling or args.no_memory_scaling):
        parser.error("--batch-shapes measures the bare model alone: leave out --memory-scaling / --no-memory-scaling")
    if not 0 < args.scaling_pages[0] < args.scaling_pages[1]:
        parser.error("--scaling-pages wants two sizes, SMALL < LARGE, both at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark (or, with ``--phase``, one phase as a child process)."""
    args = parse_args(argv)
    if args.phase:
        run_phase(args)
        return 0
    pdf = args.pdf.expanduser().resolve()
    report: Result = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine()}
    if args.batch_shapes:
        if not pdf.is_file():
            sys.exit(f"bench/ingest.py: no PDF at {pdf} (choose one with --pdf PATH)")
        report["batch_shapes"] = batch_shapes(pdf, args.limit_pages, args.batch_shapes)
    elif not args.memory_scaling:
        if not pdf.is_file():
            sys.exit(f"bench/ingest.py: no PDF at {pdf} (choose one with --pdf PATH)")
        report["table"] = main_table(pdf, args.limit_pages)
    if not args.no_memory_scaling and not args.batch_shapes:
        small, large = args.scaling_pages
        report["scaling"] = memory_scaling((small, large))
    report["machine"]["load_average_1min_at_end"] = os.getloadavg()[0]
    print_report(report, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
