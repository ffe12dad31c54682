"""``NEXUS_PG_SHARED_BUFFERS``: ``auto`` is a quarter of the memory the process may use, within bounds; a size is
read as PostgreSQL reads it, and one PostgreSQL would refuse is refused here, by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.config import Settings, buffer_bytes
from kruschnexus.errors import ConfigError
from kruschnexus.store.buffers import SHARED_BUFFERS_MB, shared_buffers, usable_memory


@given(st.integers(min_value=1 << 20, max_value=1 << 42))
def test_auto_is_a_quarter_of_the_memory_within_bounds(memory: int) -> None:
    size = shared_buffers("auto", memory)
    assert size.endswith("MB")
    mb = int(size[:-2])
    low, high = SHARED_BUFFERS_MB
    assert low <= mb <= high
    assert mb == min(max(memory // 4 // (1 << 20), low), high)


def test_the_usable_memory_is_at_most_the_machines() -> None:
    import psutil

    assert 0 < usable_memory() <= psutil.virtual_memory().total


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("512MB", 512 << 20),
        ("1.5GB", 3 << 29),
        ("512 MB", 512 << 20),
        ("1000000B", 1000000),
        ("65536", 65536 * 8192),
        ("128kB", 128 << 10),
    ],
)
def test_sizes_are_read_as_postgresql_reads_them(text: str, size: int) -> None:
    assert buffer_bytes(text) == size
    assert shared_buffers(text) == f"{size // 1024}kB"  # whole kB, as the server is given it


def test_a_size_is_used_and_nonsense_or_out_of_range_is_refused(tmp_path: Path) -> None:
    home = {"home": tmp_path}
    assert Settings.load(overrides={**home, "pg_shared_buffers": "512MB"}, env={}).pg_shared_buffers == "512MB"
    assert Settings.load(overrides=home, env={"NEXUS_PG_SHARED_BUFFERS": "AUTO"}).pg_shared_buffers == "auto"
    assert Settings.load(overrides=home, env={}).pg_shared_buffers == "auto"
    for bad in ("lots", "512mb", "-1GB", "1kB", "127kB", "8TB", "1024TB", "0"):
        with pytest.raises(ConfigError, match="pg_shared_buffers"):
            Settings.load(overrides={**home, "pg_shared_buffers": bad}, env={})


def test_doctor_says_whether_the_vector_index_fits_and_what_raises_the_cache() -> None:
    from kruschnexus.doctor import buffer_cache_detail

    gb = 1 << 30
    assert buffer_cache_detail(4 * gb, 2 * gb, 4 * gb) == "shared_buffers 4.0 GB, the vector index (2.0 GB) fits"
    assert buffer_cache_detail(128 << 20, None, None) == "shared_buffers 128 MB; no vector index yet"
    small = buffer_cache_detail(128 << 20, 2 * gb, 128 << 20)
    assert "less than the vector index (2.0 GB)" in small and "NEXUS_PG_SHARED_BUFFERS" in small
    assert "the server's DBA raises shared_buffers" in buffer_cache_detail(128 << 20, 2 * gb, None)
    later = buffer_cache_detail(128 << 20, 2 * gb, 6 * gb)
    assert later.endswith("; 6.0 GB when the embedded server next starts (it runs with what it started with)")
