"""A PDF read and chunked the way ingest does it, for layout tests that look at pages and spans together."""

from __future__ import annotations

from pathlib import Path

from kruschnexus.chunk.chunker import chunk_page
from kruschnexus.chunk.sections import SectionTracker
from kruschnexus.extract import open_source
from kruschnexus.model import Chunk, Page


def read_and_chunk(path: Path, max_chars: int = 900) -> tuple[list[Page], list[Chunk]]:
    """Every page of ``path`` laid out, and the spans of all of them (one section tracker across the pages)."""
    tracker = SectionTracker()
    pages: list[Page] = []
    chunks: list[Chunk] = []
    with open_source(path) as source:
        for page in source.pages():
            pages.append(page)
            chunks += chunk_page(page, tracker, max_chars)
    return pages, chunks
