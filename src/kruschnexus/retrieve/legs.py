"""The two legs' reads from PostgreSQL: the dense leg (nearest-first, exact when few spans pass, else the HNSW
graph, walked again when the lexical leg proves a walk incomplete) and the lexical leg's spans read back by key."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from psycopg import sql

from kruschnexus.config import MAX_EF_SEARCH
from kruschnexus.embed.base import Vectors
from kruschnexus.lexical.index import LexicalHit, LexicalIndex
from kruschnexus.retrieve.filters import like_escape, phrase_pattern
from kruschnexus.retrieve.fusion import FusionSettings
from kruschnexus.store import queries as q
from kruschnexus.store.postgres import PgStore
from kruschnexus.store.records import LegRow

#: ``work_mem`` of an exact ranking's transaction. Its spans are found through an index's bitmap, which past the
#: server's default 4 MB is kept by page instead of by row: at 10^6 spans `"the lender"`'s 78,000 candidates spread
#: over 75,000 pages, 34,000 of them lossy, so 100,000 spans were tested against the phrase to keep 21,155 (445 ms;
#: 351 ms with 32 MB); its passing spans (up to the cap, some 57,000) are held in memory too. Only what a ranking
#: fills is used.
EXACT_WORK_MEM = "32MB"

#: A span's key: document, page, ordinal.
SpanKey = tuple[str, int, int]


@dataclass(frozen=True)
class PendingSeeds:
    """The lexical leg's spans while another connection reads them back: their keys at once (the lexical index's
    order, before PostgreSQL's filter), their rows (those that pass the filter) when the read is done. The dense
    leg's walk runs meanwhile and reads the keys' cosines; only the spans that pass are then its seeds."""

    keys: tuple[SpanKey, ...]
    read: Future[list[LegRow]]

    def rows(self) -> list[LegRow]:
        """The spans that pass the filter, in the index's order (waits for the read)."""
        return self.read.result()


#: The dense leg's seeds: the lexical leg's rows, or the read that brings them.
Seeds = Sequence[LegRow] | PendingSeeds


def _seed_keys(seeds: Seeds) -> list[SpanKey]:
    return list(seeds.keys) if isinstance(seeds, PendingSeeds) else [s.key for s in seeds]


def _seed_rows(seeds: Seeds) -> Sequence[LegRow]:
    return seeds.rows() if isinstance(seeds, PendingSeeds) else seeds


#: When the planner expects few enough spans to pass a filter, the exact ranking reads up to this many times the
#: threshold (``dense_exact`` x sqrt(depth x stored)) before it takes the estimate for wrong and the HNSW graph is
#: walked instead: past the crossover, but not by so much that a gross underestimate reads a workspace.
EXACT_SLACK = 2.0


