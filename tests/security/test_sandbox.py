"""The ingest sandbox: only regular files and folders inside NEXUS_INGEST_ROOTS, after resolving links and '..'."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kruschnexus.errors import ConfigError
from kruschnexus.sandbox import MAX_NAME_CHARS, MAX_PATH_CHARS, plan_ingest, resolve_ingest_path


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """root/ (the only ingest root) with a file, a folder, and links in and out; outside/ beside it."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    (root / "docs" / "deep").mkdir(parents=True)
    outside.mkdir()
    (root / "lease.pdf").write_bytes(b"%PDF-1.4\n")
    (root / "docs" / "a.txt").write_text("a", encoding="utf-8")
    (root / "docs" / "deep" / "b.txt").write_text("b", encoding="utf-8")
    (outside / "secret.txt").write_text("secret", encoding="utf-8")
    (root / "link_out").symlink_to(outside / "secret.txt")
    (root / "link_dir_out").symlink_to(outside)
    (root / "link_in").symlink_to(root / "lease.pdf")
    return {"root": root, "outside": outside, "tmp": tmp_path}


def refusal(raw: str, roots: list[Path]) -> str:
    with pytest.raises(ConfigError) as caught:
        resolve_ingest_path(raw, roots)
    message = str(caught.value)
    assert repr(raw) in message, "the message names the path"
    return message


def test_a_file_inside_the_root_is_accepted_resolved(tree: dict[str, Path]) -> None:
    root = tree["root"]
    assert resolve_ingest_path(str(root / "lease.pdf"), [root]) == root / "lease.pdf"
    assert resolve_ingest_path(str(root / "docs"), [root]) == root / "docs"
    assert resolve_ingest_path(str(root / "docs" / ".." / "lease.pdf"), [root]) == root / "lease.pdf"


def test_a_relative_path_is_taken_relative_to_the_roots(tree: dict[str, Path]) -> None:
    root = tree["root"]
    assert resolve_ingest_path("lease.pdf", [root]) == root / "lease.pdf"
    assert resolve_ingest_path("docs/deep/b.txt", [tree["outside"], root]) == root / "docs" / "deep" / "b.txt"
    assert "no such file or folder under any ingest root" in refusal("missing.pdf", [root])


def test_a_symlink_inside_the_root_to_a_file_inside_is_accepted(tree: dict[str, Path]) -> None:
    root = tree["root"]
    assert resolve_ingest_path(str(root / "link_in"), [root]) == root / "lease.pdf"


def test_a_symlink_escaping_the_root_is_refused(tree: dict[str, Path]) -> None:
    root = tree["root"]
    message = refusal(str(root / "link_out"), [root])
    assert "outside the ingest roots" in message
    assert str(tree["outside"] / "secret.txt") in message
    assert "outside the ingest roots" in refusal(str(root / "link_dir_out" / "secret.txt"), [root])


def test_dot_dot_out_of_the_root_is_refused(tree: dict[str, Path]) -> None:
    root = tree["root"]
    assert "outside the ingest roots" in refusal(str(root / ".." / "outside" / "secret.txt"), [root])
    assert "outside the ingest roots" in refusal("../outside/secret.txt", [root])


def test_an_absolute_path_outside_is_refused(tree: dict[str, Path]) -> None:
    assert "outside the ingest roots" in refusal("/etc/passwd", [tree["root"]])


def test_a_missing_path_outside_the_roots_reads_as_outside(tree: dict[str, Path]) -> None:
    """Refusals do not reveal whether a file outside the roots exists."""
    root = tree["root"]
    assert "outside the ingest roots" in refusal(str(tree["outside"] / "nope.txt"), [root])
    assert "no such file or folder" in refusal(str(root / "nope.txt"), [root])


