"""Regenerate src/kruschnexus/schema/hit.v1.json from the pydantic model."""

from __future__ import annotations

from pathlib import Path

from kruschnexus.schema.v1 import json_schema_text

TARGET = Path(__file__).resolve().parents[1] / "src" / "kruschnexus" / "schema" / "hit.v1.json"


def main() -> None:
    """Write the file."""
    TARGET.write_text(json_schema_text(), encoding="utf-8")
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
