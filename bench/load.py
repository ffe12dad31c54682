"""Concurrent load on ``nexus serve`` over loopback: several client processes ingest and search for a fixed time.

    python bench/load.py                          # 8 clients (2 upload and search, 6 search) for 300 s
    python bench/load.py --seconds 30 --clients 4 --uploaders 1
    python bench/load.py --home /tmp/nxhome --json > load.json
    python bench/load.py --seconds 3 --clients 2 --uploaders 1 --json   # smoke run (seconds)

It starts ``nexus serve`` on a free loopback port with its own temporary ``NEXUS_HOME`` (embedded PostgreSQL;
``--home`` uses that folder instead, and ``NEXUS_DATABASE_URL`` in the environment an external server). Every
workspace (one shared, one per client) gets a made-up marker word that appears only in documents uploaded to it,
and one seed document before the clock starts. Then the clients run as separate processes until the time is up:

- uploaders upload a new generated PDF (reportlab, unique text, the target workspace's marker) to each workspace
  in turn, and search twice between uploads;
- searchers search their own workspace, the shared one or another client's: a legal question, the workspace's
  own marker as a quoted phrase (must return hits), or another workspace's marker (must return ``[]``).

Cross-talk is any hit in workspace W whose ``doc_id`` was not uploaded to W, any hit whose text holds another
workspace's marker, and any hit for a marker searched outside its workspace. Errors are non-2xx answers and
exceptions. The report gives, per operation, the count, throughput, latency percentiles and errors (first
messages kept). Progress goes to stderr; the report (or ``--json``) to stdout.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import math
import multiprocessing as mp
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

QUERIES = [
    "when must the borrower deliver quarterly financial statements",
    "certificate of a financial officer that no default has occurred",
    "tenant obligations to repair the premises",
    "termination of the lease after a casualty",
    "interest rate and late charges on overdue payments",
    "indemnification of the landlord for third party claims",
    "assignment and subletting require prior written consent",
    "events of default and remedies",
    "notices must be delivered in writing to the addresses",
    "governing law and venue for disputes",
]
CLAUSES = [
    "The Tenant shall keep the Premises in good repair and shall return them at the end of the Term in the same"
    " condition, reasonable wear and tear excepted.",
    "The Borrower shall deliver to the Agent, within forty-five days after the end of each fiscal quarter, a balance"
    " sheet certified by a Financial Officer stating that no Default has occurred.",
    "Any amount not paid when due bears interest at the Default Rate and a late charge of five percent of the"
    " overdue amount.",
    "Neither party may assign this Agreement or sublet any part of the Premises without the prior written consent"
    " of the other party, which shall not be unreasonably withheld.",
    "The Tenant shall indemnify the Landlord against all claims of third parties arising from the Tenant's use of"
    " the Premises, except to the extent caused by the Landlord's negligence.",
    "Notices shall be in writing and delivered by hand, by courier or by certified mail to the addresses set out"
    " above, and are effective on receipt.",
    "This Agreement is governed by the laws of the State of New York, and the parties submit to the exclusive"
    " jurisdiction of its courts.",
]


def marker(seed: int, workspace: str) -> str:
    """A made-up lowercase word unique to a workspace (ten letters)."""
    digest = hashlib.sha256(f"{seed}:{workspace}".encode()).digest()
    return "".join(chr(97 + b % 26) for b in digest[:10])


def marker_query(word: str) -> str:
    return f'"{word}" escrow reference number'


def make_pdf(word: str, serial: str, rng: random.Random) -> bytes:
    """A one-page agreement: a heading, four random clauses, and the workspace's marker sentence."""
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.utils import simpleSplit
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter, invariant=1)
    width, height = letter
    y = height - 72
    c.setFont("Helvetica-Bold", 12)
    c.drawString(72, y, f"Agreement {serial}")
    y -= 24
    body = [*rng.sample(CLAUSES, 4), f"The escrow reference number for this matter is {word} (copy {serial})."]
    for k, text in enumerate(body, 1):
        c.setFont("Helvetica-Bold", 11)
        c.drawString(72, y, f"Section {k}. Clause {k}")
        y -= 16
        c.setFont("Times-Roman", 11)
        for line in simpleSplit(text, "Times-Roman", 11, width - 144):
            c.drawString(72, y, line)
            y -= 14
        y -= 10
    c.showPage()
    c.save()
    return out.getvalue()


