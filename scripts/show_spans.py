"""Print a few stored spans of a workspace with their citations (used by `make demo`)."""

from __future__ import annotations

import argparse
import textwrap

from kruschnexus import Corpus, Hit


def main() -> None:
    """Print citation, section, offsets, boxes or locator and the text of each document's first span."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--limit", type=int, default=8, help="documents to show (first span of each)")
    args = parser.parse_args()
    with Corpus(workspace=args.workspace) as corpus:
        docs, pages, spans = corpus.counts()
        print(f"workspace {args.workspace!r}: {docs} documents, {pages} pages, {spans} spans\n")
        firsts: dict[str, Hit] = {}
        for hit in corpus.export():
            firsts.setdefault(hit.doc_id, hit)
        for n, hit in enumerate(list(firsts.values())[: args.limit]):
            print(f"[{n + 1}] {hit.citation}")
            if hit.page_number is not None:
                where = f"page {hit.page_number}  {len(hit.boxes or [])} line box(es)  bbox {hit.bbox}"
            else:
                where = f"locator {hit.locator} (no pages in this format)"
            ocr = "  (OCR)" if hit.used_ocr else ""
            print(f"    section {hit.section}  chars [{hit.char_start}:{hit.char_end})  {where}{ocr}")
            print(textwrap.indent(textwrap.shorten(hit.text, 300), "    "))
            print()


if __name__ == "__main__":
    main()
