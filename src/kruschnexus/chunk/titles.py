"""A heading left alone: one short line of capitalised words (``7.1 Financial Condition Covenants.``,
``ARTICLE X FORCE MAJEURE``). It names its section and holds nothing of it: the chunker joins it to the text after
it on its page, and the search ranks one left alone at a page end after the spans that hold text."""

from __future__ import annotations

import re

__all__ = ["TITLE_ONLY_CHARS", "is_title_only"]

_TITLE_WORD = re.compile(r"[^\W\d_][\w'’-]*")
#: Short words a title leaves in lower case (``Term of Lease``, ``Obligations of the Parties``).
_TITLE_SMALL = frozenset("a an and as at by for in of on or the to with".split())
TITLE_ONLY_CHARS = 80


def is_title_only(text: str) -> bool:
    """The text is one short line whose words are capitalised (``5. Forecasts; Terpene Cost Information.``,
    ``ARTICLE X FORCE MAJEURE``)."""
    line = " ".join(text.split())
    if not line or len(line) > TITLE_ONLY_CHARS or "\n" in text.strip():
        return False
    words = [w for w in _TITLE_WORD.findall(line) if w.lower() not in _TITLE_SMALL]
    return bool(words) and all(w[0].isupper() for w in words)
