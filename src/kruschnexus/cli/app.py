"""``nexus``: the root command group. Each verb lives in its own module and only calls :class:`Corpus`."""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, TypeVar

import click

from kruschnexus.cli import render
from kruschnexus.errors import PkgError

if TYPE_CHECKING:
    from kruschnexus.corpus import Corpus

F = TypeVar("F", bound=Callable[..., Any])


def workspace_option(func: F) -> F:
    """``--workspace W`` (env ``NEXUS_WORKSPACE``)."""
    return click.option(
        "--workspace",
        "-w",
        required=True,
        envvar="NEXUS_WORKSPACE",
        show_envvar=True,
        help="Workspace name (a-z, 0-9, _ and -).",
    )(func)


def json_option(func: F) -> F:
    """``--json``: machine-readable output."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")(func)


class NexusGroup(click.Group):
    """Maps the library's errors to one line on stderr and exit code 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except PkgError as exc:
            render.error(str(exc))
            ctx.exit(2)


class QueryCommand(click.Command):
    """A command whose free-text QUERY may start with ``-`` (an exclusion: ``nexus search '-waiver late charge'``).

    Every argument that starts with ``-`` and is not one of the command's own options (``-w``, ``--k=3``) or a
    number is query text, not an option; the query's words are joined by spaces. ``--`` still ends the options.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        names = {name for p in self.params if isinstance(p, click.Option) for name in (*p.opts, *p.secondary_opts)}
        names.update(self.get_help_option_names(ctx))
        options: list[str] = []
        text: list[str] = []
        rest = iter(args)
        for arg in rest:
            if arg == "--":
                text.extend(rest)
            elif arg.startswith("-") and arg.split("=", 1)[0] not in names and not _is_number(arg):
                text.append(arg)
            else:
                options.append(arg)
        return super().parse_args(ctx, [*options, "--", *text] if text else options)


def searching_corpus(workspace: str) -> Corpus:
    """The corpus a searching verb opens (``search``, ``explain``): the workspace's name checked before anything
    loads, then the bundled model's load begun before the corpus is imported, and handed to it (docs/scaling.md,
    "From the shell")."""
    from kruschnexus.config import Settings, check_workspace_name
    from kruschnexus.embed.registry import bundled, load_embedder

    settings = Settings.load()
    check_workspace_name(workspace)
    loading = load_embedder(settings) if bundled(settings) else None
    from kruschnexus.corpus import Corpus  # imported while the model loads

    return Corpus(workspace=workspace, settings=settings, embedder=loading)


def _is_number(arg: str) -> bool:
    try:
        float(arg)
    except ValueError:
        return False
    return True


class LazyCommands(MutableMapping[str, click.Command]):
    """The root group's commands by name, each verb's module imported when its command is first asked for: a search
    does not import the ingestion's parsers, the evaluation or the servers (docs/scaling.md, "From the shell").
    ``nexus --help`` and the reference page import them all."""

    def __init__(self, modules: Mapping[str, str]) -> None:
        self._modules = dict(modules)
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            command = importlib.import_module(self._modules[name]).command
            if not isinstance(command, click.Command):
                raise TypeError(f"{self._modules[name]}.command is not a click command")
            self._loaded[name] = command
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self._modules and name not in self._loaded:
            raise KeyError(name)
        self._modules.pop(name, None)
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._modules.keys() | self._loaded.keys()))

    def __len__(self) -> int:
        return len(self._modules.keys() | self._loaded.keys())


#: Each verb and the module whose ``command`` it is.
COMMANDS = {
    "diff": "kruschnexus.cli.diff",
    "doctor": "kruschnexus.cli.doctor",
    "documents": "kruschnexus.cli.documents",
    "eval": "kruschnexus.cli.evaluate",
    "explain": "kruschnexus.cli.explain",
    "export": "kruschnexus.cli.export",
    "ingest": "kruschnexus.cli.ingest",
    "mcp": "kruschnexus.cli.mcp",
    "reindex": "kruschnexus.cli.reindex",
    "reingest": "kruschnexus.cli.reingest",
    "resolve": "kruschnexus.cli.resolve",
    "search": "kruschnexus.cli.search",
    "serve": "kruschnexus.cli.serve",
    "token": "kruschnexus.cli.token",
    "verify": "kruschnexus.cli.verify",
    "workspaces": "kruschnexus.cli.workspaces",
}


@click.group(cls=NexusGroup, commands=LazyCommands(COMMANDS))
@click.version_option(package_name="kruschnexus", prog_name="nexus")
def cli() -> None:
    """KruschNexus: citation-grounded retrieval with exact pages, offsets and boxes.

    Configuration comes from the environment: NEXUS_HOME (data folder), NEXUS_DATABASE_URL (an external
    PostgreSQL; unset runs the embedded one), NEXUS_EMBEDDER (local or ollama:<model>). See
    docs/configuration.md.
    """


def main() -> None:
    """Console-script entry point. The command's work done, every object left is moved out of the garbage
    collector's reach (:func:`gc.freeze`): the interpreter's teardown at exit then need not walk them all, 0.1 s of a
    command that imported the search (docs/scaling.md, "From the shell"). ``atexit`` handlers still run and the
    modules are still cleared; garbage left in reference cycles (a failed command's traceback) is not finalised,
    its memory returned to the operating system at exit."""
    try:
        sys.exit(cli.main(standalone_mode=True))
    finally:
        gc.freeze()
