"""The command line through click's CliRunner against the session's database."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kruschnexus.cli.app import cli
from kruschnexus.schema.v1 import SCHEMA_VERSION
from tests.conftest import FIXTURES

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cli_env")]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_ingest_json_export_verify(workspace: str) -> None:
    code, out = run(
        "ingest",
        str(FIXTURES / "sample_contract.pdf"),
        str(FIXTURES / "empty.pdf"),
        str(FIXTURES / "scanned_lease.pdf"),
        "-w",
        workspace,
        "--create",
        "--ocr",
        "never",
        "--json",
    )
    assert code == 0, out
    report = json.loads(out.strip().splitlines()[-1])
    statuses = {f["path"].rsplit("/", 1)[-1]: f["status"] for f in report["files"]}
    assert statuses == {"sample_contract.pdf": "ingested", "empty.pdf": "ingested", "scanned_lease.pdf": "ingested"}
    code, out = run("export", "-w", workspace)
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert code == 0 and lines and all(h["schema_version"] == SCHEMA_VERSION and h["score"] is None for h in lines)
    code, out = run("verify", "-w", workspace, "--json")
    result = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and result["ok"] and result["spans"] == len(lines)
    # A blank page needs nothing; the scanned pages need the OCR that --ocr never turned off.
    assert result["needs_ocr"] == [{"source": "scanned_lease.pdf", "page": n} for n in (1, 2)]


def test_ingest_exit_code_when_a_file_fails(workspace: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4 nothing else")
    code, out = run("ingest", str(bad), str(FIXTURES / "ligatures.pdf"), "-w", workspace, "--create")
    assert code == 1
    assert "broken.pdf" in out and "failed" in out and "ingested" in out


def test_bad_workspace_name_is_a_clear_error() -> None:
    code, out = run("export", "-w", "Bad Name")
    assert code == 2 and "invalid workspace name" in out


@pytest.mark.parametrize("command", ["export", "verify", "search", "reingest"])
def test_a_missing_workspace_is_an_error_everywhere(command: str) -> None:
    args = [command, "-w", "no-such-workspace-here"] + (["rent"] if command == "search" else [])
    code, out = run(*args)
    assert code == 2 and "'no-such-workspace-here' does not exist" in out


def test_ingest_into_an_unknown_workspace_needs_create(workspace: str) -> None:
    code, out = run("ingest", str(FIXTURES / "sample_contract.pdf"), "-w", workspace, "--create")
    assert code == 0
    misspelt = workspace[:-1] + ("x" if workspace[-1] != "x" else "y")
    code, out = run("ingest", str(FIXTURES / "ligatures.pdf"), "-w", misspelt)
    assert code == 2 and f"no workspace '{misspelt}'" in out and f"did you mean '{workspace}'" in out, out
    assert "--create" in out
    code, out = run("workspaces", "list", "--json")
    assert misspelt not in {w["name"] for w in json.loads(out)}, "nothing was made"


def test_workspaces_and_documents_commands(workspace: str) -> None:
    code, out = run("workspaces", "create", workspace, "--json")
    assert code == 0 and json.loads(out) == {"workspace": workspace, "created": True}
    code, out = run("workspaces", "create", workspace)
    assert code == 0 and "already exists" in out
    run("ingest", str(FIXTURES / "sample_contract.pdf"), str(FIXTURES / "office_rent_roll.csv"), "-w", workspace)
    code, out = run("workspaces", "list", "--json")
    listed = {w["name"]: w for w in json.loads(out)}
    assert code == 0 and listed[workspace]["documents"] == 2
    code, out = run("documents", "list", "-w", workspace, "--json")
    docs = {d["source"]: d for d in json.loads(out)}
    assert code == 0 and set(docs) == {"sample_contract.pdf", "office_rent_roll.csv"}
    contract = docs["sample_contract.pdf"]
    for name in ("sample_contract.pdf", contract["doc_id"], contract["doc_id"][:10]):
        code, out = run("documents", "show", name, "-w", workspace, "--json")
        assert code == 0 and json.loads(out)["doc_id"] == contract["doc_id"], name
    code, out = run("documents", "show", "abc", "-w", workspace)
    assert code == 2 and "no document 'abc'" in out, "a prefix shorter than 8 characters names nothing"
    code, out = run("documents", "delete", "sample_contract.pdf", "-w", workspace, "--yes", "--json")
    assert code == 0 and json.loads(out)["deleted"] == contract["doc_id"]
    code, out = run("documents", "list", "-w", workspace, "--json")
    assert code == 0 and [d["source"] for d in json.loads(out)] == ["office_rent_roll.csv"]
    code, out = run("documents", "list", "-w", workspace)
    assert code == 0 and "documents of workspace" in out and "sample_contract" not in out
    result = CliRunner().invoke(cli, ["workspaces", "delete", workspace], input="n\n")
    assert result.exit_code != 0, "declined: nothing is deleted"
    code, out = run("workspaces", "delete", workspace, "--yes")
    assert code == 0 and "1 document" in out
    code, out = run("documents", "list", "-w", workspace)
    assert code == 2 and "does not exist" in out
    code, out = run("workspaces", "delete", workspace, "--yes")
    assert code == 2 and "no workspace" in out


def test_doctor_json() -> None:
    code, out = run("doctor", "--json")
    report = json.loads(out.strip().splitlines()[-1])
    names = {c["name"]: c for c in report["checks"]}
    assert {"database", "pgvector", "model", "workspaces", "tesseract", "disk"} <= set(names)
    assert names["database"]["ok"] and names["model"]["ok"] and names["pgvector"]["detail"].startswith("version 0.")
    assert code == (0 if report["healthy"] else 1)


def test_every_command_has_help() -> None:
    for name, command in cli.commands.items():
        assert command.help and len(command.help) > 20, name
        code, out = run(name, "--help")
        assert code == 0 and "Usage" in out


def test_a_query_may_start_with_an_exclusion_and_section_alone_is_a_lookup(workspace: str) -> None:
    code, out = run("ingest", str(FIXTURES / "sample_contract.pdf"), "-w", workspace, "--create", "--json")
    assert code == 0, out
    code, out = run("explain", "-waiver late charge", "-w", workspace, "--json")
    assert code == 0, out
    parsed = json.loads(out.strip().splitlines()[-1])["parsed"]
    assert parsed["excluded_terms"] == ["waiver"] and parsed["text"] == "late charge"
    code, out = run("search", "-w", workspace, "rent", "-deposit", "--k=3", "--json")
    assert code == 0, out
    hits = json.loads(out.strip().splitlines()[-1])
    assert hits and len(hits) <= 3 and all("deposit" not in h["text"].lower() for h in hits)
    code, out = run("search", "section:8.24", "doc:*.PDF", "-w", workspace, "--json")
    hits = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and hits and all(h["section"].startswith("8.24") for h in hits), out


def test_piped_output_is_never_wrapped(workspace: str) -> None:
    code, out = run("ingest", str(FIXTURES / "sample_contract.pdf"), "-w", workspace, "--create", "--json")
    assert code == 0, out
    code, out = run("search", "security deposit returned to the tenant", "-w", workspace)
    lines = [line for line in out.splitlines() if line.strip()]
    assert code == 0 and lines
    assert all(len(line.split("\t")) == 5 and line.split("\t")[0].isdigit() for line in lines), out
    name = "a-missing-workspace-whose-error-line-passes-80-cols"
    code, out = run("search", "rent", "-w", name)
    assert code == 2 and f"workspace {name!r} does not exist: ingest into it first" in out.splitlines()[-1]
