"""The common stack the product argues against, run on the same corpus and scored on the same rules.

LangChain's ``PyPDFLoader`` (one document per page), ``RecursiveCharacterTextSplitter(chunk_size=1000,
chunk_overlap=200)`` with its default separators, the product's own embedding model, and pgvector cosine top-k
with no floor. Its hits carry a file name and a page, but no offsets, boxes or sections, so they never count for
span precision and never abstain.

Storage: schema ``eval_baseline``, per workspace a chunk table ``<workspace>`` (HNSW cosine index) and a
manifest ``<workspace>__files`` of the files stored (sha256 and the recipe that built them), so a second
:meth:`LangChainSystem.build` over unchanged files does nothing.

Needs the ``eval`` extra (``pip install 'kruschnexus[eval]'``).
"""

from __future__ import annotations

import hashlib
import logging
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import psycopg
from psycopg import sql
from psycopg.rows import tuple_row

from kruschnexus import blobs
from kruschnexus.config import EF_SEARCH
from kruschnexus.corpus import Corpus
from kruschnexus.embed.base import Embedder
from kruschnexus.errors import ConfigError, ParseError, StoreError
from kruschnexus.eval.systems import EvalHit
from kruschnexus.store.postgres import PgStore

if TYPE_CHECKING:
    from langchain_community.document_loaders import PyPDFLoader
    from langchain_text_splitters import RecursiveCharacterTextSplitter

_log = logging.getLogger(__name__)

SCHEMA = "eval_baseline"
CHUNK_SIZE = 1000
CHUNK_OVERLAP = 200
#: Chunks embedded and written per round trip.
EMBED_SLICE = 256
_EF_MAX = 1000
#: Leaves room for the ``__files`` / ``__hnsw`` suffixes within PostgreSQL's 63-byte identifiers.
_WORKSPACE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,47}$")
_SUNSET = r".*langchain-community.* is being sunset"


class _Stored(NamedTuple):
    sha256: str
    recipe: str
    chunks: int
    note: str | None


@dataclass(frozen=True)
class BaselineBuild:
    """What one :meth:`LangChainSystem.build` did.

    Attributes:
        built: files loaded, split, embedded and stored by this call (unreadable ones included).
        reused: files already stored with the same bytes and recipe (not touched).
        removed: files stored before but no longer in the list, or whose bytes changed (their old rows).
        skipped: ``(name, reason)`` of files out of scope (not PDF); nothing stored.
        unreadable: ``(name, reason)`` of PDFs ``PyPDFLoader`` could not read; they yield no chunk.
        chunks: chunk rows stored for this workspace after the call.
    """

    built: tuple[str, ...] = ()
    reused: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    unreadable: tuple[tuple[str, str], ...] = ()
    chunks: int = 0

    @property
    def is_noop(self) -> bool:
        """Nothing was loaded, embedded or deleted (the fast path)."""
        return not self.built and not self.removed


@dataclass
class _Plan:
    files: dict[str, tuple[Path, str]] = field(default_factory=dict)  # name -> (path, sha256)
    skipped: list[tuple[str, str]] = field(default_factory=list)


