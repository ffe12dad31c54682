"""Versions of one document compared: where an old hit's words are now (:func:`resolve`), and what changed section
by section (:func:`diff`). Both read only stored pages and spans, so every place they give is a stored span of the
version it names, re-provable like any other (``nexus verify``)."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kruschnexus.chunk.grammar import strip_leading_id, strip_refs
from kruschnexus.errors import NotFoundError, QueryError
from kruschnexus.schema.v1 import DocumentDiff, Hit, Resolution, SectionChange
from kruschnexus.store.postgres import PgStore
from kruschnexus.store.records import HitRow, PageTextRow
from kruschnexus.wire import hit_from_row

#: A section whose heading title is gone still "changed" (rather than was removed) when a section of the same id
#: in the latest version reads at least this much like it (``difflib`` ratio of the folded texts).
SAME_ID_LIKENESS = 0.6
#: A passage with neither heading nor section (a table row, an unheaded paragraph) "changed" into the latest
#: version's most alike passage when their words are at least this much alike (``difflib`` ratio of the word
#: sequences: a row of three cells whose last one changed is 0.75 alike, another row of the same columns about 0.5);
#: below it, it was removed.
UNHEADED_LIKENESS = 0.7
_PUNCTUATION = " \t\n.:;,-–—()"


@dataclass(frozen=True)
class OldHit:
    """What :func:`resolve` needs of an old hit: its version, its place, and (when known) its words and name."""

    doc_id: str
    page_number: int | None
    locator: dict[str, Any] | None
    char_start: int
    char_end: int
    text: str | None = None
    document: str | None = None

    @classmethod
    def parse(cls, value: Hit | Mapping[str, Any] | str) -> OldHit:
        """From a hit (any 1.x, as an object or its JSON) or a hit id (``{doc_id}:{page or locator}:{start}-{end}``).

        Raises:
            QueryError: the value is neither.
        """
        if isinstance(value, Hit):
            value = value.model_dump(mode="json")
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("{"):
                return cls.parse(_json_object(text))
            return cls._from_id(text)
        try:
            return cls(
                doc_id=str(value["doc_id"]),
                page_number=None if value.get("page_number") is None else int(value["page_number"]),
                locator=value.get("locator"),
                char_start=int(value["char_start"]),
                char_end=int(value["char_end"]),
                text=None if value.get("text") is None else str(value["text"]),
                document=value.get("document") or None,
            )
        except (KeyError, TypeError, ValueError) as exc:
            needs = "needs doc_id, char_start, char_end and a page or locator"
            raise QueryError(f"not a hit: {exc!r} ({needs})", 0) from exc

    @classmethod
    def _from_id(cls, text: str) -> OldHit:
        m = re.fullmatch(r"([0-9a-f]{64}):(.+):(\d+)-(\d+)", text)
        if m is None:
            raise QueryError("not a hit id ({doc_id}:{page or locator}:{start}-{end}) nor a hit's JSON", 0)
        where = m.group(2)
        locator = _json_object(where) if where.startswith("{") else None
        page = int(where) if where.isdigit() else None
        if page is None and locator is None:
            raise QueryError(f"not a page number or locator in the hit id: {where!r}", 0)
        return cls(m.group(1), page, locator, int(m.group(3)), int(m.group(4)))


def resolve(store: PgStore, workspace: str, old: OldHit) -> Resolution:
    """Where ``old``'s words are in the latest version of its document (see :class:`Resolution`).

    Raises:
        NotFoundError: the hit's document is not in the workspace (by its version, or by the name it carries).
    """
    name, from_version, old_rows = _old_version(store, workspace, old)
    latest = next((r for r in store.versions(workspace, name) if r.latest), None)
    if latest is None:
        raise NotFoundError(f"no version of {name!r} is left in workspace {workspace!r}")
    old_span = _span_at(old_rows, old)
    words = old.text if old.text is not None else (old_span.text if old_span is not None else None)
    if words is None:
        raise NotFoundError("the hit carries no text and its version is no longer stored: nothing to look for")
    latest_id, to_version = latest.doc_id, latest.version
    base = {"document": name, "from_version": from_version, "to_version": to_version, "text": words}
    rows = store.document_hits(workspace, latest_id)
    header = old_span.header if old_span is not None else ""
    pages = store.pages(workspace, latest_id)
    # The unit number of an unpaged hit is its stored span's page_number.
    near = old.page_number if old.page_number is not None or old_span is None else old_span.page_number
    found = _find_words(pages, words, near, old.char_start)
    body = _without_heading(words, header)
    renumbered = (
        found is None and body != words and (found := _find_words(pages, body, near, old.char_start)) is not None
    )
    if found is not None:
        page, start, end = found
        holding = [r for r in rows if r.page_number == page and r.char_start < end and r.char_end > start]
        status = "current" if latest_id == old.doc_id else "moved"
        where = f"p.{page}" if holding and holding[0].paged else "its unit"
        what = "the words under its heading" if renumbered else "the same words"
        return Resolution(
            **base,
            status=status,
            page_number=page if holding and holding[0].paged else None,
            char_start=start,
            char_end=end,
            hits=[hit_from_row(r) for r in holding],
            reason=f"{what} are in version {to_version}, {where}, offsets {start}-{end}"
            + (f" (the heading {header!r} reads otherwise now)" if renumbered else ""),
        )
    section = old_span.section if old_span is not None else None
    now = _section_now(rows, header, section, words)
    if now:
        title = heading_title(header) or section
        where = f"section {title!r} is in version {to_version} with" if title else f"version {to_version} has"
        return Resolution(
            **base,
            status="changed",
            page_number=None,
            char_start=None,
            char_end=None,
            hits=[hit_from_row(r) for r in now],
            reason=f"the words changed; {where} the text of these hits"
            + ("" if title else f" (the passage most like them, {UNHEADED_LIKENESS:.0%} alike or more)"),
        )
    return Resolution(
        **base,
        status="removed",
        page_number=None,
        char_start=None,
        char_end=None,
        hits=[],
        reason=f"neither the words nor their section ({heading_title(header) or section or 'none'}) are in version"
        f" {to_version}",
    )


def diff(store: PgStore, workspace: str, name: str, from_version: int | None, to_version: int | None) -> DocumentDiff:
    """The sections of two versions of ``name`` compared (default: the one before the latest, and the latest).
    Sections are matched by their heading's title (its words without the number), so a renumbered one is
    ``renumbered``, not removed and added.

    Raises:
        NotFoundError: no such document or version.
        QueryError: the document has one version and none was asked for, or the versions are the same.
    """
    versions = {r.version: r for r in store.versions(workspace, name)}
    if not versions:
        raise NotFoundError(f"no document named {name!r} in workspace {workspace!r}")
    newest = max(v for v, r in versions.items() if r.latest) if any(r.latest for r in versions.values()) else 0
    to_v = to_version if to_version is not None else newest
    from_v = from_version if from_version is not None else max((v for v in versions if v < to_v), default=0)
    for v in (from_v, to_v):
        if v not in versions:
            known = ", ".join(str(k) for k in sorted(versions))
            raise NotFoundError(f"{name!r} has no version {v} (it has {known})")
    if from_v == to_v:
        raise QueryError(f"versions {from_v} and {to_v} are the same: give two different versions", 0)
    old = _sections(store.document_hits(workspace, versions[from_v].doc_id))
    new = _sections(store.document_hits(workspace, versions[to_v].doc_id))
    return DocumentDiff(document=name, from_version=from_v, to_version=to_v, sections=_compare(old, new))


def heading_title(header: str) -> str:
    """A heading's words without its section number (``Section 4. Rent`` -> ``rent``), folded for comparing."""
    text = strip_refs(header)
    text = strip_leading_id(text.strip(_PUNCTUATION))
    return " ".join(text.strip(_PUNCTUATION).split()).casefold()