class Stats:
    """Latencies and errors per operation kind, and what the hits said about cross-talk."""

    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = {}
        self.errors: dict[str, int] = {}
        self.statuses: dict[str, int] = {}
        self.messages: list[str] = []
        self.cross_talk: list[str] = []
        self.marker_misses = 0
        self.seen: set[tuple[str, str]] = set()
        self.uploaded: list[tuple[str, str]] = []
        #: Uploads that failed from the client's side (the answer was lost, or a 503 after the commit).
        self.maybe: list[tuple[str, str]] = []

    def ok(self, kind: str, seconds: float) -> None:
        self.latency.setdefault(kind, []).append(seconds)

    def fail(self, kind: str, seconds: float, message: str, status: int = 0) -> None:
        """A failed request: ``status`` is the HTTP status, 0 when no answer came."""
        self.latency.setdefault(kind, []).append(seconds)
        self.errors[kind] = self.errors.get(kind, 0) + 1
        self.statuses[str(status)] = self.statuses.get(str(status), 0) + 1
        if len(self.messages) < 10:
            self.messages.append(f"{kind}: {message[:300]}")

    def as_dict(self) -> dict[str, Any]:
        return {
            "latency": self.latency,
            "errors": self.errors,
            "statuses": self.statuses,
            "messages": self.messages,
            "cross_talk": self.cross_talk,
            "marker_misses": self.marker_misses,
            "seen": sorted(self.seen),
            "uploaded": self.uploaded,
            "maybe": self.maybe,
        }


class Client:
    """One client process's loop."""

    def __init__(self, index: int, args: dict[str, Any], markers: dict[str, str]) -> None:
        self.index = index
        self.args = args
        self.markers = markers
        self.workspaces = sorted(markers)
        self.own = f"load-c{index}"
        self.rng = random.Random(args["seed"] * 1000 + index)
        self.http = httpx.Client(base_url=args["base"], timeout=300)
        self.stats = Stats()

    def upload(self, workspace: str, serial: str) -> None:
        pdf = make_pdf(self.markers[workspace], serial, self.rng)
        started = time.perf_counter()
        try:
            reply = self.http.post(
                f"/v1/workspaces/{workspace}/documents",
                files={"files": (f"agreement-{serial}.pdf", pdf)},
                data={"create": "true"},
            )
        except httpx.HTTPError as exc:
            self.stats.fail("upload", time.perf_counter() - started, f"{type(exc).__name__}: {exc}")
            self.stats.maybe.append((workspace, hashlib.sha256(pdf).hexdigest()))
            return
        seconds = time.perf_counter() - started
        if reply.status_code != 200:
            self.stats.fail("upload", seconds, f"HTTP {reply.status_code}: {reply.text}", reply.status_code)
            self.stats.maybe.append((workspace, hashlib.sha256(pdf).hexdigest()))  # may be stored all the same
            return
        outcome = reply.json()["files"][0]
        if outcome["status"] not in ("ingested", "unchanged"):  # unique bytes: "unchanged" means this one stored it
            self.stats.fail("upload", seconds, f"{outcome['status']}: {outcome.get('reason')}")
            return
        self.stats.ok("upload", seconds)
        self.stats.uploaded.append((workspace, outcome["doc_id"]))

    def search(self, workspace: str) -> None:
        roll = self.rng.random()
        others = [w for w in self.workspaces if w != workspace]
        if roll < 0.6:
            kind, query, owner = "search", self.rng.choice(QUERIES), None
        elif roll < 0.8:
            kind, owner = "search_marker", workspace
            query = marker_query(self.markers[workspace])
        else:
            kind, owner = "search_foreign", self.rng.choice(others)
            query = marker_query(self.markers[owner])
        started = time.perf_counter()
        try:
            reply = self.http.get(f"/v1/workspaces/{workspace}/search", params={"q": query, "k": 5})
        except httpx.HTTPError as exc:
            self.stats.fail(kind, time.perf_counter() - started, f"{type(exc).__name__}: {exc}")
            return
        seconds = time.perf_counter() - started
        if reply.status_code != 200:
            self.stats.fail(kind, seconds, f"HTTP {reply.status_code} on {workspace}: {reply.text}", reply.status_code)
            return
        self.stats.ok(kind, seconds)
        self.check_hits(workspace, kind, owner, reply.json()["hits"])

    def check_hits(self, workspace: str, kind: str, owner: str | None, hits: list[dict[str, Any]]) -> None:
        if kind == "search_marker" and not hits:
            self.stats.marker_misses += 1
        if kind == "search_foreign" and hits:
            self.stats.cross_talk.append(f"{workspace}: {len(hits)} hit(s) for the marker of {owner}")
        for hit in hits:
            self.stats.seen.add((workspace, hit["doc_id"]))
            for other, word in self.markers.items():
                if other != workspace and word in hit["text"]:
                    self.stats.cross_talk.append(f"{workspace}: hit {hit['doc_id'][:12]} holds the marker of {other}")

    def pick_workspace(self) -> str:
        roll = self.rng.random()
        if roll < 0.4:
            return self.own
        if roll < 0.7:
            return "load-shared"
        return self.rng.choice(self.workspaces)

    def run(self, start_at: float, stop_at: float, progress: Any) -> dict[str, Any]:
        while time.time() < start_at:
            time.sleep(0.01)
        uploader = self.index < self.args["uploaders"]
        turn, last_note = 0, time.time()
        while time.time() < stop_at:
            if uploader:
                targets = self.workspaces
                self.upload(
                    targets[(turn * self.args["uploaders"] + self.index) % len(targets)], f"{self.index}-{turn}"
                )
                turn += 1
                for _ in range(2):
                    self.search(self.pick_workspace())
            else:
                self.search(self.pick_workspace())
            if time.time() - last_note > 15:
                counts = {k: len(v) for k, v in self.stats.latency.items()}
                progress.put((self.index, counts, sum(self.stats.errors.values())))
                last_note = time.time()
        self.http.close()
        return self.stats.as_dict()


