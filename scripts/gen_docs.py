"""Regenerate the generated docs: docs/cli.md (command help) and the hit JSON Schema."""

from __future__ import annotations

from pathlib import Path

from kruschnexus.cli.docs import render
from kruschnexus.schema.v1 import json_schema_text

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    """Write both files."""
    (ROOT / "docs" / "cli.md").write_text(render(), encoding="utf-8")
    (ROOT / "src" / "kruschnexus" / "schema" / "hit.v1.json").write_text(json_schema_text(), encoding="utf-8")
    print("wrote docs/cli.md and src/kruschnexus/schema/hit.v1.json")


if __name__ == "__main__":
    main()
