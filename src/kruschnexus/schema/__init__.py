"""The frozen wire contract (imports nothing from the rest of kruschnexus)."""

from kruschnexus.schema.v1 import SCHEMA_VERSION, Hit

__all__ = ["SCHEMA_VERSION", "Hit"]
