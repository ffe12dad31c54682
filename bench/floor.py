"""Choose the similarity floor from measurement: sweep it over on-topic and off-topic queries.

Over a workspace holding ``../shared/corpus`` (default workspace ``corpus``; ingest it first with
``nexus ingest ../shared/corpus --workspace corpus --create``), every query's candidates are fetched once with
``Corpus.explain`` and re-fused at each floor with the same pure fusion code the product uses. A floor is
good when every on-topic query still gets an answer and no off-topic or gibberish query does.

    python bench/floor.py [--workspace corpus] [--json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import replace

from kruschnexus import Corpus
from kruschnexus.retrieve.fusion import Candidate, NamedSections, fuse
from kruschnexus.schema.v1 import ExplainTrace

ON_TOPIC = [
    "rent increases are limited for existing tenants in Oakland",
    "exemptions for newly constructed dwelling units",
    "tenant pays leasehold real estate taxes on the premises",
    "angle of attack sensor disagreement on the 737 MAX",
    "cases remanded to the transferor courts",
    "interest rate margin applicable to the term loans",
    "events of default under the credit agreement",
    "covenant not to compete after the agreement ends",
    "ownership of intellectual property developed under the agreement",
    "sponsorship fees payable by the sponsor",
    "composition and election of the board of directors",
    "termination of the joint venture",
    "indemnification obligations of the parties",
    "confidential information must not be disclosed to third parties",
    "which state's law governs the agreement",
    "insurance the tenant must carry",
    "what happens if the premises are destroyed by fire",
    "assignment of the agreement requires prior written consent",
]
OFF_TOPIC = [
    "recipe for banana bread",
    "how to train a puppy to sit",
    "best hiking trails in Colorado",
    "symptoms of the flu in children",
    "who won the football world cup in 2018",
    "guitar chord progressions for beginners",
    "quantum chromodynamics gluon confinement",
    "xqzvbl blorftwug grnnkle",
    "asdf qwer zxcv",
    "lorem ipsum dolor sit amet",
]
FLOORS = [round(0.20 + 0.025 * i, 3) for i in range(13)]


def candidates(trace: ExplainTrace) -> list[Candidate]:
    """The trace's candidates back as fusion inputs."""
    return [
        Candidate(
            key=(c.doc_id, c.page_number or 0, c.ordinal),
            dense_rank=c.dense_rank,
            cosine=c.cosine,
            sparse_rank=c.sparse_rank,
            sparse_score=c.sparse_score,
            fulltext_match=c.fulltext_match,
            section=c.section,
        )
        for c in trace.candidates
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the sweep and the widest-margin floor that separates the two sets."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", default="corpus")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with Corpus(workspace=args.workspace) as corpus:
        base = corpus.fusion_settings()
        traces = {q: corpus.explain(q, k=5) for q in ON_TOPIC + OFF_TOPIC}
        model = corpus.embedder.model_id
    best = {q: max((c.cosine or -1.0 for c in t.candidates), default=-1.0) for q, t in traces.items()}
    rows = []
    for floor in FLOORS:
        settings = replace(base, floor=floor)
        answered = {
            q: any(s.admitted for s in fuse(candidates(t), settings, NamedSections())) for q, t in traces.items()
        }
        rows.append(
            {
                "floor": floor,
                "on_topic_answered": sum(answered[q] for q in ON_TOPIC),
                "off_topic_answered": sum(answered[q] for q in OFF_TOPIC),
            }
        )
    lowest_on = min(best[q] for q in ON_TOPIC)
    highest_off = max(best[q] for q in OFF_TOPIC)
    report = {
        "model": model,
        "on_topic": len(ON_TOPIC),
        "off_topic": len(OFF_TOPIC),
        "best_cosine": best,
        "lowest_on_topic_best": lowest_on,
        "highest_off_topic_best": highest_off,
        "midpoint": round((lowest_on + highest_off) / 2, 3),
        "sweep": rows,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"model {model}: {len(ON_TOPIC)} on-topic and {len(OFF_TOPIC)} off-topic queries")
    for q in ON_TOPIC + OFF_TOPIC:
        print(f"  best cosine {best[q]:.3f}  {'on ' if q in ON_TOPIC else 'off'}  {q}")
    print(
        f"lowest on-topic best {lowest_on:.3f}; highest off-topic best {highest_off:.3f}; midpoint {report['midpoint']}"
    )
    print("floor  on-topic answered  off-topic answered")
    for r in rows:
        on, off = f"{r['on_topic_answered']:>2}/{len(ON_TOPIC)}", f"{r['off_topic_answered']:>2}/{len(OFF_TOPIC)}"
        print(f"{r['floor']:.3f}  {on:>17}  {off:>18}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
