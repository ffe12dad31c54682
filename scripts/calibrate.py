"""Choose the floor and fit the confidence calibrator for the configured embedding model.

Usage (from the repository root)::

    python scripts/calibrate.py eval/corpus.jsonl --corpus ../shared/corpus [--split dev|test|all] \\
        [--workspace W] [--out src/kruschnexus/embed/assets/minilm-calibration.json]

Ingests the suite's corpus like ``nexus eval`` (its own workspace unless ``--workspace``), sweeps the floor, prints
the sweep, fits the calibrator at the chosen floor, prints its weights and ECE, and writes the asset the model
loads (``--out``; nothing is written without it). ``--split dev`` fits on the suite's dev queries only (the
``split`` field; ``all``, the default, uses every query); the corpus ingested is the same whatever the split.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from kruschnexus.config import Settings  # noqa: E402
from kruschnexus.corpus import Corpus  # noqa: E402
from kruschnexus.eval.calibrate import calibrate, choose_floor, collect, sweep_floor  # noqa: E402
from kruschnexus.eval.runner import corpus_files, workspace_for  # noqa: E402
from kruschnexus.eval.suite import load_suite  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--workspace", default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all", help="queries to fit on")
    args = parser.parse_args()
    whole = load_suite(args.suite)
    files = corpus_files(whole, args.corpus)
    suite = whole.select(None if args.split == "all" else args.split)
    workspace = args.workspace or workspace_for(args.corpus)
    with Corpus(workspace=workspace, settings=Settings.load()) as corpus:
        print(f"[calibrate] ingesting {len(files)} files into {workspace} ...", file=sys.stderr)
        failed = [r for r in corpus.ingest(files) if r.failed]
        for result in failed:
            print(f"[calibrate] failed: {result.path}: {result.reason}", file=sys.stderr)
        print(
            f"[calibrate] sweeping the floor over {len(suite.queries)} queries (split {args.split}) ...",
            file=sys.stderr,
        )
        rows = sweep_floor(corpus, suite, tick=lambda: print(".", end="", file=sys.stderr, flush=True))
        print(file=sys.stderr)
        chosen = choose_floor(rows)
        print(f"model {corpus.embedder.model_id}; suite {suite.path.name}; split {args.split}")
        print(f"{'floor':>6} {'answerable answered':>20} {'negatives []':>13}")
        for r in rows:
            mark = "  <- chosen" if r is chosen else ""
            print(
                f"{r.floor:>6.3f} {f'{r.answerable_answered}/{r.answerable}':>20}"
                f" {f'{r.negatives_abstained}/{r.negatives}':>13}{mark}"
            )
        samples = collect(corpus, suite, chosen.floor)
        calibration, in_sample, cv = calibrate(samples, rows, chosen.floor, suite, corpus.embedder.model_id)
    print(f"calibrator over {len(samples.y)} returned hits ({int(samples.y.sum())} relevant):")
    for name, weight in zip(calibration.features, calibration.weights, strict=True):
        print(f"  {name:<16} {weight:+.4f}")
    print(f"  {'bias':<16} {calibration.bias:+.4f}")
    print(f"ECE in sample {in_sample:.4f}; 2-fold cross-validated {cv:.4f}")
    if args.out is not None:
        args.out.write_text(calibration.to_json(), encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
