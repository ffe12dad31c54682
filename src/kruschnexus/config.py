"""Settings: one frozen object built at the entry point and passed down.

Precedence: explicit argument (a CLI flag) > environment ``NEXUS_*`` > ``$NEXUS_HOME/config.toml`` > default.
Every variable is listed in ``docs/configuration.md``.
"""

from __future__ import annotations

import enum
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TypeVar

import platformdirs

from kruschnexus.errors import ConfigError

_ENV_PREFIX = "NEXUS_"
#: Float settings where 0 means "off".
_MAY_BE_ZERO = frozenset({"local_idf", "replica_wait"})
#: Float settings that are a share of something: more than 0, at most 1.
_SHARES = frozenset(
    {"name_distinctive_share", "section_inside_share", "absent_share", "twin_same_passage", "twin_stands_for"}
)


class OcrMode(enum.StrEnum):
    """When PDF pages are OCR'd: ``auto`` (pages without a usable text layer), ``always`` or ``never``."""

    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


#: When PDF pages are OCR'd (``Settings.ocr``, ``--ocr``): every surface offers these and no others.
OCR_MODES: tuple[str, ...] = tuple(mode.value for mode in OcrMode)
#: A workspace name: 1-63 of ``a-z 0-9 _ -``, starting with a letter or digit (checked by the SDK, REST and MCP).
WORKSPACE_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,62}$"


def check_workspace_name(name: str) -> str:
    """A workspace name: 1–63 of ``a-z 0-9 _ -``, starting with a letter or digit.

    Raises:
        ConfigError: the name is not valid.
    """
    if not re.match(WORKSPACE_PATTERN, name):
        raise ConfigError(
            f"invalid workspace name {name!r}: use 1-63 characters a-z, 0-9, '_' or '-',"
            " starting with a letter or digit"
        )
    return name


#: Reciprocal Rank Fusion's k (the default of ``Settings.rrf_k``).
RRF_K = 60
#: The section boost's default and hard cap: it reorders admitted spans, never outweighs a leg.
MAX_SECTION_BOOST = 0.12
#: Similarity floor of a model that sets none from measurement (the bundled MiniLM's asset replaces it).
DEFAULT_FLOOR = 0.45
#: HNSW beam of the dense leg at search time, the product's and the LangChain baseline's (pgvector: at most 1000).
EF_SEARCH = 200
MAX_EF_SEARCH = 1000
#: The HNSW index's build parameters (``m`` links a node, ``ef_construction`` its build beam; pgvector's default beam
#: is 64, which misses whole clusters of near-copies: bench/search.py's 10^5 spans, recall@10 0.87 filtered against 0.99
#: at 200), and pgvector's bounds on them.
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 200
HNSW_M_RANGE = (2, 100)
HNSW_EF_CONSTRUCTION_RANGE = (4, 1000)


@dataclass(frozen=True)
class IndexBuild:
    """How an HNSW index is built: ``m`` links a node, a beam of ``ef_construction``."""

    m: int = HNSW_M
    ef_construction: int = HNSW_EF_CONSTRUCTION


def _default_home() -> Path:
    return Path(platformdirs.user_data_dir("kruschnexus", appauthor=False))


