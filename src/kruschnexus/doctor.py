"""Health checks behind ``nexus doctor``: database, pgvector, model, stored models, indexes, the buffer cache, optional
tools, disk."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field

import psycopg

from kruschnexus.config import Settings, buffer_bytes
from kruschnexus.embed.base import Embedder
from kruschnexus.errors import PkgError
from kruschnexus.parse.ocr import OcrUnavailableError, Tesseract
from kruschnexus.store import queries as q
from kruschnexus.store.buffers import shared_buffers
from kruschnexus.store.postgres import PgStore
from kruschnexus.store.records import VectorStorage

#: Below this much free space under NEXUS_HOME the report is degraded.
MIN_FREE_BYTES = 1 << 30


@dataclass
class Check:
    """One line of the report."""

    name: str
    ok: bool
    detail: str


@dataclass
class DoctorReport:
    """All checks; healthy when every one passed."""

    checks: list[Check] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        """True when no check failed."""
        return all(c.ok for c in self.checks)


#: What ``VACUUM FULL spans`` took on this project's bench machine (2 cores), for the vector storage line.
VACUUM_FULL_FIGURE = "46 s for 10^5 spans, 7.6 min for 10^6 with 4GB, on 2 cores"


def run_checks(
    settings: Settings, open_store: Callable[[], PgStore], load_embedder: Callable[[], Embedder]
) -> DoctorReport:
    """Run every check; a failing check never stops the others."""
    report = DoctorReport()
    store = _check_store(settings, open_store, report)
    embedder = _check_model(settings, load_embedder, report)
    if store is not None and embedder is not None:
        _check_workspaces(store, embedder, report)
        _check_vector_index(settings, store, embedder, report)
        _check_indexes(store, embedder, report)
        _check_buffer_cache(settings, store, embedder, report)
        _check_line_markers(store, report)
        _check_vector_storage(store, report)
    _check_tesseract(settings, report)
    _check_disk(settings, report)
    return report


def _check_store(settings: Settings, open_store: Callable[[], PgStore], report: DoctorReport) -> PgStore | None:
    where = "external (NEXUS_DATABASE_URL)" if settings.database_url else f"embedded in {settings.pgdata}"
    try:
        store = open_store()
        info = store.server_info()
    except PkgError as exc:
        report.checks.append(Check("database", False, f"{where}: {exc}"))
        return None
    report.checks.append(Check("database", True, f"{where}: PostgreSQL {info['postgres']}"))
    report.checks.append(Check("pgvector", True, f"version {info['pgvector']}"))
    _check_role(store, report)
    return store


def _check_role(store: PgStore, report: DoctorReport) -> None:
    """What the database role cannot do, and what the DBA must run (an external server is handed over by one)."""
    try:
        summary, limits = store.role_summary(), store.role_limits()
    except PkgError as exc:
        report.checks.append(Check("database role", False, f"cannot read the role's privileges: {exc}"))
        return
    detail = "; ".join([summary, *(f"{limit.what}; a DBA runs: {limit.fix}" for limit in limits)])
    report.checks.append(Check("database role", not limits, detail))


def _check_model(settings: Settings, load_embedder: Callable[[], Embedder], report: DoctorReport) -> Embedder | None:
    try:
        embedder = load_embedder()
        embedder.embed(["doctor check"])
    except PkgError as exc:
        report.checks.append(Check("model", False, f"{settings.embedder}: {exc}"))
        return None
    report.checks.append(Check("model", True, f"{embedder.model_id} ({embedder.dim} dims) loads and embeds"))
    return embedder


def _check_workspaces(store: PgStore, embedder: Embedder, report: DoctorReport) -> None:
    rows = store.workspaces()
    bad = [r for r in rows if (r.model_id, r.dim) != (embedder.model_id, embedder.dim)]
    if bad:
        names = ", ".join(f"{r.name} ({r.model_id})" for r in bad)
        report.checks.append(Check("workspaces", False, f"built with another model: {names}"))
    else:
        report.checks.append(Check("workspaces", True, f"{len(rows)} workspace(s), all on {embedder.model_id}"))


def _check_vector_index(settings: Settings, store: PgStore, embedder: Embedder, report: DoctorReport) -> None:
    """How the model's HNSW index was built against the settings: a build with other parameters still serves (the
    line passes) and says how to rebuild it."""
    built = store.vector_index_build(embedder.dim)
    wanted = settings.index_build
    if built is None:
        detail = f"none yet for {embedder.dim} dims (the first ingest builds it: m {wanted.m}, ef_construction"
        detail += f" {wanted.ef_construction})"
    elif built == wanted:
        detail = f"{embedder.dim} dims, m {built.m}, ef_construction {built.ef_construction}"
    else:
        detail = (
            f"{embedder.dim} dims, built with m {built.m}, ef_construction {built.ef_construction}; the settings ask"
            f" for m {wanted.m}, ef_construction {wanted.ef_construction}: `nexus reindex -w WORKSPACE --vectors`"
            " rebuilds it (searches go on meanwhile)"
        )
    report.checks.append(Check("vector index", True, detail))


def _check_indexes(store: PgStore, embedder: Embedder, report: DoctorReport) -> None:
    """Indexes PostgreSQL does not use (a concurrent build that failed or was stopped): searches read without them.
    A rebuild of the HNSW index under way, or left by a stopped one, passes (the index in use still serves)."""
    invalid = store.invalid_indexes()
    vector = re.escape(q.hnsw_index_name(embedder.dim))
    leftover = re.compile(vector + "(" + "|".join(map(re.escape, (q.REBUILD_SUFFIX, q.REPLACED_SUFFIX))) + ")")
    rebuilding = [name for name in invalid if leftover.fullmatch(name)]
    broken = [name for name in invalid if name not in rebuilding]
    fixes = [
        f"{name}: `nexus reindex -w WORKSPACE --vectors` builds it again"
        if re.fullmatch(vector, name)
        else f"{name}: its table's owner runs REINDEX INDEX CONCURRENTLY {name}"
        for name in broken
    ]
    if rebuilding:
        fixes.append(
            f"{', '.join(rebuilding)}: a vector index rebuild under way, or left by a stopped one (the next"
            " `nexus reindex --vectors` drops it)"
        )
    detail = "; ".join(fixes) if fixes else "every index is valid"
    report.checks.append(Check("indexes", not broken, detail))


def _check_buffer_cache(settings: Settings, store: PgStore, embedder: Embedder, report: DoctorReport) -> None:
    """Whether the HNSW index fits in the server's buffer cache (a search past it reads the index through the page
    cache, or the disk, at each hop of the graph); the line passes and says what raises the cache."""
    buffers, index = store.buffer_cache(embedder.dim)
    configured = None if settings.database_url else buffer_bytes(shared_buffers(settings.pg_shared_buffers))
    report.checks.append(Check("buffer cache", True, buffer_cache_detail(buffers, index, configured)))


def buffer_cache_detail(buffers: int, index: int | None, configured: int | None) -> str:
    """The buffer cache line: ``buffers`` (the server's ``shared_buffers``) against ``index`` (the HNSW index's
    size, ``None`` when there is none), and for the embedded server the size ``configured`` for its next start."""
    out = f"shared_buffers {_size(buffers)}"
    if index is None:
        out += "; no vector index yet"
    elif index <= buffers:
        out += f", the vector index ({_size(index)}) fits"
    else:
        fix = (
            "NEXUS_PG_SHARED_BUFFERS raises it at the server's next start"
            if configured is not None
            else "the server's DBA raises shared_buffers"
        )
        out += (
            f", less than the vector index ({_size(index)}): searches read the index through the page cache or the"
            f" disk (at 10^6 spans, full search p95 73-85 ms with 128MB, 53-56 ms with 4GB); {fix}"
        )
    if configured is not None and configured != buffers:
        out += f"; {_size(configured)} when the embedded server next starts (it runs with what it started with)"
    return out


def _size(size: int) -> str:
    return f"{size / (1 << 30):.1f} GB" if size >= 1 << 30 else f"{size >> 20} MB"


def _check_line_markers(store: PgStore, report: DoctorReport) -> None:
    """Workspaces holding spans stored before spans held their line markers (migration 0010): their section look-ups
    still work, by a regular expression over the text, slower at scale; the line passes and says how to mark them."""
    unmarked = [w.name for w in store.workspaces() if store.has_unmarked_spans(w.name)]
    if not unmarked:
        report.checks.append(Check("line markers", True, "every span holds the section markers of its lines"))
        return
    detail = (
        f"spans stored before line markers in {', '.join(unmarked)}: section look-ups read their text instead;"
        " `nexus reindex -w WORKSPACE` marks them (about 2 ms a span)"
    )
    report.checks.append(Check("line markers", True, detail))


def _check_vector_storage(store: PgStore, report: DoctorReport) -> None:
    """Spans stored before vectors were kept in their rows (migration 0011): every distance computed from such a row
    fetches the vector from TOAST; the line passes and says what rewrites them (fails only when it cannot be read)."""
    try:
        storage = store.vector_storage()
    except psycopg.Error as exc:
        report.checks.append(Check("vector storage", False, f"cannot read where spans keep their vectors: {exc}"))
        return
    report.checks.append(Check("vector storage", True, vector_storage_detail(storage)))


def vector_storage_detail(storage: VectorStorage) -> str:
    """The vector storage line for ``storage`` (see :meth:`~kruschnexus.store.postgres.PgStore.vector_storage`)."""
    if not storage.toast_bytes:
        return "vectors are kept in their spans' rows (the spans table keeps nothing in TOAST)"
    if not storage.older:
        return "vectors are kept in their spans' rows (every span was stored since migration 0011)"
    rewrite = (
        "`nexus reindex -w WORKSPACE --rewrite --build-memory 4GB` (`VACUUM FULL spans` by the table's owner)"
        " rewrites them into their rows: it blocks every search and ingest while it runs, needs free disk for a"
        f" second copy of the table and its indexes, and builds the vector index again ({VACUUM_FULL_FIGURE})"
    )
    older = f"{storage.older} spans were stored before migration 0011"
    if storage.outside is None:
        return f"{older}; their vectors may be in TOAST (a server before PostgreSQL 17 cannot tell); {rewrite}"
    if not storage.outside:
        return f"vectors are kept in their spans' rows ({older}; {storage.read} of them read)"
    return (
        f"{older}; {storage.outside} of the {storage.read} read keep their vector in TOAST, from where each distance"
        f" computed from them reads it; {rewrite}"
    )


def _check_tesseract(settings: Settings, report: DoctorReport) -> None:
    try:
        engine = Tesseract(settings.ocr_lang)
    except OcrUnavailableError as exc:
        report.checks.append(Check("tesseract", False, f"{exc}; scanned pages cannot be OCR'd"))
        return
    report.checks.append(Check("tesseract", True, f"{engine.description}, {settings.ocr_workers} worker(s)"))


def _check_disk(settings: Settings, report: DoctorReport) -> None:
    probe = settings.home
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    report.checks.append(
        Check("disk", free >= MIN_FREE_BYTES, f"{free / (1 << 30):.1f} GiB free under {settings.home}")
    )