def dense_leg_rows(
    store: PgStore,
    span_f: q.SpanFilter,
    dim: int,
    text: str,
    vector: Vectors,
    settings: FusionSettings,
    seeds: Seeds = (),
    phrase_spans: Callable[[int], int | None] | None = None,
    deeper: Sequence[SpanKey] = (),
    phrase_words: Callable[[], Mapping[str, int]] | None = None,
) -> tuple[list[LegRow], tuple[sql.Composed, dict[str, Any]]]:
    """The dense leg's rows, and the statement (with its parameters) that gave them: nearest-first when the filter
    may pass many spans or quotes a phrase, and enough of the nearest pass (see
    :func:`~kruschnexus.store.queries.nearest_first_leg`); every span that passes, ranked exactly, when the filter
    passes spans by their keys and few pass, or quotes a phrase too few of the nearest hold and at most the cap
    hold (see :func:`~kruschnexus.store.queries.capped_exact_leg`); else ranked by the HNSW index, which the filter
    follows.

    ``seeds``: spans that pass the filter (the lexical leg's rows, or the read bringing them: :class:`PendingSeeds`,
    of which only the spans that pass count). One of them nearer the question than the graph's
    :data:`RECHECK_RANK`-th row, and not among its rows, proves the walk missed a region of the graph (a cluster of
    near-copies of a clause that the walk's beam never entered): the graph is walked again with the widest beam, and
    the seeds nearer than its rows join them (:func:`_walked`).

    ``phrase_spans``: how many spans hold the filter's phrases, given the count at which a bound will do
    (:meth:`~kruschnexus.lexical.index.LexicalIndex.phrase_spans`): a phrase few of the nearest spans hold, and the
    lexical index finds in more spans than the exact ranking reads, is ranked by the graph without reading them
    first. The graph's walk after a nearest-first read that fell short has the widest beam.

    ``deeper``: the keys of more of the lexical index's ranking than its leg keeps (see :func:`seed_depth`); those
    that pass the filter mend the graph's walk as the seeds do (:func:`_deepened`).

    ``phrase_words``: the words of the filter's phrases and how many spans hold each, as the lexical index counts
    them (:meth:`~kruschnexus.lexical.index.LexicalIndex.phrase_words`): an exact ranking under phrases finds its
    spans by the rarest when most spans holding it hold the phrases too (:func:`_word_first`); when many spans hold
    even the rarest, more of the nearest spans are read first (:func:`deep_scan`), and enough of them holding the
    phrases are the answer."""
    s = settings
    common = {"text": text, "limit": s.dense_depth, "vector": vector}
    if q.ranks_exactly_first(span_f):
        plan, params = q.passing_plan(span_f, dim)
        expected, stored = store.passing_estimate(plan, params, span_f.planned_for_values)
        few = _few(s, stored)
        if expected <= few:
            exact = _capped_exact(store, span_f, dim, common, few, s)
            if exact is not None:
                return exact
    if q.reads_nearest_first(span_f):
        statement, params = q.nearest_first_leg(span_f, dim)
        scan = max(s.dense_scan, s.dense_depth)
        bound = {**params, **common, "scan": scan}
        # A beam as wide as the read: past its beam an HNSW scan goes on by iterations of lesser quality (at 10^6
        # spans a filtered question's recall@10 fell to 0.1 with a beam of 200 for 400 spans read, 1.0 with 400).
        beam = min(max(s.ef_search, scan), MAX_EF_SEARCH)
        rows = _walked(store, statement, bound, beam, span_f.planned_for_values, seeds, dim, enough=s.dense_depth)
        if len(rows) >= s.dense_depth:
            return _deepened(store, span_f, dim, common, rows, seeds, deeper), (statement, bound)
        if span_f.phrase_patterns:
            read = (statement, bound)
            answer = _under_phrases(store, span_f, dim, common, s, read, seeds, deeper, phrase_spans, phrase_words)
            if answer is not None:
                return answer
        # Fewer than one in eight of the nearest pass: the graph's walk must go far past its beam to find enough,
        # and an iterative scan's later iterations miss (at 10^6 spans "the borrower" walked at a beam of 200, then
        # again at 1000 for the check, took 65 + 37 ms; at 1000 alone, 62 ms).
        walk_beam = MAX_EF_SEARCH
    else:
        walk_beam = s.ef_search
    statement, params = q.dense_leg(span_f, dim)
    bound = {**params, **common}
    rows = _walked(store, statement, bound, walk_beam, span_f.planned_for_values, seeds, dim)
    return _deepened(store, span_f, dim, common, rows, seeds, deeper), (statement, bound)


#: How many spans a deeper nearest-first read takes (:func:`deep_scan`): at 10^6 generated spans, enough for 50 of
#: the nearest holding the phrase in 8 of the 13 phrase questions whose first read fell short (docs/scaling.md).
DEEP_SCAN = 2_000

#: The spans the rarest word of a filter's phrases must be held by (as the lexical index counts them) before a
#: deeper read is tried (:func:`deep_scan`): an exact ranking then reads the spans holding every word of the phrases,
#: up to as many, at some 3 to 9 µs each (60 to 950 ms for the bench's phrase questions at 10^6 spans), where
#: reading :data:`DEEP_SCAN` nearest costs 10 to 35 ms (docs/scaling.md).
DEEP_FROM = 20_000


