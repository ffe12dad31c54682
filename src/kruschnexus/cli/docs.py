"""The command-line reference page, rendered from the commands' own help (``docs/cli.md``)."""

from __future__ import annotations

import click

from kruschnexus.cli.app import cli


def render() -> str:
    """The page: the root help, then each command's help, in name order."""
    parts = [
        "# Command line reference\n",
        "Generated from the commands' own help by `python scripts/gen_docs.py`; do not edit by hand.\n",
    ]
    root = click.Context(cli, info_name="nexus", terminal_width=88, max_content_width=88)
    parts.append(f"```\n{cli.get_help(root)}\n```\n")
    for name in sorted(cli.commands):
        parts += _command(cli.commands[name], name, root, "##")
    return "\n".join(parts)


def _command(command: click.Command, name: str, parent: click.Context, level: str) -> list[str]:
    """A command's section, then one per subcommand of a group (``nexus token create``)."""
    ctx = click.Context(command, info_name=name, parent=parent, terminal_width=88, max_content_width=88)
    parts = [f"{level} {ctx.command_path}\n\n```\n{command.get_help(ctx)}\n```\n"]
    if isinstance(command, click.Group):
        for sub in sorted(command.commands):
            parts += _command(command.commands[sub], sub, ctx, level + "#")
    return parts