@dataclass(frozen=True)
class Settings:
    """Typed, immutable configuration.

    Attributes:
        home: data folder (embedded database, kept original bytes). Env ``NEXUS_HOME``.
        database_url: an external PostgreSQL (16+, pgvector) DSN; ``None`` runs the embedded server
            under ``home``. Env ``NEXUS_DATABASE_URL``.
        read_database_url: a streaming replica of that server: searches and page reads go there, writes to the
            primary. Env ``NEXUS_READ_DATABASE_URL``.
        pg_shared_buffers: the embedded server's buffer cache (PostgreSQL's ``shared_buffers``): ``auto`` (a
            quarter of the memory this process may use, a container's limit and strict overcommit counted, from
            128MB to 8GB) or a size as PostgreSQL writes it (``512MB``, ``1.5GB``). Written for the server's next
            start (a process that joins a running server changes nothing until it restarts); an external server's is
            its DBA's. At 10^6 spans PostgreSQL's 128MB default keeps little of the HNSW index (about 2 KB a span)
            in the cache. Env ``NEXUS_PG_SHARED_BUFFERS``.
        replica_wait: seconds a read waits for the replica to replay this process's last write before it reads the
            primary instead. Env ``NEXUS_REPLICA_WAIT``.
        embedder: ``local`` (bundled all-MiniLM-L6-v2 int8 ONNX) or ``ollama:<model>``. Env ``NEXUS_EMBEDDER``.
        ollama_url: base URL of an Ollama server. Env ``NEXUS_OLLAMA_URL``.
        embed_batch: texts per embedding call; ``None`` takes the model's own, measured choice (1 for the local
            model, whose int8 kernels run fastest and in least memory one text at a time; 32 for Ollama, where
            each call is an HTTP request). Env ``NEXUS_EMBED_BATCH`` (``auto``: the model's own).
        embed_cache: share vectors between workspaces: a text any workspace embedded with the same model (the same
            embedding key) is not embedded again, as a document read again in its own workspace already is not. Off
            by default: with it, an ingest that keeps a vector learns that some workspace holds that text, so turn it
            on only where every workspace has the same owner. Env ``NEXUS_EMBED_CACHE``.
        threads: CPU threads the local model may use. Env ``NEXUS_THREADS``.
        embed_title: put the document's title (the first lines of its first page) before each span's text for the
            embedding model. Env ``NEXUS_EMBED_TITLE``.
        chunk_max_chars: longest span window in characters (kept within the 256 tokens MiniLM reads).
            Env ``NEXUS_CHUNK_MAX_CHARS``.
        max_file_bytes: files larger than this are refused. Env ``NEXUS_MAX_FILE_BYTES``.
        max_pages: documents with more pages are refused. Env ``NEXUS_MAX_PAGES``.
        ingest_roots: folders servers may read files from. Env ``NEXUS_INGEST_ROOTS`` (``os.pathsep``-separated).
        require_token: REST and MCP require an API token even on loopback. Env ``NEXUS_REQUIRE_TOKEN``.
        rrf_k: the k of Reciprocal Rank Fusion. Env ``NEXUS_RRF_K``.
        section_boost: added to spans in a section the query names; capped at 0.12. Env ``NEXUS_SECTION_BOOST``.
        section_inside_share: the share of that boost a span gets when it lies in a named section but does not open
            it (0-1). Env ``NEXUS_SECTION_INSIDE_SHARE``.
        floor: override of the embedding model's similarity floor. Env ``NEXUS_FLOOR``.
        dense_weight / sparse_weight: weights of the dense and lexical (BM25) legs in RRF. Env
            ``NEXUS_DENSE_WEIGHT``, ``NEXUS_SPARSE_WEIGHT``.
        dense_depth / sparse_depth: candidates each leg brings to fusion. Env ``NEXUS_DENSE_DEPTH``,
            ``NEXUS_SPARSE_DEPTH``.
        context_boost / ids_boost: weights, in the lexical leg, of a span's context (document title, heading path,
            section id) and of its legal ids, its text weighing 1. Env ``NEXUS_CONTEXT_BOOST``, ``NEXUS_IDS_BOOST``.
        coverage_floor: lexical coverage (a span's BM25 over that of an average-length span holding each query term
            once) at which a span below the similarity floor is still admitted. Env ``NEXUS_COVERAGE_FLOOR``.
        agree_margin / agree_coverage: a span both legs rank first is admitted this far below the similarity floor
            when its lexical coverage reaches ``agree_coverage``. Env ``NEXUS_AGREE_MARGIN``,
            ``NEXUS_AGREE_COVERAGE``.
        named_top: in a document the question names, a span either leg ranks this high (1 = first) is admitted
            below the similarity floor. Env ``NEXUS_NAMED_TOP``.
        absent_margin: added to the similarity floor when a question that names no document holds a word that no
            document of the workspace holds (nor one a single edit away). Env ``NEXUS_ABSENT_MARGIN``.
        absent_min_spans: the workspace size (spans) from which that rule holds: a small workspace lacks everyday
            words. Env ``NEXUS_ABSENT_MIN_SPANS``.
        absent_in_document: raise the floor by ``absent_document_margin`` when a question names its document and
            that document holds none of two or more of its words (side by side, over a third of its terms). Env
            ``NEXUS_ABSENT_IN_DOCUMENT``.
        absent_document_margin: that margin. Env ``NEXUS_ABSENT_DOCUMENT_MARGIN``.
        absent_misspelt_chars: a word of this many letters or more that no document holds but that is one edit away
            from a word one holds is a misspelling of it, not an absent word. Env ``NEXUS_ABSENT_MISSPELT_CHARS``.
        absent_share: the absent words tell only when they are at most this share of the question's terms (no
            document named), or more than it (in the named document) (0-1). Env ``NEXUS_ABSENT_SHARE``.
        absent_document_min: the fewest words the named document must lack for that rule. Env
            ``NEXUS_ABSENT_DOCUMENT_MIN``.
        section_mentions: when the document a question names has no section it names, answer from that document's
            passages that mention the section as the question writes it (an amendment's "Paragraph 2.3 of the
            Original Agreement is deleted"); off: answer ``[]``. Env ``NEXUS_SECTION_MENTIONS``.
        document_match: a question that names its document ("under the Acme lease") is answered from that
            document. Env ``NEXUS_DOCUMENT_MATCH``.
        name_min_terms / name_distinctive_share: the best document's name must share this many distinctive terms
            with the question, terms in at most this share of the workspace's document names (0-1), for the
            question to name it. Env ``NEXUS_NAME_MIN_TERMS``, ``NEXUS_NAME_DISTINCTIVE_SHARE``.
        name_margin: that document's score (name, plus first pages) must be this many times the next one's;
            documents matched by the same terms within this factor of it are named with it. Env ``NEXUS_NAME_MARGIN``.
        name_max_documents: the most documents one name may pick together (one document kept in several formats).
            Env ``NEXUS_NAME_MAX_DOCUMENTS``.
        name_front_weight: weight of a document's first pages against its name when a question's words are matched
            to documents. Env ``NEXUS_NAME_FRONT_WEIGHT``.
        local_idf: within the document a question names, each word's BM25 weight is multiplied by (its IDF in that
            document / its IDF in the workspace) to this power; 0 turns it off. Env ``NEXUS_LOCAL_IDF``.
        local_idf_min_weight: the least weight ``local_idf`` leaves a word (one in every span of the document). Env
            ``NEXUS_LOCAL_IDF_MIN_WEIGHT``.
        local_idf_max_documents: it applies when the question names at most this many documents together (one, in
            a few formats). Env ``NEXUS_LOCAL_IDF_MAX_DOCUMENTS``.
        twin_same_passage: two hits of twin documents (one document in two formats) are one passage when this share
            of the shorter one's distinct words are in the other (0-1). Env ``NEXUS_TWIN_SAME_PASSAGE``.
        twin_stands_for: a paged twin stands in for a text copy's hit when it holds this share of that hit's
            distinct words (0-1). Env ``NEXUS_TWIN_STANDS_FOR``.
        ef_search: the HNSW beam of the dense leg (pgvector's ``hnsw.ef_search``, at most 1000): wider finds more
            of the exact nearest spans, slower. A nearest-first read (``dense_scan``) has a beam as wide as itself,
            and a walk after one that fell short, or one that the lexical leg's spans prove incomplete, has 1000.
            Env ``NEXUS_EF_SEARCH``.
        hnsw_m / hnsw_ef_construction: the build parameters of the HNSW index (pgvector's ``m``, 2-100, and
            ``ef_construction``, 4-1000 and at least twice ``m``). A wider build beam than pgvector's 64 finds
            the nearest spans of clustered collections (many near-copies of one clause) at the same search cost,
            for a slower build. Used when the index is created; ``nexus reindex --vectors`` rebuilds an existing
            one with them. Env ``NEXUS_HNSW_M``, ``NEXUS_HNSW_EF_CONSTRUCTION``.
        dense_scan: under a filter that may pass many spans (``doc:``, ``doc_type:``, ``page:``, an excluded word)
            or a quoted phrase, the dense leg first reads this many spans nearest the question (with an HNSW beam of
            at least as many, at most 1000) and filters them; when fewer than ``dense_depth`` pass, it ranks every
            span that passes instead (under a phrase whose rarest word 20,000 spans hold, after reading the 2,000
            nearest, when that is more: ``retrieve/legs.py``, ``deep_scan``). Env ``NEXUS_DENSE_SCAN``.
        dense_exact: under a filter that passes spans by their keys (a named section or document), the dense leg
            ranks every span that passes by its exact distance when the planner expects at most this many times
            sqrt(``dense_depth`` x spans stored) to pass, else it walks the HNSW graph. Reading ``n`` spans that
            pass costs about ``n``; the graph's walk goes past about ``dense_depth`` x stored / ``n`` spans that do
            not to find ``dense_depth`` that do, and the two meet near that square root (measured at 10^6 spans:
            about 13,000 spans passing, 1.8 times it), which the planner's estimate of a section overstates two to
            three times. Env ``NEXUS_DENSE_EXACT``.
        dense_seeds: under a filter, in a workspace of at least 200,000 spans, the spans this deep in the lexical
            index's ranking (past the lexical leg's own ``sparse_depth``) that pass the filter, and are nearer the
            question than the farthest span of the dense leg's walk of the HNSW graph, join that walk's spans: under
            a filter the walk may stop short of the nearest spans that pass, in a cluster of near-copies of a clause
            (at 10^6 generated spans, filtered questions' recall@10 went from 0.938 to 0.994 for about 6 ms each; see
            ``bench/README.md``). 0 leaves the walks as they are. Env
            ``NEXUS_DENSE_SEEDS``.
        ocr: when PDF pages are OCR'd: ``auto`` (pages without a usable text layer), ``always`` or ``never``.
            Env ``NEXUS_OCR``; ``nexus ingest --ocr`` wins.
        ocr_workers: pages OCR'd side by side, one single-threaded Tesseract process each. Env
            ``NEXUS_OCR_WORKERS``.
        ocr_lang: Tesseract language (its data must be installed). Env ``NEXUS_OCR_LANG``.
        parse_timeout: seconds a file may take to be read (opened, parsed, laid out) in the reader process, and
            at most for any one page; the reader is killed when it runs over. Env ``NEXUS_PARSE_TIMEOUT``.
        parse_page_timeout: seconds added to a PDF's reading budget for each of its pages (OCR takes several
            seconds a page). Env ``NEXUS_PARSE_PAGE_TIMEOUT``.
        parse_memory_mb: address space the reader process may use, in MiB (``RLIMIT_AS``). Env
            ``NEXUS_PARSE_MEMORY_MB``.
    """

    home: Path = field(default_factory=_default_home)
    database_url: str | None = None
    read_database_url: str | None = None
    pg_shared_buffers: str = "auto"
    replica_wait: float = 2.0
    embedder: str = "local"
    ollama_url: str = "http://127.0.0.1:11434"
    embed_batch: int | None = None
    embed_cache: bool = False
    threads: int = 2
    embed_title: bool = False
    chunk_max_chars: int = 900
    max_file_bytes: int = 200 * 1024 * 1024
    max_pages: int = 5000
    ingest_roots: tuple[Path, ...] = ()
    require_token: bool = False
    rrf_k: int = RRF_K
    section_boost: float = MAX_SECTION_BOOST
    section_inside_share: float = 0.75
    floor: float | None = None
    dense_weight: float = 1.0
    sparse_weight: float = 1.0
    dense_depth: int = 50
    sparse_depth: int = 50
    context_boost: float = 0.5
    ids_boost: float = 2.0
    coverage_floor: float = 0.9
    agree_margin: float = 0.05
    agree_coverage: float = 0.5
    named_top: int = 3
    absent_margin: float = 0.2
    absent_min_spans: int = 1000
    absent_in_document: bool = True
    absent_document_margin: float = 0.05
    absent_misspelt_chars: int = 4
    absent_share: float = 1 / 3
    absent_document_min: int = 2
    section_mentions: bool = True
    document_match: bool = True
    name_min_terms: int = 2
    name_distinctive_share: float = 0.34
    name_margin: float = 1.25
    name_max_documents: int = 3
    name_front_weight: float = 0.3
    local_idf: float = 1.5
    ef_search: int = EF_SEARCH
    hnsw_m: int = HNSW_M
    hnsw_ef_construction: int = HNSW_EF_CONSTRUCTION
    dense_scan: int = 400
    dense_exact: float = 4.0
    dense_seeds: int = 400
    local_idf_min_weight: float = 0.01
    local_idf_max_documents: int = 3
    twin_same_passage: float = 0.8
    twin_stands_for: float = 0.5
    ocr: str = "auto"
    ocr_workers: int = field(default_factory=lambda: max(1, min(os.cpu_count() or 1, 8)))
    ocr_lang: str = "eng"
    parse_timeout: float = 120.0
    parse_page_timeout: float = 20.0
    parse_memory_mb: int = 2048

    @property
    def blob_dir(self) -> Path:
        """Where original bytes are kept, content-addressed by sha256."""
        return self.home / "blobs"

    @property
    def lexical_dir(self) -> Path:
        """Where the lexical (BM25) indexes live, one folder per workspace (derived: ``nexus reindex`` rebuilds)."""
        return self.home / "lexical"

    @property
    def pgdata(self) -> Path:
        """Data directory of the embedded PostgreSQL server."""
        return self.home / "pgdata"

    @classmethod
    def load(cls, overrides: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> Settings:
        """Build settings from defaults, the config file, the environment and explicit overrides.

        Args:
            overrides: values that win over everything (``None`` values are ignored).
            env: the environment to read (``os.environ`` when omitted; pass ``{}`` to ignore it).
        """
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        home_raw = (overrides or {}).get("home") or env.get(_ENV_PREFIX + "HOME")
        home = Path(str(home_raw)).expanduser() if home_raw else _default_home()
        values.update(_read_config_file(home / "config.toml"))
        for f in fields(cls):
            raw = env.get(_ENV_PREFIX + f.name.upper())
            if raw is not None and raw != "":
                values[f.name] = raw
        values.update({k: v for k, v in (overrides or {}).items() if v is not None})
        values["home"] = home
        return cls()._with(values)

    def _with(self, values: Mapping[str, Any]) -> Settings:
        known = {f.name: f for f in fields(self)}
        converted: dict[str, Any] = {}
        for name, raw in values.items():
            if name not in known:
                raise ConfigError(f"unknown setting {name!r}; known: {', '.join(sorted(known))}")
            converted[name] = _convert(name, raw, getattr(self, name))
        out = replace(self, **converted)
        if out.hnsw_ef_construction < 2 * out.hnsw_m:
            raise ConfigError(
                f"setting 'hnsw_ef_construction': {out.hnsw_ef_construction} is less than twice hnsw_m"
                f" ({out.hnsw_m}), which pgvector refuses"
            )
        return out

    @property
    def index_build(self) -> IndexBuild:
        """The HNSW index's build parameters."""
        return IndexBuild(self.hnsw_m, self.hnsw_ef_construction)


#: PostgreSQL's units of memory, as it writes them (a bare number of ``shared_buffers`` is of 8 kB pages).
_MEMORY_UNITS = {"B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
_PAGE = 8192
#: The ``shared_buffers`` PostgreSQL accepts, in pages of 8 kB.
SHARED_BUFFERS_PAGES = (16, (1 << 30) - 1)


def buffer_bytes(text: str) -> int:
    """Bytes of a ``shared_buffers`` size as PostgreSQL reads it: a number (a fraction too) with ``B``, ``kB``,
    ``MB``, ``GB`` or ``TB``, or a bare number of 8 kB pages.

    Raises:
        ValueError: not such a size, or outside what PostgreSQL accepts (128kB to just under 8TB).
    """
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(B|kB|MB|GB|TB)?\s*", text)
    if found is None:
        raise ValueError("use auto or a size such as 512MB or 1.5GB")
    size = int(float(found[1]) * (_MEMORY_UNITS[found[2]] if found[2] else _PAGE))
    low, high = SHARED_BUFFERS_PAGES
    if not low * _PAGE <= size <= high * _PAGE:
        raise ValueError("PostgreSQL accepts 128kB to just under 8TB")
    return size


def _convert(name: str, raw: Any, default: Any) -> Any:
    try:
        if name == "ingest_roots":
            if isinstance(raw, str):
                raw = [p for p in raw.split(os.pathsep) if p]
            return tuple(Path(str(p)).expanduser().resolve() for p in raw)
        if name == "home":
            return Path(str(raw)).expanduser().resolve()
        if name == "ocr":
            if str(raw) not in OCR_MODES:
                raise ValueError(f"choose one of {', '.join(OCR_MODES)}")
            return str(raw)
        if name == "pg_shared_buffers":
            if str(raw).strip().lower() == "auto":
                return "auto"
            buffer_bytes(str(raw))
            return str(raw).strip()
        if isinstance(default, bool):
            return str(raw).lower() in ("1", "true", "yes", "on")
        if name in ("section_boost", "floor") or isinstance(default, float):
            return _float(name, raw)
        if isinstance(default, int) or name == "embed_batch":
            return _int(name, raw)
        return None if raw is None else str(raw)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"setting {name!r}: cannot use {raw!r} ({exc})") from exc


def _int(name: str, raw: Any) -> int | None:
    if name == "embed_batch" and str(raw).strip().lower() == "auto":
        return None  # the model's own choice, even where config.toml set a number
    value = int(raw)
    if name == "dense_seeds" and value == 0:
        return 0  # off
    if value <= 0:
        raise ValueError("must be positive" + (" (or 0: off)" if name == "dense_seeds" else ""))
    if name == "ef_search" and value > MAX_EF_SEARCH:
        raise ValueError(f"pgvector allows at most {MAX_EF_SEARCH}")
    bounds = {"hnsw_m": HNSW_M_RANGE, "hnsw_ef_construction": HNSW_EF_CONSTRUCTION_RANGE}.get(name)
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        raise ValueError(f"pgvector allows {bounds[0]}-{bounds[1]}")
    return value


def _float(name: str, raw: Any) -> float:
    number = float(raw)
    if name in ("section_boost", "floor"):
        if not -1.0 <= number <= 1.0:
            raise ValueError("must be between -1 and 1")
    elif name in _MAY_BE_ZERO:
        if not math.isfinite(number) or number < 0:
            raise ValueError("must be 0 (off) or a positive number")
    elif name in _SHARES:
        if not 0 < number <= 1:
            raise ValueError("must be a share: more than 0, at most 1")
    elif not math.isfinite(number) or number <= 0:
        raise ValueError("must be a positive number")
    return number


_T = TypeVar("_T")


def default_of(name: str, kind: type[_T]) -> _T:
    """The default of ``Settings.<name>``, checked to be a ``kind``: the default of the objects that carry that
    setting to where it is used, so that its value is written once, in :class:`Settings`."""
    value = Settings.__dataclass_fields__[name].default
    if not isinstance(value, kind):
        raise TypeError(f"Settings.{name} defaults to {value!r}, not to a {kind.__name__}")
    return value


def _read_config_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config file ({exc})") from exc
    data.pop("home", None)
    return data
