"""What row-level security costs a search: each retrieval leg run scoped (as the store runs it: a transaction that
sets ``nexus.workspace``, switches to the role ``nexus_workspace`` and is filtered by the policies) against the
same SQL run unscoped as the connecting superuser (no policy applies), interleaved in one process.

Usage (from the repository root; the workspace must be ingested under NEXUS_HOME)::

    NEXUS_HOME=/tmp/nxhome python bench/rls.py --workspace corpus --repeat 5

The SQL of each leg already filters by workspace, so the difference is the policy's extra qual plus two
statements per transaction. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

from search import QUERIES, Prepared, prepare

from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.store.postgres import PgStore


def unscoped(store: PgStore, statement: Any, params: dict[str, Any]) -> list[Any]:
    """The leg as before row security: the same settings, no scope, no role switch."""
    with store.conn.transaction():
        store.conn.execute("SET LOCAL hnsw.ef_search = 200")
        store.conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        return store.conn.execute(statement, params).fetchall()


def timed(run: Any) -> tuple[float, int]:
    started = time.perf_counter()
    rows = run()
    return time.perf_counter() - started, len(rows)


def measure(store: PgStore, prepared: Sequence[Prepared], repeat: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"scoped": [], "unscoped": []}
    for rep in range(repeat):
        for index, p in enumerate(prepared):
            for statement, params in (p.dense, p.sparse):
                runs = [
                    ("scoped", lambda s=statement, a=params: store.run_leg(s, a)),
                    ("unscoped", lambda s=statement, a=params: unscoped(store, s, a)),
                ]
                if (rep + index) % 2:
                    runs.reverse()
                counts = []
                for name, run in runs:
                    seconds, rows = timed(run)
                    out[name].append(seconds)
                    counts.append(rows)
                assert counts[0] == counts[1], f"scoped and unscoped legs disagree for {p.query!r}"
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspace", default="corpus")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with Corpus(args.workspace, settings=Settings.load()) as corpus:
        store = corpus.store
        if not store._lower_role:
            print("the connection is not a superuser: unscoped runs would see nothing; nothing to compare")
            return 1
        prepared = [prepare(corpus, q) for q in QUERIES]
        measure(store, prepared, 1)  # warm-up
        result = measure(store, prepared, args.repeat)
        docs, pages, spans = corpus.counts()
    print(f"workspace {args.workspace!r}: {docs} documents, {pages} pages, {spans} spans")
    print(f"{len(prepared)} queries x 2 legs x {args.repeat} repeats, interleaved (order alternates)")
    print(f"{'':12}{'p50 ms':>10}{'p95 ms':>10}{'mean ms':>10}")
    for name, values in result.items():
        ms = np.asarray(values) * 1000
        print(f"{name:12}{np.percentile(ms, 50):10.2f}{np.percentile(ms, 95):10.2f}{ms.mean():10.2f}")
    scoped, plain = (np.asarray(result[k]) for k in ("scoped", "unscoped"))
    print(
        f"{'ratio':12}{np.percentile(scoped, 50) / np.percentile(plain, 50):10.2f}"
        f"{np.percentile(scoped, 95) / np.percentile(plain, 95):10.2f}{scoped.mean() / plain.mean():10.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
