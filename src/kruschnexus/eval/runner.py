"""``nexus eval``: ingest a corpus folder, run a labelled suite through each system, score every query.

Scoring (see :mod:`kruschnexus.eval.metrics` for the relevance rule):

* Recall@k and nDCG@k over answerable queries (``lookup`` and ``concept``);
* citation accuracy: the top hit cites the gold document, page, and the gold section or a sub-section of it;
* span precision: the top hit is relevant *and* its offsets and boxes re-prove against the original bytes;
* negatives abstained: hard negatives answered ``[]``; answerable abstained: answerable queries answered ``[]``;
* ECE over every returned hit that carries a confidence (10 bins; correct = relevant).

Each metric is kept as raw counts per group: ``overall``, ``family:<name>`` and ``kind:<name>``.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.embed.base import Embedder
from kruschnexus.errors import ConfigError
from kruschnexus.eval.metrics import Tally, citation_correct, ece, is_relevant, ndcg_at_k, recall_at_k
from kruschnexus.eval.suite import Split, Suite, SuiteQuery, load_suite
from kruschnexus.eval.systems import EvalHit, NexusSystem, System
from kruschnexus.ingest import FileResult

#: Metrics in report order: key -> column title.
METRICS = {
    "recall": "Recall@5",
    "ndcg": "nDCG@5",
    "citation": "citation acc.",
    "span_precision": "span prec.",
    "negatives_abstained": "negatives []",
    "answerable_abstained": "answerable []",
}


@dataclass(frozen=True)
class QueryOutcome:
    """One query's hits under one system, with each hit's relevance."""

    query: SuiteQuery
    hits: tuple[EvalHit, ...]
    relevance: tuple[bool, ...]

    @classmethod
    def of(cls, query: SuiteQuery, hits: Sequence[EvalHit]) -> QueryOutcome:
        """Score each hit by the relevance rule."""
        return cls(query, tuple(hits), tuple(is_relevant(h.source, h.page, h.text, query) for h in hits))

    def to_json(self) -> dict[str, Any]:
        """The query id, whether it abstained, and its top hit with relevance (for scripts)."""
        top = self.hits[0] if self.hits else None
        return {
            "id": self.query.id,
            "kind": self.query.kind,
            "hits": len(self.hits),
            "first_relevant_rank": next((i + 1 for i, r in enumerate(self.relevance) if r), None),
            "top": None
            if top is None
            else {
                "source": top.source,
                "page": top.page,
                "section": top.section,
                "confidence": top.confidence,
                "relevant": self.relevance[0],
                "proved": top.proved,
            },
        }


@dataclass
class GroupScore:
    """Raw counts of every metric over one group of queries."""

    recall: Tally = field(default_factory=Tally)
    ndcg: Tally = field(default_factory=Tally)
    citation: Tally = field(default_factory=Tally)
    span_precision: Tally = field(default_factory=Tally)
    negatives_abstained: Tally = field(default_factory=Tally)
    answerable_abstained: Tally = field(default_factory=Tally)
    confidences: list[float] = field(default_factory=list)
    correct: list[bool] = field(default_factory=list)

    def add(self, outcome: QueryOutcome, k: int) -> None:
        """Count one query."""
        hits, relevance, query = outcome.hits, outcome.relevance, outcome.query
        if query.is_negative:
            self.negatives_abstained += Tally.of([not hits])
        else:
            self.recall += Tally.of([recall_at_k(relevance, k)])
            self.ndcg += Tally.of([ndcg_at_k(relevance, k)])
            top = hits[0] if hits else None
            cited = top is not None and citation_correct(top.source, top.page, top.section, query)
            self.citation += Tally.of([cited])
            self.span_precision += Tally.of([top is not None and relevance[0] and top.proved])
            self.answerable_abstained += Tally.of([not hits])
        for hit, relevant in zip(hits, relevance, strict=True):
            if hit.confidence is not None:
                self.confidences.append(hit.confidence)
                self.correct.append(relevant)

    @property
    def ece(self) -> float | None:
        """Expected calibration error over the returned hits with a confidence, or ``None`` without any."""
        return ece(self.confidences, self.correct) if self.confidences else None

    def to_json(self) -> dict[str, Any]:
        """Each metric as ``{"value", "numerator", "denominator"}``, plus ECE and its hit count."""
        out: dict[str, Any] = {}
        for key in METRICS:
            tally: Tally = getattr(self, key)
            out[key] = {"value": tally.value, "numerator": tally.numerator, "denominator": tally.denominator}
        out["ece"] = {"value": self.ece, "hits": len(self.confidences)}
        return out


def score(outcomes: Iterable[QueryOutcome], k: int = 5) -> dict[str, GroupScore]:
    """Scores per group: ``overall``, then ``kind:*`` and ``family:*`` in order of first appearance."""
    groups: dict[str, GroupScore] = {"overall": GroupScore()}
    for outcome in outcomes:
        q = outcome.query
        for name in ("overall", f"kind:{q.kind}", f"family:{q.family}"):
            groups.setdefault(name, GroupScore()).add(outcome, k)
    return groups


def run_suite(
    system: System, suite: Suite, k: int = 5, tick: Callable[[SuiteQuery], None] | None = None
) -> list[QueryOutcome]:
    """Every query of the suite through one system."""
    outcomes = []
    for query in suite.queries:
        outcomes.append(QueryOutcome.of(query, system.search(query.query, k)))
        if tick is not None:
            tick(query)
    return outcomes


def corpus_files(suite: Suite, corpus: Path, all_files: bool = False) -> list[Path]:
    """The files of ``corpus`` to ingest: every file with a suffix the suite's documents have (or every file).

    Raises:
        ConfigError: a document the suite names is not in ``corpus``.
    """
    named = {q.doc for q in suite.queries if q.doc is not None}
    missing = sorted(d for d in named if not (corpus / d).is_file())
    if missing:
        raise ConfigError(f"{corpus}: the suite names files that are not there: {', '.join(missing[:5])}")
    suffixes = {Path(d).suffix.lower() for d in named}
    files = sorted(p for p in corpus.rglob("*") if p.is_file() and not p.name.startswith("."))
    return [p for p in files if all_files or p.suffix.lower() in suffixes]


def workspace_for(corpus: Path) -> str:
    """A workspace of its own for one corpus folder, so evaluation never touches a user's workspace and a rerun
    reuses the earlier ingest (unchanged bytes are skipped)."""
    return "eval-" + hashlib.sha256(str(corpus.resolve()).encode()).hexdigest()[:12]


@dataclass
class EvalReport:
    """Everything ``nexus eval`` prints."""

    suite: Path
    corpus: Path
    workspace: str
    k: int
    ingest: dict[str, int]
    scores: dict[str, dict[str, GroupScore]] = field(default_factory=dict)
    outcomes: dict[str, list[QueryOutcome]] = field(default_factory=dict)
    #: The split that was run (``dev`` or ``test``), or ``None`` for the whole suite.
    split: Split | None = None

    @property
    def split_name(self) -> str:
        """``dev``, ``test`` or ``all``."""
        return self.split or "all"

    def to_json(self) -> dict[str, Any]:
        """The report as one JSON object."""
        return {
            "suite": str(self.suite),
            "split": self.split_name,
            "corpus": str(self.corpus),
            "workspace": self.workspace,
            "k": self.k,
            "ingest": self.ingest,
            "systems": {
                name: {group: gs.to_json() for group, gs in groups.items()} for name, groups in self.scores.items()
            },
            "queries": {name: [o.to_json() for o in outs] for name, outs in self.outcomes.items()},
        }


#: Systems ``nexus eval`` knows, in report order. ``nexus`` is always run; the others are baselines.
SYSTEMS = ("nexus", "langchain", "fulltext", "dense")


class EvalProgress(Protocol):
    """Receives progress while an evaluation runs."""

    def stage(self, name: str, total: int) -> None:
        """A stage (ingest, a system's queries, building a baseline) starts with ``total`` steps."""

    def step(self) -> None:
        """One step of the current stage is done."""


def evaluate(
    suite_path: Path,
    corpus_dir: Path,
    settings: Settings,
    systems: Sequence[str] = SYSTEMS,
    workspace: str | None = None,
    k: int = 5,
    all_files: bool = False,
    embedder: Embedder | None = None,
    progress: EvalProgress | None = None,
    split: Split | None = None,
) -> EvalReport:
    """Ingest ``corpus_dir`` (see :func:`corpus_files`) into its own workspace and score every system.

    ``split`` (``dev`` or ``test``) runs only that split's queries; the corpus ingested is the same either way
    (chosen from the whole suite), so every split is scored against the same workspace.

    Raises:
        ConfigError: unknown system, a missing optional extra, a suite that cannot be read (or has no query in
            ``split``), or a missing corpus folder or document.
    """
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        raise ConfigError(f"unknown system(s) {', '.join(unknown)}; choose from {', '.join(SYSTEMS)}")
    if not corpus_dir.is_dir():
        raise ConfigError(f"{corpus_dir}: no such folder")
    whole = load_suite(suite_path)
    files = corpus_files(whole, corpus_dir, all_files)
    suite = whole.select(split)
    name = workspace or workspace_for(corpus_dir)
    with Corpus(workspace=name, settings=settings, embedder=embedder) as corpus:
        if progress is not None:
            progress.stage("ingest", len(files))
        results = corpus.ingest(files, progress=_IngestTicks(progress))
        counts = Counter(r.status for r in results)
        report = EvalReport(suite_path, corpus_dir, name, k, dict(counts), split=split)
        for system_name in ("nexus", *[s for s in systems if s != "nexus"]):
            system = _system(system_name, corpus, files, progress)
            if progress is not None:
                progress.stage(f"queries: {system_name}", len(suite.queries))
            tick = (lambda _q: progress.step()) if progress is not None else None
            outcomes = run_suite(system, suite, k, tick)
            report.outcomes[system_name] = outcomes
            report.scores[system_name] = score(outcomes, k)
    return report


def _system(name: str, corpus: Corpus, files: Sequence[Path], progress: EvalProgress | None) -> System:
    if name == "nexus":
        return NexusSystem(corpus)
    if name == "dense":
        return NexusSystem(corpus, "dense", legs=("dense",))
    if name == "fulltext":
        return NexusSystem(corpus, "fulltext", legs=("sparse",))
    try:
        from kruschnexus.eval.baseline_langchain import LangChainSystem
    except ImportError as exc:
        raise ConfigError(
            f"the langchain baseline needs the 'eval' extra (pip install 'kruschnexus[eval]'): {exc}"
        ) from exc
    return LangChainSystem.for_corpus(corpus, files)


class _IngestTicks:
    """Adapts ingest progress to one tick per finished file."""

    def __init__(self, progress: EvalProgress | None) -> None:
        self._progress = progress

    def file_started(self, path: Path, pages: int) -> None:
        return None

    def page_done(self, path: Path) -> None:
        return None

    def file_done(self, result: FileResult) -> None:
        if self._progress is not None:
            self._progress.step()
