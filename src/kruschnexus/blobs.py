"""Original bytes, kept content-addressed under ``NEXUS_HOME/blobs`` so spans can be re-proved.

An ingest reads a file once: :func:`snapshot` copies it (hashing as it goes) from one open file descriptor into a
private staging folder, and everything after (the reader, the kept copy) uses that snapshot. The hash, the stored
text and the kept bytes are therefore of the same bytes even if the file changes meanwhile, and a confined open
(servers: the MCP ingest sandbox) follows no symbolic link at all, so a path checked inside the ingest roots cannot
be swapped for a link out of them between the check and the read.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kruschnexus.errors import ConfigError, ParseError

_CHUNK = 1 << 20
STAGING = ".staging"


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, streamed."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def blob_path(root: Path, digest: str) -> Path:
    """Where the bytes with this sha256 live."""
    return root / digest[:2] / digest


def forget(root: Path, digest: str) -> None:
    """Remove kept bytes no workspace refers to any more (absent bytes are fine)."""
    try:
        blob_path(root, digest).unlink(missing_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot remove the kept copy {blob_path(root, digest)}: {exc}") from exc


@contextmanager
def snapshot(path: Path, root: Path, max_bytes: int, confined: bool = False) -> Iterator[tuple[Path, str]]:
    """A private copy of ``path`` (same file name, in a fresh folder under ``root/.staging``) and its sha256, read
    from one file descriptor; removed afterwards unless :func:`adopt` moved it into the store.

    ``confined``: no symbolic link is followed anywhere in ``path`` (it must be absolute and already resolved).

    Raises:
        ParseError: the file cannot be opened (a link where ``confined`` allows none), is not a regular file, or is
            (or grows) over ``max_bytes``.
        ConfigError: the staging folder cannot be written.
    """
    fd = _open_confined(path) if confined else _open(path)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ParseError(path, "not a regular file (a folder, device, socket or pipe)")
        folder = _staging(root)
        try:
            copy = folder / path.name
            digest = hashlib.sha256()
            written = 0
            # Private to this user, like every kept copy (the original's permissions are not carried over).
            out_fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            with os.fdopen(os.dup(fd), "rb") as src, os.fdopen(out_fd, "wb") as out:
                while chunk := src.read(_CHUNK):
                    written += len(chunk)
                    if written > max_bytes:
                        raise ParseError(path, f"over the limit of {max_bytes} bytes (NEXUS_MAX_FILE_BYTES)")
                    digest.update(chunk)
                    out.write(chunk)
            yield copy, digest.hexdigest()
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        os.close(fd)


def adopt(root: Path, copy: Path, digest: str) -> Path:
    """Put a :func:`snapshot` copy into the store (a hard link: atomic, and the copy stays readable until the
    snapshot closes, for a retry); a no-op when the bytes are there already."""
    target = blob_path(root, digest)
    if target.is_file():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        os.link(copy, target)
    except FileExistsError:  # another writer kept the same bytes meanwhile
        pass
    except OSError as exc:
        raise ConfigError(f"cannot keep a copy of {copy.name} under {root}: {exc}") from exc
    return target


@contextmanager
def kept_as(root: Path, digest: str, name: str) -> Iterator[Path]:
    """The kept bytes of ``digest`` under the file name ``name`` (a link in a fresh staging folder, removed
    afterwards), to read a stored document again: readers know a format by its file name.

    Raises:
        ParseError: the bytes are no longer kept (their file under ``root`` was removed).
        ConfigError: the staging folder cannot be written.
    """
    kept = blob_path(root, digest)
    if not kept.is_file():
        raise ParseError(
            Path(name), f"its original bytes are no longer kept ({kept} is missing): ingest the file again"
        )
    folder = _staging(root)
    try:
        link = folder / Path(name).name
        try:
            os.link(kept, link)
        except OSError:
            shutil.copyfile(kept, link)
        yield link
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _staging(root: Path) -> Path:
    """A fresh staging folder, named after this process; the folders of processes that died (a kill during an
    ingest) are removed first."""
    try:
        base = root / STAGING
        base.mkdir(parents=True, exist_ok=True)
        for entry in base.iterdir():
            owner = entry.name.split("-", 1)[0]
            if owner.isdigit() and int(owner) != os.getpid() and not _alive(int(owner)):
                shutil.rmtree(entry, ignore_errors=True)
        return Path(tempfile.mkdtemp(dir=base, prefix=f"{os.getpid()}-"))
    except OSError as exc:
        raise ConfigError(f"cannot write the staging folder under {root}: {exc}") from exc


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


#: Opening a FIFO (swapped in after the checks) must not wait for a writer; regular files ignore the flag.
_FILE_FLAGS = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
#: Folders on a confined path are only passed through: O_PATH needs search (x) permission, not read (r).
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW


def _open(path: Path) -> int:
    try:
        return os.open(path, _FILE_FLAGS)
    except OSError as exc:
        raise ParseError(path, f"cannot open the file ({exc.strerror or exc})") from exc


def _open_confined(path: Path) -> int:
    """Open ``path`` one component at a time, each relative to the folder opened before it and none through a
    symbolic link, so the file opened is the one at that path, whatever was swapped in since it was checked."""
    if not path.is_absolute():
        raise ParseError(path, "a confined open needs an absolute path")
    parts = path.parts[1:]
    fd = os.open(path.anchor, _DIR_FLAGS)
    try:
        for depth, part in enumerate(parts):
            last = depth == len(parts) - 1
            try:
                nxt = os.open(part, (_FILE_FLAGS | os.O_NOFOLLOW) if last else _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                where = "the file" if last else f"the folder {part!r} on its path"
                why = {errno.ELOOP: "is a symbolic link", errno.ENOTDIR: "is a symbolic link or not a folder"}.get(
                    exc.errno or 0, exc.strerror or str(exc)
                )
                raise ParseError(path, f"{where} {why}: not read (the ingest sandbox follows no link)") from exc
            os.close(fd)
            fd = nxt
        return fd
    except BaseException:
        os.close(fd)
        raise