def test_tilde_is_expanded_then_checked(tree: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree["root"]
    monkeypatch.setenv("HOME", str(root))
    assert resolve_ingest_path("~/lease.pdf", [root]) == root / "lease.pdf"
    monkeypatch.setenv("HOME", str(tree["outside"]))
    assert "outside the ingest roots" in refusal("~/secret.txt", [root])


def test_nul_bytes_are_refused(tree: dict[str, Path]) -> None:
    assert "NUL byte" in refusal(str(tree["root"] / "lease.pdf") + "\x00.txt", [tree["root"]])


def test_over_long_paths_and_names_are_refused(tree: dict[str, Path]) -> None:
    root = tree["root"]
    assert f"longer than {MAX_NAME_CHARS}" in refusal(str(root / ("a" * (MAX_NAME_CHARS + 1))), [root])
    long_path = str(root) + "/a" * (MAX_PATH_CHARS // 2 + 1)
    assert f"longer than {MAX_PATH_CHARS}" in refusal(long_path, [root])


def test_unencodable_names_are_refused(tree: dict[str, Path]) -> None:
    assert "not a valid file name" in refusal("lease\ud800.pdf", [tree["root"]])


def test_an_empty_path_is_refused(tree: dict[str, Path]) -> None:
    assert "empty" in refusal("", [tree["root"]])


def test_a_fifo_is_refused(tree: dict[str, Path]) -> None:
    fifo = tree["root"] / "pipe"
    os.mkfifo(fifo)
    assert "FIFO" in refusal(str(fifo), [tree["root"]])


def test_a_device_is_refused_even_inside_a_root() -> None:
    assert "character device" in refusal("/dev/null", [Path("/dev")])


def test_dev_null_is_outside_an_ordinary_root(tree: dict[str, Path]) -> None:
    assert "outside the ingest roots" in refusal("/dev/null", [tree["root"]])


def test_no_roots_configured_refuses_everything(tree: dict[str, Path]) -> None:
    assert "set NEXUS_INGEST_ROOTS" in refusal(str(tree["root"] / "lease.pdf"), [])
    plan = plan_ingest([str(tree["root"] / "lease.pdf")], [])
    assert plan.files == []
    assert [r.path for r in plan.refused] == [str(tree["root"] / "lease.pdf")]


def test_a_root_given_through_a_symlink_is_resolved(tree: dict[str, Path]) -> None:
    alias = tree["tmp"] / "alias"
    alias.symlink_to(tree["root"])
    assert resolve_ingest_path(str(alias / "lease.pdf"), [alias]) == tree["root"] / "lease.pdf"


def test_a_folder_walk_rechecks_every_entry(tree: dict[str, Path]) -> None:
    root = tree["root"]
    plan = plan_ingest([str(root)], [root])
    lease = root / "lease.pdf"
    # lease.pdf twice: itself, then link_in resolved (ingest reports the second as unchanged)
    assert plan.files == [root / "docs" / "a.txt", root / "docs" / "deep" / "b.txt", lease, lease]
    assert plan.names == ["docs/a.txt", "docs/deep/b.txt", "lease.pdf", "link_in"], "named as nexus ingest names them"
    assert plan.refused == [], "entries found in a folder are skipped, not refused"
    skipped = {r.path: r.reason for r in plan.skipped}
    assert set(skipped) == {str(root / "link_dir_out"), str(root / "link_out")}
    assert all("outside the ingest roots" in reason for reason in skipped.values())


def test_a_folder_walk_refuses_fifos_and_skips_hidden_names(tree: dict[str, Path]) -> None:
    docs = tree["root"] / "docs"
    os.mkfifo(docs / "pipe")
    (docs / ".hidden.txt").write_text("h", encoding="utf-8")
    (docs / ".git").mkdir()
    (docs / ".git" / "config").write_text("c", encoding="utf-8")
    plan = plan_ingest([str(docs)], [tree["root"]])
    assert plan.files == [docs / "a.txt", docs / "deep" / "b.txt"]
    assert [(r.path, "FIFO" in r.reason) for r in plan.skipped] == [(str(docs / "pipe"), True)]


def test_plan_names_every_refused_path(tree: dict[str, Path]) -> None:
    root = tree["root"]
    plan = plan_ingest([str(root / "lease.pdf"), "/etc/passwd", str(root / "link_out")], [root])
    assert (plan.files, plan.names) == ([root / "lease.pdf"], ["lease.pdf"])
    assert [r.path for r in plan.refused] == ["/etc/passwd", str(root / "link_out")]


# Property: whatever relative path is built from these components, it resolves inside the root or is refused.


@pytest.fixture(scope="module")
def maze() -> Iterator[Path]:
    """A root with nested folders, files, links in and out, and a sibling folder outside it."""
    base = Path(tempfile.mkdtemp(prefix="nexus-sandbox-"))
    root = base / "root"
    (root / "a" / "b").mkdir(parents=True)
    (base / "out").mkdir()
    (base / "out" / "f").write_text("x", encoding="utf-8")
    (root / "f").write_text("x", encoding="utf-8")
    (root / "a" / "f").write_text("x", encoding="utf-8")
    (root / "a" / "up").symlink_to(base)
    (root / "a" / "b" / "in").symlink_to(root / "a")
    (root / "out").symlink_to(base / "out")
    yield root
    shutil.rmtree(base, ignore_errors=True)


_parts = st.lists(st.sampled_from(["..", ".", "a", "b", "f", "up", "in", "out", "root", "missing"]), max_size=8)


@settings(max_examples=300, deadline=None)
@given(parts=_parts, absolute=st.booleans())
def test_random_relative_paths_never_resolve_outside_the_root(maze: Path, parts: list[str], absolute: bool) -> None:
    relative = "/".join(parts) or "."
    raw = str(maze / relative) if absolute else relative
    try:
        resolved = resolve_ingest_path(raw, [maze])
    except ConfigError as exc:
        assert repr(raw) in str(exc)
        return
    assert resolved.is_relative_to(maze.resolve())
    assert resolved.exists()
