"""Hostile bytes in text-like formats are clear per-file errors (ParseError naming the file), never tracebacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from kruschnexus.errors import ParseError
from kruschnexus.extract import open_source

CASES = {
    "bom_utf8_then_junk.txt": b"\xef\xbb\xbfabc\xff",
    "bom_utf16_odd_length.md": b"\xff\xfea\x00b",
    "bom_utf16_lone_surrogate.csv": b"\xff\xfe\x00\xd8a\x00",
    "charset_hex.html": b'<html><head><meta charset="hex"></head><body><p>x</p></body></html>',
    "superscript_colspan.html": b'<table><tr><td colspan="\xc2\xb2">a</td><td>b</td></tr></table>',
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_text_input_is_read_or_refused_clearly(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(CASES[name])
    try:
        with open_source(path) as source:
            pages = list(source.pages())
    except ParseError as exc:
        assert exc.path == str(path) and exc.reason
        return
    assert all(p.text for p in pages)
