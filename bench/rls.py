"""What row-level security costs a search: each retrieval leg's SQL run scoped (as the store runs it: a transaction
that sets ``nexus.workspace``, switches to the role ``nexus_workspace`` and is filtered by the policies) against the
same SQL run unscoped as the connecting superuser (no policy applies), interleaved in one process. The legs are the
dense leg and the lexical leg's read-back of the spans the BM25 index ranked (the index search itself runs outside
PostgreSQL, once per query, before the clock).

Usage (from the repository root; the workspace must be ingested under NEXUS_HOME)::

    NEXUS_HOME=/tmp/nxhome python bench/rls.py --workspace corpus --repeat 5
    NEXUS_HOME=/tmp/nxhome python bench/rls.py --workspace corpus --repeat 1 --json

The SQL of each leg already filters by workspace, so the difference is the policy's extra qual plus two
statements per transaction. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

from search import QUERIES

from kruschnexus.config import EF_SEARCH, Settings
from kruschnexus.corpus import Corpus
from kruschnexus.store.postgres import PgStore

#: A leg's statement, its parameters, and whether it is planned for its values (``SpanFilter.planned_for_values``).
Leg = tuple[Any, dict[str, Any], bool]


def legs(corpus: Corpus, raw: str) -> tuple[str, list[Leg]]:
    """The SQL legs of one query as ``run_search`` builds them: the dense leg, and the lexical leg's read-back
    (``keyed_rows``) of what the BM25 index ranks for it, when it ranks anything."""
    from kruschnexus.retrieve.filters import lexical_query, search_filter
    from kruschnexus.retrieve.query import parse_query
    from kruschnexus.store import queries as q

    parsed = parse_query(raw)
    span_f = search_filter(corpus.store, parsed, corpus.workspace)  # the search's own filter
    text = parsed.search_text
    fusion = corpus.fusion_settings()
    dense_sql, dense_params = q.dense_leg(span_f, corpus.embedder.dim)
    vector = corpus.embedder.embed([text])[0]
    # The exact dense leg (not nearest-first): one statement to run scoped and unscoped. Its phrases and sections are
    # planned for their values, as run_leg plans them in a search.
    dense_params = {**dense_params, "text": text, "limit": fusion.dense_depth, "vector": vector}
    out: list[Leg] = [(dense_sql, dense_params, span_f.planned_for_values)]
    ranked = corpus.lexicon.index(corpus.workspace).search(lexical_query(parsed, text, (), fusion), fusion.sparse_depth)
    if ranked:
        keyed_sql, keyed_params = q.keyed_leg(span_f)
        unique = list(dict.fromkeys(h.key for h in ranked))  # each once: the keys lead the read's join
        out.append((keyed_sql, {**keyed_params, "text": text, **q.key_arrays(unique)}, False))
    return raw, out


def unscoped(store: PgStore, statement: Any, params: dict[str, Any], planned: bool) -> list[Any]:
    """The leg as before row security: the same settings, no scope, no role switch."""
    with store.conn.transaction():
        store.conn.execute("SELECT set_config('hnsw.ef_search', %(ef)s, true)", {"ef": str(EF_SEARCH)})
        store.conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        if planned:
            store.conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
        return store.conn.execute(statement, params).fetchall()


def timed(run: Any) -> tuple[float, int]:
    started = time.perf_counter()
    rows = run()
    return time.perf_counter() - started, len(rows)


def measure(store: PgStore, prepared: Sequence[tuple[str, list[Leg]]], repeat: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"scoped": [], "unscoped": []}
    for rep in range(repeat):
        for index, (query, query_legs) in enumerate(prepared):
            for statement, params, planned in query_legs:
                runs = [
                    ("scoped", lambda s=statement, a=params, p=planned: store.run_leg(s, a, planned_for_values=p)),
                    ("unscoped", lambda s=statement, a=params, p=planned: unscoped(store, s, a, p)),
                ]
                if (rep + index) % 2:
                    runs.reverse()
                counts = []
                for name, run in runs:
                    seconds, rows = timed(run)
                    out[name].append(seconds)
                    counts.append(rows)
                assert counts[0] == counts[1], f"scoped and unscoped legs disagree for {query!r}"
    return out


def summary(result: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """p50, p95 and mean in milliseconds of each side, and scoped / unscoped of each."""
    out = {}
    for name, values in result.items():
        ms = np.asarray(values) * 1000
        out[name] = {
            "p50_ms": float(np.percentile(ms, 50)),
            "p95_ms": float(np.percentile(ms, 95)),
            "mean_ms": float(ms.mean()),
        }
    out["ratio"] = {key: out["scoped"][key] / out["unscoped"][key] for key in ("p50_ms", "p95_ms", "mean_ms")}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspace", default="corpus")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    with Corpus(args.workspace, settings=Settings.load()) as corpus:
        store = corpus.store
        if not store._lower_role:
            print("the connection is not a superuser: unscoped runs would see nothing; nothing to compare")
            return 1
        corpus.lexicon.sync(store, corpus.workspace)
        prepared = [legs(corpus, q) for q in QUERIES]
        measure(store, prepared, 1)  # warm-up
        result = measure(store, prepared, args.repeat)
        docs, pages, spans = corpus.counts()
    report = {
        "workspace": args.workspace,
        "documents": docs,
        "pages": pages,
        "spans": spans,
        "queries": len(prepared),
        "legs": sum(len(query_legs) for _, query_legs in prepared),
        "repeat": args.repeat,
        "latency": summary(result),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"workspace {args.workspace!r}: {docs} documents, {pages} pages, {spans} spans")
    print(
        f"{report['queries']} queries, {report['legs']} legs (a lexical leg only where the index ranks a span)"
        f" x {args.repeat} repeats, interleaved (order alternates)"
    )
    print(f"{'':12}{'p50 ms':>10}{'p95 ms':>10}{'mean ms':>10}")
    for name, row in report["latency"].items():
        print(f"{name:12}{row['p50_ms']:10.2f}{row['p95_ms']:10.2f}{row['mean_ms']:10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
