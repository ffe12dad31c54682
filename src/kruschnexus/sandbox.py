"""Which files a server may read: every path a client names is checked against ``NEXUS_INGEST_ROOTS`` first.

A path is accepted when, after ``~`` expansion and full resolution (symbolic links and ``..`` resolved by
the operating system, the file must exist), it lies inside one of the resolved roots and is a regular file or
a folder. A relative path is taken relative to the roots (the first root under which it exists), never to the
server's working directory. A folder is expanded into its regular files, each re-checked the same way: a
symbolic link inside the folder that leads out of the roots is refused, links to folders are not descended
and hidden names (starting with ``.``) are left out, as ``nexus ingest`` leaves them out.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kruschnexus.errors import ConfigError

#: Longest path accepted, in characters (Linux ``PATH_MAX``).
MAX_PATH_CHARS = 4096
#: Longest single path component accepted, in characters (Linux ``NAME_MAX``).
MAX_NAME_CHARS = 255

_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFLNK: "a symbolic link",
}


@dataclass(frozen=True)
class Refusal:
    """A path that may not be read, and why (one line)."""

    path: str
    reason: str


@dataclass(frozen=True)
class IngestPlan:
    """The outcome of checking the paths of one ingest request.

    Attributes:
        files: resolved regular files to read, in request order (folders expanded, sorted within a folder).
        refused: every path of the request that failed a check, with the reason; nothing should be read when it is
            not empty (the client named it: a mistake or an attempt to read outside the roots).
        skipped: entries found while walking a folder that failed a check (a stray link out of the roots, a FIFO,
            a folder that cannot be listed): not read, reported, and the rest of the folder is read.
    """

    files: list[Path] = field(default_factory=list)
    #: Each file's document name, as ``nexus ingest`` names it: its path relative to the folder named, or its name.
    names: list[str] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    skipped: list[Refusal] = field(default_factory=list)


class _Refused(Exception):
    """Internal: one check failed (turned into :class:`ConfigError` or a :class:`Refusal` by the callers)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def resolve_ingest_path(raw: str, roots: Sequence[Path]) -> Path:
    """The resolved path of ``raw`` when a server may read it: a regular file or a folder inside one root.

    Args:
        raw: the path as the client gave it (``~`` expanded; relative paths are relative to the roots).
        roots: the allowed folders (``settings.ingest_roots``).

    Raises:
        ConfigError: the path is refused; the message names the path and the reason.
    """
    try:
        return _resolve(raw, _resolved_roots(roots))
    except _Refused as exc:
        raise ConfigError(f"refused {raw!r}: {exc.reason}") from None


def plan_ingest(raws: Sequence[str], roots: Sequence[Path]) -> IngestPlan:
    """Check every path of one ingest request and expand folders into their regular files (each re-checked).

    Refusals are collected rather than raised, so a client learns about every bad path at once.
    """
    resolved_roots = _resolved_roots_or_refuse(raws, roots)
    if isinstance(resolved_roots, IngestPlan):
        return resolved_roots
    plan = IngestPlan()
    for raw in raws:
        try:
            path = _resolve(raw, resolved_roots)
        except _Refused as exc:
            plan.refused.append(Refusal(raw, exc.reason))
            continue
        if path.is_dir():
            _walk_into(plan, path, resolved_roots)
        else:
            plan.files.append(path)
            plan.names.append(path.name)
    return plan


def _resolved_roots_or_refuse(raws: Sequence[str], roots: Sequence[Path]) -> list[Path] | IngestPlan:
    try:
        return _resolved_roots(roots)
    except _Refused as exc:
        return IngestPlan(refused=[Refusal(raw, exc.reason) for raw in raws])


def _resolved_roots(roots: Sequence[Path]) -> list[Path]:
    if not roots:
        raise _Refused("no ingest roots are configured: set NEXUS_INGEST_ROOTS to the folders a server may read")
    return [Path(root).expanduser().resolve() for root in roots]


