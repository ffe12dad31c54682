"""The package's names and the command line's verbs, imported on first use (docs/scaling.md, "From the shell")."""

from __future__ import annotations

import sys

import pytest

import kruschnexus
from kruschnexus.cli.app import COMMANDS, cli


def test_the_package_names_resolve_where_they_are_defined() -> None:
    homes: dict[str, str] = kruschnexus._HOMES
    assert set(kruschnexus.__all__) == set(homes)
    for name in kruschnexus.__all__:
        assert getattr(kruschnexus, name) is getattr(sys.modules[homes[name]], name), name
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        getattr(kruschnexus, "Nothing")  # noqa: B009 (a name the package does not have)


def test_every_verb_comes_from_its_module() -> None:
    assert list(cli.commands) == sorted(COMMANDS)
    for name in COMMANDS:
        command = cli.commands[name]
        assert command.name == name and getattr(sys.modules[COMMANDS[name]], "command") is command  # noqa: B009
    assert cli.commands.get("no-such-verb") is None
