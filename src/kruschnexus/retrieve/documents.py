"""Questions that name their document: "under the Acme office lease", "Consider the Supply Agreement between A
Corp and B LLC; what is ...". Pure decisions over what the lexical document index returns.

A question names a document when the best document's *name* (title, parties, file name) shares at least
``min_terms`` distinctive terms (terms in at most ``distinctive_share`` of the workspace's document names) with it,
or one that no other document's name holds when the question writes it as an identifier (``2022-NCSC-1``, ``HPIL``)
or as a proper name ("When does Karyopharm ..."), and its score (name, plus first pages weighted less) leads the
next document's by the factor ``margin``; documents whose names it matches with the same terms and as well (within
the margin), and its twins (the same contract kept as a PDF and as text), are named with it, up to ``max_named``
(the same document kept in several formats, ``lease.pdf`` and ``lease.txt``, or versions that share the name the
question uses). These are the settings ``name_min_terms``, ``name_distinctive_share``, ``name_margin`` and
``name_max_documents`` (:class:`~kruschnexus.config.Settings`). The search then ranks only within that document,
and the naming words are taken out of what the legs match, so that they do not pull the hits to the preamble that
repeats them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from kruschnexus.config import default_of
from kruschnexus.lexical.analysis import STOPWORDS
from kruschnexus.lexical.index import DocHit


@dataclass(frozen=True)
class DocMatch:
    """The documents a question names (``doc_ids``: the best first, then those that share its name as closely,
    such as the same contract as a PDF and as text), the naming terms (analysed), the score and the runner-up's."""

    doc_ids: tuple[str, ...]
    terms: tuple[str, ...]
    score: float
    runner_up: float

    @property
    def doc_id(self) -> str:
        """The best matching document."""
        return self.doc_ids[0]


def name_terms(analyze: Callable[[str], list[str]], text: str) -> list[str]:
    """The analysed terms of ``text`` that may name a document (stop words and bare numbers out)."""
    words = [w for w in re.findall(r"[^\W_]+", text) if w.lower() not in STOPWORDS and not w.isdigit()]
    return list(dict.fromkeys(t for w in words for t in analyze(w)))


def choose(
    hits: Sequence[DocHit],
    doc_freq: Callable[[str], int],
    documents: int,
    proper: Collection[str] | None = None,
    twins: Callable[[str, str], bool] | None = None,
    identifiers: Collection[str] = (),
    *,
    min_terms: int = default_of("name_min_terms", int),
    distinctive_share: float = default_of("name_distinctive_share", float),
    margin: float = default_of("name_margin", float),
    max_named: int = default_of("name_max_documents", int),
) -> DocMatch | None:
    """The named document among ``hits`` (best first), or ``None`` when the question names none clearly.

    ``proper``: the analysed terms of the question's proper names (see
    :func:`~kruschnexus.retrieve.vocabulary.candidate_names`); when given, one of the distinctive naming terms must
    be among them. People name a document by a party, a place or an acronym ("the Chicago clinic lease", "the
    CNCF charter"); a question whose only link to a title is its topic ("how much is the security deposit?"
    against a lease headed SECURITY DEPOSIT) names no document.

    ``doc_freq`` and ``documents`` count twins once (the lexical document index does). ``twins``: whether two
    documents are twins (see :func:`~kruschnexus.retrieve.twins.are_twins`); the top
    document's twins (the same file name in another format) are named with it, even when the two formats gave it
    different names (a title read from the PDF's first page but not from the text) or scores.

    ``identifiers``: the analysed terms of the question's identifiers (see :func:`identifier_terms`); one of them,
    or of ``proper``, that only the top document's name holds names it alone.

    ``min_terms``, ``distinctive_share``, ``margin`` and ``max_named``: see the module docstring.
    """
    if not hits or documents < 2:
        return None
    top = hits[0]
    limit = max(1, int(distinctive_share * documents))
    distinctive = tuple(t for t in top.name_terms if doc_freq(t) <= limit)
    unique = any((t in identifiers or t in (proper or ())) and doc_freq(t) == 1 for t in distinctive)
    if (len(distinctive) < min_terms and not unique) or (
        proper is not None and not any(t in proper for t in distinctive)
    ):
        return None  # decided before any twin is looked up
    # Documents the question names as well as the top one: its twins (the same document), and those with the same
    # naming terms and a score within the margin.
    group = [
        top,
        *(
            h
            for h in hits[1:]
            if (h.name_terms == top.name_terms and margin * h.total >= top.total)
            or (twins is not None and twins(h.doc_id, top.doc_id))
        ),
    ]
    others = [h.total for h in hits if h not in group]
    runner_up = max(others, default=0.0)
    if len(group) > max_named or top.total < margin * runner_up:
        return None
    return DocMatch(tuple(h.doc_id for h in group), top.name_terms, top.total, runner_up)


#: A word written as an identifier may be: letters, digits, ``.`` and ``-``, starting and ending with a letter or digit.
_IDENTIFIER = re.compile(r"[^\W_][\w.-]*[^\W_]")


def identifier_terms(analyze: Callable[[str], list[str]], text: str) -> set[str]:
    """The analysed terms (no bare numbers) of the words of ``text`` written as identifiers: letters and digits
    joined (``2022-NCSC-1``, ``EX-10.1``) or capitals only, three or more (``NCSC``)."""
    out: set[str] = set()
    for word in _IDENTIFIER.findall(text):
        mixed = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
        capitals = sum(c.isupper() for c in word) >= 3 and not any(c.islower() for c in word)
        if mixed or capitals:
            out.update(t for t in analyze(word) if len(t) > 1 and not t.isdigit())
    return out


def strip_naming(analyze: Callable[[str], list[str]], text: str, terms: Sequence[str]) -> str:
    """``text`` without the words whose analysed form is one of the naming ``terms`` (spacing kept simple), and
    without a clause (set off by ``;`` or ``:``) that does nothing but name the document: "Consider the Supply
    Agreement between Florida Chemical Company, LLC and Flotek Chemistry, LLC; is there ..." is asked as "is there
    ...", not as "Consider the between , and , ; is there ..."."""
    naming = set(terms)

    def names(word: str) -> bool:
        found = set(analyze(word))
        return bool(found) and found <= naming

    clauses = [c for c in _CLAUSE_END.split(text) if c.strip()]
    asking = [c for c in clauses if not _only_names(c.split(), names)] or clauses
    return " ".join(w for clause in asking for w in clause.split() if not names(w))


#: Where a clause ends inside a question: after ``;`` or ``:``.
_CLAUSE_END = re.compile(r"(?<=[;:])\s+")


def _only_names(words: list[str], names: Callable[[str], bool]) -> bool:
    """Most of a clause's words name the document (the rest are the glue of a name: "Consider the ... between ...
    and ...")."""
    return 2 * sum(1 for w in words if names(w)) > len(words)