@dataclass
class _Section:
    title: str
    section: str | None
    header: str
    pages: list[int]
    texts: list[str]

    @property
    def body(self) -> str:
        """The section's text without its heading line, white space folded."""
        text = " ".join(" ".join(self.texts).split())
        header = " ".join(self.header.split())
        return text[len(header) :].strip() if header and text.startswith(header) else text


def _sections(rows: Sequence[HitRow]) -> dict[tuple[str, int], _Section]:
    """A version's spans grouped into sections in reading order, keyed by (title, occurrence of that title)."""
    out: dict[tuple[str, int], _Section] = {}
    current: _Section | None = None
    seen: dict[str, int] = {}
    for row in rows:
        header, section = row.header, row.section
        if current is None or (header, section) != (current.header, current.section):
            title = heading_title(header) or str(section or "")
            count = seen.get(title, 0)
            seen[title] = count + 1
            current = _Section(title, section, header, [], [])
            out[(title, count)] = current
        page = row.page_number
        if page not in current.pages:
            current.pages.append(page)
        current.texts.append(row.text)
    return out


def _compare(old: dict[tuple[str, int], _Section], new: dict[tuple[str, int], _Section]) -> list[SectionChange]:
    changes: list[SectionChange] = []
    removed = [key for key in old if key not in new]
    for key, now in new.items():
        before = old.get(key)
        # Removed sections go where they stood: before the first newer section that followed them.
        while removed and before is not None and list(old).index(removed[0]) < list(old).index(key):
            changes.append(_change("removed", old[removed.pop(0)], None))
        if before is None:
            changes.append(_change("added", None, now))
            continue
        renumbered = before.section != now.section
        changed = before.body != now.body and _without_ids(before.body) != _without_ids(now.body)
        kind = "+".join(k for k, on in (("renumbered", renumbered), ("changed", changed)) if on) or "unchanged"
        changes.append(_change(kind, before, now))
    changes.extend(_change("removed", old[key], None) for key in removed)
    return changes


def _change(kind: str, before: _Section | None, now: _Section | None) -> SectionChange:
    either = now or before
    assert either is not None
    return SectionChange(
        change=kind,
        title=(heading_title(either.header) if either.header else "") or either.title,
        from_section=before.section if before else None,
        to_section=now.section if now else None,
        from_pages=before.pages if before else [],
        to_pages=now.pages if now else [],
        from_text=before.body if before else None,
        to_text=now.body if now else None,
    )


