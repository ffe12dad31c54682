"""Faults under load: ``bench/load.py``'s clients against ``nexus serve`` while its database, its reader process and
its clients are killed in turn.

    python bench/chaos.py                                   # 6 clients for 180 s, a fault every 15 s
    python bench/chaos.py --seconds 600 --every 20 --json > chaos.json
    python bench/chaos.py --seconds 12 --every 4 --clients 2 --uploaders 1 --json   # smoke run (seconds)

The server runs on its own temporary ``NEXUS_HOME`` (embedded PostgreSQL). Every ``--every`` seconds one fault, in
turn:

- ``postmaster``: SIGKILL of the embedded server's postmaster (the server must restart it by itself);
- ``reader``: SIGKILL of the server's reader process (the file being read fails, the next one gets a new reader);
- ``client``: an extra client killed in the middle of an upload (the server must store all of it or none).

Meanwhile a probe searches the shared workspace every 0.1 s. An upload that failed (a 503 while the database
restarts) may still have been stored whole; its document counts as uploaded to the workspace it was sent to.
Printed: requests and failures by status (of the load's clients, 0 meaning no answer or a file not stored; of the
probe), after each fault the window in which the probe got no answer, documents stored partially (pages missing:
must be 0), cross-workspace answers (must be 0), and ``verify`` of every workspace at the end (every span re-proved
against the kept bytes). Exit status 1 when any of those must-be-0 figures is not, or the probe got a 500. Progress
goes to stderr; the report (or ``--json``) to stdout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import os
import random
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load  # bench/ is not a package

FAULTS = ("postmaster", "reader", "client")


class Probe(threading.Thread):
    """Searches one workspace every 0.1 s and records ``(time, status)`` (0: no HTTP answer)."""

    def __init__(self, base: str, workspace: str) -> None:
        super().__init__(daemon=True)
        self.base, self.workspace = base, workspace
        self.answers: list[tuple[float, int]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=30) as http:
            while not self.stop.is_set():
                try:
                    reply = http.get(f"/v1/workspaces/{self.workspace}/search", params={"q": load.QUERIES[0]})
                    status = reply.status_code
                except httpx.HTTPError:
                    status = 0
                self.answers.append((time.monotonic(), status))
                time.sleep(0.1)

    def window_after(self, at: float, until: float) -> float:
        """The longest stretch without a 200 that began between ``at`` and ``until``: seconds from the first
        answer that was not 200 to the next 200 (or the probe's last answer)."""
        longest, began = 0.0, None
        for t, status in self.answers:
            if t < at:
                continue
            if status != 200 and began is None and t < until:
                began = t
            elif status == 200 and began is not None:
                longest, began = max(longest, t - began), None
            if began is None and t >= until:
                break
        if began is not None:
            longest = max(longest, self.answers[-1][0] - began)
        return round(longest, 2)


def _postmaster(home: Path) -> int | None:
    try:
        first = (home / "pgdata" / "postmaster.pid").read_text().split("\n", 1)[0]
    except OSError:
        return None
    return int(first) if first.isdigit() else None


def _readers(server: psutil.Process) -> list[psutil.Process]:
    found = []
    for child in server.children(recursive=True):
        try:
            if "kruschnexus.worker" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.Error:
            continue
    return found


def _doomed_upload(base: str, pdf: bytes, serial: str) -> None:
    """Upload a document (killed by the bench before or while the server reads it)."""
    with httpx.Client(base_url=base, timeout=300) as http:
        http.post(
            "/v1/workspaces/load-shared/documents",
            files={"files": (f"doomed-{serial}.pdf", pdf)},
            data={"create": "true"},
        )


def inject(fault: str, home: Path, server: psutil.Process, base: str, marker: str, serial: int) -> tuple[str, str]:
    """Cause one fault; returns what was done and the doc id the server may have stored meanwhile (or "")."""
    if fault == "postmaster":
        pid = _postmaster(home)
        if pid is None:
            return "no postmaster to kill", ""
        os.kill(pid, signal.SIGKILL)
        return f"killed postmaster {pid}", ""
    if fault == "reader":
        deadline = time.monotonic() + 10
        while not (readers := _readers(server)) and time.monotonic() < deadline:
            time.sleep(0.05)  # a reader runs only while an upload is read
        for reader in readers:
            reader.kill()
        return f"killed {len(readers)} reader process(es)", ""
    pdf = load.make_pdf(marker, f"doomed-{serial}", random.Random(serial))
    victim = mp.get_context("spawn").Process(target=_doomed_upload, args=(base, pdf, f"doomed-{serial}"))
    victim.start()
    time.sleep(random.Random(serial).uniform(0.3, 1.5))
    victim.kill()
    victim.join()
    # The server may still store it whole (the request had arrived): never in part.
    return "killed a client during its upload", hashlib.sha256(pdf).hexdigest()


def audit(home: Path, workspaces: Sequence[str]) -> dict[str, Any]:
    """Partial documents and ``verify`` of every workspace, read straight from the stored data."""
    from kruschnexus import Corpus
    from kruschnexus.config import Settings

    settings = Settings.load(overrides={"home": home})
    partial, failed, documents = [], [], 0
    for workspace in workspaces:
        with Corpus(workspace, settings=settings) as corpus:
            for doc in corpus.documents():
                documents += 1
                pages = corpus.store.pages(workspace, doc.doc_id)
                if len(pages) != doc.page_count:
                    partial.append(f"{workspace}/{doc.source}: {len(pages)} of {doc.page_count} pages")
            report = corpus.verify()
            if not report.ok:
                failed.append(f"{workspace}: {len(report.mismatches)} span(s) did not re-prove")
    return {"documents": documents, "partial": partial, "verify_failures": failed}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=180)
    parser.add_argument("--every", type=float, default=15, help="seconds between faults")
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--uploaders", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix="nexus-chaos-"))
    port = load._free_port()
    base = f"http://127.0.0.1:{port}"
    workspaces = ["load-shared", *(f"load-c{i}" for i in range(args.clients))]
    markers = {w: load.marker(args.seed, w) for w in workspaces}
    faults: list[dict[str, Any]] = []
    server = None
    try:
        server = load.start_server(home, port, home / "serve.log")
        uploaded = load.seed_workspaces(base, markers, args.seed)
        probe = Probe(base, "load-shared")
        probe.start()
        outcome: dict[str, Any] = {}
        clients = threading.Thread(target=lambda: outcome.update(run=load.run_clients(args, base, markers)))
        clients.start()
        started = time.monotonic()
        time.sleep(5 + 0.5 * args.clients)  # the clients' interpreters start (see load.run_clients)
        serial = 0
        while clients.is_alive() and time.monotonic() - started < args.seconds + 5 + 0.5 * args.clients - args.every:
            time.sleep(args.every)
            fault = FAULTS[serial % len(FAULTS)]
            at = time.monotonic()
            done, maybe = inject(fault, home, psutil.Process(server.pid), base, markers["load-shared"], serial)
            if maybe:
                uploaded.setdefault("load-shared", set()).add(maybe)
            faults.append({"fault": fault, "action": done, "at": at})
            load._note(f"fault {serial + 1}: {done}")
            serial += 1
        clients.join()
        time.sleep(3)
        probe.stop.set()
        probe.join()
        results, elapsed = outcome["run"]
        for r in results:
            for workspace, doc_id in r["uploaded"]:
                uploaded.setdefault(workspace, set()).add(doc_id)
        report = load.summarize(results, elapsed, uploaded)
    finally:
        if server is not None:
            load.stop_server(server)
    try:
        report["audit"] = audit(home, workspaces)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    statuses: dict[str, int] = {}
    for _, status in probe.answers:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    report["probe"] = {"requests": len(probe.answers), "statuses": statuses}
    ends = [f["at"] for f in faults[1:]] + [float("inf")]
    report["faults"] = [
        {"fault": f["fault"], "action": f["action"], "window_s": probe.window_after(f["at"], end)}
        for f, end in zip(faults, ends, strict=True)
    ]
    report["config"] = vars(args)
    print(json.dumps(report, indent=2) if args.json else render(report))
    broken = report["audit"]["partial"] or report["audit"]["verify_failures"] or report["cross_talk"]
    return 1 if broken or statuses.get("500") else 0


def render(report: dict[str, Any]) -> str:
    """A few lines for a person."""
    ops = ", ".join(f"{kind} {o['count']}" for kind, o in report["ops"].items())
    lines = [
        f"chaos: {report['config']['clients']} clients for {report['config']['seconds']} s, a fault every"
        f" {report['config']['every']} s",
        f"client requests: {ops}; failed {report['errors']} (by status, 0 = no answer: {report['failed_by_status']});"
        f" cross-workspace answers {report['cross_talk']}",
        f"probe: {report['probe']['requests']} searches, by status {report['probe']['statuses']}",
    ]
    for f in report["faults"]:
        lines.append(f"  {f['fault']:<10} {f['action']:<40} no answer for {f['window_s']:.2f} s")
    audit_ = report["audit"]
    lines.append(
        f"audit: {audit_['documents']} documents, {len(audit_['partial'])} partial, verify failures"
        f" {len(audit_['verify_failures'])}"
    )
    lines.extend(f"  {line}" for line in audit_["partial"] + audit_["verify_failures"])
    lines += [f"  client error: {m}" for m in report["error_samples"]]
    lines += [f"  cross-workspace: {m}" for m in report["cross_talk_samples"]]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
