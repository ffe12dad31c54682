"""Names a question uses that the workspace has never seen: "the Nike distribution agreement", "Airbus A320",
"Wikipedia administrators". A capitalised word (not the first of a sentence) or a word with a digit, none of
whose terms any document holds, names something this workspace does not have, so the answer is ``[]`` rather
than the nearest thing that is there. Pure: the caller says which terms are known.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kruschnexus.lexical.analysis import STOPWORDS

#: Words written capitalised in questions that name parts of a document, not things in it.
PART_WORDS = frozenset(
    "section sec article art clause paragraph para schedule exhibit annex appendix chapter title part rule "
    "amendment agreement lease contract".split()
)
_WORD = re.compile(r"[^\W_][\w'’.-]*[^\W_]|[^\W_]")


def candidate_names(text: str) -> list[str]:
    """Words of ``text`` that may name something: capitalised (not sentence-initial) or holding a digit and a
    letter, without stop words and document-part words."""
    out: list[str] = []
    for m in _WORD.finditer(text):
        word = m.group(0)
        before = text[: m.start()].rstrip()
        initial = not before or before[-1] in ".;:?!"
        bare = word.lower().strip(".'’-")
        if bare in STOPWORDS or bare in PART_WORDS:
            continue
        has_digit_and_letter = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
        if (word[0].isupper() and not initial) or has_digit_and_letter:
            out.append(word)
    return list(dict.fromkeys(out))


def unknown_names(text: str, analyze: Callable[[str], list[str]], known: Callable[[str], bool]) -> list[str]:
    """The candidate names of ``text`` (see :func:`candidate_names`) none of whose analysed terms is ``known``.

    An all-capital word without a digit (``HVAC``, ``SOFR``) never counts: an acronym in a question is as often
    the reader's shorthand for words the document spells out as a name it lacks."""
    unknown = []
    for word in candidate_names(text):
        if word.isupper() and not any(c.isdigit() for c in word):
            continue
        terms = [t for t in analyze(word) if len(t) > 1 and not t.isdigit()]
        if terms and not any(known(t) for t in terms):
            unknown.append(word)
    return unknown