def deep_scan(scan: int, phrase_words: Callable[[], Mapping[str, int]] | None) -> int | None:
    """How many of the nearest spans to read when the first ``scan`` held too few that hold the filter's phrases,
    before ranking every span holding them exactly: :data:`DEEP_SCAN`, when the phrases' rarest word is held by at
    least :data:`DEEP_FROM` spans as the lexical index counts them (``phrase_words``: see
    :meth:`~kruschnexus.lexical.index.LexicalIndex.phrase_words`), and that is more than ``scan``; else ``None``.

    An exact ranking under phrases reads every span that holds their words (the text's trigram index cannot tell
    where the words stand): at 10^6 spans, ``"the agent"`` is held by 4,541 spans, ``agent`` by 112,129, and the
    ranking took 946 ms. A question that quotes a phrase is mostly about it: of the 2,000 spans nearest its question
    enough hold it (read in 26 ms). When too few do, the exact ranking follows, the read's time lost. The read's
    beam is pgvector's widest, 1000, narrower than the read: past it, relaxed iterative scans go on (the bench's
    phrase questions' recall@10 at 10^6 went from 0.995 to 0.986)."""
    if phrase_words is None or DEEP_SCAN <= scan:
        return None
    counts = phrase_words()
    if not counts or min(counts.values()) < DEEP_FROM:
        return None
    return DEEP_SCAN


def _under_phrases(
    store: PgStore,
    span_f: q.SpanFilter,
    dim: int,
    common: dict[str, Any],
    s: FusionSettings,
    read: tuple[sql.Composed, dict[str, Any]],
    seeds: Seeds,
    deeper: Sequence[SpanKey],
    phrase_spans: Callable[[int], int | None] | None,
    phrase_words: Callable[[], Mapping[str, int]] | None,
) -> tuple[list[LegRow], tuple[sql.Composed, dict[str, Any]]] | None:
    """The dense leg under quoted phrases when too few of the spans nearest the question hold them (``read``: the
    nearest-first statement and its parameters): the spans holding them among more of the nearest
    (:func:`deep_scan`), when enough do, else every span holding them ranked exactly (:func:`_capped_exact`, by
    their rarest word when :func:`_word_first` says so); ``None`` when the graph must rank them.

    Few of the nearest hold the phrase: few spans may. The planner cannot tell (a phrase's trigram estimate is a
    constant), so the cap guards against a phrase held by many. Past it, reading the spans that hold the phrase only
    finds that out (at 10^6 spans, 0.7 s for "the borrower", held by 57,700 spans but by none of a lease question's
    400 nearest): the lexical index counts them first, when the phrases are all the filter asks for (another
    restriction may pass few of them, which the graph's walk would not reach). Its count may fall short of what the
    text's pattern matches (inside longer words too): the cap still guards. It may also exceed it (it matches stems:
    "the borrower" counts "the borrowing"), sending to the graph a phrase that up to a cap's worth of spans hold. A
    count (or the rarest word's, standing for it as a bound) below the leg's depth leaves no deeper read to try."""
    statement, bound = read
    few = _few(s, store.spans_stored(span_f.workspace))
    held = phrase_spans(_cap(few)) if phrase_spans is not None and _phrases_only(span_f) else None
    if held is not None and held > _cap(few):
        return None
    words = functools.cache(phrase_words) if phrase_words is not None else None  # the index read once
    depth = deep_scan(int(bound["scan"]), words) if held is None or held >= s.dense_depth else None
    if depth is not None:
        deep = {**bound, "scan": depth}
        beam = MAX_EF_SEARCH
        rows = _walked(store, statement, deep, beam, span_f.planned_for_values, seeds, dim, enough=s.dense_depth)
        if len(rows) >= s.dense_depth:
            return _deepened(store, span_f, dim, common, rows, seeds, deeper), (statement, deep)
    return _capped_exact(store, span_f, dim, common, few, s, _word_first(phrase_spans, words, _cap(few)))


def _phrases_only(span_f: q.SpanFilter) -> bool:
    """``span_f`` restricts its workspace's latest spans by quoted phrases and nothing else."""
    return dataclasses.replace(span_f, phrase_patterns=()) == q.SpanFilter(workspace=span_f.workspace)