class LangChainSystem:
    """LangChain's PDF stack over pgvector, as a :class:`~kruschnexus.eval.systems.System` named ``langchain``.

    Example:
        >>> system = LangChainSystem(pdfs, corpus.embedder, corpus.store, workspace="eval-run")  # doctest: +SKIP
        >>> system.build()  # doctest: +SKIP
        >>> system.search("permitted use of the premises", k=5)  # doctest: +SKIP
    """

    name = "langchain"

    def __init__(
        self,
        files: Sequence[str | Path],
        embedder: Embedder,
        conn: psycopg.Connection[Any] | PgStore,
        workspace: str,
    ) -> None:
        """Args:
        files: the documents; each is cited by its file name (as the product's ``source``), so names must
            be unique. Non-PDF files are skipped by :meth:`build`.
        embedder: the product's embedding model (the comparison holds the model fixed).
        conn: an open autocommit connection to a database with pgvector available (each file is written in
            its own transaction), or the product's :class:`PgStore`.
        workspace: names this run's tables (1-48 of ``a-z 0-9 _ -``), so runs do not collide.

        Raises:
            ConfigError: a bad workspace name, two files with the same name, or a connection not in autocommit.
        """
        if not _WORKSPACE.match(workspace):
            raise ConfigError(
                f"invalid baseline workspace {workspace!r}: use 1-48 characters a-z, 0-9, '_' or '-',"
                " starting with a letter or digit"
            )
        paths = [Path(f) for f in files]
        names = [p.name for p in paths]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ConfigError(f"files are cited by name, and these names repeat: {', '.join(duplicates)}")
        self._paths = paths
        self._embedder = embedder
        self._conn: psycopg.Connection[Any] = conn.conn if isinstance(conn, PgStore) else conn
        if not self._conn.autocommit:
            raise ConfigError("the langchain baseline needs an autocommit connection (as PgStore opens)")
        self.workspace = workspace
        self._names = _TableNames.of(workspace)
        self._created = False
        self._adapted = False

    @classmethod
    def for_corpus(cls, corpus: Corpus, files: Sequence[str | Path]) -> LangChainSystem:
        """The baseline beside a product workspace, built (see :meth:`build`) and ready to search.

        Uses the corpus's embedder and database; its tables are named after the corpus's workspace (hashed
        down when the name is too long), so the stored baseline is reused by later runs on the same files.
        """
        system = cls(files, corpus.embedder, corpus.store, baseline_workspace(corpus.workspace))
        system.build()
        return system

    def build(self) -> BaselineBuild:
        """Load, split, embed and store every PDF not already stored with the same bytes; drop the rest.

        Each file is written in its own transaction. Logs (never prints) the files it skips.

        Raises:
            ConfigError: the ``eval`` extra is not installed.
            ParseError: a listed file cannot be read at all (missing, unreadable).
            StoreError: the database refused an operation.
        """
        loader, splitter = _langchain()
        plan = self._plan()
        for name, reason in plan.skipped:
            _log.warning("langchain baseline skips %s: %s", name, reason)
        try:
            self._prepare()
            with self._lock():
                return self._apply(plan, loader, splitter)
        except psycopg.Error as exc:
            raise StoreError(f"the langchain baseline's tables refused the build: {exc}") from exc

    def search(self, query: str, k: int) -> list[EvalHit]:
        """The ``k`` stored chunks nearest ``query`` by cosine, best first; never abstains (fewer only when
        fewer are stored, or ``k`` is over pgvector's HNSW beam limit of 1000).

        Raises:
            ValueError: ``k`` is below 1.
            StoreError: the database refused the query (e.g. :meth:`build` never ran for this workspace).
        """
        if k < 1:
            raise ValueError(f"k must be at least 1 (got {k})")
        vector = self._embedder.embed([query])[0]
        try:
            self._adapt()
            with self._conn.transaction(), self._conn.cursor(row_factory=tuple_row) as cur:
                ef = min(_EF_MAX, max(EF_SEARCH, k))
                cur.execute("SELECT set_config('hnsw.ef_search', %(ef)s, true)", {"ef": str(ef)})
                cur.execute(self._names.search(), {"q": vector, "k": k})
                rows = cur.fetchall()
        except psycopg.Error as exc:
            raise StoreError(f"langchain baseline search failed (was build() run?): {exc}") from exc
        return [EvalHit(str(src), int(page), None, str(text), None, False) for src, page, text in rows]

    def _plan(self) -> _Plan:
        plan = _Plan()
        for path in self._paths:
            if path.suffix.lower() != ".pdf":
                plan.skipped.append((path.name, "not a PDF (the baseline's PyPDFLoader reads PDFs only)"))
                continue
            try:
                plan.files[path.name] = (path, blobs.sha256_file(path))
            except OSError as exc:
                raise ParseError(path, f"cannot read the file: {exc}") from exc
        return plan

    def _prepare(self) -> None:
        """Extension, vector type adapter, schema, tables and index (DDL serialized across builders)."""
        if self._created:
            return
        with self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(hashtext('kruschnexus.eval_baseline'))")
            self._conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            for statement in self._names.create(self._embedder.dim):
                self._conn.execute(statement)
        self._created = True
        self._adapt()

    def _adapt(self) -> None:
        """Teach the connection pgvector's ``vector`` type (numpy arrays in and out), once."""
        if not self._adapted:
            from pgvector.psycopg import register_vector

            register_vector(self._conn)
            self._adapted = True

    def _lock(self) -> _AdvisoryLock:
        return _AdvisoryLock(self._conn, f"kruschnexus.eval_baseline.{self.workspace}")

    def _apply(self, plan: _Plan, loader: type[PyPDFLoader], splitter: RecursiveCharacterTextSplitter) -> BaselineBuild:
        recipe = _recipe(self._embedder)
        stored = self._manifest()
        if any(s.recipe != recipe for s in stored.values()):
            self._reset()
            stored = {}
        removed = [n for n, s in stored.items() if n not in plan.files or plan.files[n][1] != s.sha256]
        if removed:
            with self._conn.transaction():
                for name in removed:
                    self._delete(name)
        built: list[str] = []
        reused: list[str] = []
        unreadable: list[tuple[str, str]] = []
        for name, (path, digest) in sorted(plan.files.items()):
            previous = stored.get(name)
            if previous is not None and name not in removed:
                reused.append(name)
                note = previous.note
            else:
                note = self._store_file(name, path, digest, recipe, loader, splitter)
                built.append(name)
            if note is not None:
                unreadable.append((name, note))
                _log.warning("langchain baseline: PyPDFLoader cannot read %s (%s); it yields nothing", name, note)
        return BaselineBuild(
            tuple(built), tuple(reused), tuple(sorted(removed)), tuple(plan.skipped), tuple(unreadable), self._count()
        )

    def _store_file(
        self,
        name: str,
        path: Path,
        digest: str,
        recipe: str,
        loader: type[PyPDFLoader],
        splitter: RecursiveCharacterTextSplitter,
    ) -> str | None:
        """Chunk, embed and store one PDF with its manifest row; returns why it was unreadable, if it was."""
        try:
            chunks = _split(path, loader, splitter)
            note = None
        except ParseError as exc:
            chunks, note = [], exc.reason
        with self._conn.transaction(), self._conn.cursor() as cur:
            for lo in range(0, len(chunks), EMBED_SLICE):
                part = chunks[lo : lo + EMBED_SLICE]
                vectors = self._embedder.embed([text for _, text in part])
                rows = [(name, page, lo + i, text, vectors[i]) for i, (page, text) in enumerate(part)]
                cur.executemany(self._names.insert_chunk(), rows)
            cur.execute(self._names.insert_file(), (name, digest, recipe, len(chunks), note))
        return note

    def _manifest(self) -> dict[str, _Stored]:
        with self._conn.cursor(row_factory=tuple_row) as cur:
            cur.execute(self._names.select_files())
            return {str(r[0]): _Stored(str(r[1]), str(r[2]), int(r[3]), r[4]) for r in cur.fetchall()}

    def _delete(self, name: str) -> None:
        for statement in self._names.delete_file():
            self._conn.execute(statement, {"source": name})

    def _reset(self) -> None:
        """Drop everything stored under this workspace (another model or library version built it)."""
        with self._conn.transaction():
            for statement in [*self._names.drop(), *self._names.create(self._embedder.dim)]:
                self._conn.execute(statement)

    def _count(self) -> int:
        with self._conn.cursor(row_factory=tuple_row) as cur:
            cur.execute(self._names.count())
            row = cur.fetchone()
        return 0 if row is None else int(row[0])


