"""Pure text helpers of the lexical index: legal ids kept whole, and the words that name a document.

The engine's tokenizer splits ``8.22.030(C)`` into ``8 22 030 c``: a phrase of those still matches, but as
separate terms they say little. So each span also indexes its legal ids whole, lower-cased, with their ancestors
(``8.22.030(c)``, ``8.22.030``), and a query's ids are looked up there.
"""

from __future__ import annotations

import re

from kruschnexus.chunk.grammar import is_numbered_title_line

#: A legal id written in text: ``8.22.030(c)``, ``2.01a``, ``12(b)(6)``, ``inv-2002``.
_ID = re.compile(
    r"(?<![\w.$€£])("
    r"\d{1,4}(?:\.\d{1,4})+[a-z]?(?:\([a-z0-9]{1,4}\))*"  # 8.22.030(c), 2.01a
    r"|\d{1,4}[a-z]?(?:\([a-z0-9]{1,4}\))+"  # 12(b)(6), 7(a)
    r"|[a-z]{2,6}-\d{1,8}"  # inv-2002
    r")(?![\w])",
)
#: Function words and the words of a question ("what", "consider", "according"): a lexical query ranks by the
#: rest, and none of them names a document. (Legal text is not full of "what", so left in, such a word would be
#: rare, and its IDF would outweigh the words that matter.)
STOPWORDS = frozenset(
    """a about an and any are as at be been between by can consider could did do does for from had has have how i
    if in into is it its may me must my of on or our per shall should so such than that the their them then there
    these they this those to under upon us was we were what when where whether which who whom why will with within
    without would you your according tell explain describe say says said please""".split()
)
#: A parenthesised item at an id's end (``(c)`` of ``8.22.030(c)``): what :func:`_parent` takes off first.
_PARENS = re.compile(r"\([a-z0-9]{1,4}\)$")

#: Corporate and public-body name endings: a capitalised run of words before one names a party.
_ENTITY = re.compile(
    r"\b((?:[A-Z][\w&.,'’-]*\s+){0,6}?(?:[A-Z][\w&'’-]*,?\s*)"
    r"(?i:Inc\.?|Incorporated|LLC|L\.L\.C\.|Ltd\.?|Limited|Corporation|Corp\.?|Company|Co\.|L\.P\.|LP|LLP|plc"
    r"|N\.A\.|GmbH|S\.A\.|AG|B\.V\.|Trust|Bank|Foundation|Association|Partners|Group))(?!\w)"
)


def legal_ids(text: str) -> list[str]:
    """Legal ids in ``text``, lower-cased, each followed by its ancestors, without repeats, in order.

    >>> legal_ids("under Section 8.22.030(C) and Rule 12(b)(6)")
    ['8.22.030(c)', '8.22.030', '8.22', '12(b)(6)', '12(b)', '12']
    """
    out: dict[str, None] = {}
    for m in _ID.finditer(text.lower()):
        value = m.group(1)
        while value:
            out.setdefault(value, None)
            value = _parent(value)
    return list(out)


#: The keywords of a document's divisions (``Article IV``, ``Exhibit A``) that open a line as a section marker.
_DIVISION = r"(?:article|art\.|exhibit|schedule|annex|appendix|part|title|chapter)"
#: A section marker opening a line (see :func:`line_markers`).
_LINE_MARKER = re.compile(
    r"^[ \t]*(?:(" + _DIVISION + r")[ \t]+([ivxlcdm]+|\d+(?:\.\d+)*|[a-z]{1,2}(?:-\d+)?)(?![\w])"
    r"|(?:(?:section|sec\.|§+|clause|paragraph|para\.|¶)[ \t]*)?(\d{1,4}(?:\.\d{1,4})*[a-z]?(?:\([a-z0-9]{1,4}\))*)"
    r"(?:\.(?!\d)|(?=[ \t]+(?-i:[A-Z(“\"]))))"
    # ``¶ 35`` on a line of its own (an opinion's paragraph number, set in the margin): a keyword makes it a marker.
    r"|^[ \t]*(?:section|sec\.|§+|clause|paragraph|para\.|¶)[ \t]*"
    r"(\d{1,4}(?:\.\d{1,4})*[a-z]?(?:\([a-z0-9]{1,4}\))*)[ \t]*$"
    # ``II`` alone on a line (a slip opinion's part): ``part ii``.
    r"|^[ \t]*((?-i:[IVXL]{1,6}))\.?[ \t]*$",
    re.MULTILINE | re.IGNORECASE,
)


