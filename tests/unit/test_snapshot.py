"""An ingest reads a file once (blobs.snapshot), and a confined open follows no symbolic link anywhere in the path:
a path checked inside the ingest roots cannot be swapped for a link out of them before it is read."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kruschnexus import blobs
from kruschnexus.errors import ParseError


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    root, outside, store = tmp_path / "root", tmp_path / "outside", tmp_path / "blobs"
    (root / "docs").mkdir(parents=True)
    outside.mkdir()
    (root / "docs" / "lease.txt").write_text("The tenant shall water the ficus.", encoding="utf-8")
    (outside / "secret.txt").write_text("outside the roots", encoding="utf-8")
    return {"root": root, "outside": outside, "store": store}


@settings(max_examples=25, deadline=None)
@given(data=st.binary(max_size=3 * 1024 * 1024 + 7))
def test_the_snapshot_is_the_file_and_its_hash(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    folder = tmp_path_factory.mktemp("snap")
    source = folder / "contract.pdf"
    source.write_bytes(data)
    for confined in (False, True):
        with blobs.snapshot(source, folder / "blobs", 4 * 1024 * 1024, confined) as (copy, digest):
            assert copy.name == "contract.pdf" and copy != source
            assert copy.read_bytes() == data and digest == hashlib.sha256(data).hexdigest()
        assert not copy.exists(), "the staging copy is removed"


def test_adopted_snapshot_is_kept_private_and_staging_is_emptied(tree: dict[str, Path]) -> None:
    path = tree["root"] / "docs" / "lease.txt"
    path.chmod(0o644)
    with blobs.snapshot(path, tree["store"], 1 << 20) as (copy, digest):
        assert stat.S_IMODE(copy.stat().st_mode) == 0o600, "the copy is private to this user"
        kept = blobs.adopt(tree["store"], copy, digest)
        assert copy.read_bytes() == path.read_bytes(), "the copy stays for a retry until the snapshot closes"
        assert blobs.adopt(tree["store"], copy, digest) == kept, "keeping the same bytes again is a no-op"
    assert kept == blobs.blob_path(tree["store"], digest) and kept.read_bytes() == path.read_bytes()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert list((tree["store"] / blobs.STAGING).iterdir()) == []


def test_a_file_swapped_for_a_link_is_not_read_when_confined(tree: dict[str, Path]) -> None:
    path = tree["root"] / "docs" / "lease.txt"  # checked inside the roots, then swapped
    path.unlink()
    path.symlink_to(tree["outside"] / "secret.txt")
    with pytest.raises(ParseError, match="the file is a symbolic link: not read"):
        with blobs.snapshot(path, tree["store"], 1 << 20, confined=True):
            pass
    with blobs.snapshot(path, tree["store"], 1 << 20) as (copy, _):  # a user's own CLI ingest follows links
        assert copy.read_text(encoding="utf-8") == "outside the roots"


def test_a_folder_swapped_for_a_link_is_not_read_when_confined(tree: dict[str, Path]) -> None:
    docs = tree["root"] / "docs"
    (tree["outside"] / "lease.txt").write_text("outside the roots", encoding="utf-8")
    os.rename(docs, tree["root"] / "old")
    docs.symlink_to(tree["outside"])
    with pytest.raises(ParseError, match="the folder 'docs' on its path is a symbolic link"):
        with blobs.snapshot(docs / "lease.txt", tree["store"], 1 << 20, confined=True):
            pass


def test_over_the_limit_and_not_a_file(tree: dict[str, Path]) -> None:
    path = tree["root"] / "docs" / "lease.txt"
    with pytest.raises(ParseError, match="over the limit of 10 bytes"):
        with blobs.snapshot(path, tree["store"], 10):
            pass
    with pytest.raises(ParseError, match="not a regular file"):
        with blobs.snapshot(tree["root"] / "docs", tree["store"], 1 << 20):
            pass
    assert list((tree["store"] / blobs.STAGING).iterdir()) == []


def test_a_fifo_swapped_in_fails_at_once_instead_of_waiting_for_a_writer(tree: dict[str, Path]) -> None:
    path = tree["root"] / "docs" / "lease.txt"
    path.unlink()
    os.mkfifo(path)
    for confined in (False, True):
        with pytest.raises(ParseError, match="not a regular file"):
            with blobs.snapshot(path, tree["store"], 1 << 20, confined=confined):
                pass


def test_staging_left_by_a_dead_process_is_removed_and_a_live_ones_kept(tree: dict[str, Path]) -> None:
    base = tree["store"] / blobs.STAGING
    dead, live = base / "999999999-x1", base / f"{os.getppid()}-x2"  # no such pid; this test's parent
    for folder in (dead, live):
        folder.mkdir(parents=True)
        (folder / "lease.pdf").write_bytes(b"partial")
    with blobs.snapshot(tree["root"] / "docs" / "lease.txt", tree["store"], 1 << 20):
        pass
    assert not dead.exists() and (live / "lease.pdf").exists()
