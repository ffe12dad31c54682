"""Print a few stored spans of a workspace with their citations (used by `make demo`)."""

from __future__ import annotations

import argparse
import textwrap

from kruschnexus import Corpus


def main() -> None:
    """Print citation, section, offsets, box count and the text of the first spans."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--limit", type=int, default=5)
    args = parser.parse_args()
    with Corpus(workspace=args.workspace) as corpus:
        docs, pages, spans = corpus.counts()
        print(f"workspace {args.workspace!r}: {docs} documents, {pages} pages, {spans} spans\n")
        for n, hit in enumerate(corpus.export()):
            if n >= args.limit:
                break
            print(f"[{n + 1}] {hit.citation}")
            where = f"chars [{hit.char_start}:{hit.char_end})  {len(hit.boxes or [])} line box(es)  bbox {hit.bbox}"
            print(f"    section {hit.section}  {where}")
            print(textwrap.indent(textwrap.shorten(hit.text, 300), "    "))
            print()


if __name__ == "__main__":
    main()