def line_markers(text: str) -> list[str]:
    """Section markers that open a line of ``text``, lower-cased: ``12.1``, ``20``, ``exhibit a``,
    ``article iv``, ``part ii`` (``II`` alone on its line). A span cut from one block can hold the start of a
    section the chunker did not split at (a ``12.1`` on the second line of ``12. Holidays``), or a division no
    heading tree holds (``EXHIBIT A``).

    Each span stores what this returns for its text (``spans.line_markers``, migration 0010), and a section look-up
    finds spans by it: a change to what it returns needs a migration that sets the stored markers to NULL, so that
    ``nexus reindex`` marks every span again (fusion reads the markers afresh; the two must not drift apart)."""
    out: dict[str, None] = {}
    for m in _LINE_MARKER.finditer(text):
        if m.group(1):
            label = "article" if m.group(1).lower() == "art." else m.group(1).lower()
            out.setdefault(f"{label} {m.group(2).lower()}", None)
        elif m.group(3) or m.group(4):
            out.setdefault((m.group(3) or m.group(4)).lower(), None)
        elif m.group(5):
            out.setdefault(f"part {m.group(5).lower()}", None)
    return list(out)


def _parent(value: str) -> str:
    if _PARENS.search(value):
        return _PARENS.sub("", value)
    if "." in value:
        head = value.rsplit(".", 1)[0]
        return head if re.fullmatch(r"[\d.]+", head) and "." in head else ""
    return ""


def entity_names(text: str) -> list[str]:
    """Names of parties in ``text``: capitalised word runs ending in a corporate or public-body suffix."""
    return list(dict.fromkeys(" ".join(m.group(1).split()) for m in _ENTITY.finditer(text)))


#: A file name's extension: a dot and one to five letters or digits at its end (``.pdf``, ``.docx``, ``.htm``).
_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,5}$")


def file_suffix(source: str) -> str:
    """A file name's extension, case folded (``.pdf``), or ``""`` when it has none."""
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    found = _SUFFIX.search(name)
    return found.group().casefold() if found else ""


def file_stem(source: str) -> str:
    """A file name without its folder and extension, case folded: what one document's formats share
    (``Supply.PDF`` and ``supply.txt``)."""
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    return _SUFFIX.sub("", name).casefold()


def file_words(source: str) -> str:
    """A file name as words: ``ALCOSTORESINC_12_14_2005-EX-10.26-AGENCY AGREEMENT.pdf`` ->
    ``ALCOSTORESINC 12 14 2005 EX 10.26 AGENCY AGREEMENT``; ``KarYopharmLease`` -> ``Kar Yopharm Lease``."""
    stem = _SUFFIX.sub("", source)
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", stem)
    return " ".join(re.split(r"[_\-\s,()]+", spaced)).strip()


#: Characters of the first page taken as the document's title, and the longest line a title may have.
TITLE_CHARS = 240
TITLE_LINE_CHARS = 100
#: An SEC exhibit label (``EXHIBIT 10.26``), never a title.
_SEC_EXHIBIT = re.compile(r"(?i)exhibit\s+\d+(?:\.\d+)*[a-z]?\.?")


def title_of(front: str) -> str:
    """A document's title: the short lines that open its first page, before any section starts or body text
    begins (at most three lines, :data:`TITLE_CHARS` characters). An SEC exhibit label (``EXHIBIT 10.26``) is
    skipped; a document that opens straight into a section or a paragraph has no title (``""``), so that no
    section's words are taken for the whole document's."""
    lines: list[str] = []
    for raw in front.splitlines():
        line = " ".join(raw.split())
        if len(re.findall(r"[A-Za-z]", line)) < 3 or _SEC_EXHIBIT.fullmatch(line):
            continue
        if len(line) > TITLE_LINE_CHARS or line_markers(line):
            break
        lines.append(line)
        if len(lines) == 3:
            break
    return " ".join(lines)[:TITLE_CHARS]


#: A line that ends in a dot leader and, perhaps, a page number: ``Governing Law ........ 12``.
_LEADER_LINE = re.compile(r"(?:\.\s?){5,}\s*(?:[0-9ivxlc]+)?\s*$", re.IGNORECASE)
#: What every dot leader holds (:data:`_LEADER_LINE`).
_DOT_PAIR = re.compile(r"\.\s?\.")


def looks_like_contents(text: str) -> bool:
    """The text is (part of) a table of contents: half its lines or more end in a dot leader, or it is three lines
    or more of which most are a section number and a title alone. Such a span names sections; it never holds
    what they say, so it never answers a question about them."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return False
    # A leader holds two dots at most one space apart: without them, no line is searched (a search for the leader
    # tries every character of a line, some 8 µs for a span's 400; the dots are found at the speed of a scan).
    leaders = sum(1 for line in lines if _LEADER_LINE.search(line)) if _DOT_PAIR.search(text) else 0
    if 2 * leaders >= len(lines):
        return True
    if len(lines) < 3:
        return False
    titles = sum(1 for line in lines if is_numbered_title_line(line))
    return titles >= 3 and 3 * titles >= 2 * len(lines)
