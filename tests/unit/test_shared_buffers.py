"""``NEXUS_PG_SHARED_BUFFERS``: ``auto`` is a quarter of the machine's memory within bounds; a size is checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.config import Settings
from kruschnexus.errors import ConfigError
from kruschnexus.store.embedded import SHARED_BUFFERS_MB, shared_buffers


@given(st.integers(min_value=1 << 20, max_value=1 << 42))
def test_auto_is_a_quarter_of_the_memory_within_bounds(memory: int) -> None:
    size = shared_buffers("auto", memory)
    assert size.endswith("MB")
    mb = int(size[:-2])
    low, high = SHARED_BUFFERS_MB
    assert low <= mb <= high
    assert mb == min(max(memory // 4 // (1 << 20), low), high)


def test_a_size_is_used_as_given_and_nonsense_is_refused(tmp_path: Path) -> None:
    assert shared_buffers("2GB", 1 << 30) == "2GB"
    home = {"home": tmp_path}
    assert Settings.load(overrides={**home, "pg_shared_buffers": "512MB"}, env={}).pg_shared_buffers == "512MB"
    assert Settings.load(overrides=home, env={"NEXUS_PG_SHARED_BUFFERS": "1GB"}).pg_shared_buffers == "1GB"
    assert Settings.load(overrides=home, env={}).pg_shared_buffers == "auto"
    for bad in ("lots", "512", "512mb", "0MB", "-1GB", "1.5GB"):
        with pytest.raises(ConfigError, match="pg_shared_buffers"):
            Settings.load(overrides={**home, "pg_shared_buffers": bad}, env={})