def _few(s: FusionSettings, stored: float) -> float:
    """How many passing spans the dense leg ranks exactly rather than through the graph: ``dense_exact`` x
    sqrt(``dense_depth`` x spans stored)."""
    return s.dense_exact * math.sqrt(s.dense_depth * max(stored, 1.0))


def _cap(few: float) -> int:
    """How many passing spans an exact ranking reads before it gives way to the graph: :data:`EXACT_SLACK` x
    ``few``."""
    return math.ceil(EXACT_SLACK * few)


#: The dense leg's row a lexical span nearer the question proves a walk of the graph incomplete: the tenth, where
#: ``bench/search.py`` measures the graph's recall (twice the hits a search returns by default). Deeper rows miss
#: near-ties to the question too often for each to cost a second walk.
RECHECK_RANK = 10


def _walked(
    store: PgStore,
    statement: sql.Composed,
    bound: dict[str, Any],
    beam: int,
    planned_for_values: bool,
    seeds: Seeds,
    dim: int,
    enough: int = 0,
) -> list[LegRow]:
    """The rows of a dense statement the HNSW graph may serve, checked against ``seeds`` (spans that pass its filter)
    when the rows would be the leg's answer (at least ``enough`` of them: a nearest-first read with fewer gives way
    to another ranking anyway). The seeds' cosines to the question (of ``dim`` dimensions) are read by key in the
    walk's transaction. A seed nearer than the :data:`RECHECK_RANK`-th row and not among the rows proves the walk
    incomplete: the graph is walked again with the widest beam (:data:`MAX_EF_SEARCH`). Then the seeds nearer than
    the farthest row join the rows at their ranks (:func:`_joined`).

    At 10^6 generated spans the graph's walk left 2 of 23 plain questions in the wrong region entirely (recall@10
    of 0: nearest cosine 0.60 where the exact one is 0.68); in both a span the lexical leg found was nearer than the
    walk's tenth row, and in none of the other 36 questions. Under a phrase held by 57,700 spans, none of them among
    a question's 400 nearest, even the widest beam stayed in the wrong region (nearest cosine 0.51 where the exact
    one is 0.54), while 30 of the lexical leg's 50 spans were nearer than its tenth row."""
    keys = _seed_keys(seeds)
    if not keys:
        return store.run_leg(statement, bound, beam, planned_for_values)
    rows, cosines = store.run_leg_and_cosines(statement, bound, beam, planned_for_values, keys, dim)
    if len(rows) < enough:
        return rows
    passing = _seed_rows(seeds)
    held = {seed.key for seed in passing}
    cosines = {key: cosine for key, cosine in cosines.items() if key in held}
    if beam < MAX_EF_SEARCH and _missed(rows, cosines):
        rows = store.run_leg(statement, bound, MAX_EF_SEARCH, planned_for_values)
        if len(rows) < enough:  # no answer either: never made one by the seeds
            return rows
    return _joined(rows, passing, cosines, int(bound["limit"]))


def _joined(
    rows: Sequence[LegRow], seeds: Sequence[LegRow], cosines: Mapping[SpanKey, float], limit: int
) -> list[LegRow]:
    """``rows`` and the ``seeds`` nearer the question than the farthest row and not among them (with their
    ``cosines``), nearest first, at most ``limit``: a seed passes the filter and its cosine is exact, so where it is
    nearer than a row the graph's walk missed it. The rows alone, as they came, when no seed is."""
    if not rows:
        return []
    farthest = min(row_cosine(r) for r in rows)
    held = {r.key for r in rows}
    extra: dict[SpanKey, LegRow] = {}
    for seed in seeds:
        cosine = cosines.get(seed.key)
        if cosine is not None and cosine > farthest and seed.key not in held:
            extra.setdefault(seed.key, dataclasses.replace(seed, cosine=cosine))
    if not extra:
        return list(rows)
    return sorted([*rows, *extra.values()], key=lambda r: -row_cosine(r))[:limit]


#: A workspace's spans (as its lexical index counts them) from which a filtered walk of the graph is mended from
#: deeper in the lexical ranking (:func:`seed_depth`): below it the walks missed nothing the lexical leg's own spans
#: did not mend (recall@10 1.000 at 10^5 generated spans), and the mending's reads would buy nothing.
DEEPER_FROM = 200_000


