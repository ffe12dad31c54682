"""Evaluation suites: a typed loader for the JSONL format of DESIGN.md ("Evaluation suite format").

One JSON object per line, with these keys (``null`` where a value does not apply), and no others::

    {"id", "family", "query", "doc", "page", "section", "gold_text", "kind", "split"}

``split`` is optional (absent means ``null``); every other key is required.

- ``kind`` is ``lookup`` (a section reference), ``concept`` (a paraphrased question) or ``hard_negative``
  (nothing in the corpus answers it: the right answer is ``[]``).
- ``doc`` is the document's path relative to the suite's corpus folder (POSIX separators, no ``..``);
  ``page`` is the 1-based *physical* page (pdfium index + 1, not the printed label); ``gold_text`` is a short
  verbatim excerpt of that page that answers the query; ``section`` is the normalized id of the section the
  gold text sits in (``8.22.030(C)``, ``Article IX``), or ``null`` when the document has no numbering there.
- A ``hard_negative`` has ``page``, ``section`` and ``gold_text`` null; ``doc`` may name the document the
  negative is about (``Section 8.22.999`` of one code), else it is null too.
- ``split`` is ``dev`` (weights and the floor are fitted on it) or ``test`` (reported on, never fitted on), or
  ``null`` for a suite that is not split. :meth:`Suite.select` keeps one split.

Blank lines are skipped (they still count for line numbers). Every problem raises :class:`SuiteError`,
which names the file, the 1-based line number and the field.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kruschnexus.errors import ConfigError

Kind = Literal["lookup", "concept", "hard_negative"]
Split = Literal["dev", "test"]

#: Every kind, in the order reports list them.
KINDS: tuple[Kind, ...] = ("concept", "lookup", "hard_negative")

#: Every split, in the order reports list them.
SPLITS: tuple[Split, ...] = ("dev", "test")

_KIND_ORDER: dict[str, int] = {kind: n for n, kind in enumerate(KINDS)}


class SuiteError(ConfigError):
    """A suite file is malformed.

    Attributes:
        path: the suite file.
        line: 1-based line number of the offending record (``None`` for file-level problems).
        field: the offending key, if one is to blame.
        reason: a one-line explanation.
    """

    def __init__(self, path: Path | str, reason: str, line: int | None = None, field: str | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.reason = reason
        where = self.path if line is None else f"{self.path}:{line}"
        what = f"field {field!r}: {reason}" if field else reason
        super().__init__(f"{where}: {what}")


class SuiteQuery(BaseModel):
    """One labelled query (see the module docstring for the meaning of each field)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: str = Field(min_length=1)
    family: str = Field(min_length=1)
    query: str = Field(min_length=1)
    doc: str | None
    page: int | None = Field(ge=1)
    section: str | None = Field(min_length=1)
    gold_text: str | None = Field(min_length=1)
    kind: Kind
    split: Split | None = None

    @property
    def is_negative(self) -> bool:
        """The right answer to this query is no hit at all."""
        return self.kind == "hard_negative"


@dataclass(frozen=True)
class Suite:
    """A loaded suite: the file it came from and its queries in file order."""

    path: Path
    queries: tuple[SuiteQuery, ...]

    def kind_counts(self) -> dict[str, int]:
        """Number of queries of each kind (every kind present, in :data:`KINDS` order)."""
        counts = Counter(q.kind for q in self.queries)
        return {kind: counts[kind] for kind in KINDS}

    def family_counts(self) -> dict[str, int]:
        """Number of queries per family, most frequent first (ties by name)."""
        counts = Counter(q.family for q in self.queries)
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    def split_counts(self) -> dict[str, int]:
        """Number of queries per split (``dev``, ``test``, then ``none`` for records without a split, if any)."""
        counts: Counter[str] = Counter(q.split or "none" for q in self.queries)
        names = [*SPLITS, *(["none"] if counts["none"] else [])]
        return {name: counts[name] for name in names}

    def family_kind_counts(self) -> dict[tuple[str, str], int]:
        """Number of queries per (family, kind), families by name, kinds in :data:`KINDS` order."""
        counts = Counter((q.family, q.kind) for q in self.queries)
        return dict(sorted(counts.items(), key=lambda item: (item[0][0], _KIND_ORDER[item[0][1]])))

    def select(self, split: Split | None) -> Suite:
        """The queries of one split, in file order (``None``: the whole suite, unchanged).

        Raises:
            SuiteError: no query of the suite is in that split.
        """
        if split is None:
            return self
        queries = tuple(q for q in self.queries if q.split == split)
        if not queries:
            raise SuiteError(self.path, f"no query is in the {split!r} split")
        return Suite(path=self.path, queries=queries)

    @property
    def positives(self) -> tuple[SuiteQuery, ...]:
        """The queries that have a gold passage (every kind but ``hard_negative``)."""
        return tuple(q for q in self.queries if not q.is_negative)


def load_suite(path: Path | str) -> Suite:
    """Read and validate a JSONL suite; raises :class:`SuiteError` on the first problem found."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(path, f"cannot read the suite: {exc}") from exc
    queries = tuple(_parse_lines(path, lines))
    if not queries:
        raise SuiteError(path, "the suite holds no queries")
    return Suite(path=path, queries=queries)


def parse_record(text: str, path: Path | str = "<suite>", line: int = 1) -> SuiteQuery:
    """Validate one JSONL record (types, then the rules that depend on ``kind``)."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SuiteError(path, f"not valid JSON ({exc.msg} at column {exc.colno})", line) from exc
    if not isinstance(raw, dict):
        raise SuiteError(path, f"expected a JSON object, got {type(raw).__name__}", line)
    try:
        query = SuiteQuery.model_validate(raw)
    except ValidationError as exc:
        field, reason = _first_problem(exc)
        raise SuiteError(path, reason, line, field) from exc
    problem = _kind_problem(query)
    if problem is not None:
        raise SuiteError(path, problem[1], line, problem[0])
    return query


def _parse_lines(path: Path, lines: Iterable[str]) -> Iterable[SuiteQuery]:
    first_line: dict[str, int] = {}
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        query = parse_record(text, path, number)
        if query.id in first_line:
            reason = f"duplicate id {query.id!r} (first used on line {first_line[query.id]})"
            raise SuiteError(path, reason, number, "id")
        first_line[query.id] = number
        yield query


def _first_problem(exc: ValidationError) -> tuple[str | None, str]:
    error = exc.errors()[0]
    field = str(error["loc"][0]) if error["loc"] else None
    if error["type"] == "missing":
        return field, "missing (use null where it does not apply)"
    if error["type"] == "extra_forbidden":
        return field, "unknown field"
    return field, f"{error['msg']} (got {error['input']!r})"


def _kind_problem(query: SuiteQuery) -> tuple[str, str] | None:
    """The (field, reason) that breaks the rules for this query's kind, if any."""
    if query.doc is not None:
        doc = PurePosixPath(query.doc)
        if "\\" in query.doc or doc.is_absolute() or ".." in doc.parts or not doc.name:
            return "doc", f"must be a relative POSIX path inside the corpus folder (got {query.doc!r})"
    if query.is_negative:
        for name in ("page", "section", "gold_text"):
            if getattr(query, name) is not None:
                return name, "must be null for a hard_negative"
        return None
    for name in ("doc", "page", "gold_text"):
        if getattr(query, name) is None:
            return name, f"is required for a {query.kind} query"
    if query.gold_text is not None and not query.gold_text.strip():
        return "gold_text", "is blank"
    return None
