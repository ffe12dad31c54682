"""Uploaded files: a sanitised display name, a size cap per file, and a private temporary folder per request."""

from __future__ import annotations

import re
import shutil
import tempfile
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

_CHUNK = 1 << 20
_UNSAFE = re.compile(r"[^\w.\- ()&,+@#]+")
MAX_NAME_CHARS = 180


@dataclass(frozen=True)
class Oversized:
    """An uploaded file larger than the per-file limit: not kept, reported failed (the rest of the batch goes on)."""

    name: str
    reason: str


class Upload(Protocol):
    """What the route hands over for each file (Starlette's ``UploadFile`` has these)."""

    filename: str | None
    file: BinaryIO


def display_name(raw: str | None) -> str:
    """A file name safe to store and show: the last path component of what the client sent, without control
    characters, path separators or leading dots, at most 180 characters, keeping the extension.

    >>> display_name("../../etc/passwd")
    'passwd'
    >>> display_name("C:\\\\Users\\\\me\\\\lease .PDF")
    'lease .PDF'
    """
    name = unicodedata.normalize("NFC", raw or "").replace("\\", "/").split("/")[-1]
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C")
    name = _UNSAFE.sub("_", name).strip(" .")
    if not name:
        return "upload"
    stem, dot, suffix = name.rpartition(".")
    if dot and len(suffix) <= 10:
        return stem[: MAX_NAME_CHARS - len(suffix) - 1].rstrip(" .") + "." + suffix if stem else "upload." + suffix
    return name[:MAX_NAME_CHARS]


@contextmanager
def saved(uploads: Sequence[Upload], folder: Path, max_bytes: int) -> Iterator[list[Path | Oversized]]:
    """Write each upload into its own subfolder of a fresh temporary folder under ``folder``; removed afterwards.
    A file larger than ``max_bytes`` is not kept: its entry is :class:`Oversized`, in its place in the batch."""
    folder.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="upload-", dir=folder))
    try:
        paths: list[Path | Oversized] = []
        for index, upload in enumerate(uploads):
            target = root / str(index) / display_name(upload.filename)
            target.parent.mkdir()
            if _copy_capped(upload.file, target, max_bytes):
                paths.append(target)
            else:
                target.unlink()
                reason = f"the upload is larger than the limit of {max_bytes} bytes (NEXUS_MAX_FILE_BYTES)"
                paths.append(Oversized(target.name, reason))
        yield paths
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _copy_capped(source: BinaryIO, target: Path, max_bytes: int) -> bool:
    """Copy ``source`` to ``target``; ``False`` (and a partial file) as soon as it is past ``max_bytes``."""
    written = 0
    with target.open("wb") as out:
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            if written > max_bytes:
                return False
            out.write(chunk)
    return True
