"""The wire contract and the public surface: schema golden file, exports, import layering."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

import kruschnexus
from kruschnexus.schema.v1 import Hit, json_schema_text

SRC = Path(kruschnexus.__file__).resolve().parent
GOLDEN = SRC / "schema" / "hit.v1.json"


def test_committed_json_schema_matches_the_model() -> None:
    if os.environ.get("NEXUS_REGEN_GOLDEN") == "1":
        GOLDEN.write_text(json_schema_text(), encoding="utf-8")
    assert GOLDEN.read_text(encoding="utf-8") == json_schema_text(), "run scripts/gen_docs.py and review the diff"


def test_regen_flag_is_off() -> None:
    assert os.environ.get("NEXUS_REGEN_GOLDEN") != "1", "NEXUS_REGEN_GOLDEN must not be set in a committed run"


def test_schema_fields_are_the_frozen_v1_set() -> None:
    """1.0's fields, and those 1.1 added (``document``, ``version``): additive only."""
    schema = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert sorted(schema["properties"]) == sorted([
        "schema_version", "citation", "doc_id", "source", "document", "version", "doc_type", "page_number",
        "page_label", "locator",
        "header", "heading_path", "section", "char_start", "char_end", "bbox", "boxes", "match_reasons", "text",
        "score", "confidence", "used_ocr",
    ])  # fmt: skip
    assert schema["additionalProperties"] is False


_box = st.lists(st.floats(0, 1000, allow_nan=False), min_size=4, max_size=4)
_hits = st.builds(
    Hit,
    citation=st.text(max_size=40),
    doc_id=st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
    source=st.text(min_size=1, max_size=30),
    document=st.text(min_size=1, max_size=40),
    version=st.integers(1, 500),
    doc_type=st.none() | st.text(max_size=10),
    page_number=st.none() | st.integers(1, 5000),
    page_label=st.none() | st.text(max_size=5),
    locator=st.none() | st.fixed_dictionaries({"kind": st.just("row"), "row": st.integers(1, 100)}),
    header=st.text(max_size=40),
    heading_path=st.lists(st.text(max_size=20), max_size=4),
    section=st.none() | st.text(max_size=12),
    char_start=st.integers(0, 10_000),
    char_end=st.integers(0, 10_000),
    bbox=st.none() | _box,
    boxes=st.none() | st.lists(_box, max_size=4),
    match_reasons=st.lists(st.sampled_from(["dense_rank_1", "sparse_rank_2", "phrase_match"]), max_size=3),
    text=st.text(max_size=200),
    score=st.none() | st.floats(-1, 2, allow_nan=False),
    confidence=st.none() | st.floats(0, 1),
    used_ocr=st.booleans(),
)


@given(_hits)
def test_hit_json_round_trip(hit: Hit) -> None:
    assert Hit.model_validate_json(hit.model_dump_json()) == hit
    assert hit.model_dump(mode="json")["schema_version"] == "1.1"


def test_a_1x_reader_accepts_any_minor_version_and_no_other_major() -> None:
    hit = Hit(
        citation="a.pdf p.1", doc_id="0" * 64, source="a.pdf", document="a.pdf", version=1, doc_type=None,
        page_number=1, page_label=None, locator=None, header="", heading_path=[], section=None, char_start=0,
        char_end=1, bbox=None, boxes=None, match_reasons=[], text="a", score=None, confidence=None, used_ocr=False,
    )  # fmt: skip
    wire = hit.model_dump(mode="json")
    assert Hit.model_validate({**wire, "schema_version": "1.7"}).schema_version == "1.7"
    for other in ("2.0", "1", "1.x", ""):
        with pytest.raises(ValidationError):
            Hit.model_validate({**wire, "schema_version": other})


def test_public_names_are_pinned_and_sorted() -> None:
    assert kruschnexus.__all__ == sorted(kruschnexus.__all__, key=lambda n: (not n.isupper(), n))
    assert set(kruschnexus.__all__) == {
        "SCHEMA_VERSION", "AuthError", "ConfigError", "Corpus", "DoctorReport", "DocumentInfo", "EmbedError",
        "ExplainTrace", "FileResult", "ForbiddenError", "Hit", "Hub", "NotFoundError", "PageText", "ParseError",
        "PkgError", "QueryError", "SchemaVersionError", "SearchResponse", "Settings", "StoreError",
        "UnsupportedFormatError", "VerifyReport", "WorkspaceInfo",
    }  # fmt: skip
    for name in kruschnexus.__all__:
        assert getattr(kruschnexus, name).__doc__ or name == "SCHEMA_VERSION", name


# Lower layers may not import higher ones (cli -> corpus -> ingest/verify/doctor -> stages -> model/errors/config).
LAYERS = {
    "schema": 0,
    "errors": 0,
    "model": 1,
    "config": 1,
    "parse": 2,
    "layout": 3,
    "chunk": 3,
    "embed": 3,
    "store": 3,
    "extract": 4,
    "worker": 4,
    "lexical": 4,
    "retrieve": 4,
    "blobs": 2,
    "sandbox": 2,
    "wire": 4,
    "ingest": 5,
    "verify": 5,
    "revisions": 5,
    "pageimage": 5,
    "tokens": 5,
    "doctor": 5,
    "corpus": 6,
    "hub": 7,
    "adapters": 7,
    "eval": 7,
    "api": 8,
    "mcp": 8,
    "cli": 9,
    "__main__": 10,
    "__init__": 10,
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "kruschnexus":
            found.update(f"kruschnexus.{a.name}" for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kruschnexus"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("kruschnexus"))
    return found


def _layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_imports_point_down_only() -> None:
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC)
        own = rel.parts[0].removesuffix(".py")
        assert own in LAYERS, f"add {own} to LAYERS"
        for module in _imports(path):
            target = _layer_of(module)
            if target == own:
                continue
            assert LAYERS[target] <= LAYERS[own], f"{rel} imports {module} (upward)"
            if own == "schema":
                raise AssertionError(f"schema/ must import nothing from kruschnexus: {rel} imports {module}")


def test_no_two_modules_or_same_layer_packages_import_each_other() -> None:
    """Strict layering: two modules never import each other, and of two packages on one layer at most one imports
    the other."""
    modules: set[tuple[str, str]] = set()
    packages: set[tuple[str, str]] = set()
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC)
        own = rel.parts[0].removesuffix(".py")
        name = ".".join(("kruschnexus", *rel.with_suffix("").parts)).removesuffix(".__init__")
        for module in _imports(path):
            modules.add((name, module))
            target = _layer_of(module)
            if target != own and LAYERS[target] == LAYERS[own]:
                packages.add((own, target))
    assert sorted((a, b) for a, b in modules if (b, a) in modules and a < b) == []
    assert sorted((a, b) for a, b in packages if (b, a) in packages and a < b) == []


def test_every_surface_offers_the_same_ocr_modes() -> None:
    """The OCR modes are one fact (``config.OCR_MODES``): the CLI's choices and the REST form field offer exactly
    those (REST adds ``server``: the server's own setting)."""
    import typing

    import click

    from kruschnexus.api import routes
    from kruschnexus.cli.app import cli
    from kruschnexus.config import OCR_MODES

    for name in ("ingest", "reingest"):
        command = cli.commands[name]
        option = next(p for p in command.params if p.name == "ocr")
        assert isinstance(option.type, click.Choice) and tuple(option.type.choices) == OCR_MODES, name
    annotated = typing.get_type_hints(routes.upload_documents, include_extras=True)["ocr"]
    literal = typing.get_args(annotated)[0]
    assert typing.get_args(literal) == ("server", *OCR_MODES)
