"""Docs come from code: the CLI page is current, every setting is documented, the README is honest."""

from __future__ import annotations

import itertools
import re
import shlex
from dataclasses import fields
from pathlib import Path

import click
import pytest

from kruschnexus.cli.app import cli
from kruschnexus.cli.docs import render
from kruschnexus.config import Settings

ROOT = Path(__file__).resolve().parents[2]


def test_cli_reference_is_current() -> None:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == render(), "run: python scripts/gen_docs.py"
    for name in cli.commands:
        assert f"## nexus {name}" in page


def test_every_setting_is_documented() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    for f in fields(Settings):
        assert f"`NEXUS_{f.name.upper()}`" in page, f.name


def test_readme_starts_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    head = readme[:800]
    assert head.index("make demo") < head.index("make test")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "\ndemo:" in makefile and "\ntest:" in makefile
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


FENCE = re.compile(r"^```([a-z]*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
#: Shell syntax that ends a command line: what follows is not the command's arguments.
ENDS = {">", ">>", "|", "&&", ";", "2>", "&"}


def documented_commands() -> list[tuple[str, list[str], dict[str, str]]]:
    """Every ``nexus ...`` line of a shell block in the README and docs/ (not the generated reference), as
    ``(where, arguments, environment)``; ``<id>``-style placeholders become a plain word."""
    found = []
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        if page.name == "cli.md":
            continue
        for lang, body in FENCE.findall(page.read_text(encoding="utf-8")):
            if lang not in ("", "bash", "sh", "shell", "console"):
                continue
            for line in body.splitlines():
                words = shlex.split(line.lstrip("$ "), comments=True) if "nexus" in line else []
                env: dict[str, str] = {}
                while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                    key, value = words.pop(0).split("=", 1)
                    env[key] = value
                if not words or not (words[0] == "nexus" or words[0].endswith("/nexus")):
                    continue
                args = list(itertools.takewhile(lambda w: w not in ENDS, words[1:]))
                args = [re.sub(r"^<[^>]+>$", "placeholder", a) for a in args]
                found.append((f"{page.name}: {line.strip()}", args, env))
    return found


def parse(args: list[str]) -> None:
    """Parse a command line as ``nexus`` would, down to the (sub)command, without running it."""
    ctx = click.Context(cli, info_name="nexus")
    group: click.Group = cli
    while True:
        assert args, f"no command after {ctx.command_path!r}"
        command = group.get_command(ctx, args[0])
        if command is None:
            raise click.UsageError(f"no command {args[0]!r} in {ctx.command_path!r}")
        if not isinstance(command, click.Group):
            command.make_context(args[0], args[1:], parent=ctx)
            return
        ctx, group, args = click.Context(command, info_name=args[0], parent=ctx), command, args[1:]


def test_every_documented_command_is_one_the_cli_accepts(monkeypatch: pytest.MonkeyPatch) -> None:
    commands = documented_commands()
    assert len(commands) >= 20 and {args[0] for _, args, _ in commands} >= {"ingest", "search", "serve", "token"}
    monkeypatch.chdir(ROOT)
    for where, args, env in commands:
        monkeypatch.delenv("NEXUS_WORKSPACE", raising=False)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        try:
            parse(args)
        except click.BadParameter as exc:  # a path the example names need not exist here
            assert isinstance(exc.param and exc.param.type, click.Path), (where, exc.format_message())
            assert not isinstance(exc, click.MissingParameter), (where, exc.format_message())
        except click.ClickException as exc:
            raise AssertionError(f"{where}: {exc.format_message()}") from None