def seed_depth(index: LexicalIndex, span_f: q.SpanFilter, settings: FusionSettings) -> int:
    """How many of the lexical index's first spans may mend the dense leg's walk of the graph: ``dense_seeds`` when
    the question restricts its spans, the workspace holds at least :data:`DEEPER_FROM` of them and the lexical leg
    keeps fewer; else 0 (the lexical leg's own spans only).

    Under a filter the graph's walk must pass over the spans that fail it, and in a cluster of near-copies of a
    clause it may stop short of the nearest that pass. At 10^6 generated spans the filtered questions' recall@10
    was 0.938 with the lexical leg's 50 spans as seeds, 0.994 with 400 (``bench/README.md``)."""
    if (
        settings.dense_seeds <= settings.sparse_depth
        or span_f == q.SpanFilter(workspace=span_f.workspace)
        or index.span_count() < DEEPER_FROM
    ):
        return 0
    return settings.dense_seeds


def _deepened(
    store: PgStore,
    span_f: q.SpanFilter,
    dim: int,
    common: Mapping[str, Any],
    rows: list[LegRow],
    seeds: Seeds,
    deeper: Sequence[SpanKey],
) -> list[LegRow]:
    """``rows`` of a walk of the graph (already joined by the ``seeds``) mended by the spans of the keys ``deeper``:
    those that pass the filter and are nearer the question than the farthest row (read by key, with their cosines:
    ``common`` holds the question's vector and text, and the leg's depth) join the rows at their ranks, as
    :func:`_joined` has the seeds join. A walk with no rows is left as it is, and one short of its depth is never
    filled up with farther spans."""
    known = {r.key for r in rows} | set(_seed_keys(seeds))  # a key whose span fails the filter fails it here too
    keys = [key for key in dict.fromkeys(deeper) if key not in known]
    if not rows or not keys:
        return rows
    statement, params = q.keyed_nearer(span_f, dim)
    farthest = min(row_cosine(r) for r in rows)
    bound = {**params, **q.key_arrays(keys), "vector": common["vector"], "text": common["text"], "farthest": farthest}
    joining = store.run_leg(statement, bound)
    if not joining:
        return rows
    return sorted([*rows, *joining], key=lambda r: -row_cosine(r))[: int(common["limit"])]


def _missed(rows: Sequence[LegRow], cosines: Mapping[SpanKey, float]) -> bool:
    """A span of ``cosines`` (its key to its cosine to the question) is nearer the question than the
    :data:`RECHECK_RANK`-th nearest of ``rows`` (or than the farthest, when fewer) and not among them. The rows are
    ordered here: relaxed iterative scans may return them slightly out of order."""
    if not rows:
        return False
    mark = sorted((row_cosine(r) for r in rows), reverse=True)[min(RECHECK_RANK, len(rows)) - 1]
    held = {r.key for r in rows}
    return any(cosine > mark and key not in held for key, cosine in cosines.items())


def _capped_exact(
    store: PgStore,
    span_f: q.SpanFilter,
    dim: int,
    common: dict[str, Any],
    few: float,
    s: FusionSettings,
    word: str | None = None,
) -> tuple[list[LegRow], tuple[sql.Composed, dict[str, Any]]] | None:
    """Every span passing ``span_f`` ranked exactly, unless more than :data:`EXACT_SLACK` x ``few`` pass (then
    ``None``: the spans read are not all that pass). ``word``: a word of the filter's phrases by which the spans are
    found, the phrases tested on the nearest only (:func:`~kruschnexus.store.queries.word_first_exact_leg`); when
    that gives no answer (more than the cap hold the word, or none of those read holds the phrases), the spans
    holding the phrases are read as without it."""
    cap = _cap(few)
    if word is not None:
        statement, params = q.word_first_exact_leg(span_f, dim)
        hints = {
            "word_lower": f"%{like_escape(word)}%",
            "word_title": f"%{like_escape(word[:1].upper() + word[1:])}%",
            "word_pattern": phrase_pattern(word),
        }
        bound = {**params, **common, **hints, "cap": cap}
        rows = store.run_leg(statement, bound, s.ef_search, span_f.planned_for_values, work_mem=EXACT_WORK_MEM)
        if rows and (rows[0].passing or 0) <= cap:
            return rows, (statement, bound)
    statement, params = q.capped_exact_leg(span_f, dim)
    bound = {**params, **common, "cap": cap}
    rows = store.run_leg(statement, bound, s.ef_search, span_f.planned_for_values, work_mem=EXACT_WORK_MEM)
    if not rows or (rows[0].passing or 0) <= cap:
        return rows, (statement, bound)
    return None


