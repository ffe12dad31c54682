"""Original bytes, kept content-addressed under ``NEXUS_HOME/blobs`` so spans can be re-proved."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from kruschnexus.errors import ConfigError


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


def keep(root: Path, source: Path, digest: str) -> Path:
    """Copy ``source`` into the store (atomically; a no-op when already there)."""
    target = blob_path(root, digest)
    if target.is_file():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".incoming-")
        with os.fdopen(fd, "wb") as out, source.open("rb") as src:
            shutil.copyfileobj(src, out)
        os.replace(tmp, target)
    except OSError as exc:
        raise ConfigError(f"cannot keep a copy of {source} under {root}: {exc}") from exc
    return target


def forget(root: Path, digest: str) -> None:
    """Remove kept bytes no workspace refers to any more (absent bytes are fine)."""
    try:
        blob_path(root, digest).unlink(missing_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot remove the kept copy {blob_path(root, digest)}: {exc}") from exc
