"""Names a question uses that the workspace has never seen: "the Nike distribution agreement", "Airbus A320",
"Wikipedia administrators". A capitalised word (not the first of a sentence) or a word with a digit, none of
whose terms any document holds, names something this workspace does not have, so the answer is ``[]`` rather
than the nearest thing that is there. Pure: the caller says which terms are known.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from kruschnexus.config import default_of
from kruschnexus.lexical.analysis import STOPWORDS

#: Words written capitalised in questions that name parts of a document, not things in it.
PART_WORDS = frozenset(
    "section sec article art clause paragraph para schedule exhibit annex appendix chapter title part rule "
    "amendment agreement lease contract".split()
)
#: Capitalised by the calendar, not because they name something: months and days of the week.
CALENDAR_WORDS = frozenset(
    "january february march april june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)
#: A word of a question: letters and digits, with ``'``, ``.`` and ``-`` inside it.
_WORD = re.compile(r"[^\W_][\w'’.-]*[^\W_]|[^\W_]")


def candidate_names(text: str) -> list[str]:
    """Words of ``text`` that may name something: capitalised (not sentence-initial) or holding a digit and a
    letter, without stop words, document-part words and the calendar's words (``September``, ``Friday``)."""
    out: list[str] = []
    for m in _WORD.finditer(text):
        word = m.group(0)
        before = text[: m.start()].rstrip()
        initial = not before or before[-1] in ".;:?!"
        bare = word.lower().strip(".'’-")
        if bare in STOPWORDS or bare in PART_WORDS or bare in CALENDAR_WORDS:
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


#: Words that ask how much, how long or when: a question holds them, the text that answers it rarely does.
QUESTION_WORDS = frozenset(
    "many much long often far soon early earlier late later most least ahead happen happens happened".split()
)
#: The letters an edit may put in a word (:func:`one_edit`).
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def one_edit(word: str) -> set[str]:
    """Every string one deletion, swap of neighbours, substitution or insertion (of a-z) away from ``word``."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = {a + b[1:] for a, b in splits if b}
    swaps = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    replaces = {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    inserts = {a + c + b for a, b in splits for c in _LETTERS}
    return (deletes | swaps | replaces | inserts) - {word}


def absent_words(
    text: str,
    analyze: Callable[[str], list[str]],
    known: Callable[[str], bool],
    *,
    misspelt_chars: int = default_of("absent_misspelt_chars", int),
) -> list[str]:
    """Words of ``text`` (letters only, three or more, not stop, document-part or question words, not an acronym)
    none of whose terms any document holds, nor (for words of ``misspelt_chars`` letters or more) the terms of a
    word one edit away: "sabbatical", "cryptocurrency", "swimming". The edit is made on the word as written, not on
    its stem (``terminaton`` stems apart from ``termination``). The question asks about something the workspace
    never mentions; the caller decides how much that weighs.

    A word that long, one edit away from a word a document holds, is a misspelling of it (``terminaton``,
    ``montly``); a shorter one has too many neighbours one edit away for that to say anything."""
    absent: list[str] = []
    for m in _WORD.finditer(text):
        word = m.group(0)
        bare = word.lower().strip(".'’-")
        if len(bare) < 3 or not bare.isalpha() or bare in STOPWORDS or bare in PART_WORDS or bare in QUESTION_WORDS:
            continue
        if word.isupper():
            continue  # ``HVAC``, ``CAM``: shorthand for words the document may spell out (see unknown_names)
        terms = [t for t in analyze(word) if len(t) > 1 and t.isalpha()]
        if not terms or any(known(t) for t in terms):
            continue
        if len(bare) >= misspelt_chars and any(known(t) for v in one_edit(bare) for t in analyze(v)):
            continue
        absent.append(word)
    return list(dict.fromkeys(absent))


def telling_absence(absent: list[str], terms: list[str], *, share: float = default_of("absent_share", float)) -> bool:
    """Whether ``absent`` words (see :func:`absent_words`) say the workspace lacks the question's subject: some are
    absent, and they are at most ``share`` of the question's ``terms``.

    A workspace that lacks more of its words (three short leases asked "what happens if the premises are rendered
    unusable") does not share the question's vocabulary, and a missing word there is no sign of a missing subject."""
    return bool(absent) and len(absent) <= share * len(terms)


def telling_document_absence(
    text: str,
    absent: list[str],
    terms: list[str],
    *,
    share: float = default_of("absent_share", float),
    minimum: int = default_of("absent_document_min", int),
) -> bool:
    """Whether ``absent`` words of ``text`` (see :func:`absent_words`, asked of one document) say the document a
    question names lacks its subject: at least ``minimum`` of them, more than ``share`` of the question's
    ``terms``, and two of them next to each other in ``text`` with only stop words between.

    Within the one document a question names, a single missing word is ordinary paraphrase ("walk away" for a
    termination right), and so are two missing far apart ("the new minimum payment the owner receives"). What says
    the document lacks the subject is a term of several words missing whole ("most favored nation", "car
    allowance", "what law governs")."""
    if len(absent) < minimum or len(absent) <= share * len(terms):
        return False
    missing = set(absent)
    words = [m.group(0) for m in _WORD.finditer(text) if m.group(0).lower().strip(".'’-") not in STOPWORDS]
    return any(a in missing and b in missing for a, b in itertools.pairwise(words))