#: The spans an exact ranking under quoted phrases reads when it finds them by a word (:func:`_word_first`): the
#: lexical index finds the phrases in at least this many. Below it, testing the phrases on every span that holds
#: them costs at most some 6 ms at 3 µs a span, which finding them by the word cannot save.
WORD_FIRST_FROM = 2_000

#: The letters a word must have to find a phrase's spans: the text's trigram index finds the spans holding a shorter
#: one among many more (at 10^5 spans, the trigrams of ``rate`` are held by some 50,000 spans, the word by 7,606).
WORD_FIRST_LETTERS = 5

#: At most this many times as many spans as hold the phrases may hold the word that finds them: each span read
#: costs about 3 µs found by the word (its row, the ``LIKE`` patterns, its distance), 6 µs tested against the phrases
#: (at 10^5 spans, ``"the borrower"``: docs/scaling.md), and the word's own index scans some 3 ms more.
WORD_FIRST_SHARE = 1.5


def _word_first(
    phrase_spans: Callable[[int], int | None] | None,
    phrase_words: Callable[[], Mapping[str, int]] | None,
    cap: int,
) -> str | None:
    """The word by which an exact ranking under phrases finds its spans (see
    :func:`~kruschnexus.store.queries.word_first_exact_leg`), or ``None`` (the spans holding the phrases are read):
    of the phrases' words of :data:`WORD_FIRST_LETTERS` or more, the one the fewest spans hold, when at most ``cap``
    do, at least :data:`WORD_FIRST_FROM` spans hold the phrases and at most :data:`WORD_FIRST_SHARE` times as many
    hold the word, as the lexical index counts them (whole words by their stems, where the text's patterns match
    inside longer words too: a guide, not a bound; the ranking is exact either way).

    The phrases are counted here, reading their words' postings (some 2 ms for ``"the borrower"`` at 10^5 spans, the
    postings of ``the``), only when their rarest word passes the other tests."""
    if phrase_words is None or phrase_spans is None:
        return None
    usable = [(holding, word) for word, holding in phrase_words().items() if len(word) >= WORD_FIRST_LETTERS]
    if not usable:
        return None
    holding, word = min(usable)
    if not WORD_FIRST_FROM <= holding <= cap:
        return None
    held = phrase_spans(0)
    if held is None or held < WORD_FIRST_FROM or WORD_FIRST_SHARE * held < holding:
        return None
    return word


def keyed_rows(store: PgStore, span_f: q.SpanFilter, text: str, ranked: list[LexicalHit]) -> list[LegRow]:
    """The lexical index's spans read from PostgreSQL (which re-applies every filter), in the index's order."""
    keys = [h.key for h in ranked]
    by_key = {r.key: r for r in rows_by_key(store, span_f, text, keys)}
    return [by_key[key] for key in keys if key in by_key]


def rows_by_key(store: PgStore, span_f: q.SpanFilter, text: str, keys: Sequence[SpanKey]) -> list[LegRow]:
    """The spans of ``keys`` that pass the filter, read by key (``text``: the question, for ``fulltext_match``), in
    no given order."""
    if not keys:
        return []
    sql_text, params = q.keyed_leg(span_f)
    unique = list(dict.fromkeys(keys))  # each once: the keys lead a join
    return store.run_leg(sql_text, {**params, **q.key_arrays(unique), "text": text})


def row_cosine(row: LegRow) -> float:
    """The cosine a dense-leg row carries."""
    if row.cosine is None:
        raise ValueError(f"a dense-leg row without a cosine: {row.key}")
    return float(row.cosine)
