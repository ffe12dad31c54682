"""Retrieval across many revisions of one agreement: the right clause of the latest revision, of an older one asked
for with ``version:N`` or ``as_of:DATE``, and old citations resolved into the latest revision.

A lease is generated in ``--revisions`` successive revisions (``tests/revisions.py``: clauses amended, inserted,
deleted and renumbered, a recitals page put in front or taken out; one revision ingested as a scan, read by OCR)
and each is ingested as the next version of ``lease.pdf``. Every clause has a question worded apart from it. Scores:

- ``latest``: each clause of the last revision asked plainly; Recall@5 and citation accuracy (the first hit is the
  clause: its version, page, and text holding the clause's words);
- ``version_pinned``: each clause of each revision asked with ``version:N``;
- ``as_of``: each clause of each revision but the last asked with ``as_of:`` the moment before the next revision
  was stored;
- ``gone``: clauses deleted by the last revision asked plainly: answered ``[]`` (informational);
- ``resolve``: the stored span of each clause of each older revision resolved into the latest: right when a clause
  whose words are unchanged is ``moved`` (or ``current``) to its page and words there, an amended one ``changed``
  with its new words among the hits, a deleted one ``removed``.

    python bench/revisions.py [--revisions 12] [--seed 7] [--scan 6] [--json]

Runs on a temporary ``NEXUS_HOME`` (an embedded PostgreSQL started there) unless ``--home`` is given (then with the
environment's ``NEXUS_DATABASE_URL``, if set), in workspace ``revisions`` (made afresh).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ holds the generators

from tests.pdfgen import scanned_copy
from tests.revisions import Clause, Revision, lease_series

from kruschnexus import Corpus, Hit
from kruschnexus.config import Settings
from kruschnexus.schema.v1 import Resolution

NAME = "lease.pdf"


@dataclass
class Tally:
    """Right answers out of questions asked."""

    right: int = 0
    asked: int = 0

    def add(self, ok: bool) -> None:
        self.right += ok
        self.asked += 1

    def ratio(self) -> float:
        return self.right / self.asked if self.asked else 0.0

    def as_json(self) -> dict[str, Any]:
        return {"right": self.right, "asked": self.asked, "ratio": round(self.ratio(), 4)}


@dataclass
class Report:
    """Every score of one run (see the module docstring)."""

    revisions: int
    versions: int
    scanned: int
    scores: dict[str, Tally] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def tally(self, name: str) -> Tally:
        return self.scores.setdefault(name, Tally())

    def as_json(self) -> dict[str, Any]:
        return {
            "revisions": self.revisions,
            "versions": self.versions,
            "scanned_revision": self.scanned,
            "scores": {name: t.as_json() for name, t in self.scores.items()},
            "seconds": self.seconds,
            "misses": self.misses[:40],
        }


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def is_clause(hit: Hit, version: int, clause: Clause) -> bool:
    """The hit is the clause as that version printed it: its version, its page, its words."""
    return hit.version == version and hit.page_number == clause.page and _folded(clause.body) in _folded(hit.text)


def ingest(corpus: Corpus, series: list[Revision], scan: int, folder: Path) -> dict[int, int]:
    """Each revision as the next version of :data:`NAME` (revision ``scan`` as a scan); revision -> version."""
    versions = {}
    for revision in series:
        path = revision.path
        if revision.number == scan:
            path = scanned_copy(path, folder / f"scan_r{revision.number:02d}.pdf")
        [result] = corpus.ingest([path], name=NAME)
        if result.status == "failed" or result.version is None:
            raise SystemExit(f"revision {revision.number} did not ingest: {result.reason}")
        versions[revision.number] = result.version
    return versions


def measure(corpus: Corpus, series: list[Revision], versions: dict[int, int], report: Report) -> None:
    """Every score of the module docstring into ``report``."""
    last = series[-1]
    started = time.monotonic()
    for clause in last.clauses:
        _ask(corpus, report, "latest", clause.question, versions[last.number], clause)
    stored = {v.version: v for v in corpus.versions(NAME)}
    for revision in series:
        version = versions[revision.number]
        for clause in revision.clauses:
            _ask(corpus, report, "version_pinned", f"{clause.question} version:{version}", version, clause)
        following = versions.get(revision.number + 1)
        if following is not None and following in stored:
            moment = datetime.fromisoformat(stored[following].ingested_at) - timedelta(microseconds=1)
            for clause in revision.clauses:
                query = f"{clause.question} as_of:{moment.isoformat()}"
                _ask(corpus, report, "as_of", query, version, clause)
    kinds_now = {c.kind for c in last.clauses}
    gone = {c.kind: c for r in series[:-1] for c in r.clauses if c.kind not in kinds_now}
    for clause in gone.values():
        report.tally("gone_answered_empty").add(corpus.search(clause.question) == [])
    report.seconds["search"] = round(time.monotonic() - started, 2)
    started = time.monotonic()
    _resolve_all(corpus, series, versions, report)
    report.seconds["resolve"] = round(time.monotonic() - started, 2)


def _ask(corpus: Corpus, report: Report, family: str, query: str, version: int, clause: Clause) -> None:
    hits = corpus.search(query, k=5)
    found = [is_clause(h, version, clause) for h in hits]
    report.tally(f"{family}_recall@5").add(any(found))
    report.tally(f"{family}_citation").add(bool(found) and found[0])
    if not any(found):
        first = hits[0].citation if hits else "[]"
        report.misses.append(f"{family}: {query!r} wanted v{version} p.{clause.page} {clause.title}; got {first}")


def _resolve_all(corpus: Corpus, series: list[Revision], versions: dict[int, int], report: Report) -> None:
    """Resolve the stored span of every clause of every older revision into the latest."""
    last = series[-1]
    latest_version = versions[last.number]
    spans: dict[int, list[Hit]] = {}
    for hit in corpus.export():
        spans.setdefault(hit.version, []).append(hit)
    for revision in series[:-1]:
        version = versions[revision.number]
        for clause in revision.clauses:
            old = next((h for h in spans.get(version, []) if is_clause(h, version, clause)), None)
            now = last.clause(clause.kind)
            expected = "removed" if now is None else "moved" if now.body == clause.body else "changed"
            tally = report.tally(f"resolve_{expected}")
            if old is None:  # the old revision's span was not found (an OCR misread): counted as a miss
                tally.add(False)
                report.tally("resolve_all").add(False)
                report.misses.append(f"resolve: no stored span of {clause.title} in v{version}")
                continue
            ok = _right(corpus.resolve(old), expected, now, latest_version)
            tally.add(ok)
            report.tally("resolve_all").add(ok)
            if not ok:
                report.misses.append(f"resolve v{version} {clause.title}: wanted {expected}")


def _right(resolved: Resolution, expected: str, now: Clause | None, latest_version: int) -> bool:
    """Whether ``resolve`` said what the truth says (``now``: the clause in the last revision, if any)."""
    if now is None:
        return resolved.status == "removed"
    there = any(is_clause(h, latest_version, now) for h in resolved.hits)
    if expected == "moved":
        return resolved.status in ("moved", "current") and resolved.page_number == now.page and there
    return resolved.status == "changed" and there


def run(settings: Settings, revisions: int, seed: int, scan: int, folder: Path) -> Report:
    """Generate, ingest and score one series (see the module docstring) in workspace ``revisions``."""
    series = lease_series(folder / "series", revisions, seed)
    report = Report(revisions=revisions, versions=0, scanned=scan)
    with Corpus(workspace="revisions", settings=settings) as corpus:
        corpus.delete()
        corpus.create()
        started = time.monotonic()
        versions = ingest(corpus, series, scan, folder)
        report.seconds["ingest"] = round(time.monotonic() - started, 2)
        report.versions = len(corpus.versions(NAME))
        measure(corpus, series, versions, report)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Run, then print the table (or ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--revisions", type=int, default=12, help="revisions of the lease (default 12)")
    parser.add_argument("--seed", type=int, default=7, help="random seed of the edits (default 7)")
    parser.add_argument("--scan", type=int, default=6, help="the revision ingested as a scan (0: none; default 6)")
    parser.add_argument(
        "--home", type=Path, default=None, help="NEXUS_HOME to use, with NEXUS_DATABASE_URL (default: a temporary one)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = parser.parse_args(argv)
    if args.revisions < 2:
        parser.error("--revisions must be at least 2")
    with tempfile.TemporaryDirectory(prefix="nexus-revisions-") as tmp:
        # --home: that data folder, and the environment's database (NEXUS_DATABASE_URL) if set.
        settings = (
            Settings.load(overrides={"home": args.home})
            if args.home
            else Settings.load(overrides={"home": Path(tmp) / "home"}, env={})
        )
        report = run(settings, args.revisions, args.seed, args.scan, Path(tmp))
    if args.json:
        print(json.dumps(report.as_json()))
        return 0
    print(
        f"{report.revisions} revisions of one lease, {report.versions} versions stored (revision {report.scanned}"
        " scanned)"
        if report.scanned
        else f"{report.revisions} revisions, {report.versions} versions"
    )
    for name, tally in report.scores.items():
        print(f"  {name:34} {tally.right:4d} / {tally.asked:<4d} {tally.ratio():6.2f}")
    print("  seconds: " + ", ".join(f"{k} {v}" for k, v in report.seconds.items()))
    for miss in report.misses[:15]:
        print(f"  miss: {miss}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
