"""Check an evaluation suite against its documents: valid records, unique ids, kind shares, gold passages.

Usage: ``python scripts/check_suite.py SUITE.jsonl --corpus DIR``

Prints one line per gold passage that is not on its stated page and per hard negative naming a section its
document has, then a summary (size, ids, kind shares, splits, families, family x kind with dev/test counts).
Exit status 0 when everything checks out, 1 on any failure (including an invalid suite file).
The logic lives in ``kruschnexus.eval.gold``; this script only parses arguments and prints.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kruschnexus.eval.gold import check_gold
from kruschnexus.eval.suite import SuiteError, load_suite


def main(argv: list[str] | None = None) -> int:
    """Run the check and return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path, help="the suite file (JSONL)")
    parser.add_argument("--corpus", type=Path, required=True, help="folder the suite's doc paths are relative to")
    args = parser.parse_args(argv)
    try:
        suite = load_suite(args.suite)
    except SuiteError as exc:
        print(f"invalid suite: {exc}", file=sys.stderr)
        return 1
    report = check_gold(suite, args.corpus)
    for failure in report.failures:
        print(f"FAIL {failure}")
    for failure in report.negative_failures:
        print(f"FAIL negative {failure}")
    for line in report.summary_lines():
        print(line)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