def _without_heading(words: str, header: str) -> str:
    """A span's words without the heading line it opens with (a renumbered section's heading reads otherwise)."""
    folded = " ".join(header.split())
    if not folded or not words.lstrip().startswith(header.strip()):
        return words
    return words.lstrip()[len(header.strip()) :].strip() or words


def _without_ids(text: str) -> str:
    """Text with its section references left out (a renumbered cross-reference is not a change of words)."""
    return " ".join(strip_refs(text).split())


def _old_version(store: PgStore, workspace: str, old: OldHit) -> tuple[str, int, list[HitRow]]:
    """The old hit's document name, version number and (when that version is still stored) its spans."""
    stored = store.stored(workspace, old.doc_id)
    if stored is not None:
        return stored.name, stored.version, store.document_hits(workspace, old.doc_id)
    if old.document and store.versions(workspace, old.document):
        return old.document, 0, []
    raise NotFoundError(
        f"the hit's document version {old.doc_id[:12]} is not in workspace {workspace!r}"
        + ("" if old.document else " and the hit names no document (a 1.0 hit): nothing to resolve it against")
    )


def _span_at(rows: Sequence[HitRow], old: OldHit) -> HitRow | None:
    """The stored span of the old version at the hit's place (offsets on its page or unit)."""
    for row in rows:
        same_place = (row.page_number == old.page_number if row.paged else (row.locator or None) == old.locator) or (
            old.page_number is None and old.locator is None
        )
        if same_place and (row.char_start, row.char_end) == (old.char_start, old.char_end):
            return row
    return None


def _find_words(pages: Sequence[PageTextRow], words: str, near: int | None, offset: int) -> tuple[int, int, int] | None:
    """``(page, start, end)`` of ``words`` in the pages' text: exactly, else with any white space between the
    words; of several places, the one nearest page ``near``, then offset ``offset``."""
    tokens = words.split()
    if not tokens:
        return None
    loose = re.compile(r"\s+".join(re.escape(t) for t in tokens))
    places: list[tuple[int, int, int]] = []
    for exact in (True, False):
        for page in pages:
            text, number = page.text, page.page_number
            if exact:
                places += [(number, m.start(), m.start() + len(words)) for m in re.finditer(re.escape(words), text)]
            else:
                places += [(number, m.start(), m.end()) for m in loose.finditer(text)]
        if places:
            break
    if not places:
        return None

    def distance(place: tuple[int, int, int]) -> tuple[int, int, int, int]:
        page, start, _ = place
        return (abs(page - near) if near is not None else 0, abs(start - offset), page, start)

    return min(places, key=distance)


def _section_now(rows: Sequence[HitRow], header: str, section: str | None, words: str) -> list[HitRow]:
    """The latest version's spans of the old span's section: by its heading's title, else by its id when they read
    alike (:data:`SAME_ID_LIKENESS`); for a passage with neither, the most alike one (:data:`UNHEADED_LIKENESS`)."""
    title = heading_title(header)
    if title:
        same_title = [r for r in rows if heading_title(r.header) == title]
        if same_title:
            return _first_run(same_title, rows)
    if section is None:
        return [] if title else _most_alike(rows, words)
    same_id = [r for r in rows if r.section == section]
    text = " ".join(r.text for r in same_id)
    return _first_run(same_id, rows) if same_id and _likeness(words, text) >= SAME_ID_LIKENESS else []


def _likeness(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, " ".join(a.split()), " ".join(b.split()), autojunk=False).ratio()


def _most_alike(rows: Sequence[HitRow], words: str) -> list[HitRow]:
    """The one unheaded span of ``rows`` most like ``words`` word for word, if alike enough
    (:data:`UNHEADED_LIKENESS`): a table row whose status changed, not another row of the same columns."""
    best: tuple[float, HitRow] | None = None
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(words.casefold().split())
    for row in rows:
        if row.section is not None or heading_title(row.header):
            continue
        matcher.set_seq1(row.text.casefold().split())
        if matcher.real_quick_ratio() < UNHEADED_LIKENESS or matcher.quick_ratio() < UNHEADED_LIKENESS:
            continue
        likeness = matcher.ratio()
        if likeness >= UNHEADED_LIKENESS and (best is None or likeness > best[0]):
            best = (likeness, row)
    return [] if best is None else [best[1]]


def _first_run(matching: list[HitRow], rows: Sequence[HitRow]) -> list[HitRow]:
    """The first consecutive run of ``matching`` in reading order (one section, not a later one of the same name)."""
    keys = {(r.page_number, r.ordinal) for r in matching}
    run: list[HitRow] = []
    for row in rows:
        if (row.page_number, row.ordinal) in keys:
            run.append(row)
        elif run:
            break
    return run


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise QueryError(f"not valid JSON: {exc.msg}", exc.pos) from exc
    if not isinstance(value, dict):
        raise QueryError("a hit is a JSON object", 0)
    return value
