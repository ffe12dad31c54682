"""Everything the CLI prints (the only module allowed to print)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from kruschnexus.schema.v1 import DocumentDiff, ExplainTrace, Hit, Resolution
from kruschnexus.wire import ingest_report

if TYPE_CHECKING:
    # Imported where used: a search's output needs neither the ingestion, the evaluation, the doctor nor the
    # verifier (docs/scaling.md, "From the shell").
    from kruschnexus.doctor import DoctorReport
    from kruschnexus.eval.metrics import Tally
    from kruschnexus.eval.runner import EvalReport
    from kruschnexus.ingest import FileResult
    from kruschnexus.store.progress import Step
    from kruschnexus.tokens import TokenInfo
    from kruschnexus.verify import VerifyReport

out = Console(soft_wrap=True, highlight=False)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def json_line(value: Any) -> None:
    """One JSON document on stdout."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")


def error(message: str) -> None:
    """An error line on stderr."""
    err.print(f"[red]error:[/red] {message}", markup=True)


def note(message: str) -> None:
    """A status line on stderr (stdout stays for results)."""
    err.print(message, markup=False, highlight=False)


def tokens(infos: Sequence[TokenInfo]) -> None:
    """The token table (no secrets)."""
    table = Table(title="API tokens")
    for name in ("id", "workspace", "mode", "label", "created", "revoked"):
        table.add_column(name)
    for i in infos:
        revoked = i.revoked_at.isoformat(timespec="seconds") if i.revoked_at else ""
        table.add_row(i.token_id, i.workspace, i.mode, i.label, i.created_at.isoformat(timespec="seconds"), revoked)
    out.print(table)


def doctor(report: DoctorReport) -> None:
    """The doctor table."""
    table = Table(title="nexus doctor", show_lines=False)
    table.add_column("check")
    table.add_column("status")
    table.add_column("detail", overflow="fold")
    for check in report.checks:
        table.add_row(check.name, "[green]ok[/green]" if check.ok else "[yellow]degraded[/yellow]", check.detail)
    out.print(table)
    out.print("healthy" if report.healthy else "degraded")


def doctor_json(report: DoctorReport) -> None:
    """The doctor report as one JSON object."""
    json_line({"healthy": report.healthy, "checks": [asdict(c) for c in report.checks]})


def ingest_results(results: Sequence[FileResult], workspace: str, title: str = "") -> None:
    """The per-file result table."""
    from kruschnexus.ingest import STAGES

    table = Table(title=title or f"ingest into workspace {workspace!r}")
    for name in ("file", "status", "version", "pages", "spans", "seconds", "note"):
        table.add_column(name, overflow="fold")
    colors = {"ingested": "green", "unchanged": "cyan", "skipped": "yellow", "failed": "red"}
    for r in results:
        color = colors.get(r.status, "white")
        table.add_row(
            r.name or Path(r.path).name,
            f"[{color}]{r.status}[/{color}]",
            "" if r.version is None else f"v{r.version}",
            str(r.pages),
            str(r.spans),
            f"{r.seconds:.1f}",
            r.reason,
        )
    out.print(table)
    counts = {s: sum(1 for r in results if r.status == s) for s in colors}
    out.print(", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no files")
    stages = {stage: sum(r.stages.get(stage, 0.0) for r in results) for stage in STAGES}
    if any(stages.values()):
        out.print("time: " + ", ".join(f"{stage} {seconds:.1f} s" for stage, seconds in stages.items()))
    reused = sum(r.reused for r in results)
    if reused:
        out.print(f"{reused} of {sum(r.spans for r in results)} span vectors kept from stored spans of the same text")


def ingest_json(results: Sequence[FileResult], workspace: str) -> None:
    """Per-file results as one JSON object."""
    sys.stdout.write(ingest_report(workspace, results).model_dump_json() + "\n")


def hits_jsonl(hits: Iterable[Hit]) -> int:
    """One v1 hit per line; returns how many."""
    n = 0
    for hit in hits:
        sys.stdout.write(hit.model_dump_json() + "\n")
        n += 1
    return n