def _resolve(raw: str, roots: Sequence[Path]) -> Path:
    _check_text(raw)
    try:
        expanded = Path(raw).expanduser()
    except RuntimeError as exc:
        raise _Refused(f"cannot expand '~' ({exc})") from None
    candidates = [expanded] if expanded.is_absolute() else [root / expanded for root in roots]
    path = _resolve_first(raw, candidates, roots)
    _check_inside(raw, path, roots)
    _check_kind(path)
    return path


def _check_text(raw: str) -> None:
    if not raw:
        raise _Refused("the path is empty")
    if "\x00" in raw:
        raise _Refused("the path contains a NUL byte")
    if len(raw) > MAX_PATH_CHARS:
        raise _Refused(f"the path is longer than {MAX_PATH_CHARS} characters")
    if any(len(part) > MAX_NAME_CHARS for part in raw.replace(os.sep, "/").split("/")):
        raise _Refused(f"a name in the path is longer than {MAX_NAME_CHARS} characters")
    try:
        os.fsencode(raw)
    except UnicodeError:
        raise _Refused("the path is not a valid file name (unencodable characters)") from None


def _resolve_first(raw: str, candidates: Sequence[Path], roots: Sequence[Path]) -> Path:
    """The first candidate that resolves; a path that does not resolve is reported as outside the roots when it
    lies outside them (so refusals never reveal whether a file outside the roots exists)."""
    failure = ""
    for candidate in candidates:
        try:
            return candidate.resolve(strict=True)
        except (OSError, RuntimeError, ValueError) as exc:
            failure = _why_unresolved(exc)
            loose = _loose(candidate)
            if loose is not None and not _inside(loose, roots):
                raise _Refused(_outside_reason(raw, loose, roots)) from None
    where = "" if Path(raw).expanduser().is_absolute() else " under any ingest root"
    raise _Refused(f"{failure}{where}")


def _why_unresolved(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file or folder"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, RuntimeError):
        return "symbolic link loop"
    if isinstance(exc, OSError):
        return f"cannot be resolved ({exc.strerror or exc})"
    return f"cannot be resolved ({exc})"


def _loose(candidate: Path) -> Path | None:
    try:
        return candidate.resolve(strict=False)
    except (OSError, RuntimeError, ValueError):
        return None


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(path.is_relative_to(root) for root in roots)


def _outside_reason(raw: str, path: Path, roots: Sequence[Path]) -> str:
    shown = "" if str(path) == raw else f"resolves to {str(path)!r}, which "
    listed = os.pathsep.join(str(root) for root in roots)
    return f"{shown}is outside the ingest roots (NEXUS_INGEST_ROOTS={listed})"


def _check_inside(raw: str, path: Path, roots: Sequence[Path]) -> None:
    if not _inside(path, roots):
        raise _Refused(_outside_reason(raw, path, roots))


def _check_kind(path: Path) -> None:
    try:
        mode = path.lstat().st_mode
    except OSError as exc:
        raise _Refused(f"cannot be examined ({exc.strerror or exc})") from None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
    raise _Refused(f"is {kind}, not a regular file or folder")


def _walk_into(plan: IngestPlan, folder: Path, roots: Sequence[Path]) -> None:
    for entry in _walk(folder, plan.skipped):
        try:
            path = _resolve(str(entry), roots)
        except _Refused as exc:
            plan.skipped.append(Refusal(str(entry), exc.reason))
            continue
        if not path.is_dir():
            plan.files.append(path)
            plan.names.append(entry.relative_to(folder).as_posix())


def _walk(folder: Path, skipped: list[Refusal]) -> Iterator[Path]:
    """Every non-hidden entry below ``folder`` that is not a real folder (links to folders are yielded, not
    descended), sorted by path. A folder that cannot be listed is recorded in ``skipped``."""

    def unreadable(exc: OSError) -> None:
        skipped.append(Refusal(str(exc.filename or folder), f"cannot list the folder ({exc.strerror or exc})"))

    found: list[Path] = []
    for top, dirs, files in os.walk(folder, onerror=unreadable, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        base = Path(top)
        found.extend(base / d for d in dirs if (base / d).is_symlink())
        found.extend(base / f for f in files if not f.startswith("."))
    yield from sorted(found)
