"""Search latency benchmark: what ``Corpus.search(query, k=5)`` costs beside the SQL it runs.

For every query three things are timed, interleaved (full search and bare legs alternate which goes first),
after one warm-up pass:

* ``full``: ``Corpus.search(query, k=5)`` (workspace check, parse, query embedding, both legs, fusion, hits);
* ``bare``: the dense leg SQL of ``kruschnexus.store.queries`` run directly with ``PgStore.run_leg`` and the
  lexical leg (BM25 index search, then its spans read back through the SQL filter) for the same query and a
  precomputed query vector (no parsing, document matching, embedding or fusion); the dense and sparse legs are
  also reported apart;
* ``embed``: the query embedding alone (``embedder.embed([search_text])``).

``rest`` is full - bare - embed per sample (parsing, the workspace check, fusion, hits and the trace, plus
noise), and ``full / bare`` the ratio of the two distributions' p50, p95 and mean. The full search reads the lexical
leg's spans on a second connection while its dense leg runs (as a corpus that opens its own store does);
``--one-connection`` measures it reading them first, on one, and ``--alternate-connections`` times both ways
question by question in the same run (``connections_alternated``).

Two settings:

1. ``corpus``: an already ingested workspace (``--workspace``, default ``corpus``) under ``NEXUS_HOME``;
2. ``synthetic``: a generated workspace of ``--generate N`` spans (default 100000; 0 disables it) in a fresh
   temporary ``NEXUS_HOME`` with its own embedded PostgreSQL. Rows are written through the ingester's writer
   (``PgStore.document_transaction``: document, pages, one paragraph block per span, spans, then the lexical
   outbox entry; no model: random unit vectors, random legal words), 100 pages x 10 spans per document; the
   workspace's HNSW index (created by ``ensure_workspace``) is built after the load unless
   ``--index-during-load``; then ``ANALYZE`` and the lexical (BM25) index is built from the outbox
   (``Lexicon.sync``). Queries are embedded by the real model. The temporary home is removed at the end.

Usage (from the repository root)::

    NEXUS_HOME=/tmp/nxhome python bench/search.py                 # both settings
    python bench/search.py --skip-corpus --generate 5000 --repeat 2  # a quick synthetic run
    python bench/search.py --skip-corpus --generate 2000 --repeat 1  # a seconds-long smoke run
    python bench/search.py --json                                   # the same figures as one JSON object
    NEXUS_HOME=/tmp/nxhome python bench/search.py --generate 0 --questions eval/corpus.jsonl  # the suite's questions
    python bench/search.py --skip-corpus --questions bench/phrase_questions.jsonl  # quoted phrases, generated spans

Figures are printed, never asserted. Progress goes to stderr; the report to stdout.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import json
import math
import os
import platform
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from kruschnexus import Corpus
    from kruschnexus.embed.base import Embedder
    from kruschnexus.store.postgres import PgStore

K = 5
SYNTHETIC_WORKSPACE = "bench-synthetic"
SPANS_PER_PAGE = 10
PAGES_PER_DOC = 100
SEED = 20260101
#: Share of a synthetic span's words drawn from its family's topical list (tuned so that the sparse leg's
#: any-term match rate over the queries is close to the one measured on ../shared/corpus).
TOPICAL_SHARE = 0.12
#: ``--like``: spans read from the source workspace, the norm of the noise added to each drawn vector, and the share
#: of a drawn text's words replaced.
POOL_SPANS = 50_000
#: ``--keep``: how the kept workspace was generated (compared before it is measured again).
KEPT_MANIFEST = "bench-synthetic.json"
#: ``maintenance_work_mem`` of the HNSW build after the load (``--build-memory``).
BUILD_MEMORY = "1GB"
#: Where the synthetic setting's own server is; the rest of the environment's settings apply to it.
_SERVER_VARIABLES = ("NEXUS_HOME", "NEXUS_DATABASE_URL", "NEXUS_READ_DATABASE_URL")
POOL_NOISE = 0.35
POOL_WORD_SWAP = 0.1

#: Realistic queries over leases, credit agreements, municipal code and court orders: concept questions,
#: section look-ups and a few with operators (each must parse and carry some free text or a phrase).
QUERIES: tuple[str, ...] = (
    # leases
    "when may the landlord terminate the lease",
    "tenant obligation to pay common area maintenance charges",
    "return of the security deposit after the lease expires",
    "assignment or subletting requires the landlord's consent",
    "rent during a holdover tenancy",
    # credit agreements
    "events of default under the credit agreement",
    "interest rate applicable to term SOFR loans",
    "maximum consolidated leverage ratio financial covenant",
    "conditions precedent to the initial borrowing",
    "mandatory prepayment from asset sale proceeds",
    # municipal code
    "annual rent increase allowed for covered residential units",
    "tenant petition to contest a rent increase",
    "which units are exempt from the rent adjustment ordinance",
    # court orders and opinions
    "what did the court order on remand",
    "standard of review for withdrawing a guilty plea",
    "was the plea knowing and voluntary",
    "interstate water compact allocation dispute",
    # other contracts and governance
    "indemnification of the indemnified parties for third party claims",
    "confidentiality obligations survive termination",
    "governing law and exclusive venue",
    "non-competition restrictions after employment ends",
    "board of directors quorum and voting",
    "limitation of liability for consequential damages",
    # section look-ups
    "Section 8.22.030(C)",
    "Article IV",
    "Section 2.1",
    "§ 7.01 events of default",
    "Section 9.5(b) notices",
    # operators
    '"events of default" page:1-50',
    "doc:*lease* rent abatement",
    'security deposit doc:*lease* -"letter of credit"',
    "termination for convenience -employee",
    "doc_type:lease when may the landlord terminate the lease",
    "doc_type:credit_agreement interest rate applicable to term SOFR loans",
    "tenant petition to contest a rent increase page:1-20",
    "doc:*court_order* standard of review for withdrawing a guilty plea",
    '"security deposit"',
    '"events of default" acceleration of the loans',
    # a phrase many spans hold, but few of those nearest a question about another kind of document
    '"the borrower" insurance of the leased premises',
)
#: The kinds of query whose latencies are reported apart (issue #13: filtered and phrase queries within 2x of plain).
KINDS = ("plain", "filtered", "phrase", "section")


# --------------------------------------------------------------------------- measurement


@dataclass(frozen=True)
class Prepared:
    """One query's two legs, ready to run bare (vector precomputed): ``dense`` runs the dense leg as the search does
    (nearest-first, then every span that passes when too few of the nearest do) and returns the statement that
    gave its rows."""

    query: str
    search_text: str
    dense: Callable[..., tuple[list[Any], tuple[Any, dict[str, Any]]]]
    exact: Callable[[], list[Any]]
    sparse: Callable[[], list[Any]]
    planned_for_values: bool
    filtered: bool
    #: One of :data:`KINDS`: a quoted phrase, else a named section, else another operator that restricts, else plain.
    kind: str


def prepare(corpus: Corpus, raw: str) -> Prepared:
    """Parse ``raw`` and build both legs exactly as ``run_search`` does, with the query vector embedded once."""
    from kruschnexus.retrieve.filters import lexical_query, search_filter
    from kruschnexus.retrieve.legs import dense_leg_rows, keyed_rows, seed_depth
    from kruschnexus.retrieve.query import parse_query
    from kruschnexus.store.queries import SpanFilter, dense_leg

    parsed = parse_query(raw)
    span_f = search_filter(corpus.store, parsed, corpus.workspace)  # the search's own filter
    vector = corpus.embedder.embed([parsed.search_text])[0]
    fusion = corpus.fusion_settings()
    store, dim = corpus.store, corpus.embedder.dim

    index = corpus.lexicon.index(corpus.workspace)
    lexical = lexical_query(parsed, parsed.search_text, (), fusion)

    depth = max(fusion.sparse_depth, seed_depth(index, span_f, fusion))

    def sparse() -> list[Any]:
        """The lexical leg: the BM25 index (as deep as the dense leg's mending reads), then its spans read back
        through the SQL filter."""
        ranked = index.search(lexical, depth)
        return keyed_rows(corpus.store, span_f, parsed.search_text, ranked[: fusion.sparse_depth])

    seeds = sparse()  # what the lexical leg gives the dense one, as in the search
    counted = functools.partial(index.phrase_spans, parsed.phrases) if parsed.phrases else None
    words = functools.partial(index.phrase_words, parsed.phrases) if parsed.phrases else None
    deep = index.search(lexical, depth)
    deeper = [h.key for h in deep] if len(deep) > fusion.sparse_depth else []

    def dense(seeded: bool = True) -> tuple[list[Any], tuple[Any, dict[str, Any]]]:
        """The dense leg as the search runs it (``seeded``: checked against the lexical leg's spans, walked again
        when one is nearer than its tenth row, and mended from deeper in the lexical ranking under a filter): its
        rows, and the statement that gave them."""
        return dense_leg_rows(
            store,
            span_f,
            dim,
            parsed.search_text,
            vector,
            fusion,
            seeds if seeded else (),
            phrase_spans=counted,
            deeper=deeper if seeded else (),
            phrase_words=words,
        )

    def exact() -> list[Any]:
        """Every span that passes the filter ranked by its exact distance (no index scan): the reference."""
        statement, params = dense_leg(span_f, dim)
        bound = {**params, "text": parsed.search_text, "limit": fusion.dense_depth, "vector": vector}
        return store.run_leg(statement, bound, fusion.ef_search, span_f.planned_for_values, exact=True)

    filtered = span_f != SpanFilter(workspace=corpus.workspace)
    kind = _kind(parsed, filtered)
    return Prepared(raw, parsed.search_text, dense, exact, sparse, span_f.planned_for_values, filtered, kind)


def query_kind(corpus: Corpus, raw: str) -> str:
    """One of :data:`KINDS` for ``raw``, as :func:`prepare` finds it, without embedding the question."""
    from kruschnexus.retrieve.filters import search_filter
    from kruschnexus.retrieve.query import parse_query
    from kruschnexus.store.queries import SpanFilter

    parsed = parse_query(raw)
    filtered = search_filter(corpus.store, parsed, corpus.workspace) != SpanFilter(workspace=corpus.workspace)
    return _kind(parsed, filtered)


def _kind(parsed: Any, filtered: bool) -> str:
    """A quoted phrase, else a named section, else another operator that restricts (``filtered``: the search's own
    filter restricts), else plain."""
    return "phrase" if parsed.phrases else "section" if parsed.sections else "filtered" if filtered else "plain"


def uses_hnsw(store: PgStore, prepared: Prepared, dim: int) -> bool:
    """True when the planner serves the dense leg from the HNSW index (EXPLAIN under the leg's settings)."""
    statement, params = prepared.dense()[1]
    plan = store.explain_leg(statement, params, planned_for_values=prepared.planned_for_values)
    return any(f"spans_hnsw_d{dim}" in line for line in plan)


def recall(prepared: Sequence[Prepared]) -> dict[str, Any]:
    """Recall@k of the dense leg as the search runs it (HNSW at the configured ``ef_search``, iterative scans under
    filters, nearest-first, walked again when a span of the lexical leg is nearer than its tenth row) against every
    passing span ranked by exact distance (no index scan), at k = 10 and at the leg's depth, over the queries with at
    least k passing spans: plain queries and filtered ones apart; and the same of the graph's first walk alone
    (``graph_*``: no second walk)."""
    out: dict[str, Any] = {}
    per: dict[str, list[float]] = {}
    for p in prepared:
        exact = [r.key for r in p.exact()]
        kind = "filtered" if p.filtered else "plain"
        for prefix, seeded in (("", True), ("graph_", False)):
            rows, (_, params) = p.dense(seeded)
            served = [r.key for r in rows]
            for k in (10, 0):
                depth = k or int(params["limit"])
                if len(exact) >= depth:
                    share = len(set(served[:depth]) & set(exact[:depth])) / depth
                    per.setdefault(f"{prefix}{kind}_at_{k or 'depth'}", []).append(share)
    for prefix in ("", "graph_"):
        for kind in ("plain", "filtered"):
            for at in ("10", "depth"):
                values = per.get(f"{prefix}{kind}_at_{at}", [])
                out[f"{prefix}{kind}_at_{at}"] = {
                    "mean": float(np.mean(values)) if values else None,
                    "queries": len(values),
                }
    return out


def stats(values: Sequence[float]) -> dict[str, float]:
    """p50, p95 and mean of seconds, in milliseconds."""
    ms = np.asarray(values, dtype=np.float64) * 1000.0
    return {
        "p50_ms": float(np.percentile(ms, 50)),
        "p95_ms": float(np.percentile(ms, 95)),
        "mean_ms": float(ms.mean()),
    }


def time_once(corpus: Corpus, p: Prepared, full_first: bool) -> tuple[dict[str, float], int]:
    """One sample of each measurement for one query (seconds) and the hit count of the full search.

    The full search and the bare legs run the same statements back to back, so whichever runs second finds
    the pages the first one read in the buffer cache; ``full_first`` alternates between repeats.
    """
    embedder = corpus.embedder
    t: dict[str, float] = {}
    hits = 0
    for step in ("full", "bare") if full_first else ("bare", "full"):
        started = time.perf_counter()
        if step == "full":
            hits = len(corpus.search(p.query, k=K))
            t["full"] = time.perf_counter() - started
        else:
            p.dense()
            middle = time.perf_counter()
            p.sparse()
            t["dense"], t["sparse"] = middle - started, time.perf_counter() - middle
            t["bare"] = t["dense"] + t["sparse"]
    started = time.perf_counter()
    embedder.embed([p.search_text])
    t["embed"] = time.perf_counter() - started
    t["rest"] = t["full"] - t["bare"] - t["embed"]
    return t, hits


def measure(corpus: Corpus, queries: Sequence[str], repeat: int) -> dict[str, Any]:
    """Warm up once, then time full search, bare legs and embedding ``repeat`` times per query."""
    started = time.perf_counter()
    for raw in queries:
        corpus.search(raw, k=K)
    warmup = time.perf_counter() - started
    prepared = [prepare(corpus, raw) for raw in queries]
    names = ("full", "bare", "dense", "sparse", "embed", "rest")
    samples: dict[str, list[float]] = {name: [] for name in names}
    per_query: dict[str, dict[str, list[float]]] = {raw: {"full": [], "bare": []} for raw in queries}
    by_kind: dict[str, list[float]] = {kind: [] for kind in KINDS}
    hits: dict[str, int] = {}
    for r in range(repeat):
        for p in prepared:
            t, hits[p.query] = time_once(corpus, p, full_first=r % 2 == 0)
            for name in names:
                samples[name].append(t[name])
            per_query[p.query]["full"].append(t["full"])
            by_kind[p.kind].append(t["full"])
            per_query[p.query]["bare"].append(t["bare"])
    summary = {name: stats(values) for name, values in samples.items()}
    full, bare = summary["full"], summary["bare"]
    return {
        "queries": len(queries),
        "repeat": repeat,
        "samples": len(samples["full"]),
        "warmup_seconds": round(warmup, 3),
        "latency": summary,
        "ratio_full_over_bare": {key: full[key] / bare[key] for key in ("p50_ms", "p95_ms", "mean_ms")},
        "connections": corpus.search_connections,
        "full_by_kind": {
            kind: {"queries": sum(p.kind == kind for p in prepared), **stats(values)}
            for kind, values in by_kind.items()
            if values
        },
        "dense_uses_hnsw": sum(uses_hnsw(corpus.store, p, corpus.embedder.dim) for p in prepared),
        "recall": recall(prepared),
        "per_query": [
            {
                "query": raw,
                "hits": hits[raw],
                "full_p50_ms": float(np.median(v["full"]) * 1000.0),
                "bare_p50_ms": float(np.median(v["bare"]) * 1000.0),
            }
            for raw, v in per_query.items()
        ],
    }


def alternate_connections(corpus: Corpus, queries: Sequence[str], repeat: int) -> dict[str, Any]:
    """Full searches on one connection and on two (the lexical leg's read beside the dense leg), alternated
    question by question in this process, which of the two goes first shuffled with a fixed seed: on a machine
    whose speed drifts between runs, the fair comparison of the two. Two more corpora of the same workspace share
    ``corpus``'s database, model and lexical index."""
    from kruschnexus import Corpus

    def sharing(side_connection: bool) -> Corpus:
        return Corpus(
            workspace=corpus.workspace,
            settings=corpus.settings,
            embedder=corpus.embedder,
            lexicon=corpus.lexicon,
            database=corpus.database,
            side_connection=side_connection,
        )

    corpora = {"one": sharing(False), "two": sharing(True)}
    try:
        for raw in queries:
            for each in corpora.values():
                each.search(raw, k=K)
        samples: dict[str, list[float]] = {name: [] for name in corpora}
        plain: dict[str, list[float]] = {name: [] for name in corpora}
        kinds = {raw: query_kind(corpus, raw) for raw in queries}
        order = random.Random(SEED)
        for _ in range(repeat):
            for raw in queries:
                names = list(corpora)
                order.shuffle(names)
                for name in names:
                    started = time.perf_counter()
                    corpora[name].search(raw, k=K)
                    took = time.perf_counter() - started
                    samples[name].append(took)
                    if kinds[raw] == "plain":
                        plain[name].append(took)
        return {
            "connections": {name: each.search_connections for name, each in corpora.items()},
            "full": {name: stats(values) for name, values in samples.items()},
            "plain": {name: stats(values) for name, values in plain.items() if values},
        }
    finally:
        for each in corpora.values():
            each.close()


# --------------------------------------------------------------------------- synthetic workspace

_COMMON = (
    "the of and to in a or by any such shall be as for with this that on under is its at all other"
    " from not which may than each if no upon herein thereof hereunder including without limitation"
).split()
_LEGAL = (
    "agreement party parties section article provision notice written consent term period date effective"
    " termination terminate breach default event remedy cure obligation right rights waiver amendment"
    " assignment successor assigns affiliate law governing jurisdiction venue court dispute arbitration"
    " indemnify indemnification claim claims loss losses damages liability consequential confidential"
    " information disclosure representation warranty covenant material adverse payment fee fees cost"
    " expense tax taxes insurance property interest reasonable business day days month year applicable"
    " required requirement pursuant accordance respect extent prior following herein schedule exhibit"
).split()
_FAMILY_WORDS = {
    "lease": (
        "lease landlord tenant premises rent base additional security deposit sublet sublease holdover"
        " repairs maintenance common area operating expenses abatement renewal option surrender alterations"
        " utilities occupancy square feet building parking casualty condemnation estoppel guaranty"
    ).split(),
    "credit_agreement": (
        "borrower lender lenders administrative agent loan loans revolving term commitment sofr margin"
        " prepayment mandatory voluntary collateral lien liens guarantor leverage ratio consolidated ebitda"
        " indebtedness restricted payment investment maturity letter credit issuer swingline acceleration"
    ).split(),
    "municipal_code": (
        "city council ordinance resolution chapter code department director permit license fee residential"
        " unit units owner rental increase petition hearing officer board exempt exemption program annual"
        " adjustment allowance banking notice registry capital improvement decrease service"
    ).split(),
    "court_order": (
        "court plaintiff defendant appellant appellee motion order judgment remand district circuit appeal"
        " opinion trial plea guilty counsel evidence review standard discretion error statute jurisdiction"
        " compact water allocation state federal claim summary dismissal affirm reverse vacate"
    ).split(),
}
_FAMILIES = tuple(_FAMILY_WORDS)
_HEADINGS = {
    "lease": (
        "Premises, Term, Base Rent, Additional Rent, Security Deposit, Use, Repairs and Maintenance, Alterations,"
        " Assignment and Subletting, Insurance, Casualty, Condemnation, Default, Surrender, Holdover, Notices"
    ).split(", "),
    "credit_agreement": (
        "Definitions, Amount and Terms of Credit, Interest, Fees, Prepayments, Conditions Precedent,"
        " Representations and Warranties, Affirmative Covenants, Negative Covenants, Financial Covenants,"
        " Events of Default, The Administrative Agent, Miscellaneous"
    ).split(", "),
    "municipal_code": (
        "Title and Purpose, Definitions, Applicability, Exemptions, Allowable Rent Increases, Petitions,"
        " Hearing Procedures, Appeals, Notices to Tenants, Fees, Enforcement, Severability"
    ).split(", "),
    "court_order": (
        "Background, Procedural History, Standard of Review, Discussion, Jurisdiction, Analysis, Conclusion,"
        " Order, Remand, Dissent"
    ).split(", "),
}
_ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X")


def _pseudo_words(rng: np.random.Generator, count: int) -> list[str]:
    """Distinct made-up words (the long tail of a real vocabulary: names, numbers, rare terms)."""
    letters = np.array(list("abcdefghiklmnoprstuvwy"))
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(rng.choice(letters, size=int(rng.integers(5, 11)))))
    return sorted(words)


@dataclass(frozen=True)
class Vocabulary:
    """Zipf-weighted general vocabulary plus one topical list per document family."""

    general: np.ndarray
    cdf: np.ndarray
    family: dict[str, np.ndarray]

    @classmethod
    def build(cls, rng: np.random.Generator) -> Vocabulary:
        """Function words take the top Zipf ranks; legal words are scattered among 8000 made-up ones."""
        tail = _LEGAL + _pseudo_words(rng, 8000)
        general = np.array(_COMMON + [tail[i] for i in rng.permutation(len(tail))])
        cdf = np.cumsum(1.0 / np.arange(1, len(general) + 1))
        return cls(general, cdf / cdf[-1], {k: np.array(v) for k, v in _FAMILY_WORDS.items()})

    def span_text(self, rng: np.random.Generator, family: str) -> str:
        """40-90 words, about one in eight from the document family's topical list."""
        n = int(rng.integers(40, 91))
        general = self.general[np.minimum(np.searchsorted(self.cdf, rng.random(n)), len(self.general) - 1)]
        topical = rng.choice(self.family[family], size=n)
        words = np.where(rng.random(n) < TOPICAL_SHARE, topical, general)
        words[0] = words[0].capitalize()
        return " ".join(words.tolist()) + "."


def _section(family: str, page: int, ordinal: int) -> tuple[str, list[str], str]:
    """Section id, section path and header of a span (a new section every page, a new article every 10)."""
    major = (page - 1) // 10 + 1
    minor = (page - 1) % 10 + 1
    letter = "abcd"[ordinal // 3]
    headings = _HEADINGS[family]
    title = headings[(7 * major + minor) % len(headings)]
    if family == "municipal_code":
        chapter = f"8.{20 + major}"
        section = f"{chapter}.0{minor}0"
        ident = f"{section}({letter.upper()})"
        return ident, [chapter, section, ident], f"{section} {title}"
    article = f"Article {_ROMAN[(major - 1) % len(_ROMAN)]}"
    ident = f"{major}.{minor}({letter})"
    return ident, [article, f"{major}.{minor}", ident], f"{major}.{minor} {title}"


@dataclass(frozen=True)
class Pool:
    """Real spans to draw synthetic ones from (``--like``): their texts and the real model's vectors of them."""

    texts: list[str]
    vectors: np.ndarray

    def draw(self, rng: np.random.Generator, vocab: Vocabulary, count: int) -> tuple[list[str], np.ndarray]:
        """``count`` spans: each a real span's text with about one word in ten replaced by a word of the general
        vocabulary, and its vector moved by Gaussian noise of norm about ``POOL_NOISE`` (cosine about 0.94 to the
        original), then normalized: a real neighbourhood structure, no two spans the same."""
        picks = rng.integers(0, len(self.texts), size=count)
        texts = []
        for i in picks:
            words = self.texts[i].split()
            swap = rng.random(len(words)) < POOL_WORD_SWAP
            ranks = np.minimum(np.searchsorted(vocab.cdf, rng.random(len(words))), len(vocab.general) - 1)
            replacements = vocab.general[ranks]
            texts.append(" ".join(r if s else w for w, r, s in zip(words, replacements.tolist(), swap, strict=True)))
        dim = self.vectors.shape[1]
        noise = rng.standard_normal((count, dim)).astype(np.float32) * (POOL_NOISE / math.sqrt(dim))
        vectors = self.vectors[picks] + noise
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return texts, vectors


def load_pool(workspace: str, dim: int, limit: int) -> Pool:
    """Up to ``limit`` spans with their vectors from ``workspace``, an ingested workspace under ``NEXUS_HOME`` (or of
    ``NEXUS_DATABASE_URL``), as the corpus setting reads it."""
    from kruschnexus.config import Settings
    from kruschnexus.corpus import Corpus
    from kruschnexus.errors import ConfigError

    settings = Settings.load()
    home = "NEXUS_DATABASE_URL" if settings.database_url else settings.home
    try:
        corpus = Corpus(workspace=workspace, settings=settings)
    except ConfigError as exc:
        sys.exit(f"bench/search.py: --like {workspace!r}: {exc}")
    try:
        if not corpus.exists():
            sys.exit(f"bench/search.py: --like: no workspace {workspace!r} in {home} (set NEXUS_HOME to its home)")
        rows = [r for r in corpus.store.span_vectors(workspace, dim, limit) if r.text.strip()]
    finally:
        corpus.close()
    if not rows:
        sys.exit(f"bench/search.py: workspace {workspace!r} of {home} has no spans of dimension {dim}")
    vectors = np.asarray([np.asarray(_floats(r.embedding), dtype=np.float32) for r in rows])
    return Pool([r.text for r in rows], vectors)


def _floats(embedding: Any) -> Any:
    """A stored vector as numbers (pgvector's ``Vector`` or an array)."""
    return embedding.to_numpy() if hasattr(embedding, "to_numpy") else embedding


def _page_spans(
    vocab: Vocabulary, rng: np.random.Generator, family: str, page: int, count: int, texts: list[str] | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """A page's text and its span rows (without workspace, document, vector): each span a slice of the text."""
    from kruschnexus.lexical.analysis import line_markers

    texts = texts if texts is not None else [vocab.span_text(rng, family) for _ in range(count)]
    rows, pos = [], 0
    for ordinal, text in enumerate(texts):
        section, path, header = _section(family, page, ordinal)
        rows.append(
            {
                "page_number": page,
                "ordinal": ordinal,
                "char_start": pos,
                "char_end": pos + len(text),
                "text": text,
                "section": section,
                "section_path": path,
                "heading_path": [f"Page {page}", header],
                "header": header,
                "boxes": [[72.0, 72.0 + 60.0 * ordinal, 468.0, 50.0]],
                "bbox": [72.0, 72.0 + 60.0 * ordinal, 468.0, 50.0],
                "locator": None,
                "used_ocr": False,
                "line_markers": line_markers(text),
            }
        )
        pos += len(text) + 1
    return "\n".join(texts), rows


def _write_document(
    store: PgStore, workspace: str, model_id: str, dim: int, number: int, spans: int, gen: dict[str, Any]
) -> int:
    """One synthetic document of ``spans`` spans, written as the ingester writes one (a document transaction:
    the document row, its pages, one paragraph block per span, the spans, then the lexical outbox entry last);
    returns its page count."""
    from kruschnexus.store.records import BlockRecord, DocumentRecord, PageRecord, SpanRecord

    rng, vocab, pool = gen["rng"], gen["vocab"], gen["pool"]
    family = _FAMILIES[number % len(_FAMILIES)]
    source = f"synthetic_{family}_{number:04d}.pdf"
    doc_id = hashlib.sha256(f"{SEED}:{source}".encode()).hexdigest()
    pages = math.ceil(spans / SPANS_PER_PAGE)
    page_rows: list[PageRecord] = []
    block_rows: list[BlockRecord] = []
    rows: list[dict[str, Any]] = []
    drawn: list[np.ndarray] = []
    for page in range(1, pages + 1):
        count = min(SPANS_PER_PAGE, spans - (page - 1) * SPANS_PER_PAGE)
        texts = None
        if pool is not None:
            texts, page_vectors = pool.draw(rng, vocab, count)
            drawn.append(page_vectors)
        text, span_rows = _page_spans(vocab, rng, family, page, count, texts)
        page_rows.append(PageRecord(workspace, doc_id, page, text, 612.0, 792.0, 0, None, False, False, None))
        block_rows.extend(
            BlockRecord(
                workspace, doc_id, page, row["ordinal"], "paragraph", row["char_start"], row["char_end"], row["bbox"]
            )
            for row in span_rows
        )
        rows.extend(span_rows)
    if pool is not None:
        vectors = np.concatenate(drawn)
    else:
        vectors = rng.standard_normal((len(rows), dim), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with store.document_transaction(workspace) as writer:
        writer.document(
            DocumentRecord(
                workspace=workspace,
                doc_id=doc_id,
                source=source,
                doc_type=family,
                kind="pdf",
                byte_size=1000 * pages,
                page_count=pages,
                extractor_version="synthetic",
                chunker_version="synthetic",
                model_id=model_id,
                meta={},
                name=f"{source} ({doc_id[:12]})",
                version=1,
                latest=True,
                ingested_at=None,
            )
        )
        writer.pages(page_rows)
        writer.blocks(block_rows)
        writer.spans(
            [
                SpanRecord(workspace=workspace, doc_id=doc_id, **row, dim=dim, embedding=vector, embed_key=None)
                for row, vector in zip(rows, vectors, strict=True)
            ]
        )
        writer.announce(workspace, doc_id, "upsert")  # last: the lexical index picks the document up on sync
    return pages


#: Documents kept from before the generator gave each its family as ``doc_type`` get it (the family is in the name).
_TYPE_KEPT = (
    "UPDATE documents SET doc_type = substring(source from '^synthetic_(.*)_[0-9]+[.]pdf$')"
    " WHERE workspace = %(workspace)s AND doc_type IS NULL"
)


def _type_kept_documents(corpus: Corpus) -> int:
    """Give a kept workspace's documents their doc types if they have none (then ANALYZE, and the lexical index,
    which holds them too, is built again); how many were given."""
    with corpus.store.scoped(corpus.workspace) as conn:
        typed = conn.execute(_TYPE_KEPT, {"workspace": corpus.workspace}).rowcount
    if typed:
        corpus.store.analyze()
        corpus.reindex()
    return typed


def generate(
    corpus: Corpus,
    spans: int,
    index_during_load: bool = False,
    pool: Pool | None = None,
    build_memory: str = BUILD_MEMORY,
) -> dict[str, Any]:
    """Fill ``corpus``'s (new) workspace with ``spans`` synthetic spans, then ANALYZE and build the lexical (BM25)
    index from the outbox (``Lexicon.sync``, as the first search would); returns timings.

    ``ensure_workspace`` creates the HNSW index. Unless ``index_during_load``, it is dropped before the load
    and built again afterwards with the same DDL (``hnsw_index_ddl``, the settings' ``hnsw_m`` and
    ``hnsw_ef_construction``, ``build_memory`` of ``maintenance_work_mem``): far faster than inserting each random
    vector into the graph, and the same index in the end. Only ever run against the bench's own database.
    """
    store, embedder = corpus.store, corpus.embedder
    build = corpus.settings.index_build
    store.ensure_workspace(corpus.workspace, embedder.model_id, embedder.dim, build)
    if not index_during_load:
        store.drop_vector_index(embedder.dim)
    rng = np.random.default_rng(SEED)
    gen = {"rng": rng, "vocab": Vocabulary.build(rng), "pool": pool}
    per_doc = SPANS_PER_PAGE * PAGES_PER_DOC
    docs = math.ceil(spans / per_doc)
    started = time.perf_counter()
    pages = 0
    for number in range(docs):
        count = min(per_doc, spans - number * per_doc)
        pages += _write_document(store, corpus.workspace, embedder.model_id, embedder.dim, number, count, gen)
        done = min(spans, (number + 1) * per_doc)
        rate = done / (time.perf_counter() - started)
        progress(f"  generated {done}/{spans} spans ({rate:.0f} spans/s)")
    load_seconds = time.perf_counter() - started
    started = time.perf_counter()
    if not index_during_load:
        progress("  building the HNSW index")
        store.build_vector_index(embedder.dim, build, maintenance_work_mem=build_memory)
    index_seconds = time.perf_counter() - started
    started = time.perf_counter()
    store.analyze()
    analyze_seconds = time.perf_counter() - started
    progress("  building the lexical (BM25) index")
    started = time.perf_counter()
    synced = corpus.lexicon.sync(store, corpus.workspace)
    lexical_seconds = time.perf_counter() - started
    index_size = store.vector_index_size(embedder.dim)
    return {
        "documents": docs,
        "pages": pages,
        "spans": spans,
        "index_during_load": index_during_load,
        "load_seconds": round(load_seconds, 3),
        "index_build_seconds": None if index_during_load else round(index_seconds, 3),
        "analyze_seconds": round(analyze_seconds, 3),
        "lexical_index_seconds": round(lexical_seconds, 3),
        "lexical_index_spans": synced.spans,
        "total_seconds": round(load_seconds + index_seconds + analyze_seconds + lexical_seconds, 3),
        "hnsw_index_size": index_size,
        "hnsw_build": dataclasses.asdict(build),
    }


# --------------------------------------------------------------------------- settings


def progress(message: str) -> None:
    """A progress line on stderr."""
    print(message, file=sys.stderr, flush=True)


def wait_settled(corpus: Corpus, interval: float) -> tuple[int, int, int]:
    """Poll the workspace counts every ``interval`` seconds until two readings agree (once if 0)."""
    counts = corpus.counts()
    while interval > 0:
        time.sleep(interval)
        again = corpus.counts()
        if again == counts:
            break
        progress(f"  workspace still growing: {again[0]} documents, {again[2]} spans")
        counts = again
    return counts


def load_questions(path: Path) -> tuple[str, ...]:
    """The ``query`` of each non-blank line of a JSON-lines file (the evaluation suite's format,
    ``eval/corpus.jsonl``), in order.

    Raises:
        ValueError: the file cannot be read, a line is not a JSON object with a non-empty ``query``, or none is.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read it ({exc})") from exc
    questions = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: not JSON ({exc})") from exc
        query = record.get("query") if isinstance(record, dict) else None
        if not isinstance(query, str) or not query.strip():
            raise ValueError(f'{path}:{number}: no "query" text')
        questions.append(query)
    if not questions:
        raise ValueError(f"{path}: no questions")
    return tuple(questions)


def run_corpus(
    workspace: str,
    repeat: int,
    settle: float,
    side_connection: bool = True,
    alternate: bool = False,
    queries: Sequence[str] = QUERIES,
) -> tuple[dict[str, Any], Embedder]:
    """Setting 1: the ingested workspace under NEXUS_HOME, searched with ``queries`` (``side_connection``: see
    :class:`Corpus`; ``alternate``: :func:`alternate_connections` too)."""
    from kruschnexus import Corpus
    from kruschnexus.config import Settings

    settings = Settings.load()
    corpus = Corpus(workspace=workspace, settings=settings, side_connection=side_connection)
    try:
        progress(f"corpus: workspace {workspace!r} under {settings.home}")
        documents, pages, spans = wait_settled(corpus, settle)
        result = {
            "setting": "corpus",
            "workspace": workspace,
            "home": str(settings.home),
            "documents": documents,
            "pages": pages,
            "spans": spans,
        }
        result.update(measure(corpus, queries, repeat))
        if alternate:
            result["connections_alternated"] = alternate_connections(corpus, queries, repeat)
        return result, corpus.embedder
    finally:
        corpus.close()


def run_synthetic(
    spans: int,
    repeat: int,
    embedder: Embedder | None,
    index_during_load: bool,
    keep: Path | None = None,
    like: str | None = None,
    build_memory: str = BUILD_MEMORY,
    side_connection: bool = True,
    alternate: bool = False,
    queries: Sequence[str] = QUERIES,
) -> dict[str, Any]:
    """Setting 2: a generated workspace in a fresh temporary home (removed afterwards), or in ``keep``, where it
    stays for the next run, which measures it again instead of generating it when it was generated the same way
    (``KEPT_MANIFEST``: spans, ``like``, index during load); a kept workspace generated otherwise is replaced, and
    a kept HNSW index built otherwise than the settings say (``NEXUS_HNSW_M``, ``NEXUS_HNSW_EF_CONSTRUCTION``) is
    built again. It is searched with ``queries``.
    Ranking settings (``NEXUS_EF_SEARCH``, ``NEXUS_DENSE_SCAN``, ...) are read from the environment."""
    from kruschnexus import Corpus
    from kruschnexus.config import Settings
    from kruschnexus.embed.local import MODEL_ID
    from kruschnexus.embed.registry import make_embedder

    home = keep or Path(tempfile.mkdtemp(prefix="nexus-bench-search-"))
    try:
        env = {k: v for k, v in os.environ.items() if k.startswith("NEXUS_") and k not in _SERVER_VARIABLES}
        settings = Settings.load(overrides={"home": str(home)}, env=env)
        if embedder is None or embedder.model_id != MODEL_ID:
            embedder = make_embedder(settings)
        corpus = Corpus(
            workspace=SYNTHETIC_WORKSPACE, settings=settings, embedder=embedder, side_connection=side_connection
        )
        try:
            started = time.perf_counter()
            _ = corpus.store
            server_seconds = time.perf_counter() - started
            result: dict[str, Any] = {"setting": "synthetic", "workspace": SYNTHETIC_WORKSPACE}
            names = {w.name for w in corpus.store.workspaces()}
            wanted = {"spans": spans, "like": like, "index_during_load": index_during_load, "seed": SEED}
            manifest = home / KEPT_MANIFEST
            made = json.loads(manifest.read_text(encoding="utf-8")) if keep and manifest.is_file() else None
            # Spans kept from before they held their line markers (migration 0010) are generated again: marking a
            # million in place rewrites every row and every index entry of the HNSW graph (2.3 ms a span at 10^5).
            unmarked = SYNTHETIC_WORKSPACE in names and corpus.store.has_unmarked_spans(SYNTHETIC_WORKSPACE)
            if SYNTHETIC_WORKSPACE in names and made == wanted and corpus.counts()[2] == spans and not unmarked:
                progress(f"synthetic: measuring the {spans} spans kept in {home}")
                result["generation"] = {"kept": str(home), "like": like}
                typed = _type_kept_documents(corpus)
                if typed:
                    progress(f"synthetic: {typed} kept documents given their family as doc_type")
                build = corpus.settings.index_build
                if corpus.store.vector_index_build(corpus.embedder.dim) != build:
                    progress(
                        f"synthetic: building the kept HNSW index again (m {build.m}, ef_construction"
                        f" {build.ef_construction})"
                    )
                    started = time.perf_counter()
                    corpus.store.drop_vector_index(corpus.embedder.dim)
                    corpus.store.build_vector_index(corpus.embedder.dim, build, maintenance_work_mem=build_memory)
                    result["generation"]["index_build_seconds"] = round(time.perf_counter() - started, 3)
            else:
                if SYNTHETIC_WORKSPACE in names:
                    why = "spans stored without their line markers" if unmarked else "a workspace generated otherwise"
                    progress(f"synthetic: {home} holds {why}; replacing it")
                    manifest.unlink(missing_ok=True)
                    corpus.delete()
                progress(f"synthetic: generating {spans} spans in {home}")
                pool = None
                if like:
                    progress(f"synthetic: reading up to {POOL_SPANS} spans and their vectors from {like}")
                    pool = load_pool(like, corpus.embedder.dim, POOL_SPANS)
                result["generation"] = generate(corpus, spans, index_during_load, pool, build_memory)
                result["generation"]["like"] = like
                result["generation"]["pool_spans"] = None if pool is None else len(pool.texts)
                if keep:
                    manifest.write_text(json.dumps(wanted), encoding="utf-8")
            result["generation"]["server_start_seconds"] = round(server_seconds, 3)
            result["documents"], result["pages"], result["spans"] = corpus.counts()
            built = corpus.store.vector_index_build(corpus.embedder.dim)
            result["generation"]["hnsw_build"] = None if built is None else dataclasses.asdict(built)
            progress("synthetic: measuring")
            result.update(measure(corpus, queries, repeat))
            if alternate:
                result["connections_alternated"] = alternate_connections(corpus, queries, repeat)
            return result
        finally:
            corpus.close()
    finally:
        if keep is None:
            shutil.rmtree(home, ignore_errors=True)


# --------------------------------------------------------------------------- report


def render(result: dict[str, Any]) -> str:
    """A readable table for one setting."""
    lat, ratio = result["latency"], result["ratio_full_over_bare"]
    lines = [
        f"== {result['setting']}: workspace {result['workspace']!r}: {result['documents']} documents,"
        f" {result['pages']} pages, {result['spans']} spans",
    ]
    gen = result.get("generation")
    if gen and "kept" in gen:
        lines.append(f"   generated by an earlier run, kept in {gen['kept']}")
        if gen.get("index_build_seconds") is not None:
            lines.append(
                f"   HNSW index built again with the settings' parameters in {gen['index_build_seconds']:.1f} s"
            )
    elif gen:
        how = (
            "rows loaded with the HNSW index in place"
            if gen["index_during_load"]
            else f"rows loaded, then HNSW index built in {gen['index_build_seconds']:.1f} s"
        )
        source = f"drawn from {gen['pool_spans']} spans of {gen['like']}" if gen.get("like") else "made-up words"
        lines.append(f"   spans: {source}")
        lines.append(
            f"   generated in {gen['total_seconds']:.1f} s: {gen['load_seconds']:.1f} s {how},"
            f" ANALYZE {gen['analyze_seconds']:.1f} s, lexical index {gen['lexical_index_seconds']:.1f} s"
            f" ({gen['lexical_index_spans']} spans); HNSW index {gen['hnsw_index_size']}"
        )
    if gen and gen.get("hnsw_build"):
        lines.append(
            f"   HNSW index: m {gen['hnsw_build']['m']}, ef_construction {gen['hnsw_build']['ef_construction']}"
        )
    asked = result.get("questions", "built-in")
    lines.append(
        f"   {result['queries']} queries ({asked}) x {result['repeat']} repeats = {result['samples']} samples,"
        f" k={K}; warm-up pass {result['warmup_seconds']:.1f} s"
    )
    lines.append(f"   {'':34} {'p50 ms':>9} {'p95 ms':>9} {'mean ms':>9}")
    rows = (
        ("Corpus.search (full)", "full"),
        ("bare legs (dense + sparse SQL)", "bare"),
        ("  dense leg", "dense"),
        ("  sparse leg", "sparse"),
        ("query embedding alone", "embed"),
        ("rest (full - bare - embed)", "rest"),
    )
    for label, key in rows:
        s = lat[key]
        lines.append(f"   {label:34} {s['p50_ms']:9.2f} {s['p95_ms']:9.2f} {s['mean_ms']:9.2f}")
    lines.append(f"   {'ratio full / bare':34} {ratio['p50_ms']:9.2f} {ratio['p95_ms']:9.2f} {ratio['mean_ms']:9.2f}")
    lines.append(f"   dense leg planned on the HNSW index: {result['dense_uses_hnsw']}/{result['queries']} queries")
    plain = result["full_by_kind"].get("plain")
    for kind, s in result["full_by_kind"].items():
        against = (
            f" ({s['p50_ms'] / plain['p50_ms']:.2f} / {s['p95_ms'] / plain['p95_ms']:.2f}x plain)" if plain else ""
        )
        lines.append(
            f"   full search, {kind} queries ({s['queries']}):"
            f" p50 {s['p50_ms']:.2f} ms, p95 {s['p95_ms']:.2f} ms{against}"
        )
    for prefix, what in (("", "dense leg"), ("graph_", "first walk alone")):
        for kind in ("plain", "filtered"):
            parts = []
            for at in ("10", "depth"):
                r = result["recall"][f"{prefix}{kind}_at_{at}"]
                mean = "n/a" if r["mean"] is None else f"{r['mean']:.3f}"
                parts.append(f"@{at} {mean} ({r['queries']} queries)")
            lines.append(f"   {what} recall against exact ranking, {kind} queries: " + ", ".join(parts))
    alternated = result.get("connections_alternated")
    if alternated:
        lines.append("   full search, alternated question by question (p50 / p95 ms):")
        for what in ("full", "plain"):
            pairs = "   ".join(
                f"{name} connection{'s' if name == 'two' else ''} {row['p50_ms']:.2f} / {row['p95_ms']:.2f}"
                for name, row in alternated[what].items()
            )
            lines.append(f"     {what:6} {pairs}")
    slowest = sorted(result["per_query"], key=lambda r: -r["full_p50_ms"])[:3]
    lines.append("   slowest queries (p50 full / bare ms, hits):")
    lines.extend(f"     {r['full_p50_ms']:8.2f} / {r['bare_p50_ms']:8.2f}  {r['hits']}  {r['query']}" for r in slowest)
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    """Where the figures were measured."""
    from kruschnexus.embed.local import MODEL_ID

    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "model": MODEL_ID,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", default="corpus", help="ingested workspace under NEXUS_HOME (default corpus)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each query (default 5)")
    parser.add_argument("--generate", type=int, default=100_000, help="synthetic spans (default 100000; 0: skip)")
    parser.add_argument("--skip-corpus", action="store_true", help="skip the ingested-workspace setting")
    parser.add_argument(
        "--settle", type=float, default=0.0, help="poll the workspace counts every S seconds until they stop growing"
    )
    parser.add_argument(
        "--index-during-load",
        action="store_true",
        help="keep the HNSW index while loading the synthetic rows (slow) instead of building it afterwards",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="generate the synthetic workspace in DIR and keep it there; a later run with the same --generate"
        " measures it again without generating it",
    )
    parser.add_argument(
        "--like",
        metavar="WORKSPACE",
        help="draw the synthetic spans from an ingested workspace under NEXUS_HOME: its texts (a word in ten"
        " replaced) and the real model's vectors of them (moved by noise), instead of made-up words and random"
        " vectors",
    )
    parser.add_argument(
        "--build-memory",
        default=BUILD_MEMORY,
        metavar="SIZE",
        help=f"maintenance_work_mem of the HNSW build (default {BUILD_MEMORY}; 10^6 spans want about 4GB)",
    )
    parser.add_argument(
        "--one-connection",
        action="store_true",
        help="search on one connection: the lexical leg's spans read back before the dense leg runs, not beside it",
    )
    parser.add_argument(
        "--alternate-connections",
        action="store_true",
        help="also time full searches on one connection and on two, alternated question by question",
    )
    parser.add_argument(
        "--questions",
        type=Path,
        metavar="FILE",
        help='search with the questions of a JSON-lines file (a "query" on each line, as eval/corpus.jsonl and'
        " bench/phrase_questions.jsonl have them) instead of the built-in ones, in both settings",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    args = parser.parse_args(argv)
    try:
        questions = QUERIES if args.questions is None else load_questions(args.questions)
    except ValueError as exc:
        parser.error(str(exc))
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.skip_corpus and args.generate <= 0:
        parser.error("nothing to measure: --skip-corpus and --generate 0 leave no setting")
    if (args.like or args.keep) and args.generate <= 0:
        parser.error("--like and --keep shape the synthetic workspace: give --generate N (N > 0)")
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "k": K,
        "repeat": args.repeat,
        "settings": {},
    }
    embedder = None
    asked = "built-in" if args.questions is None else str(args.questions)
    if not args.skip_corpus:
        report["settings"]["corpus"], embedder = run_corpus(
            args.workspace, args.repeat, args.settle, not args.one_connection, args.alternate_connections, questions
        )
        report["settings"]["corpus"]["questions"] = asked
    if args.generate > 0:
        report["settings"]["synthetic"] = run_synthetic(
            args.generate,
            args.repeat,
            embedder,
            args.index_during_load,
            args.keep,
            args.like,
            args.build_memory,
            not args.one_connection,
            args.alternate_connections,
            questions,
        )
        report["settings"]["synthetic"]["questions"] = asked
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        m = report["machine"]
        print(f"search latency, {report['date']}, {m['cpus']} CPUs, {m['platform']}, Python {m['python']}")
        for result in report["settings"].values():
            print()
            print(render(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