def verify(report: VerifyReport) -> None:
    """The verify summary and any mismatch."""
    for m in report.mismatches:
        page = f" p.{m.page_number}" if m.page_number is not None else ""
        out.print(f"[red]MISMATCH[/red] {m.source}{page}: {m.what}")
    if report.needs_ocr:
        by_doc: dict[str, list[int]] = {}
        for source, number in report.needs_ocr:
            by_doc.setdefault(source, []).append(number)
        for source, pages in by_doc.items():
            out.print(f"[yellow]needs OCR[/yellow] {source}: {len(pages)} page(s) without a text layer: {pages}")
    verdict = "[green]verified[/green]" if report.ok else f"[red]{len(report.mismatches)} mismatch(es)[/red]"
    out.print(f"{verdict}: {report.documents} documents, {report.pages} pages, {report.spans} spans re-proved")


def verify_json(report: VerifyReport) -> None:
    """The verify report as one JSON object."""
    json_line(
        {
            "ok": report.ok,
            "documents": report.documents,
            "pages": report.pages,
            "spans": report.spans,
            "needs_ocr": [{"source": s, "page": p} for s, p in report.needs_ocr],
            "mismatches": [asdict(m) for m in report.mismatches],
        }
    )


def progress_bar() -> Progress:
    """A progress bar on stderr."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    )


def hits_json(hits: Sequence[Hit]) -> None:
    """The v1 hit array (``[]`` when nothing)."""
    json_line([h.model_dump(mode="json") for h in hits])


def _snippet(text: str, width: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def hits_table(hits: Sequence[Hit]) -> None:
    """Citation, score, calibrated confidence and snippet per hit: a table on a terminal, one tab-separated line
    per hit when the output is piped (never wrapped mid-word)."""
    if not out.is_terminal:
        for n, hit in enumerate(hits, start=1):
            score = f"{hit.score:.4f}" if hit.score is not None else ""
            conf = f"{hit.confidence:.2f}" if hit.confidence is not None else ""
            sys.stdout.write("\t".join((str(n), hit.citation, score, conf, _snippet(hit.text))) + "\n")
        return
    table = Table(show_lines=True)
    for name in ("#", "citation", "score", "conf.", "snippet"):
        table.add_column(name, overflow="fold")
    for n, hit in enumerate(hits, start=1):
        table.add_row(
            str(n),
            hit.citation,
            f"{hit.score:.4f}" if hit.score is not None else "",
            f"{hit.confidence:.2f}" if hit.confidence is not None else "",
            _snippet(hit.text),
        )
    out.print(table)


def abstain(trace: ExplainTrace) -> None:
    """Why nothing was returned."""
    record = trace.abstain
    out.print("[]  no span answers this query")
    if record is not None:
        best = "none" if record.best_cosine is None else f"{record.best_cosine:.3f}"
        out.print(f"    {record.reason}; best cosine {best}, floor {record.floor:.2f}, {record.candidates} candidates")
        for why, count in record.rejected.items():
            out.print(f"    rejected {count}: {why}")


def explain(trace: ExplainTrace) -> None:
    """The explain table."""
    out.print(f"query: {trace.query}")
    out.print(f"parsed: {json.dumps(trace.parsed, ensure_ascii=False)}")
    out.print(f"model {trace.model_id}  rrf_k {trace.rrf_k}  section boost {trace.section_boost}  floor {trace.floor}")
    table = Table()
    for name in ("citation", "dense", "cosine", "sparse", "rank", "rrf", "boost", "score", "verdict"):
        table.add_column(name, overflow="fold")
    for c in trace.candidates:
        verdict = "[green]admitted[/green]" if c.admitted else f"[red]{c.rejected_because}[/red]"
        table.add_row(
            c.citation,
            "" if c.dense_rank is None else str(c.dense_rank),
            "" if c.cosine is None else f"{c.cosine:.3f}",
            "" if c.sparse_rank is None else str(c.sparse_rank),
            "" if c.sparse_score is None else f"{c.sparse_score:.3f}",
            f"{c.dense_term + c.sparse_term:.4f}",
            f"{c.boost:.2f}",
            f"{c.score:.4f}",
            verdict,
        )
    out.print(table)
    out.print(f"{trace.hits} hit(s) returned")
    if trace.abstain is not None:
        abstain(trace)


def _cell(tally: Tally) -> str:
    return str(tally)


def _query_count(report: EvalReport) -> int:
    """Number of queries scored (every system runs the same ones)."""
    return len(report.outcomes.get("nexus", []))


def eval_report(report: EvalReport) -> None:
    """The evaluation: the product by family and kind, then every system side by side (never wrapped: a table
    of ratios with counts is unreadable folded to 80 columns)."""
    from kruschnexus.eval.runner import METRICS

    wide = Console(soft_wrap=True, highlight=False, width=max(out.width, 170))
    nexus = report.scores["nexus"]
    wide.print(
        f"suite {report.suite} (split {report.split_name}, {_query_count(report)} queries) over {report.corpus}"
        f" (workspace {report.workspace}; ingest: "
        + ", ".join(f"{n} {status}" for status, n in sorted(report.ingest.items()))
        + f"); k={report.k}"
    )
    table = Table(title="nexus: by group", title_justify="left")
    table.add_column("group")
    for title in METRICS.values():
        table.add_column(title, justify="right")
    table.add_column("ECE (hits)", justify="right")
    for group, gs in nexus.items():
        ece_value = gs.ece
        table.add_row(
            group,
            *(_cell(getattr(gs, key)) for key in METRICS),
            "n/a" if ece_value is None else f"{ece_value:.3f} ({len(gs.confidences)})",
        )
    wide.print(table)
    side = Table(title="all systems: overall", title_justify="left")
    side.add_column("system")
    for title in METRICS.values():
        side.add_column(title, justify="right")
    side.add_column("ECE", justify="right")
    for name, groups in report.scores.items():
        gs = groups["overall"]
        ece_value = gs.ece
        side.add_row(
            name, *(_cell(getattr(gs, key)) for key in METRICS), "n/a" if ece_value is None else f"{ece_value:.3f}"
        )
    wide.print(side)
    if len(report.scores) > 1:
        fam = Table(title="Recall@5 / citation acc. by family", title_justify="left")
        fam.add_column("family")
        for name in report.scores:
            fam.add_column(name, justify="right")
        for group in nexus:
            if group.startswith(("family:", "kind:")):
                fam.add_row(
                    group,
                    *(
                        f"{groups[group].recall} / {groups[group].citation}" if group in groups else "-"
                        for groups in report.scores.values()
                    ),
                )
        wide.print(fam)


def eval_json(report: EvalReport) -> None:
    """The evaluation as one JSON object."""
    json_line(report.to_json())


def resolutions(resolved: Sequence[Resolution]) -> None:
    """Where each old hit's words are now."""
    table = Table(title="old hits in the latest version")
    for name in ("document", "from", "to", "status", "now", "reason"):
        table.add_column(name, overflow="fold")
    colors = {"current": "green", "moved": "cyan", "changed": "yellow", "removed": "red"}
    for r in resolved:
        color = colors.get(r.status, "white")
        now = r.hits[0].citation if r.hits else ""
        table.add_row(
            r.document, f"v{r.from_version}", f"v{r.to_version}", f"[{color}]{r.status}[/{color}]", now, r.reason
        )
    out.print(table)