def _client_main(
    index: int, args: dict[str, Any], markers: dict[str, str], start_at: float, stop_at: float, out: Any
) -> None:
    try:
        out.put(("done", index, Client(index, args, markers).run(start_at, stop_at, out)))
    except Exception as exc:  # noqa: BLE001 - a crashed client is reported, not lost
        out.put(("crash", index, f"{type(exc).__name__}: {exc}"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _note(message: str) -> None:
    print(f"[load] {message}", file=sys.stderr, flush=True)


def start_server(home: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "NEXUS_HOME": str(home)}
    cmd = [sys.executable, "-m", "kruschnexus", "serve", "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as sink:
        server = subprocess.Popen([*cmd, "--log-level", "warning"], env=env, stdout=sink, stderr=sink)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"nexus serve exited with {server.returncode}: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/workspaces", timeout=5).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    server.kill()
    raise SystemExit(f"nexus serve did not answer within 300 s: {log.read_text()[-2000:]}")


def stop_server(server: subprocess.Popen[bytes]) -> None:
    server.send_signal(signal.SIGINT)  # uvicorn shuts down, the hub releases the embedded server
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered), math.ceil(q / 100 * len(ordered))) - 1)]


def summarize(results: list[dict[str, Any]], elapsed: float, uploaded: dict[str, set[str]]) -> dict[str, Any]:
    latency: dict[str, list[float]] = {}
    errors: dict[str, int] = {}
    statuses: dict[str, int] = {}
    messages, cross_talk, misses = [], [], 0
    maybe = {(str(w), str(d)) for r in results for w, d in r["maybe"]}
    for r in results:
        for status, n in r["statuses"].items():
            statuses[status] = statuses.get(status, 0) + n
        for kind, values in r["latency"].items():
            latency.setdefault(kind, []).extend(values)
        for kind, n in r["errors"].items():
            errors[kind] = errors.get(kind, 0) + n
        messages += r["messages"]
        cross_talk += r["cross_talk"]
        misses += r["marker_misses"]
        for workspace, doc_id in r["seen"]:
            if doc_id not in uploaded.get(workspace, set()) and (workspace, doc_id) not in maybe:
                cross_talk.append(f"{workspace}: hit from {doc_id[:12]}, never uploaded there")
    ops = {
        kind: {
            "count": len(values),
            "per_s": round(len(values) / elapsed, 3),
            "p50_ms": round(percentile(values, 50) * 1000, 1),
            "p95_ms": round(percentile(values, 95) * 1000, 1),
            "p99_ms": round(percentile(values, 99) * 1000, 1),
            "errors": errors.get(kind, 0),
        }
        for kind, values in sorted(latency.items())
    }
    return {
        "elapsed_s": round(elapsed, 1),
        "ops": ops,
        "errors": sum(errors.values()),
        "failed_by_status": statuses,
        "error_samples": messages[:10],
        "cross_talk": len(cross_talk),
        "cross_talk_samples": cross_talk[:10],
        "marker_misses": misses,
    }


def seed_workspaces(base: str, markers: dict[str, str], seed: int) -> dict[str, set[str]]:
    """One document per workspace before the clock starts, so every search has something to find."""
    uploaded: dict[str, set[str]] = {}
    rng = random.Random(seed)
    with httpx.Client(base_url=base, timeout=600) as http:
        for workspace, word in markers.items():
            pdf = make_pdf(word, f"seed-{workspace}", rng)
            reply = http.post(
                f"/v1/workspaces/{workspace}/documents", files={"files": ("seed.pdf", pdf)}, data={"create": "true"}
            )
            reply.raise_for_status()
            uploaded[workspace] = {reply.json()["files"][0]["doc_id"]}
            probe = http.get(f"/v1/workspaces/{workspace}/search", params={"q": marker_query(word), "k": 5})
            if not probe.json()["hits"]:
                raise SystemExit(f"the marker search finds nothing in {workspace}: {probe.text[:500]}")
    return uploaded


