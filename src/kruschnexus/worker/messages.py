"""What the ingester and its reader process say to each other (pickled over their socket pair).

The ingester asks: :class:`Open` a file, then :class:`Next` for each page (several ahead of the one it works on),
:class:`Close` it, or :class:`Exit`; a ``Next`` that arrives when no file is open (asked ahead of a read that ended in
an error) is dropped.
The reader answers :class:`Ready` once started; :class:`Opened` after ``Open``; per ``Next`` one :class:`PageRead`
or :class:`End` after the last page; :class:`Closed` after ``Close``. A failure ends the file with :class:`Failed`
(a ``ParseError``), :class:`OutOfMemory` (the process then exits) or :class:`Bug` (any other exception, with its
traceback). Answers are unpickled by the ingester with an allow-list: these classes and the page types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kruschnexus.extract import ReadOptions
from kruschnexus.model import Chunk, Page


@dataclass(frozen=True)
class Open:
    """Open ``path`` (read as ``kind`` when given); cut each page's spans when ``chunk_max_chars`` is given."""

    path: str
    kind: str | None
    options: ReadOptions
    chunk_max_chars: int | None


@dataclass(frozen=True)
class Next:
    """Read the next page of the open file."""


@dataclass(frozen=True)
class Close:
    """Close the open file."""


@dataclass(frozen=True)
class Exit:
    """Stop the reader process."""


Request = Open | Next | Close | Exit


@dataclass(frozen=True)
class Ready:
    """The reader started and waits for a file."""


@dataclass(frozen=True)
class Opened:
    """The file is open: its kind, pages (or units) and the reader's notes on it."""

    kind: str
    page_count: int
    paged: bool
    meta: dict[str, Any]
    ocr_missing: str | None


@dataclass(frozen=True)
class PageRead:
    """One page, and its spans when the file was opened with ``chunk_max_chars``."""

    page: Page
    chunks: list[Chunk] | None


@dataclass(frozen=True)
class End:
    """The last page was read."""


@dataclass(frozen=True)
class Closed:
    """The file is closed."""


@dataclass(frozen=True)
class Failed:
    """The file cannot be read: a ``ParseError`` of class ``class_name``."""

    class_name: str
    reason: str
    page: int | None


@dataclass(frozen=True)
class OutOfMemory:
    """The reader ran out of memory; it exits after saying so."""


@dataclass(frozen=True)
class Bug:
    """Another exception escaped the reader: a bug, with the reader's traceback."""

    type_name: str
    message: str
    traceback: str


Answer = Ready | Opened | PageRead | End | Closed | Failed | OutOfMemory | Bug
#: Every answer class (what the ingester's unpickler allows from this module).
ANSWERS = (Ready, Opened, PageRead, End, Closed, Failed, OutOfMemory, Bug)