def document_diff(result: DocumentDiff, every: bool) -> None:
    """The sections that changed between two versions (``every``: the unchanged ones too)."""
    shown = [c for c in result.sections if every or c.change != "unchanged"]
    table = Table(title=f"{result.document}: v{result.from_version} -> v{result.to_version}")
    for name in ("change", "section", "title", "pages before", "pages after"):
        table.add_column(name, overflow="fold")
    for c in shown:
        ids = " -> ".join(dict.fromkeys(s for s in (c.from_section, c.to_section) if s)) or "-"
        pages = (", ".join(str(p) for p in ps) or "-" for ps in (c.from_pages, c.to_pages))
        table.add_row(c.change, ids, c.title, *pages)
    out.print(table if shown else f"no section changed between v{result.from_version} and v{result.to_version}")


def stepper(bar: Progress, title: str) -> Callable[[Step], None]:
    """A task of ``bar`` titled ``title``, and the function that shows each step of the work on it: the phase, and
    how far it is when the phase counts (blocks of the table, indexes rebuilt, tuples). A step that counts nothing
    after one that did gets a task of its own (rich keeps a task's total when given none)."""
    task = bar.add_task(title, total=None)
    counted = False

    def show(step: Step) -> None:
        nonlocal task, counted
        description = f"{title}: {step.phase}" + (f" ({step.unit})" if step.unit else "")
        if step.total is None and counted:
            bar.remove_task(task)
            task = bar.add_task(description, total=None)
        else:
            bar.update(task, description=description, completed=step.done or 0, total=step.total)
        counted = step.total is not None

    return show
