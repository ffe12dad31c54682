"""The embedded server's buffer cache (PostgreSQL's ``shared_buffers``): how large, and how it reaches the server.

``auto`` is a quarter of the memory this process may use: the machine's, or less under a container's limit (cgroup
v2 ``memory.max``, v1 ``memory.limit_in_bytes``) or strict overcommit (``vm.overcommit_memory = 2``, where the whole
cache is committed when the server starts), from 128 MB to 8 GB; a start that could not have that much shared memory
tries once more with 128 MB, PostgreSQL's own default, and warns. The size is written into ``nexus.conf`` in the
data folder before each start (unless the file already says it), and the folder's ``postgresql.conf`` includes that
file (a line appended once). A setting made with ``ALTER SYSTEM`` still wins. Writing it is best effort: a folder
whose files cannot be written starts with what it had, with a warning.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from pathlib import Path

import psutil

from kruschnexus.config import buffer_bytes

_log = logging.getLogger(__name__)

#: The file of the embedded server's own settings in its data folder.
SETTINGS_FILE = "nexus.conf"
_INCLUDE = f"include_if_exists = '{SETTINGS_FILE}'".encode()
#: ``auto``'s bounds (MB).
SHARED_BUFFERS_MB = (128, 8192)
#: What a start that failed with ``auto``'s size tries instead: PostgreSQL's own default.
FALLBACK_BUFFERS = f"{SHARED_BUFFERS_MB[0]}MB"
#: Threads of one process share the wheel's inter-process lock (``fcntl`` locks belong to the process).
_WRITING = threading.Lock()
_CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


def usable_memory() -> int:
    """Bytes of memory this process may use: the machine's, a container's limit if lower, and under strict
    overcommit twice what the kernel will still commit (so that a quarter of it is half of that)."""
    total = int(psutil.virtual_memory().total)
    for path in _CGROUP_LIMITS:
        raw = _read(Path(path))
        if raw is not None and raw.isdigit():
            total = min(total, int(raw))
    if _read(Path("/proc/sys/vm/overcommit_memory")) == "2":
        info = _meminfo()
        if "CommitLimit" in info and "Committed_AS" in info:
            total = min(total, 2 * max(0, info["CommitLimit"] - info["Committed_AS"]))
    return total


def shared_buffers(setting: str, memory: int | None = None) -> str:
    """PostgreSQL's ``shared_buffers`` for ``setting`` (``Settings.pg_shared_buffers``): the given size in kB, or
    for ``auto`` a quarter of ``memory`` bytes (by default :func:`usable_memory`), from 128MB to 8GB."""
    if setting.lower() != "auto":
        return f"{buffer_bytes(setting) // 1024}kB"
    total = usable_memory() if memory is None else memory
    low, high = SHARED_BUFFERS_MB
    return f"{min(max(total // 4 // (1 << 20), low), high)}MB"


def configure(pgdata: Path, buffers: str) -> bool:
    """Write ``shared_buffers = buffers`` into the data folder's ``nexus.conf`` (owned as the folder, 0600, so that a
    server run as another user reads it) and have its ``postgresql.conf`` include that file; whether it was done
    (a folder without ``postgresql.conf`` is not the embedded server's yet: the wheel says what is wrong with it)."""
    conf = pgdata / "postgresql.conf"
    with _WRITING:
        try:
            if not conf.is_file():
                return False
            if _INCLUDE not in conf.read_bytes().splitlines():
                with conf.open("ab") as out:  # appended: the file keeps its owner and mode
                    out.write(b"\n# KruschNexus: the embedded server's own settings\n" + _INCLUDE + b"\n")
            wanted = f"shared_buffers = '{buffers}'\n".encode()
            if _read_bytes(pgdata / SETTINGS_FILE) == wanted:
                return True  # as the last start left it: not written again
            owner = pgdata.stat()
            handle, staged = tempfile.mkstemp(dir=pgdata, prefix=f"{SETTINGS_FILE}.")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(wanted)
                os.chmod(staged, 0o600)
                if os.geteuid() == 0 and owner.st_uid != 0:
                    os.chown(staged, owner.st_uid, owner.st_gid)
                os.replace(staged, pgdata / SETTINGS_FILE)
            finally:
                Path(staged).unlink(missing_ok=True)
        except OSError as exc:
            _log.warning("the embedded server in %s keeps its buffer cache: its settings not written (%s)", pgdata, exc)
            return False
    return True


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None


def _meminfo() -> dict[str, int]:
    """``/proc/meminfo`` in bytes (empty where there is none)."""
    out: dict[str, int] = {}
    for line in (_read(Path("/proc/meminfo")) or "").splitlines():
        name, _, rest = line.partition(":")
        fields = rest.split()
        if fields and fields[0].isdigit():
            out[name] = int(fields[0]) * (1024 if fields[1:] == ["kB"] else 1)
    return out
