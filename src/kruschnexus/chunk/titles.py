"""A heading left alone: one short line of capitalised words (``7.1 Financial Condition Covenants.``,
``ARTICLE X FORCE MAJEURE``), or a code section's number, a dash and its title in sentence case, as municipal codes
print them (``8.22.010 - Findings and purpose.``, ``Sec. 5-12. - Permit required.``). It names its section and holds
nothing of it: the chunker joins it to the text after it on its page, and the search ranks one left alone at a page
end after the spans that hold text."""

from __future__ import annotations

import re

__all__ = ["CODE_TITLE_CHARS", "TITLE_ONLY_CHARS", "is_code_title", "is_title_only"]

_TITLE_WORD = re.compile(r"[^\W\d_][\w'’-]*")
#: Short words a title leaves in lower case (``Term of Lease``, ``Obligations of the Parties``).
_TITLE_SMALL = frozenset("a an and as at by for in of on or the to with".split())
TITLE_ONLY_CHARS = 80
#: A code section's title may wrap onto a second line (``8.22.060 - Notice of the existence of this Chapter
#: required at`` / ``commencement of tenancy.``).
CODE_TITLE_CHARS = 130
#: The number, a dash between spaces, then one sentence-case phrase: a capital first, no sentence break inside, at
#: most a dot at the end.
_CODE_TITLE = re.compile(r"^\S.{0,30}?\s[-\u2013\u2014]\s+[A-Z][^.;:!?]*\.?$")


def is_title_only(text: str) -> bool:
    """The text is one short line whose words are capitalised (``5. Forecasts; Terpene Cost Information.``,
    ``ARTICLE X FORCE MAJEURE``)."""
    if "\n" in text.strip():
        return False
    line = " ".join(text.split())
    if not line or len(line) > TITLE_ONLY_CHARS:
        return False
    words = [w for w in _TITLE_WORD.findall(line) if w.lower() not in _TITLE_SMALL]
    return bool(words) and all(w[0].isupper() for w in words)


def is_code_title(text: str) -> bool:
    """The text is a code section's number, a dash and its title, on one line or two (``8.22.010 - Findings and
    purpose.``): a title in sentence case, which :func:`is_title_only` does not take."""
    line = " ".join(text.split())
    lines = text.strip().count("\n") + 1
    return bool(line) and lines <= 2 and len(line) <= CODE_TITLE_CHARS and _CODE_TITLE.match(line) is not None