@dataclass(frozen=True)
class _TableNames:
    """The baseline's SQL for one workspace: identifiers via :mod:`psycopg.sql`, values always bound."""

    chunks: sql.Composed
    files: sql.Composed
    index: sql.Identifier

    @classmethod
    def of(cls, workspace: str) -> _TableNames:
        schema = sql.Identifier(SCHEMA)
        return cls(
            sql.SQL("{}.{}").format(schema, sql.Identifier(workspace)),
            sql.SQL("{}.{}").format(schema, sql.Identifier(f"{workspace}__files")),
            sql.Identifier(f"{workspace}__hnsw"),
        )

    def create(self, dim: int) -> list[sql.Composed]:
        return [
            sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(SCHEMA)),
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} (id bigserial PRIMARY KEY, source text NOT NULL, page integer NOT NULL,"
                " ordinal integer NOT NULL, text text NOT NULL, embedding vector({dim}) NOT NULL)"
            ).format(self.chunks, dim=sql.Literal(int(dim))),
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} (source text PRIMARY KEY, sha256 text NOT NULL, recipe text NOT NULL,"
                " chunks integer NOT NULL, note text)"
            ).format(self.files),
            sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw (embedding vector_cosine_ops)").format(
                self.index, self.chunks
            ),
        ]

    def insert_chunk(self) -> sql.Composed:
        return sql.SQL("INSERT INTO {} (source, page, ordinal, text, embedding) VALUES (%s, %s, %s, %s, %s)").format(
            self.chunks
        )

    def insert_file(self) -> sql.Composed:
        return sql.SQL("INSERT INTO {} (source, sha256, recipe, chunks, note) VALUES (%s, %s, %s, %s, %s)").format(
            self.files
        )

    def select_files(self) -> sql.Composed:
        return sql.SQL("SELECT source, sha256, recipe, chunks, note FROM {}").format(self.files)

    def delete_file(self) -> list[sql.Composed]:
        return [
            sql.SQL("DELETE FROM {} WHERE source = %(source)s").format(table) for table in (self.chunks, self.files)
        ]

    def drop(self) -> list[sql.Composed]:
        """Both tables (and the index); :meth:`create` makes them anew, for another model may have another dim."""
        return [sql.SQL("DROP TABLE IF EXISTS {}").format(table) for table in (self.chunks, self.files)]

    def count(self) -> sql.Composed:
        return sql.SQL("SELECT count(*) FROM {}").format(self.chunks)

    def search(self) -> sql.Composed:
        return sql.SQL("SELECT source, page, text FROM {} ORDER BY embedding <=> %(q)s LIMIT %(k)s").format(self.chunks)