def run_clients(args: argparse.Namespace, base: str, markers: dict[str, str]) -> tuple[list[dict[str, Any]], float]:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    shared = {"base": base, "seed": args.seed, "uploaders": args.uploaders}
    start_at = time.time() + 5 + 0.5 * args.clients  # spawned interpreters import first
    stop_at = start_at + args.seconds
    procs = [
        ctx.Process(target=_client_main, args=(i, shared, markers, start_at, stop_at, queue), daemon=True)
        for i in range(args.clients)
    ]
    for p in procs:
        p.start()
    results: list[dict[str, Any]] = []
    progress: dict[int, tuple[dict[str, int], int]] = {}
    last = time.time()
    while len(results) < args.clients:
        try:
            item = queue.get(timeout=5)
        except Exception:  # noqa: BLE001 - queue.Empty: check for dead clients
            if all(not p.is_alive() for p in procs) and queue.empty():
                raise SystemExit("every client exited without a report") from None
            continue
        if item[0] == "done":
            results.append(item[2])
        elif item[0] == "crash":
            raise SystemExit(f"client {item[1]} crashed: {item[2]}")
        else:
            progress[item[0]] = (item[1], item[2])
            if time.time() - last > 15:
                totals: dict[str, int] = {}
                for counts, _ in progress.values():
                    for kind, n in counts.items():
                        totals[kind] = totals.get(kind, 0) + n
                errs = sum(e for _, e in progress.values())
                _note(f"{time.time() - start_at:5.0f}/{args.seconds} s: {totals}, errors {errs}")
                last = time.time()
    for p in procs:
        p.join(timeout=30)
    return results, time.time() - start_at


def render(report: dict[str, Any]) -> str:
    cfg = report["config"]
    lines = [
        f"load: {cfg['clients']} clients ({cfg['uploaders']} upload and search, the rest search) for {cfg['seconds']} s"
        f" on {cfg['base']}, {len(cfg['workspaces'])} workspaces; {cfg['cpus']} CPUs, load average"
        f" {cfg['load_before']} before, {report['load_after']} after",
        f"{'operation':<16}{'count':>8}{'per s':>9}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}{'errors':>8}",
    ]
    for kind, o in report["ops"].items():
        lines.append(
            f"{kind:<16}{o['count']:>8}{o['per_s']:>9.2f}{o['p50_ms']:>10.1f}{o['p95_ms']:>10.1f}{o['p99_ms']:>10.1f}"
            f"{o['errors']:>8}"
        )
    lines.append(
        f"errors {report['errors']}, cross-talk {report['cross_talk']}, own-marker searches without a hit"
        f" {report['marker_misses']}; documents per workspace at the end: {report['documents']}"
    )
    lines += [f"  error: {m}" for m in report["error_samples"]]
    lines += [f"  cross-talk: {m}" for m in report["cross_talk_samples"]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--uploaders", type=int, default=2, help="how many of the clients also upload")
    parser.add_argument("--home", type=Path, default=None, help="NEXUS_HOME for the server (default: a temp folder)")
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args(argv)
    home = args.home or Path(tempfile.mkdtemp(prefix="nexus-load-"))
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    workspaces = ["load-shared", *(f"load-c{i}" for i in range(args.clients))]
    markers = {w: marker(args.seed, w) for w in workspaces}
    load_before = round(os.getloadavg()[0], 2)
    _note(f"starting nexus serve on {base} with NEXUS_HOME={home}")
    server = None
    try:
        server = start_server(home, port, home / "serve.log")  # a temporary home goes with its log
        _note(f"seeding {len(workspaces)} workspaces")
        uploaded = seed_workspaces(base, markers, args.seed)
        _note(f"running {args.clients} clients for {args.seconds:.0f} s")
        results, elapsed = run_clients(args, base, markers)
        for r in results:
            for workspace, doc_id in r["uploaded"]:
                uploaded.setdefault(workspace, set()).add(doc_id)
        report = summarize(results, elapsed, uploaded)
        listed = httpx.get(f"{base}/v1/workspaces", timeout=60).json()
        report["documents"] = {w["name"]: w["documents"] for w in listed if w["name"] in markers}
        for workspace, docs in report["documents"].items():
            if docs != len(uploaded.get(workspace, ())):
                report["cross_talk"] += 1
                report["cross_talk_samples"].append(
                    f"{workspace}: {docs} documents, {len(uploaded[workspace])} uploaded"
                )
    finally:
        if server is not None:
            stop_server(server)
        if args.home is None:
            shutil.rmtree(home, ignore_errors=True)
    report["config"] = {
        "clients": args.clients,
        "uploaders": args.uploaders,
        "seconds": args.seconds,
        "base": base,
        "workspaces": workspaces,
        "cpus": os.cpu_count(),
        "load_before": load_before,
    }
    report["load_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 1 if report["errors"] or report["cross_talk"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
