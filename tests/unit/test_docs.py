"""Docs come from code: the CLI page is current, every setting is documented, the README is honest."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

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