def baseline_workspace(workspace: str) -> str:
    """A product workspace's name as a baseline workspace: itself when short enough, else a prefix and a hash."""
    if _WORKSPACE.match(workspace):
        return workspace
    return f"{workspace[:39]}-{hashlib.sha256(workspace.encode()).hexdigest()[:8]}"


class _AdvisoryLock:
    """A session-level advisory lock: one builder per workspace at a time."""

    def __init__(self, conn: psycopg.Connection[Any], key: str) -> None:
        self._conn = conn
        self._key = key

    def __enter__(self) -> None:
        self._conn.execute("SELECT pg_advisory_lock(hashtext(%(key)s))", {"key": self._key})

    def __exit__(self, *_: object) -> None:
        self._conn.execute("SELECT pg_advisory_unlock(hashtext(%(key)s))", {"key": self._key})


def _langchain() -> tuple[type[PyPDFLoader], RecursiveCharacterTextSplitter]:
    """The loader class and the splitter, exactly as the common stack configures them."""
    try:
        with warnings.catch_warnings():
            # The package warns on import that it is being sunset; PyPDFLoader is still what the stack uses.
            warnings.filterwarnings("ignore", message=_SUNSET, category=DeprecationWarning)
            from langchain_community.document_loaders import PyPDFLoader
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    except ImportError as exc:
        raise ConfigError(
            f"the langchain baseline needs the 'eval' extra (pip install 'kruschnexus[eval]'): {exc}"
        ) from exc
    return PyPDFLoader, RecursiveCharacterTextSplitter(chunk_size=CHUNK_SIZE, chunk_overlap=CHUNK_OVERLAP)


def _split(path: Path, loader: type[PyPDFLoader], splitter: RecursiveCharacterTextSplitter) -> list[tuple[int, str]]:
    """``(1-based page, chunk text)`` in document order; a page without text yields nothing.

    Raises:
        ParseError: PyPDFLoader cannot read the file.
    """
    from pypdf.errors import PyPdfError

    try:
        pages = loader(str(path)).load()
    except (PyPdfError, ValueError, LookupError, TypeError, AttributeError) as exc:
        raise ParseError(path, f"{type(exc).__name__}: {exc}") from exc
    return [(int(c.metadata["page"]) + 1, c.page_content) for c in splitter.split_documents(pages)]


def _recipe(embedder: Embedder) -> str:
    """What built the stored rows; a change rebuilds the workspace."""
    versions = " ".join(f"{p}=={metadata.version(p)}" for p in _PACKAGES)
    return f"{embedder.model_id}/{embedder.dim} chunk={CHUNK_SIZE}/{CHUNK_OVERLAP} {versions}"


_PACKAGES = ("langchain-community", "langchain-text-splitters", "langchain-core", "pypdf")
